"""Games given as explicit trees of nested tuples: small textbook games, and the random games
of the tests. ``TreeGame(tree)`` puts such a tree behind the succinct ``Game`` interface.

Node tuples::

    ("leaf", (u0, u1, ...))                                 one utility per player
    ("chance", labels, probabilities, children)             exact probabilities (Fractions)
    ("decision", player, infoset_key, labels, children)

The number of players is the length of the leaves' utility tuples. ``repr(g)`` is a constructor
call and ``g.pretty()`` draws the tree.
"""

from __future__ import annotations

from seqform.model.game import CHANCE, TERMINAL, Game

LEAF, CHANCE_NODE, DECISION = "leaf", "chance", "decision"


def _children(node: tuple) -> tuple:
    if node[0] == LEAF:
        return ()
    return node[3] if node[0] == CHANCE_NODE else node[4]


def _reached(node: tuple) -> tuple:
    """The children of ``node``, less the chance outcomes of probability zero."""
    if node[0] == CHANCE_NODE:
        return tuple(c for c, p in zip(node[3], node[2]) if p)
    return _children(node)


def _labels(node: tuple) -> tuple:
    return node[1] if node[0] == CHANCE_NODE else node[3]


def node_at(tree: tuple, path: tuple) -> tuple:
    """The node reached from ``tree`` by the action indices ``path``."""
    for a in path:
        tree = _children(tree)[a]
    return tree


def label_path(tree: tuple, path: tuple) -> str:
    """``path`` (action indices) as the compiler prints it: labels joined by "/", or "(root)"."""
    labels, node = [], tree
    for a in path:
        labels.append(str(_labels(node)[a]))
        node = _children(node)[a]
    return "/".join(labels) if labels else "(root)"


class TreeGame(Game):
    """A game given as an explicit tree of nested tuples (see the module docstring).

    A state is ``(path, node)``: the action indices from the root and the node itself.
    ``info`` holds facts about the game computed when it was drawn (see ``analyze``).
    """

    def __init__(self, tree: tuple, name: str = "tree", info: dict | None = None):
        self.tree = tree
        self.name = name
        self.info = dict(info or {})
        node = tree
        while node[0] != LEAF:
            node = _children(node)[0]
        self.num_players = len(node[1])

    def root(self):
        return ((), self.tree)

    def player(self, h):
        node = h[1]
        if node[0] == LEAF:
            return TERMINAL
        if node[0] == CHANCE_NODE:
            return CHANCE
        return node[1]

    def infoset(self, h):
        return h[1][2]

    def actions(self, h):
        return _labels(h[1])

    def next(self, h, a):
        return (h[0] + (a,), _children(h[1])[a])

    def chance(self, h):
        return h[1][2]

    def utility(self, h):
        return h[1][1]

    def utility_bound(self, h, player: int):
        """The largest utility of ``player`` at a leaf below ``h`` that chance reaches with positive
        probability: exact, memoised per node."""
        memo = self.__dict__.setdefault("_bounds", {})
        node = h[1]
        got = memo.get((id(node), player))
        if got is None:
            stack, order = [node], []
            while stack:  # children before parents, without recursion (trees may be deep)
                n = stack.pop()
                if (id(n), player) not in memo:
                    order.append(n)
                    stack.extend(_reached(n))
            for n in reversed(order):
                memo[id(n), player] = n[1][player] if n[0] == LEAF else max(memo[id(c), player] for c in _reached(n))
            got = memo[id(node), player]
        return got

    def num_nodes_hint(self) -> int:
        """The nodes of the nested tuples (the tree is already in memory: counting it builds nothing)."""
        count, stack = 0, [self.tree]
        while stack:
            node = stack.pop()
            count += 1
            stack.extend(_children(node))
        return count

    def describe(self, h):
        return label_path(self.tree, h[0])

    def __repr__(self) -> str:
        return f"TreeGame({self.tree!r}, name={self.name!r})"

    def pretty(self) -> str:
        """A multi-line drawing of the tree."""
        lines: list = []

        def rec(node, indent, label):
            pad = "  " * indent + (f"{label} -> " if label is not None else "")
            if node[0] == LEAF:
                lines.append(f"{pad}leaf {tuple(str(x) for x in node[1])}")
                return
            if node[0] == CHANCE_NODE:
                lines.append(f"{pad}chance {[str(p) for p in node[2]]}")
            else:
                lines.append(f"{pad}P{node[1]} infoset {node[2]!r}")
            for lab, child in zip(_labels(node), _children(node)):
                rec(child, indent + 1, lab)

        rec(self.tree, 0, None)
        return "\n".join(lines)

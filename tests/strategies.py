"""Hypothesis strategies drawing small random extensive-form games (test code only).

* ``random_games(...)``: two-player zero-sum games with chance nodes and perfect recall, whose
  information sets often span several nodes (in different chance branches, under different
  opponent actions). The number of *full* pure strategies of each player (the product of the
  action counts of the player's information sets, an upper bound on the reduced ones) is bounded
  by construction, so the brute-force oracle in ``tests/oracle/brute_force.py`` can always solve
  them.
* ``imperfect_recall_games(...)``: games violating perfect recall (forgotten own action, forgotten
  observation, absent-mindedness, information sets at different own depths), for tests that
  expect ``ImperfectRecallError``; ``g.info["bad_infoset"]`` is ``(player, key)`` and
  ``g.info["bad_paths"]`` the paths of its nodes, the first in depth-first order first.
* ``bad_chance_games(...)``: games with one chance node whose probabilities are negative or do not
  sum to exactly one (short, excess, all zero, floats such as 0.1+0.2+0.7); ``g.info["bad_path"]``
  is that node's path in the compiler's format (action labels joined by "/", "(root)" for the
  root) and ``g.info["bad_kind"]`` says what is wrong.

All of them return ``TreeGame`` instances: an explicit tree of nested tuples behind the succinct
``seqform.model.game.Game`` interface. ``repr(g)`` is a constructor call (with ``from fractions import
Fraction`` and ``from tests.strategies import TreeGame`` it rebuilds the game), so hypothesis'
falsifying examples can be pasted into a regression test; ``g.pretty()`` draws the tree.

Node tuples::

    ("leaf", (u0, u1))
    ("chance", labels, probabilities, children)
    ("decision", player, infoset_key, labels, children)
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from seqform.games.explicit import CHANCE_NODE, DECISION, LEAF, TreeGame, _children, label_path, node_at  # noqa: F401

# ----------------------------------------------------------------------------------------------
# analysis of a tree (own histories, information sets, where they span)
# ----------------------------------------------------------------------------------------------


def analyze(tree: tuple) -> dict:
    """Facts about a tree, computed by walking it (works for imperfect-recall trees too).

    Keys: ``nodes``, ``leaves``, ``depth``, ``chance_nodes`` (index paths), ``infosets``
    ({(player, key): {"paths": [index paths in depth-first order], "own": set of own histories,
    "nact": set of action counts, "labels": first labels}}), ``num_infosets`` (per player),
    ``multi_node_infosets``, ``spans_chance`` / ``spans_opponent`` (some information set has two
    nodes whose deepest common ancestor is a chance node / an opponent's decision node),
    ``zero_prob_outcome``, ``rational_payoff``, ``single_action``, ``perfect_recall``,
    ``full_pure_strategies`` (per player, the product of action counts).
    """
    out: dict = {
        "nodes": 0,
        "leaves": 0,
        "depth": 0,
        "chance_nodes": [],
        "infosets": {},
        "zero_prob_outcome": False,
        "rational_payoff": False,
        "single_action": False,
    }

    def rec(node, path, own):
        out["nodes"] += 1
        out["depth"] = max(out["depth"], len(path))
        kind = node[0]
        if kind == LEAF:
            out["leaves"] += 1
            if any(isinstance(u, Fraction) and u.denominator != 1 for u in node[1]):
                out["rational_payoff"] = True
            return
        if kind == CHANCE_NODE:
            out["chance_nodes"].append(path)
            if any(p == 0 for p in node[2]):
                out["zero_prob_outcome"] = True
            for i, c in enumerate(node[3]):
                rec(c, path + (i,), own)
            return
        _, p, key, labels, children = node
        if len(children) == 1:
            out["single_action"] = True
        rec_ = out["infosets"].setdefault((p, key), {"paths": [], "own": set(), "nact": set(), "labels": labels})
        rec_["paths"].append(path)
        rec_["own"].add(own[p])
        rec_["nact"].add(len(children))
        for i, c in enumerate(children):
            nown = list(own)
            nown[p] = own[p] + ((key, i),)
            rec(c, path + (i,), tuple(nown))

    rec(tree, (), ((), ()))
    infos = out["infosets"]
    out["num_infosets"] = tuple(sum(1 for (p, _) in infos if p == q) for q in (0, 1))
    out["multi_node_infosets"] = sum(1 for r in infos.values() if len(r["paths"]) > 1)
    out["perfect_recall"] = all(len(r["own"]) == 1 for r in infos.values())
    spans = set()
    for (p, _), r in infos.items():
        ps = r["paths"]
        for i in range(len(ps)):
            for j in range(i + 1, len(ps)):
                a, b = ps[i], ps[j]
                k = 0
                while k < min(len(a), len(b)) and a[k] == b[k]:
                    k += 1
                lca = node_at(tree, a[:k])
                if lca[0] == CHANCE_NODE:
                    spans.add("chance")
                elif lca[0] == DECISION and lca[1] != p:
                    spans.add("opponent")
                elif lca[0] == DECISION:
                    spans.add("own")
    out["spans_chance"] = "chance" in spans
    out["spans_opponent"] = "opponent" in spans
    full = [1, 1]
    for (p, _), r in infos.items():
        full[p] *= max(r["nact"])
    out["full_pure_strategies"] = tuple(full)
    return out


def _summary_name(prefix: str, a: dict) -> str:
    i0, i1 = a["num_infosets"]
    return (
        f"{prefix}(nodes={a['nodes']},depth={a['depth']},infosets={i0}+{i1},"
        f"shared={a['multi_node_infosets']},chance={len(a['chance_nodes'])})"
    )


# ----------------------------------------------------------------------------------------------
# drawing pieces
# ----------------------------------------------------------------------------------------------

_DECISION_LABELS = {1: ("go",), 2: ("L", "R"), 3: ("L", "M", "R")}


def _decision_labels(player: int, k: int) -> tuple:
    base = _DECISION_LABELS.get(k) or tuple(f"A{i}" for i in range(k))
    return base if player == 0 else tuple(x.lower() for x in base)


def _chance_labels(k: int) -> tuple:
    return tuple(f"c{i}" for i in range(k))


def _key(style: str, player: int, n: int):
    if style == "int":  # the same keys for both players: per-player key spaces must be kept apart
        return n
    if style == "str":
        return f"{'PQ'[player]}{n}"
    return ("obs", n)  # tuples, also shared between players


def _payoff(draw, mode: str, bound: int):
    if mode == "wide":  # magnitudes spread over 1 to 10^300 in one game
        return draw(st.integers(-bound, bound)) * 10 ** draw(st.sampled_from([0, 0, 1, 3, 8, 16, 50, 150, 300]))
    if mode == "int" or (mode == "mixed" and draw(st.booleans())):
        return draw(st.integers(-bound, bound))
    num = draw(st.integers(-2 * bound, 2 * bound))
    den = draw(st.sampled_from([2, 3, 4, 6, 1]))
    return Fraction(num, den)


def _leaf(draw, mode: str, bound: int) -> tuple:
    u = _payoff(draw, mode, bound)
    return (LEAF, (u, -u))


def _chance_probs(draw, k: int) -> tuple:
    w = draw(st.lists(st.integers(0, 4), min_size=k, max_size=k))
    if sum(w) == 0:
        w[0] = 1
    s = sum(w)
    return tuple(Fraction(x, s) for x in w)


# ----------------------------------------------------------------------------------------------
# random perfect-recall games
# ----------------------------------------------------------------------------------------------


@st.composite
def random_trees(
    draw,
    max_depth: int = 4,
    max_actions: int = 3,
    max_nodes: int = 40,
    max_pure_strategies: int = 27,
    chance: bool = True,
    payoffs: str = "mixed",
    payoff_bound: int = 5,
    key_style: str | None = None,
) -> tuple:
    """The tree of a random perfect-recall game (see ``random_games``)."""
    if max_actions < 1 or max_depth < 0:
        raise ValueError("max_actions >= 1 and max_depth >= 0 required")
    style = key_style or draw(st.sampled_from(["str", "int", "tuple"]))
    infos: list = [[], []]  # per player: dicts key, own, labels
    full = [1, 1]  # product of action counts of each player's information sets
    budget = [max_nodes - 1]
    # action counts: 2..max_actions, and 1 (a node with a single action) now and then
    counts = st.sampled_from(list(range(2, max_actions + 1)) * 3 + [1]) if max_actions >= 2 else st.just(1)

    def gen(depth: int, own: tuple) -> tuple:
        if depth >= max_depth or budget[0] < 1:
            return _leaf(draw, payoffs, payoff_bound)
        # join an existing information set whose own history matches (perfect recall)
        cands = [(p, I) for p in (0, 1) for I in infos[p] if I["own"] == own[p] and len(I["labels"]) <= budget[0]]
        if cands and draw(st.integers(0, 2)) < 2:
            p, I = draw(st.sampled_from(cands))
            return decision(p, I, depth, own)
        if depth > 1 and draw(st.integers(0, max_depth)) < depth - 1:
            return _leaf(draw, payoffs, payoff_bound)
        kind = draw(st.sampled_from(["p0", "p1", "chance"] if chance else ["p0", "p1"]))
        if kind == "chance":
            k = min(draw(counts), budget[0])
            budget[0] -= k
            probs = _chance_probs(draw, k)
            return (CHANCE_NODE, _chance_labels(k), probs, tuple(gen(depth + 1, own) for _ in range(k)))
        p = int(kind[1])
        k = min(draw(counts), budget[0])
        while k > 1 and full[p] * k > max_pure_strategies:
            k -= 1
        if k == 1 and draw(st.booleans()):  # a single-action information set is allowed, but rarer
            mine = [I for (q, I) in cands if q == p]
            return decision(p, draw(st.sampled_from(mine)), depth, own) if mine else _leaf(draw, payoffs, payoff_bound)
        I = {"key": _key(style, p, len(infos[p])), "own": own[p], "labels": _decision_labels(p, k)}
        infos[p].append(I)
        full[p] *= k
        return decision(p, I, depth, own)

    def decision(p: int, I: dict, depth: int, own: tuple) -> tuple:
        k = len(I["labels"])
        budget[0] -= k
        children = []
        for a in range(k):
            nown = list(own)
            nown[p] = own[p] + ((I["key"], a),)
            children.append(gen(depth + 1, tuple(nown)))
        return (DECISION, p, I["key"], I["labels"], tuple(children))

    return gen(0, ((), ()))


@st.composite
def random_games(
    draw,
    max_depth: int = 4,
    max_actions: int = 3,
    max_nodes: int = 40,
    max_pure_strategies: int = 27,
    chance: bool = True,
    payoffs: str = "mixed",
    payoff_bound: int = 5,
    key_style: str | None = None,
) -> TreeGame:
    """A small random two-player zero-sum game with perfect recall, as a ``TreeGame``.

    * ``max_depth``: longest root-to-leaf path (in actions); the root is a leaf only rarely (and
      always if ``max_depth == 0``).
    * ``max_actions``: most actions (or chance outcomes) at a node; nodes with one action occur.
    * ``max_nodes``: bound on the number of nodes (children are reserved before they are drawn).
    * ``max_pure_strategies``: bound on each player's number of full pure strategies (the product
      of the action counts of the player's information sets), hence on the reduced ones: the
      oracle's matrix is at most max_pure_strategies^2 (27 x 27 by default).
    * ``chance``: allow chance nodes (probabilities are exact Fractions summing to 1, some 0).
    * ``payoffs``: "int", "rational" (Fractions with small denominators), "mixed", or "wide"
      (integers up to ``payoff_bound`` times 10^k, k from 0 to 300: magnitudes no float LP
      resolves in one game).
    * ``key_style``: "str" ("P0", "Q1": distinct per player), "int" or "tuple" (the same keys
      are used by both players, so per-player key spaces are exercised); drawn if ``None``.

    Decision nodes are grouped into an information set only when they belong to the same player,
    have the same number of actions (and labels) and the same own history (the sequence of the
    player's (information set, action) pairs from the root), so the game has perfect recall; at a
    node where such an information set exists it is joined with probability about 2/3, so many
    information sets span chance branches and opponent actions. Utilities are (u, -u).
    ``g.info`` holds ``analyze(g.tree)``.
    """
    tree = draw(
        random_trees(
            max_depth=max_depth,
            max_actions=max_actions,
            max_nodes=max_nodes,
            max_pure_strategies=max_pure_strategies,
            chance=chance,
            payoffs=payoffs,
            payoff_bound=payoff_bound,
            key_style=key_style,
        )
    )
    a = analyze(tree)
    assert a["perfect_recall"], "generator bug: imperfect recall"
    assert max(a["full_pure_strategies"]) <= max_pure_strategies, "generator bug: too many strategies"
    return TreeGame(tree, _summary_name("random", a), a)


@st.composite
def general_sum_games(draw, max_nodes: int = 30, payoff_bound: int = 5, chance: bool = True) -> TreeGame:
    """A small random two-player *general-sum* game with perfect recall: a ``random_games`` tree
    whose leaves get an independent payoff for player 1 (an integer in +-``payoff_bound``)."""
    tree = draw(random_trees(max_nodes=max_nodes, payoff_bound=payoff_bound, chance=chance, payoffs="int"))

    def redraw(node: tuple) -> tuple:
        if node[0] == LEAF:
            return (LEAF, (node[1][0], draw(st.integers(-payoff_bound, payoff_bound))))
        return node[:-1] + (tuple(redraw(c) for c in _children(node)),)

    tree = redraw(tree)
    return TreeGame(tree, _summary_name("general_sum", analyze(tree)), analyze(tree))


# ----------------------------------------------------------------------------------------------
# tree surgery
# ----------------------------------------------------------------------------------------------


def _replace(tree: tuple, path: tuple, new: tuple) -> tuple:
    if not path:
        return new
    kids = list(_children(tree))
    kids[path[0]] = _replace(kids[path[0]], path[1:], new)
    return tree[:-1] + (tuple(kids),)


def _rename_infoset(tree: tuple, player: int, old, new, labels: tuple) -> tuple:
    if tree[0] == LEAF:
        return tree
    kids = tuple(_rename_infoset(c, player, old, new, labels) for c in _children(tree))
    if tree[0] == DECISION and tree[1] == player and tree[2] == old:
        return (DECISION, player, new, labels, kids)
    return tree[:-1] + (kids,)


# ----------------------------------------------------------------------------------------------
# imperfect recall
# ----------------------------------------------------------------------------------------------


@st.composite
def _wrap(draw, sub: tuple, forgetter: int, mode: str, bound: int, key) -> tuple:
    """Maybe put ``sub`` under an opponent's or chance node (as one of its branches)."""
    how = draw(st.sampled_from(["none", "opponent", "chance"]))
    if how == "none":
        return sub
    k = draw(st.integers(1, 2))
    pos = draw(st.integers(0, k))
    kids = [_leaf(draw, mode, bound) for _ in range(k)]
    kids.insert(pos, sub)
    if how == "chance":
        return (CHANCE_NODE, _chance_labels(k + 1), _chance_probs(draw, k + 1), tuple(kids))
    opp = 1 - forgetter
    return (DECISION, opp, key, _decision_labels(opp, k + 1), tuple(kids))


@st.composite
def _imperfect_template(draw, kind: str) -> tuple:
    mode, bound = "mixed", 5
    p = draw(st.integers(0, 1))
    style = draw(st.sampled_from(["str", "int", "tuple"]))
    kx, ky = _key(style, p, 0), _key(style, p, 1)
    ko = [_key(style, 1 - p, i) for i in range(8)]
    k = draw(st.integers(2, 3))
    k2 = draw(st.integers(1, 3))
    lv = lambda: _leaf(draw, mode, bound)  # noqa: E731

    def forgetful(key, m):  # a node of the forgetting player, children leaves
        return (DECISION, p, key, _decision_labels(p, m), tuple(lv() for _ in range(m)))

    if kind == "forget_action":
        # p moves at X, then (maybe after an opponent or chance node) reaches Y, the same in every branch
        kids = tuple(draw(_wrap(forgetful(ky, k2), p, mode, bound, ko[a])) for a in range(k))
        tree = (DECISION, p, kx, _decision_labels(p, k), kids)
    elif kind == "absent_minded":
        # the driver: "exit" or "continue" at X; continuing reaches X again
        inner = (DECISION, p, kx, _decision_labels(p, 2), (lv(), lv()))
        inner = draw(_wrap(inner, p, mode, bound, ko[0]))
        tree = (DECISION, p, kx, _decision_labels(p, 2), (lv(), inner))
    elif kind == "forget_observation":
        # chance outcome c is seen at X_c; later Y is the same whatever c was
        n = draw(st.integers(2, 3))
        kids = []
        for c in range(n):
            xc = _key(style, p, 2 + c)
            sub = (
                DECISION,
                p,
                xc,
                _decision_labels(p, k),
                tuple(
                    draw(_wrap(forgetful(ky, k2), p, mode, bound, ko[c * 3 + a])) if a == 0 else lv() for a in range(k)
                ),
            )
            kids.append(sub)
        tree = (CHANCE_NODE, _chance_labels(n), _chance_probs(draw, n), tuple(kids))
    else:  # "different_depth": Y with no own move before it in one branch, after X in another
        deep = (DECISION, p, kx, _decision_labels(p, k), tuple(forgetful(ky, k2) if a == 0 else lv() for a in range(k)))
        kids = [forgetful(ky, k2), deep]
        if draw(st.booleans()):
            kids.reverse()
        tree = (CHANCE_NODE, _chance_labels(2), _chance_probs(draw, 2), tuple(kids))
    return draw(_wrap(tree, p, mode, bound, ko[7]))


def _bad_infosets(a: dict) -> list:
    return [pk for pk, r in a["infosets"].items() if len(r["own"]) > 1]


@st.composite
def imperfect_recall_games(draw, max_depth: int = 4, max_actions: int = 3, max_nodes: int = 40) -> TreeGame:
    """A game violating perfect recall in exactly one information set.

    Either a template (``"forget_action"``: a player forgets their own earlier action;
    ``"absent_minded"``: an information set reached twice on one path; ``"forget_observation"``:
    a player forgets a chance outcome they had seen; ``"different_depth"``: one information set
    with and without an own move before it), possibly under an extra opponent or chance node, or
    (``"merge"``) a random perfect-recall game in which two information sets of one player with the
    same number of actions but different own histories are merged.

    ``g.info`` = ``analyze(g.tree)`` plus ``violation`` (the kind), ``bad_infoset`` (player, key),
    ``bad_paths`` (label paths of its nodes, depth-first order: ``bad_paths[0]`` is the first node
    a depth-first walk meets).
    """
    kind = draw(st.sampled_from(["merge", "forget_action", "absent_minded", "forget_observation", "different_depth"]))
    tree = None
    if kind == "merge":
        base = draw(random_trees(max_depth=max_depth, max_actions=max_actions, max_nodes=max_nodes))
        infos = analyze(base)["infosets"]
        pairs = [
            (p, i, j)
            for (p, i), ri in infos.items()
            for (q, j), rj in infos.items()
            if p == q and i != j and ri["labels"] == rj["labels"] and ri["own"] != rj["own"]
        ]
        if pairs:
            p, i, j = draw(st.sampled_from(pairs))
            tree = _rename_infoset(base, p, j, i, infos[(p, i)]["labels"])
        else:
            kind = draw(st.sampled_from(["forget_action", "absent_minded", "forget_observation", "different_depth"]))
    if tree is None:
        tree = draw(_imperfect_template(kind))
    a = analyze(tree)
    bad = _bad_infosets(a)
    assert len(bad) == 1, f"generator bug: {len(bad)} imperfect-recall information sets in {tree!r}"
    r = a["infosets"][bad[0]]
    info = dict(a, violation=kind, bad_infoset=bad[0], bad_paths=[label_path(tree, pth) for pth in sorted(r["paths"])])
    return TreeGame(tree, _summary_name(f"imperfect_{kind}", a), info)


# ----------------------------------------------------------------------------------------------
# bad chance probabilities
# ----------------------------------------------------------------------------------------------


@st.composite
def bad_chance_games(draw, max_depth: int = 4, max_actions: int = 3, max_nodes: int = 40) -> TreeGame:
    """A random perfect-recall game in which one chance node has invalid probabilities.

    ``bad_kind``: ``"short"`` (sum < 1), ``"excess"`` (sum > 1), ``"zero"`` (all 0),
    ``"negative"`` (a negative entry, sum still exactly 1), ``"float"`` (floats whose exact binary
    values do not sum to 1, e.g. three times 1/3 or 0.1, 0.2, 0.7). ``g.info`` = ``analyze`` plus
    ``bad_kind`` and ``bad_path`` (the node's label path as the compiler prints it) and
    ``bad_probs``.
    """
    tree = draw(random_trees(max_depth=max_depth, max_actions=max_actions, max_nodes=max_nodes))
    a = analyze(tree)
    if not a["chance_nodes"] or draw(st.integers(0, 4)) == 0:
        k = draw(st.integers(1, 3))
        kids = [_leaf(draw, "mixed", 5) for _ in range(k)]
        kids.insert(draw(st.integers(0, k)), tree)
        tree = (CHANCE_NODE, _chance_labels(k + 1), _chance_probs(draw, k + 1), tuple(kids))
        a = analyze(tree)
    path = draw(st.sampled_from(a["chance_nodes"]))
    node = node_at(tree, path)
    probs = list(node[2])
    k = len(probs)
    kind = draw(st.sampled_from(["short", "excess", "negative", "float", "zero"]))
    if kind == "negative" and k < 2:
        kind = "excess"
    if kind == "float":
        w = draw(st.sampled_from([(1, 1, 1), (1, 2, 7), (1, 1, 1, 1, 1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1)]))
        probs = [x / sum(w) for x in w]  # floats
        assert sum(Fraction(x) for x in probs) != 1
        node = (
            CHANCE_NODE,
            _chance_labels(len(w)),
            tuple(probs),
            tuple((list(node[3]) + [_leaf(draw, "int", 5) for _ in w])[: len(w)]),
        )
    else:
        if kind == "short":
            s = draw(st.integers(1, 9))
            probs = [x * Fraction(s, s + 1) for x in probs]
        elif kind == "excess":
            probs[draw(st.integers(0, k - 1))] += Fraction(1, draw(st.integers(1, 9)))
        elif kind == "zero":
            probs = [Fraction(0)] * k
        else:
            i = draw(st.integers(0, k - 1))
            j = draw(st.integers(0, k - 2))
            j = j + 1 if j >= i else j
            q = Fraction(1, draw(st.integers(1, 4)))
            probs[j] = probs[j] + probs[i] + q
            probs[i] = -q
        node = node[:2] + (tuple(probs),) + node[3:]
    tree = _replace(tree, path, node)
    a = analyze(tree)
    info = dict(a, bad_kind=kind, bad_path=label_path(tree, path), bad_probs=tuple(probs))
    return TreeGame(tree, _summary_name(f"bad_chance_{kind}", a), info)


__all__ = [
    "TreeGame",
    "analyze",
    "node_at",
    "label_path",
    "random_trees",
    "random_games",
    "imperfect_recall_games",
    "bad_chance_games",
    "LEAF",
    "CHANCE_NODE",
    "DECISION",
]


def random_behaviour_profile(tree, rng, zeros: bool = False):
    """A random behavioural profile on a compiled tree (Dirichlet at every information set); with
    ``zeros``, about 40% of information sets play one action purely, leaving parts unreached.
    ``rng`` is a ``numpy.random.Generator``."""
    import numpy as np

    from seqform.model.strategy import Profile

    out = []
    for p in range(tree.num_players):
        b = np.ones(tree.num_sequences[p])
        for i in tree.player_infosets[p]:
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            v = rng.dirichlet(np.ones(k))
            if zeros and k > 1 and rng.random() < 0.4:
                v = np.zeros(k)
                v[rng.integers(k)] = 1.0
            b[f : f + k] = v
        out.append(b)
    return Profile(out)

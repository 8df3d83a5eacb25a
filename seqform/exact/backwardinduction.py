"""Backward induction: exact equilibria of games of perfect information (``backward_induction``
for two-player zero-sum games, the game value; ``subgame_perfect`` for any number of players and
any payoffs).

In a game of perfect information (every information set holds one node) the value of a node is
its payoff at a leaf, the probability-weighted sum of its children's values at a chance node, and
the best child's value for the player who moves at a decision node (Zermelo 1913; Kuhn 1953,
"Extensive Games and the Problem of Information"). One pass over the nodes, children before
parents, gives the game value and a pure subgame-perfect equilibrium in time linear in the tree,
where the sequence-form LP would need a solver and an exact basis solve. The arithmetic is exact
(python-flint ``fmpq``), so payoffs of any size and ties are handled as they are.

The strategies are defined at every decision node, reached or not: the best action there, also
where the player's own earlier choice cuts the node off (where a realization plan is zero and says
nothing). That is what makes the profile subgame perfect (Selten 1975): it prescribes optimal play
in every subgame. A caller that needs behaviour should take ``behaviour``, not re-derive it from
the realization plans.

The pass is one scalar loop over the nodes: values are rationals, which numpy cannot hold
without Python objects, and each node does a handful of operations.

References
----------
- Kuhn, H. W. (1953). "Extensive Games and the Problem of Information." In Contributions to the
  Theory of Games II, Annals of Mathematics Studies 28, 193-216.
- Selten, R. (1975). "Reexamination of the Perfectness Concept for Equilibrium Points in
  Extensive Games." International Journal of Game Theory 4, 25-55.
- Zermelo, E. (1913). "Uber eine Anwendung der Mengenlehre auf die Theorie des Schachspiels."
  Proceedings of the Fifth International Congress of Mathematicians, 501-504.
"""

from __future__ import annotations

from dataclasses import dataclass

import flint
import numpy as np

from seqform.errors import UnsupportedGameError
from seqform.exact.rationals import fmpq_of
from seqform.model.game import CHANCE
from seqform.model.tree import Tree


@dataclass
class BackwardInduction:
    """The outcome of backward induction. ``value``: the game value for player 0 (exact);
    ``choice``: per information set (global id), the index of the action its player takes, which
    attains the best value there (the lowest index among ties); ``behaviour``: per player, the
    pure behavioural strategy as a list of ints 0/1 per sequence (1 at the empty sequence): 1 on
    ``choice`` at every information set, those the player's own earlier choices exclude included
    (module docstring)."""

    value: flint.fmpq
    choice: np.ndarray
    behaviour: list


def is_perfect_information(tree: Tree) -> bool:
    """Whether every information set of ``tree`` holds exactly one node."""
    dec = tree.infoset[tree.infoset >= 0]
    return len(dec) == len(tree.infoset_player)


def _checked(tree: Tree) -> None:
    """``UnsupportedGameError`` unless ``tree`` has perfect information and numbers parents
    before children (what the one backward pass relies on)."""
    if not is_perfect_information(tree):
        raise UnsupportedGameError(
            f"backward induction needs perfect information; {tree.name} has an information set with more than one node"
        )
    parent = tree.parent
    if tree.num_nodes > 1 and not bool((parent[1:] < np.arange(1, tree.num_nodes)).all()):
        raise UnsupportedGameError(f"{tree.name}: node ids do not number parents before children")


def _chance_edges(tree: Tree) -> list:
    """The exact probability of the edge into each child of a chance node (None elsewhere)."""
    n, parent = tree.num_nodes, tree.parent
    edge: list = [None] * n
    if len(tree.chance_nodes):
        pos = np.full(n, -1, dtype=np.int64)
        pos[tree.chance_nodes] = np.arange(len(tree.chance_nodes))
        kids = np.flatnonzero((parent >= 0) & (pos[np.maximum(parent, 0)] >= 0))
        probs = [[fmpq_of(q) for q in qs] for qs in tree.chance_probs]
        for v, ci, a in zip(kids.tolist(), pos[parent[kids]].tolist(), tree.action[kids].tolist()):
            edge[v] = probs[ci][a]
    return edge


def _pure_strategies(tree: Tree, best_child: list) -> tuple:
    """Each information set's chosen action (from its node's best child) and every player's pure
    behavioural strategy (ints 0/1 per sequence)."""
    choice = np.zeros(len(tree.infoset_player), dtype=np.int64)
    dec = np.flatnonzero(tree.infoset >= 0)
    choice[tree.infoset[dec]] = tree.action[np.asarray(best_child, dtype=np.int64)[dec]]
    behaviour = []
    for p in range(tree.num_players):
        b = np.zeros(tree.num_sequences[p], dtype=np.int64)
        b[0] = 1
        ids = tree.player_infosets[p]
        b[tree.infoset_first_seq[ids] + choice[ids]] = 1
        behaviour.append(b.tolist())
    return choice, behaviour


def backward_induction(tree: Tree) -> BackwardInduction:
    """Value and a pure subgame-perfect equilibrium of a two-player constant-sum game of perfect
    information, by backward induction in exact arithmetic (module docstring). Player 0
    maximises its payoff and player 1 minimises it; the value is player 0's. Time: one pass over
    the ``n`` nodes.

    Raises ``UnsupportedGameError`` for a game that is not two-player constant-sum or not of
    perfect information."""
    if tree.num_players != 2 or not tree.is_zero_sum:
        raise UnsupportedGameError(f"backward induction solves two-player constant-sum games; {tree.name} is not one")
    # player 1 maximising its own payoff c - u_0 is player 0's minimising u_0, ties included
    sp = subgame_perfect(tree)
    return BackwardInduction(sp.values[0], sp.choice, sp.behaviour)


@dataclass
class SubgamePerfect:
    """A pure subgame-perfect equilibrium of a game of perfect information with any number of
    players. ``values``: each player's exact payoff (fmpq); ``choice``: per information set, the
    action its player takes (the lowest index among ties); ``behaviour``: per player, the pure
    behavioural strategy as ints 0/1 per sequence, 1 on ``choice`` at every information set,
    reached or not (module docstring)."""

    values: list
    choice: np.ndarray
    behaviour: list


def subgame_perfect(tree: Tree) -> SubgamePerfect:
    """Backward induction for any number of players and any payoffs (module docstring): at a
    decision node the mover takes a child that maximises its own payoff, at a chance node the
    payoff vectors are averaged. One pass over the nodes, exact; the result is subgame perfect.

    Raises ``UnsupportedGameError`` for a game that is not of perfect information."""
    _checked(tree)
    n, N, parent = tree.num_nodes, tree.num_players, tree.parent
    val: list = [None] * n
    for c in tree.chance_nodes.tolist():
        val[c] = [flint.fmpq(0)] * N
    for t, pay in zip(tree.terminals.tolist(), tree.payoff_exact):
        val[t] = [fmpq_of(u) for u in pay]
    edge = _chance_edges(tree)
    best_child = [-1] * n
    player = tree.player.tolist()
    par_l = parent.tolist()
    for v in range(n - 1, 0, -1):  # children before parents; ">=" keeps the lowest best action
        u = par_l[v]
        x = val[v]
        pe = edge[v]
        if pe is not None:
            val[u] = [a + pe * b for a, b in zip(val[u], x)]
        elif player[u] != CHANCE:
            cur = val[u]
            if cur is None or x[player[u]] >= cur[player[u]]:
                val[u] = x
                best_child[u] = v
    choice, behaviour = _pure_strategies(tree, best_child)
    return SubgamePerfect(val[0], choice, behaviour)

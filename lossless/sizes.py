"""Sizes of a game with ordered signals and of its abstraction, counted without building either.

The betting never depends on the signals, so every information set is a pair (what the player
has seen, or its class; a betting node of that round where it acts), and every pair exists:

    |I_i|     = sum over i's betting decision nodes v of  n_i(round(v)),
    |Sigma_i| = 1 + sum over the same v of  actions(v) * n_i(round(v)),

with n_i(r) the number of player i's observations (original game) or classes (abstraction)
during round r's betting. The sequence-form LP of Sandholm 2010 / Koller, Megiddo & von Stengel has
|Sigma_1| + |I_2| + 1 rows (players numbered from 1 there; 0 and 1 here) and
|Sigma_2| + |I_1| + 1 columns; its matrix is [[-A, E^T], [F, 0]], so its nonzeros are nnz(A) plus
|I_1| + |Sigma_1| (E) plus |I_2| + |Sigma_2| (F).

nnz(A): a leaf in round r contributes one entry per pair (class of player 0, class of player 1)
during round r that some world reaches, except at a showdown where the expected payoff of the
pair is zero (e.g. every world of the pair is a tie). The pairs come from the signal tree's
worlds, with their outcome counts.

References:

- Sandholm (2010), "The State of Solving Large Incomplete-Information Games, and Application to Poker", AI Magazine.
- Koller, Megiddo & von Stengel (1996), "Efficient Computation of Equilibria for Extensive Two-Person Games", Games and
  Economic Behavior.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .betting import FOLD, SHOWDOWN
from .gameshrink import Abstraction, compact
from .treesizes import game_tree_nodes, sequence_form_sizes


def payoff_nonzeros(ab: Abstraction, abstract: bool = True) -> int:
    """nnz(A) of the two-player sequence-form payoff matrix (module docstring): of the abstract
    game (``abstract``) or of the original game (observations instead of classes)."""
    game, st, bet = ab.game, ab.signals, ab.game.betting
    if game.num_players != 2:
        raise ValueError("the payoff matrix A is defined for two players")
    nnz = 0
    nout = len(st.outcomes)
    weights = None if st.prob is None else np.array([float(p) for p in st.prob])
    for r in range(bet.num_rounds):
        leaves = bet.nodes_of_round(r, FOLD, SHOWDOWN)
        if not leaves:
            continue
        pair = compact([ab.round_class(0, r, abstract), ab.round_class(1, r, abstract)])
        npairs = int(pair.max()) + 1
        folds = [v for v in leaves if bet.kind[v] == FOLD]
        nnz += sum(npairs for v in folds if any(Fraction(u) != 0 for u in bet.payoff[v]))
        shows = [v for v in leaves if bet.kind[v] == SHOWDOWN]
        if shows:
            idx = pair * nout + st.outcome.astype(np.int64)
            mass = np.bincount(idx, weights=weights, minlength=npairs * nout).reshape(npairs, nout)
            tables: dict = {}
            for v in shows:
                t = tuple(float(bet.payoff[v][o][0]) for o in st.outcomes)
                tables[t] = tables.get(t, 0) + 1
            for t, count in tables.items():
                value = mass @ np.array(t)
                scale = np.abs(mass) @ np.abs(np.array(t))
                nnz += count * int(np.count_nonzero(np.abs(value) > 1e-12 * np.maximum(scale, 1.0)))
    return nnz


def report(ab: Abstraction, nonzeros: bool = True) -> dict:
    """Sizes before and after the abstraction: per round observations / classes, information sets,
    sequences, LP rows and columns, signal-tree nodes, and (``nonzeros``) nnz(A) and the LP's
    nonzeros, as a JSON-ready dict."""
    game = ab.game
    n = game.num_players
    before = sequence_form_sizes(game.betting, [ab.observations_by_round(i) for i in range(n)])
    after = sequence_form_sizes(game.betting, [ab.classes_by_round(i) for i in range(n)])
    before["per_round"] = [ab.observations_by_round(i) for i in range(n)]
    before["game_tree_nodes"] = game_tree_nodes(game)
    after["per_round"] = [ab.classes_by_round(i) for i in range(n)]
    if nonzeros and n == 2:
        for part, abstract in ((before, False), (after, True)):
            a = payoff_nonzeros(ab, abstract)
            part["payoff_nonzeros"] = a
            part["lp_nonzeros"] = a + sum(part["infosets"]) + sum(part["sequences"])
    return {
        "game": game.name,
        "signal_tree_nodes": ab.signals.num_nodes,
        "worlds": ab.signals.num_worlds,
        "lossless": ab.respect_opponents,
        "refinement_passes": ab.iterations,
        "before": before,
        "after": after,
    }

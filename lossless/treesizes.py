"""Sizes of a game with ordered signals, counted without building it: its tree's nodes and its
sequence form's information sets, sequences and LP rows and columns (see ``lossless.sizes`` for
the formulas and for the abstraction's sizes). Depends on the betting tree alone, so the game
itself (``orderedsignals``) can count its nodes without importing GameShrink."""
from __future__ import annotations

import math

from .betting import DECIDE, FOLD, NEXT, SHOWDOWN


def sequence_form_sizes(betting, per_round: list) -> dict:
    """Information sets and sequences per player, and the LP's rows and columns, when player i has
    ``per_round[i][r]`` observations (or classes) during round r's betting."""
    n = betting.num_players
    infosets, sequences = [0] * n, [1] * n
    for v in range(betting.num_nodes):
        if betting.kind[v] == DECIDE:
            i, r = betting.player[v], betting.round[v]
            infosets[i] += per_round[i][r]
            sequences[i] += len(betting.actions[v]) * per_round[i][r]
    out = {"infosets": infosets, "sequences": sequences}
    if n == 2:
        out["lp_rows"] = sequences[0] + infosets[1] + 1
        out["lp_columns"] = sequences[1] + infosets[0] + 1
    return out


def game_tree_nodes(game, per_level: list | None = None) -> int:
    """Nodes of the game tree (as ``seqform.compile_tree`` counts them) without building it, from
    the number of signal-tree nodes at each level (default: the original game's, D!/(D-k)!).

    Round r's betting nodes (all but the round ends, which the game skips) occur once per
    signal node after round r's deals; the chance nodes dealing round r's cards occur once per
    way into round r (the root, or a round end of round r-1) and signal node before each card."""
    bet = game.betting
    if per_level is None:
        per_level = [math.perm(len(game.deck), k) for k in range(len(game.levels) + 1)]
    total = 0
    for r in range(bet.num_rounds):
        start = game.dealt_by[r - 1] if r else 0
        entries = 1 if r == 0 else len(bet.nodes_of_round(r - 1, NEXT))
        total += entries * sum(per_level[start:game.dealt_by[r]])
        betting_nodes = len(bet.nodes_of_round(r, DECIDE, FOLD, SHOWDOWN))
        total += betting_nodes * per_level[game.dealt_by[r]]
    return total

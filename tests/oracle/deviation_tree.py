"""Brute-force causal-deviation best responses: every pure deviation plan of a player below one of
its information sets, enumerated, and the best one's payoff (Dudik & Gordon 2009, section 3.2's
deviation tree, without dynamic programming). An independent check of ``efce.deviationdp``, used
by ``tests/efce/test_efce_models.py``: it reads only the compiled tree's sequence arrays, and
shares nothing with the program (no items, no levels, no ``player_structure``). Small games only:
the plans are listed one by one.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import itertools


def deviation_plans(tree, m: int) -> list:
    """Every pure plan of information set m's player from m down: a frozenset of the sequences
    it plays (one action at m, and at every one of the player's information sets right below a
    chosen sequence, recursively)."""
    n = int(tree.infoset_player[m])
    below = {}
    for j in tree.player_infosets[n].tolist():
        below.setdefault(int(tree.infoset_parent_seq[j]), []).append(j)

    def plans(j: int) -> list:
        f, k = int(tree.infoset_first_seq[j]), int(tree.infoset_num_actions[j])
        out = []
        for a in range(k):
            parts = [plans(c) for c in below.get(f + a, ())]
            for combo in itertools.product(*parts):
                out.append(frozenset((f + a,)).union(*combo))
        return out

    return plans(m)


def best_deviation(tree, m: int, payoff: dict) -> tuple:
    """(the largest total of ``payoff`` ({sequence: number}, missing ones 0) over the plans of
    ``deviation_plans(tree, m)``, the first plan that reaches it)."""
    best, arg = None, None
    for plan in deviation_plans(tree, m):
        v = sum((payoff.get(s, 0) for s in plan), 0)
        if best is None or v > best:
            best, arg = v, plan
    return best, arg

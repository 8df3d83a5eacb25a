"""A player's best response inside its perturbed polytope as a linear program (scipy's HiGHS),
written from the tree's arrays for the tests: ``max g.x`` subject to ``x[empty] = 1``, flow
``sum_a x[(I, a)] = x[parent(I)]`` at every information set, ``x[s] >= beta_s x[parent(s)]`` and
``x[s] >= lambda_s``. Floats; an independent check of the dynamic program of
``refinements.tremblingbestresponse``."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog


def lp_best_response_value(tree, p: int, g, beta, lam) -> float:
    n = tree.num_sequences[p]
    par = np.asarray(tree.seq_parent[p])
    rows_eq = [np.eye(1, n, 0)[0]]
    b_eq = [1.0]
    for i in tree.player_infosets[p].tolist():
        f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
        row = np.zeros(n)
        row[f : f + k] = 1.0
        row[int(tree.infoset_parent_seq[i])] -= 1.0
        rows_eq.append(row)
        b_eq.append(0.0)
    rows_ub, b_ub = [], []
    for s in range(1, n):
        if beta[s]:  # beta_s x[parent] - x[s] <= 0
            row = np.zeros(n)
            row[s] = -1.0
            row[par[s]] += float(beta[s])
            rows_ub.append(row)
            b_ub.append(0.0)
    bounds = [(float(lam[s]) if s else 1.0, None) for s in range(n)]
    res = linprog(
        -np.asarray(g, dtype=float),
        A_ub=np.array(rows_ub) if rows_ub else None,
        b_ub=b_ub or None,
        A_eq=np.array(rows_eq),
        b_eq=b_eq,
        bounds=bounds,
        method="highs",
    )
    assert res.status == 0, res.message
    return -res.fun

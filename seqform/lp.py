"""The sequence-form LP of a two-player zero-sum game, solved by HiGHS (highspy, sparse, no dense
matrices). Koller, Megiddo & von Stengel (1996); seed 003, "sequence-form LP".

Player 0 maximises its guaranteed payoff. For a fixed plan x, player 1's best response is the LP
``min_y x^T A y  s.t. F y = f, y >= 0``, whose dual is ``max_q f^T q  s.t. F^T q <= A^T x``.
Joining the two gives one LP in (x, q):

    maximise   f^T q = q[0]
    subject to E x = e                       (1 + |I_1| rows)
               A^T x - F^T q >= 0            (|Sigma_2| rows)
               x >= 0, q free.

Its optimum is the game value; x is player 0's equilibrium plan and the duals of the second block
are player 1's plan y (complementary slackness). Columns are ``[x (|Sigma_1|), q (1 + |I_2|)]``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp

from .errors import SolverError
from .sequenceform import SequenceForm

METHODS = {"simplex": "simplex", "ipm": "ipm", "choose": "choose", "pdlp": "pdlp"}


@dataclass
class LPResult:
    """The LP's solution: ``value`` (player 0's), plans ``x`` and ``y``, HiGHS basis status codes
    (``col_status``, ``row_status``: 0 lower, 1 basic, 2 upper, 3 zero, 4 nonbasic; None when no
    basis, e.g. IPM without crossover), the raw column values, ``seconds`` and ``iterations``."""

    value: float
    x: np.ndarray
    y: np.ndarray
    col_value: np.ndarray
    col_status: np.ndarray | None
    row_status: np.ndarray | None
    seconds: float
    iterations: int
    method: str


def lp_matrix(sf: SequenceForm) -> sp.csc_matrix:
    """The constraint matrix ``K = [[E, 0], [A^T, -F^T]]`` (CSC) of the LP above."""
    m1 = sf.E.shape[0]
    n2 = sf.F.shape[1]
    top = sp.hstack([sf.E, sp.csr_matrix((m1, sf.F.shape[0]))])
    bottom = sp.hstack([sf.A.T, -sf.F.T])
    K = sp.vstack([top, bottom]).tocsc()
    K.sort_indices()
    assert K.shape == (m1 + n2, sf.E.shape[1] + sf.F.shape[0])
    return K


def solve_lp(sf: SequenceForm, method: str = "simplex", time_limit: float | None = None,
             verbose: bool = False, options: dict | None = None) -> LPResult:
    """Solve the LP with HiGHS. ``method``: "simplex" (dual simplex, gives a basis), "ipm"
    (interior point with crossover, gives a basis), "choose" (HiGHS decides), "pdlp".
    ``options``: further HiGHS options by name (e.g. ``{"presolve": "off"}``).
    Raises ``SolverError`` naming HiGHS's status when it does not reach an optimum."""
    if method not in METHODS:
        raise SolverError(f"unknown LP method {method!r}; choose one of {', '.join(METHODS)}")
    n1 = sf.E.shape[1]
    m1 = sf.E.shape[0]
    n2 = sf.F.shape[1]
    m2 = sf.F.shape[0]
    K = lp_matrix(sf)
    lp = highspy.HighsLp()
    lp.num_col_ = n1 + m2
    lp.num_row_ = m1 + n2
    cost = np.zeros(n1 + m2)
    cost[n1] = 1.0
    lp.col_cost_ = cost
    lp.col_lower_ = np.concatenate([np.zeros(n1), np.full(m2, -highspy.kHighsInf)])
    lp.col_upper_ = np.full(n1 + m2, highspy.kHighsInf)
    lp.row_lower_ = np.concatenate([sf.e, np.zeros(n2)])
    lp.row_upper_ = np.concatenate([sf.e, np.full(n2, highspy.kHighsInf)])
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = K.indptr.astype(np.int32)
    lp.a_matrix_.index_ = K.indices.astype(np.int32)
    lp.a_matrix_.value_ = K.data.astype(np.float64)
    h = highspy.Highs()
    h.setOptionValue("output_flag", bool(verbose))
    h.setOptionValue("solver", METHODS[method])
    if method == "ipm":
        h.setOptionValue("run_crossover", "on")
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    for name, value in (options or {}).items():
        if h.setOptionValue(name, value) != highspy.HighsStatus.kOk:
            raise SolverError(f"HiGHS does not accept option {name}={value!r}")
    t0 = time.perf_counter()
    st = h.passModel(lp)
    if st == highspy.HighsStatus.kError:
        raise SolverError("HiGHS rejected the LP model (passModel returned an error)")
    # HiGHS in a thread, so that Ctrl-C cancels the solve cleanly instead of waiting for it
    h.HandleKeyboardInterrupt = True
    h.solve()
    secs = time.perf_counter() - t0
    ms = h.getModelStatus()
    if ms in (highspy.HighsModelStatus.kInterrupt, highspy.HighsModelStatus.kHighsInterrupt):
        raise KeyboardInterrupt("HiGHS solve interrupted")
    if ms != highspy.HighsModelStatus.kOptimal:
        why = h.modelStatusToString(ms)
        hint = f" after {secs:.1f} s (time limit {time_limit} s)" if ms == highspy.HighsModelStatus.kTimeLimit else ""
        raise SolverError(f"HiGHS stopped without an optimal solution: {why}{hint}")
    sol = h.getSolution()
    col = np.asarray(sol.col_value)
    rdual = np.asarray(sol.row_dual)
    x = np.clip(col[:n1], 0.0, None)
    y = -rdual[m1:]
    if y[0] < 0:  # HiGHS's dual sign convention for maximisation
        y = -y
    y = np.clip(y, 0.0, None)
    basis = h.getBasis()
    cs = rs = None
    if basis.valid:
        cs = np.fromiter((int(s) for s in basis.col_status), dtype=np.int8, count=n1 + m2)
        rs = np.fromiter((int(s) for s in basis.row_status), dtype=np.int8, count=m1 + n2)
    info = h.getInfo()
    iters = int(info.simplex_iteration_count) + int(info.ipm_iteration_count)
    return LPResult(float(h.getInfo().objective_function_value), x, y, col, cs, rs, secs, iters, method)

"""One call into HiGHS (highspy) for a sparse LP given as arrays: the Nash LP (``lp.py``) and the
perturbed LPs of ``refinements`` share it, with its options, its status handling and Ctrl-C.

    optimise  cost^T w   subject to  row_lower <= K w <= row_upper,  col_lower <= w <= col_upper
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp

from .errors import SolverError

INF = highspy.kHighsInf
METHODS = ("simplex", "ipm", "choose", "pdlp")
BASIC = 1  # HiGHS basis status code of a basic column or row


@dataclass
class HighsResult:
    """HiGHS's optimum: ``objective``, ``col_value`` (n,), ``row_dual`` (m,) (HiGHS's sign
    convention), basis status codes ``col_status`` / ``row_status`` (0 lower, 1 basic, 2 upper,
    3 zero, 4 nonbasic; None without a basis), ``seconds`` and simplex+IPM ``iterations``."""

    objective: float
    col_value: np.ndarray
    row_dual: np.ndarray
    col_status: np.ndarray | None
    row_status: np.ndarray | None
    seconds: float
    iterations: int


def solve_highs(K: sp.csc_matrix, cost: np.ndarray, col_lower: np.ndarray, col_upper: np.ndarray,
                row_lower: np.ndarray, row_upper: np.ndarray, *, maximize: bool, method: str = "simplex",
                time_limit: float | None = None, verbose: bool = False, options: dict | None = None,
                basis: tuple | None = None) -> HighsResult:
    """Solve the LP above. ``method``: "simplex" (dual simplex), "ipm" (with crossover, so a basis
    is returned), "choose", "pdlp"; ``options``: further HiGHS options by name; ``basis``: a
    starting basis ``(col_status, row_status)`` (codes as in ``HighsResult``). Raises
    ``SolverError`` naming HiGHS's status unless the optimum is reached, ``KeyboardInterrupt``
    when the user interrupts the solve."""
    if method not in METHODS:
        raise SolverError(f"unknown LP method {method!r}; choose one of {', '.join(METHODS)}")
    m, n = K.shape
    h = highspy.Highs()
    h.setOptionValue("output_flag", bool(verbose))
    h.setOptionValue("solver", method)
    if method == "ipm":
        h.setOptionValue("run_crossover", "on")
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    for name, value in (options or {}).items():
        if h.setOptionValue(name, value) != highspy.HighsStatus.kOk:
            raise SolverError(f"HiGHS does not accept option {name}={value!r}")
    t0 = time.perf_counter()
    # the model as plain arrays (numpy straight into HiGHS): filling a HighsLp field by field
    # converts every element through Python (about 4 ms on Leduc with 5 ranks)
    sense = highspy.ObjSense.kMaximize if maximize else highspy.ObjSense.kMinimize
    f64 = np.float64
    st = h.passModel(n, m, K.nnz, int(highspy.MatrixFormat.kColwise), int(sense), 0.0,
                     np.asarray(cost, dtype=f64), np.asarray(col_lower, dtype=f64), np.asarray(col_upper, dtype=f64),
                     np.asarray(row_lower, dtype=f64), np.asarray(row_upper, dtype=f64),
                     K.indptr.astype(np.int32), K.indices.astype(np.int32), K.data.astype(f64),
                     np.zeros(n, dtype=np.int32))  # integrality: all continuous
    if st == highspy.HighsStatus.kError:
        raise SolverError("HiGHS rejected the LP model (passModel returned an error)")
    if basis is not None:
        hb = highspy.HighsBasis()
        hb.col_status = [highspy.HighsBasisStatus(int(v)) for v in basis[0]]
        hb.row_status = [highspy.HighsBasisStatus(int(v)) for v in basis[1]]
        hb.valid = True
        if h.setBasis(hb) == highspy.HighsStatus.kError:
            raise SolverError("HiGHS rejected the starting basis")
    _run_interruptibly(h)
    secs = time.perf_counter() - t0
    ms = h.getModelStatus()
    if ms in (highspy.HighsModelStatus.kInterrupt, highspy.HighsModelStatus.kHighsInterrupt):
        raise KeyboardInterrupt("HiGHS solve interrupted")
    if ms != highspy.HighsModelStatus.kOptimal:
        why = h.modelStatusToString(ms)
        hint = f" after {secs:.1f} s (time limit {time_limit} s)" if ms == highspy.HighsModelStatus.kTimeLimit else ""
        raise SolverError(f"HiGHS stopped without an optimal solution: {why}{hint}")
    sol = h.getSolution()
    basis = h.getBasis()
    cs = rs = None
    if basis.valid:
        cs = np.fromiter(map(int, basis.col_status), dtype=np.int8, count=n)
        rs = np.fromiter(map(int, basis.row_status), dtype=np.int8, count=m)
    info = h.getInfo()
    iters = int(info.simplex_iteration_count) + int(info.ipm_iteration_count)
    return HighsResult(float(info.objective_function_value), np.asarray(sol.col_value), np.asarray(sol.row_dual),
                       cs, rs, secs, iters)


def _run_interruptibly(h: highspy.Highs) -> None:
    """Run HiGHS in a thread, so that Ctrl-C cancels the solve cleanly instead of waiting for it.

    HiGHS's interrupt callback is subscribed only once Ctrl-C is pressed (highspy's own
    ``HandleKeyboardInterrupt`` subscribes it for the whole solve): HiGHS calls it at every simplex
    iteration, a few microseconds in Python each time, 7% of Leduc's solve.
    """
    h.startSolve()
    try:
        while not h.wait(0.1)[0]:
            pass
    except KeyboardInterrupt:
        h.HandleUserInterrupt = True  # from now on HiGHS asks at every iteration, and is told to stop
        h.cancelSolve()
        while not h.wait(0.1)[0]:
            pass

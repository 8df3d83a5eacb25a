"""The sequence-form LP of a two-player zero-sum game, solved by HiGHS (highspy, sparse, no dense
matrices). Koller, Megiddo & von Stengel (1996); Bosansky 2019, "sequence-form LP".

Player 0 maximises its guaranteed payoff. For a fixed plan x, player 1's best response is the LP
``min_y x^T A y  s.t. F y = f, y >= 0``, whose dual is ``max_q f^T q  s.t. F^T q <= A^T x``.
Joining the two gives one LP in (x, q):

    maximise   f^T q = q[0]
    subject to E x = e                       (1 + |I_1| rows)
               A^T x - F^T q >= 0            (|Sigma_2| rows)
               x >= 0, q free.

Its optimum is the game value; x is player 0's equilibrium plan and the duals of the second block
are player 1's plan y (complementary slackness). Columns are ``[x (|Sigma_1|), q (1 + |I_2|)]``.

References:

- Bosansky (2019), "Solving Extensive-Form Games", lecture, Multiagent Systems, Czech Technical University in Prague.
- Koller, Megiddo & von Stengel (1996), "Efficient Computation of Equilibria for Extensive Two-Person Games", Games and
  Economic Behavior.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from seqform.errors import SolverError, TimeLimitError
from seqform.lp.highs import INF, solve_highs
from seqform.lp.sequenceform import SequenceForm

METHODS = {"auto": None, "simplex": "simplex", "ipm": "ipm", "choose": "choose", "pdlp": "pdlp"}

#: "auto" runs the interior-point method (with crossover) on an LP with at least ``IPM_MIN_ROWS``
#: rows and at least ``IPM_MIN_DENSITY`` nonzeros per row, the dual simplex on any other. Measured
#: with HiGHS 1.15 on 17 games (bench/README.md, "Choosing the LP method"): the dual simplex needs
#: more and costlier iterations as the rows get denser; the interior point wins on every LP with
#: 7.4 or more nonzeros a row (Leduc with 5 ranks, 8.7 a row: 0.44 s against 0.68 s; with 6 ranks,
#: 10.5: 1.0 s against 2.2 s), ties at 6.9 and loses on every one with at most 6.1 (Liar's Dice
#: 1x6, 6.0: 4.2 s against 1.3 s; Goofspiel; small games, where it also costs more to start).
IPM_MIN_ROWS = 1000
IPM_MIN_DENSITY = 7.0
#: ... and on every LP with at least this many rows, whatever its density: on Rhode Island's
#: abstract LP with 3 ranks and 2 suits (42,674 rows, 4.6 nonzeros a row) the interior point with
#: crossover took 0.59x the dual simplex's CPU time (32.5 s against 54.6 s, 60 interior and
#: 1,513 crossover iterations against 33,078 simplex iterations: bench/bench_lp_levers.py)
IPM_ALWAYS_ROWS = 40_000


@dataclass
class LPResult:
    """The LP's solution: ``value`` (player 0's), plans ``x`` and ``y``, HiGHS basis status codes
    (``col_status``, ``row_status``: 0 lower, 1 basic, 2 upper, 3 zero, 4 nonbasic; None when no
    basis, e.g. IPM without crossover), the raw column values, ``seconds``, ``iterations`` and the
    ``method`` that ran (what "auto" chose)."""

    value: float
    x: np.ndarray
    y: np.ndarray
    col_value: np.ndarray
    col_status: np.ndarray | None
    row_status: np.ndarray | None
    seconds: float
    iterations: int
    method: str
    #: why HiGHS stopped before an optimum ("" when it reached one): x and y are then where it
    #: stood (zeros when it had no solution yet), ``value`` is nan and there is no basis
    stopped: str = ""


def lp_matrix(sf: SequenceForm) -> sp.csc_matrix:
    """The constraint matrix ``K = [[E, 0], [A^T, -F^T]]`` (CSC) of the LP above."""
    m1, n1 = sf.E.shape
    m2, n2 = sf.F.shape
    # one COO -> CSC conversion of the three blocks' entries (sparse hstack/vstack cost 2-3x more)
    E, A, F = sf.E.tocoo(), sf.A.tocoo(), sf.F.tocoo()
    rows = np.concatenate([E.row, m1 + A.col, m1 + F.col])
    cols = np.concatenate([E.col, A.row, n1 + F.row])
    vals = np.concatenate([E.data, A.data, -F.data])
    K = sp.csc_matrix((vals, (rows, cols)), shape=(m1 + n2, n1 + m2))
    K.sort_indices()
    return K


def solve_lp(
    sf: SequenceForm,
    method: str = "auto",
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict | None = None,
) -> LPResult:
    """Solve the LP with HiGHS. ``method``: "auto" (``auto_method``), "simplex" (dual simplex,
    gives a basis), "ipm" (interior point with crossover, gives a basis), "choose" (HiGHS
    decides), "pdlp".
    ``options``: further HiGHS options by name (e.g. ``{"presolve": "off"}``).
    Raises ``SolverError`` naming HiGHS's status when it does not reach an optimum, except at
    ``time_limit``: then the result's ``stopped`` says so and its plans are where HiGHS stood."""
    if method not in METHODS:
        raise SolverError(f"unknown LP method {method!r}; choose one of {', '.join(METHODS)}")
    n1 = sf.E.shape[1]
    m1 = sf.E.shape[0]
    n2 = sf.F.shape[1]
    m2 = sf.F.shape[0]
    scale = payoff_scale(sf)
    K = lp_matrix(sf if scale == 1 else scaled(sf, scale))
    if method == "auto":
        method = auto_method(K)
    ncol = n1 + m2
    cost = np.zeros(ncol)
    cost[n1] = 1.0
    t0 = time.perf_counter()
    try:
        res = solve_highs(
            K,
            cost,
            np.concatenate([np.zeros(n1), np.full(m2, -INF)]),
            np.full(ncol, INF),
            np.concatenate([sf.e, np.zeros(n2)]),
            np.concatenate([sf.e, np.full(n2, INF)]),
            maximize=True,
            method=method,
            time_limit=time_limit,
            verbose=verbose,
            options=options,
        )
    except TimeLimitError as e:
        # a clock that runs out is a stop: where HiGHS stood, for the caller to bound exactly
        col = np.zeros(ncol) if e.col_value is None else np.asarray(e.col_value, dtype=float)
        dual = np.zeros(K.shape[0]) if e.row_dual is None else np.asarray(e.row_dual, dtype=float)
        return LPResult(
            math.nan,
            _finite_nonnegative(col[:n1]),
            _plan_from_duals(dual, m1),
            col,
            None,
            None,
            time.perf_counter() - t0,
            0,
            method,
            stopped=str(e),
        )
    col = res.col_value
    x = _finite_nonnegative(col[:n1])
    y = _plan_from_duals(res.row_dual, m1)
    # the LP saw payoffs times ``scale``: its value (and the q columns) scale with them, x and the
    # duals y do not (F y = f has no payoffs in it)
    value = res.objective / scale
    if scale != 1:
        col = col.copy()
        col[n1:] /= scale
    return LPResult(value, x, y, col, res.col_status, res.row_status, res.seconds, res.iterations, method)


def _plan_from_duals(row_dual: np.ndarray, m1: int) -> np.ndarray:
    """Player 1's plan y: the duals of the rows ``A^T x - F^T q >= 0`` (after the ``m1`` rows of
    ``E x = e``), in the sign that makes y[empty] nonnegative (HiGHS's dual sign convention for
    maximisation), clipped at 0."""
    y = -np.asarray(row_dual, dtype=float)[m1:]
    if y[0] < 0:
        y = -y
    return _finite_nonnegative(y)


def _finite_nonnegative(v: np.ndarray) -> np.ndarray:
    """``v`` clipped at 0, with nan and inf (HiGHS lost in payoffs of magnitudes it cannot
    resolve, e.g. 10^300 beside 1) as 0: the certificate then brackets or repairs it."""
    v = np.asarray(v, dtype=float)
    return np.where(np.isfinite(v), np.maximum(v, 0.0), 0.0)


#: payoffs (chance-weighted) whose largest magnitude lies in [2^-SCALE_FREE_BITS, 2^SCALE_FREE_BITS]
#: go to HiGHS as they are; others are scaled by a power of two into [1/2, 1). HiGHS refuses
#: matrix entries above 1e15 (its large_matrix_value) and drops those below 1e-9.
SCALE_FREE_BITS = 20


def payoff_scale(sf: SequenceForm) -> float:
    """The power of two the LP multiplies player 0's payoffs by before HiGHS sees them (1 for
    payoffs of ordinary size: largest chance-weighted magnitude within 2^+-SCALE_FREE_BITS).

    A zero-sum game's equilibria do not change when every payoff is multiplied by a positive
    number, and its value scales with it; a power of two scales floats exactly. So games with
    payoffs of 10^16 or 10^300 solve, and the certificate, which uses the original rationals, is
    unaffected. (Every payoff is a finite float: the game readers refuse larger numbers.)"""
    data = np.abs(sf.A.data)
    top = float(data.max()) if data.size else 0.0
    if top == 0.0 or 2.0**-SCALE_FREE_BITS <= top <= 2.0**SCALE_FREE_BITS:
        return 1.0
    return math.ldexp(1.0, -math.frexp(top)[1])


def scaled(sf: SequenceForm, scale: float) -> SequenceForm:
    """``sf`` with ``A`` times ``scale`` (a power of two: exact in floats)."""
    return dataclasses.replace(sf, A=sf.A * scale)


def auto_method(K: sp.spmatrix) -> str:
    """The method "auto" picks for the LP with constraint matrix ``K``: "ipm" when it has at least
    ``IPM_ALWAYS_ROWS`` rows, or at least ``IPM_MIN_ROWS`` rows and ``IPM_MIN_DENSITY`` nonzeros
    per row on average, else "simplex"."""
    rows = K.shape[0]
    if rows >= IPM_ALWAYS_ROWS:
        return "ipm"
    return "ipm" if rows >= IPM_MIN_ROWS and K.nnz >= IPM_MIN_DENSITY * rows else "simplex"

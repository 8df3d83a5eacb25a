"""Iterative refinement of an LP basis to exact optimality at one rational eps.

At small eps the perturbed LP's interesting values are tiny (``eps^depth``): a float solver with
tolerances near 1e-7 cannot tell a sequence at its tremble bound from one slightly below, so the
basis HiGHS returns is optimal only up to its tolerances. Following Gleixner, Steffy & Wolter
(2016, "Iterative refinement for linear programming"), we compute the basis's exact primal and
dual solution at the rational eps, and while it violates a bound or a sign, we re-solve
(warm-started from the basis) a *correction LP* whose bounds are the exact residuals and whose
objective is the exact reduced costs, both scaled up by the inverse of the largest violation, so
that the float solver sees them at unit size. Each round's basis is judged exactly again; the
loop ends at a basis that is exactly optimal at that eps.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import scipy.sparse as sp

from seqform.errors import CertificateError, SolverError
from seqform.exact.rationals import fmpq_of, fraction_of
from seqform.exact.sparselu import SparseLU
from seqform.lp.highs import BASIC, INF, HighsResult, solve_highs

from .perturbedlp import PolyLP

ZERO = flint.fmpq(0)
BIG = 1e9
TIGHT = {"primal_feasibility_tolerance": 1e-9, "dual_feasibility_tolerance": 1e-9}


@dataclass
class ExactLP:
    """The perturbed LP at a rational eps, exactly: ``rows`` (dicts {col: fmpq}), ``cost``,
    ``col_lower`` (None for free columns), ``row_lower`` and ``row_upper`` (None for +inf)."""

    rows: list
    cost: list
    col_lower: list
    row_lower: list
    row_upper: list


def exact_lp(plp: PolyLP, eps: Fraction) -> ExactLP:
    """``plp`` evaluated at the rational ``eps``."""
    e = fmpq_of(eps)
    pw = {k: e**k for k in set(plp.K) | set(plp.cost) | set(plp.col_lower) | {0}}
    rows: list = [dict() for _ in range(plp.n_rows)]
    for k, t in plp.K.items():
        f = pw[k]
        for r, c, v in zip(t.rows.tolist(), t.cols.tolist(), t.exact):
            rows[r][c] = rows[r].get(c, ZERO) + v * f
    cost = [ZERO] * plp.n_cols
    for k, t in plp.cost.items():
        for c, v in zip(t.cols.tolist(), t.exact):
            cost[c] += v * pw[k]
    lo: list = [ZERO] * plp.n_cols
    for k, t in plp.col_lower.items():
        for c, v in zip(t.cols.tolist(), t.exact):
            lo[c] += v * pw[k]
    for c in np.flatnonzero(plp.col_free).tolist():
        lo[c] = None
    rlo = list(plp.row_lower_exact)
    rhi = [rlo[i] if plp.row_equal[i] else None for i in range(plp.n_rows)]
    return ExactLP(rows, cost, lo, rlo, rhi)


@dataclass
class ExactBasic:
    """A basis's exact solution: column values ``w``, row activities ``act``, duals ``pi`` (one
    per row, zero on basic rows), reduced costs ``d``, and the largest primal and dual
    violations (0 when the basis is exactly optimal)."""

    w: list
    act: list
    pi: list
    d: list
    primal_violation: Fraction
    dual_violation: Fraction


def exact_basic(ex: ExactLP, col_status: np.ndarray, row_status: np.ndarray, limit: int) -> ExactBasic:
    """Solve the basis exactly and measure its violations (``CertificateError`` if singular)."""
    n, m = len(ex.cost), len(ex.rows)
    B = np.flatnonzero(col_status == BASIC).tolist()
    T = np.flatnonzero(row_status != BASIC).tolist()
    if len(B) != len(T):
        raise CertificateError(f"basis is not square ({len(B)} basic columns, {len(T)} tight rows)")
    bpos = {c: i for i, c in enumerate(B)}
    w = [ZERO if ex.col_lower[c] is None else ex.col_lower[c] for c in range(n)]
    for c in B:
        w[c] = ZERO
    M, rhs = [], []
    for i in T:
        row = ex.rows[i]
        M.append({bpos[c]: v for c, v in row.items() if c in bpos})
        bound = ex.row_lower[i] if row_status[i] != 2 or ex.row_upper[i] is None else ex.row_upper[i]
        rhs.append(bound - sum((v * w[c] for c, v in row.items() if c not in bpos and w[c]), ZERO))
    lu = SparseLU(M, len(B), limit)
    wb = lu.solve(rhs)
    for c, v in zip(B, wb):
        w[c] = v
    pit = lu.solve_transpose([ex.cost[c] for c in B])
    pi = [ZERO] * m
    for i, v in zip(T, pit):
        pi[i] = v
    # a tight row's activity is its bound and a basic column's reduced cost zero, by construction
    act = list(ex.row_lower)
    for i in T:
        if row_status[i] == 2 and ex.row_upper[i] is not None:
            act[i] = ex.row_upper[i]
    for i in np.flatnonzero(row_status == BASIC).tolist():
        act[i] = sum((v * w[c] for c, v in ex.rows[i].items() if w[c]), ZERO)
    d = [ZERO if c in bpos else ex.cost[c] for c in range(n)]
    for i in T:
        pv_ = pi[i]
        if pv_:
            for c, v in ex.rows[i].items():
                if c not in bpos:
                    d[c] -= pv_ * v
    pv = ZERO
    for c in range(n):
        if ex.col_lower[c] is not None and w[c] < ex.col_lower[c]:
            pv = max(pv, ex.col_lower[c] - w[c])
    for i in range(m):
        if act[i] < ex.row_lower[i]:
            pv = max(pv, ex.row_lower[i] - act[i])
        if ex.row_upper[i] is not None and act[i] > ex.row_upper[i]:
            pv = max(pv, act[i] - ex.row_upper[i])
    dv = ZERO
    Bset = set(B)
    for c in range(n):
        if c in Bset:
            continue
        if ex.col_lower[c] is None:
            dv = max(dv, abs(d[c]))
        elif d[c] > 0:
            dv = max(dv, d[c])
    for i in T:
        if ex.row_upper[i] is None and pi[i] > 0:  # a tight >= row whose dual has the wrong sign
            dv = max(dv, pi[i])
    return ExactBasic(w, act, pi, d, Fraction(int(pv.p), int(pv.q)), Fraction(int(dv.p), int(dv.q)))


def refine(
    plp: PolyLP, eps: Fraction, start: HighsResult, *, rounds: int = 20, limit: int = 2_000_000, max_scale: float = 1e15
) -> tuple[np.ndarray, np.ndarray, int]:
    """From HiGHS's basis at ``eps``, a basis exactly optimal at the rational ``eps``: returns
    ``(col_status, row_status, rounds used)``. ``SolverError`` if ``rounds`` do not suffice.

    The correction LP has the row activities as explicit columns ``s`` (``K w - s = 0``), so that
    the dual correction can shift the sign bounds of the rows' duals: ``s_i`` costs the exact
    dual ``pi_i``, ``w_j`` its exact reduced cost, both times the dual scale; ``w`` and ``s`` are
    bounded by their exact residual distances to their bounds, times the primal scale."""
    ex = exact_lp(plp, eps)
    m, n = plp.n_rows, plp.n_cols
    K = sp.hstack([plp.matrix(float(eps)), -sp.identity(m, format="csc")]).tocsc()
    zeros = np.zeros(m)
    lo = np.array([-INF if v is None else float(v) for v in ex.col_lower])
    rlo = np.array([float(v) for v in ex.row_lower])
    rhi = np.array([INF if v is None else float(v) for v in ex.row_upper])
    cs, rs = start.col_status, start.row_status
    if cs is None or rs is None:
        raise SolverError("iterative refinement needs a basis; the LP solve returned none")
    for k in range(rounds + 1):
        sol = exact_basic(ex, cs, rs, limit)
        if sol.primal_violation == 0 and sol.dual_violation == 0:
            return cs, rs, k
        if k == rounds:
            break
        w = np.array([float(v) for v in sol.w])
        act = np.array([float(v) for v in sol.act])
        dist_lo = np.concatenate([np.where(np.isinf(lo), -INF, lo - w), rlo - act])
        dist_hi = np.concatenate([np.full(n, INF), np.where(np.isinf(rhi), INF, rhi - act)])
        cost = np.concatenate([[float(v) for v in sol.d], [float(v) for v in sol.pi]])
        # magnify each side's residuals to unit size; the costs' scale stops where the largest
        # reaches BIG, since HiGHS's dual tolerance is relative to them (the correction LP runs
        # with tight tolerances so that the magnified violations stay visible)
        sp_ = min(max_scale, 1.0 / float(sol.primal_violation)) if sol.primal_violation else 1.0
        big_d = max(float(np.max(np.abs(cost), initial=0.0)), 1.0)
        sd = min(max_scale, BIG / big_d, 1.0 / float(sol.dual_violation)) if sol.dual_violation else 1.0
        col_lo, col_hi, cost = dist_lo * sp_, dist_hi * sp_, cost * sd
        # the residuals are exact; their float images can land a hair off zero where a bound is met
        col_lo[np.abs(col_lo) < 1e-12] = 0.0
        col_hi[np.abs(col_hi) < 1e-12] = 0.0
        start_basis = (np.concatenate([cs, rs]), np.zeros(m, dtype=np.int8))
        try:
            res = solve_highs(K, cost, col_lo, col_hi, zeros, zeros, maximize=True, options=TIGHT, basis=start_basis)
        except SolverError:  # tight tolerances can trip HiGHS's numerics; the default ones then
            res = solve_highs(K, cost, col_lo, col_hi, zeros, zeros, maximize=True, basis=start_basis)
        if res.col_status is None:
            raise SolverError("HiGHS returned no basis for the correction LP")
        cs, rs = res.col_status[:n], res.col_status[n:]
    raise SolverError(
        f"iterative refinement did not reach an exactly optimal basis in {rounds} rounds "
        f"(violations: primal {float(sol.primal_violation):.3g}, dual {float(sol.dual_violation):.3g})"
    )


def exact_plans(plp: PolyLP, eps: Fraction, basis: tuple, limit: int = 2_000_000) -> tuple[list, list, Fraction]:
    """Both players' exact plans (Fractions) and the perturbed game's value at the rational ``eps``
    on ``basis`` (col_status, row_status): x from the columns, ``y = lambda(eps) + y'`` with
    ``y'`` the duals of the D rows (``refinements.perturbedlp``)."""
    ex = exact_lp(plp, eps)
    sol = exact_basic(ex, basis[0], basis[1], limit)
    x = [fraction_of(v) for v in sol.w[plp.xcols]]
    y = [-fraction_of(v) for v in sol.pi[plp.drows]]
    lam = plp.pert.lam_exact(1, eps)
    if lam:
        y = [a + b for a, b in zip(y, lam)]
    value = sum((a * c for a, c in zip(sol.w, ex.cost) if a), ZERO)
    return x, y, Fraction(int(value.p), int(value.q))

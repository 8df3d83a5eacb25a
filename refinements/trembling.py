"""The trembling-LP method (Farina, Gatti & Sandholm, NeurIPS 2018): the exact limit eps -> 0 of
the perturbed LP's optimal solutions, from one basis.

Solve the perturbed LP (``refinements.perturbedlp``) numerically at some eps and take HiGHS's optimal basis.
On that basis the basic solution is ``w_B(eps) = K_B(eps)^{-1} h(eps)`` and the duals are
``pi(eps) = K_B(eps)^{-T} c_B(eps)``, rational functions of eps. Where ``K_B(0)`` is nonsingular
both are power series, ``w_B = sum_k eps^k w_k`` with

    K_B(0) w_k = h_k - sum_{j >= 1} K_j w_{k-j}          (and the transpose for pi),

solved exactly (python-flint rationals) with one sparse LU of ``K_B(0)``. The basis is optimal
for every eps in some interval (0, eps_bar] iff, for every quantity that must be nonnegative
(basic values above their bounds, slacks of basic rows) or nonpositive (reduced costs of nonbasic
columns, duals of tight inequality rows), the lowest-order nonzero coefficient of its series has
the right sign. If so, the limit eps -> 0 of the basic solution, ``w_0`` and ``pi_0``, is the
refined equilibrium's realization plans; the leading terms of the series also give the limit
*behavioural* strategies everywhere, including at information sets the limit plans never reach.
If not, eps is shrunk and the LP solved again.

A quantity whose first ``order + 1`` coefficients all vanish is taken as identically zero. For
realization bounds only (QPE), ``K_B`` does not depend on eps and every quantity is a polynomial
of the perturbation's degree, so computing that many terms decides every sign exactly. With
behavioural bounds (EFPE) they are rational functions, and vanishing to ``order`` is evidence,
not proof; the count of such quantities is reported, and the final answer is verified
independently (``refinements.limitcertificate``: exact Nash check and exact information-set regrets), so a wrong basis
cannot pass silently.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np

from seqform.errors import CertificateError, SolverError
from seqform.exact.rationals import fmpq_of
from seqform.exact.sparselu import SparseLU, TooLarge
from seqform.lp.highs import BASIC

from .errors import RefinementError
from .iterativerefinement import refine
from .perturbedlp import PolyLP, solve_at

ZERO = flint.fmpq(0)


@dataclass
class Series:
    """Truncated power series of many quantities at once: ``terms[k][i]`` is the eps^k coefficient
    of quantity i (fmpq)."""

    terms: list = field(default_factory=list)

    def leading(self, i: int) -> tuple[int, flint.fmpq]:
        """``(order, coefficient)`` of quantity i's lowest-order nonzero term, or (-1, 0) if every
        computed term is zero."""
        return first_nonzero(t[i] for t in self.terms)


def first_nonzero(coefficients) -> tuple[int, flint.fmpq]:
    """``(order, coefficient)`` of a series' first nonzero coefficient, or (-1, 0) if none."""
    for k, v in enumerate(coefficients):
        if v != 0:
            return k, v
    return -1, ZERO


@dataclass
class BasisTest:
    """Outcome of the exact test of one basis. ``optimal``: optimal for all small eps > 0;
    ``reason``: the first violated sign condition, if any; ``x``, ``y``: realization series of
    both players (``Series`` over sequences); ``order``: terms computed; ``zero_to_order``:
    quantities identically zero through that order; ``basis_size``; ``deepest``: the highest order
    at which a checked quantity's first nonzero term appeared."""

    optimal: bool
    reason: str
    x: Series | None
    y: Series | None
    order: int
    zero_to_order: int
    basis_size: int
    deepest: int = 0


def _conv_rows(parts: dict, rows_sel: np.ndarray, n_rows: int) -> dict:
    """{power: list over selected rows of {col: fmpq}} for the matrix parts of a PolyLP."""
    pos = np.full(n_rows, -1, dtype=np.int64)
    pos[rows_sel] = np.arange(len(rows_sel))
    out = {}
    for k, t in parts.items():
        rows: list[dict] = [{} for _ in range(len(rows_sel))]
        pr = pos[t.rows]
        for r, c, v in zip(pr.tolist(), t.cols.tolist(), t.exact):
            if r >= 0:
                rows[r][c] = v
        out[k] = rows
    return out


def _poly_vector(parts: dict, n: int, K: int) -> list:
    """Dense exact coefficient lists ``[power][index]`` (powers 0..K) of a polynomial vector."""
    out = [[ZERO] * n for _ in range(K + 1)]
    for k, t in parts.items():
        if k <= K:
            for c, v in zip(t.cols.tolist(), t.exact):
                out[k][c] += v
    return out


class SeriesError(Exception):
    """The basis system's solution is not a power series this module can compute."""


def _apply(rows: list, v: list) -> list:
    """Sparse rows (dicts) times a dense vector, exactly."""
    out = []
    for row in rows:
        acc = ZERO
        for c, a in row.items():
            vc = v[c]
            if vc:
                acc += a * vc
        out.append(acc)
    return out


def _transpose(rows: list, n: int) -> list:
    out: list = [dict() for _ in range(n)]
    for i, r in enumerate(rows):
        for c, v in r.items():
            out[c][i] = v
    return out


def series_solve(mats: dict, rhs: list, K: int, exact_limit: int, lu=None) -> tuple:
    """Coefficients ``w_0..w_K`` of the power series solving ``(sum_j eps^j mats[j]) w = sum_k
    eps^k rhs[k]`` (``mats[j]``: square sparse rows; ``rhs``: K + 2 dense vectors).

    With ``M_0`` nonsingular this is the recursion of the module docstring. When ``M_0`` is
    singular (it happens: a basic variable of order eps whose coefficient only the eps-terms of
    the matrix determine), write ``w_k = p_k + N c_k`` with N a null basis of ``M_0`` (from a
    rank-revealing LU) and choose ``c_{k-1}`` so that the order-k equation is solvable: the small
    system ``(L M_1 N) c_{k-1} = L r_k`` with L the left null functionals. This covers the
    index-one case (``L M_1 N`` nonsingular); ``SeriesError`` otherwise, or when the solution has
    a pole at eps = 0. ``lu``: a factorization of ``mats[0]`` to use (e.g. ``SparseLU.transposed``
    for the dual system); by default one is made. Returns the terms and the factorization."""
    n = len(mats[0])
    if lu is None:
        try:
            lu = SparseLU(mats[0], n, exact_limit, allow_singular=True)
        except CertificateError as e:
            raise SeriesError(str(e)) from None
    if not lu.free_cols:
        return _series_nonsingular(mats, rhs, K, lu.solve), lu
    free = lu.free_cols
    d = len(free)
    # singular (d > 0): null vectors N, and the small system (L M_1 N) that fixes their part
    if 1 not in mats:
        raise SeriesError("the basis matrix is singular and constant in eps")
    nulls = [lu.null_vector(f) for f in free]
    m1n = [_apply(mats[1], v) for v in nulls]
    S = flint.fmpq_mat(d, d)
    p1n = []  # the (unchecked) solutions for M_1 N's columns, to correct each step linearly
    for f, v in enumerate(m1n):
        z, res = lu.solve_residuals(v)
        p1n.append(z)
        for i, r in enumerate(res):
            S[i, f] = r
    if S.det() == 0:
        raise SeriesError(f"the basis matrix is singular at eps = 0 with index above one (nullity {d})")
    Sinv = S.inv()
    ws: list = []
    prev: list = []  # the previous order's solution (read from k = 1 on)
    for k in range(K + 2):
        r = list(rhs[k])
        for j, rows in mats.items():
            if j == 0 or j > k:
                continue
            v = prev if j == 1 else ws[k - j]
            for i, a in enumerate(_apply(rows, v)):
                if a:
                    r[i] -= a
        # one pass gives the solution (free part 0) and the residuals; both are linear in r, so
        # subtracting c's multiple of M_1 N from r is done on the solution directly
        p, res = lu.solve_residuals(r)
        if k == 0:
            if any(res):
                raise SeriesError("the basic solution has a pole at eps = 0")
        else:
            c = [sum((Sinv[f, i] * res[i] for i in range(d)), ZERO) for f in range(d)]
            w = list(prev)
            for f in range(d):
                if c[f]:
                    for t in range(n):
                        if nulls[f][t]:
                            w[t] += c[f] * nulls[f][t]
                        if p1n[f][t]:
                            p[t] -= c[f] * p1n[f][t]
            ws.append(w)
        prev = p
    return ws[: K + 1], lu


def _series_nonsingular(mats: dict, rhs: list, K: int, solve) -> list:
    """The plain recursion ``M_0 w_k = rhs_k - sum_{j>=1} M_j w_{k-j}`` with a given solver."""
    ws: list = []
    for k in range(K + 1):
        r = list(rhs[k])
        for j, rows in mats.items():
            if 0 < j <= k:
                for i, a in enumerate(_apply(rows, ws[k - j])):
                    if a:
                        r[i] -= a
        ws.append(solve(r))
    return ws


def check_basis(
    plp: PolyLP, col_status: np.ndarray, row_status: np.ndarray, order: int, exact_limit: int = 2_000_000
) -> BasisTest:
    """Is this basis optimal for all small eps > 0? (see the module docstring). ``order``: the
    number of series terms after the constant one. Raises ``TooLarge`` if the exact LU would
    exceed ``exact_limit`` nonzeros."""
    B = np.flatnonzero(col_status == BASIC)
    T = np.flatnonzero(row_status != BASIC)
    Rb = np.flatnonzero(row_status == BASIC)
    nb = len(B)
    if nb != len(T):
        return BasisTest(False, f"basis is not square ({nb} basic columns, {len(T)} tight rows)", None, None, 0, 0, nb)
    N = np.flatnonzero(col_status != BASIC)
    bpos = np.full(plp.n_cols, -1, dtype=np.int64)
    bpos[B] = np.arange(nb)
    K = order
    rowsT = _conv_rows(plp.K, T, plp.n_rows)  # power -> rows (tight) as {col: v}
    rowsR = _conv_rows(plp.K, Rb, plp.n_rows)  # basic rows
    # M_j = K_j[T, B] in basis positions; the nonbasic part K_j[T, N] moves to the right-hand side
    M = {k: [{int(bpos[c]): v for c, v in r.items() if bpos[c] >= 0} for r in rows] for k, rows in rowsT.items()}
    lower = _poly_vector(plp.col_lower, plp.n_cols, K + 1)  # nonbasic columns sit at their lower bounds
    for c in np.flatnonzero(plp.col_free).tolist():
        for k in range(K + 2):
            lower[k][c] = ZERO
    cost = _poly_vector(plp.cost, plp.n_cols, K + 1)
    Bl = B.tolist()
    row_lo = [plp.row_lower_exact[i] for i in T.tolist()]
    rhs = []
    for k in range(K + 2):
        r = list(row_lo) if k == 0 else [ZERO] * nb
        for j, rows in rowsT.items():
            if j <= k:
                low = lower[k - j]
                for i, row in enumerate(rows):
                    acc = ZERO
                    for c, v in row.items():
                        if bpos[c] < 0 and low[c]:
                            acc += v * low[c]
                    if acc:
                        r[i] -= acc
        rhs.append(r)
    try:
        wb, lu = series_solve(M, rhs, K, exact_limit)
        Mt = {k: _transpose(rows, nb) for k, rows in M.items()}
        crhs = [[cost[k][c] for c in Bl] for k in range(K + 2)]
        # the same LU serves the dual system (transposed solves)
        pis, _ = series_solve(Mt, crhs, K, exact_limit, lu=lu.transposed())
    except SeriesError as e:
        return BasisTest(False, str(e), None, None, K, 0, nb)
    wfull: list = []
    for k in range(K + 1):
        full = list(lower[k])
        for c, v in zip(Bl, wb[k]):
            full[c] = v
        wfull.append(full)
    # the sign conditions, as series
    equal = plp.row_equal

    deepest = 0  # the highest order at which some quantity's first nonzero term appeared

    def leading(coefficients):
        nonlocal deepest
        o, v = first_nonzero(coefficients)
        deepest = max(deepest, o)
        return o, v

    zero = 0
    xc = plp.xcols
    for c in B.tolist():
        if plp.col_free[c]:
            continue
        ser = [wfull[k][c] - lower[k][c] for k in range(K + 1)]
        o, v = leading(ser)
        if o < 0:
            zero += 1
        elif v < 0:
            kind = "x" if xc.start <= c < xc.stop else "r"
            return BasisTest(
                False, f"basic column {kind}[{c}] falls below its bound at order eps^{o}", None, None, K, zero, nb
            )
    for i, row_i in zip(Rb.tolist(), range(len(Rb))):
        ser = []
        for k in range(K + 1):
            acc = ZERO
            for j, rows in rowsR.items():
                if j <= k:
                    wk = wfull[k - j]
                    for c, v in rows[row_i].items():
                        wv = wk[c]
                        if wv:
                            acc += v * wv
            ser.append(acc - (plp.row_lower_exact[i] if k == 0 else ZERO))
        o, v = leading(ser)
        if o < 0:
            zero += 1
        elif v < 0 or equal[i]:
            return BasisTest(False, f"row {i} is violated at order eps^{o}", None, None, K, zero, nb)
    for p, i in enumerate(T.tolist()):
        if equal[i]:
            continue
        o, v = leading([pis[k][p] for k in range(K + 1)])
        if o < 0:
            zero += 1
        elif v > 0:
            return BasisTest(
                False, f"the dual of tight row {i} has the wrong sign at order eps^{o}", None, None, K, zero, nb
            )
    # reduced costs of nonbasic columns: c_j - sum_i pi_i K_ij, as series
    colsN: dict = {}
    for j, rows in rowsT.items():
        for i, r in enumerate(rows):
            for c, v in r.items():
                if bpos[c] < 0:
                    colsN.setdefault(c, []).append((j, i, v))
    for c in N.tolist():
        ser = []
        ent = colsN.get(c, [])
        for k in range(K + 1):
            acc = cost[k][c]
            for j, i, v in ent:
                if j <= k:
                    pv = pis[k - j][i]
                    if pv:
                        acc -= pv * v
            ser.append(acc)
        o, v = leading(ser)
        if o < 0:
            zero += 1
        elif v > 0 or plp.col_free[c]:
            return BasisTest(
                False,
                f"nonbasic column {c} has a reduced cost of the wrong sign at order eps^{o}",
                None,
                None,
                K,
                zero,
                nb,
            )
    xs = Series([w[xc] for w in wfull])
    tpos = {int(i): p for p, i in enumerate(T.tolist())}
    d0 = plp.drows.start
    n2 = plp.drows.stop - d0
    lam1 = [[ZERO] * n2 for _ in range(K + 1)]
    for k, coefs in plp.pert.realization[1].items():
        if k <= K:
            lam1[k] = [fmpq_of(c) for c in coefs]
    ys = Series(
        [[lam1[k][t] - (pis[k][tpos[d0 + t]] if (d0 + t) in tpos else ZERO) for t in range(n2)] for k in range(K + 1)]
    )
    return BasisTest(True, "", xs, ys, K, zero, nb, deepest)


@dataclass
class LimitSearch:
    """The trembling-LP search's result: the accepted ``test`` (with series), the ``eps`` whose
    basis was accepted, every eps ``tried`` with the reason it was rejected, and ``seconds``
    (``"lp"`` for HiGHS, ``"refine"`` for iterative refinement, ``"exact"`` for the series), and the
    accepted ``basis`` (col_status, row_status)."""

    test: BasisTest
    eps: Fraction
    tried: list
    seconds: dict
    basis: tuple = ()


def search(
    plp: PolyLP,
    eps0: Fraction,
    *,
    shrink: Fraction = Fraction(1, 10),
    tries: int = 6,
    order: int | None = None,
    exact_limit: int = 2_000_000,
    progress: Callable[[str], None] | None = None,
) -> LimitSearch:
    """Solve at eps0, eps0*shrink, ... (rationals) until a basis passes ``check_basis``;
    ``RefinementError`` after ``tries`` failures. At each eps, HiGHS's basis is first made exactly
    optimal at that eps by iterative refinement (``refinements.iterativerefinement.refine``), since float
    tolerances cannot resolve the eps^depth values of deep trembles. ``order`` defaults, for
    realization bounds only (QPE), to their degree in eps, which is exact (see above); with
    behavioural bounds (EFPE) the basis matrix depends on eps and the solution is a rational
    function: then to ``D + 1`` with D the perturbation's ``order_bound`` (every realization has
    its leading term at or below D; on Kuhn, Leduc, Liar's Dice, Goofspiel and random games every
    sign we saw was decided by order D), or 24 when some sequence is unbounded."""
    say = progress or (lambda m: None)
    tree = plp.sf.game_tree()
    if order is None:
        if not any(plp.pert.behavioural):
            # K constant: the basic solution and duals are polynomials of the perturbation's degree,
            # so that many terms decide every sign exactly (a quantity zero to it is zero)
            order = plp.pert.max_power()
        else:
            bound = plp.pert.order_bound(tree)
            order = 24 if bound is None else bound + 1
    eps = Fraction(eps0)
    tried: list = []
    secs = {"lp": 0.0, "refine": 0.0, "exact": 0.0}
    basis = None
    for _ in range(tries):
        plp.pert.check(tree, float(eps))
        say(f"trembling LP: solving at eps={float(eps):g}")
        try:
            res = solve_at(plp, float(eps), basis=basis)
        except SolverError as e:
            tried.append((eps, f"LP failed: {e}"))
            eps *= shrink
            continue
        secs["lp"] += res.highs.seconds
        if res.highs.col_status is None or res.highs.row_status is None:
            raise RefinementError("HiGHS returned no basis for the perturbed LP")
        # HiGHS's own basis, judged at order 0 only: a sign wrong already in the limit is no
        # tolerance artifact (those live at the eps^depth scale), so skip refining it and shrink
        # (on the first try only: later, smaller eps are likelier to hold the limit's basis)
        t0 = time.perf_counter()
        try:
            quick = check_basis(plp, res.highs.col_status, res.highs.row_status, 0, exact_limit) if not tried else None
        except TooLarge as e:
            raise RefinementError(f"the exact basis test is too large: {e}") from None
        secs["exact"] += time.perf_counter() - t0
        if quick is not None and not quick.optimal and "order eps^0" in quick.reason:
            tried.append((eps, quick.reason))
            eps *= shrink
            basis = (res.highs.col_status, res.highs.row_status)
            continue
        t0 = time.perf_counter()
        try:
            cs, rs, _ = refine(plp, eps, res.highs, limit=exact_limit)
        except (SolverError, CertificateError) as e:
            secs["refine"] += time.perf_counter() - t0
            tried.append((eps, f"iterative refinement failed: {e}"))
            eps *= shrink
            continue
        except TooLarge as e:
            raise RefinementError(f"the exact basis solve is too large: {e}") from None
        secs["refine"] += time.perf_counter() - t0
        basis = (cs, rs)
        say(f"trembling LP: testing the basis exactly ({order} series terms)")
        t0 = time.perf_counter()
        try:
            test = check_basis(plp, cs, rs, order, exact_limit)
        except TooLarge as e:
            raise RefinementError(f"the exact basis test is too large: {e}") from None
        secs["exact"] += time.perf_counter() - t0
        if test.optimal:
            return LimitSearch(test, eps, tried, secs, (cs, rs))
        tried.append((eps, test.reason))
        eps *= shrink
    lines = "; ".join(f"eps={float(e):g}: {r}" for e, r in tried)
    raise RefinementError(f"no basis stayed optimal as eps -> 0 after {tries} tries ({lines})")

"""The perturbed sequence-form LP, with eps as a symbol (a polynomial LP) or at a number.

Player 0 maximises over its perturbed polytope ``X_eps``; for a fixed plan x, player 1's best
response over ``Y_eps = {F y = f, y_s >= beta_s(eps) y_parent(s) (s in R1), y >= lambda(eps)}`` is
an LP whose dual, joined with player 0's problem as in Koller, Megiddo & von Stengel's LP
(``seqform/lp/zerosumlp.py``), gives one LP. Substituting ``y = lambda + y'`` for the realization bounds,
with multipliers ``r >= 0`` for player 1's behavioural rows:

    maximise   (A lambda)^T x + (f - F lambda)^T q - (G lambda)^T r
    subject to E x = e                                             (rows "E", 1 + |I_1|)
               x_s - beta_s(eps) x_parent(s) >= 0      for s in R0  (rows "G", player 0's trembles)
               A^T x - F^T q - G^T r >= 0                           (rows "D", |Sigma_2|)
               x >= lambda_x(eps),  q free,  r >= 0,

where ``R_p`` are the sequences with a behavioural bound and ``G`` has the rows
``y_s - beta_s(eps) y_parent(s)`` for s in R1. The optimum is the perturbed game's value; x is
player 0's perturbed equilibrium plan and ``y = lambda + y'`` with ``y'`` the duals of the D rows
is player 1's. Columns are ``[x (|Sigma_1|), q (1 + |I_2|), r (|R1|)]``. This is the LP of Farina,
Gatti & Sandholm (NeurIPS 2018, "trembling LP"): every coefficient is a polynomial in eps.

References:

- Koller, Megiddo & von Stengel (1996), "Efficient Computation of Equilibria for Extensive Two-Person Games", Games and
  Economic Behavior.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import scipy.sparse as sp

from seqform.exact.rationals import fmpq_of
from seqform.lp.highs import INF, HighsResult, solve_highs
from seqform.lp.sequenceform import SequenceForm
from seqform.lp.zerosumlp import payoff_scale

from .perturbation import Perturbation


@dataclass
class PolyTerm:
    """One power's coefficients of a sparse polynomial object: positions and values."""

    rows: np.ndarray
    cols: np.ndarray
    exact: list  # fmpq
    vals: np.ndarray  # float


@dataclass
class PolyLP:
    """The LP above with polynomial coefficients. ``K[k]``: the matrix's eps^k part (PolyTerm with
    rows, cols); ``cost[k]``, ``col_lower[k]``: vectors' eps^k parts (PolyTerm, ``rows`` unused);
    ``row_lower``/``row_upper``: constant row bounds (floats; exact ``row_lower_exact``);
    ``col_free``: columns without lower bound (q). Index maps: ``xcols``, ``qcols``, ``rcols``
    (slices), ``rseq`` (player 1's sequence of each r column), ``gseq`` (player 0's sequence of
    each G row), ``drows`` (slice of the D rows)."""

    sf: SequenceForm
    pert: Perturbation
    n_rows: int
    n_cols: int
    K: dict
    cost: dict
    col_lower: dict
    col_free: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    row_lower_exact: list
    row_equal: np.ndarray
    xcols: slice
    qcols: slice
    rcols: slice
    rseq: np.ndarray
    gseq: np.ndarray
    grows: slice
    drows: slice

    def matrix(self, eps: float) -> sp.csc_matrix:
        """``K(eps)`` as a float CSC matrix (n_rows, n_cols)."""
        rows = np.concatenate([t.rows for t in self.K.values()])
        cols = np.concatenate([t.cols for t in self.K.values()])
        vals = np.concatenate([t.vals * eps**k for k, t in self.K.items()])
        K = sp.csc_matrix((vals, (rows, cols)), shape=(self.n_rows, self.n_cols))
        K.sum_duplicates()
        K.sort_indices()
        return K

    def vector(self, poly: dict, eps: float, n: int) -> np.ndarray:
        """A polynomial vector (``cost`` or ``col_lower``) at eps."""
        out = np.zeros(n)
        for k, t in poly.items():
            np.add.at(out, t.cols, t.vals * eps**k)
        return out


def _term(rows, cols, exact) -> PolyTerm:
    exact = [fmpq_of(v) for v in exact]
    # int / int is the correctly rounded float of the rational
    return PolyTerm(
        np.asarray(rows, dtype=np.int64),
        np.asarray(cols, dtype=np.int64),
        exact,
        np.array([int(v.p) / int(v.q) for v in exact], dtype=np.float64),
    )


def _merge(parts: dict) -> dict:
    """{power: [(rows, cols, exact)]} -> {power: PolyTerm}, duplicates summed, zeros dropped."""
    out = {}
    for k, lst in parts.items():
        acc: dict = {}
        for rows, cols, vals in lst:
            for r, c, v in zip(rows, cols, vals):
                key = (int(r), int(c))
                acc[key] = acc.get(key, 0) + fmpq_of(v)
        keys = [key for key, v in acc.items() if v != 0]
        if keys:
            out[k] = _term([key[0] for key in keys], [key[1] for key in keys], [acc[key] for key in keys])
    return out


def build(sf: SequenceForm, pert: Perturbation) -> PolyLP:
    """The polynomial LP of ``sf`` under ``pert`` (see the module docstring)."""
    tree = sf.game_tree()
    n1, n2 = tree.num_sequences
    m1, m2 = sf.E.shape[0], sf.F.shape[0]
    par0, par1 = tree.seq_parent
    beta0, beta1 = pert.behavioural
    lam0, lam1 = pert.realization
    R0 = np.array(sorted({s for v in beta0.values() for s, c in enumerate(v) if c}), dtype=np.int64)
    R1 = np.array(sorted({s for v in beta1.values() for s, c in enumerate(v) if c}), dtype=np.int64)
    nr = len(R1)
    n_cols = n1 + m2 + nr
    n_rows = m1 + len(R0) + n2
    g0, d0 = m1, m1 + len(R0)
    K: dict = {0: []}
    E = sf.E.tocoo()
    K[0].append((E.row, E.col, [int(v) for v in E.data]))
    K[0].append((g0 + np.arange(len(R0)), R0, [1] * len(R0)))
    ar, ac, av = sf.A_exact
    K[0].append((d0 + ac, ar, av))
    F = sf.F.tocoo()
    K[0].append((d0 + F.col, n1 + F.row, [-int(v) for v in F.data]))
    K[0].append((d0 + R1, n1 + m2 + np.arange(nr), [-1] * nr))
    for k, coef in beta0.items():
        K.setdefault(k, []).append((g0 + np.arange(len(R0)), par0[R0], [-coef[s] for s in R0.tolist()]))
    for k, coef in beta1.items():
        K.setdefault(k, []).append((d0 + par1[R1], n1 + m2 + np.arange(nr), [coef[s] for s in R1.tolist()]))
    # objective: (A lam1)^T x + (f - F lam1)^T q - (G lam1)^T r, power by power
    cost: dict = {0: [([n1], [1])]}  # vector parts: power -> [(positions, values)]
    A_by_row: dict = {}
    for r, c, v in zip(ar.tolist(), ac.tolist(), av):
        A_by_row.setdefault(r, []).append((c, v))
    F_rows = sf.F.tocsr()
    for k, lam in lam1.items():
        cx = [sum((v * lam[c] for c, v in A_by_row.get(r, ()) if lam[c]), Fraction(0)) for r in range(n1)]
        cq = []
        for j in range(m2):
            sl = slice(F_rows.indptr[j], F_rows.indptr[j + 1])
            cq.append(-sum((int(v) * lam[int(c)] for c, v in zip(F_rows.indices[sl], F_rows.data[sl])), Fraction(0)))
        cost.setdefault(k, []).append((range(n1), cx))
        cost[k].append((range(n1, n1 + m2), cq))
    # r's cost: -(lambda_s(eps) - beta_s(eps) lambda_parent(eps)) for s in R1
    for j, s in enumerate(R1.tolist()):
        col = n1 + m2 + j
        for k, lam in lam1.items():
            if lam[s]:
                cost.setdefault(k, []).append(([col], [-lam[s]]))
        for kb, coef in beta1.items():
            for kl, lam in lam1.items():
                if coef[s] and lam[int(par1[s])]:
                    cost.setdefault(kb + kl, []).append(([col], [coef[s] * lam[int(par1[s])]]))
    col_lower: dict = {}
    for k, lam in lam0.items():
        idx = [s for s, c in enumerate(lam) if c]
        col_lower[k] = [(idx, [lam[s] for s in idx])]
    col_free = np.zeros(n_cols, dtype=bool)
    col_free[n1 : n1 + m2] = True
    row_lower = np.zeros(n_rows)
    row_lower[:m1] = sf.e
    row_upper = np.full(n_rows, INF)
    row_upper[:m1] = sf.e
    row_equal = np.zeros(n_rows, dtype=bool)
    row_equal[:m1] = True
    row_lower_exact = [flint.fmpq(1) if i == 0 else flint.fmpq(0) for i in range(n_rows)]

    def vec(parts):  # a vector as a one-row matrix, so that _merge sums its duplicates too
        return _merge({k: [(np.zeros(len(c), dtype=np.int64), c, v) for c, v in lst] for k, lst in parts.items()})

    return PolyLP(
        sf,
        pert,
        n_rows,
        n_cols,
        _merge(K),
        vec(cost),
        vec(col_lower),
        col_free,
        row_lower,
        row_upper,
        row_lower_exact,
        row_equal,
        slice(0, n1),
        slice(n1, n1 + m2),
        slice(n1 + m2, n_cols),
        R1,
        R0,
        slice(g0, d0),
        slice(d0, n_rows),
    )


@dataclass
class PerturbedLPResult:
    """The perturbed LP's optimum at one eps: ``value`` (the perturbed game's value, player 0's),
    plans ``x``, ``y`` (floats), and HiGHS's raw result (basis included)."""

    eps: float
    value: float
    x: np.ndarray
    y: np.ndarray
    highs: HighsResult


def solve_at(
    plp: PolyLP,
    eps: float,
    method: str = "simplex",
    time_limit: float | None = None,
    options: dict | None = None,
    basis: tuple | None = None,
) -> PerturbedLPResult:
    """Solve the perturbed LP at a number ``eps`` with HiGHS (``basis``: a warm start)."""
    n = plp.n_cols
    K = plp.matrix(eps)
    cost = plp.vector(plp.cost, eps, n)
    # payoffs of any size: the A block and the x costs (A lam1) go to HiGHS times a power of two,
    # with q and r read as scaled too (q' = c q, r' = c r), so the rows of the other blocks, the
    # plans x and the duals y are unchanged and only the objective is c times the value
    c = payoff_scale(plp.sf)
    if c != 1:
        K = K.tocoo()
        block = (K.row >= plp.drows.start) & (K.col < plp.xcols.stop)
        K.data[block] *= c
        K = K.tocsc()
        cost[plp.xcols] *= c
    lo = np.where(plp.col_free, -INF, plp.vector(plp.col_lower, eps, n))
    hi = np.full(n, INF)
    res = solve_highs(
        K,
        cost,
        lo,
        hi,
        plp.row_lower,
        plp.row_upper,
        maximize=True,
        method=method,
        time_limit=time_limit,
        options=options,
        basis=basis,
    )
    x = res.col_value[plp.xcols].copy()
    yprime = -res.row_dual[plp.drows]
    if yprime[0] < 0:  # HiGHS's dual sign convention for maximisation
        yprime = -yprime
    y = plp.pert.lam(1, eps) + yprime if plp.pert.realization[1] else yprime
    return PerturbedLPResult(eps, res.objective / c, x, y, res)

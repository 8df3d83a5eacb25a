"""Lemke's path followed in floating point, for its final basis: the fast half of an exact solve.

The exact integer tableau of ``seqform.exact.lemke`` grows with the LCP's size squared in Python
integers, and each pivot touches all of it. This module follows the same path (same problem,
same starting basis, same lexicographic ratio tests) in float64 with a *revised* method: a sparse
LU factorization of the basis (SuperLU, ``scipy.sparse.linalg.splu``) and product-form updates
(one eta vector per pivot, refactorized every ``refactor`` pivots), so a pivot costs one sparse
solve instead of a dense tableau update. It returns only the final complementary basis; the
caller solves that basis exactly and checks every sign (``seqform.exact.sequenceformlcp``), so a
rounding error can cost time (a fallback to exact pivoting) but never correctness.

Ties in the ratio test are decided lexicographically, first over the right-hand-side columns
(several columns: the coefficients of a right-hand side that is a polynomial in a symbolic eps,
lowest power first), then over two columns ``B0 r`` with ``r`` random and positive (a perturbation
``h + eps' B0 r`` that keeps the start feasible and generically leaves no tie, at the cost of two
more columns carried along), and only where those tie too over the starting basis's columns, as
the exact algorithm does (rows of ``B^{-1} B0``, one transposed solve). Floats are "tied" within
``tie`` times their column's scale over the pivot entry. The path may therefore differ from the
exact algorithm's at a degenerate step; any complementary basis it ends on that the exact check
accepts is a solution all the same.

References:

- Lemke (1965), "Bimatrix equilibrium points and mathematical programming", Management Science.
- Bartels & Golub (1969), "The simplex method of linear programming using LU decomposition", Communications of the ACM
  (the revised method's basis updates; here in product form).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from seqform.errors import SolverError


@dataclass
class PathResult:
    """``basis``: the final basic variable of each row (z0 not among them); ``pivots``:
    complementary pivots after the start; ``refactorizations``."""

    basis: list[int]
    pivots: int
    refactorizations: int


class _RevisedBasis:
    """``B^{-1}`` as a sparse LU of the basis at the last refactorization and a list of etas."""

    def __init__(self, G: sp.csc_matrix, basis: list, H: np.ndarray):
        self.G, self.basis, self.H = G, list(basis), H
        self.refactorizations = 0
        self.refactor()

    def refactor(self) -> None:
        try:
            self.lu = splu(self.G[:, self.basis].tocsc(), permc_spec="COLAMD")
        except RuntimeError as e:  # "Factor is exactly singular"
            raise SolverError(f"Lemke (floating point): the basis became singular ({e})") from None
        self.etas: list = []
        self.X = self.lu.solve(self.H)  # basic values, one column per right-hand side
        # each column's scale, for the ratio test's tolerances (refreshed here only: it moves slowly)
        self.xscale = np.maximum(np.abs(self.X).max(axis=0), 1e-300)
        self.refactorizations += 1

    def ftran(self, v: np.ndarray) -> np.ndarray:
        """``B^{-1} v``."""
        a = self.lu.solve(v)
        for r, al in self.etas:
            ar = a[r] / al[r]
            a -= al * ar
            a[r] = ar
        return a

    def btran(self, W: np.ndarray) -> np.ndarray:
        """``W^T B^{-1}`` for a matrix ``W`` (N x c), as ``(B^{-T} W)``, N x c."""
        W = np.array(W, dtype=float)
        for r, al in reversed(self.etas):
            wr = W[r].copy()
            W[r] = (wr - al @ W + wr * al[r]) / al[r]
        return self.lu.solve(W, trans="T")

    def column(self, c: int) -> np.ndarray:
        G = self.G
        v = np.zeros(G.shape[0])
        a, b = G.indptr[c], G.indptr[c + 1]
        v[G.indices[a:b]] = G.data[a:b]
        return self.ftran(v)

    def pivot(self, r: int, c: int, alpha: np.ndarray) -> None:
        X = self.X
        xr = X[r] / alpha[r]
        X -= np.outer(alpha, xr)
        X[r] = xr
        self.etas.append((r, alpha))
        self.basis[r] = c


def _lex_nonnegative(X: np.ndarray, tie: float) -> bool:
    """Whether every row of ``X`` is lexicographically >= 0 (entries within ``tie`` of the
    column's scale counting as 0)."""
    undecided = np.ones(X.shape[0], dtype=bool)
    for k in range(X.shape[1]):
        col = X[:, k]
        tol = tie * max(1.0, float(np.abs(col).max(initial=0.0)))
        if np.any(undecided & (col < -tol)):
            return False
        undecided &= np.abs(col) <= tol
    return True


def _lex_pick(
    basis: _RevisedBasis, rows: np.ndarray, alpha: np.ndarray, B0: sp.csc_matrix, tie: float, minimise: bool
) -> int:
    """Among ``rows``, the row whose ``(X[i, :], (B^{-1} B0)[i, :]) / alpha_i`` is lexicographically
    smallest (``minimise``) or largest, ties within the relative tolerance ``tie``."""
    cand = np.asarray(rows)
    if not len(cand):  # nothing blocks the entering variable in floating point: a ray
        raise SolverError("Lemke (floating point): no blocking row, the path ends on a ray")
    sign = 1.0 if minimise else -1.0
    X = basis.X
    # a ratio's rounding error is about the error of its numerator (relative to its column's
    # scale) over its denominator: ties are judged row by row on that scale
    for k in range(X.shape[1]):
        if len(cand) == 1:
            return int(cand[0])
        v = sign * X[cand, k] / alpha[cand]
        tol = tie * basis.xscale[k] / np.abs(alpha[cand])
        cand = cand[v <= (v + tol).min() + tol]
    if len(cand) == 1:
        return int(cand[0])
    # rows of B^{-1} B0 for the tied rows only (one transposed solve), then the first columns
    # where they differ
    E = np.zeros((len(alpha), len(cand)))
    E[cand, np.arange(len(cand))] = 1.0
    R = np.asarray((B0.T @ basis.btran(E)).T)
    V = sign * R / alpha[cand, None]
    tol = tie * max(1e-300, float(np.abs(R).max())) / np.abs(alpha[cand])
    # a subset's spread in a column is at most the whole set's: only columns where the whole set
    # differs can decide
    for j in np.flatnonzero(V.max(axis=0) - V.min(axis=0) > tol.min()):
        v = V[:, j]
        keep = v <= (v + tol).min() + tol
        if not keep.all():
            cand, V, tol = cand[keep], V[keep], tol[keep]
            if len(cand) == 1:
                break
    if len(cand) == 1:
        return int(cand[0])
    raise SolverError("Lemke (floating point): the lexicographic ratio test found no unique row")


def lemke_path(
    G: sp.spmatrix,
    H: np.ndarray,
    complement: dict,
    free: set,
    z0: int,
    start: list,
    *,
    max_pivots: int | None = None,
    refactor: int = 50,
    tie: float = 1e-11,
    pivot_tol: float = 1e-9,
    progress: Callable[[str], None] | None = None,
) -> PathResult:
    """Follow Lemke's path of the mixed LCP ``G v = H`` (``seqform.exact.lemke``'s problem and
    rules) in floating point and return the final basis.

    Parameters
    ----------
    G : sparse matrix, shape (N, V)
        The equations' coefficients.
    H : ndarray, shape (N,) or (N, K)
        The right-hand side, or K columns compared lexicographically (column 0 first).
    complement, free, z0, start
        As for ``seqform.exact.lemke.lemke``.
    refactor : int
        Pivots between fresh LU factorizations of the basis.
    tie : float
        Relative tolerance under which two ratios count as equal.
    pivot_tol : float
        Entries of the entering column at most this (after scaling every column and row of ``G``
        to largest entry 1) count as zero in the ratio test.

    Returns
    -------
    PathResult
    """
    say = progress or (lambda msg: None)
    G = sp.csc_matrix(G, dtype=float)
    N, V = G.shape
    H = np.asarray(H, dtype=float).reshape(N, -1)
    # scale every column, then every row, to largest entry 1: a positive scale of a variable or of
    # an equation changes no ratio test's order, and absolute tolerances then mean the same
    # everywhere (the covering column and the payoffs span many orders of magnitude)
    cmax = np.maximum(abs(G).max(axis=0).toarray().ravel(), 1e-300)
    G = (G @ sp.diags(1.0 / cmax)).tocsr()
    rmax = np.maximum(abs(G).max(axis=1).toarray().ravel(), 1e-300)
    G = (sp.diags(1.0 / rmax) @ G).tocsc()
    H = H / rmax[:, None]
    if len(start) != N or len(set(start)) != N:
        raise SolverError(f"Lemke: the starting basis must name {N} distinct variables, got {len(set(start))}")
    B0 = G[:, list(start)].tocsc()
    # two more right-hand sides B0 r, r random positive: the perturbation h + eps B0 r keeps the
    # start feasible and, generically, breaks every tie the lexicographic rule would need whole
    # rows of B^{-1} B0 for; they ride along in X at the cost of two columns, and rows of
    # B^{-1} B0 are computed only where these too tie
    perturb = np.random.default_rng(1).uniform(1.0, 2.0, size=(N, 2))
    basis = _RevisedBasis(G, start, np.hstack([H, B0 @ perturb]))
    constrained = np.array([v not in free for v in start])
    zc = basis.column(z0)
    grows = np.flatnonzero(constrained & (zc < -pivot_tol))
    if np.any(constrained & (zc > pivot_tol)):
        raise SolverError("Lemke: the starting basis is not feasible for large z0")
    # rows z0 does not move keep their start values whatever z0 (a best response to the prior
    # that ties, broken the wrong way for the opponent's actual plan): as in the exact algorithm
    still = constrained & (np.abs(zc) <= pivot_tol)
    if not _lex_nonnegative(basis.X[still][:, :-2], tie):
        raise SolverError("Lemke: the starting basis is infeasible whatever z0")
    if _lex_nonnegative(basis.X[constrained][:, :-2], tie):  # the start solves the LCP already
        return PathResult(list(basis.basis), 0, basis.refactorizations)
    r = _lex_pick(basis, grows, zc, B0, tie, minimise=False)
    leaving = basis.basis[r]
    basis.pivot(r, z0, zc)
    limit = max_pivots if max_pivots is not None else 50 * N + 1000
    steps = 0
    # a basis seen before means rounding broke the lexicographic rule (exact Lemke never
    # repeats one): a Zobrist hash of the basic set finds it in O(1) per pivot
    keys = np.random.default_rng(0).integers(1, 2**63 - 1, size=V, dtype=np.int64)
    code = int(np.bitwise_xor.reduce(keys[basis.basis]))
    seen = {code}
    while True:
        entering = complement.get(leaving)
        if entering is None:
            raise SolverError(f"Lemke: variable {leaving} left and has no complement")
        alpha = basis.column(entering)
        rows = np.flatnonzero(constrained & (alpha > pivot_tol))
        if not len(rows):
            raise SolverError("Lemke (floating point) ended on a secondary ray")
        r = _lex_pick(basis, rows, alpha, B0, tie, minimise=True)
        leaving = basis.basis[r]
        basis.pivot(r, entering, alpha)
        steps += 1
        code ^= int(keys[leaving]) ^ int(keys[entering])
        if code in seen:
            raise SolverError(f"Lemke (floating point): a basis repeated after {steps:,} pivots (rounding)")
        seen.add(code)
        if len(basis.etas) >= refactor:
            basis.refactor()
        if steps % 500 == 0:
            say(f"Lemke (floating point): {steps:,} pivots")
        if leaving == z0:
            break
        if steps >= limit:
            raise SolverError(f"Lemke: no solution after {steps:,} pivots")
    return PathResult(list(basis.basis), steps, basis.refactorizations)


__all__ = ["lemke_path", "PathResult"]

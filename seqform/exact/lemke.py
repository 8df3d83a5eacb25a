"""Lemke's complementary pivoting in exact integer arithmetic, for mixed linear complementarity
problems with free variables.

The problem is a system of ``N`` linear equations ``G v = h`` in ``V`` variables ``v``, integer
coefficients, with:

* complementary pairs ``(i, j)``: ``v_i >= 0``, ``v_j >= 0``, ``v_i v_j = 0``;
* free variables (no sign), which stay basic once basic;
* one artificial variable ``z0 >= 0``, whose column is the covering vector.

Given a starting basis ``B0`` (``N`` variables, nonsingular, every pair with one member basic,
``z0`` not in it) that is feasible for every large enough ``z0``, the algorithm (Lemke 1965, as
Koller, Megiddo & von Stengel 1996 apply it to the sequence form) first brings ``z0`` in at the
smallest feasible value, then repeats: the complement of the variable that just left enters, and
the minimum-ratio test picks the one that leaves, until ``z0`` leaves (a solution) or nothing
blocks the entering variable (a secondary ray: failure, ``SolverError``).

Arithmetic: integer pivoting (Edmonds 1967; Bareiss): the tableau holds ``d B^{-1} [G | h]`` in
Python integers, ``d = |det B|``, and a pivot on ``(r, c)`` replaces every other row ``i`` by
``(T[r,c] T[i] - T[i,c] T[r]) / d_old``, an exact division. The pivot row is negated first when
its pivot is negative, so ``d`` stays positive. Nothing is rounded.

Degeneracy: lexicographic ratio tests against the columns of the starting basis (the
perturbation ``h + B0 (eps, eps^2, ...)``), so no basis repeats and the path is unique.

References:

- Lemke (1965), "Bimatrix equilibrium points and mathematical programming", Management Science.
- Koller, Megiddo & von Stengel (1996), "Efficient computation of equilibria for extensive two-person games", Games and
  Economic Behavior.
- Edmonds (1967), "Systems of distinct representatives and linear algebra", Journal of Research of the National Bureau
  of Standards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from seqform.errors import SolverError


@dataclass
class LemkeResult:
    """``values``: every variable's exact value (Fractions, length V); ``basis``: the final
    basic variable of each row; ``pivots``: complementary pivots after the start; ``setup_pivots``:
    the pivots that built the starting basis; ``columns``: the values for each right-hand side
    (``columns[0]`` is ``values``); ``raw``: for a tableau over ``EpsPoly``, ``(numerators, d)``
    (each variable's value is ``numerators[v] / d``, rational functions of eps)."""

    values: list[Fraction]
    basis: list[int]
    pivots: int
    setup_pivots: int
    columns: list[list[Fraction]] | None = None
    raw: tuple | None = None


class _Tableau:
    """``d B^{-1} [G | h]`` in Python integers (numpy object array), ``basis[row]``."""

    def __init__(self, G: np.ndarray, H: np.ndarray):
        self.T = np.concatenate([G.astype(object), H.astype(object)], axis=1)
        self.K = H.shape[1]
        # a tableau over polynomials in eps (``seqform.exact.epspoly``) has polynomial right-hand sides
        self.poly = not all(isinstance(v, (int, np.integer)) for v in H.ravel())
        self.d = 1
        self.basis = [-1] * G.shape[0]
        self.pivots = 0

    def pivot(self, r: int, c: int) -> None:
        T = self.T
        if T[r, c] < 0:
            T[r] = -T[r]
        pr = T[r].copy()
        a = pr[c]
        col = T[:, c].copy()
        col[r] = 0
        nz = np.flatnonzero((col != 0).astype(bool))
        rest = T[nz] * a - np.outer(col[nz], pr)  # divisible by d only as a whole
        if a != self.d:  # rows with a zero in the pivot column are multiplied by a / d: exact as well
            T[:] = (T * a) // self.d
        if len(nz):
            T[nz] = rest // self.d
        T[r] = pr
        self.d = a
        self.basis[r] = c
        self.pivots += 1

    def result(self, num_vars: int, pivots: int, setup: int) -> LemkeResult:
        """Every variable's value in the current basis (nonbasic ones 0), per right-hand side:
        Fractions for an integer tableau; for an ``EpsPoly`` one, ``raw`` holds each variable's
        numerator (0 if nonbasic) and the common denominator ``d`` instead."""
        if self.poly:
            nums = [0] * num_vars
            for r, v in enumerate(self.basis):
                nums[v] = self.T[r, -1]
            return LemkeResult([], list(self.basis), pivots, setup, None, (nums, self.d))
        columns = [[Fraction(0)] * num_vars for _ in range(self.K)]
        for r, v in enumerate(self.basis):
            for k in range(self.K):
                columns[k][v] = Fraction(int(self.T[r, k - self.K]), int(self.d))
        return LemkeResult(columns[0], list(self.basis), pivots, setup, columns)


def _size(v):
    """How large a pivot is, to prefer small ones: ``|v|`` for an integer; for a polynomial in eps,
    its degree, then its largest coefficient."""
    if isinstance(v, int) or isinstance(v, np.integer):
        return (0, abs(int(v)))
    c = v.coefficients()
    return (len(c), max(abs(x) for x in c))


def _lex_nonnegative(T: np.ndarray, rows: np.ndarray, K: int) -> np.ndarray:
    """For each of ``rows``, whether its right-hand-side entries (the last ``K`` columns) are
    lexicographically >= 0."""
    out = np.ones(len(rows), dtype=bool)
    undecided = np.ones(len(rows), dtype=bool)
    for k in range(-K, 0):
        col = T[rows, k]
        out &= ~(undecided & (col < 0).astype(bool))
        undecided &= (col == 0).astype(bool)
    return out


def _lex_pick(T: np.ndarray, rows: np.ndarray, col: np.ndarray, lex_cols: list, minimise: bool, K: int = 1) -> int:
    """Among ``rows``, the row whose vector ``(H_i, T[i, lex_cols]...) / col_i`` (``H``: the last
    ``K`` columns) is lexicographically smallest (``minimise``) or largest; ``col_i`` are nonzero
    and of one sign. Ratios are compared by cross-multiplication (``a/b < c/d`` iff ``a d < c b``
    when ``b d > 0``), which works for integers and for ``EpsPoly`` entries alike."""
    cand = list(rows)
    for k in list(range(-K, 0)) + list(lex_cols):
        if len(cand) == 1:
            break
        best = cand[0]
        for i in cand[1:]:
            lhs, rhs = T[i, k] * col[best], T[best, k] * col[i]
            if (lhs < rhs) if minimise else (lhs > rhs):
                best = i
        cand = [i for i in cand if T[i, k] * col[best] == T[best, k] * col[i]]
    if len(cand) != 1:  # the starting basis's columns are independent: cannot happen
        raise SolverError("Lemke: the lexicographic ratio test found no unique row")
    return cand[0]


def lemke(
    G: np.ndarray,
    h: np.ndarray,
    complement: dict,
    free: set,
    z0: int,
    start: list,
    *,
    max_pivots: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> LemkeResult:
    """Solve the mixed LCP (module docstring) by Lemke's algorithm, exactly.

    Parameters
    ----------
    G : ndarray of int, shape (N, V)
        The equations' coefficients (Python or numpy integers).
    h : ndarray of int, shape (N,) or (N, K)
        Their right-hand sides, or ``K`` right-hand sides compared lexicographically: the
        coefficients of a right-hand side polynomial in a symbolic ``eps`` (column ``k``: of
        ``eps^k``), so that the path is the one for every small enough ``eps > 0``.
    complement : dict
        Variable index -> its complementary variable's index (both directions).
    free : set
        The free variables (each must be in ``start``).
    z0 : int
        The artificial variable's index; its column is the covering vector.
    start : list of int
        The starting basis: ``N`` variables, nonsingular, feasible for large ``z0``.
    max_pivots : int, optional
        Stop with ``SolverError`` after this many complementary pivots (default 50 N + 1000).

    Returns
    -------
    LemkeResult
    """
    say = progress or (lambda msg: None)
    N, V = G.shape
    if len(start) != N or len(set(start)) != N:
        raise SolverError(f"Lemke: the starting basis must name {N} distinct variables, got {len(set(start))}")
    H = np.asarray(h, dtype=object).reshape(N, -1)
    K = H.shape[1]
    tab = _Tableau(G, H)
    T = tab.T
    # the starting basis, by Gauss-Jordan elimination in integers
    assigned = np.zeros(N, dtype=bool)
    for c in start:
        nz = np.flatnonzero((T[:, c] != 0).astype(bool) & ~assigned)
        if not len(nz):
            raise SolverError("Lemke: the starting basis is singular")
        # the smallest pivot keeps the determinant, and so every entry, small (+-1 where the
        # structure allows: the sequence-form constraints are +-1)
        r = int(nz[min(range(len(nz)), key=lambda k: _size(T[nz[k], c]))])
        if T[r, c] == tab.d and np.count_nonzero((T[:, c] != 0).astype(bool)) == 1:
            tab.basis[r] = c  # already the unit column d e_r: pivoting would change nothing
        else:
            tab.pivot(r, c)
        assigned[r] = True
    setup = tab.pivots  # the setup's arithmetic pivots (unit columns cost none)
    lex_cols = list(start)
    # free variables are basic from the start and never leave (no ratio test picks their rows),
    # so the rows with a sign-constrained basic variable stay the same all along
    constrained = np.array([v not in free for v in tab.basis])
    # bring z0 in at the smallest value that keeps every constrained basic variable >= 0:
    # value_i = (h_i - T[i, z0] z0) / d
    zc = T[:, z0]
    grows = np.flatnonzero(constrained & (zc < 0).astype(bool))
    bad = np.flatnonzero(constrained & (zc > 0).astype(bool))
    if len(bad):
        raise SolverError("Lemke: the starting basis is not feasible for large z0")
    still = np.flatnonzero(constrained & (zc == 0).astype(bool))
    if not np.all(_lex_nonnegative(T, still, K)):
        raise SolverError("Lemke: the starting basis is infeasible whatever z0")
    if np.all(_lex_nonnegative(T, np.flatnonzero(constrained), K)):  # the start is a solution already
        return tab.result(V, 0, setup)
    r = _lex_pick(T, grows, zc, lex_cols, minimise=False, K=K)
    leaving = tab.basis[r]
    tab.pivot(r, z0)
    limit = max_pivots if max_pivots is not None else 50 * N + 1000
    steps = 0
    while True:
        entering = complement.get(leaving)
        if entering is None:
            raise SolverError(f"Lemke: variable {leaving} left and has no complement")
        col = T[:, entering]
        rows = np.flatnonzero(constrained & (col > 0).astype(bool))
        if not len(rows):
            raise SolverError("Lemke ended on a secondary ray: no solution found along its path")
        r = _lex_pick(T, rows, col, lex_cols, minimise=True, K=K)
        leaving = tab.basis[r]
        tab.pivot(r, entering)
        steps += 1
        if steps % 100 == 0:
            say(f"Lemke: {steps:,} pivots")
        if leaving == z0:
            break
        if steps >= limit:
            raise SolverError(f"Lemke: no solution after {steps:,} pivots")
    return tab.result(V, steps, setup)


__all__ = ["lemke", "LemkeResult"]

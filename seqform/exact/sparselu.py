"""Exact solution of a sparse square linear system over the rationals (python-flint ``fmpq``).

The certificate solves an LP's basis system ``B z = r`` with it. Sequence-form bases are very
sparse and nearly triangular (treeplex flow constraints), so sparse Gaussian elimination with a
Markowitz-style pivot order (the column with the fewest entries, then its shortest row) keeps
fill-in small: on Leduc's optimal basis (1,163 unknowns, 4,450 nonzeros) the eliminated system
has about 7,000 nonzeros and the solve takes ~0.1 s, ten times faster than FLINT's dense Dixon
solve of the same system. Everything is exact; nothing is rounded.
"""

from __future__ import annotations

import heapq

import flint

from seqform.errors import CertificateError, SeqformError


class TooLarge(SeqformError):
    """Elimination would exceed the caller's limit on stored nonzeros."""

    def __init__(self, nnz: int, limit: int):
        super().__init__(f"exact elimination needs more than {limit:,} nonzeros (reached {nnz:,})")
        self.nnz, self.limit = nnz, limit


class SparseLU:
    """An exact sparse LU factorization of a square nonsingular system, reusable for many right-hand
    sides (the trembling LP of ``refinements`` solves one basis for every term of a power series).

    ``rows``: one dict ``{col: fmpq}`` per equation. Elimination follows the Markowitz-style order
    described in the module docstring; ``limit`` bounds the stored nonzeros (``TooLarge`` past it).
    ``CertificateError`` if the system is not square, or singular unless ``allow_singular``: then
    the factorization is rank-revealing: ``free_cols`` are the columns left without a pivot (one
    null vector each, ``null_vector``) and ``free_rows`` the equations that became zero (the
    right-hand side must vanish on them after elimination, ``residuals``).
    """

    def __init__(self, rows: list, ncols: int, limit: int = 2_000_000, allow_singular: bool = False):
        n = len(rows)
        if n != ncols:
            raise CertificateError(f"basis system is not square: {n} equations, {ncols} unknowns")
        rows = [dict(r) for r in rows]
        cols: list = [set() for _ in range(ncols)]
        for i, r in enumerate(rows):
            for c in r:
                cols[c].add(i)
        nnz = sum(len(r) for r in rows)
        heap = [(len(cols[c]), c) for c in range(ncols)]
        heapq.heapify(heap)
        done = [False] * ncols
        order: list = []
        # the row operations, in order, so that any right-hand side can replay them
        ops: list = []
        free: list = []
        while heap:
            cnt, c = heapq.heappop(heap)
            if done[c] or cnt != len(cols[c]):
                continue  # a stale heap entry
            if cnt == 0:
                if not allow_singular:
                    raise CertificateError("basis system is singular")
                done[c] = True
                free.append(c)
                continue
            r = min(cols[c], key=lambda i: len(rows[i]))
            prow = rows[r]
            piv = prow[c]
            done[c] = True
            order.append((r, c))
            for c2 in prow:
                cols[c2].discard(r)
            others = list(cols[c])
            # only the pivot row's columns change counts (fill-in, cancellation, the pivot row
            # leaving): re-queue just those, or the heap fills with stale entries
            touched = list(prow)
            for i in others:
                row = rows[i]
                fac = row.pop(c) / piv
                for c2, a in prow.items():
                    if c2 == c:
                        continue
                    v = row.get(c2)
                    if v is None:
                        row[c2] = -fac * a
                        cols[c2].add(i)
                        nnz += 1
                    else:
                        v -= fac * a
                        if v == 0:
                            del row[c2]
                            cols[c2].discard(i)
                        else:
                            row[c2] = v
                ops.append((i, r, fac))
            cols[c] = set()
            if nnz > limit:
                raise TooLarge(nnz, limit)
            for c2 in touched:
                if not done[c2]:
                    heapq.heappush(heap, (len(cols[c2]), c2))
        if len(order) + len(free) != ncols:
            raise CertificateError("basis system is singular")
        self.n = ncols
        self.free_cols = free
        pivoted = {r for r, _ in order}
        self.free_rows = [i for i in range(n) if i not in pivoted]
        self._ops = ops
        # back substitution in reverse pivot order: (pivot row's off-pivot entries, pivot, row, col)
        self._back = [([(c2, a) for c2, a in rows[r].items() if c2 != c], rows[r][c], r, c) for r, c in reversed(order)]

    def eliminate(self, rhs: list) -> list:
        """The right-hand side after the elimination's row operations (its entries on
        ``free_rows`` are the residuals a solution needs to vanish)."""
        if len(rhs) != self.n:
            raise CertificateError(f"right-hand side has {len(rhs)} entries for {self.n} equations")
        b = list(rhs)
        for i, r, fac in self._ops:
            br = b[r]
            if br:
                b[i] -= fac * br
        return b

    def residuals(self, rhs: list) -> list:
        """The left-null functionals of the system applied to ``rhs`` (one per free row)."""
        b = self.eliminate(rhs)
        return [b[i] for i in self.free_rows]

    def null_vector(self, f: int) -> list:
        """The null vector with 1 at free column ``f`` and 0 at the other free columns."""
        return self.solve([flint.fmpq(0)] * self.n, {f: flint.fmpq(1)}, check=False)

    def _forward_transpose(self, rhs: list, free_values: dict | None) -> tuple:
        """Forward substitution with ``U^T`` in pivot order: (m, leftover at the free columns)."""
        if len(rhs) != self.n:
            raise CertificateError(f"right-hand side has {len(rhs)} entries for {self.n} equations")
        acc = list(rhs)
        m: list = [flint.fmpq(0)] * self.n
        for r, v in (free_values or {}).items():
            m[r] = v  # free rows are empty after elimination: they feed no column
        for off, piv, r, c in reversed(self._back):
            v = acc[c] / piv
            m[r] = v
            if v:
                for c2, a in off:
                    acc[c2] -= a * v
        return m, [acc[c] for c in self.free_cols]

    def _replay_transposed(self, m: list) -> list:
        for i, r, fac in reversed(self._ops):
            mi = m[i]
            if mi:
                m[r] -= fac * mi
        return m

    def solve_transpose(self, rhs: list, free_values: dict | None = None, check: bool = True) -> list:
        """``p`` with ``sum_r rows[r][c] * p[r] = rhs[c]`` for every c: the transposed system, from
        the same factors. With ``E rows = U`` the elimination, solve ``U^T m = rhs`` forward in
        pivot order, then ``p = E^T m`` by the row operations replayed backwards and transposed.
        On a singular system the free rows' ``m`` take ``free_values`` (default 0) and ``check``
        requires the leftover at the free columns to vanish."""
        m, left = self._forward_transpose(rhs, free_values)
        if check and any(left):
            raise CertificateError("singular system with an inconsistent right-hand side")
        return self._replay_transposed(m)

    def solve_residuals_transpose(self, rhs: list) -> tuple:
        """``solve_residuals`` for the transposed system."""
        m, left = self._forward_transpose(rhs, None)
        return self._replay_transposed(m), left

    def residuals_transpose(self, rhs: list) -> list:
        """The transposed system's consistency functionals at ``rhs`` (one per free column)."""
        return self._forward_transpose(rhs, None)[1]

    def null_vector_transpose(self, r: int) -> list:
        """The transposed system's null vector for free row ``r``: ``E^T e_r``."""
        m = [flint.fmpq(0)] * self.n
        m[r] = flint.fmpq(1)
        return self._replay_transposed(m)

    def transposed(self) -> TransposedLU:
        """A view that solves the transposed system with this factorization."""
        return TransposedLU(self)

    def solve_residuals(self, rhs: list) -> tuple:
        """``(z, residuals)`` in one pass: the solution with free columns at 0, unchecked, and the
        consistency residuals (both linear in ``rhs``)."""
        b = self.eliminate(rhs)
        return self._back_substitute(b, None), [b[i] for i in self.free_rows]

    def solve(self, rhs: list, free_values: dict | None = None, check: bool = True) -> list:
        """``z`` with ``sum_c rows[r][c] * z[c] = rhs[r]`` for every r (lists of ``fmpq``). On a
        singular system the free columns take ``free_values`` (default 0); ``check``: raise
        ``CertificateError`` if the right-hand side is inconsistent."""
        b = self.eliminate(rhs)
        if check and any(b[i] for i in self.free_rows):
            raise CertificateError("singular system with an inconsistent right-hand side")
        return self._back_substitute(b, free_values)

    def _back_substitute(self, b: list, free_values: dict | None) -> list:
        z: list = [None] * self.n
        zero = flint.fmpq(0)
        for c in self.free_cols:
            z[c] = (free_values or {}).get(c, zero)
        for off, piv, r, c in self._back:
            acc = b[r]
            for c2, a in off:
                zc = z[c2]
                if zc:
                    acc -= a * zc
            z[c] = acc / piv
        return z


class TransposedLU:
    """``SparseLU`` of ``M`` seen as a factorization of ``M^T``: the same interface (``solve``,
    ``solve_residuals``, ``residuals``, ``null_vector``, ``free_cols``, ``free_rows``), no second
    elimination."""

    def __init__(self, lu: SparseLU):
        self.lu = lu
        self.n = lu.n
        self.free_cols, self.free_rows = lu.free_rows, lu.free_cols

    def solve(self, rhs: list, free_values: dict | None = None, check: bool = True) -> list:
        return self.lu.solve_transpose(rhs, free_values, check)

    def residuals(self, rhs: list) -> list:
        return self.lu.residuals_transpose(rhs)

    def solve_residuals(self, rhs: list) -> tuple:
        return self.lu.solve_residuals_transpose(rhs)

    def null_vector(self, f: int) -> list:
        return self.lu.null_vector_transpose(f)


def solve_sparse(rows: list, rhs: list, ncols: int, limit: int = 2_000_000) -> list:
    """Solve ``sum_c rows[r][c] * z[c] = rhs[r]`` for every r, with ``rows`` dicts ``{col: fmpq}``.

    The system must be square and nonsingular. ``limit`` bounds the nonzeros stored during
    elimination (``TooLarge`` past it), so that a dense-filling system fails fast instead of
    running for hours. Returns ``z`` as a list of ``fmpq``. ``CertificateError`` if singular.
    """
    return SparseLU(rows, ncols, limit).solve(rhs)

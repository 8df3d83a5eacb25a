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

from .errors import CertificateError


class TooLarge(Exception):
    """Elimination would exceed the caller's limit on stored nonzeros."""

    def __init__(self, nnz: int, limit: int):
        super().__init__(f"exact elimination needs more than {limit:,} nonzeros (reached {nnz:,})")
        self.nnz, self.limit = nnz, limit


def solve_sparse(rows: list, rhs: list, ncols: int, limit: int = 2_000_000) -> list:
    """Solve ``sum_c rows[r][c] * z[c] = rhs[r]`` for every r, with ``rows`` dicts ``{col: fmpq}``.

    The system must be square and nonsingular. ``limit`` bounds the nonzeros stored during
    elimination (``TooLarge`` past it), so that a dense-filling system fails fast instead of
    running for hours. Returns ``z`` as a list of ``fmpq``. ``CertificateError`` if singular.
    """
    n = len(rows)
    if n != ncols:
        raise CertificateError(f"basis system is not square: {n} equations, {ncols} unknowns")
    rows = [dict(r) for r in rows]
    rhs = list(rhs)
    cols: list = [set() for _ in range(ncols)]
    for i, r in enumerate(rows):
        for c in r:
            cols[c].add(i)
    nnz = sum(len(r) for r in rows)
    heap = [(len(cols[c]), c) for c in range(ncols)]
    heapq.heapify(heap)
    done = [False] * ncols
    order: list = []
    while heap:
        cnt, c = heapq.heappop(heap)
        if done[c] or cnt != len(cols[c]):
            continue  # a stale heap entry
        if cnt == 0:
            raise CertificateError("basis system is singular")
        r = min(cols[c], key=lambda i: len(rows[i]))
        prow = rows[r]
        piv = prow[c]
        done[c] = True
        order.append((r, c))
        for c2 in prow:
            cols[c2].discard(r)
        others = list(cols[c])
        touched = set(prow)
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
            rhs[i] -= fac * rhs[r]
            touched.update(row)
        cols[c] = set()
        if nnz > limit:
            raise TooLarge(nnz, limit)
        for c2 in touched:
            if not done[c2]:
                heapq.heappush(heap, (len(cols[c2]), c2))
    if len(order) != ncols:
        raise CertificateError("basis system is singular")
    z: list = [None] * ncols
    for r, c in reversed(order):
        acc = rhs[r]
        row = rows[r]
        for c2, a in row.items():
            if c2 != c:
                acc -= a * z[c2]
        z[c] = acc / row[c]
    return z

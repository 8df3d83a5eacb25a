"""Realization plans and sequence-form payoffs as integers over one common denominator: the
arithmetic of the exact certificate (``seqform.exact.certificate``), vectorised with numpy.

A vector of rationals is held as ``Scaled(nums, den)``, ``v[k] = nums[k] / den`` with ``den > 0``
(``seqform.exact.rationals.common_denominator``). Then ``E x = e`` and ``x >= 0`` are integer
sums and signs, ``A^T x`` and ``A y`` are products with the payoff matrix's integer entries
(``seqform.lp.sequenceform.integer_payoff_entries``) summed per sequence, and a best response is
maxima and sums of integers (``seqform.exact.exactbestresponse.scaled_best_response_value``): a
positive common scale changes neither. The numerators are an int64 array while a bound on
every product and sum proves that nothing overflows, else an object array of Python ints
(exact at any size: a basic solution's entries share the basis determinant as denominator,
dozens of digits on Leduc). Plans whose denominators are so unrelated that their lcm passes
``MAX_COMMON_DENOMINATOR_BITS`` are kept as python-flint ``fmpq`` objects over ``den = 1``,
through the same numpy code.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import flint
import numpy as np

from seqform.exact.rationals import common_denominator, fmpq_of, fraction_of
from seqform.lp.sequenceform import IntegerEntries
from seqform.model.tree import Tree

#: a vector's common denominator is kept up to this many bits, past it the entries stay fmpq. A basic
#: solution's divides the basis determinant (167 bits on Leduc with 5 ranks); float plans rounded
#: probability by probability reach about 1,900 bits there, and their bracket is still twice as
#: fast in integers as in fmpq
MAX_COMMON_DENOMINATOR_BITS = 8192

#: int64 arithmetic is used while every intermediate result provably stays below this
_SAFE = 1 << 62


@dataclass(frozen=True, eq=False)
class Scaled:
    """Rationals ``nums[k] / den``: ``nums`` an int64 array, or an object array of Python ints
    (or of fmpq, with ``den == 1``); ``den`` a positive Python int."""

    nums: np.ndarray
    den: int

    def value(self, k: int) -> flint.fmpq:
        """Entry ``k`` as an fmpq."""
        return scaled_value(self.nums[k], self.den)

    def fmpqs(self) -> list:
        """All entries as fmpq."""
        return [scaled_value(v, self.den) for v in self.nums.tolist()]

    def fractions(self) -> list:
        """All entries as Fractions, one object per distinct value (a basic solution repeats a
        few hundred values over thousands of sequences; zero most of all)."""
        if not len(self.nums):
            return []
        if self.nums.dtype == object and self.den == 1:
            return [fraction_of(v) for v in self.nums.tolist()]  # fmpq entries (or ints)
        uniq, inv = np.unique(self.nums, return_inverse=True)
        table = np.empty(len(uniq), dtype=object)
        table[:] = [Fraction(int(v), self.den) for v in uniq.tolist()]
        return table[inv.reshape(-1)].tolist()


def scaled_value(num, den: int) -> flint.fmpq:
    """``num / den`` as an fmpq, for a numerator an int (numpy's included) or an fmpq."""
    if isinstance(num, flint.fmpq):
        return num / den
    return flint.fmpq(int(num), den)


def _array(values: list) -> np.ndarray:
    """Python ints as int64 when all are below ``_SAFE`` in magnitude, else as an object array."""
    if values and max(values) < _SAFE and min(values) > -_SAFE:
        return np.array(values, dtype=np.int64)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def scaled_vector(values) -> Scaled:
    """Exact rationals (ints, Fractions, fmpqs, or what ``Fraction`` accepts) as a ``Scaled``
    vector over their least common denominator, or as fmpqs over 1 when that denominator would
    exceed ``MAX_COMMON_DENOMINATOR_BITS``."""
    common = common_denominator(values, MAX_COMMON_DENOMINATOR_BITS)
    if common is None:
        out = np.empty(len(values), dtype=object)
        out[:] = [fmpq_of(v) for v in values]
        return Scaled(out, 1)
    return Scaled(_array(common[0]), common[1])


def _magnitude(a: np.ndarray) -> int:
    """The largest ``|a[k]|`` of an int64 array (0 when empty)."""
    return int(np.abs(a).max()) if len(a) else 0


def _widened(a: np.ndarray, factor: int = 1) -> np.ndarray:
    """``a`` as Python ints (an object array) when it is int64 and ``factor`` times its largest
    magnitude could reach 2^62 (``factor``: how many entries the caller's sums add up)."""
    if a.dtype == object or _magnitude(a) * factor < _SAFE:
        return a
    return a.astype(object)


def plan_problem(tree: Tree, p: int, x: Scaled) -> str:
    """Empty string if ``x`` is exactly a realization plan of player ``p`` (``x[empty] = 1``,
    ``x >= 0``, and at each information set the actions' sum equals the parent sequence's
    entry), else what is wrong: the first violation, in that order of checks and of the
    player's information sets."""
    n = int(tree.num_sequences[p])
    X = x.nums
    if len(X) != n:
        return f"player {p}'s plan has {len(X)} entries for {n} sequences"
    if X[0] != x.den:
        return f"player {p}'s plan has x[empty] = {x.value(0)}, not 1"
    neg = np.flatnonzero(X < 0)
    if len(neg):
        return f"player {p}'s plan is negative ({x.value(int(neg[0]))}) at sequence {int(neg[0])}"
    ids = tree.player_infosets[p]
    if not len(ids):
        return ""
    # the sequences 1..n-1 are the actions of the player's information sets, each set's in one
    # run: sorted by their first sequence, the sets cut 1..n-1 into consecutive segments
    first = tree.infoset_first_seq[ids]
    order = np.argsort(first, kind="stable")
    sums = np.add.reduceat(_widened(X[1:], n), first[order] - 1)
    bad = np.zeros(len(ids), dtype=bool)
    bad[order] = sums != X[tree.infoset_parent_seq[ids[order]]]
    hit = np.flatnonzero(bad)
    if len(hit):
        return f"player {p}'s plan does not conserve flow at {tree.infoset_label(int(ids[hit[0]]))}"
    return ""


class ScaledMatrix:
    """A sparse matrix ``M[rows[k], cols[k]] = nums[k] / den`` (``IntegerEntries``), shape
    ``(m, n)``, with its entries sorted once by row and once by column, for exact products with
    ``Scaled`` vectors."""

    def __init__(self, entries: IntegerEntries, shape: tuple[int, int]):
        self.entries = entries
        self.shape = shape

    @cached_property
    def _by_row(self) -> tuple:
        e = self.entries
        return _segments(e.rows, e.cols, e.nums)

    @cached_property
    def _by_col(self) -> tuple:
        e = self.entries
        return _segments(e.cols, e.rows, e.nums)

    def times(self, y: Scaled) -> Scaled:
        """``M y`` exactly (over ``den * y.den``), shape (m,)."""
        return _product(self._by_row, y, self.shape[0], self.entries.den)

    def transpose_times(self, x: Scaled) -> Scaled:
        """``M^T x`` exactly (over ``den * x.den``), shape (n,)."""
        return _product(self._by_col, x, self.shape[1], self.entries.den)


def _segments(keys: np.ndarray, others: np.ndarray, nums: np.ndarray) -> tuple:
    """Entries sorted by ``keys``: (distinct keys, segment starts, the others, the numerators,
    the longest segment)."""
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1]))) if len(k) else np.zeros(0, dtype=np.int64)
    longest = int(np.diff(np.append(starts, len(k))).max()) if len(k) else 0
    return k[starts], starts, others[order], nums[order], longest


def _product(seg: tuple, v: Scaled, size: int, den: int) -> Scaled:
    """The matrix (``_segments``) times ``v``, summed per key, as a vector of ``size`` over ``den * v.den``."""
    keys, starts, others, nums, longest = seg
    if not len(keys):
        return Scaled(np.zeros(size, dtype=np.int64), den * v.den)
    fac = v.nums[others]
    if nums.dtype != object and fac.dtype != object and _magnitude(nums) * _magnitude(fac) * longest >= _SAFE:
        nums = nums.astype(object)  # int64 could overflow: Python ints
    sums = np.add.reduceat(nums * fac, starts)
    out = np.zeros(size, dtype=sums.dtype)
    out[keys] = sums
    return Scaled(out, den * v.den)

"""Exact numbers: the conversions between floats, ``fractions.Fraction`` and python-flint's
``fmpq``, and the one rounding policy for floats that stand for rationals.

Three ways a float becomes exact, and no others:

* **at its binary value** (``to_fraction``): what the float *is*; used when a user's float
  strategy is evaluated exactly (nothing is assumed about where it came from);
* **rounded** (``nearest_rational``): the simplest rational within a denominator bound (continued
  fractions, ``Fraction.limit_denominator``); used where a float *stands for* a rational: an LP's
  float strategies before an exact bracket (denominator 2^20), OpenSpiel's float probabilities
  and returns (10^9, and only within 1e-12), an EFCE distribution (10^6), column generation's
  float distribution when its basis has no exact solution (``rounded_distribution``: 10^9, then
  scaled to sum to exactly 1), and a weight typed in decimal (``decimal_rational``: 10^12);
* **over a known denominator** (``exact_numerator``): a float computed, in floating point, from
  rationals whose common denominator D is known (sums of chance x payoff products) is x D
  rounded to the nearest integer, over D; refused when x D is further than a relative 1e-6 from
  that integer (then the float is not what the caller believed, and nothing is made up).

And one exact representation for vectors of rationals: ``common_denominator`` writes them as
integer numerators over their least common denominator, so that sums, products and comparisons
become integer arithmetic (the certificate's vectorised checks, ``seqform.exact.integerplans``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from seqform.errors import SolverError


def fmpq_of(v) -> flint.fmpq:
    """An exact ``flint.fmpq`` from an int, Fraction or fmpq."""
    if isinstance(v, flint.fmpq):
        return v
    if isinstance(v, int):
        return flint.fmpq(v)
    if not isinstance(v, Fraction):
        v = Fraction(v)
    return flint.fmpq(v.numerator, v.denominator)


def fraction_of(v) -> Fraction:
    """A ``fractions.Fraction`` from an fmpq (or anything Fraction accepts)."""
    if isinstance(v, flint.fmpq):
        return Fraction(int(v.p), int(v.q))
    return Fraction(v)


def to_fraction(v) -> Fraction:
    """An exact Fraction of an int, Fraction, fmpq or float (a float at its binary value)."""
    if isinstance(v, flint.fmpq):
        return fraction_of(v)
    if isinstance(v, (float, np.floating)):
        return Fraction(float(v))
    return Fraction(v)


def to_fractions(b) -> list:
    """``to_fraction`` of every entry of ``b``."""
    return [to_fraction(v) for v in b]


def nearest_rational(x: float, max_denominator: int) -> Fraction:
    """The rational closest to the float ``x`` among those with denominator at most
    ``max_denominator`` (``Fraction(x).limit_denominator``): the one rounding policy."""
    return Fraction(float(x)).limit_denominator(max_denominator)


def convergent_within(c: Fraction, radius: Fraction) -> Fraction:
    """The first continued-fraction convergent of the exact rational ``c`` within ``radius`` of it
    (integer arithmetic): rational reconstruction from an exact approximation, the rounding policy
    of exact rationals as ``nearest_rational`` is that of floats. A convergent ``p_k / q_k`` is
    within ``1 / (q_k^2 a_{k+1})`` of ``c``, so only those followed by a large partial quotient
    ``a_{k+1}`` (or the last) are tested exactly."""
    a, b = c.numerator, c.denominator
    rn, rd = radius.numerator, radius.denominator
    p0, q0, p1, q1 = 0, 1, 1, 0
    while b:
        t, r = divmod(a, b)
        p0, p1 = p1, t * p1 + p0
        q0, q1 = q1, t * q1 + q0
        a, b = b, r
        if (not b or a // b >= 1 << 16) and abs(c.numerator * q1 - p1 * c.denominator) * rd <= (
            rn * c.denominator * q1
        ):
            return Fraction(p1, q1)
    return c


#: ``decimal_rational``'s denominator bound: any decimal with up to 12 places (of modest size) is
#: recovered exactly, since another rational with denominator at most 10^12 lies at least 1e-13
#: from it, far beyond a double's rounding
DECIMAL_DENOMINATOR = 10**12

#: ``rounded_distribution``'s denominator bound (column generation's fallback, whose
#: distribution is verified exactly afterwards, whatever the rounding did)
DISTRIBUTION_DENOMINATOR = 10**9


def decimal_rational(x: float) -> Fraction:
    """The rational a float typed in decimal stands for (a utility weight such as 0.1): the
    simplest rational within ``DECIMAL_DENOMINATOR`` of ``x`` (``nearest_rational``)."""
    return nearest_rational(x, DECIMAL_DENOMINATOR)


def rounded_distribution(x) -> list:
    """Nonnegative floats ``x`` (n,) that stand for a probability distribution, as Fractions
    summing to exactly 1: each x_k / sum(x) rounded by ``nearest_rational`` within
    ``DISTRIBUTION_DENOMINATOR``, then all divided by their exact sum (the rounding moves it off
    1 by up to n / 10^9). ``x`` must have a positive sum."""
    x = np.asarray(x, dtype=float)
    p = [nearest_rational(v, DISTRIBUTION_DENOMINATOR) for v in x / x.sum()]
    total = sum(p)
    return [v / total for v in p]


def exact_numerator(x: float, denominator: int, rel_tol: float = 1e-6) -> int:
    """x D as the integer it stands for, for a float ``x`` computed from rationals whose common
    denominator D = ``denominator`` is known (so that x is exactly that integer over D, up to
    floating-point rounding): x D rounded to the nearest integer. ``SolverError`` when x D lies
    further than ``rel_tol`` (relative, and at least absolute) from every integer: x is then not
    a multiple of 1/D, and the caller's exact arithmetic cannot start from it."""
    v = x * denominator
    n = round(v)
    if abs(v - n) > rel_tol * max(1.0, abs(v)):
        raise SolverError(f"a statistic {x!r} is not a multiple of 1/{denominator}")
    return int(n)


def numerator_denominator(v) -> tuple[int, int]:
    """``(p, q)``, Python ints with ``v == p / q`` and ``q > 0`` in lowest terms, for an int,
    Fraction or fmpq (anything else through ``Fraction``: a float at its binary value)."""
    t = type(v)
    if t is Fraction:
        return v.numerator, v.denominator
    if t is int:
        return v, 1
    if t is flint.fmpq:
        return int(v.p), int(v.q)
    if not isinstance(v, Fraction):
        v = Fraction(v)
    return int(v.numerator), int(v.denominator)


def common_denominator(values, max_bits: int | None = None) -> tuple[list[int], int] | None:
    """The rationals ``values`` (a sequence of ints, Fractions or fmpqs, as ``numerator_denominator``
    takes) as integer numerators over one denominator: ``(nums, D)`` with ``values[k] == nums[k] / D``
    exactly, D the least common multiple of their denominators. ``None`` when D would have more
    than ``max_bits`` bits (the lcm of many unrelated denominators: its numerators would all be
    that long, and the caller is better off with the rationals themselves)."""
    pairs = [numerator_denominator(v) for v in values]
    dens = {q for _, q in pairs}
    D = 1
    for q in dens:
        D = math.lcm(D, q)
        if max_bits is not None and D.bit_length() > max_bits:
            return None
    if D == 1:
        return [p for p, _ in pairs], 1
    scale = {q: D // q for q in dens}
    return [p * scale[q] for p, q in pairs], D


__all__ = [
    "fmpq_of",
    "numerator_denominator",
    "common_denominator",
    "fraction_of",
    "to_fraction",
    "to_fractions",
    "nearest_rational",
    "decimal_rational",
    "rounded_distribution",
    "exact_numerator",
    "DECIMAL_DENOMINATOR",
    "DISTRIBUTION_DENOMINATOR",
]


def rational_str(v) -> str:
    """``v`` (Fraction, fmpq or int) as "p/q" (or "p"), of any length: python-flint writes
    integers without the 4,300-digit limit Python puts on ``str(int)`` (the exact value of a
    game with payoffs near 10^300 can have more digits than that)."""
    q = fmpq_of(v)
    return str(q)

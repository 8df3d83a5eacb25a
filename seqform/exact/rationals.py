"""Exact numbers: the conversions between floats, ``fractions.Fraction`` and python-flint's
``fmpq``, and the one rounding policy for floats that stand for rationals.

Two ways a float becomes exact, and no others:

* **at its binary value** (``to_fraction``): what the float *is*; used when a user's float
  strategy is evaluated exactly (nothing is assumed about where it came from);
* **rounded** (``nearest_rational``): the simplest rational within a denominator bound (continued
  fractions, ``Fraction.limit_denominator``); used where a float *stands for* a rational: an LP's
  float strategies before an exact bracket (denominator 2^20), OpenSpiel's float probabilities
  and returns (10^9, and only within 1e-12), an EFCE distribution (10^6).
"""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np


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


__all__ = ["fmpq_of", "fraction_of", "to_fraction", "to_fractions", "nearest_rational"]


def rational_str(v) -> str:
    """``v`` (Fraction, fmpq or int) as "p/q" (or "p"), of any length: python-flint writes
    integers without the 4,300-digit limit Python puts on ``str(int)`` (the exact value of a
    game with payoffs near 10^300 can have more digits than that)."""
    q = fmpq_of(v)
    return str(q)

"""Real number fields (``seqform.exact.algebraic``): exact arithmetic and signs in Q(alpha), checked
against floating point away from ties and against exact identities; minimal polynomials and
isolating intervals checked by numpy's roots; the LLL guess of a minimal polynomial."""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np
import pytest
from flint import fmpq, fmpz_poly
from hypothesis import given, settings
from hypothesis import strategies as st

from seqform.exact.algebraic import (
    AlgebraicNumber,
    RealField,
    arb_fmpq,
    count_real_roots,
    isolate,
    minimal_polynomial_guess,
)


def sqrt_field(n: int) -> RealField:
    r = math.isqrt(n)
    return RealField(fmpz_poly([-n, 0, 1]), r, r + 1)


def test_arithmetic_identities_in_q_sqrt2():
    K = sqrt_field(2)
    a = K.alpha()
    assert a * a == 2  # exact, not to a tolerance
    x = 1 + a
    assert x * x == 3 + 2 * a
    assert (1 / x) == a - 1  # (1 + sqrt 2)(sqrt 2 - 1) = 1
    assert x.minimal_polynomial() == fmpz_poly([-1, -2, 1])
    assert abs(float(x) - (1 + math.sqrt(2))) < 1e-15


def test_signs_of_close_numbers_are_exact():
    # 99/70 is a convergent of sqrt 2, 5.1e-5 above it; 577/408 is 2.1e-6 above it
    K = sqrt_field(2)
    a = K.alpha()
    assert a < Fraction(99, 70) and a > Fraction(140, 99)
    assert a < fmpq(577, 408) and (a - fmpq(577, 408)).sign() == -1
    assert not (a - a) and (a - a).sign() == 0


@settings(max_examples=40, deadline=None)
@given(
    n=st.sampled_from([2, 3, 5, 6, 7, 10, 601]),
    c=st.lists(st.fractions(min_value=-20, max_value=20, max_denominator=30), min_size=4, max_size=4),
)
def test_field_operations_agree_with_floats(n, c):
    K = sqrt_field(n)
    a = K.alpha()
    r = math.sqrt(n)
    x, y = K([c[0], c[1]]), K([c[2], c[3]])
    fx, fy = float(c[0]) + float(c[1]) * r, float(c[2]) + float(c[3]) * r
    for got, want in ((x + y, fx + fy), (x - y, fx - fy), (x * y, fx * fy)):
        assert abs(float(got) - want) <= 1e-9 * (1 + abs(want))
    if y:
        assert (x / y) * y == x
    # the sign is exact: it equals the float's wherever the float is clearly away from zero
    if abs(fx - fy) > 1e-9:
        assert ((x > y) == (fx > fy)) and ((x < y) == (fx < fy))
    # the number users see: a root of its minimal polynomial, isolated by its interval
    if not x.is_rational():
        num = x.number()
        assert isinstance(num, AlgebraicNumber)
        roots = np.roots(list(reversed(num.minimal_polynomial)))
        real = [z.real for z in roots if abs(z.imag) < 1e-9]
        inside = [z for z in real if float(num.lo) < z < float(num.hi)]
        assert len(inside) == 1 and abs(inside[0] - fx) <= 1e-9 * (1 + abs(fx))
    assert a * a == n


def test_interval_must_isolate_one_root():
    with pytest.raises(ValueError, match="does not isolate"):
        RealField(fmpz_poly([-2, 0, 1]), -2, 2)  # both roots of x^2 - 2
    with pytest.raises(ValueError, match="not irreducible"):
        RealField(fmpz_poly([-4, 0, 1]), 1, 3)
    assert count_real_roots(flint.fmpq_poly([-2, 0, 1]), fmpq(-2), fmpq(2)) == 2


def test_lll_finds_minimal_polynomials():
    old = flint.ctx.prec
    flint.ctx.prec = 700
    try:
        x = arb_fmpq(flint.arb(2).sqrt() * 3 + flint.arb(5).sqrt())
        third = arb_fmpq(flint.arb(1) / 3)
    finally:
        flint.ctx.prec = old
    f = minimal_polynomial_guess(x, 640)
    assert f == fmpz_poly([169, 0, -46, 0, 1])  # (x^2 - 23)^2 - 360, from 3 sqrt 2 + sqrt 5
    assert minimal_polynomial_guess(third, 640) == fmpz_poly([-1, 3])
    K = isolate(f, x, 640)
    assert abs(float(K.alpha()) - (3 * math.sqrt(2) + math.sqrt(5))) < 1e-14
    # an approximation to few bits has no small relation: no guess
    assert minimal_polynomial_guess(fmpq(314159265358979, 10**14), 40, max_degree=4) is None


def test_closed_form_and_json():
    K = RealField(fmpz_poly([24, -53, 23]), fmpq(3, 5), fmpq(7, 10))
    num = K.alpha().number()
    assert num.closed_form() == "(53 - √601)/46"
    assert abs(num.approx - (53 - math.sqrt(601)) / 46) < 1e-15
    assert num.to_json()["minimal_polynomial"] == ["24", "-53", "23"]
    assert str(num).startswith("the root of 23x^2 - 53x + 24 in (")

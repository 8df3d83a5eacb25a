"""``seqform.exact.epspoly``: integer polynomials in eps ordered as their values for small eps > 0,
checked against exact evaluation at an eps small enough for the lowest term to dominate."""

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from seqform.exact.epspoly import EpsPoly

coeffs = st.lists(st.integers(-20, 20), min_size=1, max_size=5)


def value(c, eps):
    return sum(Fraction(a) * eps**k for k, a in enumerate(c))


@given(coeffs, coeffs)
def test_order_is_the_order_at_small_eps(a, b):
    # with integer coefficients at most C, the lowest nonzero term of a difference outweighs the
    # rest when eps < 1 / (2 C + 1)
    C = 2 * max(abs(v) for v in a + b) + 1
    eps = Fraction(1, 2 * C + 1)
    p, q = EpsPoly.of(a), EpsPoly.of(b)
    d = value(a, eps) - value(b, eps)
    assert (p < q) == (d < 0) and (p > q) == (d > 0) and (p == q) == (d == 0)
    assert value((p * q).coefficients() or [0], eps) == value(a, eps) * value(b, eps)
    assert value((p - q).coefficients() or [0], eps) == d


@given(coeffs, coeffs)
def test_exact_division_undoes_multiplication(a, b):
    p, q = EpsPoly.of(a), EpsPoly.of(b)
    if q.sign():
        assert (p * q) // q == p

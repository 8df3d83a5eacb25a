"""Polynomials in a symbolic tremble eps, ordered as their values for every small enough eps > 0.

``Z[eps]`` is an integral domain, so integer (fraction-free) pivoting works over it unchanged:
``seqform.exact.lemke`` pivots a tableau of ``EpsPoly`` entries exactly as one of integers, and
every division it makes is exact. The order is the one that matters for perturbed games: ``p > q``
when ``p(eps) > q(eps)`` for all small enough ``eps > 0``, i.e. when the lowest-order nonzero
coefficient of ``p - q`` is positive. A Lemke path taken in this order is the path of the
perturbed game for every small enough eps at once, and the basis it ends on is an equilibrium of
all of them.
"""

from __future__ import annotations

import flint


def _poly(v) -> flint.fmpz_poly:
    if isinstance(v, EpsPoly):
        return v.p
    if isinstance(v, flint.fmpz_poly):
        return v
    return flint.fmpz_poly([int(v)])


class EpsPoly:
    """An integer polynomial in eps (``flint.fmpz_poly``), with arithmetic, exact division
    (``//``, exact where the caller knows it is) and the order of small positive eps."""

    __slots__ = ("p",)

    def __init__(self, p):
        self.p = _poly(p)

    @classmethod
    def of(cls, coefficients) -> EpsPoly:
        """From integer coefficients, lowest power first."""
        return cls(flint.fmpz_poly([int(c) for c in coefficients]))

    def sign(self) -> int:
        """The sign of ``p(eps)`` for every small enough eps > 0."""
        for c in self.p.coeffs():
            if c:
                return 1 if c > 0 else -1
        return 0

    def order(self) -> int:
        """The lowest power with a nonzero coefficient (-1 for the zero polynomial)."""
        for k, c in enumerate(self.p.coeffs()):
            if c:
                return k
        return -1

    def coefficients(self) -> list:
        return [int(c) for c in self.p.coeffs()]

    def __add__(self, o):
        return EpsPoly(self.p + _poly(o))

    __radd__ = __add__

    def __sub__(self, o):
        return EpsPoly(self.p - _poly(o))

    def __rsub__(self, o):
        return EpsPoly(_poly(o) - self.p)

    def __mul__(self, o):
        return EpsPoly(self.p * _poly(o))

    __rmul__ = __mul__

    def __neg__(self):
        return EpsPoly(-self.p)

    def __floordiv__(self, o):
        return EpsPoly(self.p // _poly(o))

    def __rfloordiv__(self, o):
        return EpsPoly(_poly(o) // self.p)

    def _cmp(self, o) -> int:
        return (self - o).sign()

    def __lt__(self, o):
        return self._cmp(o) < 0

    def __le__(self, o):
        return self._cmp(o) <= 0

    def __gt__(self, o):
        return self._cmp(o) > 0

    def __ge__(self, o):
        return self._cmp(o) >= 0

    def __eq__(self, o):
        return self._cmp(o) == 0

    def __ne__(self, o):
        return self._cmp(o) != 0

    def __bool__(self):
        return self.sign() != 0

    # unhashable (compared by value); typeshed types object.__hash__ as a method, hence the ignore
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self):
        return f"EpsPoly({self.p})"


__all__ = ["EpsPoly"]

"""Rational functions of eps with rational coefficients (``flint.fmpq_poly`` numerator and
denominator, kept in lowest terms), the few operations the N-player limit needs: ring arithmetic
with each other and with rationals, the value at eps = 0, the sign for all small eps > 0, an eps0
below which that sign holds, and rational interpolation from exact values at rational points."""

from __future__ import annotations

from fractions import Fraction

import flint

_P = flint.fmpq_poly


def _poly(v) -> flint.fmpq_poly:
    if isinstance(v, flint.fmpq_poly):
        return v
    f = Fraction(v) if not isinstance(v, flint.fmpq) else v
    return _P([flint.fmpq(f.numerator, f.denominator) if isinstance(f, Fraction) else f])


class RatFunc:
    """``num(eps) / den(eps)``, in lowest terms, ``den`` with leading coefficient 1."""

    __slots__ = ("num", "den")

    def __init__(self, num, den=None):
        num, den = _poly(num), _poly(1 if den is None else den)
        if den == 0:
            raise ZeroDivisionError("a rational function with denominator 0")
        if num == 0:
            num, den = _P([]), _P([1])
        elif den.degree() > 0:
            g = num.gcd(den)
            if g.degree() > 0:
                num, den = divmod(num, g)[0], divmod(den, g)[0]
        lead = den.coeffs()[-1]
        self.num, self.den = num / lead, den / lead

    @staticmethod
    def of(v) -> RatFunc:
        return v if isinstance(v, RatFunc) else RatFunc(v)

    def __add__(self, o):
        o = RatFunc.of(o)
        return RatFunc(self.num * o.den + o.num * self.den, self.den * o.den)

    __radd__ = __add__

    def __neg__(self):
        return RatFunc(-self.num, self.den)

    def __sub__(self, o):
        return self + (-RatFunc.of(o))

    def __rsub__(self, o):
        return RatFunc.of(o) - self

    def __mul__(self, o):
        o = RatFunc.of(o)
        return RatFunc(self.num * o.num, self.den * o.den)

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = RatFunc.of(o)
        return RatFunc(self.num * o.den, self.den * o.num)

    def __bool__(self) -> bool:
        return self.num != 0

    def is_zero(self) -> bool:
        return self.num == 0

    def at_zero(self) -> Fraction:
        """The value at eps = 0 (``ZeroDivisionError`` at a pole)."""
        d = self.den(0)
        if d == 0:
            raise ZeroDivisionError("a pole at eps = 0")
        v = self.num(0) / d
        return Fraction(int(v.p), int(v.q))

    def sign(self) -> int:
        """The sign for every small enough eps > 0: the lowest-order coefficients' signs."""
        return _low_sign(self.num) * _low_sign(self.den)

    def __repr__(self) -> str:
        return f"({self.num}) / ({self.den})"


def _low_sign(p: flint.fmpq_poly) -> int:
    for c in p.coeffs():
        if c:
            return 1 if c > 0 else -1
    return 0


def sign_radius(p: flint.fmpq_poly) -> Fraction:
    """A rational r in (0, 1] with ``p`` of constant sign on (0, r]: for ``p = a_k eps^k + ...``
    (``a_k`` the lowest nonzero coefficient) and ``M`` the largest |a_j|, j > k, the rest is below
    ``M eps / (1 - eps) <= |a_k|`` for ``eps <= |a_k| / (|a_k| + M)``."""
    cs = [Fraction(int(c.p), int(c.q)) for c in p.coeffs()]
    k = next((i for i, c in enumerate(cs) if c), None)
    if k is None:
        return Fraction(1)
    M = max((abs(c) for c in cs[k + 1 :]), default=Fraction(0))
    return abs(cs[k]) / (abs(cs[k]) + M) if M else Fraction(1)


def interpolate(points: list, values: list, max_degree: int) -> RatFunc | None:
    """The rational function ``P / Q`` with ``deg P, deg Q <= d`` for the least ``d <= max_degree``
    through the exact ``(points[i], values[i])``: a nonzero solution of ``P(e_i) = v_i Q(e_i)`` at
    the first ``2 d + 1`` points (a null vector of that linear system; if a function of degrees at
    most ``(d, d)`` passes through them, ``P Q' - P' Q`` vanishes at more points than its degree,
    so every null vector with ``Q(e_i) != 0`` gives it), kept if it passes through every other
    point. None if none fits."""
    n = len(points)
    e = [flint.fmpq(Fraction(x).numerator, Fraction(x).denominator) for x in points]
    v = [x if isinstance(x, flint.fmpq) else flint.fmpq(Fraction(x).numerator, Fraction(x).denominator) for x in values]
    for d in range(0, max_degree + 1):
        k = 2 * d + 1
        if k >= n:  # keep at least one point to check the fit
            break
        rows = [
            x for r in range(k) for x in [e[r] ** i for i in range(d + 1)] + [-v[r] * e[r] ** j for j in range(d + 1)]
        ]
        null = _null_vector(flint.fmpq_mat(k, 2 * d + 2, rows))
        num, den = _P(null[: d + 1]), _P(null[d + 1 :])
        if den != 0 and all(den(e[r]) != 0 and num(e[r]) == v[r] * den(e[r]) for r in range(n)):
            return RatFunc(num, den)
    return None


def _null_vector(M: flint.fmpq_mat) -> list:
    """A nonzero vector of the null space of ``M`` (more columns than rows)."""
    R, rank = M.rref()
    cols = M.ncols()
    pivots, r = [], 0
    for c in range(cols):
        if r < rank and R[r, c] != 0:
            pivots.append(c)
            r += 1
    free = next(c for c in range(cols) if c not in pivots)
    x = [flint.fmpq(0)] * cols
    x[free] = flint.fmpq(1)
    for r, c in enumerate(pivots):
        x[c] = -R[r, free]
    return x

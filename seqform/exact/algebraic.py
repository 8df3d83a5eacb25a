"""Real algebraic numbers, exactly: a real number field Q(alpha), its arithmetic, and the sign of
its elements.

alpha is the one real root of an irreducible integer polynomial m in an isolating interval
(lo, hi) with rational ends (Sturm's theorem counts exactly one root there). An element of
Q(alpha) is a rational polynomial in alpha of degree below deg m (python-flint ``fmpq_poly``,
reduced modulo m): sums, products and inverses (the extended Euclidean algorithm) are exact, an
element is zero exactly when its polynomial is, and the sign of a nonzero element is decided by
evaluating it in interval arithmetic (python-flint ``arb``) on the isolating interval, halved
until the enclosure excludes 0 (it must, since the element is not zero). An element's own
minimal polynomial is the irreducible factor of its multiplication matrix's characteristic
polynomial that vanishes at it; ``AlgebraicNumber`` reports it with an isolating interval, the
form users see (Cohen (1993), "A Course in Computational Algebraic Number Theory", sections 4.1
to 4.2; Sturm sequences: Basu, Pollack & Roy (2006), "Algorithms in Real Algebraic Geometry",
chapter 2).

``minimal_polynomial_guess`` finds an integer polynomial vanishing at a number known to many
digits by lattice reduction (Lenstra, Lenstra & Lovasz (1982), "Factoring polynomials with
rational coefficients"): a guess, which the exact checks of the field's users confirm or reject.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
from flint import arb, fmpq, fmpq_poly, fmpz, fmpz_mat, fmpz_poly

from seqform.exact.rationals import fraction_of


def _to_fmpq(x) -> fmpq:
    if isinstance(x, fmpq):
        return x
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    return fmpq(x)


def arb_fmpq(x: arb) -> fmpq:
    """The midpoint of the ball ``x``, exactly, as a rational."""
    m, e = x.mid().man_exp()
    return fmpq(m) * fmpq(2) ** int(e)


def _sign_at(p: fmpq_poly, x: fmpq) -> int:
    v = p(x)
    return (v > 0) - (v < 0)


def _sturm(p: fmpq_poly) -> list:
    seq = [p, p.derivative()]
    while seq[-1].degree() > 0:
        r = -(seq[-2] % seq[-1])
        if r.is_zero():
            break
        seq.append(r)
    return seq


def count_real_roots(p: fmpq_poly, lo: fmpq, hi: fmpq) -> int:
    """The number of distinct real roots of the squarefree ``p`` in (lo, hi], neither end a root:
    Sturm's theorem, in exact rationals."""

    def variations(x: fmpq) -> int:
        signs = [s for s in (_sign_at(q, x) for q in _sturm_cache(p)) if s]
        return sum(1 for a, b in zip(signs, signs[1:]) if a != b)

    return variations(lo) - variations(hi)


_STURM: dict = {}


def _sturm_cache(p: fmpq_poly) -> list:
    key = str(p)
    if key not in _STURM:
        if len(_STURM) > 256:
            _STURM.clear()
        _STURM[key] = _sturm(p)
    return _STURM[key]


class RealField:
    """Q(alpha): alpha the one root of ``minpoly`` (irreducible over Q; integer coefficients, the
    constant term first) in the open interval (lo, hi), checked by Sturm's theorem. Raises
    ValueError if the interval does not isolate exactly one root or ``minpoly`` is reducible."""

    def __init__(self, minpoly: fmpz_poly, lo, hi):
        m = fmpz_poly(minpoly)
        _, factors = m.factor()
        if m.degree() < 1 or len(factors) != 1 or factors[0][1] != 1:
            raise ValueError(f"{m} is not irreducible")
        self.minpoly = m
        self.m = fmpq_poly(list(m.coeffs()))
        self.lo, self.hi = _to_fmpq(lo), _to_fmpq(hi)
        if not self.lo < self.hi or self.m(self.lo) == 0 or self.m(self.hi) == 0:
            raise ValueError("the interval's ends must be increasing and not roots")
        if count_real_roots(self.m, self.lo, self.hi) != 1:
            raise ValueError(f"({self.lo}, {self.hi}) does not isolate one root of {m}")

    @property
    def degree(self) -> int:
        return self.minpoly.degree()

    def __call__(self, coeffs) -> FieldElement:
        """The element sum_j coeffs[j] alpha^j (rationals, the constant first)."""
        return FieldElement(self, fmpq_poly([_to_fmpq(c) for c in coeffs]) % self.m)

    def alpha(self) -> FieldElement:
        return self([0, 1]) if self.degree > 1 else self([-self.m.coeffs()[0] / self.m.coeffs()[1]])

    def refine(self) -> None:
        """Halve the isolating interval (exactly: the root is on the side where m changes sign)."""
        mid = (self.lo + self.hi) / 2
        s = _sign_at(self.m, mid)
        if s == 0:  # only for degree 1: alpha is rational
            self.lo, self.hi = mid - (self.hi - self.lo) / 4, mid + (self.hi - self.lo) / 4
        elif s == _sign_at(self.m, self.lo):
            self.lo = mid
        else:
            self.hi = mid

    def enclosure(self, p: fmpq_poly, prec: int = 64) -> arb:
        """A ball containing p(alpha): p evaluated by Horner's rule in interval arithmetic on the
        isolating interval."""
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            x = arb(self.lo).union(arb(self.hi))
            acc = arb(0)
            for c in reversed(p.coeffs()):
                acc = acc * x + arb(c)
            return acc
        finally:
            flint.ctx.prec = old

    def sign(self, p: fmpq_poly) -> int:
        """The exact sign of p(alpha) (p reduced modulo m)."""
        if p.is_zero():
            return 0
        if p.degree() == 0:
            c = p.coeffs()[0]
            return (c > 0) - (c < 0)
        prec = 64
        while True:
            e = self.enclosure(p, prec)
            if e > 0:
                return 1
            if e < 0:
                return -1
            self.refine()
            prec = min(prec + 16, 4096)

    def __repr__(self) -> str:
        return f"RealField({self.minpoly}, ({self.lo}, {self.hi}))"


class FieldElement:
    """An element of a ``RealField``: exact arithmetic with elements of the same field, ints,
    Fractions and fmpq; ordered by its exact sign."""

    __slots__ = ("field", "poly")

    def __init__(self, field: RealField, poly: fmpq_poly):
        self.field, self.poly = field, poly

    def _coerce(self, other) -> fmpq_poly | None:
        if isinstance(other, FieldElement):
            if other.field is not self.field:
                raise ValueError("elements of different fields")
            return other.poly
        if isinstance(other, (int, fmpz, fmpq, Fraction)):
            return fmpq_poly([_to_fmpq(other)])
        return None

    def _new(self, p: fmpq_poly) -> FieldElement:
        return FieldElement(self.field, p)

    def __add__(self, other):
        o = self._coerce(other)
        return NotImplemented if o is None else self._new(self.poly + o)

    __radd__ = __add__

    def __sub__(self, other):
        o = self._coerce(other)
        return NotImplemented if o is None else self._new(self.poly - o)

    def __rsub__(self, other):
        o = self._coerce(other)
        return NotImplemented if o is None else self._new(o - self.poly)

    def __neg__(self):
        return self._new(-self.poly)

    def __mul__(self, other):
        o = self._coerce(other)
        return NotImplemented if o is None else self._new((self.poly * o) % self.field.m)

    __rmul__ = __mul__

    def inverse(self) -> FieldElement:
        if self.poly.is_zero():
            raise ZeroDivisionError("division by zero in a number field")
        g, s, _ = self.poly.xgcd(self.field.m)  # s * poly + t * m = g, a nonzero constant
        return self._new((s / g.coeffs()[0]) % self.field.m)

    def __truediv__(self, other):
        o = self._coerce(other)
        return NotImplemented if o is None else self * self._new(o).inverse()

    def __rtruediv__(self, other):
        o = self._coerce(other)
        return NotImplemented if o is None else self._new(o) * self.inverse()

    def sign(self) -> int:
        return self.field.sign(self.poly)

    def __bool__(self) -> bool:
        return not self.poly.is_zero()

    def __eq__(self, other) -> bool:
        o = self._coerce(other)
        return NotImplemented if o is None else (self.poly - o).is_zero()

    def __hash__(self) -> int:
        return hash(str(self.poly))

    def _cmp(self, other) -> int:
        o = self._coerce(other)
        if o is None:
            raise TypeError(f"cannot compare a number field element with {type(other).__name__}")
        return self.field.sign(self.poly - o)

    def __lt__(self, other) -> bool:
        return self._cmp(other) < 0

    def __le__(self, other) -> bool:
        return self._cmp(other) <= 0

    def __gt__(self, other) -> bool:
        return self._cmp(other) > 0

    def __ge__(self, other) -> bool:
        return self._cmp(other) >= 0

    def __float__(self) -> float:
        if self.is_rational():
            return float(fraction_of(self.poly.coeffs()[0])) if self.poly.coeffs() else 0.0
        while True:  # nonzero: refine until the enclosure fixes a double's 53 bits
            e = self.field.enclosure(self.poly, 128)
            mid = arb_fmpq(e)
            if float(e.rad()) <= abs(float(mid)) * 2.0**-60:
                return float(mid)
            self.field.refine()

    def is_rational(self) -> bool:
        return self.poly.degree() <= 0

    def minimal_polynomial(self) -> fmpz_poly:
        """This element's minimal polynomial over Q, integer and primitive, leading coefficient
        positive: the irreducible factor of the characteristic polynomial of multiplication by it
        that vanishes here (Cohen 1993, section 4.3)."""
        d = self.field.degree
        cols = []
        for j in range(d):
            c = (self.poly * fmpq_poly([0] * j + [1])) % self.field.m
            cs = list(c.coeffs()) + [fmpq(0)] * (d - len(c.coeffs()))
            cols.append(cs)
        M = flint.fmpq_mat(d, d, [cols[j][i] for i in range(d) for j in range(d)])
        chi = M.charpoly()
        _, factors = fmpz_poly([int(v) for v in (chi * chi.denom()).numer().coeffs()]).factor()
        candidates = [f for f, _ in factors]
        for f in candidates:
            if self.field.sign(fmpq_poly(_compose(f, self.poly, self.field.m))) == 0:
                return f if f.coeffs()[-1] > 0 else -f
        raise AssertionError("no factor of the characteristic polynomial vanishes at the element")

    def number(self) -> Fraction | AlgebraicNumber:
        """This element as users see it: a Fraction when rational, else an ``AlgebraicNumber``
        (its minimal polynomial and an isolating interval)."""
        if self.is_rational():
            return fraction_of(self.poly.coeffs()[0]) if self.poly.coeffs() else Fraction(0)
        return AlgebraicNumber.of(self)

    def __repr__(self) -> str:
        return f"FieldElement({self.poly})"


def _compose(f: fmpz_poly, p: fmpq_poly, m: fmpq_poly) -> list:
    """The coefficients of f(p(alpha)) reduced modulo m (Horner's rule)."""
    acc = fmpq_poly([0])
    for c in reversed(f.coeffs()):
        acc = (acc * p + fmpq_poly([fmpq(c)])) % m
    return list(acc.coeffs())


@dataclass(frozen=True)
class AlgebraicNumber:
    """A real algebraic number: the one root of ``minimal_polynomial`` (irreducible, integer
    coefficients from the constant term up) in the open interval (``lo``, ``hi``)."""

    minimal_polynomial: tuple
    lo: Fraction
    hi: Fraction
    approx: float

    @staticmethod
    def of(x: FieldElement, width: Fraction = Fraction(1, 10**6)) -> AlgebraicNumber:
        """``x``'s minimal polynomial and an isolating interval at most ``width`` wide."""
        f = x.minimal_polynomial()
        fq = fmpq_poly(list(f.coeffs()))
        while True:
            e = x.field.enclosure(x.poly, 256)
            lo, hi = arb_fmpq(e.lower()), arb_fmpq(e.upper())
            if hi - lo <= _to_fmpq(width) and fq(lo) != 0 and fq(hi) != 0 and count_real_roots(fq, lo, hi) == 1:
                lo, hi = _short_ends(fq, lo, hi)
                return AlgebraicNumber(tuple(int(c) for c in f.coeffs()), fraction_of(lo), fraction_of(hi), float(x))
            x.field.refine()

    def __float__(self) -> float:
        return self.approx

    def polynomial_text(self) -> str:
        """The minimal polynomial as ``3x^2 - 6x + 2``."""
        return polynomial_text(self.minimal_polynomial)

    def closed_form(self) -> str:
        """A quadratic irrational by radicals, ``(53 - √601)/46``; else ``the root of ... in (lo, hi)``."""
        if len(self.minimal_polynomial) == 3:
            return _quadratic_text(*self.minimal_polynomial, self.approx)
        return str(self)

    def __str__(self) -> str:
        return f"the root of {self.polynomial_text()} in ({self.lo}, {self.hi})"

    def to_json(self) -> dict:
        return {
            "minimal_polynomial": [str(c) for c in self.minimal_polynomial],
            "interval": [_rational_text(self.lo), _rational_text(self.hi)],
            "float": self.approx,
        }


def polynomial_text(coeffs) -> str:
    """Integer coefficients (the constant first) as ``3x^2 - 6x + 2``."""
    terms = []
    for k in range(len(coeffs) - 1, -1, -1):
        c = int(coeffs[k])
        if c == 0:
            continue
        body = ("" if abs(c) == 1 and k else str(abs(c))) + ("x" if k else "") + (f"^{k}" if k > 1 else "")
        terms.append(("-" if c < 0 else "+", body))
    if not terms:
        return "0"
    text = ("-" if terms[0][0] == "-" else "") + terms[0][1]
    return text + "".join(f" {s} {b}" for s, b in terms[1:])


def _quadratic_text(c: int, b: int, a: int, approx: float) -> str:
    """The root near ``approx`` of a x^2 + b x + c (irreducible) as ``(p ± q√t)/r``, t squarefree."""
    import math

    disc = b * b - 4 * a * c
    q, t = 1, disc
    k = 2
    while k * k <= t:
        while t % (k * k) == 0:
            t //= k * k
            q *= k
        k += 1
    sign = 1 if abs((-b + math.sqrt(disc)) / (2 * a) - approx) < abs((-b - math.sqrt(disc)) / (2 * a) - approx) else -1
    p, r = -b, 2 * a
    g = math.gcd(math.gcd(p, q), r)
    p, q, r = p // g, q // g, r // g
    if r < 0:
        p, q, r = -p, -q, -r
        sign = -sign
    root = ("" if q == 1 else str(q)) + f"√{t}"
    body = f"{p} {'+' if sign > 0 else '-'} {root}" if p else ("" if sign > 0 else "-") + root
    return f"({body})/{r}" if r != 1 else body


def _rational_text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _short_ends(f: fmpq_poly, lo: fmpq, hi: fmpq) -> tuple:
    """Simpler rational ends inside (lo, hi)'s neighbourhood keeping exactly one root between
    them: the simplest rationals just outside, when they still isolate it."""
    width = hi - lo
    for digits in range(1, 40):
        scale = fmpz(10) ** digits
        a = fmpq((lo * scale).floor(), scale)
        b = fmpq((hi * scale).ceil(), scale) if (hi * scale).ceil() != (hi * scale) else hi
        if b - a <= 4 * width + fmpq(1, scale) and f(a) != 0 and f(b) != 0 and count_real_roots(f, a, b) == 1:
            return a, b
    return lo, hi


def minimal_polynomial_guess(x: fmpq, bits: int, max_degree: int = 8) -> fmpz_poly | None:
    """An irreducible integer polynomial of degree at most ``max_degree`` that (nearly) vanishes at
    the number of which ``x`` is an approximation good to ``bits`` bits, found by LLL on the lattice
    of the powers x^0 .. x^d scaled by 2^(bits - 8), or None. Accepted only when its height is
    small against the precision (a relation found by chance would use it all up)."""
    for d in range(1, max_degree + 1):
        scale = fmpz(2) ** (bits - 8)
        powers = [x**j for j in range(d + 1)]
        rows = []
        for j in range(d + 1):
            row = [1 if k == j else 0 for k in range(d + 1)]
            row.append(int((powers[j] * scale).floor()))
            rows.append(row)
        reduced = fmpz_mat(rows).lll()
        coeffs = [int(reduced[0, k]) for k in range(d + 1)]
        if coeffs[-1] == 0 or max(abs(c) for c in coeffs) == 0:
            continue
        height_bits = max(abs(c) for c in coeffs).bit_length()
        if height_bits * (d + 1) > bits * 0.6:
            continue
        p = fmpz_poly(coeffs)
        _, factors = p.factor()
        # exact rationals, not floats: past 1,074 bits a double underflows to 0
        best = min(factors, key=lambda fm: abs(fmpq_poly(list(fm[0].coeffs()))(x)))[0]
        if abs(fmpq_poly(list(best.coeffs()))(x)) < fmpq(1, fmpz(2) ** (bits // 2)):
            return best if best.coeffs()[-1] > 0 else -best
    return None


def isolate(f: fmpz_poly, x: fmpq, bits: int) -> RealField:
    """Q(alpha), alpha the root of the irreducible ``f`` nearest to the approximation ``x``: an
    interval around x, widened from 2^-(bits/2) until Sturm's theorem counts one root in it."""
    fq = fmpq_poly(list(f.coeffs()))
    r = fmpq(1, fmpz(2) ** max(bits // 2, 8))
    for _ in range(4 * bits):
        lo, hi = x - r, x + r
        if fq(lo) != 0 and fq(hi) != 0 and count_real_roots(fq, lo, hi) == 1:
            return RealField(f, *_short_ends(fq, lo, hi))
        r *= 2
    raise ValueError(f"no isolating interval of {f} near {float(x)}")

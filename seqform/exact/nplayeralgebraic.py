"""Equilibria of games of any number of players whose probabilities are irrational: an isolated
solution of a support's sequence-form equations (``seqform.exact.nplayerpolish``) found as real
algebraic numbers and certified by exact best responses in their number field.

When a support's equations have an isolated solution that no small-denominator rational
satisfies (Nau, Gomez Canovas & Hansen (2004), "On the geometry of Nash equilibria and correlated
equilibria", section 4: a three-player game whose only equilibrium is irrational), the polish
hands it here:

1. Newton's method in high precision (python-flint ``arb``, ``bits`` bits; the Jacobian of the
   multilinear equations computed exactly at each iterate) refines the float solution to about
   ``bits`` bits;
2. lattice reduction (``seqform.exact.algebraic.minimal_polynomial_guess``, LLL) guesses each
   unknown's minimal polynomial; the unknown of the largest degree generates the field
   Q(alpha) (another unknown added to it when some unknown is not in it: a primitive element),
   and each unknown is written in the basis 1, alpha, ..., alpha^(d-1) by the same reduction;
3. everything the guess claims is then checked exactly in Q(alpha)
   (``seqform.exact.algebraic.RealField``): every equation holds exactly (zero as a polynomial
   modulo alpha's minimal polynomial), every probability is nonnegative (exact signs), and every
   player's exact best response, a backward pass whose maxima compare elements of Q(alpha) by
   their exact signs, gains exactly 0 over the profile.

Only the last step certifies; the first two only find candidates, and a wrong guess fails the
checks. Dense and loop-based: for supports of at most ``MAX_UNKNOWNS`` unknowns.

References:

- Datta (2010), "Finding all Nash equilibria of a finite game using polynomial algebra", Economic Theory.
- Lenstra, Lenstra & Lovasz (1982), "Factoring polynomials with rational coefficients", Mathematische Annalen.
- Nau, Gomez Canovas & Hansen (2004), "On the geometry of Nash equilibria and correlated equilibria", International
  Journal of Game Theory.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
from flint import arb, arb_mat, fmpq

from seqform.exact.algebraic import (
    AlgebraicNumber,
    FieldElement,
    RealField,
    arb_fmpq,
    isolate,
    minimal_polynomial_guess,
)
from seqform.exact.exactbestresponse import exact_backward_pass

#: precisions (bits) tried in turn
PRECISIONS = (640, 2560)
#: the largest degree of a field tried
MAX_DEGREE = 8
#: the largest support (unknowns) this dense, loop-based path takes
MAX_UNKNOWNS = 150


@dataclass
class AlgebraicEquilibrium:
    """An exact equilibrium in a real number field: ``field`` is Q(alpha); ``behaviour`` per player
    a list of elements (FieldElement or fmpq), one per sequence, uniform where the player's own
    plan does not reach; ``plans`` the realization plans; ``values`` each player's payoff."""

    field: RealField
    behaviour: list
    plans: list
    values: list

    def numbers(self, xs: list) -> list:
        """``xs`` as users see them: Fractions, or ``AlgebraicNumber`` (minimal polynomial and
        isolating interval)."""
        return [_number(x) for x in xs]


def _number(x) -> Fraction | AlgebraicNumber:
    if isinstance(x, FieldElement):
        return x.number()
    return Fraction(int(x.p), int(x.q)) if isinstance(x, fmpq) else Fraction(x)


def _jacobian(system, z: list) -> list:
    """dF/dz at z (a list of arb, or any ring elements), dense, as a list of rows."""
    N, tree = system.N, system.tree
    r = system.plans(np.array(z, dtype=object))
    J = [[arb(int(v)) if v else arb(0) for v in row] for row in system.L_int]
    for p in range(N):
        rows = np.full(tree.num_sequences[p], -1)
        rows[system.g_seqs[p]] = system.g_rows[p]
        w = system.w_exact[p]
        for q in range(N):
            if q == p:
                continue
            rr, cc = rows[system.S[p]], system.seq_col[q][system.S[q]]
            for k in np.flatnonzero((rr >= 0) & (cc >= 0)).tolist():
                prod = w[k]
                for j in range(N):
                    if j not in (p, q):
                        prod = prod * r[j][system.S[j][k]]
                J[rr[k]][cc[k]] -= prod
    return J


def _newton_hp(system, z0: np.ndarray, free: np.ndarray, bits: int, deadline: float) -> list | None:
    """Newton's method at ``bits`` bits from the float solution z0, moving the ``free`` unknowns:
    least-squares steps through the normal equations (the free Jacobian has full column rank at
    an isolated solution). Returns the unknowns as rationals (midpoints), or None."""
    old = flint.ctx.prec
    flint.ctx.prec = bits + 64
    try:
        z = [arb(fmpq(*v.as_integer_ratio())) for v in z0.tolist()]
        cols = np.flatnonzero(free).tolist()
        target = fmpq(1, 2 ** (bits - 16))
        for _ in range(3 + bits.bit_length() * 2):
            if time.monotonic() > deadline:
                return None
            F = [f if isinstance(f, arb) else arb(f) for f in system.residual(np.array(z, dtype=object))]
            if all(abs(arb_fmpq(f)) < target for f in F):
                return [arb_fmpq(v) for v in z]
            J = _jacobian(system, z)
            A = arb_mat([[J[i][j] for j in cols] for i in range(len(J))])
            At = A.transpose()
            step = (At * A).solve(At * arb_mat([[f] for f in F]))
            for t, j in enumerate(cols):
                z[j] = arb(arb_fmpq(z[j] - step[t, 0]))
        return None
    except (ZeroDivisionError, ValueError):  # a singular normal matrix: not an isolated solution
        return None
    finally:
        flint.ctx.prec = old


def _coordinates(x: fmpq, powers: list, bits: int) -> list | None:
    """Rationals c with x = sum_j c_j alpha^j (``powers`` = alpha^0 .. alpha^(d-1), approximations),
    found by LLL on the integer relation among x and the powers, or None."""
    d = len(powers)
    scale = flint.fmpz(2) ** (bits - 8)
    vals = [x, *powers]
    rows = []
    for j, v in enumerate(vals):
        row = [1 if k == j else 0 for k in range(d + 1)]
        row.append(int((v * scale).floor()))
        rows.append(row)
    red = flint.fmpz_mat(rows).lll()
    for i in range(d + 1):
        a = [int(red[i, k]) for k in range(d + 1)]
        if a[0] == 0:
            continue
        if max(abs(c) for c in a).bit_length() * (d + 1) > bits * 0.6:
            return None
        c = [fmpq(-a[k + 1], a[0]) for k in range(d)]
        approx = sum((ci * p for ci, p in zip(c, powers)), fmpq(0))
        if abs(approx - x) < fmpq(1, 2 ** (bits // 2)):
            return c
        return None
    return None


def field_of(values: list, bits: int) -> tuple | None:
    """(Q(alpha), the values as its elements) for high-precision approximations ``values`` (fmpq,
    good to about ``bits`` bits), or None when no field of degree at most ``MAX_DEGREE`` is found.
    A guess: the caller checks the elements exactly."""
    guesses = [minimal_polynomial_guess(v, bits, MAX_DEGREE) for v in values]
    polys = [f for f in guesses if f is not None]
    if len(polys) < len(guesses):
        return None
    order = sorted(range(len(values)), key=lambda i: -polys[i].degree())
    gen, f = values[order[0]], polys[order[0]]
    for _ in range(MAX_DEGREE):
        d = f.degree()
        powers = [gen**j for j in range(d)]
        coords = [_coordinates(v, powers, bits) if polys[i].degree() > 1 else None for i, v in enumerate(values)]
        missing = [i for i, c in enumerate(coords) if c is None and polys[i].degree() > 1]
        if not missing:
            K = isolate(f, gen, bits)
            elems = []
            for i in range(len(values)):
                if polys[i].degree() == 1:  # rational: the root of a x + b
                    a0, a1 = polys[i].coeffs()[0], polys[i].coeffs()[1]
                    elems.append(K([fmpq(-a0, a1)]))
                else:
                    elems.append(K(coords[i]))
            return K, elems
        gen = gen + values[missing[0]]  # a primitive element of the larger field
        larger = minimal_polynomial_guess(gen, bits, MAX_DEGREE)
        if larger is None:
            return None
        f = larger
    return None


def exact_behaviour(tree, p: int, r: list) -> list:
    """Player ``p``'s behavioural strategy (one entry per sequence) from its exact plan ``r``
    (fmpq or elements of a number field): ``r[s] / r[parent]``, uniform where ``r[parent] = 0``."""
    b: list = [fmpq(1)] * tree.num_sequences[p]
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    for i in tree.player_infosets[p].tolist():
        f, k = int(first[i]), int(nact[i])
        px = r[int(pseq[i])]
        for j in range(k):
            b[f + j] = r[f + j] / px if px else fmpq(1, k)
    return b


def check_in_field(system, zK: np.ndarray, field: RealField) -> tuple:
    """The exact checks of step 3 on the unknowns ``zK`` (elements of ``field``):
    (AlgebraicEquilibrium or None, why not)."""
    if any(v != 0 for v in system.residual(zK)):
        return None, "the algebraic candidate does not solve the support's equations exactly"
    if any(v < 0 for v in zK[: system.num_plan]):
        return None, "the algebraic solution plays a sequence with negative weight"
    r = system.plans(zK)
    behaviour, values = [], []
    for p in range(system.N):
        b = exact_behaviour(system.tree, p, list(r[p]))
        ep = exact_backward_pass(system.tree, p, system.g_exact(r, p), b)
        if ep.value_best != ep.value_current:
            return None, f"the algebraic solution is exact, but player {p} gains by deviating (an unplayed action)"
        behaviour.append(b)
        values.append(ep.value_current)
    return AlgebraicEquilibrium(field, behaviour, [list(x) for x in r], values), ""


def certify_algebraic(system, z: np.ndarray, pinned: np.ndarray, pins: np.ndarray, deadline: float) -> tuple:
    """An exact algebraic equilibrium on ``system``'s support from its float solution ``z`` (the
    ``pinned`` unknowns fixed at the rationals ``pins``): (AlgebraicEquilibrium or None, why)."""
    if system.n > MAX_UNKNOWNS:
        return None, f"{system.n} unknowns: the algebraic path takes at most {MAX_UNKNOWNS}"
    why = "no number field of degree at most 8 found"
    for bits in PRECISIONS:
        zf = z.copy()
        zf[pinned] = [float(v) for v in pins]
        zh = _newton_hp(system, zf, ~pinned, bits, deadline)
        if zh is None:
            why = f"Newton's method did not converge at {bits} bits"
            continue
        for j, v in zip(np.flatnonzero(pinned).tolist(), pins):
            zh[j] = v
        found = field_of(zh, bits)
        if found is None:
            continue
        field, elems = found
        eq, why = check_in_field(system, np.array(elems, dtype=object), field)
        if eq is not None:
            return eq, ""
    return None, why

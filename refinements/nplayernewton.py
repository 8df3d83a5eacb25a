"""Numerics of ``refinements.nplayerperturbed``: Gauss-Newton in floats, the pins of free
directions, and the exact rational solution by mixed-precision iterative refinement.

* ``newton``: least-squares Newton steps (minimum norm) on the free unknowns to a residual below
  1e-13 (as ``seqform.exact.nplayerpolish`` runs it);
* ``pinned_unknowns``: the unknowns outside a maximal set of independent Jacobian columns, by a
  column-pivoted QR (Businger & Golub 1965, "Linear least squares solutions by Householder
  transformations"), the value columns weighted up so that they stay free;
* ``exact_solution``: iterative refinement (Wilkinson 1963, "Rounding Errors in Algebraic
  Processes"): the residual evaluated exactly (python-flint ``fmpq``), the correction solved in
  floats against the float Jacobian, so that each round gains some 40 bits; after each round each
  unknown's first continued-fraction convergent within the last correction (``convergent_within``:
  rational reconstruction from an exact rational approximation, not a rounding of floats) until
  the residual is exactly zero.
"""

from __future__ import annotations

import time
from fractions import Fraction

import flint
import numpy as np
import scipy.linalg

from seqform.exact.rationals import fmpq_of, fraction_of

#: the most bits iterative refinement reaches before it gives up on a rational solution
MAX_BITS = 2400


def newton(system, z: np.ndarray, free: np.ndarray, deadline: float) -> tuple:
    """(z, the residual's largest entry) after least-squares Newton on the ``free`` unknowns of
    ``system`` (``residual(z)``, ``jacobian(z)``); inf when it diverges."""
    for _ in range(40):
        F = system.residual(z)
        res = float(np.abs(F).max()) if len(F) else 0.0
        if not res < 1e3:
            return z, float("inf")
        if res < 1e-13 or time.monotonic() > deadline:
            return z, res
        z = z.copy()
        z[free] -= np.linalg.lstsq(system.jacobian(z)[:, free], F, rcond=1e-10)[0]
    return z, float(np.abs(system.residual(z)).max())


def pinned_unknowns(system, z: np.ndarray) -> np.ndarray:
    """Bool mask of the unknowns to pin at the float solution ``z`` (module docstring)."""
    J = system.jacobian(z)
    sv = np.linalg.svd(J, compute_uv=False)
    rank = int((sv > 1e-8 * max(sv[0], 1.0)).sum()) if len(sv) else 0
    scale = np.ones(system.n)
    scale[system.num_plan :] = 10.0
    _, _, perm = scipy.linalg.qr(J * scale, pivoting=True, mode="economic")
    pinned = np.zeros(system.n, dtype=bool)
    pinned[perm[rank:]] = True
    return pinned


def convergent_within(c: Fraction, radius: Fraction) -> Fraction:
    """The first continued-fraction convergent of ``c`` within ``radius`` of it (integer
    arithmetic). A convergent ``p_k / q_k`` is within ``1 / (q_k^2 a_{k+1})`` of ``c``, so only
    those followed by a large partial quotient ``a_{k+1}`` (or the last) are tested exactly."""
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


def _log2(v: flint.fmpq) -> int:
    """About log2 |v| for a nonzero fmpq."""
    return int(v.p).bit_length() - int(v.q).bit_length()


def exact_solution(system, z: np.ndarray, pinned: np.ndarray, values: np.ndarray, max_bits: int = MAX_BITS):
    """The rational solution of ``system`` (``residual`` exact on an object array of fmpq) near
    the float ``z`` (a residual below 1e-10), the ``pinned`` unknowns exactly ``values``: an object
    array of fmpq, or None when none is found within ``max_bits`` bits (module docstring)."""
    free = np.flatnonzero(~pinned)
    pinv = np.linalg.pinv(system.jacobian(z)[:, free], rcond=1e-12)
    zq = np.array([fmpq_of(Fraction(float(v))) for v in z], dtype=object)  # binary values: exact
    zq[pinned] = values
    bits = 0
    while bits < max_bits:
        F = system.residual(zq)
        nonzero = [v for v in F if v != 0]
        if not nonzero:
            return zq
        k = max(_log2(v) for v in nonzero)
        scale = flint.fmpq(2) ** (-k) if k <= 0 else flint.fmpq(1, 2**k)
        d = pinv @ np.array([float(v * scale) for v in F])
        step = np.array([fmpq_of(Fraction(float(v))) / scale for v in d], dtype=object)
        zq[free] = zq[free] - step
        if -k <= bits:  # no progress: diverging or stuck
            return None
        bits, tested = -k, bits
        if bits.bit_length() == tested.bit_length():  # reconstruct when the precision doubles
            continue
        radius = fraction_of(max(abs(v) for v in step)) if len(step) else Fraction(0)
        zr = zq.copy()
        for j in free.tolist():
            c = fraction_of(zq[j])
            zr[j] = fmpq_of(convergent_within(c, radius))
        if all(v == 0 for v in system.residual(zr)):
            return zr
    return None

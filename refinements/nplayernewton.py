"""The exact rational solution of ``refinements.nplayerperturbed``'s equations, by mixed-precision
iterative refinement (its Gauss-Newton in floats and pins of free directions are
``seqform.exact.nplayerpolish``'s ``gauss_newton`` and ``free_directions``).

* ``exact_solution``: iterative refinement (Wilkinson 1963, "Rounding Errors in Algebraic
  Processes"): the residual evaluated exactly (python-flint ``fmpq``), the correction solved in
  floats against the float Jacobian, so that each round gains some 40 bits; after each round each
  unknown's first continued-fraction convergent within the last correction
  (``seqform.exact.rationals.convergent_within``:
  rational reconstruction from an exact rational approximation, not a rounding of floats) until
  the residual is exactly zero.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from seqform.exact.rationals import convergent_within, fmpq_of, fraction_of

#: the most bits iterative refinement reaches before it gives up on a rational solution
MAX_BITS = 2400


def _log2(v: flint.fmpq) -> int:
    """About log2 |v| for a nonzero fmpq."""
    return int(v.p).bit_length() - int(v.q).bit_length()


def exact_solution(
    system, z: np.ndarray, pinned: np.ndarray, values: np.ndarray, max_bits: int = MAX_BITS, keep: list | None = None
):
    """The rational solution of ``system`` (``residual`` exact on an object array of fmpq) near
    the float ``z`` (a residual below 1e-10), the ``pinned`` unknowns exactly ``values``: an object
    array of fmpq, or None when none is found within ``max_bits`` bits (module docstring).
    ``keep``: a list that receives ``(the last iterate, its bits)`` when no rational is found,
    the approximation an irrational solution's number field is found from."""
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
            if keep is not None and bits >= 256:
                keep.append((zq, bits))
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
    if keep is not None:
        keep.append((zq, bits))
    return None

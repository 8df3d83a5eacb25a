"""Exact arithmetic: ``rationals`` (conversions between floats, Fractions and flint ``fmpq``, and
the one rounding policy), ``sparselu`` (exact sparse LU over the rationals), ``exactbestresponse``
(exact backward induction), ``certificate`` (exact certificates of LP solutions)."""

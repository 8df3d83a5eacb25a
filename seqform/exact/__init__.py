"""Exact arithmetic: ``seqform.exact.rationals`` (conversions between floats, Fractions and flint
``fmpq``, and the one rounding policy), ``seqform.exact.sparselu`` (exact sparse LU over the
rationals), ``seqform.exact.exactbestresponse`` (exact best responses),
``seqform.exact.certificate`` (exact certificates of LP solutions), ``seqform.exact.exactsimplex``
(the primal simplex in rationals), ``seqform.exact.backwardinduction`` (exact backward induction),
``seqform.exact.lemke``, ``seqform.exact.lemkepath``, ``seqform.exact.epspoly`` and
``seqform.exact.sequenceformlcp`` (Lemke's algorithm on the sequence-form LCP)."""

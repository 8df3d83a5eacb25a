"""Refined equilibria (extensive-form perfect, quasi-perfect) from perturbed sequence-form polytopes.

Not yet implemented: the work is described in the project's refinements issue. The package is
installed with seqform so that its place in the distribution is fixed.
"""

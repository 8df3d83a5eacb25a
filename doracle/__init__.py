"""Double oracle for extensive-form games (Bosansky, Kiekintveld, Lisy & Pechoucek, JAIR 2014).

Not yet implemented: the work is described in the project's double-oracle issue. The package is
installed with seqform so that its place in the distribution is fixed.
"""

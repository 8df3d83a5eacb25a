"""Lossless abstraction of games with ordered signals (GameShrink, Gilpin & Sandholm 2007).

Not yet implemented: the work is described in the project's lossless-abstraction issue. The
package is installed with seqform so that its place in the distribution is fixed.
"""

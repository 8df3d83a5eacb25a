"""Iterative solvers over the compiled tree: ``seqform.iterative.cfr`` (CFR, CFR+, linear,
discounted and predictive CFR; Zinkevich et al. 2007), ``seqform.iterative.mccfr`` and
``seqform.iterative.batchedmccfr`` (Monte Carlo CFR: external, outcome and chance sampling),
``seqform.iterative.egt`` (the excessive gap technique; Hoda et al. 2010, Kroer, Farina & Sandholm
2017) over the distances of ``seqform.iterative.dilatedentropy`` and
``seqform.iterative.dilatedeuclidean``, and ``seqform.iterative.optimistic`` (optimistic mirror
descent); ``seqform.iterative.checkpoint`` is their one checkpoint file format.

This package is a front door: ``from seqform.iterative import RegretMinimizer`` (and the other
solvers in ``__all__``). It does not export the function ``seqform.iterative.cfr.cfr``: under its
name it would hide the module ``seqform.iterative.cfr``
(``RegretMinimizer(game, algorithm).step(iterations)`` is the same run).

References:

- Zinkevich, Johanson, Bowling & Piccione (2007), "Regret Minimization in Games with Incomplete Information", NIPS.
- Hoda, Gilpin, Pena & Sandholm (2010), "Smoothing Techniques for Computing Nash Equilibria of Sequential Games",
  Mathematics of Operations Research.
"""

from seqform.iterative.batchedmccfr import BatchedExternalSampling, BatchedOutcomeSampling
from seqform.iterative.cfr import RegretMinimizer
from seqform.iterative.dilatedentropy import DilatedEntropy
from seqform.iterative.dilatedeuclidean import DilatedEuclidean
from seqform.iterative.egt import ExcessiveGap, tune_scale
from seqform.iterative.mccfr import MonteCarloCFR
from seqform.iterative.optimistic import OptimisticMirrorDescent

__all__ = [
    "RegretMinimizer",
    "MonteCarloCFR",
    "BatchedExternalSampling",
    "BatchedOutcomeSampling",
    "ExcessiveGap",
    "tune_scale",
    "OptimisticMirrorDescent",
    "DilatedEntropy",
    "DilatedEuclidean",
]

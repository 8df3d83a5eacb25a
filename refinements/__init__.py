"""Refined equilibria of two-player games from perturbed sequence-form polytopes.

``refinements.efpe(game)`` and ``refinements.qpe(game)`` compute an extensive-form perfect or a
quasi-perfect equilibrium exactly, as the limit eps -> 0 of the perturbed games' equilibria (the
trembling LP of Farina, Gatti & Sandholm 2018), certified: the limit is an exact Nash equilibrium
and every information set's regret (Kroer, Farina & Sandholm (2017)'s measure, under the limit beliefs) is exactly zero.
With ``eps=...`` they solve the perturbed game at that tremble instead. General-sum games go
through the perturbed sequence-form LCP instead (``refinements.generalsum``). Each limit is also
tested against its concept's definition (``refinements.definitioncertificate``: ``certify_efpe``,
``certify_qpe``). Modules: ``refinements.perturbation`` (EFPE, QPE and user-given lower bounds),
``refinements.perturbedlp`` (the LP with eps as a symbol), ``refinements.iterativerefinement``
(exact optimality at one eps), ``refinements.trembling`` (the limit),
``refinements.limitcertificate`` (regrets under the limit beliefs),
``refinements.definitioncertificate`` (the concepts' definitions),
``refinements.tremblingbestresponse`` (best responses inside the perturbed polytopes),
``refinements.generalsum`` (the perturbed LCP), ``refinements.perturbedcfr`` (CFR+ in the
perturbed game), ``refinements.refinedsolution`` (the result), ``refinements.refine`` (the API).
Games of more than two players (``refinements.nplayerrefine``): the perturbed game's exact
equilibrium at a rational eps (``refinements.nplayerperturbed``, from CFR+ in the perturbed game,
``refinements.nplayercfr``), and the limit eps -> 0 certified where the perturbed equilibria on one
support are rational functions of eps (``refinements.nplayerlimit``).

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
- Farina, Gatti & Sandholm (2018), "Practical Exact Algorithm for Trembling-Hand Equilibrium Refinements in Games",
  NeurIPS.
"""

from seqform.lazyexports import lazy_exports

# every name is imported when first used: the command line loads this package for its plugin
__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)

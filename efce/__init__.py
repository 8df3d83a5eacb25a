"""Extensive-form correlated equilibria (Dudik & Gordon 2009): causal deviations and their
regret (``efce.causalregret``; ``max_regret``), exact ground truth for small games
(``efce.exact``: the EFCE polytope with HiGHS, maximum entropy with cvxpy), the sampling
algorithm (``efce.sampling``) over a model of its exponential family (``efce.treemodel`` for games
whose tree compiles, ``efce.polymatrix`` for polymatrix games such as large grids, both on
``efce.family``), the same boosting with exact expectations
(``sample_efce(..., options=SamplerOptions(expectations="exact"))``, the ground truth for the
sampler; ``exact_distribution`` gives a result's final distribution exactly), exact EFCE of games
too large to enumerate by column generation (``efce.colgen``, priced by the MAP profile of
``efce.factormap``), and the paper's games (``efce.games``: the job market game, three-player
Indian poker, the grid game).

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from seqform.lazyexports import lazy_exports

# every name is imported when first used: the command line loads this package for its plugin
__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)

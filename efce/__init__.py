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

from .causalregret import max_regret
from .colgen import (
    ColumnGenerationResult,
    ColumnGenerationStopped,
    EFCEColumnGeneration,
    efce_column_generation,
    payoff_ranges,
)
from .exact import EFCEResult, max_entropy, solve_lp
from .games import grid_game, indian_poker, job_market
from .sampling import SamplerOptions, SamplingResult, sample_efce, validated_regret
from .strategies import profiles
from .validation import exact_distribution

__all__ = [
    "job_market",
    "indian_poker",
    "grid_game",
    "profiles",
    "max_entropy",
    "solve_lp",
    "EFCEResult",
    "sample_efce",
    "SamplerOptions",
    "validated_regret",
    "SamplingResult",
    "EFCEColumnGeneration",
    "efce_column_generation",
    "payoff_ranges",
    "ColumnGenerationResult",
    "ColumnGenerationStopped",
    "exact_distribution",
    "max_regret",
]

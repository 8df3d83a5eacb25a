"""Extensive-form correlated equilibria (Dudik & Gordon 2009): causal deviations and their
regret (``regret``), exact ground truth for small games (``exact``: the EFCE polytope with HiGHS,
maximum entropy with cvxpy), the sampling algorithm (``sampling``) over a model of its
exponential family (``treemodel`` for games whose tree compiles, ``polymatrix`` for polymatrix
games such as large grids, both on ``family``), the same boosting with exact expectations
(``sample_efce(..., options=SamplerOptions(expectations="exact"))``, the ground truth for the
sampler), exact EFCE of games too large to enumerate by column generation (``colgen``,
priced by the MAP profile of ``factormap``), and the paper's games (``games``: the job market
game, three-player Indian poker, the grid game).

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""
from .colgen import (ColumnGenerationResult, ColumnGenerationStopped, EFCEColumnGeneration,
                     efce_column_generation, payoff_ranges)
from .exact import EFCEResult, max_entropy, solve_lp
from .games import grid_game, indian_poker, job_market
from .sampling import SamplerOptions, SamplingResult, sample_efce, validated_regret
from .strategies import profiles

__all__ = ["job_market", "indian_poker", "grid_game", "profiles", "max_entropy", "solve_lp", "EFCEResult",
           "sample_efce", "SamplerOptions", "validated_regret", "SamplingResult", "EFCEColumnGeneration", "efce_column_generation",
           "payoff_ranges", "ColumnGenerationResult", "ColumnGenerationStopped"]

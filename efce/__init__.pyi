"""The names ``efce`` exports (its front door, read by type checkers and by ``seqform.lazyexports``)."""

from .causalregret import max_regret as max_regret
from .colgen import (
    ColumnGenerationResult as ColumnGenerationResult,
)
from .colgen import (
    ColumnGenerationStopped as ColumnGenerationStopped,
)
from .colgen import (
    EFCEColumnGeneration as EFCEColumnGeneration,
)
from .colgen import (
    efce_column_generation as efce_column_generation,
)
from .colgen import (
    payoff_ranges as payoff_ranges,
)
from .exact import EFCEResult as EFCEResult
from .exact import max_entropy as max_entropy
from .exact import solve_lp as solve_lp
from .games import grid_game as grid_game
from .games import indian_poker as indian_poker
from .games import job_market as job_market
from .sampling import (
    SamplerOptions as SamplerOptions,
)
from .sampling import (
    SamplingResult as SamplingResult,
)
from .sampling import (
    sample_efce as sample_efce,
)
from .sampling import (
    validated_regret as validated_regret,
)
from .strategies import profiles as profiles
from .validation import exact_distribution as exact_distribution

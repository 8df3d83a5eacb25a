"""The names ``doracle`` exports (its front door, read by type checkers and by ``seqform.lazyexports``)."""

from .extend import extended_profile as extended_profile
from .loop import MODES as MODES
from .loop import DoubleOracleResult as DoubleOracleResult
from .loop import double_oracle as double_oracle

solve = double_oracle  # ``doracle.solve(game)``

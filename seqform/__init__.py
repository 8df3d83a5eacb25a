"""seqform: exact mathematical programming for extensive-form games.

``seqform.solve(game)`` solves a two-player zero-sum game exactly (sequence-form LP with HiGHS,
certified in rational arithmetic); ``seqform.games`` has the built-in games.
"""
from __future__ import annotations

from importlib import metadata as _metadata

from seqform import games
from seqform.verify.exploitability import best_response, exploitability
from seqform.errors import (CertificateError, ChanceProbabilityError, GameError, ImperfectRecallError, SeqformError,
                     SolverError, StrategyError, UnknownGameError, UnsupportedGameError)
from seqform.io.efgwrite import write_efg
from seqform.io.efgread import read_efg
from seqform.verify.evaluate import Evaluation, evaluate
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.verify.infosetregret import infoset_regret
from seqform.lp.sequenceform import sequence_form
from seqform import registry  # the module: seqform.registry.registry() is the registry
from seqform.result import Result
from seqform.solve import GeneralSumSolution, Solution, solve
from seqform.model.strategy import Profile, uniform
from seqform.model.tree import Tree, compile_tree

try:
    __version__ = _metadata.version("seqform")
except _metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"


def from_openspiel(pyspiel_game, **kwargs) -> Game:
    """An OpenSpiel game as a seqform ``Game`` (needs the ``openspiel`` extra)."""
    from seqform.io.openspiel import from_openspiel as _f
    return _f(pyspiel_game, **kwargs)


__all__ = ["solve", "Solution", "GeneralSumSolution", "Result", "registry", "__version__", "games", "Game", "read_efg", "write_efg", "evaluate", "Evaluation", "Tree", "compile_tree", "sequence_form", "Profile", "uniform",
           "best_response", "exploitability", "infoset_regret", "from_openspiel", "CHANCE", "TERMINAL",
           "SeqformError", "GameError", "ImperfectRecallError", "ChanceProbabilityError", "UnknownGameError",
           "UnsupportedGameError", "SolverError", "StrategyError", "CertificateError"]

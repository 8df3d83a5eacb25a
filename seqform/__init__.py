"""seqform: exact mathematical programming for extensive-form games.

``seqform.solve(game)`` solves a two-player game exactly (zero-sum: the sequence-form LP with
HiGHS, certified in rational arithmetic; general-sum: Lemke's algorithm on the sequence-form LCP);
``seqform.games`` has the built-in games.

This package is the front door of the core: the game model and its compiler, the solve pipeline,
the checks of strategies, the file formats and converters, and every user-facing exception
(``seqform.errors``). The other front doors are ``seqform.iterative`` (iterative solvers),
``seqform.study`` (the ``seqform verify`` harness and verification studies) and each extension's
package (``refinements``, ``lossless``, ``doracle``, ``efce``). ``tests/test_public_api.py``
lists what each exports.
"""

from __future__ import annotations

from importlib import metadata as _metadata

from seqform import (
    games,
    registry,  # the module: seqform.registry.registry() is the registry
)
from seqform.errors import (
    CertificateError,
    ChanceProbabilityError,
    CheckpointError,
    EfgParseError,
    GameError,
    ImperfectRecallError,
    OpenSpielNotInstalled,
    SeqformError,
    SolverError,
    StrategyError,
    StudyError,
    TimeLimitError,
    TooLargeError,
    UnguardedMainError,
    UnknownGameError,
    UnsupportedGameError,
)
from seqform.io.efgread import read_efg
from seqform.io.efgwrite import write_efg
from seqform.io.openspiel import from_openspiel, from_openspiel_policy, to_openspiel_policy
from seqform.io.strategyjson import (
    from_pygambit_behavior,
    profile_from_json,
    profile_to_json,
    read_profile,
    to_pygambit_behavior,
    write_profile,
)
from seqform.io.treedraw import draw_tree
from seqform.lp.sequenceform import sequence_form
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.model.strategy import Profile, behaviour_from_realization, realization_plan, uniform
from seqform.model.tree import Tree, compile_tree
from seqform.result import Result
from seqform.solve import GeneralSumSolution, Solution, solve
from seqform.verify.evaluate import Evaluation, evaluate
from seqform.verify.exploitability import best_response, exploitability
from seqform.verify.infosetregret import infoset_regret

try:
    __version__ = _metadata.version("seqform")
except _metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"


__all__ = [
    # solving and results
    "solve",
    "Solution",
    "GeneralSumSolution",
    "Result",
    "registry",
    "__version__",
    # the game model and its compiler
    "games",
    "Game",
    "CHANCE",
    "TERMINAL",
    "Tree",
    "compile_tree",
    "sequence_form",
    # strategies and their checks
    "Profile",
    "uniform",
    "realization_plan",
    "behaviour_from_realization",
    "evaluate",
    "Evaluation",
    "best_response",
    "exploitability",
    "infoset_regret",
    # files and other libraries
    "read_efg",
    "write_efg",
    "profile_to_json",
    "profile_from_json",
    "read_profile",
    "write_profile",
    "to_pygambit_behavior",
    "from_pygambit_behavior",
    "from_openspiel",
    "to_openspiel_policy",
    "from_openspiel_policy",
    "draw_tree",
    # exceptions (seqform.errors)
    "SeqformError",
    "GameError",
    "ImperfectRecallError",
    "ChanceProbabilityError",
    "EfgParseError",
    "UnknownGameError",
    "UnsupportedGameError",
    "TooLargeError",
    "SolverError",
    "TimeLimitError",
    "StrategyError",
    "CertificateError",
    "CheckpointError",
    "UnguardedMainError",
    "OpenSpielNotInstalled",
    "StudyError",
]

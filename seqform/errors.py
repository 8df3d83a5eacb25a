"""Exception types of seqform.

Every error a user can cause (a bad game, a bad file, a bad option, a solver that gave up) is one
of these, with a message that names the problem and where it is. Code that catches ``SeqformError``
catches them all.
"""
from __future__ import annotations


class SeqformError(Exception):
    """Base class of every error seqform raises on purpose."""


class GameError(SeqformError):
    """The game violates the model: bad chance probabilities, bad actions, bad utilities."""


class ImperfectRecallError(GameError):
    """An information set whose nodes disagree on the owner's own past (violates perfect recall)."""


class ChanceProbabilityError(GameError):
    """Chance probabilities at a node are negative, or do not sum to exactly one."""


class UnknownGameError(SeqformError):
    """A game name or parameter that seqform does not know."""


class UnsupportedGameError(SeqformError):
    """A solver was given a game outside its class (e.g. not two-player zero-sum)."""


class SolverError(SeqformError):
    """The LP solver did not return an optimal solution (status, time limit, numerical trouble)."""


class StrategyError(SeqformError):
    """A strategy that is not a proper distribution at some information set, or has the wrong shape."""


class CertificateError(SeqformError):
    """Exact verification of a solution failed (never raised silently: see ``Certificate``)."""


class CheckpointError(SeqformError):
    """A checkpoint that cannot be resumed here: another algorithm, game or format."""

"""Exception types of seqform.

Every error a user can cause (a bad game, a bad file, a bad option, a solver that gave up) is one
of these, with a message that names the problem and where it is. Code that catches ``SeqformError``
catches them all. ``__all__`` lists every user-facing one, and ``seqform`` exports each; the
extensions' own errors (``refinements.RefinementError``, ``lossless.AbstractionError``, ...) live
in their packages and subclass ``SeqformError`` too.
"""

from __future__ import annotations

__all__ = [
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


class SeqformError(Exception):
    """Base class of every error seqform raises on purpose."""


class GameError(SeqformError):
    """The game violates the model: bad chance probabilities, bad actions, bad utilities."""


class ImperfectRecallError(GameError):
    """An information set whose nodes disagree on the owner's own past (violates perfect recall)."""


class ChanceProbabilityError(GameError):
    """Chance probabilities at a node are negative, or do not sum to exactly one."""


class EfgParseError(GameError):
    """A Gambit ``.efg`` text that cannot be read: ``FILE:LINE:COL: expected X, found Y``
    (raised by ``seqform.io.efgread``).

    Attributes: ``filename``, ``line`` and ``column`` (from 1; columns count characters),
    ``expected`` and ``found`` (the two halves of the message).
    """

    def __init__(self, filename: str, line: int, column: int, expected: str, found: str):
        self.filename = filename
        self.line = line
        self.column = column
        self.expected = expected
        self.found = found
        # the file name escaped if it has anything a terminal line should not hold
        shown = filename if filename.isprintable() else repr(filename)[1:-1]
        super().__init__(f"{shown}:{line}:{column}: expected {expected}, found {found}")

    def __reduce__(self):
        return (type(self), (self.filename, self.line, self.column, self.expected, self.found))


class UnknownGameError(SeqformError):
    """A game name or parameter that seqform does not know."""


class UnsupportedGameError(SeqformError):
    """A solver was given a game outside its class (e.g. not two-player zero-sum)."""


class TooLargeError(SeqformError):
    """The game (or its LP) would need more memory than the limit allows (``seqform.model.limits``)."""


class SolverError(SeqformError):
    """The LP solver did not return an optimal solution (status, time limit, numerical trouble)."""


class TimeLimitError(SolverError):
    """A solver stopped by its time limit before it reached an optimum. ``col_value`` and
    ``row_dual``: where HiGHS stood when it stopped (arrays, or None when it had no solution),
    from which a caller can still bound the answer exactly."""

    def __init__(self, message: str, col_value=None, row_dual=None):
        super().__init__(message)
        self.col_value = col_value
        self.row_dual = row_dual


class StrategyError(SeqformError):
    """A strategy that is not a proper distribution at some information set, or has the wrong shape."""


class CertificateError(SeqformError):
    """Exact verification of a solution failed (never raised silently: see ``Certificate``)."""


class CheckpointError(SeqformError):
    """A checkpoint that cannot be resumed here: another algorithm, game or format."""


class UnguardedMainError(SeqformError):
    """A process pool's spawned workers, importing the main script again, found its top-level code
    starting a pool of its own: the script lacks ``if __name__ == "__main__":``."""


class OpenSpielNotInstalled(SeqformError, ImportError):
    """OpenSpiel (the optional extra ``seqform[openspiel]``) is needed but not installed."""


class StudyError(SeqformError):
    """A malformed study file (``seqform.study.studyspec``): the message starts with ``file:line:``."""

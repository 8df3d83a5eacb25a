"""Exception types of seqform.

Every error a user can cause (a bad game, a bad file, a bad option, a solver that gave up) is one
of these, with a message that names the problem and where it is. Code that catches ``SeqformError``
catches them all. ``__all__`` lists every user-facing one, and ``seqform`` exports each; the
extensions' own errors (``refinements.RefinementError``, ``lossless.AbstractionError``, ...) live
in their packages and subclass ``SeqformError`` too.

A message that tells the caller which parameter to change holds a ``Remedy`` and shows it in the
reader's words: the parameter from Python (``pass check_game=False``), the flag from the command
line (``use --no-check-game``), which maps parameters to flags with ``flags_for_parameters``.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping

# the user-facing exceptions (``Remedy`` and ``flags_for_parameters`` are how their messages
# name parameters, not exceptions)
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


_RAISE = object()  # a Remedy without a value: raise the parameter


#: How the current reader names parameters: None (Python code: the parameters' own names) or
#: the command line's ``{"check_game=False": "--no-check-game", "exact_limit": "--exact-limit"}``
#: (keys ``param=value`` for a flag that passes one value, ``param`` for a flag taking one).
_flag_names: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar("flag_names", default=None)


@contextlib.contextmanager
def flags_for_parameters(names: Mapping[str, str]) -> Iterator[None]:
    """Within the block, every ``Remedy`` shown (an error's message, a result's note) names the
    command-line flag ``names`` gives for its parameter instead of the parameter. The command
    line wraps each command in this; Python callers never need it."""
    token = _flag_names.set(names)
    try:
        yield
    finally:
        _flag_names.reset(token)


class Remedy:
    """One parameter a caller can change to get past an error or a limit: pass ``param=value``,
    or, without ``value``, raise ``param``; ``purpose`` ends the advice ("to read it anyway").

    ``str(remedy)`` is the advice in the words of whoever reads it: ``pass check_game=False to
    read it anyway`` from Python, ``use --no-check-game to read it anyway`` inside
    ``flags_for_parameters`` (the command line). Messages hold the ``Remedy`` itself and show it
    when printed, so the same error speaks to both.
    """

    def __init__(self, param: str, value: object = _RAISE, purpose: str = ""):
        self.param, self.value, self.purpose = param, value, purpose

    def __str__(self) -> str:
        names = _flag_names.get() or {}
        raise_it = self.value is _RAISE
        valued = f"{self.param}={self.value}"
        if not raise_it and valued in names:  # a flag that passes this value
            words = f"use {names[valued]}"
        elif self.param in names:
            words = f"raise {names[self.param]}" if raise_it else f"use {names[self.param]} {self.value}"
        else:
            shown = f'"{self.value}"' if isinstance(self.value, str) else repr(self.value)
            words = f"raise {self.param}" if raise_it else f"pass {self.param}={shown}"
        return f"{words} {self.purpose}" if self.purpose else words

    def __repr__(self) -> str:
        value = "" if self.value is _RAISE else f", {self.value!r}"
        return f"Remedy({self.param!r}{value}, purpose={self.purpose!r})"

    def __reduce__(self):
        return (type(self), (self.param, self.value, self.purpose))


class SeqformError(Exception):
    """Base class of every error seqform raises on purpose.

    ``remedy`` (keyword, optional): the ``Remedy`` that gets past it, shown after the message in
    parentheses in the reader's words (see ``Remedy``); ``problem`` is the message without it.
    """

    remedy: Remedy | None = None

    def __init__(self, *args, remedy: Remedy | None = None):
        super().__init__(*args)
        if remedy is not None:
            self.remedy = remedy

    @property
    def problem(self) -> str:
        """The message without the remedy."""
        return super().__str__()

    def __str__(self) -> str:
        return self.problem if self.remedy is None else f"{self.problem} ({self.remedy})"


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

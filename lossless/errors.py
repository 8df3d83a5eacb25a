"""Exception types of the lossless-abstraction package."""

from __future__ import annotations

from seqform.errors import GameError, SeqformError


class OrderedSignalError(GameError):
    """A game with ordered signals that is malformed: its deck, deals, betting or hand order."""


class AbstractionError(SeqformError):
    """GameShrink was asked for something it cannot do (e.g. a game too large for its limits), or a
    strategy to lift does not fit the abstraction."""

"""Exception types of the refinements package (all are ``seqform.SeqformError``)."""

from __future__ import annotations

from seqform.errors import SeqformError


class PerturbationError(SeqformError):
    """A perturbation that is malformed, or leaves a player no strategy at the given eps."""


class RefinementError(SeqformError):
    """The trembling-LP search found no basis that stays optimal as eps -> 0 within its budget."""

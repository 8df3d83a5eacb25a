"""What a game may declare about itself: that it is a game with ordered signals.

A game with ordered signals (Gilpin & Sandholm 2007, "Lossless Abstraction of Imperfect Information
Games") deals cards and lets the players bet on a tree that never depends on the cards; the cards
only decide who wins a showdown. Such a game has a lossless abstraction (GameShrink: suit
isomorphism and more), whose LP is several times smaller than the game's own. A game declares the
form by returning an ``OrderedSignals`` from ``Game.ordered_signals()``; ``seqform.solve`` then
hands the game to an abstraction an extension registered (``lossless``), and certifies the
returned strategies in the game itself, with exact best responses. The declaration is never
trusted: a wrong one gives strategies that fail that certificate, and the game is solved by its
own LP instead.

References:

- Gilpin & Sandholm (2007), "Lossless Abstraction of Imperfect Information Games", Journal of the ACM.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass


@dataclass(frozen=True)
class OrderedSignals:
    """A game's declaration that it is a game with ordered signals.

    ``game``: the same game built as a game with ordered signals: a GAME argument (as
    ``seqform.games.load`` takes), e.g. ``"leduc_os(ranks=5,suits=2)"``, or the game object
    itself (a ``lossless.OrderedSignalGame`` declares itself). ``observation(key, player)``:
    for one of this game's information-set keys, what ``player`` has seen there: the cards, as
    indices into that game's deck in the order they were dealt (private before public within a
    round), and the betting so far in limit-betting letters ("k" check, "b" bet, "f" fold, "c"
    call, "r" raise; rounds split by "/", so "kk/kb" is player 1 facing a bet in round 2).
    """

    game: object
    observation: Callable[[Hashable, int], tuple[tuple[int, ...], str]]


@dataclass
class AbstractionPlans:
    """What an abstraction an extension registered (``seqform.registry``'s ``add_abstraction``)
    returns for a game that declares ordered signals: both players' plans on the game's own
    compiled tree, lifted from the abstract game's solution.

    ``plans``: ``[x, y]``, realization plans over each player's sequences of the game's tree:
    exact (Fractions) when ``exact``, else floats. ``lp_method``: the LP algorithm that solved the
    abstract game ("simplex", "ipm", ...). ``abstract_sizes``: the abstract game's sizes (as
    ``Tree.sizes``). ``seconds``: the abstraction's steps. ``note``: a line on what was done,
    for the result's certificate.
    """

    plans: list
    exact: bool
    lp_method: str
    abstract_sizes: dict
    seconds: dict
    note: str = ""


__all__ = ["OrderedSignals", "AbstractionPlans"]

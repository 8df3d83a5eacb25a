"""The poker family as games with ordered signals, with a parameterised deck (ranks x suits).

* ``rhode_island(ranks=13, suits=4)``: Rhode Island Hold'em (Shi & Littman 2002): ante 5, one
  private card each, a betting round, a public card, a betting round, a public card, a betting
  round, showdown of the private card with the two public cards (``lossless.handrank.three_card``); bets
  are 10 in round 1 and 20 in rounds 2 and 3, at most 3 bets a round counting the opening bet;
  player 0 acts first in every round. With the full deck its sequence-form LP has 91,224,226 rows
  (Sandholm 2010), which ``lossless.sizes`` reproduces without building the game.
* ``leduc_os(ranks=3, suits=2)``: Leduc hold'em (ante 1, bets 2 and 4, two bets a round) written
  as a game with ordered signals; same tree and value as ``seqform.games.leduc``.
* ``four_card()``: the game of Sandholm 2010, Figure 2: a deck of two jacks and two kings, one card
  each, one betting round (ante 1, bet 1, one bet: check or bet, then fold or call): 113 nodes.

Card labels are a rank character and a suit character, e.g. "Ks"; the four-card game's cards are
"J1", "J2", "K1", "K2".

References:

- Sandholm (2010), "The State of Solving Large Incomplete-Information Games, and Application to Poker", AI Magazine.
"""

from __future__ import annotations

from seqform.errors import UnknownGameError

from . import handrank
from .betting import limit_betting
from .orderedsignals import OrderedSignalGame

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"


def deck_labels(ranks: int, suits: int) -> list:
    """Labels of a ``ranks`` x ``suits`` deck, card ``rank * suits + suit``; the top ranks of the
    usual deck are used (3 ranks: Q, K, A)."""
    if not (1 <= ranks <= 13 and 1 <= suits <= 4):
        raise UnknownGameError(f"a deck has 1..13 ranks and 1..4 suits; got ranks={ranks}, suits={suits}")
    names = RANK_CHARS[13 - ranks :]
    return [names[r] + SUIT_CHARS[s] for r in range(ranks) for s in range(suits)]


def rhode_island(ranks: int = 13, suits: int = 4) -> OrderedSignalGame:
    """Rhode Island Hold'em with a ``ranks`` x ``suits`` deck (default: the full 52 cards)."""
    deck = deck_labels(ranks, suits)
    if len(deck) < 4:
        raise UnknownGameError(f"rhode_island needs at least 4 cards; got ranks={ranks}, suits={suits}")
    name = "rhode_island" if (ranks, suits) == (13, 4) else f"rhode_island(ranks={ranks},suits={suits})"
    return OrderedSignalGame(
        deck,
        private=[(1, 1), (0, 0), (0, 0)],
        public=[0, 1, 1],
        betting=limit_betting(3, (10, 20, 20), max_bets=3, ante=5),
        rank=handrank.three_card(ranks, suits),
        name=name,
    )


def leduc_os(ranks: int = 3, suits: int = 2) -> OrderedSignalGame:
    """Leduc hold'em as a game with ordered signals (a ``ranks`` x ``suits`` deck)."""
    deck = deck_labels(ranks, suits)
    if len(deck) < 3:
        raise UnknownGameError(f"leduc_os needs at least 3 cards; got ranks={ranks}, suits={suits}")
    name = "leduc_os" if (ranks, suits) == (3, 2) else f"leduc_os(ranks={ranks},suits={suits})"
    return OrderedSignalGame(
        deck,
        private=[(1, 1), (0, 0)],
        public=[0, 1],
        betting=limit_betting(2, (2, 4), max_bets=2, ante=1),
        rank=handrank.leduc(suits),
        name=name,
    )


def four_card() -> OrderedSignalGame:
    """The two-jack, two-king game of Sandholm's survey (2010, "The State of Solving Large
    Incomplete-Information Games, and Application to Poker"), Figure 2 (113 nodes)."""
    return OrderedSignalGame(
        ["J1", "J2", "K1", "K2"],
        private=[(1, 1)],
        public=[0],
        betting=limit_betting(1, (1,), max_bets=1, ante=1),
        rank=handrank.high_card(2),
        name="four_card",
    )

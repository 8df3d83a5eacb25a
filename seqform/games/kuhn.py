"""Kuhn poker (Kuhn 1950): three cards, ante 1, one betting round of at most one bet of 1.

Dealt as OpenSpiel deals it (player 0's card, then player 1's), so its tree has the same 58
histories, 30 leaves and 6 information sets per player. The game value for player 0 is -1/18.
"""

from __future__ import annotations

from fractions import Fraction

from seqform.games.labels import join
from seqform.model.game import CHANCE, TERMINAL, Game

_ACTIONS = ("Pass", "Bet")
#: the cards 0, 1, 2 by rank
CARD_NAMES = ("J", "Q", "K")


class Kuhn(Game):
    """State: (cards dealt so far, betting history as a string of 'p'/'b')."""

    name = "kuhn"
    num_players = 2

    def root(self):
        return ((), "")

    def player(self, h):
        cards, hist = h
        if len(cards) < 2:
            return CHANCE
        if hist in ("pp", "bp", "bb", "pbp", "pbb"):
            return TERMINAL
        return len(hist) % 2

    def infoset(self, h):
        cards, hist = h
        return (cards[len(hist) % 2], hist)

    def actions(self, h):
        cards, _ = h
        if len(cards) < 2:
            return tuple(f"deal {CARD_NAMES[c]}" for c in range(3) if c not in cards)
        return _ACTIONS

    def chance(self, h):
        n = 3 - len(h[0])
        return (Fraction(1, n),) * n

    def next(self, h, a):
        cards, hist = h
        if len(cards) < 2:
            return (cards + ([c for c in range(3) if c not in cards][a],), hist)
        return (cards, hist + "pb"[a])

    def utility_bound(self, h, player: int) -> int:
        """The largest utility of either player at any leaf: a pot of 2 each."""
        return 2

    def utility(self, h):
        cards, hist = h
        if hist == "bp":
            return (1, -1)
        if hist == "pbp":
            return (-1, 1)
        stake = 1 if hist == "pp" else 2
        win = stake if cards[0] > cards[1] else -stake
        return (win, -win)

    def describe(self, h):
        return f"cards={h[0]} history={h[1]!r}"

    def infoset_name(self, key, player: int) -> str:
        """``"Q | pb"``: the player's card, then the betting ("p" pass, "b" bet) as OpenSpiel's
        ``"1pb"``; ``"Q"`` before anyone has acted."""
        card, hist = key
        return join(CARD_NAMES[card], hist)

    def size_key(self, h):
        # the cards dealt change no one's actions: subtree sizes depend on how many and the history
        return (len(h[0]), h[1])


def kuhn() -> Kuhn:
    """Kuhn poker, two players, value -1/18 for player 0."""
    return Kuhn()

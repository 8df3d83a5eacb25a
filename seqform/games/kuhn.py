"""Kuhn poker (Kuhn 1950) for ``players`` players: ``players + 1`` cards, ante 1, one betting
round of at most one bet of 1.

Dealt and played as OpenSpiel's ``kuhn_poker(players=N)``, so its tree has the same histories,
leaves and information sets per player. Each player in turn (0 first) passes or bets. If nobody
bets, the highest card wins the pot of N. After the first bet, every other player gets one
more turn, in order, until the player just before the first bettor: "Bet" then calls (1 more)
and "Pass" folds; the highest card among the bettor and the callers wins the pot. A player's
utility is the pot minus its contribution if it wins, else minus its contribution.

Two players: three cards (J, Q, K), 58 histories, 30 leaves and 6 information sets per player;
the game value for player 0 is -1/18. Three players: 617 histories, 16 information sets per
player; four: 7,886 and 40.
"""

from __future__ import annotations

from fractions import Fraction

from seqform.errors import UnknownGameError
from seqform.games.labels import join, rank_names
from seqform.model.game import CHANCE, TERMINAL, Game

_ACTIONS = ("Pass", "Bet")
#: the cards 0, 1, 2 of the two-player game by rank
CARD_NAMES = ("J", "Q", "K")
#: OpenSpiel's kuhn_poker takes at most 10 players; more would only blow up the tree
MAX_PLAYERS = 10


class Kuhn(Game):
    """State: (cards dealt so far, betting history as a string of 'p'/'b')."""

    def __init__(self, players: int = 2):
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= MAX_PLAYERS:
            raise UnknownGameError(
                f"kuhn's players must be an integer from 2 to {MAX_PLAYERS}; got players={players!r}"
            )
        self.num_players = players
        self.name = "kuhn" if players == 2 else f"kuhn(players={players})"
        self.num_cards = players + 1
        #: the cards 0 .. players by rank: "J", "Q", "K" for two players, "T", "J", "Q", "K" for three
        self.card_names = rank_names(self.num_cards)
        self._deal_labels = tuple(f"deal {name}" for name in self.card_names)

    def root(self):
        return ((), "")

    def player(self, h):
        cards, hist = h
        n = self.num_players
        if len(cards) < n:
            return CHANCE
        first = hist.find("b")
        # without a bet, one turn each; after player f's first bet, turns run on to player f - 1
        if len(hist) == (n if first < 0 else n + first):
            return TERMINAL
        return len(hist) % n

    def infoset(self, h):
        cards, hist = h
        return (cards[len(hist) % self.num_players], hist)

    def actions(self, h):
        cards, _ = h
        if len(cards) < self.num_players:
            return tuple(self._deal_labels[c] for c in range(self.num_cards) if c not in cards)
        return _ACTIONS

    def chance(self, h):
        n = self.num_cards - len(h[0])
        return (Fraction(1, n),) * n

    def next(self, h, a):
        cards, hist = h
        if len(cards) < self.num_players:
            return (cards + ([c for c in range(self.num_cards) if c not in cards][a],), hist)
        return (cards, hist + "pb"[a])

    def utility_bound(self, h, player: int) -> int:
        """The largest utility of any player at any leaf: winning a pot of 2 from each of the
        others (2 with two players)."""
        return 2 * (self.num_players - 1)

    def utility(self, h):
        cards, hist = h
        n = self.num_players
        first = hist.find("b")
        if first < 0:
            put = [1] * n
        else:
            # the first bettor, then the later players' first-turn bets, then the earlier
            # players' second-turn calls
            put = [2 if p == first or hist[p if p > first else n + p] == "b" else 1 for p in range(n)]
        live = [p for p in range(n) if first < 0 or put[p] == 2]
        winner = max(live, key=lambda p: cards[p])
        pot = sum(put)
        return tuple(pot - put[p] if p == winner else -put[p] for p in range(n))

    def describe(self, h):
        return f"cards={h[0]} history={h[1]!r}"

    def infoset_name(self, key, player: int) -> str:
        """``"Q | pb"``: the player's card, then the betting ("p" pass, "b" bet) as OpenSpiel's
        ``"1pb"``; ``"Q"`` before anyone has acted."""
        card, hist = key
        return join(self.card_names[card], hist)

    def size_key(self, h):
        # the cards dealt change no one's actions: subtree sizes depend on how many and the history
        return (len(h[0]), h[1])


def kuhn(players: int = 2) -> Kuhn:
    """Kuhn poker for ``players`` players (2 to 10, default 2: value -1/18 for player 0), as
    OpenSpiel's ``kuhn_poker(players=N)``: N + 1 cards, ante 1, one bet of 1."""
    return Kuhn(players)

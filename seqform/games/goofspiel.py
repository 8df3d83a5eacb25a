"""Goofspiel (the game of pure strategy) for two players, as OpenSpiel's ``goofspiel``, turn-based.

Rules (OpenSpiel ``goofspiel(num_cards=K, imp_info=true, points_order=..., returns_type=...)``
passed through ``pyspiel.convert_to_turn_based``, whose tree this reproduces node for node): each
player holds the cards ``1..K`` and a deck of point cards ``1..K`` is revealed one per round. In
each round both players bid one card from their hand simultaneously; the higher bid wins the
point card's value, and on a tie nobody does (the point card is discarded). Bid cards are spent.
After ``K`` rounds the player with more points wins.

* ``points_order``: ``"descending"`` (point cards K, K-1, ..., 1), ``"ascending"`` (1, ..., K) or
  ``"random"`` (a chance node before each round draws the point card uniformly from those left).
* ``returns``: ``"win_loss"`` (+1 / -1, 0 on equal points) or ``"point_difference"`` (each player
  gets their points minus the mean, i.e. player 0 gets ``(points0 - points1) / 2``).
* Turn-based form: each simultaneous round becomes a player 0 node followed by a player 1 node,
  and player 1 does not see player 0's bid of that round.
* As in OpenSpiel, the last round is forced (one card left for chance and for each player), so it
  is played automatically: the tree has ``K - 1`` decision rounds (one when ``K = 1``).

Information (``imp_info=True``, OpenSpiel's information-state string): a player knows their own
bids, the point cards revealed so far (including the current one) and who won each finished
round (player 0, player 1 or a tie), but not the opponent's bids. The points are a function of
these and need not be part of the key.

``imp_info=False`` is *not* OpenSpiel's partition. OpenSpiel's perfect-information goofspiel,
made turn-based, keys information by the point cards, the win sequence and both remaining
hands, not by the order the cards were played, which violates perfect recall for ``K >= 4``. Here instead both players
see every finished round's bids (only the opponent's bid of the current round is hidden); for ``K <= 3``
this coincides with OpenSpiel's partition.

Sizes with ``imp_info=True`` (histories / terminals / information sets per player / sequences per
player, empty included), all equal to OpenSpiel's:

======================  =========  =========  ========  =========
cards, points_order     histories  terminals  infosets  sequences
======================  =========  =========  ========  =========
3, descending           67         36         8         18
4, descending           1,077      576        81        175
5, descending           26,931     14,400     1,062     2,284
6, descending           969,523    518,400    17,241    37,039
3, random               418        216        45        94
4, random               26,773     13,824     1,804     3,737
5, random               3,346,656  1,728,000  118,225   244,786
======================  =========  =========  ========  =========

Ascending order has the same sizes as descending.
"""

from __future__ import annotations

from fractions import Fraction

from seqform.errors import UnknownGameError
from seqform.games.labels import join
from seqform.model.game import CHANCE, TERMINAL, Game

POINTS_ORDERS = ("descending", "ascending", "random")
RETURNS = ("win_loss", "point_difference")
TIE = -1


class Goofspiel(Game):
    """State: ``(points, bids0, bids1, wins, hand0, hand1, deck, diff)``.

    ``points``: the point cards revealed so far (values ``1..K``); ``bids0``, ``bids1``: each
    player's bids so far; ``wins``: per finished round the winner, 0 or 1, or ``TIE`` (-1);
    ``hand0``, ``hand1``, ``deck``: bit masks (bit ``v`` for card ``v``) of the cards still in
    each hand and of the point cards not yet revealed; ``diff``: player 0's points minus player
    1's. Player 0 is to act when ``len(bids0) == len(bids1)``, player 1 when ``len(bids0) >
    len(bids1)``; with random order, a chance node comes first when ``len(points) ==
    len(bids1)``. The state is a leaf once ``K`` rounds are done.
    """

    num_players = 2

    def __init__(
        self, cards: int = 4, points_order: str = "descending", returns: str = "win_loss", imp_info: bool = True
    ):
        if not isinstance(cards, int) or isinstance(cards, bool) or cards < 1:
            raise UnknownGameError(f"goofspiel needs cards >= 1; got cards={cards!r}")
        if points_order not in POINTS_ORDERS:
            raise UnknownGameError(
                f"goofspiel points_order must be one of {', '.join(POINTS_ORDERS)}; got {points_order!r}"
            )
        if returns not in RETURNS:
            raise UnknownGameError(f"goofspiel returns must be one of {', '.join(RETURNS)} (zero-sum); got {returns!r}")
        self.cards, self.points_order, self.returns, self.imp_info = cards, points_order, returns, bool(imp_info)
        K = cards
        extra = "".join(
            [
                f",points_order={points_order!r}" if points_order != "descending" else "",
                f",returns={returns!r}" if returns != "win_loss" else "",
                ",imp_info=False" if not self.imp_info else "",
            ]
        )
        self.name = f"goofspiel(cards={K}{extra})"  # loadable by seqform.games.load
        self._random = points_order == "random"
        # the fixed point-card order (unused with random order)
        self._order = tuple(range(K, 0, -1)) if points_order == "descending" else tuple(range(1, K + 1))
        self._full = full = ((1 << K) - 1) << 1
        # per bit mask of cards: the cards, and labels for bids and for chance deals
        self._left = [tuple(v for v in range(1, K + 1) if m >> v & 1) for m in range(full + 1)]
        self._bid_labels = [tuple(f"Bid {v}" for v in cs) for cs in self._left]
        self._deal_labels = [tuple(f"Deal {v}" for v in cs) for cs in self._left]
        self._probs = [(Fraction(1, len(cs)),) * len(cs) if cs else () for cs in self._left]
        top = K * (K + 1) // 2
        self._utility: dict[int, tuple[int, int] | tuple[Fraction, Fraction]]
        if returns == "win_loss":
            self._utility = {d: ((d > 0) - (d < 0), (d < 0) - (d > 0)) for d in range(-top, top + 1)}
        else:
            self._utility = {d: (Fraction(d, 2), Fraction(-d, 2)) for d in range(-top, top + 1)}

    def _finish_round(self, h, c1: int):
        """The state after player 1 bids ``c1``; plays the forced last round, deals the next card."""
        points, b0, b1, wins, m0, m1, deck, diff = h
        c0 = b0[-1]
        b1 = b1 + (c1,)
        m1 ^= 1 << c1
        if c0 != c1:
            diff += points[-1] if c0 > c1 else -points[-1]
        wins = wins + ((0 if c0 > c1 else 1 if c1 > c0 else TIE),)
        K = self.cards
        if len(b1) == K - 1:  # OpenSpiel plays the last round (one card each) automatically
            if deck:
                points = points + self._left[deck]
                deck = 0
            c0, c1 = self._left[m0][0], self._left[m1][0]
            b0, b1 = b0 + (c0,), b1 + (c1,)
            if c0 != c1:
                diff += points[-1] if c0 > c1 else -points[-1]
            wins = wins + ((0 if c0 > c1 else 1 if c1 > c0 else TIE),)
            m0 = m1 = 0
        elif deck and not self._random:
            c = self._order[len(points)]
            points = points + (c,)
            deck ^= 1 << c
        return (points, b0, b1, wins, m0, m1, deck, diff)

    # --- the Game interface ----------------------------------------------------------------------
    def root(self):
        full = self._full
        if self._random:
            return ((), (), (), (), full, full, full, 0)
        c = self._order[0]
        return ((c,), (), (), (), full, full, full ^ (1 << c), 0)

    def player(self, h):
        n = len(h[2])
        if n == self.cards:
            return TERMINAL
        if len(h[1]) > n:
            return 1
        if len(h[0]) == n:
            return CHANCE
        return 0

    def infoset(self, h):
        points, b0, b1, wins = h[:4]
        if len(b0) > len(b1):  # player 1 to act; player 0's pending bid is hidden
            return (b1, points, wins) if self.imp_info else (b1, points, b0[:-1])
        return (b0, points, wins) if self.imp_info else (b0, points, b1)

    def actions(self, h):
        points, b0, b1 = h[:3]
        if len(b0) > len(b1):
            return self._bid_labels[h[5]]
        if len(points) == len(b1):
            return self._deal_labels[h[6]]
        return self._bid_labels[h[4]]

    def chance(self, h):
        return self._probs[h[6]]

    def size_key(self, h):
        # which cards were played changes no one's number of actions: how many were, in each
        # hand and in the prize deck, fixes the subtree
        return (len(h[0]), len(h[1]), len(h[2]))

    def next(self, h, a):
        points, b0, b1, wins, m0, m1, deck, diff = h
        if len(b0) > len(b1):
            return self._finish_round(h, self._left[m1][a])
        if len(points) == len(b1):
            c = self._left[deck][a]
            return (points + (c,), b0, b1, wins, m0, m1, deck ^ (1 << c), diff)
        c = self._left[m0][a]
        return (points, b0 + (c,), b1, wins, m0 ^ (1 << c), m1, deck, diff)

    def utility(self, h):
        return self._utility[h[7]]

    def utility_bound(self, h, player: int):
        """The largest utility of ``player`` at any leaf (a global bound)."""
        return max(u[player] for u in self._utility.values())

    def describe(self, h):
        return f"points={h[0]} bids0={h[1]} bids1={h[2]} wins={h[3]}"

    def infoset_name(self, key, player: int) -> str:
        """``"prize 2 | 4: 1 lost, 3: 4 won"``: the prize card bid for now, then each finished
        round's prize, the player's bid and whether it won, lost or tied (OpenSpiel's point card,
        action and win sequences); with ``imp_info=False`` the opponent's bid instead
        (``"4: 1 vs 3"``: bid 1 against 3)."""
        mine, points, seen = key
        if self.imp_info:
            rounds = [
                f"{points[r]}: {b} {'tied' if w == TIE else 'won' if w == player else 'lost'}"
                for r, (b, w) in enumerate(zip(mine, seen))
            ]
        else:
            rounds = [f"{points[r]}: {b} vs {o}" for r, (b, o) in enumerate(zip(mine, seen))]
        return join(f"prize {points[-1]}", ", ".join(rounds))


def goofspiel(
    cards: int = 4, points_order: str = "descending", returns: str = "win_loss", imp_info: bool = True
) -> Goofspiel:
    """Two-player goofspiel with ``cards`` cards, turn-based, as OpenSpiel's
    ``goofspiel(num_cards=cards, points_order=..., returns_type=returns, imp_info=...)`` under
    ``convert_to_turn_based`` (``imp_info=False`` differs; see the module docstring)."""
    return Goofspiel(cards, points_order, returns, imp_info)

"""Leduc hold'em (Southey et al. 2005), parameterised by the deck (ranks x suits).

Rules (as OpenSpiel's ``leduc_poker``, whose tree this reproduces node for node): each player
antes 1 and gets one private card; a betting round; one public card; a second betting round;
showdown. Bets and raises are 2 in round 1 and 4 in round 2, at most two bets per round counting
the opening bet; fold is legal only when facing a bet; player 0 opens both rounds. At showdown a
private card that pairs the public card wins, else the higher rank, else the pot is split.

Cards are ``rank * suits + suit``; information sets distinguish suits (no suit isomorphism), as
OpenSpiel does. Sizes: ranks=3, suits=2: 9,457 histories, 5,520 leaves, 468 information sets and
1,093 sequences per player; ranks=5: 55,361 / 32,760 / 1,380 / 3,221.
"""
from __future__ import annotations

from fractions import Fraction

from ..errors import UnknownGameError
from ..game import CHANCE, TERMINAL, Game

FOLD, CALL, RAISE = "Fold", "Call", "Raise"


class Leduc(Game):
    """State: (cards, public, history) with history a tuple of rounds, each a string over 'fcr'."""

    num_players = 2

    def __init__(self, ranks: int = 3, suits: int = 2):
        if ranks < 1 or suits < 1 or ranks * suits < 3:
            raise UnknownGameError(f"leduc needs at least 3 cards; got ranks={ranks}, suits={suits}")
        self.ranks, self.suits = ranks, suits
        self.deck = tuple(range(ranks * suits))
        self.name = f"leduc(ranks={ranks},suits={suits})" if (ranks, suits) != (3, 2) else "leduc"
        self._rounds: dict = {}
        self._rests: dict = {}
        self._puts: dict = {}

    # Betting facts depend only on the round's action string, and there are a handful of those:
    # memoised, so the compiler's calls cost a dict lookup.
    def _round(self, r: str):
        info = self._rounds.get(r)
        if info is None:
            bets = r.count("r")
            over = bool(r) and (r[-1] == "f" or (r[-1] == "c" and len(r) >= 2))
            acts = ((FOLD,) if bets > 0 and r[-1] == "r" else ()) + (CALL,) + ((RAISE,) if bets < 2 else ())
            info = self._rounds[r] = (over, acts, tuple(r + a[0].lower() for a in acts))
        return info

    def _rest(self, cards):
        rest = self._rests.get(cards)
        if rest is None:
            rest = self._rests[cards] = tuple(c for c in self.deck if c not in cards)
        return rest

    def root(self):
        return ((), -1, ("",))

    def player(self, h):
        cards, pub, hist = h
        if len(cards) < 2:
            return CHANCE
        r = hist[-1]
        if r.endswith("f"):
            return TERMINAL
        if self._round(r)[0]:
            return TERMINAL if len(hist) == 2 else CHANCE
        return len(r) % 2

    def infoset(self, h):
        cards, pub, hist = h
        return (cards[len(hist[-1]) % 2], pub, hist)

    def actions(self, h):
        cards, pub, hist = h
        if len(cards) < 2:
            return tuple(f"deal {c}" for c in self._rest(cards))
        over, acts, _ = self._round(hist[-1])
        if over:
            return tuple(f"public {c}" for c in self._rest(cards))
        return acts

    def chance(self, h):
        n = len(self.deck) - len(h[0])
        return (Fraction(1, n),) * n

    def next(self, h, a):
        cards, pub, hist = h
        if len(cards) < 2:
            return (cards + (self._rest(cards)[a],), pub, hist)
        over, _, after = self._round(hist[-1])
        if over:
            return (cards, self._rest(cards)[a], hist + ("",))
        return (cards, pub, hist[:-1] + (after[a],))

    def _contributions(self, hist):
        put = self._puts.get(hist)
        if put is None:
            put = [1, 1]
            for rnd, r in enumerate(hist):
                size = 2 if rnd == 0 else 4
                for i, c in enumerate(r):
                    p = i % 2
                    if c == "c":
                        put[p] = put[1 - p]
                    elif c == "r":
                        put[p] = put[1 - p] + size
            self._puts[hist] = put
        return put

    def utility(self, h):
        cards, pub, hist = h
        put = self._contributions(hist)
        r = hist[-1]
        if r.endswith("f"):
            folder = (len(r) - 1) % 2
            win = put[folder] if folder == 1 else -put[folder]
            return (win, -win)
        s = self.suits
        prk = pub // s
        r0, r1 = cards[0] // s, cards[1] // s
        s0 = (r0 == prk, r0)
        s1 = (r1 == prk, r1)
        if s0 == s1:
            return (0, 0)
        win = put[1] if s0 > s1 else -put[0]
        return (win, -win)

    def describe(self, h):
        return f"cards={h[0]} public={h[1]} history={'/'.join(h[2])!r}"


def leduc(ranks: int = 3, suits: int = 2) -> Leduc:
    """Leduc hold'em with a deck of ``ranks`` x ``suits`` cards (default 3 x 2)."""
    return Leduc(ranks, suits)

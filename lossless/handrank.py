"""Total orders on complete signal sets (hands) of the poker games with ordered signals.

Cards are ``rank * suits + suit``, ranks from 0 (lowest). Each function maps a sorted tuple of
cards to a comparable key: higher keys are better hands, equal keys tie.
"""

from __future__ import annotations

from collections.abc import Callable


def high_card(suits: int) -> Callable[[tuple], tuple]:
    """One card each, no public card: the higher rank wins (the four-card game of Sandholm 2010, Fig. 2)."""

    def rank(cards: tuple) -> tuple:
        return tuple(sorted((c // suits for c in cards), reverse=True))

    return rank


def leduc(suits: int) -> Callable[[tuple], tuple]:
    """Leduc hold'em: a private card and a public card; a pair beats no pair; otherwise the ranks
    compared from the top. The public card is shared, so comparing (high, low) is comparing the
    private cards, which is Leduc's rule."""

    def rank(cards: tuple) -> tuple:
        rs = sorted((c // suits for c in cards), reverse=True)
        return (int(len(set(rs)) < len(rs)),) + tuple(rs)

    return rank


STRAIGHT_FLUSH, TRIPS, STRAIGHT, FLUSH, PAIR, HIGH = 5, 4, 3, 2, 1, 0


def three_card(ranks: int, suits: int) -> Callable[[tuple], tuple]:
    """Rhode Island Hold'em's three-card hands (Shi & Littman 2002): straight flush > three of a
    kind > straight > flush > pair > high card. A straight is three consecutive ranks, the ace
    (the top rank) high or low (A-2-3 is the lowest straight). Ties are broken by the ranks that
    make the hand (a straight by its top card; a pair by its rank, then the kicker; a flush and
    high card by the ranks from the top)."""
    top = ranks - 1

    def rank(cards: tuple) -> tuple:
        rs = sorted((c // suits for c in cards), reverse=True)
        flush = len({c % suits for c in cards}) == 1
        distinct = len(set(rs))
        straight_top = None
        if distinct == 3 and ranks >= 3:
            if rs[0] - rs[2] == 2:
                straight_top = rs[0]
            elif rs == [top, 1, 0]:
                straight_top = 1  # ace low
        if straight_top is not None and flush:
            return (STRAIGHT_FLUSH, straight_top)
        if distinct == 1:
            return (TRIPS, rs[0])
        if straight_top is not None:
            return (STRAIGHT, straight_top)
        if flush:
            return (FLUSH,) + tuple(rs)
        if distinct == 2:
            pair = rs[1]
            return (PAIR, pair, rs[0] if rs[0] != pair else rs[2])
        return (HIGH,) + tuple(rs)

    return rank

"""Readable information-set labels for the built-in games (``Game.infoset_name``).

A label reads ``OBSERVED | HISTORY``:

* ``OBSERVED`` is what chance has shown the player: its cards by rank and suit (Kuhn ``"Q"``,
  Leduc ``"Js"``), the cards of later rounds after a ``"/"`` (Leduc ``"Js/Qh"``: the jack of spades,
  then the public queen of hearts), a Liar's Dice player's dice (``"2 5"``), a goofspiel prize card.
* ``HISTORY`` is what has been played, as OpenSpiel's information-state strings write it for Kuhn
  poker (``"0pb"``: card, then "p" and "b"): one letter per poker action, the initial of its label
  (Kuhn ``"pb"``, Leduc ``"rc/r"`` with rounds split by ``"/"``), and whole labels where an
  action is more than a letter (Liar's Dice bids ``"1-3 2-6"``, as OpenSpiel writes them).

An empty part is left out (``"Q"`` at Kuhn's first move) and ``"start"`` stands for both empty.
The player is not part of the label: strategies are listed per player, and a label is unique
among one player's information sets. The ``"/"`` between rounds is the Annual Computer Poker
Competition's, whose match-state strings split rounds with it in both the betting and the cards:
the cards of round r line up with the betting of round r. The ``" | "`` keeps the two parts apart
where both hold spaces (Liar's Dice).
"""

from __future__ import annotations

#: ranks from low to high; a deck of r <= 12 ranks takes the top r ranks up to the king (3: J, Q, K)
RANK_CHARS = "23456789TJQKA"
#: suits in deck order: a two-suit deck has spades and hearts
SUIT_CHARS = "shdc"
#: the label of an information set where nothing has been observed or played
START = "start"


def rank_names(ranks: int) -> tuple:
    """Names of ranks ``0 .. ranks-1``, low to high: ``"J", "Q", "K"`` for 3, up to the king for
    12 or fewer, ``"2" .. "A"`` for 13, numbers ``"1" .. str(ranks)`` beyond."""
    if ranks <= 12:
        return tuple(RANK_CHARS[12 - ranks : 12])
    if ranks == 13:
        return tuple(RANK_CHARS)
    return tuple(str(r + 1) for r in range(ranks))


def card_names(ranks: int, suits: int) -> tuple:
    """Names of cards ``rank * suits + suit`` (the numbering of ``seqform.games.leduc``): rank then
    suit (``"Js"``), the rank alone with one suit, ``"rank.suit"`` with numbered suits beyond four."""
    rn = rank_names(ranks)
    if suits == 1:
        return rn
    if suits <= len(SUIT_CHARS):
        return tuple(r + SUIT_CHARS[s] for r in rn for s in range(suits))
    return tuple(f"{r}.{s + 1}" for r in rn for s in range(suits))


def join(observed: str, history: str) -> str:
    """``"observed | history"``, leaving out an empty part; ``START`` when both are empty."""
    if observed and history:
        return f"{observed} | {history}"
    return observed or history or START

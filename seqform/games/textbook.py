"""Small textbook games about equilibrium refinements, as explicit trees (``explicit.TreeGame``).

* ``threat_zero_sum()``: Kroer, Farina & Sandholm 2017, Figure 1 (right), as its section 2 describes it. Player 0
  plays ``x`` (ending the game at 0) or ``y``; after ``y`` player 1 plays ``x`` (winning 5) or
  ``y`` (0). Playing ``x`` then ``y`` is a Nash equilibrium in which player 1 gives up 5 after
  player 0's mistake; refined equilibria take it.
* ``threat_general_sum()``: Kroer, Farina & Sandholm 2017, Figure 1 (left), as described there: player 1's threat to
  play ``y`` after ``y`` makes ``(x, y)`` a Nash equilibrium, but the threat is not credible
  (payoffs: x -> (0, 2); y then x -> (1, 1); y then y -> (-1, -1)). It is general-sum: the
  zero-sum LPs do not apply (an LCP would be needed).
* ``guess_the_ace()``: Miltersen & Sorensen's example. The top card of a shuffled deck is the ace
  of spades with probability 1/52; nobody sees it. Player 0 stops (0) or bets 1000 that player 1
  cannot guess whether it is the ace; player 1 guesses "ace" or "other" and wins 1000 if right,
  loses 1000 if wrong. Player 0 never bets, so any guess that keeps betting unprofitable (guessing
  "ace" up to half the time) is Nash; only "other" is quasi-perfect.
* ``selten_horse()``: Selten's horse (three players, general-sum): for evaluation and the
  N-player tools; the two-player zero-sum refinements do not apply to it.

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
- Miltersen & Sorensen (2010), "Computing a Quasi-Perfect Equilibrium of a Two-Player Game", Economic Theory.
"""
from __future__ import annotations

from fractions import Fraction

from seqform.games.explicit import TreeGame


def _leaf(*u):
    return ("leaf", tuple(u))


def threat_zero_sum() -> TreeGame:
    """Kroer, Farina & Sandholm (2017, "Smoothing Method for Approximate Extensive-Form Perfect
    Equilibrium"), Figure 1: the zero-sum game (see the module docstring)."""
    p1 = ("decision", 1, "P1 after y", ("x", "y"), (_leaf(-5, 5), _leaf(0, 0)))
    return TreeGame(("decision", 0, "P0 root", ("x", "y"), (_leaf(0, 0), p1)), name="threat_zero_sum")


def threat_general_sum() -> TreeGame:
    """Kroer, Farina & Sandholm (2017), Figure 1: the general-sum threat game (module docstring)."""
    p1 = ("decision", 1, "P1 after y", ("x", "y"), (_leaf(1, 1), _leaf(-1, -1)))
    return TreeGame(("decision", 0, "P0 root", ("x", "y"), (_leaf(0, 2), p1)), name="threat_general_sum")


def guess_the_ace(stake: int = 1000) -> TreeGame:
    """Miltersen & Sorensen's guess-the-ace game (see the module docstring)."""
    def after(card):
        win = card == "ace"
        guess = ("decision", 1, "P1 guesses", ("ace", "other"),
                 (_leaf(-stake, stake) if win else _leaf(stake, -stake),
                  _leaf(stake, -stake) if win else _leaf(-stake, stake)))
        return ("decision", 0, "P0", ("stop", "bet"), (_leaf(0, 0), guess))

    return TreeGame(("chance", ("ace", "other"), (Fraction(1, 52), Fraction(51, 52)),
                     (after("ace"), after("other"))), name="guess_the_ace")


def selten_horse() -> TreeGame:
    """Selten's horse: player 0 plays C or D; after C player 1 plays c (ending at (1, 1, 1)) or d;
    player 2, not knowing whether D or (C, d) happened, plays L or R."""
    def p2(after_d):
        return ("decision", 2, "P2", ("L", "R"),
                (_leaf(3, 3, 2), _leaf(0, 0, 0)) if after_d else (_leaf(4, 4, 0), _leaf(1, 1, 1)))
    p1 = ("decision", 1, "P1", ("c", "d"), (_leaf(1, 1, 1), p2(False)))
    return TreeGame(("decision", 0, "P0", ("C", "D"), (p1, p2(True))), name="selten_horse")

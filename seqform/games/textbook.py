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
* ``mertens_voting()``: Mertens' voting game, where the extensive-form perfect and the quasi-perfect
  equilibria are disjoint sets. Two players elect one of them, by secret ballot, to do a task that
  pays both 1 if done correctly and 0 if not. Voting the same name elects that player; two votes
  for oneself elect one of them at random (who is not told how); two votes for the other hand the
  task to an outsider, who does it correctly. The elected player then does it correctly or not.
  The unique quasi-perfect equilibrium: both vote for themselves and do it correctly (the only
  admissible behaviour). In every extensive-form perfect one, at least one player, fearing their
  own later tremble as much as the other's, votes for the other.
* ``selten_horse()``: Selten's horse (three players, general-sum): for evaluation and the
  N-player tools; the two-player zero-sum refinements do not apply to it.

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
- Miltersen & Sorensen (2010), "Computing a Quasi-Perfect Equilibrium of a Two-Player Game", Economic Theory.
- Mertens (1995), "Two examples of strategic equilibrium", Games and Economic Behavior.
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


def mertens_voting() -> TreeGame:
    """Mertens' (1995) voting game (see the module docstring). Player i's vote: "me" or "you"; the
    elected player, who knows only that they voted for themselves, plays "right" or "wrong"."""
    def task(i):
        return ("decision", i, f"P{i} elected", ("right", "wrong"), (_leaf(1, 1), _leaf(0, 0)))

    def after(v0):
        # player 1 votes without seeing player 0's vote
        if v0 == "me":
            both = ("chance", ("P0 drawn", "P1 drawn"), (Fraction(1, 2), Fraction(1, 2)), (task(0), task(1)))
            return ("decision", 1, "P1 votes", ("me", "you"), (both, task(0)))
        return ("decision", 1, "P1 votes", ("me", "you"), (task(1), _leaf(1, 1)))

    return TreeGame(("decision", 0, "P0 votes", ("me", "you"), (after("me"), after("you"))), name="mertens_voting")


def selten_horse() -> TreeGame:
    """Selten's horse: player 0 plays C or D; after C player 1 plays c (ending at (1, 1, 1)) or d;
    player 2, not knowing whether D or (C, d) happened, plays L or R."""
    def p2(after_d):
        return ("decision", 2, "P2", ("L", "R"),
                (_leaf(3, 3, 2), _leaf(0, 0, 0)) if after_d else (_leaf(4, 4, 0), _leaf(1, 1, 1)))
    p1 = ("decision", 1, "P1", ("c", "d"), (_leaf(1, 1, 1), p2(False)))
    return TreeGame(("decision", 0, "P0", ("C", "D"), (p1, p2(True))), name="selten_horse")

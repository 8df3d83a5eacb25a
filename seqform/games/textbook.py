"""Small textbook games about equilibrium refinements, as explicit trees (``seqform.games.explicit.TreeGame``).

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
* ``selten_horse()``: Selten's horse (Selten 1975, Figure 1; three players, general-sum): not all
  of its Nash equilibria share the outcome of its perfect one.
* ``selten_fig2()``: Selten 1975, Figure 2, the two-player game showing that perfectness in the
  normal form and in the extensive form differ: player 0 plays ``R`` (ending at (1, 1)) or ``L``;
  player 1 then plays ``R`` ((0, 2)) or ``L``; player 0 then plays ``r`` ((0, 3)) or ``l``
  ((2, 0)). Its unique extensive-form perfect (and quasi-perfect) equilibrium is ``R``, ``l``
  against ``R``. ``R`` then ``r`` against ``R`` is perfect in the normal form (where ``R r`` and
  ``R l`` are the same strategy) but fails both extensive-form definitions: ``r`` is a mistake at
  player 0's second node.
* ``selten_fig3()``: Selten 1975, Figure 3 (three players): two equilibria perfect in the normal
  form are not perfect in the extensive form.
* ``nau2004()``: Nau, Gomez Canovas & Hansen (2004), section 4: three players each choose between
  two actions at once; the game's only Nash equilibrium is irrational (probabilities in
  Q(sqrt(601))), so it has no rational equilibrium to certify.

Selten's three games' payoffs are as the paper's figures give them (the same numbers are in
Gambit's game catalogue, ``catalog/selten1975/fig1.efg`` to ``fig3.efg``).

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
- Miltersen & Sorensen (2010), "Computing a Quasi-Perfect Equilibrium of a Two-Player Game", Economic Theory.
- Nau, Gomez Canovas & Hansen (2004), "On the geometry of Nash equilibria and correlated equilibria", International
  Journal of Game Theory 32(4): 443-453.
- Mertens (1995), "Two examples of strategic equilibrium", Games and Economic Behavior.
- Selten (1975), "Reexamination of the perfectness concept for equilibrium points in extensive
  games", International Journal of Game Theory 4(1): 25-55.
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
        guess = (
            "decision",
            1,
            "P1 guesses",
            ("ace", "other"),
            (
                _leaf(-stake, stake) if win else _leaf(stake, -stake),
                _leaf(stake, -stake) if win else _leaf(-stake, stake),
            ),
        )
        return ("decision", 0, "P0", ("stop", "bet"), (_leaf(0, 0), guess))

    return TreeGame(
        ("chance", ("ace", "other"), (Fraction(1, 52), Fraction(51, 52)), (after("ace"), after("other"))),
        name="guess_the_ace",
    )


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
    """Selten's horse (1975, Figure 1): player 0 plays C or D; after C player 1 plays c (ending at
    (1, 1, 1)) or d; player 2, not knowing whether D or (C, d) happened, plays L or R: after D,
    (3, 2, 2) or (0, 0, 0); after (C, d), (4, 4, 0) or (0, 0, 1)."""

    def p2(after_d):
        return (
            "decision",
            2,
            "P2",
            ("L", "R"),
            (_leaf(3, 2, 2), _leaf(0, 0, 0)) if after_d else (_leaf(4, 4, 0), _leaf(0, 0, 1)),
        )

    p1 = ("decision", 1, "P1", ("c", "d"), (_leaf(1, 1, 1), p2(False)))
    return TreeGame(("decision", 0, "P0", ("C", "D"), (p1, p2(True))), name="selten_horse")


def selten_fig2() -> TreeGame:
    """Selten (1975), Figure 2: two players, player 0 moving twice (see the module docstring)."""
    second = ("decision", 0, "P0 second", ("r", "l"), (_leaf(0, 3), _leaf(2, 0)))
    p1 = ("decision", 1, "P1", ("R", "L"), (_leaf(0, 2), second))
    return TreeGame(("decision", 0, "P0 first", ("R", "L"), (_leaf(1, 1), p1)), name="selten_fig2")


def selten_fig3() -> TreeGame:
    """Selten (1975), Figure 3: three players. Player 0 plays R or L. After R, player 2 plays R
    ((3, 0, 3)) or L ((0, 0, 0)). After L, player 1 plays L ((1, 3, 0)) or R; after R player 0 plays
    L ((2, 0, 0)) or R, and after R player 2, in the same information set as after the first R,
    plays R ((4, 4, 0)) or L ((0, 0, 5))."""
    p2 = ("decision", 2, "P2", ("R", "L"), (_leaf(4, 4, 0), _leaf(0, 0, 5)))
    second = ("decision", 0, "P0 second", ("R", "L"), (p2, _leaf(2, 0, 0)))
    p1 = ("decision", 1, "P1", ("R", "L"), (second, _leaf(1, 3, 0)))
    first_p2 = ("decision", 2, "P2", ("R", "L"), (_leaf(3, 0, 3), _leaf(0, 0, 0)))
    return TreeGame(("decision", 0, "P0 first", ("R", "L"), (first_p2, p1)), name="selten_fig3")


def nau2004() -> TreeGame:
    """Nau, Gomez Canovas & Hansen (2004), section 4: three players, one irrational equilibrium.

    Players 0, 1 and 2 choose T/B, L/R and W/E at once (players 1 and 2 do not see the earlier
    moves). Payoffs (player 0, 1, 2): TLW (3, 0, 2),
    TLE (1, 0, 0), TRW (0, 2, 0), TRE (0, 1, 0), BLW (0, 1, 0), BLE (0, 3, 0), BRW (1, 0, 0),
    BRE (2, 0, 3), as in Gambit's catalogue (``journals/ijgt/nau2004/sec4``). Its unique Nash
    equilibrium is completely mixed and irrational: player 0 plays T with probability
    (53 - sqrt(601))/46."""
    u = {
        "TLW": (3, 0, 2), "TLE": (1, 0, 0), "TRW": (0, 2, 0), "TRE": (0, 1, 0),
        "BLW": (0, 1, 0), "BLE": (0, 3, 0), "BRW": (1, 0, 0), "BRE": (2, 0, 3),
    }  # fmt: skip

    def p2(a0, a1):
        return ("decision", 2, "P2", ("W", "E"), tuple(_leaf(*u[a0 + a1 + a2]) for a2 in "WE"))

    def p1(a0):
        return ("decision", 1, "P1", ("L", "R"), tuple(p2(a0, a1) for a1 in "LR"))

    return TreeGame(("decision", 0, "P0", ("T", "B"), (p1("T"), p1("B"))), name="nau2004")

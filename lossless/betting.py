"""Betting game forms of games with ordered signals (Gilpin & Sandholm 2007; Sandholm 2010).

In a game with ordered signals the legal actions never depend on the signals: the players bet on
a fixed tree, and the signals only decide who wins a showdown. ``Betting`` is that tree, over all
rounds, as flat tuples (one per betting node, numbered in preorder):

* ``kind``: ``DECIDE`` (a player acts), ``NEXT`` (the round is over: the next round's signals are
  dealt, then betting goes on at the node's one child), ``FOLD`` (a leaf whose payoff does not
  depend on the signals) or ``SHOWDOWN`` (a leaf whose payoff depends on who is ahead);
* ``player``, ``actions`` (labels) and ``children`` (node ids) at ``DECIDE`` nodes;
* ``payoff``: at ``FOLD`` the payoff vector; at ``SHOWDOWN`` a dict from outcome to payoff
  vector. An outcome is a tuple giving, for each player, how many players hold a strictly better
  complete signal set (so for two players ``(0, 1)``: player 0 ahead, ``(0, 0)``: tie,
  ``(1, 0)``: player 1 ahead). Payoffs are exact (int or Fraction).
* ``round`` of every node and ``history``, a readable name (the actions so far, rounds split by "/").

``limit_betting`` builds the limit-poker form used by Leduc, Rhode Island Hold'em and the
four-card game of Sandholm 2010, Figure 2.

References:

- Sandholm (2010), "The State of Solving Large Incomplete-Information Games, and Application to Poker", AI Magazine.
- Gilpin & Sandholm (2007), "Lossless Abstraction of Imperfect Information Games", Journal of the ACM.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from .errors import OrderedSignalError

DECIDE, NEXT, FOLD, SHOWDOWN = "decide", "next", "fold", "showdown"


def outcomes(num_players: int) -> list:
    """Every outcome of a showdown among ``num_players``: for each player, the number of players
    strictly ahead of it (all weak orders of the players)."""
    out = set()
    for ranks in itertools.product(range(num_players), repeat=num_players):
        out.add(tuple(sum(r > mine for r in ranks) for mine in ranks))
    return sorted(out)


def split_pot(put: tuple, outcome: tuple) -> tuple:
    """Poker's showdown payoffs: the players ahead of everyone share the pot equally; each player's
    payoff is its share minus what it ``put`` in."""
    winners = [i for i, ahead in enumerate(outcome) if ahead == 0]
    share = Fraction(sum(put), len(winners))
    return tuple((share if i in winners else 0) - put[i] for i in range(len(put)))


@dataclass(frozen=True)
class Betting:
    """A betting game form over ``num_rounds`` rounds for ``num_players`` players (see the module
    docstring). Node 0 is the first round's first node."""

    num_players: int
    num_rounds: int
    kind: tuple
    player: tuple
    actions: tuple
    children: tuple
    payoff: tuple
    round: tuple
    history: tuple

    def __post_init__(self):
        self.check()

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    def check(self) -> None:
        """Raise ``OrderedSignalError`` naming the node if the form is malformed."""
        n = len(self.kind)
        need = set(outcomes(self.num_players))
        for v in range(n):
            k, where = self.kind[v], f"betting node {v} ({self.history[v] or 'start'})"
            if k == DECIDE:
                if not 0 <= self.player[v] < self.num_players:
                    raise OrderedSignalError(f"{where}: player {self.player[v]} is not 0..{self.num_players - 1}")
                if len(self.actions[v]) == 0 or len(self.actions[v]) != len(self.children[v]):
                    raise OrderedSignalError(f"{where}: needs as many actions as children, and at least one")
                if len(set(self.actions[v])) != len(self.actions[v]):
                    raise OrderedSignalError(f"{where}: action labels repeat: {self.actions[v]}")
            elif k == NEXT:
                if len(self.children[v]) != 1:
                    raise OrderedSignalError(f"{where}: a round's end has exactly one continuation")
                if self.round[v] + 1 >= self.num_rounds:
                    raise OrderedSignalError(f"{where}: the last round cannot continue; end it with a showdown")
                if self.round[self.children[v][0]] != self.round[v] + 1:
                    raise OrderedSignalError(f"{where}: its continuation is not in round {self.round[v] + 1}")
            elif k == FOLD:
                if len(self.payoff[v]) != self.num_players:
                    raise OrderedSignalError(f"{where}: a payoff needs {self.num_players} entries")
            elif k == SHOWDOWN:
                table = self.payoff[v]
                missing = need - set(table)
                if missing:
                    raise OrderedSignalError(f"{where}: no payoff for outcome(s) {sorted(missing)}")
                if any(len(u) != self.num_players for u in table.values()):
                    raise OrderedSignalError(f"{where}: a payoff needs {self.num_players} entries")
            else:
                raise OrderedSignalError(f"{where}: unknown kind {k!r}")
            for c in self.children[v]:
                if not v < c < n:
                    raise OrderedSignalError(f"{where}: child {c} is not a later node (nodes are in preorder)")

    def after(self, v: int, a: int) -> int:
        """The betting node after action ``a`` at ``v``; a round's end is passed through to the
        next round's first node (the cards are dealt in between, by the game)."""
        c = self.children[v][a]
        return self.children[c][0] if self.kind[c] == NEXT else c

    def nodes_of_round(self, r: int, *kinds: str) -> list:
        """Round r's nodes of the given kinds, in preorder."""
        return [v for v in range(self.num_nodes) if self.round[v] == r and self.kind[v] in kinds]


class BettingBuilder:
    """Appends nodes in preorder: ``node = b.decide(player, actions)`` then fill its children, or
    ``b.leaf_fold(payoff)``, ``b.leaf_showdown(table)``, ``b.next_round()``."""

    def __init__(self, num_players: int, num_rounds: int):
        self.num_players, self.num_rounds = num_players, num_rounds
        self.rows: list = []

    def add(self, kind, rnd, history, player=-1, actions=(), payoff=None) -> int:
        self.rows.append([kind, player, tuple(actions), [], payoff, rnd, history])
        return len(self.rows) - 1

    def link(self, parent: int, child: int) -> None:
        self.rows[parent][3].append(child)

    def build(self) -> Betting:
        cols = list(zip(*self.rows))
        return Betting(
            self.num_players,
            self.num_rounds,
            cols[0],
            cols[1],
            cols[2],
            tuple(tuple(c) for c in cols[3]),
            cols[4],
            cols[5],
            cols[6],
        )


def limit_betting(num_rounds: int, bet_sizes: tuple, max_bets: int, ante: int | Fraction = 1) -> Betting:
    """Two-player limit betting: in every round player 0 acts first; with no bet to face a player
    checks or bets, facing a bet it folds, calls or raises; at most ``max_bets`` bets per round
    counting the opening bet; two checks or a call end the round (the last round with a
    showdown). Each player antes ``ante``; a bet or raise in round r is ``bet_sizes[r]`` more
    than the amount called. Labels: "k" check, "b" bet, "f" fold, "c" call, "r" raise.

    With ``max_bets=3`` each round has 8 decision nodes (4 per player, 10 actions per player),
    7 ways to continue and 6 folds: Rhode Island Hold'em's betting (Shi & Littman 2002)."""
    b = BettingBuilder(2, num_rounds)

    def grow(rnd: int, hist: str, put: tuple, bets: int, facing: bool, mover: int, rounds_done: str) -> int:
        name = rounds_done + hist
        acts = (["f", "c"] + (["r"] if bets < max_bets else [])) if facing else ["k", "b"]
        v = b.add(DECIDE, rnd, name, player=mover, actions=acts)
        for a in acts:
            if a == "f":
                lose = put[mover]
                pay = (-lose, lose) if mover == 0 else (lose, -lose)
                c = b.add(FOLD, rnd, name + a, payoff=pay)
            elif a == "c" or (a == "k" and hist == "k"):
                c = end_round(rnd, hist + a, (max(put),) * 2, rounds_done)
            elif a == "k":
                c = grow(rnd, hist + a, put, bets, False, 1 - mover, rounds_done)
            else:  # bet or raise: match the other, then add the round's size
                new = list(put)
                new[mover] = max(put) + bet_sizes[rnd]
                c = grow(rnd, hist + a, tuple(new), bets + 1, True, 1 - mover, rounds_done)
            b.link(v, c)
        return v

    def end_round(rnd: int, hist: str, put: tuple, rounds_done: str) -> int:
        name = rounds_done + hist
        if rnd + 1 == num_rounds:
            return b.add(SHOWDOWN, rnd, name, payoff={o: split_pot(put, o) for o in outcomes(2)})
        v = b.add(NEXT, rnd, name)
        b.link(v, grow(rnd + 1, "", put, 0, False, 0, name + "/"))
        return v

    if len(bet_sizes) != num_rounds:
        raise OrderedSignalError(f"limit_betting: {num_rounds} rounds need {num_rounds} bet sizes, got {bet_sizes}")
    grow(0, "", (ante, ante), 0, False, 0, "")
    return b.build()

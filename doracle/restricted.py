"""Restricted games of the double-oracle algorithm (Bosansky et al. 2014; seed 003).

A restricted game keeps, for each player, a set of sequences (tuples of (information-set key,
action index) pairs, closed under prefixes). Played from the root:

* chance nodes keep every outcome;
* at a decision node of player i whose own sequence is s, only the actions a with s + (key, a) in
  i's set are kept; perfect recall makes this the same at every node of an information set;
* a decision node where no action is kept is a *temporary leaf*: its utility is the value of the
  node when the player to move follows its default strategy (the first action) below it and the
  other player follows its latest best response (``choice``; the first action where it has none),
  chance taken in expectation.

``RestrictedGame`` is a ``seqform.Game`` (states wrap the original game's states), so the core
compiles and solves it.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Hashable, Mapping

from seqform.game import CHANCE, TERMINAL, Game

TEMPORARY = "temporary"


class RestrictedGame(Game):
    """The restricted game of ``game`` for the sequence sets ``sequences[0]``, ``sequences[1]``;
    ``choice[p]``: player p's latest best response (information-set key -> action index), used at
    temporary leaves where the other player is to move. State: ``(h, (s0, s1))`` with ``h`` the
    original state and ``s0, s1`` the players' sequences so far."""

    def __init__(self, game: Game, sequences: list, choice: list | None = None):
        self.game = game
        self.num_players = 2
        self.sequences = [set(s) for s in sequences]
        self.choice = choice or [{}, {}]
        self.name = f"restricted {game.name}"
        self.temporary_leaves = 0
        #: (player, information-set key) -> (number of original actions, original indices of the kept ones)
        self.kept_actions: dict = {}

    def _kept(self, h, seqs) -> tuple:
        p = self.game.player(h)
        key = self.game.infoset(h)
        n = len(self.game.actions(h))
        return tuple(a for a in range(n) if seqs[p] + ((key, a),) in self.sequences[p])

    def root(self):
        return (self.game.root(), ((), ()))

    def player(self, h):
        state, seqs = h
        p = self.game.player(state)
        if p in (TERMINAL, CHANCE):
            return p
        return p if self._kept(state, seqs) else TERMINAL

    def infoset(self, h):
        return self.game.infoset(h[0])

    def actions(self, h):
        state, seqs = h
        if self.game.player(state) == CHANCE:
            return self.game.actions(state)
        labels = self.game.actions(state)
        kept = self._kept(state, seqs)
        self.kept_actions[self.game.player(state), self.game.infoset(state)] = (len(labels), kept)
        return tuple(labels[a] for a in kept)

    def chance(self, h):
        return self.game.chance(h[0])

    def next(self, h, a):
        state, seqs = h
        p = self.game.player(state)
        if p == CHANCE:
            return (self.game.next(state, a), seqs)
        orig = self._kept(state, seqs)[a]
        key = self.game.infoset(state)
        new = list(seqs)
        new[p] = seqs[p] + ((key, orig),)
        return (self.game.next(state, orig), tuple(new))

    def utility(self, h):
        state, seqs = h
        if self.game.player(state) == TERMINAL:
            return self.game.utility(state)
        return self.leaf_value(state)

    def leaf_value(self, state) -> tuple:
        """Utilities at a temporary leaf (module docstring), exact for exact games."""
        mover = self.game.player(state)
        self.temporary_leaves += 1
        u0 = playout(self.game, state, mover, self.choice[1 - mover])
        return (u0, -u0)

    def describe(self, h):
        return self.game.describe(h[0])


def playout(game: Game, state, default_player: int, choice: Mapping[Hashable, int]) -> Fraction:
    """Player 0's expected utility below ``state`` when ``default_player`` plays its first action,
    the other player plays ``choice`` (first action where it has none) and chance is averaged."""
    p = game.player(state)
    if p == TERMINAL:
        return game.utility(state)[0]
    if p == CHANCE:
        return sum((pr * playout(game, game.next(state, a), default_player, choice)
                    for a, pr in enumerate(game.chance(state)) if pr), Fraction(0))
    a = 0 if p == default_player else choice.get(game.infoset(state), 0)
    return playout(game, game.next(state, a), default_player, choice)

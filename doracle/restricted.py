"""Restricted games of the double-oracle algorithm (Bosansky et al. 2014; Bosansky 2019).

A restricted game keeps, for each player, a set of sequences (tuples of (information-set key,
action index) pairs, closed under prefixes). Played from the root:

* chance nodes keep every outcome;
* at a decision node of player i whose own sequence is s, only the actions a with s + (key, a) in
  i's set are kept; perfect recall makes this the same at every node of an information set;
* a decision node where no action is kept is a *temporary leaf*. Its utility is the best-response
  value there of the other player (``doracle.oracle.state_value``) when the player to move follows
  its default strategy (the first action) below it: the extended strategy of the player to move,
  which has no restricted sequence below the leaf. This is the paper's choice: it makes the
  restricted game optimistic for the player who is not to move, so that when neither best
  response adds a sequence the restricted equilibrium is one of the full game. The value depends
  on the state only, so ``leaf_values`` (keyed by the path of action indices from the root) keeps
  it across iterations; a temporary leaf is replaced when a sequence extends it, because the
  restricted game is built afresh from the sequence sets.

``RestrictedGame`` is a ``seqform.Game`` (states wrap the original game's states), so the core
compiles and solves it.

References:

- Bosansky (2019), "Solving Extensive-Form Games", lecture, Multiagent Systems, Czech Technical University in Prague.
- Bosansky, Kiekintveld, Lisy & Pechoucek (2014), "An Exact Double-Oracle Algorithm for Zero-Sum Extensive-Form Games
  with Imperfect Information", JAIR.
"""

from __future__ import annotations

from seqform.model.game import CHANCE, TERMINAL, Game

from .oracle import state_value

TEMPORARY = "temporary"


class RestrictedGame(Game):
    """The restricted game of ``game`` for the sequence sets ``sequences[0]``, ``sequences[1]``.
    State: ``(h, (s0, s1), path)``: ``h`` the original state, ``s0, s1`` the players' sequences so
    far, ``path`` the original action indices from the root. ``leaf_values``: path -> player 0's
    utility at a temporary leaf, shared between the restricted games of one double-oracle run."""

    def __init__(self, game: Game, sequences: list, leaf_values: dict | None = None):
        self.game = game
        self.num_players = 2
        self.sequences = [set(s) for s in sequences]
        self.name = f"restricted {game.name}"
        self.leaf_values = {} if leaf_values is None else leaf_values
        self.temporary_leaves = 0
        self.leaf_searches = 0
        #: (player, information-set key) -> (the original action labels, original indices of the kept ones)
        self.kept_actions: dict = {}

    def _kept(self, h, seqs) -> tuple:
        p = self.game.player(h)
        key = self.game.infoset(h)
        got = self.kept_actions.get((p, key))
        if got is None:
            labels = tuple(self.game.actions(h))
            mine = self.sequences[p]
            got = self.kept_actions[p, key] = (
                labels,
                tuple(a for a in range(len(labels)) if seqs[p] + ((key, a),) in mine),
            )
        return got[1]

    def root(self):
        return (self.game.root(), ((), ()), ())

    def player(self, h):
        state, seqs, _ = h
        p = self.game.player(state)
        if p in (TERMINAL, CHANCE):
            return p
        return p if self._kept(state, seqs) else TERMINAL

    def infoset(self, h):
        return self.game.infoset(h[0])

    def actions(self, h):
        state, seqs, _ = h
        labels = self.game.actions(state)
        if self.game.player(state) == CHANCE:
            return labels
        return tuple(labels[a] for a in self._kept(state, seqs))

    def chance(self, h):
        return self.game.chance(h[0])

    def next(self, h, a):
        state, seqs, path = h
        p = self.game.player(state)
        if p == CHANCE:
            return (self.game.next(state, a), seqs, path + (a,))
        orig = self._kept(state, seqs)[a]
        new = list(seqs)
        new[p] = seqs[p] + ((self.game.infoset(state), orig),)
        return (self.game.next(state, orig), tuple(new), path + (orig,))

    def utility(self, h):
        state, seqs, path = h
        if self.game.player(state) == TERMINAL:
            return self.game.utility(state)
        return self.leaf_value(state, path)

    def leaf_value(self, state, path: tuple) -> tuple:
        """Utilities at the temporary leaf ``state`` (module docstring), exact."""
        self.temporary_leaves += 1
        u0 = self.leaf_values.get(path)
        if u0 is None:
            self.leaf_searches += 1
            other = 1 - self.game.player(state)
            v = state_value(self.game, state, other)
            u0 = self.leaf_values[path] = v if other == 0 else -v
        return (u0, -u0)

    def describe(self, h):
        return self.game.describe(h[0])

"""The signal tree of a game with ordered signals, as flat numpy arrays.

The signal tree (Gilpin & Sandholm 2007; Sandholm 2010) is the game tree with every betting action
removed: one level per card dealt, in the order of ``OrderedSignalGame.levels``. Its leaves are
the *worlds*: complete deals, one row of cards each. Everything GameShrink needs is a column over
the worlds:

* ``worlds``: (W, L) cards, rows in lexicographic order, which is the signal tree's preorder;
* ``outcome``: (W,) index into ``outcomes``: for each player, how many players are ahead;
* ``obs[i][j]``: (W,) id of player i's observation after its j-th observed level
  (``game.observed[i][j]``), ids numbering the distinct observations (ids are dense and follow
  the lexicographic order of the observed cards);
* ``hand_rank``: (n, W) each player's complete hand's position in one common order (higher is
  better), from which ``outcome`` is computed;
* ``prob``: None for a uniform deck (every world equally likely), else the exact probability of
  each world (a list of Fractions; weighted decks are for small games).

Building is vectorised: level k repeats each row once per card left and finds the j-th card left
by counting the dealt cards below it.

References:

- Sandholm (2010), "The State of Solving Large Incomplete-Information Games, and Application to Poker", AI Magazine.
- Gilpin & Sandholm (2007), "Lossless Abstraction of Imperfect Information Games", Journal of the ACM.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .betting import outcomes
from .errors import AbstractionError
from .orderedsignals import OrderedSignalGame

#: worlds above this are refused for weighted decks (their probabilities are Python Fractions)
WEIGHTED_WORLD_LIMIT = 2_000_000
#: worlds above this are refused outright (memory: about 60 bytes a world)
WORLD_LIMIT = 200_000_000


def num_worlds(game: OrderedSignalGame) -> int:
    """The number of complete deals: D! / (D - L)! for a deck of D cards and L levels."""
    d, n = len(game.deck), len(game.levels)
    return math.perm(d, n)


def signal_tree_nodes(game: OrderedSignalGame) -> int:
    """Nodes of the signal tree, root included: sum over k of D! / (D - k)!."""
    d = len(game.deck)
    return sum(math.perm(d, k) for k in range(len(game.levels) + 1))


@dataclass
class SignalTree:
    """The worlds of a game with ordered signals and what GameShrink reads from them (see the
    module docstring). ``num_nodes`` counts the signal tree's nodes, root included."""

    game: OrderedSignalGame
    worlds: np.ndarray
    outcome: np.ndarray
    outcomes: list
    obs: list
    num_obs: list
    prob: list | None
    num_nodes: int
    _codes_cache: dict = field(default_factory=dict, repr=False)
    #: (n, W) each player's complete hand's position in one order common to all players (higher:
    #: better), world by world; the outcomes are computed from it
    hand_rank: np.ndarray | None = field(default=None, repr=False)

    @property
    def num_worlds(self) -> int:
        return len(self.worlds)

    def observation_id(self, i: int, observation: tuple) -> int:
        """The id of player i's observation (a tuple of cards in the order it saw them)."""
        j = len(observation) - 1
        if j < 0:
            return 0
        code = _encode(np.array([observation], dtype=np.int64), len(self.game.deck))[0]
        codes = self._codes(i, j)
        pos = int(np.searchsorted(codes, code))
        if pos >= len(codes) or codes[pos] != code:
            raise AbstractionError(f"player {i} never observes {observation} in {self.game.name}")
        return pos

    def _codes(self, i: int, j: int) -> np.ndarray:
        if (i, j) not in self._codes_cache:
            cols = self.worlds[:, list(self.game.observed[i][: j + 1])].astype(np.int64)
            self._codes_cache[i, j] = np.unique(_encode(cols, len(self.game.deck)))
        return self._codes_cache[i, j]


def _encode(cols: np.ndarray, base: int) -> np.ndarray:
    """Rows of small integers as one int64 each (positional, base ``base``)."""
    code = np.zeros(len(cols), dtype=np.int64)
    for c in range(cols.shape[1]):
        code = code * base + cols[:, c]
    return code


def deal_worlds(num_cards: int, num_levels: int) -> np.ndarray:
    """Every sequence of ``num_levels`` distinct cards out of ``num_cards``, lexicographically."""
    rows = np.zeros((1, 0), dtype=np.int16)
    for k in range(num_levels):
        left = num_cards - k
        parent = np.repeat(rows, left, axis=0)
        j = np.tile(np.arange(left, dtype=np.int16), len(rows))
        dealt = np.sort(parent, axis=1)
        card = j.copy()
        for c in range(k):  # the j-th card left: skip each dealt card at or below it
            card += dealt[:, c] <= card
        rows = np.concatenate([parent, card[:, None]], axis=1)
    return rows


def build_signal_tree(game: OrderedSignalGame, progress=None) -> SignalTree:
    """The worlds of ``game`` with their outcomes and observations (see ``SignalTree``)."""
    say = progress or (lambda msg: None)
    d, nl = len(game.deck), len(game.levels)
    w = num_worlds(game)
    if w > WORLD_LIMIT:
        raise AbstractionError(f"{game.name}: {w:,} complete deals; the signal tree is limited to {WORLD_LIMIT:,}")
    if game.weights is not None and w > WEIGHTED_WORLD_LIMIT:
        raise AbstractionError(
            f"{game.name}: {w:,} deals from a weighted deck; weighted decks are limited to "
            f"{WEIGHTED_WORLD_LIMIT:,} deals (their probabilities are exact fractions)"
        )
    say(f"dealing {w:,} worlds")
    worlds = deal_worlds(d, nl)
    n = game.num_players
    say("ranking hands")
    # every player's distinct hands, ranked in Python once each (hands are few: C(D, h)), then
    # placed in ONE order common to all players (positions in per-player orders would not compare)
    hand_keys, hand_inv = [], []
    for i in range(n):
        levels = [k for k, (o, _) in enumerate(game.levels) if o in (i, -1)]
        hands = np.sort(worlds[:, levels].astype(np.int64), axis=1)
        uniq, inv = np.unique(_encode(hands, d), return_inverse=True)
        decoded = np.zeros((len(uniq), len(levels)), dtype=np.int64)
        rest = uniq.copy()
        for c in range(len(levels) - 1, -1, -1):
            decoded[:, c] = rest % d
            rest //= d
        keys = []
        for row in decoded.tolist():
            try:
                keys.append(game.rank(tuple(row)))
            except Exception as e:  # a user's rank function: name the hand it failed on
                raise AbstractionError(f"{game.name}: rank({tuple(game.deck[c] for c in row)}) failed: {e}") from e
        hand_keys.append(keys)
        hand_inv.append(inv.ravel())
    try:
        order = sorted(set(k for keys in hand_keys for k in keys))
    except TypeError as e:
        raise AbstractionError(f"{game.name}: hand ranks are not mutually comparable: {e}") from None
    pos = {k: p for p, k in enumerate(order)}
    ranks = np.empty((n, len(worlds)), dtype=np.int64)
    for i in range(n):
        ranks[i] = np.array([pos[k] for k in hand_keys[i]], dtype=np.int64)[hand_inv[i]]
    ahead = [(ranks > ranks[i]).sum(axis=0) for i in range(n)]
    outs = outcomes(n)
    index = {o: t for t, o in enumerate(outs)}
    code = np.zeros(len(worlds), dtype=np.int64)
    for i in range(n):
        code = code * n + ahead[i]
    lut = np.full(n**n, -1, dtype=np.int64)
    for o, t in index.items():
        c = 0
        for a in o:
            c = c * n + a
        lut[c] = t
    outcome = lut[code].astype(np.int8)
    say("numbering observations")
    obs, num_obs = [], []
    for i in range(n):
        per, counts = [], []
        for j in range(len(game.observed[i])):
            cols = worlds[:, list(game.observed[i][: j + 1])].astype(np.int64)
            _, inv = np.unique(_encode(cols, d), return_inverse=True)
            per.append(inv.ravel().astype(np.int32))
            counts.append(int(per[-1].max()) + 1)
        obs.append(per)
        num_obs.append(counts)
    prob = None
    if game.weights is not None:
        prob = _world_probabilities(game, worlds)
    return SignalTree(
        game, worlds, outcome, outs, obs, num_obs, prob, signal_tree_nodes(game), hand_rank=ranks.astype(np.int32)
    )


def _world_probabilities(game: OrderedSignalGame, worlds: np.ndarray) -> list:
    """Exact probability of each world of a weighted deck: the product over levels of the card's
    weight over the weight left."""
    wts = game.weights
    assert wts is not None  # called for a weighted deck only
    total = sum(wts)
    out = []
    for row in worlds.tolist():
        p, left = Fraction(1), total
        for c in row:
            p *= wts[c] / left
            left -= wts[c]
        out.append(p)
    return out

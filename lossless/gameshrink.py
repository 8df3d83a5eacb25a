"""GameShrink (Gilpin & Sandholm 2007; Sandholm 2010, "Lossless Information Abstraction", Figure 2).

GameShrink merges *ordered game isomorphic* nodes of the signal tree: leaves whose payoffs agree
for every betting outcome, inner nodes whose children can be matched one to one, with equal
probabilities, to isomorphic children. Merging is an *information abstraction*: a player can no
longer tell merged signals apart. This module computes it as a partition of each player's
observations (its *classes*) and proves, below, why the result is lossless.

The test of isomorphism: canonical forms instead of matchings
--------------------------------------------------------------
Isomorphism is an equivalence relation (by induction from the leaves). So two nodes' children can
be matched one to one, with equal probabilities, to isomorphic children if and only if the two
*multisets* of (probability, class of child) pairs are equal: a perfect matching in the bipartite
graph "same probability and isomorphic" exists iff every (probability, class) pair occurs equally
often on both sides (that graph is a disjoint union of complete bipartite blocks, one per pair; a
block has a perfect matching iff its sides are equal). We compute each multiset as sorted
(type, count) runs with numpy and number the distinct runs; equality is checked exactly (a 64-bit
multiset hash proposes classes and every member is then compared entry by entry with its class's
representative; a collision falls back to exact tuples). This is exact and as strong as the
matching; it is also what union-find over the matched pairs computes, without the pairwise tests.

What must match: the information structure
------------------------------------------
A merge must leave every player's information well defined: a player who cannot see another's
card must not learn about it from the class it is told. So classes are per player and per
*observation* (the cards it has seen, ``OrderedSignalGame.observed``), and two observations o, o'
of player i (after the same level, with equivalent parents) are equivalent when there is a
probability-preserving bijection between the complete deals (*worlds*) consistent with o and
with o' that preserves, world by world,

1. the showdown outcome (who is ahead: the leaves' payoff vectors, for every betting outcome),
2. the classes of every *other* player at every level (what they know), and
3. player i's own classes at later levels (its future information).

As above, the bijection exists iff the multisets of (conditional probability, world type) agree,
the world type being (outcome, every player's class at its last level), which determines all
classes along the world since each class includes its parent's. Condition 2 refers to other
players' classes, so the classes are a fixed point: starting with one class per level, every
observation's class is refined by (its parent's class, its class, its multiset) until no class
splits. The result is the coarsest partition with the property (partition refinement, as for
bisimulation).

Why it is lossless
------------------
Restrict every player to strategies that are constant on classes (the abstract game is exactly
this restricted game, see ``lossless.abstractgame``). Take such a strategy y of the opponent. At player i's
information set (o, betting history h) the counterfactual value of each continuation is a sum over
the worlds of o of chance probability x the opponent's reach x the payoff. The bijection preserves
each factor: the probability (condition on o), the opponent's reach (y depends on the opponent's
classes only, which are preserved), the payoff (the outcome). By induction from the last round
(condition 3 maps i's own later information sets to equivalent ones) the values at o and o' are
proportional, with factor P(o) / P(o'), so one best response is constant on classes. Hence the
restricted game's equilibria are equilibria of the original game, with the same value: Theorem 1
of the paper. The tests check this exactly on every game they solve: the lifted strategies are
certified by exact best responses in the original game.

The paper's counts (``respect_opponents=False``)
-----------------------------------------------
Dropping condition 2 (each player's own view: its observations and the outcome against an
unseen opponent, the opponent's card dealt as if at the end) reproduces the paper's Rhode Island
Hold'em sizes exactly (13, 205 and 1,774 classes per round: 1,237,238 LP rows). That abstraction
is *not* lossless in general: on Leduc it changes the value (tests/lossless). It is offered to
reproduce and explain the paper's numbers, never used to lift a strategy as exact.

References:

- Sandholm (2010), "The State of Solving Large Incomplete-Information Games, and Application to Poker", AI Magazine.
- Gilpin & Sandholm (2007), "Lossless Abstraction of Imperfect Information Games", Journal of the ACM.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .errors import AbstractionError
from .orderedsignals import OrderedSignalGame
from .signaltree import SignalTree, build_signal_tree

_M1, _M2, _G = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB), np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, elementwise on uint64 (wrapping arithmetic is intended)."""
    with np.errstate(over="ignore"):
        z = x.astype(np.uint64) + _G
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def compact(columns: list) -> np.ndarray:
    """Dense ids (0..k-1, in lexicographic order) of the rows of equal-length integer columns."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    span = 1
    for c in columns:
        m = int(c.max()) + 1 if len(c) else 1
        if span * m >= 2**62:
            _, key = np.unique(key, return_inverse=True)
            key = key.ravel().astype(np.int64)
            span = int(key.max()) + 1
        key = key * m + c
        span *= m
    _, inv = np.unique(key, return_inverse=True)
    return inv.ravel().astype(np.int64)


def multiset_classes(owner: np.ndarray, kind: np.ndarray, num_owners: int) -> np.ndarray:
    """For each owner 0..num_owners-1, the id of the multiset of ``kind`` over its rows: two owners
    get the same id iff their multisets are equal (checked exactly). ``owner``, ``kind``: (W,)
    non-negative ints; every owner has at least one row."""
    nk = int(kind.max()) + 1
    key = owner.astype(np.int64) * nk + kind
    uk, cnt = np.unique(key, return_counts=True)
    ro, rt = uk // nk, uk % nk
    starts = np.flatnonzero(np.r_[True, ro[1:] != ro[:-1]])
    if len(starts) != num_owners:
        raise AbstractionError("internal: an observation has no world")
    lens = np.diff(np.r_[starts, len(uk)])
    with np.errstate(over="ignore"):
        h = _mix(rt.astype(np.uint64) * np.uint64(1 << 32) + cnt.astype(np.uint64))
        total = np.add.reduceat(h, starts) + _mix(lens.astype(np.uint64) + np.uint64(7))
    _, first, sig = np.unique(total, return_index=True, return_inverse=True)
    sig = sig.ravel().astype(np.int64)
    rep = first[sig]
    # exact check: each owner's runs equal its representative's, entry by entry
    same_len = lens == lens[rep]
    own = np.repeat(np.arange(num_owners), lens)
    off = np.arange(len(uk)) - starts[own]
    ridx = np.minimum(starts[rep[own]] + off, len(uk) - 1)
    mismatch = ~((rt == rt[ridx]) & (cnt == cnt[ridx]))
    bad = ~same_len
    bad[own[mismatch]] = True
    if bad.any():  # a hash collision: number the affected owners by their exact runs
        exact: dict = {}
        nxt = int(sig.max()) + 1
        for o in np.flatnonzero(bad | np.isin(sig, sig[bad])).tolist():
            s, e = starts[o], starts[o] + lens[o]
            t = (tuple(rt[s:e].tolist()), tuple(cnt[s:e].tolist()))
            if t not in exact:
                exact[t] = nxt
                nxt += 1
            sig[o] = exact[t]
    return sig


@dataclass
class Abstraction:
    """What GameShrink found for a game with ordered signals.

    ``classes[i][j]``: (number of observations of player i after its j-th observed level,) the
    class of each observation (ids 0..num_classes[i][j]-1); observations are numbered as in
    ``signals.obs``. ``respect_opponents``: the lossless test (True) or the paper's own-view count
    (False, see the module docstring). ``iterations`` of the refinement; ``seconds``.
    """

    game: OrderedSignalGame
    signals: SignalTree
    classes: list
    respect_opponents: bool
    iterations: int
    seconds: dict = field(default_factory=dict)

    @property
    def num_classes(self) -> list:
        return [[int(c.max()) + 1 if len(c) else 0 for c in per] for per in self.classes]

    def world_class(self, i: int, j: int) -> np.ndarray:
        """(W,) player i's class after its j-th observed level, world by world."""
        return self.classes[i][j][self.signals.obs[i][j]]

    def point_at_round(self, i: int, r: int) -> int:
        """Index j of player i's last observed level dealt before round r's betting (-1: none)."""
        dealt = self.game.dealt_by[r]
        return sum(1 for k in self.game.observed[i] if k < dealt) - 1

    def round_class(self, i: int, r: int, abstract: bool = True) -> np.ndarray:
        """(W,) player i's class during round r's betting, world by world (0 where it has seen
        nothing); with ``abstract=False`` its observation id instead (the original game)."""
        j = self.point_at_round(i, r)
        if j < 0:
            return np.zeros(self.signals.num_worlds, dtype=np.int64)
        return self.world_class(i, j) if abstract else self.signals.obs[i][j].astype(np.int64)

    def classes_by_round(self, i: int) -> list:
        """Player i's number of classes during each round's betting (1 where it has seen nothing)."""
        out = []
        for r in range(self.game.betting.num_rounds):
            j = self.point_at_round(i, r)
            out.append(1 if j < 0 else self.num_classes[i][j])
        return out

    def observations_by_round(self, i: int) -> list:
        """Player i's number of distinct observations during each round's betting (no abstraction)."""
        out = []
        for r in range(self.game.betting.num_rounds):
            j = self.point_at_round(i, r)
            out.append(1 if j < 0 else self.signals.num_obs[i][j])
        return out

    def class_of(self, i: int, observation: tuple) -> int:
        """The class of player i's ``observation`` (the cards it has seen, in order); 0 for none."""
        if len(observation) == 0:
            return 0
        return int(self.classes[i][len(observation) - 1][self.signals.observation_id(i, observation)])


def gameshrink(
    game: OrderedSignalGame, respect_opponents: bool = True, signals: SignalTree | None = None, progress=None
) -> Abstraction:
    """Run GameShrink on ``game``: the coarsest partition of each player's observations into
    ordered-game-isomorphic classes (module docstring). ``progress(msg)`` is told each step."""
    say = progress or (lambda msg: None)
    t0 = time.perf_counter()
    st = signals if signals is not None else build_signal_tree(game, progress=say)
    t1 = time.perf_counter()
    n = game.num_players
    points = [len(game.observed[i]) for i in range(n)]
    parent_obs = []
    for i in range(n):
        per: list[np.ndarray | None] = [None]
        for j in range(1, points[i]):
            po = np.zeros(st.num_obs[i][j], dtype=np.int64)
            po[st.obs[i][j]] = st.obs[i][j - 1]
            per.append(po)
        parent_obs.append(per)
    cond = _conditional_probability_ids(st) if st.prob is not None else None
    classes = [[np.zeros(st.num_obs[i][j], dtype=np.int64) for j in range(points[i])] for i in range(n)]
    last = [np.zeros(st.num_worlds, dtype=np.int64) for _ in range(n)]
    iterations = 0
    while True:
        iterations += 1
        split = False
        if respect_opponents:
            shared = compact([st.outcome.astype(np.int64)] + last)
        new_last = list(last)
        for i in range(n):
            wt = shared if respect_opponents else compact([st.outcome.astype(np.int64), last[i]])
            for j in range(points[i]):
                o = st.obs[i][j]
                kind = wt if cond is None else compact([wt, cond[i][j]])
                sig = multiset_classes(o, kind, st.num_obs[i][j])
                cols = [classes[i][j], sig]
                if j > 0:
                    cols.insert(0, classes[i][j - 1][parent_obs[i][j]])
                new = compact(cols)
                if new.max() > classes[i][j].max():
                    split = True
                classes[i][j] = new
            if points[i]:
                new_last[i] = classes[i][-1][st.obs[i][-1]]
        last = new_last
        say(f"refinement pass {iterations}: classes {[[int(c.max()) + 1 for c in per] for per in classes]}")
        if not split:
            break
    t2 = time.perf_counter()
    return Abstraction(game, st, classes, respect_opponents, iterations, {"signal_tree": t1 - t0, "shrink": t2 - t1})


def _conditional_probability_ids(st: SignalTree) -> list:
    """Per player and observed level: (W,) ids of P(world | the player's observation), exact."""
    game = st.game
    prob = st.prob
    assert prob is not None  # called for a weighted deck only
    out = []
    for i in range(game.num_players):
        per = []
        for j in range(len(game.observed[i])):
            o = st.obs[i][j].tolist()
            total: dict = defaultdict(Fraction)
            for w, oo in enumerate(o):
                total[oo] += prob[w]
            ids: dict = {}
            per.append(
                np.array([ids.setdefault(prob[w] / total[oo], len(ids)) for w, oo in enumerate(o)], dtype=np.int64)
            )
        out.append(per)
    return out

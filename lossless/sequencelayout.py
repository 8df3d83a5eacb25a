"""The sequences and information sets of an abstraction, numbered without the game tree.

The betting never depends on the signals, so (``lossless.sizes``) player i's information sets are
the pairs (class c during round r, betting node v of round r where i acts) and its sequences the
triples (c, v, action). The parent sequence of (c, v) is i's last action (u, a) on the way to v,
with the class c had in u's round (classes refine along a world, so that class is a function of
c: the ancestor map), or the empty sequence.

Numbering (shared by the LP builders and the vector-form best response): sequence 0 is the empty
one; the decision nodes are visited in a depth-first order and each (v, a) gets a block of
consecutive ids ``base[v, a] + c`` for c = 0 .. classes during round(v) - 1; information sets
likewise ``ibase[v] + c``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .betting import DECIDE, FOLD
from .errors import AbstractionError
from .gameshrink import Abstraction


@dataclass
class SequenceLayout:
    """Sequence and information-set numbering of ``abstraction``'s two-player abstract game.

    ``cls[i][r]``: (W,) player i's class during round r, world by world; ``ncls[i][r]`` their
    number; ``anc[i][r][q]``: (ncls[i][r],) the class during round q <= r of each class during
    round r; ``base[(v, a)]``, ``ibase[v]``: first ids of the blocks (module docstring);
    ``parent_of[v]``: per player, its last action ``(u, a)`` before betting node v (None: none);
    ``num_sequences``, ``num_infosets`` per player."""

    abstraction: Abstraction
    cls: list[list[np.ndarray]]
    ncls: list[list[int]]
    anc: list
    base: dict[tuple[int, int], int]
    ibase: dict[int, int]
    parent_of: dict[int, tuple]
    num_sequences: list[int]
    num_infosets: list[int]
    _cache: dict = field(default_factory=dict, repr=False)

    def seq_of(self, i: int, own, r: int, c: np.ndarray) -> np.ndarray:
        """Player i's sequence ids for its classes ``c`` (during round r) after its last action
        ``own`` ((u, a), or None for the empty sequence)."""
        if own is None:
            return np.zeros(len(c), dtype=np.int64)
        u, a = own
        bet = self.abstraction.game.betting
        return self.base[u, a] + self.anc[i][r][bet.round[u]][c]

    def decision_nodes(self, i: int) -> list:
        """Player i's betting decision nodes, in the numbering's order (parents first)."""
        key = ("nodes", i)
        if key not in self._cache:
            bet = self.abstraction.game.betting
            self._cache[key] = [v for v in sorted(self.ibase, key=self.ibase.__getitem__) if bet.player[v] == i]
        return self._cache[key]

    def leaf_sequences(self, i: int, r: int, kind: str) -> tuple:
        """Round r's leaves of ``kind`` (a list, preorder) and (classes of player i during r,
        leaves) player i's last sequence before each leaf for each of its classes (cached)."""
        key = ("leaves", i, r, kind)
        if key not in self._cache:
            bet = self.abstraction.game.betting
            leaves = bet.nodes_of_round(r, kind)
            c = np.arange(self.ncls[i][r])
            idx = np.stack([self.seq_of(i, self.parent_of[v][i], r, c) for v in leaves], axis=1) if leaves else None
            self._cache[key] = (leaves, idx)
        return self._cache[key]

    def leaf_payoffs(self, p: int, r: int, kind: str) -> list:
        """Player p's payoffs at round r's leaves of ``kind`` (in ``leaf_sequences``' order), as
        float arrays: one for folds, one per showdown outcome (``signals.outcomes``' order) for
        showdowns (cached)."""
        key = ("payoffs", p, r, kind)
        if key not in self._cache:
            bet = self.abstraction.game.betting
            leaves = bet.nodes_of_round(r, kind)
            rows = (
                [[bet.payoff[v]] for v in leaves]
                if kind == FOLD
                else [[bet.payoff[v][o] for o in self.abstraction.signals.outcomes] for v in leaves]
            )
            self._cache[key] = (
                [np.array([float(row[j][p]) for row in rows]) for j in range(len(rows[0]))] if rows else []
            )
        return self._cache[key]

    def parent_sequences(self, i: int, v: int) -> np.ndarray:
        """(classes during round(v),) player i's parent sequence of each of its information sets
        at betting node v (cached: the walks call it every iteration)."""
        key = ("parent", i, v)
        if key not in self._cache:
            r = self.abstraction.game.betting.round[v]
            self._cache[key] = self.seq_of(i, self.parent_of[v][i], r, np.arange(self.ncls[i][r]))
        return self._cache[key]


def sequence_layout(ab: Abstraction) -> SequenceLayout:
    """The numbering of ``ab``'s abstract sequences and information sets (module docstring)."""
    game, bet = ab.game, ab.game.betting
    if game.num_players != 2:
        raise AbstractionError("the sequence form here is for two players")
    nr = bet.num_rounds
    cls = [[ab.round_class(i, r) for r in range(nr)] for i in range(2)]
    ncls = [[int(c.max()) + 1 for c in cls[i]] for i in range(2)]
    anc: list[list[list[np.ndarray | None]]] = [[[None] * nr for _ in range(nr)] for _ in range(2)]
    for i in range(2):
        for r in range(nr):
            first = np.unique(cls[i][r], return_index=True)[1]
            for q in range(r + 1):
                anc[i][r][q] = cls[i][q][first]
    base, ibase, parent_of = {}, {}, {}
    nseq, ninf = [1, 1], [0, 0]
    stack: list[tuple[int, tuple]] = [(0, (None, None))]
    while stack:
        v, own = stack.pop()
        parent_of[v] = own
        if bet.kind[v] == DECIDE:
            i, n = bet.player[v], ncls[bet.player[v]][bet.round[v]]
            ibase[v] = ninf[i]
            ninf[i] += n
            for a in range(len(bet.actions[v])):
                base[v, a] = nseq[i]
                nseq[i] += n
            for a, c in enumerate(bet.children[v]):
                nxt = list(own)
                nxt[i] = (v, a)
                stack.append((c, tuple(nxt)))
        else:
            for c in bet.children[v]:
                stack.append((c, own))
    return SequenceLayout(ab, cls, ncls, anc, base, ibase, parent_of, nseq, ninf)


__all__ = ["SequenceLayout", "sequence_layout"]

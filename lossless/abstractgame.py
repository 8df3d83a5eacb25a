"""The abstracted game GameShrink outputs, and lifting its strategies back.

The abstract game is the original game with every player told only the *class* of what it has
seen (``lossless.gameshrink``), and with the signal tree's merged nodes merged: its chance nodes
deal classes, not cards. Concretely, an abstract signal node after level k is a tuple of every
player's class after level k, together with its parent node; its children are the distinct class
tuples the worlds below it reach, with their total probability. At a showdown the payoff is the
expectation over the outcomes of the worlds of the leaf (exact).

This is exactly the original game restricted to strategies that are constant on classes: a
profile of the abstract game and its lift (``lift``) have the same expected payoffs, because the
abstract game's probabilities and payoffs are sums over the same worlds. GameShrink's theorem
(``lossless.gameshrink``) makes the lift of an abstract equilibrium an equilibrium of the original.

``AbstractGame`` is a ``seqform.Game``; its information-set key for player i is
``(j, class, v)``: the class of i's observation after its j-th observed level, and the betting
node v, which is what ``infoset_map`` matches with the original game's ``(observation, v)``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from seqform.errors import StrategyError
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.model.strategy import Profile
from seqform.model.tree import Tree

from .betting import DECIDE, FOLD, SHOWDOWN
from .errors import AbstractionError
from .gameshrink import Abstraction, compact


def abstract_signal_nodes(abstraction: Abstraction) -> list:
    """Nodes of the abstract signal tree at each level (level 0: the root), without building the
    abstract game."""
    game, st = abstraction.game, abstraction.signals
    node = np.zeros(st.num_worlds, dtype=np.int64)
    cl = [np.zeros(st.num_worlds, dtype=np.int64) for _ in range(game.num_players)]
    counts = [1]
    for k in range(len(game.levels)):
        for i in range(game.num_players):
            if k in game.observed[i]:
                cl[i] = abstraction.world_class(i, game.observed[i].index(k))
        node = compact([node] + cl)
        counts.append(int(node.max()) + 1)
    return counts


class AbstractGame(Game):
    """The game GameShrink's ``abstraction`` defines (see the module docstring).

    Arrays over abstract signal nodes (ids grouped by level, level k's ids from ``offset[k]``):
    ``node_parent``, ``node_point[i]`` (index of player i's last observed level, -1: none),
    ``node_class[i]``; ``children[v]`` and ``child_prob[v]`` (exact); ``leaf_outcome`` maps a
    last-level node to its outcome distribution {outcome index: probability}.
    """

    def __init__(self, abstraction: Abstraction, node_limit: int | None = None):
        game, st = abstraction.game, abstraction.signals
        if node_limit is not None:
            count = sum(abstract_signal_nodes(abstraction))
            if count > node_limit:
                raise AbstractionError(
                    f"the abstract game of {game.name} has {count:,} signal nodes; "
                    f"it is built only up to {node_limit:,}"
                )
        self.abstraction = abstraction
        self.original = game
        self.betting = game.betting
        self.num_players = game.num_players
        self.name = f"shrunk {game.name}"
        nl, n, w = len(game.levels), game.num_players, st.num_worlds
        node = np.zeros(w, dtype=np.int64)
        offsets, parents, points, classes, reps = [0], [np.array([-1])], [], [], [np.array([0])]
        pt = [np.full(w, -1, dtype=np.int64) for _ in range(n)]
        cl = [np.zeros(w, dtype=np.int64) for _ in range(n)]
        points.append([np.array([-1]) for _ in range(n)])
        classes.append([np.array([0]) for _ in range(n)])
        total = 1
        for k in range(nl):
            for i in range(n):
                if k in game.observed[i]:
                    j = game.observed[i].index(k)
                    pt[i] = np.full(w, j, dtype=np.int64)
                    cl[i] = abstraction.world_class(i, j)
            new = compact([node] + cl)
            m = int(new.max()) + 1
            first = np.unique(new, return_index=True)[1]  # the first world of each new node
            parents.append(node[first] + offsets[-1])
            points.append([p[first] for p in pt])
            classes.append([c[first] for c in cl])
            reps.append(first)
            offsets.append(total)
            total += m
            node = new
        self.offset = offsets
        self.num_nodes = total
        self.node_parent = np.concatenate(parents)
        self.node_point = [np.concatenate([pp[i] for pp in points]) for i in range(n)]
        self.node_class = [np.concatenate([cc[i] for cc in classes]) for i in range(n)]
        self.node_rep = np.concatenate(reps)  # a world below each node (its first)
        level = np.zeros(total, dtype=np.int64)
        for k in range(1, nl + 1):
            level[offsets[k] :] = k
        self.node_level = level
        leaf = node + offsets[-1]
        # probabilities: world counts (uniform deck) or exact sums (weighted)
        if st.prob is None:
            mass = [Fraction(int(c)) for c in np.bincount(leaf, minlength=total)]
        else:
            mass = [Fraction(0)] * total
            for wi, lf in enumerate(leaf.tolist()):
                mass[lf] += st.prob[wi]
        # push masses up: a node's id is larger than its parent's
        for v in range(total - 1, 0, -1):
            mass[int(self.node_parent[v])] += mass[v]
        kids: list = [[] for _ in range(total)]
        for v in range(1, total):
            kids[int(self.node_parent[v])].append(v)
        self.children = [tuple(c) for c in kids]
        self.child_prob = [tuple(mass[c] / mass[v] for c in kids[v]) for v in range(total)]
        counts: dict = {}
        if st.prob is None:  # world counts per (leaf, outcome), vectorised
            nout = len(st.outcomes)
            keys, cnt = np.unique(leaf * nout + st.outcome.astype(np.int64), return_counts=True)
            for k, c in zip(keys.tolist(), cnt.tolist()):
                counts.setdefault(k // nout, {})[k % nout] = c
        else:
            for wi, (lf, o) in enumerate(zip(leaf.tolist(), st.outcome.tolist())):
                d = counts.setdefault(lf, {})
                d[o] = d.get(o, 0) + st.prob[wi]
        self.leaf_outcome = {lf: {o: Fraction(c) / mass[lf] for o, c in d.items()} for lf, d in counts.items()}
        self._payoff: dict = {}
        self._labels = [self._label(v) for v in range(total)]
        for v in range(total):  # siblings may share a representative card: keep labels distinct
            seen: dict = {}
            for c in kids[v]:
                lab = self._labels[c]
                if lab in seen:
                    self._labels[c] = f"{lab}#{seen[lab]}"
                seen[lab] = seen.get(lab, 0) + 1

    def _label(self, v: int) -> str:
        """A readable name of abstract node v: the card its first world got at its level, and the
        class it stands for."""
        k = int(self.node_level[v])
        if k == 0:
            return "root"
        card = int(self.abstraction.signals.worlds[int(self.node_rep[v]), k - 1])
        owner = self.original.levels[k - 1][0]
        who = "public" if owner < 0 else f"P{owner}"
        cls = self.node_class[max(owner, 0)][v]
        return f"{who} {self.original.deck[card]}~{cls}"

    # --- the succinct game interface --------------------------------------------------------
    def root(self):
        return (0, 0)

    def _dealing(self, s: int, v: int) -> bool:
        return int(self.node_level[s]) < self.original.dealt_by[self.betting.round[v]]

    def player(self, h):
        s, v = h
        if self._dealing(s, v):
            return CHANCE
        return self.betting.player[v] if self.betting.kind[v] == DECIDE else TERMINAL

    def infoset(self, h):
        s, v = h
        i = self.betting.player[v]
        return (int(self.node_point[i][s]), int(self.node_class[i][s]), v)

    def actions(self, h):
        s, v = h
        if self._dealing(s, v):
            return tuple(self._labels[c] for c in self.children[s])
        return self.betting.actions[v]

    def chance(self, h):
        return self.child_prob[h[0]]

    def next(self, h, a):
        s, v = h
        if self._dealing(s, v):
            return (self.children[s][a], v)
        return (s, self.betting.after(v, a))

    def utility(self, h):
        s, v = h
        if self.betting.kind[v] == FOLD:
            return self.betting.payoff[v]
        if self.betting.kind[v] != SHOWDOWN:
            raise AbstractionError(f"utility asked at a non-leaf {self.describe(h)}")
        key = (s, v)
        u = self._payoff.get(key)
        if u is None:
            table, outs = self.betting.payoff[v], self.abstraction.signals.outcomes
            u = tuple(
                sum(p * Fraction(table[outs[o]][i]) for o, p in self.leaf_outcome[s].items())
                for i in range(self.num_players)
            )
            self._payoff[key] = u
        return u

    def num_nodes_hint(self) -> int:
        from .treesizes import game_tree_nodes

        per_level = [b - a for a, b in zip(self.offset, self.offset[1:] + [self.num_nodes])]
        return game_tree_nodes(self.original, per_level)

    def describe(self, h):
        s, v = h
        path = []
        while s > 0:
            path.append(self._labels[s])
            s = int(self.node_parent[s])
        return f"signals={list(reversed(path))} betting={self.betting.history[v]!r}"

    # --- back to the original game ----------------------------------------------------------
    def abstract_key(self, original_key) -> tuple:
        """The abstract information-set key of an original key ``(observation, v)`` of the player
        acting at betting node v."""
        observation, v = original_key
        i = self.betting.player[v]
        return (len(observation) - 1, self.abstraction.class_of(i, observation), v)

    def infoset_map(self, original: Tree, abstract: Tree) -> np.ndarray:
        """(M_original,) the abstract information set (global id in ``abstract``) of each
        information set of the compiled original game."""
        where = {(int(p), k): a for a, (p, k) in enumerate(zip(abstract.infoset_player, abstract.infoset_key))}
        out = np.empty(len(original.infoset_key), dtype=np.int64)
        for m, (p, key) in enumerate(zip(original.infoset_player, original.infoset_key)):
            a = where.get((int(p), self.abstract_key(key)))
            if a is None:
                raise AbstractionError(
                    f"original information set {key!r} of player {int(p)} has no abstract "
                    f"counterpart; is the tree compiled from {self.original.name}?"
                )
            out[m] = a
        return out

    def lift(self, profile: Profile, abstract: Tree, original: Tree) -> Profile:
        """The original game's profile that plays, at each information set, what ``profile`` plays
        at its abstract information set. Exact entries (Fractions) stay exact."""
        if len(profile.behaviour) != self.num_players:
            raise StrategyError(f"a profile for {len(profile.behaviour)} players; the game has {self.num_players}")
        amap = self.infoset_map(original, abstract)
        out = []
        for p in range(self.num_players):
            b = profile.behaviour[p]
            if len(b) != abstract.num_sequences[p]:
                raise StrategyError(
                    f"player {p}'s strategy has {len(b)} entries; the abstract game has "
                    f"{abstract.num_sequences[p]} sequences"
                )
            exact = not isinstance(b, np.ndarray) or b.dtype == object
            lifted = [Fraction(1)] * original.num_sequences[p] if exact else np.ones(original.num_sequences[p])
            for m in original.player_infosets[p].tolist():
                a = int(amap[m])
                f, g, k = (
                    int(original.infoset_first_seq[m]),
                    int(abstract.infoset_first_seq[a]),
                    int(original.infoset_num_actions[m]),
                )
                lifted[f : f + k] = b[g : g + k]
            out.append(lifted)
        return Profile(out)

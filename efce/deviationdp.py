"""The causal-deviation best response: the one dynamic program production code uses, for every
trigger at once, in floats (the sampler's models, ``efce.treemodel`` and ``efce.polymatrix``) or
in rationals (column generation's certificate, ``efce.colgen.efcecertificate``).

A causal deviation of player n is a trigger sigma = (information set i, action a) and a deviation
strategy over n's information sets at and below i (Dudik & Gordon 2009, section 2.2; von Stengel
& Forges 2008, section 2). Against the sequence payoffs g[sigma, tau] of n's sequences tau at or
below i (what n would earn playing tau where sigma fires), the best deviation strategy is a best
response over n's sub-treeplex rooted at i, the deviation tree of Dudik & Gordon's section 3.2:

    best(J) = max_b ( g[sigma, (J, b)] + sum of best(K) over n's information sets K right below (J, b) ),

and its value is best(i). The models number the pairs (trigger, sequence) so that the actions of
one information set under one trigger are consecutive; an *item* is such a block, (trigger,
information set J, first pair, number of actions, the pair of J's parent sequence or -1 for the
trigger's own information set). The items are processed by depth, deepest first, so that each
depth is one vectorised maximum (``numpy.maximum.reduceat``) and one scatter-add of the maxima
into the parents, over every trigger at once. The same operations run on a float array or on an
object array of ``fractions.Fraction`` (exact, whatever the order of the sums).

Independent checks of this program, kept apart on purpose: ``efce.causalregret`` walks the game
tree over an explicit distribution on reduced profiles, in rationals (``efce.exact`` verifies its
LP's distributions with it; the tests compare the models' best deviations and column
generation's certified regrets with it), and the polymatrix tests recompute every (player,
recommended, played) switch by brute force over the game's payoff tables.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
- von Stengel & Forges (2008), "Extensive-Form Correlated Equilibrium: Definition and Computational Complexity",
  Mathematics of Operations Research.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from seqform.model.tree import Tree


class TreeplexItem(NamedTuple):
    """One information set's block of pairs under one trigger: ``depth`` (of the information set
    in its player's sequence tree: how many of the player's own sequences lie above it),
    ``start`` (its first action's pair), ``size`` (its actions), ``parent`` (the pair of its
    parent sequence under the same trigger; -1 for the trigger's own information set),
    ``trigger`` and ``infoset`` (the model's ids)."""

    depth: int
    start: int
    size: int
    parent: int
    trigger: int
    infoset: int


def player_structure(tree: Tree, n: int) -> tuple:
    """Player n's sequence tree: (sequence -> the information sets right below it, information
    set -> the set of n's sequences at or below it), both dicts over global ids."""
    kids: dict = {}
    for m in tree.player_infosets[n].tolist():
        kids.setdefault(int(tree.infoset_parent_seq[m]), []).append(m)
    under: dict = {}

    def collect(m: int) -> set:
        if m in under:
            return under[m]
        f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
        out = set(range(f, f + k))
        for a in range(k):
            for j in kids.get(f + a, ()):
                out |= collect(j)
        under[m] = out
        return out

    for m in tree.player_infosets[n].tolist():
        collect(m)
    return kids, under


def tree_items(tree: Tree, trig_infoset: np.ndarray, pbase: np.ndarray, under: list) -> list:
    """The items of a compiled tree's triggers, in the tree model's pair numbering: trigger t
    (its information set ``trig_infoset[t]``) has pairs ``pbase[t]`` on, one per sequence of
    ``under[i]`` (the sorted sequences at or below i, an array per information set i)."""
    depth = np.zeros(len(tree.infoset_player), dtype=np.int64)
    for n in range(tree.num_players):
        seq_inf = tree.seq_infoset[n]
        for m in tree.player_infosets[n].tolist():
            d, s = 0, int(tree.infoset_parent_seq[m])
            while s > 0:
                d += 1
                s = int(tree.infoset_parent_seq[int(seq_inf[s])])
            depth[m] = d
    items = []
    for t in range(len(trig_infoset)):
        i = int(trig_infoset[t])
        n = int(tree.infoset_player[i])
        base = int(pbase[t])
        pos = {s: k for k, s in enumerate(under[i].tolist())}
        for m in sorted({int(tree.seq_infoset[n][s]) for s in under[i].tolist()}):
            f = int(tree.infoset_first_seq[m])
            par = -1 if m == i else base + pos[int(tree.infoset_parent_seq[m])]
            items.append(TreeplexItem(int(depth[m]), base + pos[f], int(tree.infoset_num_actions[m]), par, t, m))
    return items


class CausalDeviationDP:
    """The dynamic program over ``items`` (``TreeplexItem``s, in the model's order: by trigger,
    then information set) for a model with ``ntrig`` triggers (module docstring). A trigger
    without items (a polymatrix player's action beyond its own count) has value 0."""

    def __init__(self, items: list, ntrig: int) -> None:
        self.ntrig = int(ntrig)
        self.items = list(items)
        ordered = sorted(self.items, key=lambda x: -x.depth)  # stable: the model's order within a depth
        self.levels = []
        k = 0
        while k < len(ordered):
            grp = [x for x in ordered[k:] if x.depth == ordered[k].depth]
            k += len(grp)
            starts = np.array([x.start for x in grp], dtype=np.int64)
            lens = np.array([x.size for x in grp], dtype=np.int64)
            idx = np.concatenate([np.arange(s, s + n) for s, n in zip(starts.tolist(), lens.tolist())])
            offs = np.concatenate([[0], np.cumsum(lens)[:-1]])
            par = np.array([x.parent for x in grp], dtype=np.int64)
            trig = np.array([x.trigger for x in grp], dtype=np.int64)
            self.levels.append((idx, offs, par, trig))
        self.item_of = {(x.trigger, x.infoset): x for x in self.items}
        # the information sets right below each pair, in increasing id (the order of the
        # player's information sets in the compiled tree)
        self.below: dict = {}
        for x in sorted(self.items, key=lambda x: x.infoset):
            if x.parent >= 0:
                self.below.setdefault(x.parent, []).append(x.infoset)
        self.root = {x.trigger: x.infoset for x in self.items if x.parent < 0}
        self._by_trigger: dict = {}
        for x in sorted(self.items, key=lambda x: (x.trigger, x.infoset)):
            self._by_trigger.setdefault(x.trigger, []).append(x)

    def triggers(self) -> list:
        """The triggers that have items, in increasing id."""
        return sorted(self.root)

    def trigger_items(self, t: int) -> list:
        """Trigger t's items, by information set."""
        return list(self._by_trigger.get(t, ()))

    def solve(self, g: np.ndarray) -> tuple:
        """(val, dv) for the sequence payoffs ``g`` (pairs + 1,), floats or Fractions (object
        dtype): val[pair] is the pair's payoff plus the best values of the information sets right
        below it (what ``strategy`` reads), dv (triggers,) best(i) for each trigger's own
        information set i, the best deviation's value."""
        val = g.copy()
        dv = np.zeros(self.ntrig, dtype=g.dtype)
        for idx, offs, par, trig in self.levels:
            best = np.maximum.reduceat(val[idx], offs)
            root = par < 0
            np.add.at(val, par[~root], best[~root])
            dv[trig[root]] = best[root]
        return val, dv

    def strategy(self, t: int, val: np.ndarray) -> tuple:
        """Trigger t's best deviation strategy from ``solve``'s val: ({information set: action}
        in the order the walk meets them, root first; the pairs it plays, in the same order).
        Ties go to the first action."""
        choice, pairs = {}, []
        stack = [self.root[t]]
        while stack:
            m = stack.pop()
            x = self.item_of[(t, m)]
            b = int(np.argmax(val[x.start : x.start + x.size]))
            choice[m] = b
            pairs.append(x.start + b)
            stack.extend(self.below.get(x.start + b, ()))
        return choice, pairs

"""Every leaf's path through a compiled game tree, as flat arrays: the decision and chance nodes
above it and the actions taken there; and chance estimated from sampled scenarios (Dudik & Gordon
2009, section 3.3's p~_nat). The tree model of the exponential family (``efce.treemodel``) and
its MAP integer program (``efce.factormap``, which groups leaves by their chance outcomes) read
them, and the common denominator of the leaves' chance x payoff products (``leaf_denominator``).

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from seqform.model.tree import Tree


def leaf_paths(tree: Tree) -> tuple:
    """For each of the T leaves, its decision ancestors and the actions taken there, root first,
    padded with -1: (T, D) each, D the most decision nodes on a path; and the same for its chance
    ancestors: (T, Dc) each."""
    term = tree.terminals
    decs, acts, chs, chas = [], [], [], []
    cur = term.copy()
    while True:
        live = cur >= 0
        if not live.any():
            break
        par = np.where(live, tree.parent[np.maximum(cur, 0)], -1)
        a = np.where(live, tree.action[np.maximum(cur, 0)], -1)
        pl = np.where(par >= 0, tree.player[np.maximum(par, 0)], -9)
        decs.append(np.where(pl >= 0, par, -1))
        acts.append(np.where(pl >= 0, a, -1))
        chs.append(np.where(pl == -1, par, -1))
        chas.append(np.where(pl == -1, a, -1))
        cur = par
    return (*_left(decs[::-1], acts[::-1]), *_left(chs[::-1], chas[::-1]))


def _left(cols: list, acols: list) -> tuple:
    """Left-justify the valid (>= 0) entries of each row, keeping their order."""
    if not cols:
        return np.zeros((0, 0), dtype=np.int64), np.zeros((0, 0), dtype=np.int64)
    X = np.stack(cols, 1)
    Y = np.stack(acols, 1)
    order = np.argsort(X < 0, axis=1, kind="stable")
    X = np.take_along_axis(X, order, 1)
    Y = np.take_along_axis(Y, order, 1)
    width = int((X >= 0).sum(1).max()) if X.size else 0
    return X[:, :width], Y[:, :width]


def scenario_weights(tree: Tree, chn: np.ndarray, chact: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """The fraction of k scenarios (one outcome drawn at every chance node, with ``rng``) that
    agree with each leaf's chance outcomes ``chn``, ``chact`` (``leaf_paths``' chance part, (T,
    Dc) each): (T,), Dudik & Gordon (2009)'s p~_nat."""
    idx = {int(v): j for j, v in enumerate(tree.chance_nodes.tolist())}
    draws = np.zeros((k, len(idx) + 1), dtype=np.int64)
    for j, probs in enumerate(tree.chance_probs):
        p = np.array([float(x) for x in probs])
        draws[:, j] = rng.choice(len(p), size=k, p=p / p.sum())
    col = np.vectorize(lambda v: idx.get(int(v), len(idx)))(chn) if chn.size else np.zeros_like(chn)
    agree = np.ones((k, len(chn)), dtype=bool)
    for d in range(chn.shape[1]):
        live = chn[:, d] >= 0
        agree[:, live] &= draws[:, col[live, d]] == chact[live, d]
    return agree.mean(0)


def leaf_denominator(tree: Tree) -> int:
    """The least common denominator of every leaf's chance probability times each player's
    payoff there (exact, from the tree's ``terminal_chance_exact`` and ``payoff_exact``)."""
    d = 1
    for z in range(len(tree.terminals)):
        c = Fraction(tree.terminal_chance_exact[z])
        for u in tree.payoff_exact[z]:
            d = math.lcm(d, (c * Fraction(u)).denominator)
    return d

"""Reduced pure strategies and strategy profiles of a compiled game (Dudik & Gordon 2009, section 2).

A reduced pure strategy of player n fixes an action at every information set that n's own earlier
actions do not exclude, and nothing ("don't care") elsewhere: exactly a pure realization plan, a
0/1 vector over n's sequences. ``reduced_strategies(tree, n)`` enumerates them over n's sequence
tree: the plans below a sequence are the products, over the information sets right below it, of
the unions over their actions. ``Profiles`` holds every player's plans and the expected utility
of every reduced profile; ``full_counts`` gives, per reduced strategy, how many full pure
strategies (an action at every information set) it stands for, the base measure of Dudik & Gordon (2009)'s
maximum entropy over full pure strategy profiles.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from seqform.errors import SeqformError
from seqform.model.tree import Tree

#: enumerating more reduced profiles than this is refused (the exact methods are for small games)
MAX_PROFILES = 200_000


def _children(tree: Tree, n: int) -> dict:
    """Player n's sequence -> the global ids of the information sets right below it."""
    out: dict = {}
    for m in tree.player_infosets[n].tolist():
        out.setdefault(int(tree.infoset_parent_seq[m]), []).append(m)
    return out


def reduced_strategies(tree: Tree, n: int) -> list:
    """Player n's reduced pure strategies, each a frozenset of its sequences (empty one included)."""
    kids = _children(tree, n)

    def below(seq: int) -> list:
        parts = []
        for m in kids.get(seq, ()):
            f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
            parts.append([frozenset((f + a,)) | rest for a in range(k) for rest in below(f + a)])
        return [frozenset().union(*combo) for combo in itertools.product(*parts)] if parts else [frozenset()]

    return [frozenset((0,)) | s for s in below(0)]


def count_reduced(tree: Tree, n: int) -> int:
    """The number of player n's reduced pure strategies, without listing them: below a sequence,
    the product over the information sets right below it of the sum over their actions."""
    kids = _children(tree, n)
    memo: dict = {}

    def below(seq: int) -> int:
        got = memo.get(seq)
        if got is None:
            got = 1
            for m in kids.get(seq, ()):
                f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
                got *= sum(below(f + a) for a in range(k))
            memo[seq] = got
        return got

    return below(0)


def full_counts(tree: Tree, n: int, plans: list) -> list:
    """For each reduced strategy, the number of full pure strategies that agree with it."""
    out = []
    for plan in plans:
        fixed = {int(tree.seq_infoset[n][s]) for s in plan if s}
        free = [int(tree.infoset_num_actions[m]) for m in tree.player_infosets[n].tolist() if m not in fixed]
        out.append(math.prod(free))
    return out


@dataclass
class Profiles:
    """Reduced pure strategy profiles of a small compiled game.

    ``plans[n]``: player n's reduced strategies (frozensets of sequences); ``X[n]``: the same as a
    0/1 matrix (plans x sequences); ``shape``: plans per player; ``utility``: (profiles, N) floats
    and ``utility_exact``: the same as Fractions, profiles in ``itertools.product`` order;
    ``log_base``: log of the number of full pure strategy profiles behind each reduced one."""

    tree: Tree
    plans: list
    X: list
    shape: tuple
    utility: np.ndarray
    utility_exact: list
    log_base: np.ndarray

    @property
    def count(self) -> int:
        return int(np.prod(self.shape))

    def index(self, s: tuple) -> int:
        return int(np.ravel_multi_index(s, self.shape))

    def profile(self, k: int) -> tuple:
        return tuple(int(i) for i in np.unravel_index(k, self.shape))


def profiles(tree: Tree, max_profiles: int = MAX_PROFILES) -> Profiles:
    """Every reduced pure strategy profile of ``tree`` and its expected utilities (exact)."""
    N = tree.num_players
    shape = tuple(count_reduced(tree, n) for n in range(N))  # counted before anything is listed
    count = math.prod(shape)
    if count > max_profiles:
        sizes = " x ".join(str(x) if x < 10**6 else f"~10^{len(str(x)) - 1}" for x in shape)
        raise SeqformError(
            f"{tree.name!r} has {'~10^' + str(len(str(count)) - 1) if count >= 10**6 else f'{count:,}'} "
            f"reduced pure strategy profiles ({sizes}); the exact EFCE methods enumerate them and "
            f"stop at {max_profiles:,}. Use the sampling method."
        )
    plans = [reduced_strategies(tree, n) for n in range(N)]
    X = []
    for n in range(N):
        m = np.zeros((len(plans[n]), tree.num_sequences[n]))
        for i, plan in enumerate(plans[n]):
            m[i, sorted(plan)] = 1.0
        X.append(m)
    t = tree.terminals
    seqs = [tree.node_seq[n, t] for n in range(N)]
    util = np.zeros((count, N))
    exact = [[Fraction(0)] * N for _ in range(count)]
    chance = tree.terminal_chance_exact
    pay = tree.payoff_exact
    # a profile reaches a leaf when every player's plan holds the leaf's sequence
    hits = [[set(np.flatnonzero(X[n][:, seqs[n][z]] > 0).tolist()) for z in range(len(t))] for n in range(N)]
    for z in range(len(t)):
        for combo in itertools.product(*(sorted(hits[n][z]) for n in range(N))):
            k = int(np.ravel_multi_index(combo, shape))
            for n in range(N):
                exact[k][n] += chance[z] * pay[z][n]
    for k in range(count):
        util[k] = [float(v) for v in exact[k]]
    counts = [full_counts(tree, n, plans[n]) for n in range(N)]
    log_base = np.zeros(count)
    for k in range(count):
        s = np.unravel_index(k, shape)
        log_base[k] = sum(math.log(counts[n][s[n]]) for n in range(N))
    return Profiles(tree, plans, X, shape, util, exact, log_base)

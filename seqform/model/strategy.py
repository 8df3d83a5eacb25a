"""Strategies over the sequence form: behavioural strategies, realization plans, conversions.

A player's behavioural strategy is an array ``b`` over that player's sequences: ``b[s]`` is the
probability of the action that sequence ``s`` ends with, at the information set it ends in;
``b[0] = 1`` for the empty sequence. Its realization plan (Koller, Megiddo & von Stengel 1996;
Bosansky 2019, sequence form) is ``x[s] = x[parent(s)] * b[s]``, ``x[0] = 1``.

Information sets the player's own plan reaches with probability zero (``x[parent] = 0``) carry
no information in a realization plan; converting a plan to behaviour gives them the **uniform**
distribution, on purpose: it is a valid completion, it is what OpenSpiel does, and the Nash
value does not depend on it. Refinements (package ``refinements``) exist precisely to choose
these actions well.

References:

- Bosansky (2019), "Solving Extensive-Form Games", lecture, Multiagent Systems, Czech Technical University in Prague.
- Koller, Megiddo & von Stengel (1996), "Efficient Computation of Equilibria for Extensive Two-Person Games", Games and
  Economic Behavior.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from seqform.errors import StrategyError
from seqform.model.tree import Tree


@dataclass
class Profile:
    """Behavioural strategies of all players: ``behaviour[p]`` has shape (num_sequences[p],)."""

    behaviour: list

    def realization(self, tree: Tree) -> list:
        """Realization plans of all players (list of arrays, one per player)."""
        return [realization_plan(tree, p, b) for p, b in enumerate(self.behaviour)]

    def action_probabilities(self, tree: Tree, infoset: int) -> np.ndarray:
        """The distribution over actions at global information set ``infoset``."""
        p = int(tree.infoset_player[infoset])
        f = int(tree.infoset_first_seq[infoset])
        return self.behaviour[p][f : f + int(tree.infoset_num_actions[infoset])]


def uniform(tree: Tree) -> Profile:
    """Every player plays uniformly at every information set."""
    out = []
    for p in range(tree.num_players):
        b = np.ones(tree.num_sequences[p])
        inf = tree.seq_infoset[p][1:]
        b[1:] = 1.0 / tree.infoset_num_actions[inf]
        out.append(b)
    return Profile(out)


def realization_plan(tree: Tree, p: int, b: np.ndarray) -> np.ndarray:
    """Realization plan of player ``p``'s behavioural strategy ``b`` (top-down, one pass per depth;
    one scalar loop over the information sets on a deep narrow tree, see ``Tree.is_narrow``)."""
    if tree.is_narrow(p):
        order = tree.level_order[p][0][::-1].tolist()
        bl = np.asarray(b, dtype=np.float64).tolist()
        xl = [1.0] * len(bl)
        for f, k, par in zip(
            tree.infoset_first_seq[order].tolist(),
            tree.infoset_num_actions[order].tolist(),
            tree.infoset_parent_seq[order].tolist(),
        ):
            xp = xl[par]
            for s in range(f, f + k):
                xl[s] = xp * bl[s]
        return np.array(xl)
    x = np.empty(tree.num_sequences[p])
    x[0] = 1.0
    for lvl, seqs, _starts, parents in reversed(tree.levels[p]):
        x[seqs] = np.repeat(x[parents], tree.infoset_num_actions[lvl]) * b[seqs]
    return x


def behaviour_from_realization(tree: Tree, p: int, x: np.ndarray) -> np.ndarray:
    """Behavioural strategy of realization plan ``x``; uniform where ``x[parent] == 0``."""
    b = np.ones(tree.num_sequences[p])
    if tree.num_sequences[p] == 1:
        return b
    par = tree.seq_parent[p][1:]
    px = x[par]
    inf = tree.seq_infoset[p][1:]
    unif = 1.0 / tree.infoset_num_actions[inf]
    with np.errstate(invalid="ignore", divide="ignore"):
        b[1:] = np.where(px > 0, x[1:] / np.where(px > 0, px, 1.0), unif)
    # floating noise in an LP solution can leave tiny negative or not-quite-normalised entries
    b = np.clip(b, 0.0, None)
    sums = np.zeros(len(tree.infoset_player))
    np.add.at(sums, inf, b[1:])
    # a float plan that reaches an information set but none of its actions (an LP solution far
    # off in magnitudes it cannot resolve) says nothing there: uniform, as where it does not reach
    empty = sums[inf] <= 0
    b[1:] = np.where(empty, unif, b[1:] / np.where(empty, 1.0, sums[inf]))
    return b


def realization_plan_exact(tree: Tree, p: int, b: list) -> list:
    """Exact realization plan (list of Fractions or fmpq) of an exact behavioural strategy."""
    x = [None] * tree.num_sequences[p]
    x[0] = b[0] * 0 + 1  # one, of b's exact type
    par = tree.seq_parent[p].tolist()
    for s in range(1, len(x)):
        x[s] = x[par[s]] * b[s]
    return x


def behaviour_from_realization_exact(tree: Tree, p: int, x: list) -> list:
    """Exact behavioural strategy (Fractions) of an exact plan; uniform where ``x[parent] == 0``."""
    b = [Fraction(1)] * tree.num_sequences[p]
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    for i in tree.player_infosets[p].tolist():
        f, k = int(first[i]), int(nact[i])
        px = Fraction(x[int(pseq[i])])
        for j in range(k):
            b[f + j] = Fraction(x[f + j]) / px if px else Fraction(1, k)
    return b


def validate_behaviour(tree: Tree, p: int, b, tol: float = 1e-9) -> None:
    """Raise ``StrategyError`` naming the information set unless ``b`` is a distribution everywhere.

    Float arrays are checked to ``tol`` (entries finite and >= -tol, each information set's sum
    within tol of 1) in a few vectorised calls; exact entries (Fractions) are checked exactly.
    """
    check_length(tree, p, b)
    ids = tree.player_infosets[p]
    if not len(ids):
        return
    if isinstance(b, np.ndarray) and b.dtype != object:
        v = np.asarray(b[1:], dtype=np.float64)
        # sequences of one information set are consecutive, and ordered as the information sets
        sums = np.add.reduceat(v, tree.infoset_first_seq[ids] - 1)
        bad_entry = ~np.isfinite(v) | (v < -tol)
        bad = np.abs(sums - 1.0) > tol
        bad |= np.logical_or.reduceat(bad_entry, tree.infoset_first_seq[ids] - 1)
        if not bad.any():
            return
        i = int(ids[np.argmax(bad)])
    else:
        for i in ids.tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            probs = list(b[f : f + k])
            if any(q < 0 for q in probs) or sum(probs) != 1:
                break
        else:
            return
    f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
    probs = [float(q) if isinstance(b, np.ndarray) else q for q in b[f : f + k]]
    shown = ", ".join(f"{a}: {q}" for a, q in zip(tree.infoset_actions[i], probs))
    raise StrategyError(
        f"player {p}'s strategy at {tree.infoset_label(i)} is not a distribution: {{{shown}}} (sum {sum(probs)})"
    )


def check_length(tree: Tree, p: int, b) -> None:
    """``StrategyError`` unless player ``p``'s strategy has one entry per sequence."""
    n = tree.num_sequences[p]
    if len(b) != n:
        raise StrategyError(
            f"player {p}'s strategy has {len(b)} entries; {tree.name} has {n} sequences "
            f"for player {p} (the empty sequence included)"
        )


def check_shape(tree: Tree, behaviours: list) -> None:
    """``StrategyError`` unless there is one strategy per player, each of the right length."""
    if len(behaviours) != tree.num_players:
        raise StrategyError(
            f"the profile has strategies for {len(behaviours)} players; {tree.name} has {tree.num_players}"
        )
    for p, b in enumerate(behaviours):
        check_length(tree, p, b)


def validate_profile(tree: Tree, profile: Profile, tol: float = 1e-9) -> None:
    """``validate_behaviour`` for every player, and the right number of players."""
    check_shape(tree, profile.behaviour)
    for p, b in enumerate(profile.behaviour):
        validate_behaviour(tree, p, b, tol)

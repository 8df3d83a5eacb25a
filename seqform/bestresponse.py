"""Best responses, expected payoffs, NashConv and exploitability, vectorised over a ``Tree``.

For player p facing the others' realization plans, every leaf z contributes
``w(z) = chance(z) * prod_{q != p} x_q[seq_q(z)] * u_p(z)`` to p's *sequence payoff*
``g_p[seq_p(z)]``. A best response is then one backward pass over p's information sets, deepest
first: ``V(I) = max_a (g_p[(I, a)] + sum of V over the information sets that follow (I, a))``, and
its value is ``g_p[empty] + sum of V over p's first information sets``. Each level of the pass is
a few numpy calls (``ufunc.reduceat`` over the consecutive sequences of each information set).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .strategy import Profile, realization_plan, validate_profile
from .tree import Tree


def others_reach(tree: Tree, p: int, realizations: list, nodes: np.ndarray) -> np.ndarray:
    """``chance_reach * prod_{q != p} x_q[seq_q(node)]`` for the given nodes."""
    w = tree.chance_reach[nodes].copy()
    for q in range(tree.num_players):
        if q != p:
            w *= realizations[q][tree.node_seq[q, nodes]]
    return w


def sequence_payoffs(tree: Tree, p: int, realizations: list) -> np.ndarray:
    """Player ``p``'s payoff attributed to each of p's sequences, shape (num_sequences[p],)."""
    t = tree.terminals
    w = others_reach(tree, p, realizations, t) * tree.payoff[:, p]
    return np.bincount(tree.node_seq[p, t], weights=w, minlength=tree.num_sequences[p])


@dataclass
class BackwardPass:
    """Per information set of one player (indexed by global id; other players' entries are 0):
    ``best`` the best-response value, ``current`` the value of the player's own strategy ``b``,
    ``choice`` the best-response action (index); ``value_best`` and ``value_current`` at the root.
    Values are unnormalised: weighted by chance and the others' reach."""

    best: np.ndarray
    current: np.ndarray
    choice: np.ndarray
    value_best: float
    value_current: float


def backward_pass(tree: Tree, p: int, g: np.ndarray, b: np.ndarray | None = None) -> BackwardPass:
    """Best-response (and, given ``b``, current-strategy) values of player ``p`` for payoffs ``g``.

    ``g`` and ``b`` have shape (num_sequences[p],). A few numpy calls per level of ``tree.levels``;
    on a deep narrow tree (``Tree.is_narrow``: a chain has one information set per level) one
    scalar loop over the information sets instead, with the same arithmetic in the same order.
    """
    if tree.is_narrow(p):
        return _backward_pass_scalar(tree, p, g, b)
    return _backward_pass_levels(tree, p, g, b)


def _backward_pass_levels(tree: Tree, p: int, g: np.ndarray, b: np.ndarray | None) -> BackwardPass:
    n = tree.num_sequences[p]
    M = len(tree.infoset_player)
    best_below = np.zeros(n)
    cur_below = np.zeros(n)
    best = np.zeros(M)
    cur = np.zeros(M)
    choice = np.zeros(M, dtype=np.int64)
    for lvl, seqs, starts, parents in tree.levels[p]:
        vals = g[seqs] + best_below[seqs]
        vb = np.maximum.reduceat(vals, starts)
        best[lvl] = vb
        nact = tree.infoset_num_actions[lvl]
        # first maximiser in each information set (ties broken towards the lower action index)
        hit = vals >= np.repeat(vb, nact)
        pos = np.where(hit, np.arange(len(seqs)), len(seqs))
        choice[lvl] = np.minimum.reduceat(pos, starts) - starts
        np.add.at(best_below, parents, vb)
        if b is not None:
            vc = np.add.reduceat(b[seqs] * (g[seqs] + cur_below[seqs]), starts)
            cur[lvl] = vc
            np.add.at(cur_below, parents, vc)
    return BackwardPass(best, cur, choice, float(g[0] + best_below[0]), float(g[0] + cur_below[0]))


def _backward_pass_scalar(tree: Tree, p: int, g: np.ndarray, b: np.ndarray | None) -> BackwardPass:
    order = tree.level_order[p][0].tolist()
    first = tree.infoset_first_seq[order].tolist()
    nact = tree.infoset_num_actions[order].tolist()
    parent = tree.infoset_parent_seq[order].tolist()
    gl = np.asarray(g, dtype=np.float64).tolist()
    n = len(gl)
    best_below = [0.0] * n
    bests, choices = [], []
    for f, k, par in zip(first, nact, parent):
        vb, c = gl[f] + best_below[f], 0
        for j in range(1, k):
            v = gl[f + j] + best_below[f + j]
            if v > vb:
                vb, c = v, j
        bests.append(vb)
        choices.append(c)
        best_below[par] += vb
    M = len(tree.infoset_player)
    best = np.zeros(M)
    cur = np.zeros(M)
    choice = np.zeros(M, dtype=np.int64)
    best[order] = bests
    choice[order] = choices
    value_cur = 0.0
    if b is not None:
        bl = np.asarray(b, dtype=np.float64).tolist()
        cur_below = [0.0] * n
        curs = []
        for f, k, par in zip(first, nact, parent):
            vc = bl[f] * (gl[f] + cur_below[f])
            for j in range(f + 1, f + k):
                vc += bl[j] * (gl[j] + cur_below[j])
            curs.append(vc)
            cur_below[par] += vc
        cur[order] = curs
        value_cur = gl[0] + cur_below[0]
    return BackwardPass(best, cur, choice, float(gl[0] + best_below[0]), float(value_cur))


def best_response(tree: Tree, p: int, profile: Profile) -> tuple[float, np.ndarray]:
    """Player ``p``'s best-response value against ``profile`` and a pure best response (behavioural)."""
    real = profile.realization(tree)
    bp = backward_pass(tree, p, sequence_payoffs(tree, p, real))
    br = np.zeros(tree.num_sequences[p])
    br[0] = 1.0
    ids = tree.player_infosets[p]
    br[tree.infoset_first_seq[ids] + bp.choice[ids]] = 1.0
    return bp.value_best, br


def expected_payoffs(tree: Tree, profile: Profile) -> np.ndarray:
    """Each player's expected payoff under ``profile``, shape (N,)."""
    real = profile.realization(tree)
    t = tree.terminals
    w = tree.terminal_chance.copy()
    for q in range(tree.num_players):
        w *= real[q][tree.node_seq[q, t]]
    return w @ tree.payoff


@dataclass
class Exploitability:
    """``nash_conv`` = sum over players of (best-response value - own value); ``exploitability`` =
    nash_conv / N (OpenSpiel's convention: for two-player zero-sum, the mean gain of deviating).
    ``best_response_values`` and ``values`` per player."""

    nash_conv: float
    exploitability: float
    best_response_values: np.ndarray
    values: np.ndarray


def exploitability(tree: Tree, profile: Profile, validate: bool = True) -> Exploitability:
    """NashConv and exploitability of ``profile`` (any number of players, general-sum too).
    ``validate``: first check the profile is a distribution everywhere (``StrategyError``)."""
    if validate:
        validate_profile(tree, profile)
    real = profile.realization(tree)
    N = tree.num_players
    brv = np.empty(N)
    own = np.empty(N)
    for p in range(N):
        bp = backward_pass(tree, p, sequence_payoffs(tree, p, real), profile.behaviour[p])
        brv[p], own[p] = bp.value_best, bp.value_current
    nc = float(np.sum(brv - own))
    return Exploitability(nc, nc / N, brv, own)


def profile_from_realizations(tree: Tree, realizations: list) -> Profile:
    """Behavioural profile of realization plans (uniform where a plan reaches with probability 0)."""
    from .strategy import behaviour_from_realization
    return Profile([behaviour_from_realization(tree, p, x) for p, x in enumerate(realizations)])


__all__ = ["sequence_payoffs", "backward_pass", "best_response", "expected_payoffs", "exploitability",
           "Exploitability", "BackwardPass", "others_reach", "realization_plan", "profile_from_realizations"]

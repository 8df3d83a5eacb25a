"""Brute-force best responses and per-information-set regret (Kroer, Farina & Sandholm 2017, section 4), by recursion
over the succinct game and enumeration of pure continuation strategies. Independent of seqform's
compiled arrays and backward passes: test code only, for small games.

A strategy profile is given as ``probs(player, infoset_key) -> list of floats``.
"""

from __future__ import annotations

import itertools

from seqform.model.game import CHANCE, TERMINAL


def _value(game, h, p, probs, pure):
    """Player p's expected utility below h when p plays ``pure`` (dict key -> action) where it
    has an entry, and everyone else (and p elsewhere) plays ``probs``."""
    pl = game.player(h)
    if pl == TERMINAL:
        return float(game.utility(h)[p])
    if pl == CHANCE:
        return sum(float(q) * _value(game, game.next(h, a), p, probs, pure) for a, q in enumerate(game.chance(h)) if q)
    key = game.infoset(h)
    if pl == p and key in pure:
        return _value(game, game.next(h, pure[key]), p, probs, pure)
    return sum(q * _value(game, game.next(h, a), p, probs, pure) for a, q in enumerate(probs(pl, key)) if q)


def _decision_nodes(game, probs):
    """(state, player, key, others' reach incl. chance) for every decision node."""
    out = []

    def rec(h, reach):
        pl = game.player(h)
        if pl == TERMINAL:
            return
        if pl == CHANCE:
            for a, q in enumerate(game.chance(h)):
                rec(game.next(h, a), [r * float(q) for r in reach])
            return
        key = game.infoset(h)
        out.append((h, pl, key, reach[pl]))
        for a, q in enumerate(probs(pl, key)):
            rec(game.next(h, a), [r * (q if i != pl else 1.0) for i, r in enumerate(reach)])

    rec(game.root(), [1.0, 1.0])
    return out


def _own_infosets_below(game, h, p):
    keys = {}

    def rec(h):
        pl = game.player(h)
        if pl == TERMINAL:
            return
        if pl == p:
            keys[game.infoset(h)] = len(game.actions(h))
        for a in range(len(game.actions(h))):
            rec(game.next(h, a))

    rec(h)
    return keys


def best_response_value(game, p, probs):
    """max over p's pure strategies of p's expected utility (others play ``probs``)."""
    keys = _own_infosets_below(game, game.root(), p)
    names = list(keys)
    best = -float("inf")
    for choice in itertools.product(*[range(keys[k]) for k in names]):
        best = max(best, _value(game, game.root(), p, probs, dict(zip(names, choice))))
    return best


def infoset_regrets(game, probs, max_assignments=20000):
    """{(player, key): regret or None (not reached by others and chance)}."""
    nodes = _decision_nodes(game, probs)
    groups = {}
    for h, pl, key, w in nodes:
        groups.setdefault((pl, key), []).append((h, w))
    out = {}
    for (pl, key), members in groups.items():
        W = sum(w for _, w in members)
        if W == 0:
            out[(pl, key)] = None
            continue
        below = {}
        for h, _ in members:
            below.update(_own_infosets_below(game, h, pl))
        names = list(below)
        n = 1
        for k in names:
            n *= below[k]
        if n > max_assignments:
            raise ValueError("too many continuation strategies for brute force")
        cur = sum(w * _value(game, h, pl, probs, {}) for h, w in members)
        best = max(
            sum(w * _value(game, h, pl, probs, dict(zip(names, c))) for h, w in members)
            for c in itertools.product(*[range(below[k]) for k in names])
        )
        out[(pl, key)] = (best - cur) / W
    return out

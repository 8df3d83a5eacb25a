"""A brute-force evaluation of behavioural profiles in games of any number of players, independent
of seqform.

It uses nothing from seqform but the interface constants of ``seqform.model.game`` (``CHANCE``,
``TERMINAL``): it walks a ``Game`` through its succinct queries, checks perfect recall, and with
``fractions.Fraction`` only (or, for probabilities given in a real number field, that field's
exact elements) computes, for a profile given per player as {information-set key:
probabilities in the order of ``actions``}:

* every player's expected utility (a walk of every leaf, multiplying chance and all players'
  probabilities along its path);
* every player's best-response value, as the maximum over **all of the player's reduced pure
  strategies**, enumerated one by one, of the player's expected utility when it plays that pure
  strategy and the others play the profile (per tree of the player's information-set forest: a
  pure strategy's value is a sum over the trees, so its maximum is the sum of each tree's maximum
  over that tree's pure strategies, and a tree's strategies are enumerated in full);
* NashConv, the sum over players of best-response value minus value;
* the regret at every information set I of player p (Kroer, Farina & Sandholm 2017, section 4):
  I taken as reached, its nodes weighted by chance times the other players' reach (Bayes' rule),
  the most p gains in expectation by switching, at I and at every information set of p below I,
  to a pure strategy of that part of the game (each one enumerated), divided by the total weight
  of I's nodes; None where that weight is 0.

The leaves are grouped by the player's own history (its (information set, action) pairs from the
root), so a pure strategy's value is a sum over the own histories it is consistent with; the
enumeration itself is exhaustive, and callers keep the games small (``max_strategies``, per tree).
Nothing here shares code or method with seqform's backward pass, which maximises at every
information set: here only whole pure strategies are compared.

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from seqform.model.game import CHANCE, TERMINAL


def _exact(x):
    """A probability as the oracle computes with it: a Fraction, or kept as it is when it is an
    element of a real number field (``seqform.exact.algebraic``: exact sums, products and
    comparisons, so every step below stays exact in that field)."""
    if hasattr(x, "field") and hasattr(x, "poly"):
        return x
    if hasattr(x, "p") and hasattr(x, "q"):  # python-flint fmpq
        return Fraction(int(x.p), int(x.q))
    return Fraction(x)


#: default bound on the number of pure strategies enumerated for one player (or one subtree)
MAX_STRATEGIES = 200_000
#: default bound on the number of nodes walked
MAX_NODES = 50_000


class NPlayerOracleError(Exception):
    """The game is too large for the oracle or lacks perfect recall, or the profile does not fit it."""


@dataclass
class Leaf:
    """A leaf as the walk saw it: chance probability, each player's reach under the profile, each
    player's own history, the utilities."""

    chance: Fraction
    reach: tuple
    own: tuple
    utility: tuple


@dataclass
class BruteForceEvaluation:
    """What ``brute_force_evaluate`` computed, every number a ``Fraction``: per player ``values``,
    ``best_response_values``; ``nash_conv``; ``infoset_regret[p][key]`` (None where chance and
    the others never reach the information set)."""

    values: list
    best_response_values: list
    nash_conv: Fraction
    infoset_regret: list


def _walk(game, profile: list, max_nodes: int) -> tuple:
    """The leaves; per player its information sets, {key: (own history, number of actions)}; and
    per player each information set's weight W(I): chance times the other players' reach, summed
    over its nodes."""
    n = int(game.num_players)
    infosets: list = [dict() for _ in range(n)]
    weights: list = [dict() for _ in range(n)]
    leaves: list = []
    count = 0
    # (state, chance probability, reach per player, own history per player)
    stack = [(game.root(), Fraction(1), (Fraction(1),) * n, ((),) * n)]
    while stack:
        h, ch, reach, own = stack.pop()
        count += 1
        if count > max_nodes:
            raise NPlayerOracleError(f"{game!r} has more than {max_nodes} nodes")
        pl = game.player(h)
        if pl == TERMINAL:
            u = tuple(Fraction(x) for x in game.utility(h))
            if len(u) != n:
                raise NPlayerOracleError(f"a leaf has {len(u)} utilities for {n} players")
            leaves.append(Leaf(ch, reach, own, u))
            continue
        k = len(game.actions(h))
        if pl == CHANCE:
            probs = [Fraction(q) for q in game.chance(h)]
            stack.extend((game.next(h, a), ch * probs[a], reach, own) for a in range(k))
            continue
        key = game.infoset(h)
        seen = infosets[pl].setdefault(key, (own[pl], k))
        if seen != (own[pl], k):
            raise NPlayerOracleError(f"player {pl}'s information set {key!r} breaks perfect recall")
        others = ch * _prod(r for q, r in enumerate(reach) if q != pl)
        weights[pl][key] = weights[pl].get(key, Fraction(0)) + others
        try:
            b = [_exact(x) for x in profile[pl][key]]
        except KeyError:
            raise NPlayerOracleError(f"the profile has no strategy for player {pl} at {key!r}") from None
        if len(b) != k or sum(b) != 1 or min(b) < 0:
            raise NPlayerOracleError(f"player {pl}'s strategy at {key!r} is not a distribution over {k} actions")
        for a in range(k):
            r = reach[:pl] + (reach[pl] * b[a],) + reach[pl + 1 :]
            o = own[:pl] + (own[pl] + ((key, a),),) + own[pl + 1 :]
            stack.append((game.next(h, a), ch, r, o))
    return leaves, infosets, weights


def _children(infosets: dict) -> dict:
    """The player's information-set forest: {(key, action) or None (the root): [keys right below]}."""
    out: dict = {}
    for key, (own, _) in infosets.items():
        out.setdefault(own[-1] if own else None, []).append(key)
    return out


def _pure_strategies(roots: list, infosets: dict, children: dict, max_count: int) -> list:
    """Every reduced pure strategy of the forest below ``roots``: dicts {key: action}, one action
    at each information set that the strategy's own earlier choices do not exclude."""

    def below(key) -> list:
        out = []
        for a in range(infosets[key][1]):
            for rest in of(children.get((key, a), [])):
                out.append({key: a, **rest})
                if len(out) > max_count:
                    raise NPlayerOracleError(f"more than {max_count} pure strategies")
        return out

    def of(keys: list) -> list:
        out = []
        for parts in product(*(below(k) for k in keys)):  # one empty part when keys is empty
            merged: dict = {}
            for part in parts:
                merged.update(part)
            out.append(merged)
            if len(out) > max_count:
                raise NPlayerOracleError(f"more than {max_count} pure strategies")
        return out

    return of(roots)


def _others_weight(leaf: Leaf, p: int) -> Fraction:
    w = leaf.chance
    for q, r in enumerate(leaf.reach):
        if q != p:
            w *= r
    return w


def _best_value(groups: dict, strategies: list, start: int) -> Fraction:
    """The largest sum, over the pure strategies, of the groups' weights whose own histories
    (from position ``start`` on) the strategy plays."""
    best = None
    for s in strategies:
        v = sum((w for own, w in groups.items() if all(s.get(key) == a for key, a in own[start:])), Fraction(0))
        best = v if best is None or v > best else best
    return best if best is not None else Fraction(0)


def brute_force_evaluate(
    game, profile: list, *, max_nodes: int = MAX_NODES, max_strategies: int = MAX_STRATEGIES
) -> BruteForceEvaluation:
    """Values, best-response values, NashConv and per-information-set regrets of ``profile``
    (per player, {information-set key: probabilities}) in ``game``, by enumeration (module
    docstring). Raises ``NPlayerOracleError`` for a game too large or without perfect recall."""
    n = int(game.num_players)
    leaves, infosets, weights = _walk(game, profile, max_nodes)
    values = [sum((lf.chance * _prod(lf.reach) * lf.utility[p] for lf in leaves), Fraction(0)) for p in range(n)]
    best, regrets = [], []
    for p in range(n):
        children = _children(infosets[p])
        # the player's payoff weight of each of its own histories: chance, the others, its utility
        groups: dict = {}
        for lf in leaves:
            groups[lf.own[p]] = groups.get(lf.own[p], Fraction(0)) + _others_weight(lf, p) * lf.utility[p]
        # the value of a pure strategy is a sum over own histories, each inside one tree of the
        # forest (or empty): its maximum is the sum over the trees of each tree's maximum
        value = groups.get((), Fraction(0))
        for root in children.get(None, []):
            mine = {o: w for o, w in groups.items() if o and o[0][0] == root}
            value += _best_value(mine, _pure_strategies([root], infosets[p], children, max_strategies), 0)
        best.append(value)
        regrets.append(_regrets(infosets[p], weights[p], children, profile[p], groups, max_strategies))
    return BruteForceEvaluation(values, best, sum(b - v for b, v in zip(best, values)), regrets)


def _regrets(infosets: dict, weights: dict, children: dict, behaviour: dict, groups: dict, cap: int) -> dict:
    """Per information set of one player, its regret (module docstring), or None where W(I) = 0."""
    out = {}
    for key, (own, _) in infosets.items():
        d = len(own)
        if weights[key] == 0:
            out[key] = None
            continue
        # the leaves below I: own histories through I (perfect recall: they extend I's own history)
        mine = {o: w for o, w in groups.items() if len(o) > d and o[d][0] == key}
        strategies = _pure_strategies([key], infosets, children, cap)
        best = _best_value(mine, strategies, d)
        current = sum((w * _prod(_exact(behaviour[k][a]) for k, a in o[d:]) for o, w in mine.items()), Fraction(0))
        out[key] = (best - current) / weights[key]
    return out


def _prod(xs) -> Fraction:
    out = Fraction(1)
    for x in xs:
        out *= x
    return out

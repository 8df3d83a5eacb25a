"""The perturbed game's pure strategies, enumerated: an independent check that a profile is an
exact equilibrium of an eps-perturbed game, for small games.

A player's perturbed polytope (plans with ``x[s] >= beta_s x[parent(s)]`` and ``x[s] >= l_s``)
has as vertices its *perturbed pure strategies*: one chosen action per information set, every
other action at the least mass its bounds allow (``beta_a m`` for incoming mass ``m``, or the
realization mass ``need_a`` its own subtree's bounds require) and the chosen action the rest. A
linear payoff is maximised at a vertex, so a profile is an equilibrium of the perturbed game
exactly when no player's perturbed pure strategy pays more against the other's plan. Everything
is enumerated (every combination of choices, not reduced) and computed in Fractions from the
tree's arrays; nothing here comes from the solvers under test.
"""

from __future__ import annotations

import itertools
from fractions import Fraction


def _need(tree, p: int, lam: list) -> list:
    """Least mass each sequence must carry so that the realization bounds below it can be met."""
    need = [Fraction(v) for v in lam]
    for i in reversed(tree.player_infosets[p].tolist()):
        f, k, ps = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i]), int(tree.infoset_parent_seq[i])
        need[ps] = max(need[ps], sum(need[f : f + k]))
    return need


def perturbed_pure_plans(tree, p: int, beta: list, lam: list, limit: int = 20_000):
    """Every perturbed pure strategy's realization plan (lists of Fractions)."""
    infosets = tree.player_infosets[p].tolist()
    sizes = [int(tree.infoset_num_actions[i]) for i in infosets]
    count = 1
    for k in sizes:
        count *= k
    if count > limit:
        raise ValueError(f"{count} pure strategies: too many to enumerate")
    need = _need(tree, p, lam)
    for choice in itertools.product(*[range(k) for k in sizes]):
        x = [Fraction(0)] * tree.num_sequences[p]
        x[0] = Fraction(1)
        for i, c in zip(infosets, choice):  # discovery order: parents first
            f, k, ps = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i]), int(tree.infoset_parent_seq[i])
            m = x[ps]
            low = [Fraction(beta[s]) * m if beta[s] else need[s] for s in range(f, f + k)]
            for a in range(k):
                x[f + a] = low[a]
            x[f + c] += m - sum(low)
        yield x


def payoff(tree, p: int, plans: list) -> Fraction:
    """Player p's exact expected payoff when the players play realization plans ``plans``."""
    total = Fraction(0)
    s0 = tree.node_seq[0, tree.terminals].tolist()
    s1 = tree.node_seq[1, tree.terminals].tolist()
    for z, (a, b) in enumerate(zip(s0, s1)):
        total += Fraction(tree.terminal_chance_exact[z]) * Fraction(tree.payoff_exact[z][p]) * plans[0][a] * plans[1][b]
    return total


def best_pure_gain(tree, plans: list, bounds: list) -> list:
    """Per player: the most a perturbed pure strategy gains over its plan against the other's plan
    (0 at an exact equilibrium of the perturbed game); ``bounds[p] = (beta, lam)`` at one eps."""
    gains = []
    for p in range(2):
        current = payoff(tree, p, plans)
        best = current
        for x in perturbed_pure_plans(tree, p, *bounds[p]):
            trial = [x, plans[1]] if p == 0 else [plans[0], x]
            best = max(best, payoff(tree, p, trial))
        gains.append(best - current)
    return gains


def meets_bounds(tree, p: int, x: list, beta: list, lam: list) -> bool:
    """Whether plan ``x`` satisfies every lower bound exactly."""
    par = tree.seq_parent[p].tolist()
    return all(
        x[s] >= Fraction(beta[s]) * x[par[s]] and x[s] >= Fraction(lam[s]) for s in range(1, tree.num_sequences[p])
    )

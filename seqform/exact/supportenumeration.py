"""Exact Nash equilibria of small games of any number of players by support enumeration in the
sequence form.

A support of player p is a set of its sequences (a boolean mask over ``tree.num_sequences[p]``)
that contains the empty sequence, is closed under prefixes, plays a nonempty set of actions at
every information set whose parent sequence it contains, and contains nothing below an information
set whose parent sequence it does not: the sequences a realization plan (Koller, Megiddo & von
Stengel 1996) can play with positive weight. Its *size* is 1 plus the dimension of the face of the
player's plan polytope it spans: the number of sequences it plays minus the number of information
sets it reaches. A pure plan has size 1, and in a game where the player moves once a support of k
actions has size k, as in the normal form.

``enumerate_equilibrium`` walks joint supports in the order of Porter, Nudelman & Shoham (2008),
"Simple search methods for finding a Nash equilibrium": support-size profiles by smallest total
size first, then most balanced (smallest difference between the largest and the smallest size)
first, so pure profiles come first of all. A pure profile is checked at once: its plans are 0 or 1,
the others' sequence payoffs follow, and exact best responses
(``seqform.exact.exactbestresponse``) say whether any player gains by deviating; only the pure
profiles in which the last player best-responds in floats are generated, and a float check of the
others first skips the exact arithmetic for profiles that are plainly not equilibria.

Any other joint support is first tested for Porter et al.'s conditional dominance, in the sequence
form: an action the support plays that another action, ending the player's play, beats against
every pure profile of the others inside their supports (even with the best continuation after it)
cannot be played in an equilibrium with exactly this support. A support that survives gives a
square polynomial system, multilinear in the other players' plans (the sequence-form form of Datta
2010, "Finding all Nash equilibria of a finite game using polynomial algebra"):
``seqform.exact.nplayerpolish.SupportSystem``, solved by Gauss-Newton
(``seqform.exact.nplayerpolish.gauss_newton``) from the support's uniform plan and a few seeded
random plans (per information set a flat Dirichlet draw over the support's actions). A solution
whose plans are nonnegative and whose float best responses gain nothing is handed to
``seqform.exact.nplayerpolish.certify_on_support``: free directions pinned at simple rationals,
rounded (or, for an irrational solution, solved in a real algebraic number field), certified by
exact best responses. The first certified equilibrium is returned; the number of joint supports
and the time are bounded, and nothing starts after the time limit.

Exhaustive only up to those bounds and up to what Gauss-Newton finds from its starts on each
support: a support whose solutions it misses, or whose solutions ``certify_on_support`` cannot
certify, is passed over.

References:

- Datta (2010), "Finding all Nash equilibria of a finite game using polynomial algebra", Economic Theory.
- Koller, Megiddo & von Stengel (1996), "Efficient Computation of Equilibria for Extensive Two-Person Games", Games and
  Economic Behavior.
- Porter, Nudelman & Shoham (2008), "Simple search methods for finding a Nash equilibrium", Games and Economic
  Behavior.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations, islice, product

import flint
import numpy as np

from seqform.errors import SeqformError
from seqform.exact.exactbestresponse import exact_best_response_value
from seqform.exact.nplayerpolish import (
    MAX_UNKNOWNS,
    PIN_DENOMINATORS,
    PolishResult,
    SupportSystem,
    certify_on_support,
    gauss_newton,
)
from seqform.exact.rationals import fmpq_of
from seqform.model.strategy import Profile, behaviour_from_realization_exact, realization_plan
from seqform.model.tree import Tree

#: default bound on the joint supports tried (pure profiles included)
MAX_SUPPORTS = 100_000
#: default number of Gauss-Newton starts per joint support: the uniform plan, then random plans
STARTS = 4
#: a float best-response gain above this times the payoff range (at least 1) rejects a solution
FLOAT_GAIN_TOLERANCE = 1e-7
#: conditional dominance is checked only when the others' pure profiles inside their supports are at most this many
DOMINANCE_PROFILES = 64
#: a float margin for dominance, times the payoff range (at least 1): only clear cases prune
DOMINANCE_TOLERANCE = 1e-12


# ----------------------------------------------------------------------------------------------
# one player's supports
# ----------------------------------------------------------------------------------------------


def _children(tree: Tree, p: int) -> dict:
    """Player p's information sets below each of its sequences: {parent sequence: [global ids]}."""
    out: dict[int, list[int]] = {}
    for i in tree.player_infosets[p].tolist():
        out.setdefault(int(tree.infoset_parent_seq[i]), []).append(i)
    return out


def max_support_size(tree: Tree, p: int) -> int:
    """The size of player p's largest support (every sequence): sequences minus information sets."""
    return int(tree.num_sequences[p]) - len(tree.player_infosets[p])


def support_size(tree: Tree, p: int, mask: np.ndarray) -> int:
    """1 plus the dimension of the face a support spans: sequences played (the empty one
    included) minus information sets reached (those whose parent sequence is played)."""
    mask = np.asarray(mask, dtype=bool)
    reached = mask[tree.infoset_parent_seq[tree.player_infosets[p]]].sum()
    return int(mask.sum() - reached)


def _room(tree: Tree, p: int, allowed: np.ndarray) -> dict:
    """Per information set of player p, the most a support can add to its size there and below:
    allowed actions minus information sets, over the subtree (every allowed action played)."""
    room: dict[int, int] = {}
    children = _children(tree, p)
    for i in reversed(tree.player_infosets[p].tolist()):  # discovery order: children after parents
        acts = [
            s
            for s in range(int(tree.infoset_first_seq[i]), int(tree.infoset_first_seq[i] + tree.infoset_num_actions[i]))
        ]
        acts = [s for s in acts if allowed[s]]
        room[i] = max(len(acts) - 1, 0) + sum(room[j] for s in acts for j in children.get(s, []))
    return room


def player_supports(
    tree: Tree, p: int, size: int | None = None, within: np.ndarray | None = None
) -> Iterator[np.ndarray]:
    """Player p's supports (module docstring), lazily, as fresh boolean masks of shape
    (num_sequences[p],): only those of size ``size`` when given, only those inside the support
    ``within`` when given (``size=1, within=S``: the pure plans that S contains). Depth first over
    the information sets the support reaches, at each the subsets of its actions by increasing size."""
    children = _children(tree, p)
    first, nact = tree.infoset_first_seq, tree.infoset_num_actions
    allowed = np.ones(tree.num_sequences[p], dtype=bool) if within is None else np.asarray(within, dtype=bool)
    mask = np.zeros(tree.num_sequences[p], dtype=bool)
    mask[0] = True
    budget = None if size is None else size - 1
    room = _room(tree, p, allowed)

    def walk(frontier: list, spare: int | None) -> Iterator[np.ndarray]:
        if spare is not None and spare > sum(room[i] for i in frontier):
            return  # the information sets left cannot reach the size
        if not frontier:
            if spare is None or spare == 0:
                yield mask.copy()
            return
        i, rest = frontier[0], frontier[1:]
        f, k = int(first[i]), int(nact[i])
        actions = [s for s in range(f, f + k) if allowed[s]]
        for m in range(1, len(actions) + 1):
            if spare is not None and m - 1 > spare:
                return
            for chosen in combinations(actions, m):
                mask[list(chosen)] = True
                below = [j for s in chosen for j in children.get(s, [])]
                yield from walk(below + rest, None if spare is None else spare - (m - 1))
                mask[list(chosen)] = False

    if budget is None or budget >= 0:
        yield from walk(list(children.get(0, [])), budget)


# ----------------------------------------------------------------------------------------------
# joint supports, in Porter, Nudelman & Shoham's order
# ----------------------------------------------------------------------------------------------


def size_profiles(tree: Tree) -> Iterator[tuple]:
    """Support-size profiles (one size per player): smallest total first, then most balanced
    (largest minus smallest size), then lexicographic."""
    tops = [max_support_size(tree, p) for p in range(tree.num_players)]
    for total in range(tree.num_players, sum(tops) + 1):
        found: list[tuple] = []

        def split(p: int, left: int, acc: tuple) -> None:
            if p == len(tops) - 1:
                if 1 <= left <= tops[p]:
                    found.append(acc + (left,))
                return
            for x in range(1, min(tops[p], left - (len(tops) - 1 - p)) + 1):
                split(p + 1, left - x, acc + (x,))

        split(0, total, ())
        yield from sorted(found, key=lambda xs: (max(xs) - min(xs), xs))


def _product(tree: Tree, sizes: tuple, acc: list) -> Iterator[tuple]:
    """The joint supports of size profile ``sizes`` that extend ``acc`` (the first players' masks)."""
    p = len(acc)
    if p == tree.num_players:
        yield sizes, list(acc)
        return
    for mask in player_supports(tree, p, sizes[p]):
        acc.append(mask)
        yield from _product(tree, sizes, acc)
        acc.pop()


def joint_supports(tree: Tree) -> Iterator[tuple]:
    """Every joint support, as (its size profile, a list of one mask per player), in Porter,
    Nudelman & Shoham's order (``size_profiles``), lazily: each player's supports of a given size
    are generated again for every combination of the players before it, so nothing is stored."""
    for sizes in size_profiles(tree):
        yield from _product(tree, sizes, [])


def _candidates(tree: Tree, tolerance: float) -> Iterator[tuple]:
    """``joint_supports``, but of the pure profiles only those in which the last player's plan is
    a float best response to the others' (``_pure_candidates``)."""
    for sizes in size_profiles(tree):
        if max(sizes) == 1:
            yield from _pure_candidates(tree, tolerance)
        else:
            yield from _product(tree, sizes, [])


def _pure_candidates(tree: Tree, tolerance: float) -> Iterator[tuple]:
    """The pure profiles whose last player plays a pure best response to the others' pure plans:
    for each pure profile of the others, the last player's pure plans inside ``_near_best``. A pure
    profile left out gives the last player a float gain above ``tolerance``: no equilibrium."""
    last = tree.num_players - 1
    sizes = (1,) * tree.num_players

    def walk(acc: list) -> Iterator[tuple]:
        if len(acc) == last:
            g = _sequence_payoffs(tree, [m.astype(float) for m in acc] + [None], last)
            for mask in player_supports(tree, last, 1, _near_best(tree, last, g, tolerance)):
                yield sizes, acc + [mask]
            return
        for mask in player_supports(tree, len(acc), 1):
            acc.append(mask)
            yield from walk(acc)
            acc.pop()

    yield from walk([])


# ----------------------------------------------------------------------------------------------
# checks: floats first, then exact
# ----------------------------------------------------------------------------------------------


def _sequence_payoffs(tree: Tree, plans: list, p: int) -> np.ndarray:
    """Player p's float sequence payoffs: chance times utility times the others' plans, per sequence."""
    t = tree.terminals
    w = tree.terminal_chance * tree.payoff[:, p]
    for q in range(tree.num_players):
        if q != p:
            w = w * plans[q][tree.node_seq[q, t]]
    return np.bincount(tree.node_seq[p, t], weights=w, minlength=tree.num_sequences[p])


def _best_below(tree: Tree, p: int, g: np.ndarray) -> np.ndarray:
    """Per sequence of player p, the best value of its own continuation below it for sequence
    payoffs g (0 below a sequence that ends its play; one numpy pass per level)."""
    below = np.zeros(tree.num_sequences[p])
    for _lvl, seqs, starts, parents in tree.levels[p]:
        np.add.at(below, parents, np.maximum.reduceat(g[seqs] + below[seqs], starts))
    return below


def _near_best(tree: Tree, p: int, g: np.ndarray, tolerance: float) -> np.ndarray:
    """Player p's sequences whose value (sequence payoff plus best continuation) is within
    ``tolerance`` of the best at their information set, for sequence payoffs g: a pure plan inside
    is a best response up to rounding, and a pure plan with a larger gain somewhere is not inside."""
    below = np.zeros(tree.num_sequences[p])
    near = np.ones(tree.num_sequences[p], dtype=bool)
    for lvl, seqs, starts, parents in tree.levels[p]:
        vals = g[seqs] + below[seqs]
        best = np.maximum.reduceat(vals, starts)
        near[seqs] = vals >= np.repeat(best, tree.infoset_num_actions[lvl]) - tolerance
        np.add.at(below, parents, best)
    return near


def _best_value(tree: Tree, p: int, g: np.ndarray) -> float:
    """Player p's float best-response value for sequence payoffs g."""
    return float(g[0] + _best_below(tree, p, g)[0])


def _float_gain(tree: Tree, plans: list) -> float:
    """The largest float best-response gain of any player against the float plans."""
    gains = []
    for p in range(tree.num_players):
        g = _sequence_payoffs(tree, plans, p)
        gains.append(_best_value(tree, p, g) - float(g @ plans[p]))
    return max(gains)


def _dominated(tree: Tree, support: list, p: int, tolerance: float) -> bool:
    """Whether an action player p plays in the joint support is conditionally dominated (Porter,
    Nudelman & Shoham 2008), in the sequence form: at an information set I the support reaches,
    an action a it plays and another action b of I that ends p's play, such that against every pure
    profile of the others inside their supports, the best value p can get from a on (its sequence
    payoff plus its best continuation) is at most b's sequence payoff, and less against one. Every
    such pure profile has positive weight when the others' plans are positive on exactly their
    supports, so moving a's weight to b gains: no equilibrium has exactly this support. Floats, with
    ``tolerance`` against rounding: only clear cases prune. Skipped (False) when the others' pure
    profiles inside their supports are more than ``DOMINANCE_PROFILES``."""
    others = [q for q in range(tree.num_players) if q != p]
    pures = [list(islice(player_supports(tree, q, 1, support[q]), DOMINANCE_PROFILES + 1)) for q in others]
    if math.prod(len(x) for x in pures) > DOMINANCE_PROFILES:
        return False
    upper, ends = [], []
    for combo in product(*pures):
        plans: list = [None] * tree.num_players
        for q, m in zip(others, combo):
            plans[q] = m.astype(float)
        g = _sequence_payoffs(tree, plans, p)
        upper.append(g + _best_below(tree, p, g))
        ends.append(g)
    B, G = np.array(upper), np.array(ends)
    leaf = np.ones(tree.num_sequences[p], dtype=bool)
    leaf[tree.infoset_parent_seq[tree.player_infosets[p]]] = False
    for i in tree.player_infosets[p].tolist():
        if not support[p][tree.infoset_parent_seq[i]]:
            continue
        seqs = np.arange(tree.infoset_first_seq[i], tree.infoset_first_seq[i] + tree.infoset_num_actions[i])
        a, b = seqs[support[p][seqs]], seqs[leaf[seqs]]
        diff = G[:, None, b] - B[:, a, None]  # (pure profiles, played a, ending b): b's gain over a
        beats = (diff >= -tolerance).all(axis=0) & (diff > tolerance).any(axis=0)
        if (beats & (a[:, None] != b[None, :])).any():
            return True
    return False


def _pure_equilibrium(tree: Tree, support: list) -> Profile | None:
    """The pure profile of a joint support of pure plans as exact behavioural strategies, when it
    is an exact Nash equilibrium (no player's exact best-response value exceeds its value), else None."""
    t = tree.terminals
    seqs = [tree.node_seq[q, t] for q in range(tree.num_players)]
    for p in range(tree.num_players):
        others = np.ones(len(t), dtype=bool)
        for q in range(tree.num_players):
            if q != p:
                others &= support[q][seqs[q]]
        g = [flint.fmpq(0)] * tree.num_sequences[p]
        for k in np.flatnonzero(others).tolist():
            c, u = tree.terminal_chance_exact[k], tree.payoff_exact[k]
            g[int(seqs[p][k])] += fmpq_of(c) * fmpq_of(u[p])
        value = sum((g[s] for s in np.flatnonzero(support[p]).tolist()), flint.fmpq(0))
        if exact_best_response_value(tree, p, g) > value:
            return None
    plans = [[Fraction(int(x)) for x in support[p]] for p in range(tree.num_players)]
    return Profile([behaviour_from_realization_exact(tree, p, x) for p, x in enumerate(plans)])


# ----------------------------------------------------------------------------------------------
# one joint support: Gauss-Newton from several starts
# ----------------------------------------------------------------------------------------------


def _start_plans(tree: Tree, support: list, rng: np.random.Generator | None) -> list:
    """Realization plans on the joint support: at every information set a support reaches, the
    uniform distribution over its actions in the support (``rng`` None), or a flat Dirichlet draw
    (normalised exponentials)."""
    plans = []
    for p, mask in enumerate(support):
        e = mask.astype(float) if rng is None else rng.exponential(size=len(mask)) * mask
        inf = tree.seq_infoset[p][1:]
        sums = np.zeros(len(tree.infoset_player))
        np.add.at(sums, inf, e[1:])
        b = np.ones(len(mask))
        b[1:] = np.where(sums[inf] > 0, e[1:] / np.where(sums[inf] > 0, sums[inf], 1.0), 0.0)
        plans.append(realization_plan(tree, p, b))
    return plans


def _initial_point(system: SupportSystem, plans: list) -> np.ndarray:
    """The unknowns z of ``system`` for the plans: the plans on the support, and the values that
    fit the equations best given them (the equations are linear in the values: least squares)."""
    z = np.zeros(system.n)
    for p, x in enumerate(plans):
        on = system.seq_col[p] >= 0
        z[system.seq_col[p][on]] = x[on]
    if system.n > system.num_plan:
        F = system.residual(z)
        z[system.num_plan :] = np.linalg.lstsq(system.L[:, system.num_plan :], -F, rcond=None)[0]
    return z


def _solutions(system: SupportSystem, starts: int, rng: np.random.Generator, deadline: float) -> Iterator[np.ndarray]:
    """Distinct float solutions of the support's equations with nonnegative plans (entries above
    -1e-9), by Gauss-Newton from the uniform plan and then ``starts - 1`` random plans."""
    free = np.ones(system.n, dtype=bool)
    seen: list[np.ndarray] = []
    for k in range(starts):
        if time.monotonic() > deadline:
            return
        z0 = _initial_point(system, _start_plans(system.tree, system.support, None if k == 0 else rng))
        z, res = gauss_newton(system, z0, free, deadline)
        system.last_residual = min(system.last_residual, res)
        if not res <= 1e-10 or (z[: system.num_plan] < -1e-9).any():
            continue
        if any(np.abs(z - s).max() < 1e-7 for s in seen):
            continue
        seen.append(z)
        yield z


# ----------------------------------------------------------------------------------------------
# the search
# ----------------------------------------------------------------------------------------------


def enumerate_equilibrium(
    tree: Tree,
    *,
    time_limit: float = 60.0,
    max_supports: int = MAX_SUPPORTS,
    seed: int = 0,
    starts: int = STARTS,
    denominators: tuple = PIN_DENOMINATORS,
) -> PolishResult:
    """An exact Nash equilibrium of ``tree`` (any number of players) by support enumeration
    (module docstring), certified by exact best responses (NashConv exactly 0), or a clear stop.
    The same contract as ``seqform.exact.nplayerpolish.polish``: a rational equilibrium is
    ``profile`` (behavioural strategies of Fractions, shape (num_sequences[p],) per player), an
    irrational one certified in a number field is as ``certify_on_support`` reports it. At most
    ``max_supports`` joint supports (pure profiles included) and ``starts`` Gauss-Newton starts per
    support (the random ones from a numpy Generator seeded by ``seed`` and the support's position,
    so a run is reproducible); nothing starts after ``time_limit`` seconds. ``status``:
    "certified", "failed" (every joint support, or ``max_supports`` of them, tried) or
    "time_limit"; ``reason`` says how many supports were tried and what was found. Raises
    ``SeqformError`` naming the parameter when ``max_supports`` or ``starts`` is below 1."""
    if max_supports < 1 or starts < 1:
        which, value = ("max_supports", max_supports) if max_supports < 1 else ("starts", starts)
        raise SeqformError(f"{which} must be at least 1, got {value}")
    start = time.monotonic()
    span = float(tree.payoff.max() - tree.payoff.min()) if tree.payoff.size else 0.0
    search = _Search(tree, FLOAT_GAIN_TOLERANCE * max(1.0, span), seed, starts, denominators, start + time_limit)
    out = search.out

    def stop(status: str, reason: str) -> PolishResult:
        out.status, out.reason, out.seconds = status, f"{reason}: {search.tally()}", time.monotonic() - start
        return out

    timed_out = f"time limit of {time_limit:.3g} s reached, nothing certified"
    for index, (sizes, support) in enumerate(_candidates(tree, search.tolerance)):
        if time.monotonic() >= search.deadline:
            return stop("time_limit", timed_out)
        if index >= max_supports:
            return stop("failed", f"no certified equilibrium within {max_supports} joint supports")
        search.count["supports"] += 1
        if search.pure(support) if max(sizes) == 1 else search.mixed(sizes, support, index + 1):
            return stop("certified", out.reason)
    if time.monotonic() > search.deadline:
        return stop("time_limit", timed_out)
    return stop("failed", "no certified equilibrium on any joint support")


_COUNTED = ("supports", "pure", "dominated", "solutions", "float")


@dataclass
class _Search:
    """One run of ``enumerate_equilibrium``: its settings, what it found (``out``) and its counts."""

    tree: Tree
    tolerance: float  # a float best-response gain above it rejects a profile
    seed: int
    starts: int
    denominators: tuple
    deadline: float
    out: PolishResult = field(default_factory=lambda: PolishResult(None, "failed", ""))
    count: dict = field(default_factory=lambda: dict.fromkeys(_COUNTED, 0))

    def tally(self) -> str:
        c = {k: f"{v:,}" for k, v in self.count.items()}
        return (
            f"joint supports tried: {c['supports']} ({c['pure']} pure profiles, {c['dominated']} rejected by "
            f"conditional dominance); nonnegative solutions of a support's equations: {c['solutions']}, "
            f"{c['float']} of them equilibria in floating point"
        )

    def pure(self, support: list) -> bool:
        """Check a pure profile; True when it is an equilibrium (``out.profile`` set)."""
        self.count["pure"] += 1
        if _float_gain(self.tree, [m.astype(float) for m in support]) > self.tolerance:
            return False
        profile = _pure_equilibrium(self.tree, support)
        if profile is None:
            return False
        self.out.profile, self.out.nash_conv, self.out.max_denominator = profile, Fraction(0), 1
        self.out.reason = "a pure equilibrium, certified exactly"
        return True

    def mixed(self, sizes: tuple, support: list, number: int) -> bool:
        """Solve the ``number``-th joint support's equations from several starts and certify the
        solutions that are equilibria in floating point; True when one is certified (``out``
        filled by ``certify_on_support``)."""
        tree, label = self.tree, f"joint support {number} (sizes {sizes})"
        margin = self.tolerance * DOMINANCE_TOLERANCE / FLOAT_GAIN_TOLERANCE
        if any(_dominated(tree, support, p, margin) for p in range(tree.num_players)):
            self.count["dominated"] += 1
            return False
        system = SupportSystem(tree, support)
        if system.n > MAX_UNKNOWNS:
            self.out.log.append(f"{label}: {system.n} unknowns, more than {MAX_UNKNOWNS}")
            return False
        rng = np.random.default_rng([self.seed, number])
        for z in _solutions(system, self.starts, rng, self.deadline):
            self.count["solutions"] += 1
            self.out.residual = min(self.out.residual, system.last_residual)
            if _float_gain(tree, [np.clip(x, 0.0, None) for x in system.plans(z)]) > self.tolerance:
                continue
            self.count["float"] += 1
            if certify_on_support(system, z, self.out, label, self.denominators, self.deadline):
                return True
        return False

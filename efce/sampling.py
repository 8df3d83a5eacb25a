"""The sampling algorithm of seed 004 (Dudik & Gordon): maximum-entropy EFCE of a game given only
as a simulator, by boosting over causal deviations and MCMC over strategy profiles.

The target is the solution of eq. 2, max H(p) + w . E_p[u] subject to E_p[r_phi] <= 0 for every
causal deviation phi, over full pure strategy profiles. It is the limit of the exponential family
q_lambda(s) ~ exp(w . u(s) - sum_phi lambda_phi r_phi(s)) (section 3), found by coordinate
descent (AdaBoost / SUMMET), one deviation per round:

1. **Sample** profiles from q_lambda (``_Chain``, section 3.3). A profile is a dict (player,
   information set) -> action, filled lazily: an information set is drawn uniformly the first
   time a walk needs it. The *skeleton* is what the last evaluation touched (the play, every
   recorded deviation's play, chance enumerated or sampled). Each MCMC step picks a skeleton
   entry uniformly, redraws its action from q_lambda's conditional (a Gibbs proposal), forgets
   the entries outside the new skeleton (the slice move: they are uniform again), and accepts with
   probability min(1, |skeleton(s)| / |skeleton(s')|).
2. **Best deviation** on the (weighted) sample (section 3.2): for every player, every node where
   the sample's play reaches that player gives a trigger (its information set, the recommended
   action). Below it, the player plays every action and the others follow the sample, so
   the leaves give the player's sequence payoffs. A backward pass over its information sets gives
   the best deviation strategy, as in a best response. Regret = best deviation minus what the
   recommendations earn, averaged over the sample.
3. **Update** one coordinate of lambda (coordinate descent on the dual, log Z over lambda >= 0).
   Usually it is the deviation with the largest regret r*: eq. 7's step, then a line search that
   minimises the sample estimate of log Z, capped at 10 times eq. 7's step. If that step would
   leave the effective sample size below ``ess_min``, eq. 7's step is taken instead (section
   3.4). When a recorded deviation's lambda has overshot, so that its regret is now more
   negative than r* is positive, that lambda is lowered instead, never below 0.
   - This is what makes the limit the *maximum-entropy* EFCE and not merely some EFCE.
   - The seed updates only the deviation with the largest regret. Its job-market runs end at
     different EFCEs (student 2.1-2.7, employer 0.1-0.5).
   - The run stops when both the largest regret and the largest overshoot are at most
     ``target`` r_max.
4. **Reuse** the sample, reweighted by exp(-step r_phi(s)), while its effective sample size
   (exp of the entropy of the weights) stays above ``ess_min`` times its size, and for at most
   ``max_reuse`` rounds (our addition: a long-reused sample overfits, its regret estimate falling
   well below the distribution's). Then sample afresh, with the sample size growing as
   ``sample_size`` + t/10 (section 3.4: 100 + t/10).

Scenarios: chance is enumerated exactly (``scenarios=None``; the seed does so for Indian poker) or
sampled once (``scenarios=k``: k sampled chance paths, each walk following chance at random, seeded).
Reproducible with ``seed``.
"""
from __future__ import annotations

import math
import time
import tracemalloc
from dataclasses import dataclass, field

import numpy as np

from seqform.errors import SeqformError
from seqform.game import CHANCE, TERMINAL, Game


@dataclass
class Deviation:
    """A causal deviation: ``player``, trigger information set ``key`` and ``action``, and the
    deviation strategy ``strategy`` {information-set key: action} (action 0 where it says nothing)."""

    player: int
    key: object
    action: int
    strategy: dict


@dataclass
class SamplingResult:
    """``payoffs`` (sample estimate per player), ``max_regret`` (the last round's largest
    estimated regret), ``initial_regret``, ``rounds``, ``samples`` (profiles drawn in total),
    ``seconds``, ``peak_memory`` (bytes, tracemalloc), ``history`` (per round: regret, sample
    size, effective sample size), ``deviations`` and ``lam`` (the exponential family)."""

    game: str
    payoffs: list
    max_regret: float
    initial_regret: float
    rounds: int
    samples: int
    seconds: float
    peak_memory: int
    history: list = field(default_factory=list)
    deviations: list = field(default_factory=list)
    lam: list = field(default_factory=list)
    weights: tuple = ()
    converged: bool = False


class _Walker:
    """Plays profiles in the succinct game: expected utilities (chance enumerated or sampled)."""

    def __init__(self, game: Game, rng: np.random.Generator, scenarios: int | None):
        self.game, self.rng = game, rng
        self.N = game.num_players
        self.scen = None
        if scenarios is not None:
            # fixed sampled scenarios: for each, a seed for the chance draws along any walk
            self.scen = [int(x) for x in rng.integers(0, 2**62, size=scenarios)]
        self.sizes: dict = {}

    def action(self, s: dict, touched: set, p: int, key, h) -> int:
        got = s.get((p, key))
        if got is None:
            n = len(self.game.actions(h))
            self.sizes[(p, key)] = n
            got = s[(p, key)] = int(self.rng.integers(n))
        touched.add((p, key))
        return got

    def _roots(self):
        if self.scen is None:
            return [(self.game.root(), 1.0, None)]
        return [(self.game.root(), 1.0 / len(self.scen), np.random.default_rng(sd)) for sd in self.scen]

    def play(self, s: dict, touched: set, dev: Deviation | None = None, trig_hits: list | None = None) -> np.ndarray:
        """Expected utilities when everyone follows ``s`` (player ``dev.player`` switches to
        ``dev.strategy`` once it is recommended ``dev.action`` at ``dev.key``). ``trig_hits``
        collects (node, weight) where a player acts (for the best-deviation search)."""
        g = self.game
        u = np.zeros(self.N)
        for root, w0, crng in self._roots():
            stack = [(root, w0, False)]
            while stack:
                h, w, deviating = stack.pop()
                p = g.player(h)
                if p == TERMINAL:
                    u += w * np.array([float(x) for x in g.utility(h)])
                elif p == CHANCE:
                    probs = [float(x) for x in g.chance(h)]
                    if crng is None:
                        for a, pr in enumerate(probs):
                            if pr:
                                stack.append((g.next(h, a), w * pr, deviating))
                    else:
                        a = int(crng.choice(len(probs), p=np.array(probs) / sum(probs)))
                        stack.append((g.next(h, a), w, deviating))
                else:
                    key = g.infoset(h)
                    if dev is not None and p == dev.player and (deviating or key == dev.key):
                        if not deviating:
                            if self.action(s, touched, p, key, h) != dev.action:
                                a = s[(p, key)]
                                stack.append((g.next(h, a), w, False))
                                continue
                            deviating = True
                        stack.append((g.next(h, dev.strategy.get(key, 0)), w, True))
                        continue
                    a = self.action(s, touched, p, key, h)
                    if trig_hits is not None:
                        trig_hits.append((p, key, a, h, w))
                    stack.append((g.next(h, a), w, deviating))
        return u

    def below(self, s: dict, touched: set, h, dev: Deviation | None, me: int) -> float:
        """Player ``me``'s expected utility below node h (weight 1, chance enumerated): from h on
        ``dev.player`` plays ``dev.strategy`` (h is a node of its trigger information set), or,
        with ``dev`` None, everyone follows s."""
        g = self.game
        n = dev.player if dev is not None else None
        total = 0.0
        stack = [(h, 1.0)]
        while stack:
            x, w = stack.pop()
            p = g.player(x)
            if p == TERMINAL:
                total += w * float(g.utility(x)[me])
            elif p == CHANCE:
                for a, pr in enumerate(g.chance(x)):
                    if pr:
                        stack.append((g.next(x, a), w * float(pr)))
            else:
                key = g.infoset(x)
                a = dev.strategy.get(key, 0) if p == n else self.action(s, touched, p, key, x)
                stack.append((g.next(x, a), w))
        return total


class _Model:
    """The current exponential family: weights w, deviations and their lambdas."""

    def __init__(self, walker: _Walker, w: np.ndarray):
        self.walker, self.w = walker, w
        self.devs: list = []
        self.lam: list = []

    def evaluate(self, s: dict) -> tuple:
        """(energy, utilities, regrets per deviation, skeleton) of profile ``s``.

        With chance enumerated, a deviation's regret is summed over the nodes where the play
        reaches its trigger, each walked twice below that node only (deviating, and following
        s): the subtrees of section 3.3, not the whole tree again."""
        touched: set = set()
        walker = self.walker
        hits: list | None = [] if walker.scen is None else None
        u = walker.play(s, touched, None, hits)
        r = np.zeros(len(self.devs))
        if self.devs:
            at: dict = {}
            for p, key, _, h, w in hits or ():
                at.setdefault((p, key), []).append((h, w))
            for j, d in enumerate(self.devs):
                if (d.player, d.key) not in touched or s[(d.player, d.key)] != d.action:
                    continue
                if hits is None:
                    r[j] = walker.play(s, touched, d)[d.player] - u[d.player]
                else:
                    r[j] = sum(w * (walker.below(s, touched, h, d, d.player) - walker.below(s, touched, h, None, d.player))
                               for h, w in at.get((d.player, d.key), ()))
        energy = float(self.w @ u - (np.dot(self.lam, r) if self.devs else 0.0))
        return energy, u, r, touched


class _Chain:
    """Slice Metropolis-Hastings over profiles (module docstring, step 1)."""

    def __init__(self, model: _Model, rng: np.random.Generator):
        self.model, self.rng = model, rng
        self.s: dict = {}
        self.state = model.evaluate(self.s)
        self._forget()

    def _forget(self) -> None:
        skel = self.state[3]
        self.s = {k: v for k, v in self.s.items() if k in skel}

    def refresh(self) -> None:
        self.state = self.model.evaluate(self.s)
        self._forget()

    def step(self) -> None:
        skel = sorted(self.state[3], key=repr)
        if not skel:
            return
        i = skel[int(self.rng.integers(len(skel)))]
        n = self.model.walker.sizes[i]
        cands = []
        for a in range(n):
            if a == self.s[i]:  # the current profile: its skeleton is complete, so nothing new to draw
                cands.append((self.s, self.state))
                continue
            t = dict(self.s)
            t[i] = a
            cands.append((t, self.model.evaluate(t)))
        e = np.array([c[1][0] for c in cands])
        pr = np.exp(e - e.max())
        pr /= pr.sum()
        t, st = cands[int(self.rng.choice(n, p=pr))]
        if self.rng.random() < min(1.0, len(self.state[3]) / max(1, len(st[3]))):
            self.s, self.state = t, st
            self._forget()

    def sample(self, m: int, thin: int) -> list:
        out = []
        for _ in range(m):
            for _ in range(thin):
                self.step()
            out.append((dict(self.s), self.state))
        return out


def _best_deviations(model: _Model, sample: list, weights: np.ndarray) -> list:
    """(regret, Deviation) per trigger found on the weighted sample (module docstring, step 2)."""
    g = model.walker.game
    walker = model.walker
    acc: dict = {}   # (player, key, action) -> [payoffs by relative sequence, parents, infosets, baseline]
    total = float(weights.sum())
    for (s, _), om in zip(sample, weights):
        if om == 0:
            continue
        hits: list = []
        walker.play(s, set(), None, hits)
        for p, key, a, h, w in hits:
            rec = acc.setdefault((p, key, a), [{}, {}, {}, 0.0])
            gpay, parent_of, nact, _ = rec
            # the subtree below h: p plays every action, the others follow s; and p's own play
            rec[3] += om * w * walker.below(s, set(), h, None, p)
            stack = [(h, w, ())]
            while stack:
                x, wx, seq = stack.pop()
                q = g.player(x)
                if q == TERMINAL:
                    gpay[seq] = gpay.get(seq, 0.0) + om * wx * float(g.utility(x)[p])
                elif q == CHANCE:
                    for b, pr in enumerate(g.chance(x)):
                        if pr:
                            stack.append((g.next(x, b), wx * float(pr), seq))
                elif q == p:
                    k = g.infoset(x)
                    n = len(g.actions(x))
                    parent_of.setdefault(k, seq)
                    nact[k] = n
                    for b in range(n):
                        stack.append((g.next(x, b), wx, seq + ((k, b),)))
                else:
                    b = walker.action(s, set(), q, g.infoset(x), x)
                    stack.append((g.next(x, b), wx, seq))
    out = []
    for (p, key, a), (gpay, parent_of, nact, base) in acc.items():
        below: dict = {}
        choice: dict = {}
        order = sorted(parent_of, key=lambda k: -len(parent_of[k]))  # deepest first
        for k in order:
            vals = [gpay.get(parent_of[k] + ((k, b),), 0.0) + below.get(parent_of[k] + ((k, b),), 0.0)
                    for b in range(nact[k])]
            b = int(np.argmax(vals))
            choice[k] = b
            below[parent_of[k]] = below.get(parent_of[k], 0.0) + vals[b]
        best = gpay.get((), 0.0) + below.get((), 0.0)
        out.append(((best - base) / total, Deviation(p, key, a, choice)))
    return out


def _ess(weights: np.ndarray) -> float:
    """Effective sample size: exp of the entropy of the normalised weights."""
    q = weights / weights.sum()
    q = q[q > 0]
    return float(np.exp(-(q * np.log(q)).sum()))


def regret_bound(game: Game, max_nodes: int = 2_000_000) -> float:
    """r_max: the largest range of one player's payoff over the leaves (walks the tree)."""
    lo = np.full(game.num_players, np.inf)
    hi = np.full(game.num_players, -np.inf)
    stack = [game.root()]
    count = 0
    while stack:
        h = stack.pop()
        count += 1
        if count > max_nodes:
            raise SeqformError(f"regret_bound: {game.name!r} has more than {max_nodes:,} nodes; pass r_max")
        p = game.player(h)
        if p == TERMINAL:
            u = np.array([float(x) for x in game.utility(h)])
            lo, hi = np.minimum(lo, u), np.maximum(hi, u)
        else:
            stack.extend(game.next(h, a) for a in range(len(game.actions(h))))
    return float((hi - lo).max())


def sample_efce(game: Game, weights=None, *, target: float = 1e-3, max_rounds: int = 1000, seed: int = 0,
                scenarios: int | None = None, r_max: float | None = None, sample_size: int = 100,
                growth: float = 0.1, thin: int = 2, burn_in: int = 50, ess_min: float = 0.5, max_reuse: int = 10,
                line_search: bool = True, progress=None, time_limit: float | None = None,
                stop_ratio: float | None = None) -> SamplingResult:
    """Seed 004's sampling algorithm on ``game`` (module docstring). ``weights``: w (one per
    player; None = 0: the maximum-entropy EFCE). Stops when the largest estimated regret is at
    most ``target`` times r_max (relative), after ``max_rounds``, at ``time_limit`` seconds, or on
    Ctrl-C (the result so far). ``stop_ratio``: stop instead when the regret falls to this fraction
    of the first round's (seed 004's experiments: 1e-4 for Indian poker, 1e-3 for grids). A
    sample is reused for at most ``max_reuse`` rounds."""
    say = progress or (lambda msg: None)
    rng = np.random.default_rng(seed)
    N = game.num_players
    w = np.zeros(N) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (N,):
        raise SeqformError(f"weights: give one per player ({N}), not {len(w)}")
    if r_max is not None:
        rmax = float(r_max)
    elif hasattr(game, "regret_bound"):  # a game that knows its payoff ranges (the grid game)
        rmax = float(game.regret_bound())
    else:
        rmax = regret_bound(game)
    tracemalloc.start()
    t0 = time.perf_counter()
    walker = _Walker(game, rng, scenarios)
    if rmax <= 0:  # every leaf pays each player the same: every distribution is an EFCE
        u = walker.play({}, set())
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return SamplingResult(game.name, list(u), 0.0, 0.0, 0, 0, time.perf_counter() - t0, peak,
                              weights=tuple(w), converged=True)
    model = _Model(walker, w)
    chain = _Chain(model, rng)
    for _ in range(burn_in):
        chain.step()
    sample, om, drawn, drawn_at = [], np.zeros(0), 0, 0
    history: list = []
    best_r, initial, rounds, converged = float("inf"), None, 0, False
    try:
        for t in range(1, max_rounds + 1):
            m = int(sample_size + growth * t)
            if not sample or _ess(om) < ess_min * len(sample) or t - drawn_at >= max_reuse:
                chain.refresh()
                sample = chain.sample(m, thin)
                drawn += m
                drawn_at = t
                om = np.ones(len(sample))
            found = _best_deviations(model, sample, om)
            r_star, dev = max(found, key=lambda x: x[0]) if found else (0.0, None)
            # the recorded deviations' regrets on the weighted sample: a lambda > 0 whose
            # deviation now has negative regret is too large (the dual's other coordinates)
            R = np.array([model.evaluate(s_)[2] for s_, _ in sample]) if model.devs else np.zeros((len(sample), 0))
            means = (om @ R) / om.sum() if model.devs else np.zeros(0)
            lam = np.array(model.lam)
            slack = float(np.max(-means[lam > 0], initial=0.0))
            same = next((j for j, d in enumerate(model.devs) if dev is not None and
                         (d.player, d.key, d.action, d.strategy) == (dev.player, dev.key, dev.action, dev.strategy)), None)
            initial = r_star if initial is None else initial
            best_r = r_star
            rounds = t
            history.append({"round": t, "regret": r_star, "overshoot": slack, "sample": len(sample),
                            "ess": _ess(om)})
            say(f"round {t}: largest regret {r_star:.4g}, overshoot {slack:.3g} (r_max {rmax:g}), "
                f"sample {len(sample)}, effective {_ess(om):.1f}, deviations {len(model.devs)}")
            goal = target * rmax if stop_ratio is None else stop_ratio * initial
            if max(r_star, slack) <= goal or (dev is None and slack == 0):
                converged = True
                break
            if r_star >= slack:  # raise lambda of the most violated deviation (eq. 7)
                if same is None:
                    model.devs.append(dev)
                    model.lam.append(0.0)
                    j = len(model.devs) - 1
                    rs = np.array([model.evaluate(s_)[2][-1] for s_, _ in sample])
                else:
                    j, rs = same, R[:, same]
                r = min(r_star, rmax * (1 - 1e-9))
                step = math.log((rmax + r) / (rmax - r)) / (2 * rmax)
                lo, hi = 0.0, 10 * step
            else:  # lower the lambda whose deviation has the most negative regret
                j = int(np.flatnonzero(lam > 0)[np.argmax(-means[lam > 0])])
                rs = R[:, j]
                step = -min(model.lam[j], math.log((rmax + slack) / (rmax - min(slack, rmax * (1 - 1e-9)))) / (2 * rmax))
                lo, hi = -model.lam[j], 0.0
            if line_search:
                step = _line_search(om, rs, lo, hi, step, ess_min * len(sample))
            model.lam[j] += step
            om = om * np.exp(-step * rs - np.max(-step * rs))
            if time_limit is not None and time.perf_counter() - t0 > time_limit:
                say(f"time limit of {time_limit:g} s reached")
                break
    except KeyboardInterrupt:
        say("interrupted: returning the current distribution")
    chain.refresh()
    # payoffs of the current distribution, from the reweighted sample
    us = np.array([model.evaluate(s)[1] for s, _ in sample]) if sample else np.zeros((1, N))
    wts = om / om.sum() if sample else np.ones(1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return SamplingResult(game.name, list(wts @ us), best_r, initial or 0.0, rounds, drawn,
                          time.perf_counter() - t0, peak, history, model.devs, model.lam, tuple(w), converged)


def _line_search(om: np.ndarray, rs: np.ndarray, lo: float, hi: float, step0: float, ess_floor: float) -> float:
    """The step in [lo, hi] minimising the sample estimate log sum om exp(-step rs) of log Z
    (section 3.4); if that would leave an effective sample size below ``ess_floor``, eq. 7's
    ``step0`` instead."""
    def F(x):
        z = -x * rs
        return float(np.log(np.sum(om * np.exp(z - z.max()))) + z.max())
    a0, b0 = lo, hi
    for _ in range(60):  # ternary search: F is convex
        a, b = a0 + (b0 - a0) / 3, b0 - (b0 - a0) / 3
        if F(a) <= F(b):
            b0 = b
        else:
            a0 = a
    x = (a0 + b0) / 2
    if _ess(om * np.exp(-x * rs - np.max(-x * rs))) < ess_floor:
        return step0
    return x


def exact_distribution(game: Game, result: SamplingResult, tree=None):
    """For small games: the distribution q_lambda of ``result`` over *reduced* profiles, computed
    exactly by enumerating every full pure strategy profile (``efce.strategies``), as floats in
    ``Profiles`` order, with the ``Profiles``."""
    import itertools

    from seqform.tree import compile_tree

    from .strategies import profiles
    tree = compile_tree(game) if tree is None else tree
    prof = profiles(tree)
    N = tree.num_players
    keys = [[(n, tree.infoset_key[m], m) for m in tree.player_infosets[n].tolist()] for n in range(N)]
    walker = _Walker(game, np.random.default_rng(0), None)
    model = _Model(walker, np.asarray(result.weights, dtype=float))
    model.devs, model.lam = list(result.deviations), list(result.lam)
    q = np.zeros(prof.count)
    allkeys = [k for ks in keys for k in ks]
    sizes = [int(tree.infoset_num_actions[m]) for _, _, m in allkeys]
    if math.prod(sizes) > 200_000:
        raise SeqformError(f"{game.name!r} has {math.prod(sizes):,} full pure profiles; too many to enumerate")
    energies, reduced = [], []
    for combo in itertools.product(*(range(k) for k in sizes)):
        s = {(n, key): a for (n, key, _), a in zip(allkeys, combo)}
        energies.append(model.evaluate(s)[0])
        idx = []
        for n in range(N):
            plan = {0} | {int(tree.infoset_first_seq[m]) + s[(n, key)] for (nn, key, m) in keys[n]}
            # the reduced strategy: the sequences this full strategy's own play can reach
            idx.append(next(i for i, pl in enumerate(prof.plans[n]) if pl <= plan and _complete(tree, n, pl, plan)))
        reduced.append(int(np.ravel_multi_index(idx, prof.shape)))
    e = np.array(energies)
    pr = np.exp(e - e.max())
    pr /= pr.sum()
    np.add.at(q, reduced, pr)
    return q, prof


def _complete(tree, n: int, plan: frozenset, full: set) -> bool:
    """True when the reduced ``plan`` is the part of the full strategy ``full`` its play reaches."""
    for m in tree.player_infosets[n].tolist():
        if int(tree.infoset_parent_seq[m]) in plan:
            f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
            if not any(f + a in plan and f + a in full for a in range(k)):
                return False
    return True


def holdout_regret(game: Game, result: SamplingResult, samples: int = 300, seed: int = 12345,
                   burn_in: int = 100, thin: int = 2) -> float:
    """The largest causal-deviation regret of ``result``'s distribution q_lambda, estimated on a
    fresh sample (an MCMC run independent of the one that fitted lambda). The rounds' own
    estimates are computed on the sample lambda was fitted to, and fall below this."""
    rng = np.random.default_rng(seed)
    walker = _Walker(game, rng, None)
    model = _Model(walker, np.asarray(result.weights, dtype=float) if result.weights else np.zeros(game.num_players))
    model.devs, model.lam = list(result.deviations), list(result.lam)
    chain = _Chain(model, rng)
    for _ in range(burn_in):
        chain.step()
    sample = chain.sample(samples, thin)
    found = _best_deviations(model, sample, np.ones(len(sample)))
    return float(max((r for r, _ in found), default=0.0))

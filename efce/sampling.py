"""The sampling algorithm of Dudik & Gordon (2009): maximum-entropy EFCE of a game given only
as a simulator, by boosting over causal deviations and MCMC over strategy profiles.

The target is the solution of eq. 2, max H(p) + w . E_p[u] subject to E_p[r_phi] <= 0 for every
causal deviation phi, over full pure strategy profiles. It is the limit of the exponential family
q_lambda(s) ~ exp(w . u(s) - sum_phi lambda_phi r_phi(s)) (section 3), found by coordinate
descent (AdaBoost / SUMMET), one deviation per round. The family, its energies, Gibbs sweeps and
best-deviation search live in a *model*: ``efce.treemodel.TreeModel`` for a game whose tree
compiles (the simulator is walked once, into flat arrays), ``efce.polymatrix.PolymatrixModel``
for a game that declares itself a polymatrix game (the grid game at any size).

1. **Sample** profiles from q_lambda (section 3.3): persistent parallel Markov chains, one per
   sampled profile, each advanced by ``thin`` Gibbs sweeps between samples (after ``burn_in``
   sweeps at the start). When the sample size grows, new chains start as copies of random
   existing ones. On 8-card Indian poker one sweep lets the chains lag behind q_lambda, and lambda
   is fitted to the lag: at cap 100, 900 s, fresh samples put the regret at 0.196 of the first
   with ``thin`` 1 and 0.052 with 5 (``bench/results/efce-mixing-*``). The default stays 1.
2. **Best deviation** on the (weighted) sample (section 3.2): the deviation tree's dynamic
   program, all triggers at once. The sample's statistics do not depend on lambda, so a reused
   sample costs one sparse product per round.
3. **Update** one coordinate of lambda (coordinate descent on the dual, log Z over lambda >= 0).
   Usually it is the deviation with the largest regret r*: eq. 7's step, then a line search that
   minimises the sample estimate of log Z, capped at ``step_cap`` times eq. 7's step (the paper's
   "constant-fold increase"; it names no constant). The search stops where the effective sample
   size would fall below ``ess_min`` times the sample's size (section 3.4); that floor never cuts
   it below eq. 7's step, which the paper's convergence analysis needs. When a recorded
   deviation's lambda has overshot, so that its regret is now more negative than r* is positive,
   that lambda is lowered instead, never below 0.
   - This is what makes the limit the *maximum-entropy* EFCE and not merely some EFCE.
   - The paper updates only the deviation with the largest regret.
   - The cap is 10. On 8-card Indian poker a cap of 1000 did worse in 300 s: the longer steps
     used up each sample sooner (21,002 profiles drawn against 14,101); the in-sample regret
     ended 1.6 times, a fresh sample's 2.1 times as high.
   - A cap of 100 fits a reused sample much faster, which is what the paper's in-sample measure
     rewards, but not the distribution. With the paper's reuse rule, 8-card poker's in-sample
     regret reached 0.003 of the first in 900 s (cap 10: 0.015 in 2,400 s), while fresh samples
     put both runs' worst deviation near 0.1 of the first. On one 20 x 20 grid after 600 s, fresh
     samples gave 0.32 at cap 100 against 0.04 at cap 10.
   - The run stops when both the largest regret and the largest overshoot are at most
     ``target`` r_max (or ``stop_ratio`` times the first round's regret).
4. **Reuse** the sample, reweighted by exp(-step r_phi(s)), while its effective sample size
   (exp of the entropy of the weights) stays above ``ess_min`` times its size, and for at most
   ``max_reuse`` rounds (our addition: a long-reused sample overfits, its regret estimate falling
   below the distribution's), and, with ``reuse_time``, for rounds taking at most that multiple
   of the time the sample took to draw (our addition: late in a long run the steps are so small
   that the effective size never falls, and the paper's rule kept 8-card poker's last sample for
   70,000 rounds). Then sample afresh, with the sample size growing as
   ``sample_size`` + ``growth`` t (section 3.4: 100 + t/10).
   - The paper names no threshold; half is ours. Lower floors did worse on 8-card poker with the
     seed's reuse rule. At 5% of the sample, a 125-profile sample was never replaced, and its
     regret stayed at 0.6 to 1.1 of the first. At a fixed 100 effective profiles, each sample was
     fitted far below what the next fresh one showed (README).

Scenarios: chance is enumerated exactly (``scenarios=None``; the paper does so for Indian poker) or
sampled once (``scenarios=k``: k scenarios, each an outcome at every chance node). Reproducible
with ``seed``.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""
from __future__ import annotations

import itertools
import math
import time
import tracemalloc
from dataclasses import dataclass, field

import numpy as np

from seqform.errors import SeqformError
from seqform.model.game import TERMINAL, Game
from seqform.result import Result

from .treemodel import Deviation, TreeModel

__all__ = ["Deviation", "SamplingResult", "sample_efce", "make_model", "validated_regret",
           "exact_distribution", "regret_bound", "full_profiles", "count_full_profiles", "MAX_EXACT_PROFILES"]

#: ``expectations="auto"`` and ``"exact"`` enumerate at most this many full pure profiles
MAX_EXACT_PROFILES = 65_536


@dataclass
class SamplingResult(Result):
    """``payoffs`` (sample estimate per player), ``max_regret`` (the last round's largest
    estimated regret), ``initial_regret``, ``rounds``, ``samples`` (profiles drawn in total),
    ``seconds``, ``peak_memory`` (bytes, tracemalloc), ``history`` (per round: regret, sample
    size, effective sample size, deviations, seconds, memory in bytes now (tracemalloc)),
    ``deviations`` and ``lam`` (the exponential family)."""

    game: str
    payoffs: list
    max_regret: float
    initial_regret: float
    rounds: int
    samples: int
    seconds: dict
    peak_memory: int
    history: list = field(default_factory=list)
    deviations: list = field(default_factory=list)
    lam: list = field(default_factory=list)
    weights: tuple = ()
    converged: bool = False
    scenarios: int | None = None
    #: which rule ended the run: "target", "rounds", "time_limit", "interrupted" (Ctrl-C) or
    #: "trivial" (every distribution is an EFCE)
    stopped_by: str = ""
    #: "mcmc" (Gibbs samples of q_lambda) or "exact" (every full pure profile, weighted by q_lambda)
    expectations: str = "mcmc"

    @property
    def method(self) -> str:
        return ("boosting with exact expectations" if self.expectations == "exact" else "sampling") + \
            " (Dudik & Gordon 2009)"

    def json_fields(self) -> dict:
        # "seconds" stays the total in seconds, as this command's JSON has always had it
        return {"expectations": self.expectations, "weights": list(self.weights) or None, "payoffs": [float(x) for x in self.payoffs],
                "max_regret": float(self.max_regret), "initial_regret": float(self.initial_regret),
                "rounds": self.rounds, "samples": self.samples, "seconds": self.seconds["total"],
                "peak_memory_bytes": self.peak_memory, "converged": self.converged,
                "deviations": len(self.deviations), "stopped_by": self.stopped_by,
                "interrupted": self.stopped_by == "interrupted"}


def make_model(game: Game, w, scenarios: int | None = None, rng=None, engine: str | None = None,
               max_nodes: int = 2_000_000):
    """The model of q_lambda for ``game``: ``engine`` "polymatrix" (the game must offer
    ``polymatrix()``), "tree" (compiles the game tree, at most ``max_nodes`` nodes), or None:
    polymatrix when the game offers it, else tree."""
    w = np.asarray(w, dtype=float)
    if engine is None:
        engine = "polymatrix" if hasattr(game, "polymatrix") else "tree"
    if engine == "polymatrix":
        if not hasattr(game, "polymatrix"):
            raise SeqformError(f"{game.name!r} is not a polymatrix game; use the tree engine")
        from .polymatrix import PolymatrixModel
        return PolymatrixModel(game.polymatrix(), w)
    if engine != "tree":
        raise SeqformError(f"engine: 'tree' or 'polymatrix', not {engine!r}")
    from seqform.model.tree import compile_tree
    hint = game.num_nodes_hint() if hasattr(game, "num_nodes_hint") else None
    if hint is not None and hint > max_nodes:
        raise SeqformError(f"{game.name!r} has {hint:,} nodes, more than the tree engine's {max_nodes:,}")
    return TreeModel(compile_tree(game, max_nodes=max_nodes), w, scenarios, rng)


def sample_efce(game: Game, weights=None, *, target: float = 1e-3, max_rounds: int | None = 1000, seed: int = 0,
                scenarios: int | None = None, r_max: float | None = None, sample_size: int = 100,
                growth: float = 0.1, thin: int = 1, burn_in: int = 20, ess_min: float = 0.5, max_reuse: int = 10,
                line_search: bool = True, step_cap: float = 10.0, progress=None, time_limit: float | None = None,
                stop_ratio: float | None = None, engine: str | None = None, every: float = 2.0,
                expectations: str = "mcmc", corrective: bool = False,
                reuse_time: float | None = None, workers: int = 1, overlap: bool = False) -> SamplingResult:
    """Approximate an extensive-form correlated equilibrium (EFCE) by sampling.

    The sampling algorithm of Dudik & Gordon 2009, "A Sampling-Based Approach to Computing
    Equilibria in Succinct Extensive-Form Games" (the ``efce.sampling`` module docstring describes
    each step): a distribution q_lambda of the exponential family, fitted by boosting on MCMC
    samples of full pure strategy profiles until no causal deviation gains more than the target.
    The game may be given only as a simulator. Reproducible with ``seed``.

    Parameters
    ----------
    game : Game
        Any number of players, general-sum.
    weights : sequence of float, optional
        w, one per player (None = 0: the maximum-entropy EFCE).
    target : float, default 1e-3
        Stop when the largest estimated regret (and the largest overshoot of a recorded
        deviation's lambda) is at most ``target`` times r_max (relative).
    max_rounds : int or None, default 1000
        Stop after this many rounds (None: no round limit).
    seed : int, default 0
        The random seed.
    scenarios : int, optional
        None: chance is enumerated exactly (as the paper does for Indian poker); k: chance is
        sampled once, as k scenarios, each an outcome at every chance node.
    r_max : float, optional
        The regret scale of ``target`` and of the step sizes. Defaults to the game's largest range
        of one player's payoff (``game.regret_bound()`` when the game offers it, else
        ``efce.sampling.regret_bound``, which walks the tree). When it is 0, every distribution is
        an EFCE and the run stops at once (``stopped_by="trivial"``).
    sample_size : int, default 100
        The first sample's size: the number of persistent parallel Markov chains, one per sampled
        profile.
    growth : float, default 0.1
        A fresh sample in round t has ``sample_size + growth * t`` profiles (section 3.4:
        100 + t/10); new chains start as copies of random existing ones.
    thin : int, default 1
        Gibbs sweeps of every chain between samples.
    burn_in : int, default 20
        Gibbs sweeps of every chain at the start.
    ess_min : float, default 0.5
        The sample is reused, reweighted, while its effective sample size (exp of the entropy of
        the weights) stays above ``ess_min`` times its size; the line search also stops where it
        would fall below (never cutting below eq. 7's step). The paper names no threshold.
    max_reuse : int, default 10
        A sample serves at most this many rounds.
    reuse_time : float, optional
        A sample serves rounds for at most this multiple of the seconds its drawing took (sweeps
        and statistics), so a long run spends comparable time drawing and fitting instead of
        fitting one sample's noise for thousands of rounds (our addition; None: no such limit).
    workers : int, default 1
        Processes that draw the fresh samples (``efce.drawpool``: the chains split among them;
        the boosting rounds stay in this process). MCMC with chance enumerated only. The
        random streams differ from one process's, so the run does too. The workers are
        spawned, so a script that uses them needs Python's ``if __name__ == "__main__":`` guard.
    overlap : bool, default False
        With ``workers`` > 1: the next sample is drawn in the background while this process fits
        on the current one, so that neither waits for the other. It is drawn with the lambda of
        the moment it started, and weighted on arrival by q_lambda over that q (exp of the
        energy change, -dL . G(s) + dLam . B(s): the reweighting that sample reuse does
        anyway). It replaces the current sample when the usual rules call for a new one, or, with
        ``reuse_time``, as soon as it is ready (then the run depends on timing, as it does with
        ``reuse_time`` alone).
    line_search : bool, default True
        After eq. 7's step, search for the step that minimises the sample estimate of log Z,
        capped at ``step_cap`` times eq. 7's step; False keeps eq. 7's step.
    step_cap : float, default 10.0
        The line search's cap, in multiples of eq. 7's step (the paper's "constant-fold increase";
        it names no constant).
    progress : callable, optional
        ``progress(message)`` gets a line at most every ``every`` seconds.
    time_limit : float, optional
        Stop after this many seconds (Ctrl-C stops too, with the result so far).
    stop_ratio : float, optional
        Stop instead when the regret falls to this fraction of the first round's (Dudik & Gordon's
        experiments: 1e-4 for Indian poker, 1e-3 for grids).
    engine : str, optional
        The model of q_lambda: "tree" (``efce.treemodel.TreeModel``: compiles the game tree),
        "polymatrix" (``efce.polymatrix.PolymatrixModel``: the game must offer ``polymatrix()``),
        or None: polymatrix when the game offers it, else tree.
    every : float, default 2.0
        Seconds between progress lines.
    expectations : str, default "mcmc"
        "mcmc": every expectation is a sample average over Gibbs samples of q_lambda (the
        paper's algorithm). "exact": the same boosting with exact expectations, over every full
        pure profile weighted by q_lambda (at most ``MAX_EXACT_PROFILES``; no sampling noise, no
        sample reuse: ``sample_size``, ``growth``, ``thin``, ``burn_in``, ``ess_min`` and
        ``max_reuse`` do not apply). Its limit is the maximum-entropy EFCE of eq. 2 itself, the
        ground truth against which to measure MCMC's noise. "auto": exact when the game has at
        most ``MAX_EXACT_PROFILES`` full pure profiles, else mcmc.
    corrective : bool, default False
        With exact expectations only: after each round's coordinate step, re-minimise the dual
        log Z(lambda) over every recorded deviation's lambda >= 0 at once (L-BFGS-B, gradient
        -E_q[r_phi]): totally corrective boosting. Coordinate steps alone can zig-zag for
        thousands of rounds between deviations that pull the same profiles opposite ways; the
        limit, the maximum-entropy EFCE, is the same.

    Returns
    -------
    SamplingResult
        A ``seqform.Result``: ``payoffs`` (sample estimate per player), ``max_regret`` (the last
        round's largest estimated regret), ``initial_regret``, ``rounds``, ``samples`` (profiles
        drawn in total), ``converged``, ``stopped_by`` (which rule ended the run: "target",
        "rounds", "time_limit", "interrupted" or "trivial"), ``deviations`` and ``lam`` (the
        exponential family), ``seconds``.

    Raises
    ------
    SeqformError
        ``weights`` does not give one number per player; ``expectations`` is unknown, or "exact"
        for a game with more than ``MAX_EXACT_PROFILES`` full pure profiles; ``engine`` is unknown, or "polymatrix"
        for a game that does not offer ``polymatrix()``; the game is too large for the tree engine;
        or, without ``r_max``, too large for ``regret_bound`` to walk.

    Examples
    --------
    >>> import efce
    >>> res = efce.sample_efce(efce.job_market(), max_rounds=2, seed=0)
    >>> res.rounds <= 2, res.stopped_by in ("target", "rounds"), len(res.payoffs)
    (True, True, 2)
    """
    say = progress or (lambda msg: None)
    rng = np.random.default_rng(seed)
    N = game.num_players
    w = np.zeros(N) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (N,):
        raise SeqformError(f"weights: give one per player ({N}), not {len(w)}")
    if r_max is not None:
        rmax = float(r_max)
    elif hasattr(game, "regret_bound"):  # a game that knows its payoff ranges
        rmax = float(game.regret_bound())
    else:
        rmax = regret_bound(game)
    if expectations not in ("mcmc", "exact", "auto"):
        raise SeqformError(f"expectations: 'mcmc', 'exact' or 'auto', not {expectations!r}")
    tracemalloc.start()
    t0 = time.perf_counter()
    model = make_model(game, w, None if expectations == "exact" else scenarios, rng, engine)
    full = count_full_profiles(model)
    if expectations == "auto":
        expectations = "exact" if full <= MAX_EXACT_PROFILES else "mcmc"
        if expectations == "exact" and scenarios is not None:  # the model sampled chance: rebuild it exact
            model = make_model(game, w, None, rng, engine)
    exact = expectations == "exact"
    if corrective and not exact:
        tracemalloc.stop()
        raise SeqformError("corrective: needs exact expectations (a sample would be overfitted)")
    if exact:
        if full > MAX_EXACT_PROFILES:
            tracemalloc.stop()
            raise SeqformError(f"{game.name!r} has {full:,} full pure strategy profiles; exact expectations "
                               f"enumerate at most {MAX_EXACT_PROFILES:,}. Use expectations='mcmc'.")
        S = full_profiles(model)
    else:
        S = model.new_profiles(sample_size, rng)
    if rmax <= 0:  # every leaf pays each player the same: every distribution is an EFCE
        u = model.statistics(S[:1]).U[0]
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return SamplingResult(game.name, list(u), 0.0, 0.0, 0, 0, {"total": time.perf_counter() - t0}, peak,
                              weights=tuple(w), converged=True, scenarios=None if exact else scenarios,
                              stopped_by="trivial", expectations=expectations)
    if overlap and workers <= 1:
        tracemalloc.stop()
        raise SeqformError("overlap: needs workers > 1 (the background draws run in the workers)")
    if workers > 1 and (exact or scenarios is not None):
        tracemalloc.stop()
        raise SeqformError("workers: only for MCMC with chance enumerated (exact expectations draw nothing; "
                           "sampled scenarios would differ between the processes)")
    pool = None
    if workers > 1:
        from .drawpool import DrawPool
        pool = DrawPool(make_model, game, w, engine, workers)
    try:
        if pool is not None:
            S = pool.draw(model, S, burn_in, rng, stats=False)[0]
        for _ in range(0 if exact or pool is not None else burn_in):
            model.sweep(S, rng)
        lam, nlam = np.zeros(64), 0   # the recorded deviations' lambdas: lam[:nlam] (grown by doubling)
        stats, om, drawn, drawn_at = None, np.zeros(0), 0, 0
        drawn_until, draw_cost = 0.0, 0.0
        history: list = []
        best_r, initial, rounds, converged = float("inf"), None, 0, False
        last_say = -math.inf
        stopped_by = "rounds"
        def due(t: int, ess: float) -> bool:
            """The reuse rules that call for a new sample whether or not one is drawn ahead."""
            return stats is None or ess < ess_min * len(om) or t - drawn_at >= max_reuse

        try:
            for t in (range(1, max_rounds + 1) if max_rounds is not None else itertools.count(1)):
                m = int(sample_size + growth * t)
                ess = _ess(om) if stats is not None else 0.0
                if exact:
                    # q_lambda itself, from the energies (not by compounding reweightings, which drift)
                    if stats is None:
                        stats, drawn = model.statistics(S), len(S)
                    e = model.energy(S)
                    om = np.exp(e - e.max())
                    ess = _ess(om)
                elif overlap and (due(t, ess) or (reuse_time is not None and pool.ready())):
                    if pool.pending is None:   # the first draw
                        pool.submit(model, S, thin, rng)
                    S, stats, L0, Lam0 = pool.collect()
                    # drawn from q at (L0, Lam0): weighted to today's lambda
                    z = stats.B @ (model.Lam - Lam0) - stats.G @ (model.L - L0)
                    om = np.exp(z - z.max())
                    ess = _ess(om)
                    drawn += len(S)
                    drawn_at = t
                    if len(S) < m:
                        S = np.vstack([S, S[rng.integers(len(S), size=m - len(S))]])
                    pool.submit(model, S, thin, rng)   # the chains go on from where this sample left them
                elif not overlap and (due(t, ess) or (reuse_time is not None and
                                                      time.perf_counter() - drawn_until > reuse_time * draw_cost)):
                    tic = time.perf_counter()
                    if len(S) < m:
                        S = np.vstack([S, S[rng.integers(len(S), size=m - len(S))]])
                    if pool is not None:
                        S, stats = pool.draw(model, S, thin, rng)
                    else:
                        for _ in range(thin):
                            model.sweep(S, rng)
                        stats = model.statistics(S)
                    drawn += len(S)
                    drawn_at = t
                    drawn_until = time.perf_counter()
                    draw_cost = drawn_until - tic
                    om = np.ones(len(S))
                    ess = float(len(S))
                r_star, dev, _ = model.best_deviation(stats, om)
                # a lambda > 0 whose deviation now has negative regret is too large (the dual's
                # other coordinates)
                means = model.mean_regrets(stats, om)
                lamv = lam[:nlam]
                slack = float(np.max(-means[lamv > 0], initial=0.0))
                initial = r_star if initial is None else initial
                best_r = r_star
                rounds = t
                history.append({"round": t, "regret": r_star, "overshoot": slack, "sample": len(om), "ess": ess,
                                "deviations": nlam, "seconds": time.perf_counter() - t0,
                                "memory": tracemalloc.get_traced_memory()[0]})
                now = time.perf_counter()
                if now - last_say >= every:
                    last_say = now
                    say(f"round {t}: largest regret {r_star:.4g} ({r_star / initial if initial else 0:.3g} of the first), "
                        f"overshoot {slack:.3g}, sample {len(om)} (effective {ess:.0f}), deviations {nlam}, "
                        f"{now - t0:.0f} s")
                goal = target * rmax if stop_ratio is None else stop_ratio * initial
                if max(r_star, slack) <= goal or (dev is None and slack == 0):
                    converged, stopped_by = True, "target"
                    break
                # eq. 7 with the deviation's own bound R >= |r_phi(s)| (r_max times its trigger's
                # chance mass) in place of r_max: the same analysis, a larger safe step
                if r_star >= slack:  # raise lambda of the most violated deviation (eq. 7)
                    j = model.register(dev)
                    if j == nlam:
                        if nlam == len(lam):
                            lam = np.concatenate([lam, np.zeros(nlam)])
                        nlam += 1
                    R = model.bound(dev, rmax)
                    r = min(r_star, R * (1 - 1e-9))
                    step = math.log((R + r) / (R - r)) / (2 * R)
                    # exact expectations: no sample to overfit, so the search may go far enough to cut the
                    # profiles this deviation gains on by up to e^-50 (needed where the maximum-entropy EFCE
                    # gives profiles probability 0 and lambda must grow without bound)
                    lo, hi = 0.0, max(step_cap * step, 50.0 / R) if exact else step_cap * step
                else:  # lower the lambda whose deviation has the most negative regret
                    j = int(np.flatnonzero(lamv > 0)[np.argmax(-means[lamv > 0])])
                    R = model.bound(model.devs[j], rmax)
                    step = -min(lam[j], math.log((R + slack) / (R - min(slack, R * (1 - 1e-9)))) / (2 * R))
                    lo, hi = -lam[j], 0.0
                rs = model.deviation_regrets(stats, model.devs[j])
                if line_search:  # exact expectations: no sample to wear out, so no effective-size floor
                    step = _line_search(om, rs, lo, hi, step, 0.0 if exact else ess_min * len(om))
                if step < 0 and lam[j] + step <= 1e-6 * lam[j]:
                    step = -lam[j]  # the search only nears its bound: a lambda that should be 0 is 0
                lam[j] += step
                model.add(model.devs[j], step)
                om = model.reweight(stats, om, step, rs)
                if corrective:
                    for k, d in enumerate(_refit(model, stats, S, lam[:nlam])):
                        lam[k] += d
                        model.add(model.devs[k], d)
                if time_limit is not None and time.perf_counter() - t0 > time_limit:
                    say(f"time limit of {time_limit:g} s reached")
                    stopped_by = "time_limit"
                    break
        except KeyboardInterrupt:
            say("interrupted: returning the current distribution")
            stopped_by = "interrupted"
    finally:
        if pool is not None:
            pool.close()
    if stats is None:
        stats, om = model.statistics(S), np.ones(len(S))
    payoffs = om @ stats.U / om.sum()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return SamplingResult(game.name, list(payoffs), best_r, initial or 0.0, rounds, drawn,
                          {"total": time.perf_counter() - t0}, peak, history, list(model.devs), lam[:nlam].tolist(), tuple(w), converged,
                          None if exact else scenarios, stopped_by, expectations)


def _refit(model, stats, S: np.ndarray, lam: list) -> np.ndarray:
    """The change to every recorded lambda that minimises log Z(lambda) over lambda >= 0 (the
    dual of eq. 2, exactly, over the enumerated profiles ``S``), from the current lambda."""
    from scipy.optimize import minimize
    Rm = np.column_stack([model.deviation_regrets(stats, d) for d in model.devs])   # (profiles, deviations)
    lam0 = np.asarray(lam, dtype=float)
    base = model.energy(S) + Rm @ lam0          # w . u(s), the part of the energy lambda does not move

    def dual(x):
        e = base - Rm @ x
        top = e.max()
        q = np.exp(e - top)
        z = q.sum()
        return math.log(z) + top, -(q @ Rm) / z
    got = minimize(dual, lam0, jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * len(lam0),
                   options={"maxiter": 500, "ftol": 1e-15, "gtol": 1e-12})
    new = got.x if got.fun <= dual(lam0)[0] else lam0
    return new - lam0


def count_full_profiles(model) -> int:
    """The number of full pure strategy profiles (an action at every information set) of a
    model's game: the product of its information sets' action counts (an exact integer)."""
    return math.prod(int(k) for k in model.A)


def full_profiles(model, limit: int = MAX_EXACT_PROFILES) -> np.ndarray:
    """Every full pure strategy profile of a model's game, as rows in the models' layout
    (information sets + 1 columns, the last the padding column, always 0), in
    ``itertools.product`` order; more than ``limit`` of them is refused."""
    sizes = [int(k) for k in model.A]
    count = math.prod(sizes)
    if count > limit:
        raise SeqformError(f"{count:,} full pure strategy profiles; too many to enumerate (at most {limit:,})")
    grids = np.indices(sizes, dtype=np.int64).reshape(len(sizes), -1).T if sizes else np.zeros((1, 0), np.int64)
    return np.hstack([grids, np.zeros((len(grids), 1), dtype=np.int64)])


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


def _line_search(om: np.ndarray, rs: np.ndarray, lo: float, hi: float, step0: float, ess_floor: float) -> float:
    """The step in [lo, hi] minimising the sample estimate F(x) = log sum om exp(-x rs) of log Z
    (section 3.4), stopped short where the effective sample size would fall below ``ess_floor``
    (``_ess_truncated``). F is convex with F' = -E_x[rs] and F'' = Var_x[rs]: safeguarded Newton
    steps, bisection when a step leaves the bracket. Profiles with rs = 0 (the deviation's
    trigger not reached) only add a constant weight, so they are summed once."""
    nz = (rs != 0) & (om > 0)
    r, lw = rs[nz], np.log(om[nz])
    w0 = float(om[(rs == 0) & (om > 0)].sum())
    lw0 = math.log(w0) if w0 > 0 else -math.inf
    if len(r) == 0:
        return step0

    def moments(x):
        # in log space: at a long step exp(-x r) under- or overflows for every profile
        z = lw - x * r
        zmax = max(float(z.max()), lw0)
        e = np.exp(z - zmax)
        tot = float(e.sum()) + math.exp(lw0 - zmax)
        m1 = float(e @ r) / tot
        return -m1, float(e @ (r * r)) / tot - m1 * m1

    a0, b0 = lo, hi
    if moments(hi)[0] <= 0:       # still descending at the cap: the cap
        x = hi
    elif moments(lo)[0] >= 0:
        x = lo
    else:
        x = min(max(step0, lo), hi)
    for _ in range(50 if lo < x < hi else 0):
        d1, d2 = moments(x)
        if d1 > 0:
            b0 = x
        else:
            a0 = x
        if abs(d1) <= 1e-10 * float(np.abs(r).max()) or b0 - a0 <= 1e-10 * (hi - lo):
            break
        nx = x - d1 / d2 if d2 > 0 else (a0 + b0) / 2
        x = nx if a0 < nx < b0 else (a0 + b0) / 2
    return _ess_truncated(om, rs, step0, x, ess_floor)


def _ess_truncated(om: np.ndarray, rs: np.ndarray, step0: float, x: float, ess_floor: float) -> float:
    """The line search stopped where the effective sample size would fall below ``ess_floor``
    (section 3.4): the step between eq. 7's ``step0`` and the search's ``x`` nearest ``x`` that
    keeps it, by bisection (``step0`` when even that falls below)."""
    with np.errstate(divide="ignore"):
        lw = np.log(om)  # once, not at each of the bisection's 40 trial steps

    def keeps(t: float) -> bool:
        z = lw - t * rs
        return _ess(np.exp(z - z.max())) >= ess_floor
    if keeps(x):
        return x
    if not keeps(step0):
        return step0
    a, b = step0, x
    for _ in range(40):
        m = (a + b) / 2
        a, b = (m, b) if keeps(m) else (a, m)
    return a


def _loaded(game: Game, result: SamplingResult, rng=None, engine: str | None = None):
    """A model of ``result``'s distribution q_lambda."""
    w = np.asarray(result.weights, dtype=float) if result.weights else np.zeros(game.num_players)
    model = make_model(game, w, None, rng, engine)
    for d, lam in zip(result.deviations, result.lam):
        model.register(d)
        model.add(d, lam)
    return model


def exact_distribution(game: Game, result: SamplingResult, tree=None):
    """For small games: the distribution q_lambda of ``result`` over *reduced* profiles, computed
    exactly by enumerating every full pure strategy profile (``efce.strategies``), as floats in
    ``Profiles`` order, with the ``Profiles``. Chance is enumerated."""
    from seqform.model.tree import compile_tree

    from .strategies import profiles
    tree = compile_tree(game) if tree is None else tree
    prof = profiles(tree)
    model = _loaded(game, result, engine="tree")
    try:
        S = full_profiles(model, 200_000)
    except SeqformError as exc:
        raise SeqformError(f"{game.name!r}: {exc}") from None
    e = model.energy(S)
    pr = np.exp(e - e.max())
    pr /= pr.sum()
    reduced = reduced_indices(prof, S)
    q = np.zeros(prof.count)
    np.add.at(q, reduced, pr)
    return q, prof


def reduced_indices(prof, S: np.ndarray) -> list:
    """For each full profile (row of S, one action per information set of ``prof.tree``), the
    index of its reduced profile in ``prof`` (``efce.strategies.Profiles``)."""
    tree = prof.tree
    out = []
    for row in S.tolist():
        idx = []
        for n in range(tree.num_players):
            plan = {0} | {int(tree.infoset_first_seq[m]) + row[m] for m in tree.player_infosets[n].tolist()}
            # the reduced strategy: the sequences this full strategy's own play can reach
            idx.append(next(i for i, pl in enumerate(prof.plans[n]) if pl <= plan and _complete(tree, n, pl, plan)))
        out.append(int(np.ravel_multi_index(idx, prof.shape)))
    return out


def _complete(tree, n: int, plan: frozenset, full: set) -> bool:
    """True when the reduced ``plan`` is the part of the full strategy ``full`` its play reaches."""
    for m in tree.player_infosets[n].tolist():
        if int(tree.infoset_parent_seq[m]) in plan:
            f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
            if not any(f + a in plan and f + a in full for a in range(k)):
                return False
    return True


@dataclass
class ValidatedRegret:
    """``found``: the largest regret on a fresh sample A (biased up: a maximum over many noisy
    estimates). ``validated``: the regret of A's best deviation re-estimated on a second,
    independent sample B (unbiased for that deviation, so a noisy lower bound on the largest
    regret), with its standard error ``stderr``. ``samples`` profiles in each. ``payoffs``: each
    player's expected payoff estimated on B, with standard errors ``payoffs_stderr`` (fresh
    draws, unlike the run's own ``payoffs``, which come from the reweighted sample it fitted).

    ``energy_drift``: a mixing check on the ``burn_in`` Gibbs sweeps from uniform profiles. The
    chains' mean energy (w . u - lambda . r) after all of them minus after half of them, in
    standard errors of such a difference between two independent samples of q_lambda. Above 3 in
    size, the chains were still moving when they were read, and so may the regrets have been.
    Near 0 does not prove mixing: chains stuck in one mode do not drift either."""

    found: float
    validated: float
    stderr: float
    samples: int
    deviation: Deviation | None
    energy_drift: float = 0.0
    burn_in: int = 0
    payoffs: list = field(default_factory=list)
    payoffs_stderr: list = field(default_factory=list)

    @property
    def settled(self) -> bool:
        """False when the chains were still moving: |energy_drift| above 3."""
        return abs(self.energy_drift) <= 3


def validated_regret(game: Game, result: SamplingResult, samples: int = 1000, seed: int = 12345,
                     burn_in: int = 30, engine: str | None = None, workers: int = 1) -> ValidatedRegret:
    """Two fresh samples of ``result``'s q_lambda (``samples`` chains each, ``burn_in`` sweeps):
    the best deviation found on the first, and its regret measured on the second
    (``ValidatedRegret``). On 8-card Indian poker the chains need 100 to 300 sweeps from uniform
    profiles; check ``energy_drift``.

    ``workers`` > 1 splits the chains' sweeps, nearly all of the work, over that many processes
    (``efce.drawpool``, with this process's lambda; their random streams differ from one
    process's, so the figures differ by sampling noise only)."""
    rng = np.random.default_rng(seed)
    model = _loaded(game, result, rng, engine)
    S = model.new_profiles(2 * samples, rng)
    pool = None
    if workers > 1:
        from .drawpool import DrawPool
        pool = DrawPool(make_model, game, np.asarray(result.weights or np.zeros(game.num_players), dtype=float),
                        engine, workers)
    try:
        half = None
        for sweeps in (burn_in // 2, burn_in - burn_in // 2):
            if pool is not None and sweeps:
                S = pool.draw(model, S, sweeps, rng, stats=False)[0]
            else:
                for _ in range(sweeps):
                    model.sweep(S, rng)
            half = model.energy(S) if half is None and burn_in else half
    finally:
        if pool is not None:
            pool.close()
    drift = _drift(half, model.energy(S)) if half is not None else 0.0
    found, dev, _ = model.best_deviation(model.statistics(S[:samples]), np.ones(samples))
    second = model.statistics(S[samples:])
    U = np.asarray(second.U, dtype=float)
    pay = (U.mean(axis=0).tolist(), (U.std(axis=0, ddof=1) / math.sqrt(samples)).tolist())
    if dev is None:
        return ValidatedRegret(float(found), 0.0, 0.0, samples, None, drift, burn_in, *pay)
    rs = model.deviation_regrets(second, dev)
    return ValidatedRegret(float(found), float(rs.mean()), float(rs.std(ddof=1) / math.sqrt(samples)), samples, dev,
                           drift, burn_in, *pay)


def _drift(before: np.ndarray, after: np.ndarray) -> float:
    """(mean(after) - mean(before)) over the standard error of a difference of two independent
    samples' means; 0 when the energies do not vary (every chain at one profile)."""
    se = math.sqrt((before.var(ddof=1) + after.var(ddof=1)) / len(after))
    return float((after.mean() - before.mean()) / se) if se > 0 else 0.0

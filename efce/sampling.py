"""The sampling algorithm of Dudik & Gordon (2009): the maximum-entropy EFCE of a game given only
as a simulator, by boosting over causal deviations and MCMC over strategy profiles.

The target is the solution of eq. 2, max H(p) + w . E_p[u] subject to E_p[r_phi] <= 0 for every
causal deviation phi, over full pure strategy profiles. It is the limit of the exponential family
q_lambda(s) ~ exp(w . u(s) - sum_phi lambda_phi r_phi(s)) (section 3), found by coordinate
descent on the dual (AdaBoost / SUMMET), one deviation per round. The family, its energies,
Gibbs sweeps and best-deviation search live in a *model* (``efce.models``):
``efce.treemodel.TreeModel`` for a game whose tree compiles (the simulator is walked once, into
flat arrays), ``efce.polymatrix.PolymatrixModel`` for a game that declares itself a polymatrix
game (the grid game at any size).

Each round:

1. **Sample** (section 3.3): the current weighted sample of q_lambda, kept or drawn afresh by
   the run's sample source (``efce.samplesources``: persistent Gibbs chains, the same drawn in
   the background by worker processes, or every full profile when expectations are exact).
2. **Best deviation** on the weighted sample (section 3.2): the deviation tree's dynamic
   program, all triggers at once. The sample's statistics do not depend on lambda, so a reused
   sample costs one sparse product per round.
3. **Update** one coordinate of lambda (``efce.boosting``): eq. 7's step for the deviation with
   the largest regret r*, lengthened by a line search on the sample estimate of log Z, or the
   lowering of a lambda that has overshot. The run stops when both the largest regret and the
   largest overshoot are at most ``target`` r_max (or ``stop_ratio`` times the first round's
   regret).
4. **Reuse** the sample, reweighted by exp(-step r_phi(s)), while the source's reuse rules allow
   (section 3.4: while its effective size lasts; ours: for at most ``max_reuse`` rounds, and with
   ``reuse_time`` for no longer than drawing it took).

Chance is enumerated exactly (``scenarios=None``; the paper does so for Indian poker) or sampled
once (``scenarios=k``: k scenarios, each an outcome at every chance node). Runs are
reproducible with ``seed``. What the defaults rest on, run by run with the commands that
produced the figures: ``docs/efce-sampling-runs.md``.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from seqform.errors import SeqformError
from seqform.model.game import Game
from seqform.result import Result

from .boosting import Boosting, Limits, Rounds, run_rounds
from .family import Deviation
from .memorytrace import MemoryTrace
from .models import (
    MAX_EXACT_PROFILES,
    count_full_profiles,
    full_profiles,
    loaded_model,
    make_model,
    payoff_range,
    regret_bound,
)
from .samplesources import ExactEnumeration, MarkovChains, OverlappedChains
from .validation import ValidatedRegret, exact_distribution, reduced_indices, validated_regret

__all__ = [
    "Deviation",
    "SamplerOptions",
    "SamplingResult",
    "sample_efce",
    "chosen_expectations",
    "make_model",
    "loaded_model",
    "validated_regret",
    "ValidatedRegret",
    "exact_distribution",
    "reduced_indices",
    "regret_bound",
    "full_profiles",
    "count_full_profiles",
    "MAX_EXACT_PROFILES",
    "DEFAULT_ROUNDS",
]

#: ``sample_efce``'s round limit when neither ``max_rounds`` nor ``time_limit`` is given
DEFAULT_ROUNDS = 1000


@dataclass(frozen=True)
class SamplerOptions:
    """The sampling algorithm's tuning knobs (``sample_efce(..., options=SamplerOptions(...))``),
    with the defaults ``seqform efce sample`` uses too. Each is checked when the options are made
    (``SeqformError``).

    Attributes
    ----------
    expectations : str, default "auto"
        "mcmc": every expectation is a sample average over Gibbs samples of q_lambda (the paper's
        algorithm). "exact": the same boosting with exact expectations, over every full pure
        profile weighted by q_lambda (at most ``MAX_EXACT_PROFILES``; no sampling noise, no sample
        reuse: ``sample_size``, ``growth``, ``thin``, ``burn_in``, ``ess_min``, ``max_reuse`` and
        ``reuse_time`` do not apply). Its limit is the maximum-entropy EFCE of eq. 2 itself, the
        ground truth against which to measure MCMC's noise. "auto": exact when the game has at
        most ``MAX_EXACT_PROFILES`` full pure profiles, else mcmc.
    corrective : bool or None, default None
        With exact expectations only: after each round's coordinate step, re-minimise the dual
        log Z(lambda) over every recorded deviation's lambda >= 0 at once (L-BFGS-B, gradient
        -E_q[r_phi]): totally corrective boosting. Coordinate steps alone can zig-zag for
        thousands of rounds between deviations that pull the same profiles opposite ways; the
        limit, the maximum-entropy EFCE, is the same. None: on exactly when expectations are
        exact.
    scenarios : int or None, default None
        None: chance is enumerated exactly (as the paper does for Indian poker); k: chance is
        sampled once, as k scenarios, each an outcome at every chance node.
    r_max : float or None, default None
        The regret scale of ``target`` and of the step sizes. None: the game's largest range of
        one player's payoff (``game.regret_bound()`` when the game offers it, else
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
    max_reuse : int or None, default 10
        A sample serves at most this many rounds (None: no cap, the paper's rule: while its
        effective size lasts).
    reuse_time : float or None, default None
        A sample serves rounds for at most this multiple of the seconds its drawing took (sweeps
        and statistics), so a long run spends comparable time drawing and fitting instead of
        fitting one sample's noise for thousands of rounds (our addition; None: no such limit).
    workers : int, default 1
        Processes that draw the fresh samples (``efce.drawpool``: the chains split among them;
        the boosting rounds stay in this process). MCMC with chance enumerated only. The random
        streams differ from one process's, so the run does too. The workers are spawned, so a
        script that uses them needs Python's ``if __name__ == "__main__":`` guard.
    overlap : bool, default False
        With ``workers`` > 1: the next sample is drawn in the background while this process fits
        on the current one, so that neither waits for the other. It is drawn with the lambda of
        the moment it started, and weighted on arrival by q_lambda over that q (exp of the energy
        change, -dL . G(s) + dLam . B(s): the reweighting that sample reuse does anyway). It
        replaces the current sample when the usual rules call for a new one, or, with
        ``reuse_time``, as soon as it is ready (then the run depends on timing, as it does with
        ``reuse_time`` alone).
    line_search : bool, default True
        After eq. 7's step, search for the step that minimises the sample estimate of log Z,
        capped at ``step_cap`` times eq. 7's step; False keeps eq. 7's step.
    step_cap : float, default 10.0
        The line search's cap, in multiples of eq. 7's step (the paper's "constant-fold
        increase"; it names no constant).
    stop_ratio : float or None, default None
        Stop instead when the regret falls to this fraction of the first round's (Dudik &
        Gordon's experiments: 1e-4 for Indian poker, 1e-3 for grids).
    engine : str or None, default None
        The model of q_lambda: "tree" (``efce.treemodel.TreeModel``: compiles the game tree),
        "polymatrix" (``efce.polymatrix.PolymatrixModel``: the game must offer ``polymatrix()``),
        or None: polymatrix when the game offers it, else tree.
    every : float, default 2.0
        Seconds between progress lines.
    measure_memory : bool, default False
        Trace the run's memory with ``tracemalloc`` (``peak_memory`` and each round's
        ``memory``). Off by default: tracing slows every allocation. A trace the caller has
        started is read, never restarted or stopped (its peak then counts from the caller's
        start); one the run starts is stopped when it ends, however it ends.
    """

    expectations: str = "auto"
    corrective: bool | None = None
    scenarios: int | None = None
    r_max: float | None = None
    sample_size: int = 100
    growth: float = 0.1
    thin: int = 1
    burn_in: int = 20
    ess_min: float = 0.5
    max_reuse: int | None = 10
    reuse_time: float | None = None
    workers: int = 1
    overlap: bool = False
    line_search: bool = True
    step_cap: float = 10.0
    stop_ratio: float | None = None
    engine: str | None = None
    every: float = 2.0
    measure_memory: bool = False

    def __post_init__(self) -> None:
        if self.expectations not in ("auto", "mcmc", "exact"):
            raise SeqformError(f"expectations: 'auto', 'mcmc' or 'exact', not {self.expectations!r}")
        if self.engine not in (None, "tree", "polymatrix"):
            raise SeqformError(f"engine: 'tree' or 'polymatrix', not {self.engine!r}")
        for name, low in (
            ("sample_size", 1),
            ("workers", 1),
            ("thin", 0),
            ("burn_in", 0),
            ("max_reuse", 1),
            ("scenarios", 1),
        ):
            value = getattr(self, name)
            if value is not None and value < low:
                raise SeqformError(f"{name}: must be at least {low}, got {value}")
        if self.overlap and self.workers <= 1:
            raise SeqformError("overlap: needs workers > 1 (the background draws run in the workers)")
        if self.corrective and self.expectations == "mcmc":
            raise SeqformError("corrective: needs exact expectations (a sample would be overfitted)")
        if self.workers > 1 and (self.expectations == "exact" or self.scenarios is not None):
            raise SeqformError(
                "workers: only for MCMC with chance enumerated (exact expectations draw nothing; "
                "sampled scenarios would differ between the processes)"
            )


@dataclass(kw_only=True)
class SamplingResult(Result):
    """``payoffs`` (sample estimate per player), ``max_regret`` (the last round's largest
    estimated regret), ``initial_regret``, ``rounds``, ``samples`` (profiles drawn in total),
    ``seconds``, ``peak_memory`` (bytes, tracemalloc; None unless ``measure_memory``),
    ``history`` (per round: regret, overshoot, sample size, effective sample size, deviations,
    seconds, memory in bytes now, tracemalloc, or None), ``deviations`` and ``lam`` (the
    exponential family), ``options`` (the ``SamplerOptions`` the run used, "auto" decided) and
    ``round_limit`` (the round limit it ran under; None: none)."""

    payoffs: list
    max_regret: float
    initial_regret: float
    rounds: int
    samples: int
    peak_memory: int | None
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
    options: SamplerOptions | None = None
    round_limit: int | None = None

    def __post_init__(self) -> None:
        # the common field this result derives: the method, in words
        self.method = (
            "boosting with exact expectations" if self.expectations == "exact" else "sampling"
        ) + " (Dudik & Gordon 2009)"

    def json_fields(self) -> dict:
        return {
            "expectations": self.expectations,
            "weights": list(self.weights) or None,
            "payoffs": [float(x) for x in self.payoffs],
            "max_regret": float(self.max_regret),
            "initial_regret": float(self.initial_regret),
            "rounds": self.rounds,
            "samples": self.samples,
            "peak_memory_bytes": self.peak_memory,
            "converged": self.converged,
            "deviations": len(self.deviations),
            "stopped_by": self.stopped_by,
            "interrupted": self.stopped_by == "interrupted",
            "round_limit": self.round_limit,
        }


def sample_efce(
    game: Game,
    weights=None,
    *,
    target: float = 1e-3,
    max_rounds: int | None | str = "auto",
    time_limit: float | None = None,
    seed: int = 0,
    options: SamplerOptions | None = None,
    progress: Callable[[str], None] | None = None,
) -> SamplingResult:
    """Approximate the maximum-entropy extensive-form correlated equilibrium (EFCE) by sampling.

    The sampling algorithm of Dudik & Gordon 2009, "A Sampling-Based Approach to Computing
    Equilibria in Succinct Extensive-Form Games" (steps in the module docstring): q_lambda of
    section 3's exponential family, fitted by boosting (coordinate descent on the dual of eq. 2,
    eq. 7's steps) on MCMC samples of full pure profiles (section 3.3) until no causal deviation
    gains more than the target; on games small enough to enumerate, by default, with exact
    expectations and a totally corrective refit. The game may be given only as a simulator.

    Parameters
    ----------
    game : Game
        Any number of players, general-sum.
    weights : sequence of float, optional
        w, one per player (None = 0: the maximum-entropy EFCE).
    target : float, default 1e-3
        Stop when the largest estimated regret (and the largest overshoot of a recorded
        deviation's lambda) is at most ``target`` times r_max.
    max_rounds : int, None or "auto", default "auto"
        Stop after this many rounds (None: no limit; "auto": ``DEFAULT_ROUNDS``, 1,000, unless a
        ``time_limit`` is given).
    time_limit : float, optional
        Stop after this many seconds (Ctrl-C stops too, with the result so far).
    seed : int, default 0
        The random seed: the same seed, the same run.
    options : SamplerOptions, optional
        Every other setting (default ``SamplerOptions()``).
    progress : callable, optional
        ``progress(message)`` gets a line at most every ``options.every`` seconds.

    Returns
    -------
    SamplingResult
        A ``seqform.Result``: ``payoffs``, ``max_regret`` (the last round's), ``rounds``,
        ``samples`` (profiles drawn), ``stopped_by`` ("target", "rounds", "time_limit",
        "interrupted", "trivial"), ``deviations`` and ``lam``, ``options`` ("auto" decided).

    Raises
    ------
    SeqformError
        Bad ``weights`` or ``max_rounds``; options the game cannot run with (exact expectations
        beyond ``MAX_EXACT_PROFILES`` full pure profiles, the refit or workers where "auto"
        resolves the other way, an engine the game does not offer); a game too large to walk.

    Examples
    --------
    >>> import efce
    >>> res = efce.sample_efce(efce.job_market(), max_rounds=2, seed=0)
    >>> res.rounds <= 2, res.stopped_by in ("target", "rounds"), len(res.payoffs)
    (True, True, 2)
    >>> opts = efce.SamplerOptions(expectations="mcmc", sample_size=50)
    >>> efce.sample_efce(efce.job_market(), max_rounds=2, options=opts).samples >= 50
    True
    """
    opts = SamplerOptions() if options is None else options
    rng = np.random.default_rng(seed)
    w = _utility_weights(game, weights)
    rmax = float(opts.r_max) if opts.r_max is not None else payoff_range(game)
    limits = Limits(target * rmax, opts.stop_ratio, _round_limit(max_rounds, time_limit), time_limit)
    with MemoryTrace(opts.measure_memory) as memory:
        t0 = time.perf_counter()
        model, opts = _model_and_options(game, w, opts, rng)
        source = _sample_source(game, w, model, rng, opts)
        boost = _boosting(model, rmax, opts)
        if rmax <= 0:  # every leaf pays each player the same: every distribution is an EFCE
            run = Rounds(max_regret=0.0, converged=True, stopped_by="trivial")
            payoffs = model.statistics(source.sample.profiles[:1]).U[0]
        else:
            try:
                source.start()
                run = run_rounds(source, boost, limits, opts.every, progress or _silent, memory.current, t0)
            finally:
                source.close()
            payoffs = _payoffs(model, source.sample)
        seconds = time.perf_counter() - t0
    return _result(game, model, source, boost, run, payoffs, seconds, memory.peak, w, opts, limits)


def _boosting(model, rmax: float, opts: SamplerOptions) -> Boosting:
    """The boosting state for ``opts``' step rules (``efce.boosting.Boosting``)."""
    return Boosting(
        model,
        rmax,
        exact=opts.expectations == "exact",
        line_search=opts.line_search,
        step_cap=opts.step_cap,
        ess_min=opts.ess_min,
        corrective=bool(opts.corrective),
    )


def _result(
    game: Game,
    model,
    source,
    boost: Boosting,
    run: Rounds,
    payoffs,
    seconds: float,
    peak,
    w: np.ndarray,
    opts: SamplerOptions,
    limits: Limits,
) -> SamplingResult:
    """A finished run as ``sample_efce`` returns it."""
    return SamplingResult(
        game=game.name,
        payoffs=list(payoffs),
        max_regret=run.max_regret,
        initial_regret=run.initial or 0.0,
        rounds=run.rounds,
        samples=source.drawn,
        seconds={"total": seconds},
        peak_memory=peak,
        history=run.history,
        deviations=list(model.devs),
        lam=boost.lam.tolist(),
        weights=tuple(w),
        converged=run.converged,
        scenarios=None if opts.expectations == "exact" else opts.scenarios,
        stopped_by=run.stopped_by,
        expectations=opts.expectations,
        options=opts,
        round_limit=limits.max_rounds,
    )


def chosen_expectations(game: Game, options: SamplerOptions | None = None) -> str:
    """The expectations ``sample_efce(game, options=options)`` takes: "exact" or "mcmc". The
    options' own choice, or for "auto" exact when ``game`` has at most ``MAX_EXACT_PROFILES``
    full pure strategy profiles (it builds the game's model to count them)."""
    opts = SamplerOptions() if options is None else options
    if opts.expectations != "auto":
        return opts.expectations
    return _auto_expectations(
        count_full_profiles(make_model(game, np.zeros(game.num_players), None, None, opts.engine))
    )


def _auto_expectations(full: int) -> str:
    """What "auto" means, decided here only: exact when the ``full`` pure profiles can be
    enumerated, else MCMC."""
    return "exact" if full <= MAX_EXACT_PROFILES else "mcmc"


def _model_and_options(game: Game, w: np.ndarray, opts: SamplerOptions, rng: np.random.Generator) -> tuple:
    """The model of q_lambda, and ``opts`` with "auto" decided (expectations, the corrective
    refit)."""
    model = make_model(game, w, None if opts.expectations == "exact" else opts.scenarios, rng, opts.engine)
    full = count_full_profiles(model)
    expectations = _auto_expectations(full) if opts.expectations == "auto" else opts.expectations
    if expectations == "exact" and full > MAX_EXACT_PROFILES:
        raise SeqformError(
            f"{game.name!r} has {full:,} full pure strategy profiles; exact expectations "
            f"enumerate at most {MAX_EXACT_PROFILES:,}. Use expectations='mcmc'."
        )
    if expectations == "exact" and opts.scenarios is not None and opts.expectations == "auto":
        model = make_model(game, w, None, rng, opts.engine)  # the model sampled chance: rebuilt exact
    corrective = expectations == "exact" if opts.corrective is None else opts.corrective
    return model, replace(opts, expectations=expectations, corrective=corrective)


def _sample_source(game: Game, w: np.ndarray, model, rng: np.random.Generator, opts: SamplerOptions):
    """The run's sample source (``efce.samplesources``), its first profiles drawn."""
    if opts.expectations == "exact":
        return ExactEnumeration(model)
    pool = None
    if opts.workers > 1:
        from .drawpool import DrawPool

        pool = partial(DrawPool, make_model, game, w, opts.engine, opts.workers)
    return (OverlappedChains if opts.overlap else MarkovChains)(model, rng, opts, pool)


def _payoffs(model, sample) -> np.ndarray:
    """Each player's expected payoff under the weighted sample (its profiles unweighted when no
    round ran)."""
    if sample.stats is None:
        sample.stats, sample.weights = model.statistics(sample.profiles), np.ones(len(sample.profiles))
    return sample.weights @ sample.stats.U / sample.weights.sum()


def _silent(message: str) -> None:
    """No progress lines."""


def _utility_weights(game: Game, weights) -> np.ndarray:
    """w as an array, one per player (0 when None)."""
    N = game.num_players
    w = np.zeros(N) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (N,):
        raise SeqformError(f"weights: give one per player ({N}), not {w.size}")
    return w


def _round_limit(max_rounds, time_limit: float | None) -> int | None:
    """``max_rounds`` with "auto" decided: ``DEFAULT_ROUNDS`` without a time limit, else none."""
    if isinstance(max_rounds, str) and max_rounds == "auto":
        return DEFAULT_ROUNDS if time_limit is None else None
    if max_rounds is not None and (
        isinstance(max_rounds, (bool, str)) or not max_rounds >= 0 or int(max_rounds) != max_rounds
    ):
        raise SeqformError(f"max_rounds: a count of rounds, None or 'auto', not {max_rounds!r}")
    return None if max_rounds is None else int(max_rounds)

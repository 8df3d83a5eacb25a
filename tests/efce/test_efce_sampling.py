"""Dudik & Gordon (2009)'s sampling algorithm (``efce.sampling``) against the exact maximum-entropy EFCE
(cvxpy, ``efce.exact``) and the best-welfare LP on the job market game, and its stopping rule on
random small games.

Tolerances. The algorithm estimates regrets from M sampled profiles, so its errors are of order
r_max / sqrt(M) (Dudik & Gordon 2009, eq. 6): with M = 1,000 and r_max = 10, about 0.3 for one estimate and
less on average. We evaluate the distribution it returns exactly (every full pure profile of the
job market game enumerated) and require its payoffs within 0.15 of the maximum-entropy EFCE's and
its largest causal-deviation regret below 0.2 (2% of r_max)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from efce.causalregret import max_regret
from efce.exact import max_entropy, solve_lp
from efce.games import job_market
from efce.sampling import SamplerOptions, exact_distribution, sample_efce
from efce.strategies import profiles
from seqform.errors import SeqformError
from seqform.games.explicit import TreeGame
from seqform.model.tree import compile_tree
from tests.strategies import random_trees


def test_maximum_entropy_job_market():
    g = job_market()
    res = sample_efce(
        g,
        None,
        target=2e-3,
        max_rounds=40,
        seed=0,
        options=SamplerOptions(expectations="mcmc", sample_size=1000, max_reuse=5, measure_memory=True),
    )
    q, prof = exact_distribution(g, res)
    exact = max_entropy(prof)
    pay = q @ prof.utility
    assert abs(pay[0] - float(exact.payoffs[0])) <= 0.15 and abs(pay[1] - float(exact.payoffs[1])) <= 0.15
    assert float(max_regret(prof, list(q)).regret) <= 0.2
    assert 1 <= res.rounds <= 40 and res.samples >= 1000 and res.seconds["total"] > 0 and res.peak_memory > 0


def test_welfare_weighted_job_market_is_the_best_welfare_efce():
    g = job_market()
    res = sample_efce(
        g, (1, 1), target=1e-3, max_rounds=50, seed=0, options=SamplerOptions(expectations="mcmc", sample_size=300)
    )
    q, prof = exact_distribution(g, res)
    pay = q @ prof.utility
    exact = max_entropy(prof, (1, 1))
    best = solve_lp(prof, "welfare")
    assert pay == pytest.approx([float(x) for x in exact.payoffs], abs=0.01)
    assert pay.sum() == pytest.approx(float(sum(best.payoffs)), abs=0.02)  # the LP's optimal welfare, 9
    assert float(max_regret(prof, list(q)).regret) <= 1e-6
    assert res.converged


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_trees(max_depth=3, max_actions=2, max_nodes=16, max_pure_strategies=8, chance=True))
def test_random_games_stop_below_the_target(tree):
    g = TreeGame(tree, "random")
    res = sample_efce(
        g, None, target=0.02, max_rounds=300, seed=0, options=SamplerOptions(expectations="mcmc", sample_size=200)
    )
    from efce.sampling import regret_bound

    assert res.converged and res.max_regret <= 0.02 * max(regret_bound(g), 0) + 1e-12
    # the deviations it used are real causal deviations of the game: zero regret ones excepted,
    # each one's information set belongs to its player
    prof = profiles(compile_tree(g))
    keys = {(int(prof.tree.infoset_player[m]), prof.tree.infoset_key[m]) for m in range(len(prof.tree.infoset_player))}
    assert all((d.player, d.key) in keys for d in res.deviations)


def test_sampled_scenarios_run():
    """Chance sampled once (``SamplerOptions(scenarios=k)``); ``test_efce_models`` checks the scenario weights."""
    from efce.games import indian_poker

    res = sample_efce(indian_poker(4), None, max_rounds=3, seed=0, options=SamplerOptions(scenarios=30, sample_size=20))
    assert res.rounds == 3 and len(res.payoffs) == 3 and res.scenarios == 30


def test_reuse_time_bounds_how_long_a_sample_serves():
    """``SamplerOptions(reuse_time=0)``: every round after the first draws afresh; without it (and no round cap, no
    effective-size floor) the first sample serves every round. ``samples`` counts the profiles drawn."""
    g = job_market()
    common = dict(expectations="mcmc", sample_size=50, growth=0.0, max_reuse=10**9, ess_min=0.0)
    fresh = sample_efce(g, None, max_rounds=6, seed=0, target=1e-9, options=SamplerOptions(reuse_time=0.0, **common))
    kept = sample_efce(g, None, max_rounds=6, seed=0, target=1e-9, options=SamplerOptions(**common))
    assert fresh.rounds == kept.rounds == 6
    assert fresh.samples == 6 * 50 and kept.samples == 50


def test_same_seed_same_run():
    from efce.games import indian_poker

    a = sample_efce(indian_poker(3), None, max_rounds=30, seed=5, options=SamplerOptions(sample_size=50))
    b = sample_efce(indian_poker(3), None, max_rounds=30, seed=5, options=SamplerOptions(sample_size=50))
    assert (
        a.payoffs == b.payoffs
        and a.lam == b.lam
        and [h["regret"] for h in a.history] == [h["regret"] for h in b.history]
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([1.0, 1e3, 1e6]), st.booleans(), st.booleans())
def test_line_search_minimises_the_sample_log_partition(seed, scale, zeros, positive):
    """The line search's step against scipy's bounded minimiser of F(x) = log sum om exp(-x rs),
    evaluated with logsumexp, on random weights and regrets. Brackets reach steps so long that
    exp(-x rs) over- or underflows for every profile (``scale``), and some profiles may miss the
    trigger (rs = 0, ``zeros``) or every regret may be positive (``positive``: F falls all the
    way to the bracket's end)."""
    from scipy.optimize import minimize_scalar
    from scipy.special import logsumexp

    from efce.boosting import line_search as _line_search

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 200))
    om = rng.random(n) ** 3
    rs = rng.normal(0.1, 1.0, n) * 10.0 ** rng.uniform(-4, 0)
    if positive:
        rs = np.abs(rs)
    if zeros:  # the first profile keeps its regret: some profile reaches the trigger
        rs[1:][rng.random(n - 1) < 0.5] = 0.0
    hi = scale * 10.0 ** rng.uniform(-1, 2) / np.abs(rs).max()

    def F(x):
        return logsumexp(-x * rs, b=om)

    x = _line_search(om, rs, 0.0, hi, hi / 10, ess_floor=0.0)
    ref = minimize_scalar(F, bounds=(0.0, hi), method="bounded", options={"xatol": 1e-12 * hi})
    best = min(ref.fun, F(0.0), F(hi))
    assert np.isfinite(x) and 0.0 <= x <= hi
    assert F(x) <= best + 1e-9 * max(1.0, abs(best))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.floats(0.2, 0.9))
def test_line_search_stops_where_the_effective_sample_size_would_fall_below_its_floor(seed, frac):
    """Section 3.4: the line search stops where the effective sample size would fall below its
    floor. On a grid of steps: the step lies between eq. 7's step and the unconstrained minimiser
    (a search with no floor); it keeps the floor (or is eq. 7's step, which is always taken); and
    if it stopped short of the minimiser, the floor breaks within one grid step past it."""
    from efce.boosting import effective_size as _ess
    from efce.boosting import line_search as _line_search

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    om = rng.random(n) + 0.05
    # as in the runs: a deviation's regret sits on a few profiles, so its minimiser reweights
    # them hard and the floor often binds
    rs = rng.normal(-0.05, 0.1, n)
    few = rng.random(n) < rng.uniform(0.05, 0.5)
    rs[few] = rng.uniform(1.0, 3.0, int(few.sum()))
    hi = 50.0 / np.abs(rs).max()
    step0 = hi / 100
    floor = frac * _ess(om)
    free = _line_search(om, rs, 0.0, hi, step0, ess_floor=0.0)
    x = _line_search(om, rs, 0.0, hi, step0, ess_floor=floor)

    def ess(t):
        z = np.log(om) - t * rs
        return _ess(np.exp(z - z.max()))

    assert min(step0, free) - 1e-12 <= x <= max(step0, free) + 1e-12
    if ess(step0) < floor:
        assert x == step0
        return
    assert ess(x) >= floor * (1 - 1e-9)
    grid = np.linspace(x, free, 400)[1:]
    first_bad = next((t for t in grid if ess(t) < floor), None)
    if free != x:
        assert first_bad is not None and abs(first_bad - x) <= abs(free - x) / 399 * 1.0001 + 1e-9


def test_validation_reports_chains_still_drifting():
    """``validated_regret``'s mixing check. From uniform profiles, 3-card Indian poker's q_lambda
    (cap 100; the run meets its target after 549 rounds, at 2% of the first regret) is far off
    after 2 sweeps: the mean energy still climbs by many standard errors between sweep 1 and
    sweep 2. After 100 sweeps it has settled, as it has on the job market game (whose Gibbs
    chains mix at once)."""
    from efce.games import indian_poker
    from efce.sampling import validated_regret

    g = indian_poker(3)
    res = sample_efce(
        g, None, max_rounds=2000, seed=0, options=SamplerOptions(sample_size=200, step_cap=100, max_reuse=10**9)
    )
    assert validated_regret(g, res, samples=500, burn_in=2).energy_drift > 8
    assert abs(validated_regret(g, res, samples=500, burn_in=100).energy_drift) < 4
    jm = job_market()
    res = sample_efce(
        jm,
        None,
        target=2e-3,
        max_rounds=40,
        seed=0,
        options=SamplerOptions(expectations="mcmc", sample_size=1000, max_reuse=5),
    )
    v = validated_regret(jm, res, samples=1000, burn_in=30)
    assert abs(v.energy_drift) < 4 and v.burn_in == 30


def test_validated_payoffs_estimate_the_exact_distributions():
    """``validated_regret``'s payoff estimates (its second fresh sample) against the payoffs of the
    run's q_lambda computed exactly by enumeration (``exact_distribution``): within 4 standard
    errors, for each player of the job market game and of a 2 x 2 grid."""
    from efce.games import grid_game
    from efce.sampling import exact_distribution, validated_regret

    for g in (job_market(), grid_game(2, 0)):
        res = sample_efce(g, None, max_rounds=30, seed=0, options=SamplerOptions(sample_size=300, expectations="mcmc"))
        v = validated_regret(g, res, samples=2000, burn_in=30)
        q, prof = exact_distribution(g, res)
        truth = q @ prof.utility
        assert len(v.payoffs) == len(v.payoffs_stderr) == g.num_players
        for p, se, t in zip(v.payoffs, v.payoffs_stderr, truth):
            assert se > 0 and abs(p - t) <= 4 * se


# slow: worker start-up; the default tier validates the same samples in one process
@pytest.mark.slow
@pytest.mark.runtime
def test_validation_split_over_worker_processes():
    """``validated_regret(workers=2)``: the burn-in's sweeps run in two processes
    (``efce.drawpool``, with the parent's lambda). The mixing check still sees 2 sweeps as far
    off and 100 as settled, and the
    validated regret agrees with one process's within 5 combined standard errors (different
    random streams, and possibly a different deviation found on the first sample; each is an
    unbiased estimate of a regret no larger than the largest)."""
    from efce.games import indian_poker
    from efce.sampling import validated_regret

    g = indian_poker(3)
    res = sample_efce(
        g, None, max_rounds=2000, seed=0, options=SamplerOptions(sample_size=200, step_cap=100, max_reuse=10**9)
    )
    assert validated_regret(g, res, samples=500, burn_in=2, workers=2).energy_drift > 8
    two = validated_regret(g, res, samples=1500, burn_in=100, workers=2)
    one = validated_regret(g, res, samples=1500, burn_in=100)
    assert abs(two.energy_drift) < 4 and two.samples == 1500
    assert abs(two.validated - one.validated) <= 5 * math.hypot(one.stderr, two.stderr) + 1e-12


@pytest.mark.runtime
def test_samples_drawn_by_two_worker_processes():
    """``SamplerOptions(workers=2)`` (``efce.drawpool``): the chains advance in two processes with the parent's
    lambda. Held to the same exact checks as one process's run on the job market game (the final
    q_lambda computed exactly: its payoffs near the maximum-entropy EFCE's, its regret small), and
    reproducible for a given seed and number of workers."""
    g = job_market()
    kw = dict(target=2e-3, max_rounds=40, seed=0)
    opts = dict(expectations="mcmc", sample_size=1000, max_reuse=5, workers=2)
    res = sample_efce(g, None, options=SamplerOptions(**opts), **kw)
    q, prof = exact_distribution(g, res)
    exact = max_entropy(prof)
    pay = q @ prof.utility
    assert abs(pay[0] - float(exact.payoffs[0])) <= 0.15 and abs(pay[1] - float(exact.payoffs[1])) <= 0.15
    assert float(max_regret(prof, list(q)).regret) <= 0.2 and res.samples >= 1000
    again = sample_efce(g, None, options=SamplerOptions(**opts), **kw)
    assert again.lam == res.lam and again.payoffs == res.payoffs
    # drawing in the background while fitting, each sample weighted to the lambda it arrives at
    res = sample_efce(g, None, options=SamplerOptions(overlap=True, **opts), **kw)
    q, prof = exact_distribution(g, res)
    pay = q @ prof.utility
    assert abs(pay[0] - float(exact.payoffs[0])) <= 0.15 and abs(pay[1] - float(exact.payoffs[1])) <= 0.15
    assert float(max_regret(prof, list(q)).regret) <= 0.2 and res.samples >= 1000
    with pytest.raises(SeqformError, match="overlap"):
        sample_efce(g, None, max_rounds=2, options=SamplerOptions(overlap=True))
    with pytest.raises(SeqformError, match="workers"):
        sample_efce(g, None, max_rounds=2, options=SamplerOptions(expectations="exact", workers=2))


def test_memory_is_traced_only_when_asked_and_the_trace_always_ends():
    """``SamplerOptions(measure_memory=...)``: off by default (no tracemalloc, ``peak_memory``
    None); on, a peak and each round's memory, and the trace stopped afterwards, also when the run
    fails; a trace the caller started is read and left running."""
    import tracemalloc

    from efce.games import indian_poker

    assert not tracemalloc.is_tracing()
    g = job_market()
    off = sample_efce(g, None, max_rounds=3, options=SamplerOptions(expectations="mcmc"))
    assert off.peak_memory is None and all(h["memory"] is None for h in off.history)
    assert not tracemalloc.is_tracing()
    on = sample_efce(g, None, max_rounds=3, options=SamplerOptions(expectations="mcmc", measure_memory=True))
    assert on.peak_memory > 0 and all(h["memory"] > 0 for h in on.history)
    assert on.lam == off.lam and on.payoffs == off.payoffs  # tracing changes nothing else
    assert not tracemalloc.is_tracing()
    with pytest.raises(SeqformError, match="full pure strategy profiles"):
        sample_efce(indian_poker(3), None, options=SamplerOptions(expectations="exact", measure_memory=True))
    assert not tracemalloc.is_tracing()
    tracemalloc.start()
    try:
        mine = sample_efce(g, None, max_rounds=3, options=SamplerOptions(measure_memory=True))
        assert tracemalloc.is_tracing() and mine.peak_memory > 0
    finally:
        tracemalloc.stop()


@pytest.mark.runtime
def test_options_are_checked_when_made():
    """Bad ``SamplerOptions`` are refused at once, naming the option (``SeqformError``)."""
    for bad, name in (
        (dict(sample_size=0), "sample_size"),
        (dict(workers=0), "workers"),
        (dict(max_reuse=0), "max_reuse"),
        (dict(engine="graph"), "engine"),
        (dict(workers=2, scenarios=10), "workers"),
        (dict(thin=-1), "thin"),
    ):
        with pytest.raises(SeqformError, match=name):
            SamplerOptions(**bad)
    with pytest.raises(SeqformError, match="max_rounds"):
        sample_efce(job_market(), None, max_rounds=-1)
    with pytest.raises(SeqformError, match="weights"):
        sample_efce(job_market(), (1, 2, 3))
    with pytest.raises(SeqformError, match="corrective"):  # "auto" resolves to MCMC on 3-card poker
        from efce.games import indian_poker

        sample_efce(indian_poker(3), None, max_rounds=1, options=SamplerOptions(corrective=True))


@pytest.mark.runtime
def test_the_round_limit_applies_by_default_only_without_a_time_limit():
    """``max_rounds="auto"``: 1,000 rounds without ``time_limit`` (said in ``round_limit``), none
    with one (about 1,000 rounds a second here: 2 s runs past 1,000 unless the machine is very
    slow, and then it still stops by the time limit, not at a round)."""
    from efce.sampling import DEFAULT_ROUNDS

    g = job_market()
    opts = SamplerOptions(expectations="mcmc")
    assert sample_efce(g, target=1e-12, max_rounds=2, options=opts).round_limit == 2
    assert sample_efce(g, target=10.0, options=opts).round_limit == DEFAULT_ROUNDS == 1000
    timed = sample_efce(g, target=1e-12, time_limit=2, options=opts)
    assert timed.round_limit is None and timed.stopped_by == "time_limit" and timed.seconds["total"] >= 2


def test_the_defaults_decide_exact_expectations_and_the_refit_in_the_library():
    """On a game small enough to enumerate, the default run takes exact expectations with the
    totally corrective refit, and says so in ``options``; forcing MCMC turns the refit off."""
    from efce.sampling import chosen_expectations

    g = job_market()
    res = sample_efce(g)
    assert res.expectations == "exact" and res.options.expectations == "exact" and res.options.corrective
    assert chosen_expectations(g) == "exact" and chosen_expectations(g, SamplerOptions(expectations="mcmc")) == "mcmc"
    mc = sample_efce(g, max_rounds=3, options=SamplerOptions(expectations="mcmc"))
    assert mc.options.corrective is False and mc.samples >= 100

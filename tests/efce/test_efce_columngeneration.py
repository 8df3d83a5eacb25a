"""Column generation for the EFCE LP (``efce.colgen``) and its pricing oracle
(``efce.factormap``), against independent computations:

* the MAP profile against brute force over every full pure profile;
* the optimum against the full EFCE LP over every reduced profile (``efce.exact.solve_lp``), where
  it fits (tolerance 1e-7: that LP's distribution is rounded to denominators of at most 10^6);
* the exact distribution's regret against ``efce.causalregret``'s dynamic program, which walks the
  tree in rationals over the distribution's own profiles (not the LP's statistics).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from efce.causalregret import causal_regrets
from efce.colgen import ColumnGenerationStopped, EFCEColumnGeneration, efcecolgen
from efce.exact import solve_lp
from efce.factormap import FactorMAP
from efce.games import grid_game, indian_poker, job_market
from efce.sampling import full_profiles, make_model
from efce.strategies import profiles
from seqform.errors import SeqformError
from seqform.games.explicit import TreeGame
from seqform.model.tree import compile_tree
from tests.strategies import random_trees


class _SupportProfiles:
    """What ``causal_regrets`` reads of ``Profiles``, for an explicit list of full profiles: the
    k-th 'profile' plays the k-th full profile's reduced plans."""

    def __init__(self, tree, S):
        self.tree = tree
        self.plans = [[_plan(tree, n, row) for row in S] for n in range(tree.num_players)]

    def profile(self, k):
        return (k,) * self.tree.num_players


def _plan(tree, n, row):
    """The sequences player n's full strategy ``row`` (an action per information set) reaches."""
    plan = {0}
    changed = True
    while changed:
        changed = False
        for m in tree.player_infosets[n].tolist():
            s = int(tree.infoset_first_seq[m]) + int(row[m])
            if int(tree.infoset_parent_seq[m]) in plan and s not in plan:
                plan.add(s)
                changed = True
    return frozenset(plan)


def _independent_regret(game, res) -> Fraction:
    tree = compile_tree(game)
    keep = [k for k, v in enumerate(res.p_exact) if v]
    sp_ = _SupportProfiles(tree, res.columns[keep])
    return max((d.regret for d in causal_regrets(sp_, [res.p_exact[k] for k in keep])), default=Fraction(0))


def _random_duals(model, rng):
    model.L[:-1] = np.abs(rng.normal(size=len(model.L) - 1))
    model.Lam[:-1] = np.abs(rng.normal(size=len(model.Lam) - 1))


@pytest.mark.parametrize("cluster_limit", [1, 4096])
@pytest.mark.parametrize("game", [job_market(), grid_game(2, 0), grid_game(3, 1)], ids=lambda g: g.name)
def test_map_profile_is_the_brute_force_maximum(game, cluster_limit):
    rng = np.random.default_rng(7)
    model = make_model(game, rng.normal(size=game.num_players))
    _random_duals(model, rng)
    pricer = FactorMAP(model, cluster_limit=cluster_limit)
    sol = pricer.solve()
    brute = model.energy(full_profiles(model, 10**5)).max()
    assert sol.energy == pytest.approx(brute, abs=1e-9) and sol.bound >= brute - 1e-7
    # the LP relaxation bounds the maximum from above, and leaves the integer program as it was
    assert pricer.relaxation_bound() >= brute - 1e-7 and pricer.integrality.any()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    random_trees(max_depth=3, max_actions=2, max_nodes=16, max_pure_strategies=8, chance=True),
    st.sampled_from([1, 4, 4096]),
)
def test_map_profile_on_random_games(tree, cluster_limit):
    game = TreeGame(tree, "random")
    rng = np.random.default_rng(3)
    model = make_model(game, rng.normal(size=game.num_players), engine="tree")
    _random_duals(model, rng)
    best = model.energy(full_profiles(model)).max()
    assert FactorMAP(model, cluster_limit=cluster_limit).solve().energy == pytest.approx(best, abs=1e-9)


def test_clustered_factors_relax_no_looser_than_leaf_factors():
    """One factor per deal of cards is a coarser factor graph: its local polytope lies inside
    the per-leaf one's, so the integer program's LP relaxation can only be tighter, and the
    integer optimum is the same."""
    model = make_model(indian_poker(3), np.zeros(3), engine="tree")
    _random_duals(model, np.random.default_rng(5))
    relaxed, exact = [], []
    for limit in (1, 4096):
        f = FactorMAP(model, cluster_limit=limit)
        exact.append(f.solve().energy)
        relaxed.append(f.relaxation_bound())
    assert exact[1] == pytest.approx(exact[0], abs=1e-9)
    assert relaxed[1] <= relaxed[0] + 1e-9 and relaxed[1] >= exact[0] - 1e-9


def _check_against_full_lp(game, weight_list, smoothing=0.0, eps=Fraction(0), **pool):
    prof = profiles(compile_tree(game))
    said = []
    cg = EFCEColumnGeneration(game, progress=said.append, smoothing=smoothing, **pool)
    for w in weight_list:
        said.clear()
        res = cg.solve(w, eps=eps)
        full = solve_lp(prof, w, eps=float(eps))
        assert float(res.objective) == pytest.approx(full.objective, abs=1e-7)
        # every weak-duality bound reported along the way lies above the optimum
        bounds = [float(m.rsplit("optimum at most ", 1)[1]) for m in said if "optimum at most" in m]
        assert all(b >= full.objective - 1e-7 for b in bounds)
        assert res.certified and res.max_regret <= eps and sum(res.p_exact) == 1 and res.eps == eps
        assert _independent_regret(game, res) <= eps
        assert res.objective == sum(Fraction(x).limit_denominator(10**12) * p for x, p in zip(w, res.payoffs))
    return cg


# the pool's upkeep at its harshest: every profile nonbasic in the last LP leaves it; the optimum
# must not move (a dropped profile comes back when a pricing finds it again)
@pytest.mark.parametrize("game", [job_market(), grid_game(2, 0)], ids=lambda g: g.name)
def test_dropping_idle_profiles_keeps_the_full_lp_optimum(game):
    N = game.num_players
    e = np.eye(N)
    cg = _check_against_full_lp(game, [np.ones(N), e[0], -e[0], e[-1], -e[-1]], 0.8, pool_cap=0, max_idle=1)
    assert cg.retired > 0


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_trees(max_depth=3, max_actions=2, max_nodes=16, max_pure_strategies=8, chance=True))
def test_dropping_idle_profiles_on_random_games(tree):
    game = TreeGame(tree, "random")
    _check_against_full_lp(game, [np.ones(game.num_players), -np.eye(game.num_players)[0]], 0.8, pool_cap=0, max_idle=1)


# smoothing 0.8: the cheap pricing looks at smoothed duals (Wentges), the end is proved as without
@pytest.mark.parametrize("smoothing", [0.0, 0.8])
def test_job_market_welfare_and_payoff_ranges_equal_the_full_lp(smoothing):
    e = np.eye(2)
    _check_against_full_lp(job_market(), [np.ones(2), e[0], -e[0], e[1], -e[1]], smoothing)


@pytest.mark.parametrize("smoothing", [0.0, 0.8])
def test_grid_payoff_ranges_equal_the_full_lp(smoothing):
    e = np.eye(4)
    _check_against_full_lp(grid_game(2, 0), [np.ones(4), e[0], -e[0], e[3], -e[3]], smoothing)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    random_trees(max_depth=3, max_actions=2, max_nodes=16, max_pure_strategies=8, chance=True),
    st.sampled_from([0.0, 0.8]),
)
def test_random_games_equal_the_full_lp(tree, smoothing):
    game = TreeGame(tree, "random")
    _check_against_full_lp(game, [np.ones(game.num_players), np.eye(game.num_players)[0]], smoothing)


def test_a_basis_infeasible_in_rationals_is_solved_again_tightly():
    """HiGHS's optimal basis can be feasible only up to its tolerance, so that in rationals a
    deviation keeps a small gain (the 6 x 6 grid, 2 of 73 LPs). Such a basis made on purpose:
    the restricted LP's optimal basis at eps = 1/10, read at eps = 0. ``certify`` must find
    it wanting, solve the LP again from it, and return an exact EFCE at the full LP's optimum."""
    game = grid_game(2, 0)
    prof = profiles(compile_tree(game))
    cg = EFCEColumnGeneration(game)
    e = np.eye(game.num_players)
    failed = 0
    for w in (e[0], -e[0], e[3], -e[3]):
        cg.solve(w)  # the pool now holds the optimum's profiles
        res, _, _ = cg.lp.solve(cg.U @ w, False, eps=0.1)
        failed += not cg.certify(res, w, Fraction(0), tight=False).certified
        out = cg.certify(res, w, Fraction(0))
        assert out.certified and out.max_regret <= 0 and _independent_regret(game, out) <= 0
        assert float(out.objective) == pytest.approx(solve_lp(prof, w).objective, abs=1e-9)
    assert failed >= 2 and cg.tight_resolves == failed


# the eps-EFCE polytope (every causal deviation may gain up to eps): the ranges an iterative
# method's payoffs must lie in; the full LP with eps on its trigger rows is the oracle
@pytest.mark.parametrize("eps", [Fraction(1, 100), Fraction(1, 7)])
@pytest.mark.parametrize("game", [job_market(), grid_game(2, 0)], ids=lambda g: g.name)
def test_eps_polytope_equals_the_full_lp(game, eps):
    N = game.num_players
    e = np.eye(N)
    _check_against_full_lp(game, [e[0], -e[0], e[-1], -e[-1]], 0.8, eps=eps)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    random_trees(max_depth=3, max_actions=2, max_nodes=16, max_pure_strategies=8, chance=True),
    st.fractions(min_value=0, max_value=1, max_denominator=50),
)
def test_eps_polytope_on_random_games(tree, eps):
    game = TreeGame(tree, "random")
    _check_against_full_lp(game, [np.eye(game.num_players)[0], -np.eye(game.num_players)[-1]], 0.8, eps=eps)


@pytest.mark.slow  # the default tier checks eps-polytopes against the full LP on job_market, grid 2 and random games
def test_eps_polytope_contains_the_efce_polytope():
    """Raising eps only widens the ranges, and every range's end is reached by a distribution
    whose largest gain, by the tree-walking dynamic program, is at most eps. On 3-card Indian
    poker (beyond enumeration) every EFCE pays each player 0, so the exact ranges are single
    points; at eps = 1/100 they open up."""
    game = indian_poker(3)
    cg = EFCEColumnGeneration(game, seed=1)
    e = np.eye(3)[0]
    last = None
    for eps in (Fraction(0), Fraction(1, 200), Fraction(1, 100)):
        hi, lo = cg.solve(e, eps=eps), cg.solve(-e, eps=eps)
        for res in (hi, lo):
            assert res.certified and res.proved_optimal and res.max_regret <= eps
            assert _independent_regret(game, res) <= eps
        if last is not None:
            assert hi.payoffs[0] >= last[1] and lo.payoffs[0] <= last[0]
        last = (lo.payoffs[0], hi.payoffs[0])
    assert last[0] < 0 < last[1]
    with pytest.raises(SeqformError, match="at least 0"):
        cg.solve(e, eps=-1)


def _sampler_against_eps_ranges(game, rounds: int) -> tuple:
    """The sampling algorithm's q_lambda after ``rounds`` (exact expectations), enumerated exactly;
    its largest regret r by ``efce.causalregret``; how far its exact payoffs lie outside the EFCE
    polytope's ranges and outside the r-EFCE polytope's (the largest over players)."""
    from efce.causalregret import max_regret
    from efce.sampling import SamplerOptions, exact_distribution, sample_efce

    res = sample_efce(game, None, max_rounds=rounds, seed=0, options=SamplerOptions(expectations="exact"))
    q, prof = exact_distribution(game, res)
    q = [Fraction(x) for x in q]
    q = [x / sum(q) for x in q]
    r = max_regret(prof, q).regret
    pay = [sum(q[k] * prof.utility_exact[k][n] for k in range(prof.count) if q[k]) for n in range(game.num_players)]
    cg = EFCEColumnGeneration(game)
    e = np.eye(game.num_players)
    out = []
    for eps in (Fraction(0), max(r, Fraction(0))):
        ends = [(-cg.solve(-e[n], eps=eps).objective, cg.solve(e[n], eps=eps).objective) for n in range(len(e))]
        out.append(max(float(max(lo - p, p - hi)) for (lo, hi), p in zip(ends, pay)))
    return r, out[0], out[1]


def test_an_unfinished_sampler_lies_in_its_eps_ranges():
    """Issue 26's check, without sampling noise: a distribution whose largest causal-deviation gain
    is r has its payoffs in the ranges over the r-EFCE polytope, though not in the EFCE polytope's.
    After 3 rounds on a 2 x 2 grid the sampler's q_lambda (exact expectations, enumerated) gains
    0.14 by deviating, and two players' payoffs lie 0.12 to 0.16 outside their exact ranges."""
    r, off_efce, off_eps = _sampler_against_eps_ranges(grid_game(2, 0), 3)
    assert r > 0 and off_efce > 0.01 and off_eps <= 1e-9


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_trees(max_depth=3, max_actions=2, max_nodes=16, max_pure_strategies=8, chance=True), st.integers(1, 4))
def test_sampler_lies_in_its_eps_ranges_on_random_games(tree, rounds):
    _, _, off_eps = _sampler_against_eps_ranges(TreeGame(tree, "random"), rounds)
    assert off_eps <= 1e-9


def _grid_ce_regret(game, res) -> Fraction:
    """The largest gain of a (player i, recommended a, played b) switch, by brute force over the
    distribution's profiles with the game's integer payoff tables (a grid's EFCE is its
    correlated equilibrium: one information set per player)."""
    worst = Fraction(0)
    keep = [k for k, v in enumerate(res.p_exact) if v]
    for i in range(game.num_players):
        for a in range(3):
            for b in range(3):
                gain = Fraction(0)
                for k in keep:
                    s = res.columns[k][: game.num_players].tolist()
                    if s[i] != a:
                        continue
                    d = sum(
                        int(game.payoff[i][j][b, s[j]]) - int(game.payoff[i][j][a, s[j]]) for j in game.neighbours[i]
                    )
                    gain += res.p_exact[k] * Fraction(d, 1000)
                worst = max(worst, gain)
    return worst


def test_grid_beyond_enumeration_is_an_exact_efce():
    # 4 x 4: 3^16 = 43 million profiles, far beyond the full LP's 200,000
    game = grid_game(4, 1)
    e = np.zeros(16)
    e[5] = 1.0
    cg = EFCEColumnGeneration(game)
    for case, w in enumerate((np.ones(16), -e)):
        res = cg.solve(w)
        assert res.certified and res.max_regret <= 0 and sum(res.p_exact) == 1
        assert _grid_ce_regret(game, res) <= 0
        welfare = sum(
            res.p_exact[k] * sum(Fraction(x).limit_denominator(1000) for x in game.profile_utility(res.columns[k][:16]))
            for k in range(len(res.p_exact))
            if res.p_exact[k]
        )
        if case == 0:
            assert welfare == res.objective
        else:  # player 5's own payoff, by the game's tables
            own = sum(
                res.p_exact[k] * Fraction(game.profile_utility(res.columns[k][:16])[5]).limit_denominator(1000)
                for k in range(len(res.p_exact))
                if res.p_exact[k]
            )
            assert own == res.payoffs[5] and res.objective == own * int(w[5])


def test_indian_poker_beyond_enumeration_is_an_exact_efce():
    # 3 cards: ~10^19 reduced profiles; the distribution's regret checked by the tree-walking DP
    game = indian_poker(3)
    res = EFCEColumnGeneration(game, seed=1).solve(np.ones(3))
    assert res.certified and res.proved_optimal and res.max_regret <= 0 and sum(res.p_exact) == 1
    assert _independent_regret(game, res) <= 0
    assert sum(res.payoffs) == 0  # the game is zero-sum: every EFCE has welfare 0


@pytest.mark.runtime
def test_time_limit_bounds_every_pricing_integer_program():
    """solve(time_limit=T) hands each integer program at most what is left of T (one can take 11
    minutes on 4-card poker, so a limit checked only between rounds could be overrun by that much)."""
    cg = EFCEColumnGeneration(job_market(), heuristic=False)
    limits = []
    real = cg.pricer.solve

    def spy(time_limit=None, **kw):
        limits.append(time_limit)
        return real(time_limit=time_limit, **kw)

    cg.pricer.solve = spy
    res = cg.solve(np.ones(2), time_limit=30.0, pricing_time_limit=100.0)
    assert res.certified and limits and all(x is not None and 0 < x <= 30.0 for x in limits)
    limits.clear()
    cg.solve(np.ones(2))
    assert limits and all(x is None for x in limits)


#: fake seconds one pricing integer program on 3-card Indian poker takes in the clock tests
MIP_SECONDS = 2.0


def _fake_clock_run(monkeypatch, game, w, time_limit: float | None, seed: int = 1):
    """``EFCEColumnGeneration(game, seed).solve(w, time_limit)`` on a clock the test controls:
    one fake second per restricted LP, ``MIP_SECONDS`` per pricing integer program; an integer
    program given fewer seconds than that (on the fake clock) stops as HiGHS does at its time
    limit before any incumbent, having spent them; relaxations cost nothing. No real clock is
    involved: the integer programs that finish run without a time limit. Returns (what
    ``solve`` returned or raised, and the counts: integer programs that found a profile,
    relaxations, integer programs stopped empty, and the fake times the integer programs
    started at)."""
    from efce.factormap import MapSolution

    clock = [0.0]
    monkeypatch.setattr(efcecolgen, "time", type("Clock", (), {"perf_counter": staticmethod(lambda: clock[0])}))
    cg = EFCEColumnGeneration(game, seed=seed)
    real_lp, real_map = cg.lp.solve, cg.pricer.solve
    runs = {"mip": 0, "relaxation": 0, "stopped": 0, "mip_at": []}

    def lp(*a, **kw):
        clock[0] += 1.0
        return real_lp(*a, **kw)

    def priced(*a, time_limit=None, **kw):
        if not cg.pricer.integrality.any():
            runs["relaxation"] += 1
            return real_map(*a, **kw)
        runs["mip_at"].append(clock[0])
        if time_limit is not None and time_limit < MIP_SECONDS:
            clock[0] += time_limit
            runs["stopped"] += 1
            return MapSolution(None, -np.inf, np.inf, False)
        clock[0] += MIP_SECONDS
        runs["mip"] += 1
        return real_map(*a, **kw)

    cg.lp.solve, cg.pricer.solve = lp, priced
    try:
        out = cg.solve(w, time_limit=time_limit)
    except SeqformError as e:
        out = e
    return out, runs


def _check_stop(game, e, lp_value_bracket=0.0):
    """A clean stop: ``ColumnGenerationStopped``, and in the second phase the restricted LP's
    EFCE exact and verified (by the independent tree walk too), its value a lower bound and the
    reported bound an upper bound on the optimum ``lp_value_bracket``."""
    assert isinstance(e, ColumnGenerationStopped), f"not a clean stop: {type(e).__name__}: {e}"
    if e.lp_value is None:
        return False
    assert e.upper_bound < np.inf and e.lp_value <= lp_value_bracket + 1e-9 <= e.upper_bound + 2e-9
    f = e.feasible
    assert f.certified and not f.proved_optimal and f.max_regret <= 0
    assert _independent_regret(game, f) <= 0 and float(f.objective) == pytest.approx(e.lp_value, abs=1e-9)
    return True


@pytest.mark.runtime
def test_a_stop_before_any_integer_program_is_bounded_by_the_relaxation(monkeypatch):
    """Stopped in the second phase before an integer program has priced (the annealed chains
    answered every round), the bound comes from the pricing's LP relaxation at the last duals,
    and the restricted LP's distribution comes back exact and verified.
    On 3-card Indian poker every EFCE pays player 0 exactly 0
    (``test_eps_polytope_contains_the_efce_polytope``); minimising it, the stopped LP's value
    and that bound must bracket 0. The clock is one second per restricted LP; the second phase
    starts after about 12 of them."""
    game = indian_poker(3)
    w = -np.eye(3)[0]
    seen = 0
    for k in (16, 20, 24, 28):
        e, runs = _fake_clock_run(monkeypatch, game, w, k - 0.5)
        if runs["mip"] == 0 and runs["stopped"] == 0 and _check_stop(game, e):
            assert runs["relaxation"] == 1
            seen += 1
    assert seen >= 3


# slow: the default tier keeps the stops before any integer program and by pricing's own limit
@pytest.mark.slow
@pytest.mark.runtime
def test_an_integer_program_stopped_by_the_clock_is_a_clean_stop(monkeypatch):
    """Whenever solve's time limit runs out, before or inside a pricing integer program (one
    that stops at its time limit without an incumbent included), the solve ends with
    ``ColumnGenerationStopped``, never a bare ``SolverError``; in the second phase with the
    restricted LP's exact, verified EFCE and a bound that brackets the optimum (0, as above).
    The time limits are placed around where the integer programs start (a run without a
    limit says where), so stops land before, inside and after one."""
    game = indian_poker(3)
    w = -np.eye(3)[0]
    # where the integer programs start on the fake clock, from a run without a limit
    done, runs = _fake_clock_run(monkeypatch, game, w, None)
    assert done.certified and done.proved_optimal and float(done.objective) == pytest.approx(0.0, abs=1e-9)
    first = runs["mip_at"][0]
    limits = {
        "before the first LP ends": 0.5,
        "just before an integer program": first - 0.5,
        "inside an integer program": first + MIP_SECONDS / 4,
        "after the last integer program": runs["mip_at"][-1] + MIP_SECONDS + 100.0,
    }
    inside = phase2 = 0
    for where, t in limits.items():
        e, runs = _fake_clock_run(monkeypatch, game, w, t)
        if not isinstance(e, SeqformError):  # finished within the limit: the optimum, proved
            assert e.certified and e.proved_optimal and float(e.objective) == pytest.approx(0.0, abs=1e-9), where
            continue
        phase2 += _check_stop(game, e)
        inside += runs["stopped"]
    assert inside == 1 and phase2 >= 2


@pytest.mark.runtime
def test_pricing_stopped_empty_by_its_own_limit_leaves_the_optimum_unproved():
    """``pricing_time_limit`` of 0 s: every integer program stops before any profile (HiGHS's own
    clock, on any machine). The solve still returns the restricted LP's EFCE, exact and verified
    (by the independent tree walk too), says the optimum is not proved, and bounds nothing."""
    game = indian_poker(3)
    res = EFCEColumnGeneration(game, seed=1).solve(-np.eye(3)[0], pricing_time_limit=0.0)
    assert res.certified and not res.proved_optimal and res.bound == np.inf
    assert res.max_regret <= 0 and _independent_regret(game, res) <= 0
    assert res.objective == 0  # every EFCE of 3-card Indian poker pays player 0 exactly 0


@pytest.mark.runtime
def test_the_map_stopped_at_its_time_limit_without_a_profile_is_a_stop_not_an_error():
    """HiGHS itself, given no time at all, ends the pricing integer program at its time limit
    before any incumbent: ``FactorMAP.solve`` returns the empty stop (no profile, unknown bound)
    instead of raising, and its LP relaxation's bound is then unknown (inf)."""
    model = make_model(indian_poker(3), np.ones(3))
    fm = FactorMAP(model)
    sol = fm.solve(time_limit=0.0)
    assert sol.stopped_empty and sol.profile is None and not sol.optimal and sol.bound == np.inf
    assert fm.relaxation_bound(time_limit=0.0) == np.inf


def test_stalled_cheap_rounds_hand_over_to_the_integer_program():
    """When the annealed chains' profiles stop moving the LP (``stall_rounds``, ``stall_gain``),
    the integer program prices instead. With every round stalled more of them run, and the
    optimum is the full LP's."""
    game = grid_game(2, 0)
    w = -np.eye(4)[0]
    full = solve_lp(profiles(compile_tree(game)), w).objective
    calls = {}
    for rounds, gain in ((10**9, 0.0), (0, 1e9)):  # never; every round
        cg = EFCEColumnGeneration(game, stall_rounds=rounds, stall_gain=gain)
        real, n = cg.pricer.solve, [0]

        def spy(*a, _real=real, _n=n, **kw):
            _n[0] += 1
            return _real(*a, **kw)

        cg.pricer.solve = spy
        res = cg.solve(w)
        assert res.certified and res.proved_optimal
        assert float(res.objective) == pytest.approx(full, abs=1e-7)
        calls[rounds] = n[0]
    assert calls[0] > calls[10**9]


@pytest.mark.runtime
def test_a_stopped_solve_brackets_the_optimum(monkeypatch):
    """At its time limit, column generation says what it knew: the restricted LP's value and weak
    duality's bound, between which the full LP's optimum must lie. The clock is one second per
    pricing integer program (and no real clock is involved), so the stop falls after each number
    of them in turn. Minimising the welfare takes column generation 6 integer programs (which
    of several equally good profiles HiGHS returns decides how many a game takes; minimising
    player 0's payoff took 4 with HiGHS 1.16), so several stops fall after a bound is known."""
    game = grid_game(2, 0)
    w = -np.ones(4)
    full = solve_lp(profiles(compile_tree(game)), w).objective
    clock = [0.0]

    def priced(real):
        def solve(**kw):
            # the fake second is all the integer program takes: HiGHS runs without a real limit
            clock[0] += 1.0
            return real(**{**kw, "time_limit": None})

        return solve

    monkeypatch.setattr(efcecolgen, "time", type("Clock", (), {"perf_counter": staticmethod(lambda: clock[0])}))
    bracketed = 0
    for k in range(1, 12):
        clock[0] = 0.0
        cg = EFCEColumnGeneration(game, heuristic=False)
        cg.pricer.solve = priced(cg.pricer.solve)
        try:
            res = cg.solve(w, time_limit=k - 0.5)
        except ColumnGenerationStopped as e:
            if e.lp_value is not None and e.upper_bound < np.inf:
                assert e.lp_value <= full + 1e-7 <= e.upper_bound + 2e-7
                bracketed += 1
            continue
        assert float(res.objective) == pytest.approx(full, abs=1e-7)
        assert float(res.objective) + res.bound >= full - 1e-7
    assert bracketed >= 2

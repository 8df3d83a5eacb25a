"""Seed 004's sampling algorithm (``efce.sampling``) against the exact maximum-entropy EFCE
(cvxpy, ``efce.exact``) and the best-welfare LP on the job market game, and its stopping rule on
random small games.

Tolerances. The algorithm estimates regrets from M sampled profiles, so its errors are of order
r_max / sqrt(M) (seed 004, eq. 6): with M = 1,000 and r_max = 10, about 0.3 for one estimate and
less on average. We evaluate the distribution it returns exactly (every full pure profile of the
job market game enumerated) and require its payoffs within 0.15 of the maximum-entropy EFCE's and
its largest causal-deviation regret below 0.2 (2% of r_max)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from efce.exact import max_entropy, solve_lp
from efce.games import job_market
from efce.regret import max_regret
from efce.sampling import exact_distribution, sample_efce
from efce.strategies import profiles
from seqform.games.explicit import TreeGame
from seqform.tree import compile_tree
from tests.strategies import random_trees


def test_maximum_entropy_job_market():
    g = job_market()
    res = sample_efce(g, None, target=2e-3, max_rounds=40, seed=0, sample_size=1000, max_reuse=5)
    q, prof = exact_distribution(g, res)
    exact = max_entropy(prof)
    pay = q @ prof.utility
    assert abs(pay[0] - float(exact.payoffs[0])) <= 0.15 and abs(pay[1] - float(exact.payoffs[1])) <= 0.15
    assert float(max_regret(prof, list(q)).regret) <= 0.2
    assert 1 <= res.rounds <= 40 and res.samples >= 1000 and res.seconds > 0 and res.peak_memory > 0


def test_welfare_weighted_job_market_is_the_best_welfare_efce():
    g = job_market()
    res = sample_efce(g, (1, 1), target=1e-3, max_rounds=50, seed=0, sample_size=300)
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
    res = sample_efce(g, None, target=0.02, max_rounds=300, seed=0, sample_size=200)
    from efce.sampling import regret_bound
    assert res.converged and res.max_regret <= 0.02 * max(regret_bound(g), 0) + 1e-12
    # the deviations it used are real causal deviations of the game: zero regret ones excepted,
    # each one's information set belongs to its player
    prof = profiles(compile_tree(g))
    keys = {(int(prof.tree.infoset_player[m]), prof.tree.infoset_key[m]) for m in range(len(prof.tree.infoset_player))}
    assert all((d.player, d.key) in keys for d in res.deviations)


def test_sampled_scenarios_run():
    """Chance sampled once (``scenarios=k``); ``test_efce_models`` checks the scenario weights."""
    from efce.games import indian_poker
    res = sample_efce(indian_poker(4), None, scenarios=30, max_rounds=3, seed=0, sample_size=20)
    assert res.rounds == 3 and len(res.payoffs) == 3 and res.scenarios == 30


def test_same_seed_same_run():
    from efce.games import indian_poker
    a = sample_efce(indian_poker(3), None, max_rounds=30, seed=5, sample_size=50)
    b = sample_efce(indian_poker(3), None, max_rounds=30, seed=5, sample_size=50)
    assert a.payoffs == b.payoffs and a.lam == b.lam and [h["regret"] for h in a.history] == [h["regret"] for h in b.history]

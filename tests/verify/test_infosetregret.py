"""Per-information-set regret and best responses against brute force over pure continuation
strategies (tests/oracle/infoset_regret.py: a recursion over the succinct game, sharing nothing
with the vectorised backward pass)."""

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import seqform
from seqform import compile_tree, games
from seqform.verify.exploitability import best_response, exploitability
from seqform.verify.infosetregret import infoset_regret
from tests.oracle import infoset_regret as oracle
from tests.strategies import random_behaviour_profile, random_games


def probs_fn(tree, profile):
    keys = {}
    for i in range(len(tree.infoset_player)):
        keys[(int(tree.infoset_player[i]), tree.infoset_key[i])] = i
    return lambda p, key: list(profile.action_probabilities(tree, keys[(p, key)]))


def check(game, seed, zeros):
    tree = compile_tree(game)
    prof = random_behaviour_profile(tree, np.random.default_rng(seed), zeros)
    fn = probs_fn(tree, prof)
    want = oracle.infoset_regrets(game, fn)
    got = infoset_regret(tree, prof)
    for i in range(len(tree.infoset_player)):
        w = want[(int(tree.infoset_player[i]), tree.infoset_key[i])]
        if w is None:
            assert not got.reached[i] and math.isnan(got.regret[i])
        else:
            assert got.reached[i]
            assert abs(got.regret[i] - w) <= 1e-9 * max(1.0, abs(w))
    for p in range(2):
        assert abs(best_response(tree, p, prof)[0] - oracle.best_response_value(game, p, fn)) <= 1e-9
    return got


@given(random_games(), st.integers(0, 2**31), st.booleans())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_games_match_brute_force(game, seed, zeros):
    check(game, seed, zeros)


def test_kuhn_matches_brute_force():
    for seed in range(3):
        check(games.kuhn(), seed, zeros=seed > 0)


def test_equilibrium_has_zero_regret_where_reached_and_plain_lp_is_not_refined():
    sol = seqform.solve(games.kuhn())
    r = infoset_regret(sol.tree, sol.profile)
    assert exploitability(sol.tree, sol.profile).nash_conv <= 1e-12
    # a Nash equilibrium can only have regret at information sets its own play makes unlikely;
    # on information sets reached with positive probability under the profile it has none
    reach = sol.profile.realization(sol.tree)
    for i in np.flatnonzero(r.reached):
        p = int(sol.tree.infoset_player[i])
        if reach[p][sol.tree.infoset_parent_seq[i]] > 1e-9:
            assert r.regret[i] <= 1e-9

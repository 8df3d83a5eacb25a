"""seqform.solve on random small games (hypothesis) against the brute-force oracle: the reduced
normal form, built by walking the game, solved as a matrix game (tests/oracle/brute_force.py)."""

from hypothesis import HealthCheck, given, settings

import seqform
from seqform.verify.exploitability import exploitability
from tests.oracle.brute_force import brute_force_value, brute_force_value_exact
from tests.strategies import random_games

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@given(random_games())
@SETTINGS
def test_value_equals_brute_force_and_is_certified(game):
    sol = seqform.solve(game)
    assert abs(sol.value_float - brute_force_value(game)) <= 1e-9
    assert sol.certified
    assert sol.value == brute_force_value_exact(game)
    assert sol.exploitability <= 1e-9
    # the exact strategies verify: best-response values meet at the value, recomputed in floats
    assert abs(float(sol.certificate.lower) - float(sol.certificate.upper)) == 0
    assert exploitability(sol.tree, sol.profile).nash_conv <= 2e-9


@given(random_games(max_depth=5, max_actions=3, max_nodes=60, max_pure_strategies=64))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_ipm_with_crossover_agrees(game):
    a = seqform.solve(game, method="ipm")
    assert a.certified and abs(a.value_float - brute_force_value(game)) <= 1e-7

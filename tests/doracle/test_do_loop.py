"""The double-oracle loop (``doracle.loop``): its exact value equals the certified sequence-form LP
value of the full game (``seqform.solve``, an independent computation), on poker, Goofspiel,
Flip-It and random games; its restricted games are valid games (they compile: perfect recall, and
every history continues or is a leaf, real or temporary) and smaller than the full game."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

import seqform
from doracle.loop import double_oracle
from doracle.restricted import RestrictedGame
from seqform.games.flipit import flipit
from seqform.model.tree import compile_tree
from tests.strategies import random_games


@pytest.mark.parametrize(
    "game",
    [
        seqform.games.kuhn(),
        pytest.param(seqform.games.leduc(), marks=pytest.mark.slow),  # the CLI test solves Leduc by double oracle
        seqform.games.goofspiel(4),
        flipit(2),
        flipit(3),
        flipit(3, observe="actions"),
    ],
    ids=lambda g: g.name,
)
def test_value_equals_the_full_lp(game):
    res = double_oracle(game)
    full = seqform.solve(game)
    assert res.converged and res.value == full.value and res.lower == res.upper
    assert res.history[-1]["restricted_nodes"] <= full.sizes["histories"]
    if game.name == flipit(3).name:
        # Flip-It's restricted game stays small (a tenth of the 15,685-node full game)
        assert res.history[-1]["restricted_nodes"] < 15_685 / 10
    # the same run's profile, extended by the default strategy, is an equilibrium of the full game
    # (test_do_restricted.test_the_profile_extends_to_an_equilibrium_of_the_full_game's check,
    # made here so that each game's double oracle runs once)
    check_profile_extends_to_an_equilibrium(game, res)


def check_profile_extends_to_an_equilibrium(game, res):
    from doracle.extend import extended_profile
    from seqform.verify.evaluate import evaluate

    tree = compile_tree(game)
    ev = evaluate(tree, extended_profile(tree, res.profile), exact=True)
    assert res.converged
    assert ev.values[0] == res.value
    assert ev.best_response_values[0] == res.value and ev.best_response_values[1] == -res.value


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games())
def test_random_games(game):
    res = double_oracle(game)
    assert res.converged and res.value == seqform.solve(game).value
    # bounds are monotone and bracket the value at every iteration
    for h in res.history:
        assert h["lower"] <= res.value <= h["upper"]


def test_restricted_game_with_temporary_leaves_is_a_valid_game():
    game = seqform.games.leduc()
    from doracle.loop import _default_sequences
    from doracle.oracle import best_response

    seqs = _default_sequences(game)
    br = best_response(game, 1, {})  # player 1's best response to player 0's default strategy
    seqs[1] |= br.sequences
    rg = RestrictedGame(game, seqs)
    tree = compile_tree(rg)  # raises on imperfect recall or malformed chance
    assert rg.temporary_leaves > 0 and tree.num_nodes < compile_tree(game).num_nodes


@pytest.mark.parametrize("game", [seqform.games.kuhn(), flipit(3), seqform.games.goofspiel(4)], ids=lambda g: g.name)
def test_alternating_mode_reaches_the_same_value(game):
    res = double_oracle(game, mode="alternating")
    assert res.converged and res.value == seqform.solve(game).value


@pytest.mark.runtime
def test_a_time_limit_returns_bounds_that_bracket_the_value():
    res = double_oracle(seqform.games.leduc(), time_limit=0.0)
    value = seqform.solve(seqform.games.leduc()).value
    assert not res.converged and res.iterations == 1 and res.value is None
    assert res.lower <= value <= res.upper


def test_without_restricted_certificates_the_bounds_stay_exact():
    game = seqform.games.leduc()
    value = seqform.solve(game).value
    res = double_oracle(game, exact_limit=0, tolerance=Fraction(1, 10**9))  # no restricted LP is certified
    assert res.converged and res.lower <= value <= res.upper and res.upper - res.lower <= Fraction(1, 10**9)

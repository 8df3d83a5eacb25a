"""Sequence form: E x = e for realization plans; x^T A y equals the expected payoff computed leaf
by leaf from the game itself; behaviour <-> realization round trips."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqform import UnsupportedGameError, compile_tree, games, sequence_form
from seqform.model.game import CHANCE, TERMINAL
from seqform.model.strategy import behaviour_from_realization, realization_plan
from seqform.verify.exploitability import expected_payoffs
from tests import smallgames
from tests.strategies import random_behaviour_profile


def walk_value(game, tree, profile):
    """Expected payoff of player 0 by recursion over the succinct game (independent of the arrays)."""
    keys = [{tree.infoset_key[i]: i for i in tree.player_infosets[p]} for p in range(2)]

    def rec(h):
        pl = game.player(h)
        if pl == TERMINAL:
            return float(game.utility(h)[0])
        if pl == CHANCE:
            return sum(float(pr) * rec(game.next(h, a)) for a, pr in enumerate(game.chance(h)))
        i = keys[pl][game.infoset(h)]
        probs = profile.action_probabilities(tree, i)
        return sum(pr * rec(game.next(h, a)) for a, pr in enumerate(probs) if pr > 0)

    return rec(game.root())


@given(st.integers(0, 10**6))
@settings(max_examples=10, deadline=None)
def test_payoff_matrix_matches_a_walk_of_the_game(seed):
    rng = np.random.default_rng(seed)
    g = games.kuhn() if seed % 2 else games.leduc()
    t = compile_tree(g)
    sf = sequence_form(t)
    prof = random_behaviour_profile(t, rng)
    x, y = prof.realization(t)
    assert np.allclose(sf.E @ x, sf.e, atol=1e-12) and np.allclose(sf.F @ y, sf.f, atol=1e-12)
    want = walk_value(g, t, prof)
    assert abs(sf.payoff(x, y) - want) <= 1e-10
    assert abs(expected_payoffs(t, prof)[0] - want) <= 1e-10


def test_behaviour_realization_round_trip_and_unreached_uniform():
    t = compile_tree(games.kuhn())
    prof = random_behaviour_profile(t, np.random.default_rng(0))
    for p in range(2):
        x = realization_plan(t, p, prof.behaviour[p])
        assert np.allclose(behaviour_from_realization(t, p, x), prof.behaviour[p])
        # make player p never take action 0 at its first information set: below it is unreached
        b = prof.behaviour[p].copy()
        i = t.player_infosets[p][0]
        f = t.infoset_first_seq[i]
        b[f], b[f + 1] = 0.0, 1.0
        x = realization_plan(t, p, b)
        back = behaviour_from_realization(t, p, x)
        below = [j for j in t.player_infosets[p] if t.infoset_parent_seq[j] == f]
        for j in below:
            fj, k = t.infoset_first_seq[j], t.infoset_num_actions[j]
            assert np.allclose(back[fj : fj + k], 1.0 / k)


def test_not_two_player_refused():
    with pytest.raises(UnsupportedGameError, match="not zero-sum"):
        sequence_form(compile_tree(smallgames.general_sum()))

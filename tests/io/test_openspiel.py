"""OpenSpiel interoperability: converted games against OpenSpiel's own sizes, LP values, NashConv and
exploitability, and policies in both directions (for converted trees and for the built-in games)."""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import cfr  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402

import seqform  # noqa: E402
import seqform.games  # noqa: E402
from seqform.errors import ChanceProbabilityError, GameError, StrategyError, UnsupportedGameError  # noqa: E402
from seqform.io.openspiel import (  # noqa: E402
    OpenSpielGame,
    _Node,
    from_openspiel_policy,
    infoset_map,
    openspiel_name,
    to_openspiel_policy,
    to_rational,
)
from seqform.model.strategy import Profile  # noqa: E402
from seqform.model.tree import compile_tree  # noqa: E402
from tests.oracle.peers import openspiel_lp_value, openspiel_sizes  # noqa: E402
from tests.strategies import random_behaviour_profile  # noqa: E402

LD = "liars_dice(numdice=1,dice_sides=3)"
# OpenSpiel game string, built-in seqform game, exact value for player 0 (None: not known in closed form)
GAMES = {
    "kuhn_poker": ("kuhn", Fraction(-1, 18)),
    "leduc_poker": ("leduc", None),
    LD: ("liars_dice(1,3)", Fraction(1, 9)),
}
GOOF = "goofspiel(num_cards=3,imp_info=True,points_order=random)"


# --- shared, cached work -------------------------------------------------------------------------


@functools.cache
def os_game(name):
    return pyspiel.load_game(name)


@functools.cache
def converted_tree(name):
    return compile_tree(seqform.from_openspiel(os_game(name)))


def builtin_game(name):
    spec = GAMES[name][0]
    base = spec.split("(")[0]
    if base not in seqform.games.REGISTRY:
        pytest.skip(f"built-in game {base!r} is not available yet")
    return seqform.games.load(spec)


@functools.cache
def _builtin_tree(name):
    return compile_tree(builtin_game(name))


def builtin_tree(name):
    builtin_game(name)  # skips when missing
    return _builtin_tree(name)


def tree_of(name, kind):
    return converted_tree(name) if kind == "converted" else builtin_tree(name)


@functools.cache
def solution(name, kind):
    return seqform.solve(tree_of(name, kind))


@functools.cache
def cfr_policies(name):
    """Average policies of OpenSpiel's Python CFR after 5 and 50 iterations."""
    solver = cfr.CFRSolver(os_game(name))
    out = {}
    for it in range(1, 51):
        solver.evaluate_and_update_policy()
        if it in (5, 50):
            out[it] = solver.average_policy()
    return out


class _Generic(os_policy.Policy):
    """Any non-tabular OpenSpiel policy: answers only ``action_probabilities(state)``."""

    def __init__(self, inner):
        super().__init__(inner.game, inner.player_ids)
        self.inner = inner

    def action_probabilities(self, state, player_id=None):
        return self.inner.action_probabilities(state, player_id)


def assert_profiles_close(a, b, tol):
    for x, y in zip(a.behaviour, b.behaviour):
        assert x.shape == y.shape
        assert np.max(np.abs(x - y)) <= tol


KINDS = ["converted", "builtin"]


# --- sizes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_sizes_match_openspiel_and_builtin(name):
    expect = openspiel_sizes(os_game(name))
    assert converted_tree(name).sizes() == expect
    assert builtin_tree(name).sizes() == expect


def test_infoset_keys_are_openspiel_information_states():
    for name in ("kuhn_poker", LD):
        tree = converted_tree(name)
        pol = os_policy.TabularPolicy(os_game(name))
        assert set(tree.infoset_key) == set(pol.state_lookup)
        # the built-in game maps onto the same information states, one to one
        m = infoset_map(builtin_tree(name), os_game(name))
        assert sorted(m.keys) == sorted(tree.infoset_key)


def test_accepts_game_strings_and_exact_numbers():
    g = seqform.from_openspiel("kuhn_poker")
    assert isinstance(g, OpenSpielGame) and g.infoset_kind == "information_state"
    tree = compile_tree(g)
    assert tree.sizes() == converted_tree("kuhn_poker").sizes()
    assert set(tree.terminal_chance_exact) == {Fraction(1, 6)}
    assert all(isinstance(x, Fraction) for u in tree.payoff_exact for x in u)
    # leduc deals 1/6 then 1/5 then 1/4: exact rationals, not the floats OpenSpiel gives
    leduc = converted_tree("leduc_poker")
    assert set(leduc.terminal_chance_exact) <= {Fraction(1, 30), Fraction(1, 120)}


# --- values --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_values_match_openspiel_lp_and_builtin(name):
    sol = solution(name, "converted")
    assert sol.certified
    known = GAMES[name][1]
    if known is not None:
        assert sol.value == known
    assert sol.value == solution(name, "builtin").value
    assert abs(float(sol.value) - openspiel_lp_value(os_game(name))) < 1e-6


# --- NashConv of OpenSpiel policies ---------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
# Leduc repeats on a larger game what Kuhn checks: the slow tier
@pytest.mark.parametrize("name", ["kuhn_poker", pytest.param("leduc_poker", marks=pytest.mark.slow)])
def test_nash_conv_of_openspiel_policies(name, kind):
    game, tree = os_game(name), tree_of(name, kind)
    uniform = os_policy.UniformRandomPolicy(game)
    ours = seqform.exploitability(tree, from_openspiel_policy(tree, uniform)).nash_conv
    assert abs(ours - os_exploitability.nash_conv(game, uniform)) < 1e-9
    for it, pol in cfr_policies(name).items():
        ours = seqform.exploitability(tree, from_openspiel_policy(tree, pol)).nash_conv
        theirs = os_exploitability.nash_conv(game, pol)
        assert abs(ours - theirs) < 1e-9, (it, ours, theirs)
        assert abs(ours - pyspiel.nash_conv(game, os_policy.python_policy_to_pyspiel_policy(pol))) < 1e-9


def test_cpp_policy():
    """A C++ pyspiel policy (no ``game`` attribute) is read through ``action_probabilities(state)``."""
    game, tree = os_game("kuhn_poker"), builtin_tree("kuhn_poker")
    solver = pyspiel.CFRSolver(game)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    pol = solver.average_policy()
    for t in (tree, converted_tree("kuhn_poker")):
        ours = seqform.exploitability(t, from_openspiel_policy(t, pol, game)).nash_conv
        assert abs(ours - pyspiel.nash_conv(game, pol)) < 1e-9


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", list(GAMES))
def test_equilibrium_is_unexploitable_in_openspiel(name, kind):
    tree, game = tree_of(name, kind), os_game(name)
    pol = to_openspiel_policy(tree, solution(name, kind).profile, game)
    assert isinstance(pol, os_policy.TabularPolicy)
    assert os_exploitability.exploitability(game, pol) < 1e-9


# --- round trips ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", list(GAMES))
def test_round_trip_profile_policy_profile(name, kind):
    tree = tree_of(name, kind)
    for prof in (solution(name, kind).profile, random_behaviour_profile(tree, np.random.default_rng(7))):
        pol = to_openspiel_policy(tree, prof, os_game(name))
        assert_profiles_close(from_openspiel_policy(tree, pol), prof, 1e-12)
        # the generic path (action_probabilities at representative states) agrees with the array path
        assert_profiles_close(from_openspiel_policy(tree, _Generic(pol)), prof, 1e-12)


def test_round_trip_policy_profile_policy():
    name = "kuhn_poker"
    pol = cfr_policies(name)[5]
    for kind in KINDS:
        tree = tree_of(name, kind)
        back = to_openspiel_policy(tree, from_openspiel_policy(tree, pol), os_game(name))
        assert back.state_lookup == pol.state_lookup
        assert np.max(np.abs(back.action_probability_array - pol.action_probability_array)) <= 1e-12


def test_default_game_of_builtin_trees():
    tree = builtin_tree("kuhn_poker")
    assert openspiel_name(tree) == "kuhn_poker"
    pol = to_openspiel_policy(tree, solution("kuhn_poker", "builtin").profile)  # game inferred
    assert os_exploitability.exploitability(os_game("kuhn_poker"), pol) < 1e-9


# --- simultaneous-move games ---------------------------------------------------------------------


def test_goofspiel_simultaneous():
    game = pyspiel.load_game(GOOF)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    g = seqform.from_openspiel(game)
    turn_based = pyspiel.convert_to_turn_based(game)
    assert g.name == str(turn_based)
    tree = compile_tree(g)
    assert tree.sizes() == openspiel_sizes(turn_based)
    sol = seqform.solve(tree)
    assert sol.certified
    assert abs(float(sol.value) - openspiel_lp_value(turn_based)) < 1e-6
    pol = to_openspiel_policy(tree, sol.profile)
    assert os_exploitability.exploitability(pol.game, pol) < 1e-9
    if "goofspiel" in seqform.games.REGISTRY:
        ours = compile_tree(seqform.games.load("goofspiel(3, points_order='random')"))
        assert ours.sizes() == tree.sizes()
        assert seqform.solve(ours).value == sol.value
        m = infoset_map(ours, game)  # the simultaneous game is made turn-based here too
        assert sorted(m.keys) == sorted(tree.infoset_key)


def test_matrix_game_simultaneous():
    # a one-shot simultaneous game with a non-zero value: 1/7
    game = pyspiel.create_matrix_game([[3, -1], [-2, 1]], [[-3, 1], [2, -1]])
    tree = compile_tree(seqform.from_openspiel(game))
    assert tree.num_infosets == (1, 1)  # player 1 does not see player 0's choice
    sol = seqform.solve(tree)
    assert sol.value == Fraction(1, 7)
    assert abs(float(sol.value) - openspiel_lp_value(pyspiel.convert_to_turn_based(game))) < 1e-6


# --- conversions and errors ----------------------------------------------------------------------


def test_to_rational():
    assert to_rational(1 / 3) == Fraction(1, 3)
    assert to_rational(0.1) == Fraction(1, 10)
    assert to_rational(-2.0) == -2
    assert to_rational(1 / 6 + 1 / 5) == Fraction(11, 30)
    assert to_rational(Fraction(2, 7)) == Fraction(2, 7)
    with pytest.raises(GameError, match="not within"):
        to_rational(math.pi, "probability of x", max_denominator=1000)
    with pytest.raises(GameError, match="finite"):
        to_rational(float("nan"))


class _FakeState:
    """Just enough of a pyspiel chance state for ``OpenSpielGame.chance``."""

    def __init__(self, outcomes):
        self._o = outcomes

    def chance_outcomes(self):
        return self._o

    def is_chance_node(self):
        return True

    def action_to_string(self, player, a):
        return f"outcome {a}"

    def history(self):
        return [4, 2]


def test_chance_probabilities_must_sum_to_one():
    g = seqform.from_openspiel("kuhn_poker")
    assert g.chance(_Node(_FakeState([(1, 0.5), (0, 0.25), (2, 0.25)]))) == [
        Fraction(1, 4),
        Fraction(1, 2),
        Fraction(1, 4),
    ]
    with pytest.raises(ChanceProbabilityError, match=r"history \[4, 2\]"):
        g.chance(_Node(_FakeState([(0, 0.5), (1, 0.3)])))
    with pytest.raises(GameError, match="outcome 1"):
        g.chance(_Node(_FakeState([(0, 0.5), (1, float("inf"))])))


def test_mismatched_trees_are_refused():
    with pytest.raises(GameError, match="does not match"):
        infoset_map(builtin_tree("kuhn_poker"), os_game("leduc_poker"))
    if "leduc" in seqform.games.REGISTRY:
        with pytest.raises(UnsupportedGameError):
            openspiel_name(seqform.games.load("leduc(ranks=4)"))


def test_bad_policies_are_refused():
    tree = converted_tree("kuhn_poker")
    prof = solution("kuhn_poker", "converted").profile
    bad = Profile([b.copy() for b in prof.behaviour])
    bad.behaviour[0][1:3] = [0.9, 0.9]
    with pytest.raises(StrategyError):
        to_openspiel_policy(tree, bad)
    pol = to_openspiel_policy(tree, prof)
    pol.action_probability_array[0] = [0.5, 0.2]
    with pytest.raises(StrategyError, match="not a distribution"):
        from_openspiel_policy(tree, pol)


@pytest.mark.parametrize(
    "name",
    ["first_sealed_auction(max_value=3)", "sheriff(num_rounds=1,max_bribe=2,max_items=2)", "trade_comm(num_items=2)"],
)
def test_general_sum_games_by_the_lcp_are_nash_in_openspiel(name):
    """General-sum OpenSpiel games: the sequence-form LCP's exact equilibrium (certified by our
    exact best responses) has NashConv 0 by OpenSpiel's own computation too."""
    game = pyspiel.load_game(name)
    tree = compile_tree(OpenSpielGame(game))
    assert tree.constant_sum is None
    sol = seqform.solve(tree)
    assert sol.method == "lcp" and sol.certified and sol.nash_conv == 0
    pol = to_openspiel_policy(tree, sol.profile, game)
    assert os_exploitability.nash_conv(game, pol) < 1e-9

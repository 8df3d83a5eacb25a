"""Strategy profiles as JSON and as pygambit behaviour profiles (``seqform.io.strategyjson``): round
trips (exact and float), the error messages, labels of the built-in games, and pygambit's exact
equilibria evaluated exactly by ``seqform.evaluate``."""

from __future__ import annotations

import io
import json
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import seqform
from seqform import compile_tree, games
from seqform.errors import StrategyError
from seqform.io.efgwrite import efg_string
from seqform.io.strategyjson import (
    from_pygambit_behavior,
    infoset_labels,
    profile_from_json,
    profile_to_json,
    read_profile,
    to_pygambit_behavior,
    write_profile,
)
from seqform.model.strategy import Profile, uniform
from seqform.verify.evaluate import evaluate, is_exact_profile
from tests.strategies import TreeGame, random_behaviour_profile, random_games
from tests.verify.test_evaluate import exact_behaviour, general_games, random_exact_profile

BUILTIN = [
    "kuhn",
    "leduc",
    "leduc(ranks=4)",
    "liars_dice(1,3)",
    "liars_dice(2,2)",
    "liars_dice(1,6)",
    "goofspiel(3)",
    "goofspiel(4)",
    "goofspiel(3, points_order='random')",
    "goofspiel(4, imp_info=False)",
    "goofspiel(3, returns='point_difference')",
]


def kuhn_tree():
    return compile_tree(games.kuhn())


def via_text(obj):
    return json.loads(json.dumps(obj))


# ----------------------------------------------------------------------------------------------
# the form, and round trips
# ----------------------------------------------------------------------------------------------


def test_documented_form():
    tree = kuhn_tree()
    sol = seqform.solve(tree)
    prof = Profile([exact_behaviour(tree, p, sol.exact_realization[p]) for p in range(2)])
    obj = profile_to_json(tree, prof)
    assert set(obj) == {"game", "players", "strategies"}
    assert obj["game"] == "kuhn" and obj["players"] == 2 and len(obj["strategies"]) == 2
    first = obj["strategies"][0]["infosets"][0]
    assert first["infoset"] == "J" and set(first["actions"]) == {"Pass", "Bet"}
    probs = [v for s in obj["strategies"] for e in s["infosets"] for v in e["actions"].values()]
    assert all(isinstance(v, str) for v in probs) and "1/3" in probs
    fobj = profile_to_json(tree, uniform(tree))
    assert all(v == 0.5 for s in fobj["strategies"] for e in s["infosets"] for v in e["actions"].values())
    # exact=True writes floats at their binary value (halves stay halves)
    half = profile_to_json(tree, uniform(tree), exact=True)
    assert half["strategies"][1]["infosets"][0]["actions"] == {"Pass": "1/2", "Bet": "1/2"}
    assert profile_from_json(tree, half).behaviour == [[Fraction(1)] + [Fraction(1, 2)] * 12] * 2


@pytest.mark.parametrize("name", ["kuhn", "leduc", "liars_dice(1,3)", "goofspiel(3, points_order='random')"])
def test_round_trips(name):
    tree = compile_tree(games.load(name))
    exact = random_exact_profile(tree, random.Random(1))
    back = profile_from_json(tree, via_text(profile_to_json(tree, exact)))
    assert is_exact_profile(back) and back.behaviour == exact.behaviour
    assert all(type(v) is Fraction for b in back.behaviour for v in b)
    fl = random_behaviour_profile(tree, np.random.default_rng(2))
    fback = profile_from_json(tree, via_text(profile_to_json(tree, fl)))
    assert not is_exact_profile(fback)
    for a, b in zip(fback.behaviour, fl.behaviour):
        assert a.dtype == np.float64 and np.array_equal(a, b)  # JSON numbers round-trip floats exactly
    # exact=False writes an exact profile as floats
    as_float = profile_from_json(tree, via_text(profile_to_json(tree, exact, exact=False)))
    assert all(np.array_equal(a, np.array([float(v) for v in b])) for a, b in zip(as_float.behaviour, exact.behaviour))


def test_exact_true_with_inexact_binary_sums_is_refused_on_reading():
    """Thirds written at their binary value do not sum to exactly 1: the reader says so."""
    tree = compile_tree(games.load("liars_dice(1,3)"))
    obj = profile_to_json(tree, uniform(tree), exact=True)
    with pytest.raises(StrategyError, match="sum to .*not exactly 1"):
        profile_from_json(tree, obj)


def test_files(tmp_path):
    tree = kuhn_tree()
    prof = random_exact_profile(tree, random.Random(5))
    path = tmp_path / "s.json"
    write_profile(tree, prof, path)
    assert read_profile(tree, path).behaviour == prof.behaviour
    buf = io.StringIO()
    write_profile(tree, uniform(tree), buf)
    buf.seek(0)
    assert np.array_equal(read_profile(tree, buf).behaviour[1], uniform(tree).behaviour[1])
    path.write_text('{"game": "kuhn", "strategies": [')
    with pytest.raises(StrategyError, match=r"s.json is not valid JSON: .* line 1, column"):
        read_profile(tree, path)


def test_solve_output_is_readable():
    tree = kuhn_tree()
    sol = seqform.solve(tree)
    prof = profile_from_json(tree, via_text(sol.to_json(strategy=True)))
    assert prof.behaviour == [exact_behaviour(tree, p, sol.exact_realization[p]) for p in range(2)]
    assert evaluate(tree, prof).nash_conv == 0


@pytest.mark.parametrize("name", BUILTIN)
def test_builtin_labels_are_unique(name):
    tree = compile_tree(games.load(name))
    for p in range(tree.num_players):
        labels = infoset_labels(tree, p)
        assert len(set(labels)) == len(labels) == len(tree.player_infosets[p])
    for acts in tree.infoset_actions:
        assert len(set(acts)) == len(acts)


@given(random_games(), st.integers(0, 2**31))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_games_round_trip(game, seed):
    tree = compile_tree(game)
    prof = random_exact_profile(tree, random.Random(seed))
    assert profile_from_json(tree, via_text(profile_to_json(tree, prof))).behaviour == prof.behaviour


# ----------------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------------


def kuhn_obj(exact=True):
    tree = kuhn_tree()
    prof = random_exact_profile(tree, random.Random(0), zeros=False)
    return tree, via_text(
        profile_to_json(tree, prof if exact else Profile([np.array([float(v) for v in b]) for b in prof.behaviour]))
    )


def test_unknown_information_set():
    tree, obj = kuhn_obj()
    obj["strategies"][0]["infosets"][1]["infoset"] = "(0, 'pbx')"
    with pytest.raises(
        StrategyError,
        match=r"player 0 of kuhn has no information set \"\(0, 'pbx'\)\"; "
        r"did you mean \"\(0, 'pb'\)\"",
    ):
        profile_from_json(tree, obj)


def test_missing_information_set():
    tree, obj = kuhn_obj()
    del obj["strategies"][1]["infosets"][2]
    with pytest.raises(
        StrategyError,
        match=r"player 1's strategy leaves out 1 information set\(s\) of kuhn: "
        r"'K \| p' \(pass missing=\"uniform\"",
    ):
        profile_from_json(tree, obj)
    prof = profile_from_json(tree, obj, missing="uniform")
    i = int(tree.player_infosets[1][2])
    assert list(prof.action_probabilities(tree, i)) == [Fraction(1, 2)] * 2
    with pytest.raises(ValueError):
        profile_from_json(tree, obj, missing="zero")


def test_unknown_action_and_omitted_action():
    tree, obj = kuhn_obj()
    acts = obj["strategies"][0]["infosets"][0]["actions"]
    acts["Raise"] = acts.pop("Bet")
    with pytest.raises(
        StrategyError,
        match=r"player 0 information set 'J' of kuhn has no action "
        r"'Raise'; its actions are \['Pass', 'Bet'\]",
    ):
        profile_from_json(tree, obj)
    obj["strategies"][0]["infosets"][0]["actions"] = {"Bet": "1"}  # an action left out has probability 0
    prof = profile_from_json(tree, obj)
    assert prof.behaviour[0][1:3] == [0, 1]


def test_sums_exact_and_float():
    tree, obj = kuhn_obj()
    obj["strategies"][1]["infosets"][3]["actions"] = {"Pass": "1/3", "Bet": "1/2"}
    with pytest.raises(
        StrategyError,
        match=r"player 1 information set 'K \| b' of kuhn: probabilities "
        r"\{'Pass': '1/3', 'Bet': '1/2'\} sum to 5/6, not exactly 1",
    ):
        profile_from_json(tree, obj)
    tree, fobj = kuhn_obj(exact=False)
    fobj["strategies"][0]["infosets"][5]["actions"] = {"Pass": 0.5, "Bet": 0.5 + 1e-6}
    with pytest.raises(StrategyError, match=r"'K \| pb' of kuhn: probabilities .* not within 1e-09 1"):
        profile_from_json(tree, fobj)
    fobj["strategies"][0]["infosets"][5]["actions"] = {"Pass": 0.5, "Bet": 0.5 + 1e-12}
    assert not is_exact_profile(profile_from_json(tree, fobj))  # within tolerance
    # a single JSON float makes the whole profile float, and then tolerance applies
    obj["strategies"][1]["infosets"][3]["actions"] = {"Pass": 0.25, "Bet": "3/4"}
    assert not is_exact_profile(profile_from_json(tree, obj))


@pytest.mark.parametrize(
    "value, message",
    [
        ("-1/2", "negative probability"),
        (-0.5, "negative probability"),
        ("a third", "is not a rational number"),
        ("1/0", "is not a rational number"),
        (True, "is not a number"),
        (None, "is not a number"),
        ([1], "is not a number"),
        (float("nan"), "is not finite"),
    ],
)
def test_bad_probabilities(value, message):
    tree, obj = kuhn_obj()
    obj["strategies"][0]["infosets"][2]["actions"]["Pass"] = value
    with pytest.raises(StrategyError, match=r"player 0 information set 'Q' of kuhn.*" + message):
        profile_from_json(tree, obj)


def test_shape_errors():
    tree, obj = kuhn_obj()
    with pytest.raises(StrategyError, match="for game 'leduc', not 'kuhn'"):
        profile_from_json(tree, {**obj, "game": "leduc"})
    profile_from_json(tree, {**obj, "game": "leduc"}, check_game=False)
    with pytest.raises(StrategyError, match='"players": 3; kuhn has 2 players'):
        profile_from_json(tree, {**obj, "players": 3})
    with pytest.raises(StrategyError, match="list of 2 entries .* got 1 entry"):
        profile_from_json(tree, {**obj, "strategies": obj["strategies"][:1]})
    with pytest.raises(StrategyError, match='no "strategies" member'):
        profile_from_json(tree, {"game": "kuhn"})
    with pytest.raises(StrategyError, match="must be a JSON object"):
        profile_from_json(tree, [1, 2])
    dup = via_text(obj)
    dup["strategies"][0]["infosets"].append(dup["strategies"][0]["infosets"][0])
    with pytest.raises(StrategyError, match=r"player 0 information set 'J' of kuhn appears twice"):
        profile_from_json(tree, dup)
    bad = via_text(obj)
    bad["strategies"][0]["infosets"][0] = {"infoset": "(0, '')"}
    with pytest.raises(StrategyError, match="each information set entry must be"):
        profile_from_json(tree, bad)


def test_duplicate_labels_are_refused():
    # keys 1 and "1" of the same player print the same; two actions named "x" cannot be told apart
    game = TreeGame(
        (
            "decision",
            0,
            1,
            ("a", "b"),
            (
                ("decision", 0, "1", ("c", "d"), (("leaf", (1, -1)), ("leaf", (0, 0)))),
                ("decision", 1, 1, ("x", "x"), (("leaf", (2, -2)), ("leaf", (3, -3)))),
            ),
        ),
        name="dups",
    )
    tree = compile_tree(game)
    prof = uniform(tree)
    with pytest.raises(
        StrategyError,
        match=r"player 0 of dups has 1 information-set label\(s\) shared by several "
        r"information sets.*'1' \(keys 1, '1'\)",
    ):
        profile_to_json(tree, prof)
    with pytest.raises(StrategyError, match="player 0 of dups has 1 information-set label"):
        profile_from_json(tree, {"strategies": [{"infosets": []}, {"infosets": []}]})
    same = compile_tree(TreeGame(("decision", 1, "Y", ("x", "x"), (("leaf", (2, -2)), ("leaf", (3, -3)))), name="same"))
    with pytest.raises(StrategyError, match=r"player 1 information set 'Y' of same has repeated action labels \['x'\]"):
        profile_to_json(same, uniform(same))


def test_profile_shape_errors_on_writing():
    tree = kuhn_tree()
    with pytest.raises(StrategyError, match="1 players; kuhn has 2"):
        profile_to_json(tree, Profile(uniform(tree).behaviour[:1]))
    with pytest.raises(StrategyError, match="player 1's strategy has 3 entries"):
        profile_to_json(tree, Profile([uniform(tree).behaviour[0], np.ones(3)]))


# ----------------------------------------------------------------------------------------------
# pygambit
# ----------------------------------------------------------------------------------------------


def gambit_game(tree):
    gbt = pytest.importorskip("pygambit")
    return gbt.read_efg(io.StringIO(efg_string(tree)))


def test_pygambit_exact_equilibrium_of_kuhn_is_exactly_unexploitable():
    gbt = pytest.importorskip("pygambit")
    tree = kuhn_tree()
    g = gambit_game(tree)
    eq = gbt.nash.lp_solve(g, rational=True).equilibria[0]
    prof = from_pygambit_behavior(tree, eq)
    assert is_exact_profile(prof)
    ev = evaluate(tree, prof)
    assert ev.exact and ev.nash_conv == 0 and ev.exploitability == 0
    assert ev.values == [Fraction(-1, 18), Fraction(1, 18)]
    assert ev.max_regret == 0


@pytest.mark.parametrize("name", ["kuhn", "liars_dice(1,3)", "goofspiel(3, points_order='random')"])
def test_pygambit_round_trips(name):
    tree = compile_tree(games.load(name))
    g = gambit_game(tree)
    prof = random_exact_profile(tree, random.Random(11))
    gp = to_pygambit_behavior(tree, prof, g)
    assert type(gp).__name__ == "MixedBehaviorProfileRational"
    ev = evaluate(tree, prof)
    for p, player in enumerate(g.players):
        assert Fraction(gp.payoff(player)) == ev.values[p]
    back = from_pygambit_behavior(tree, gp)
    assert back.behaviour == prof.behaviour and all(type(v) is Fraction for b in back.behaviour for v in b)
    fl = random_behaviour_profile(tree, np.random.default_rng(4))
    gf = to_pygambit_behavior(tree, fl, g)
    assert type(gf).__name__ == "MixedBehaviorProfileDouble"
    fb = from_pygambit_behavior(tree, gf)
    assert all(np.array_equal(a, b) for a, b in zip(fb.behaviour, fl.behaviour))
    fev = evaluate(tree, fl)
    for p, player in enumerate(g.players):
        assert abs(gf.payoff(player) - fev.values[p]) < 1e-9


@given(general_games(players=3), st.integers(0, 2**31))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_pygambit_three_player_payoffs(game, seed):
    tree = compile_tree(game)
    g = gambit_game(tree)
    prof = random_exact_profile(tree, random.Random(seed))
    gp = to_pygambit_behavior(tree, prof, g)
    ev = evaluate(tree, prof)
    for p, player in enumerate(g.players):
        assert Fraction(gp.payoff(player)) == ev.values[p]
    assert from_pygambit_behavior(tree, gp).behaviour == prof.behaviour


@given(random_games())
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_pygambit_lp_equilibria_of_random_games(game):
    gbt = pytest.importorskip("pygambit")
    tree = compile_tree(game)
    eq = gbt.nash.lp_solve(gambit_game(tree), rational=True).equilibria[0]
    ev = evaluate(tree, from_pygambit_behavior(tree, eq, undefined="normalize"))
    assert ev.nash_conv == 0
    sol = seqform.solve(tree)
    assert sol.certified and ev.values[0] == sol.value


def test_pygambit_undefined_information_sets():
    """pygambit's lp_solve leaves the root information set of this all-zero game undefined (0, 0);
    here the profile is made so by hand."""
    pytest.importorskip("pygambit")
    z = ("leaf", (0, 0))
    tree = compile_tree(
        TreeGame(
            (
                "decision",
                0,
                "P0",
                ("L", "R"),
                (("decision", 0, "P1", ("L", "R"), (z, z)), ("decision", 0, "P2", ("L", "R"), (z, z))),
            ),
            name="zeros",
        )
    )
    g = gambit_game(tree)
    prof = g.mixed_behavior_profile(rational=True)
    first = list(list(g.players)[0].infosets)[0]
    for a in first.actions:
        prof[a] = 0
    message = (
        r"the pygambit profile at player 0 information set 'P0' \(Gambit 'P0'\) is not a distribution: "
        r"\{'L': '0', 'R': '%s'\} \(sum %s\); pass undefined=\"uniform\" or \"normalize\""
    )
    with pytest.raises(StrategyError, match=message % ("0", "0")):
        from_pygambit_behavior(tree, prof)
    for how in ("uniform", "normalize"):
        assert from_pygambit_behavior(tree, prof, undefined=how).behaviour[0][1:3] == [Fraction(1, 2)] * 2
    prof[list(first.actions)[1]] = Fraction(1, 3)
    with pytest.raises(StrategyError, match=message % ("1/3", "1/3")):
        from_pygambit_behavior(tree, prof)
    assert from_pygambit_behavior(tree, prof, undefined="uniform").behaviour[0][1:3] == [Fraction(1, 2)] * 2
    assert from_pygambit_behavior(tree, prof, undefined="normalize").behaviour[0][1:3] == [0, 1]
    prof[list(first.actions)[0]] = Fraction(-1, 3)
    with pytest.raises(StrategyError, match="negative probability"):
        from_pygambit_behavior(tree, prof, undefined="normalize")
    with pytest.raises(ValueError):
        from_pygambit_behavior(tree, prof, undefined="zero")


def test_pygambit_game_of_another_tree_is_refused():
    with pytest.raises(StrategyError, match="was it written by seqform.io.efgwrite"):
        to_pygambit_behavior(
            compile_tree(games.load("liars_dice(1,3)")), uniform(kuhn_tree()), gambit_game(kuhn_tree())
        )
    kt = kuhn_tree()
    lt = compile_tree(games.load("goofspiel(3)"))
    with pytest.raises(StrategyError, match="was it written by seqform.io.efgwrite|has .* actions"):
        from_pygambit_behavior(lt, gambit_game(kt).mixed_behavior_profile(rational=True))

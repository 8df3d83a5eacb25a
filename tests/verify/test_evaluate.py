"""Exact evaluation of strategy profiles (``seqform.evaluate``): values, best responses, NashConv,
exploitability and per-information-set regret (Kroer, Farina & Sandholm 2017, section 4), for any number of players.

Checked three ways on random games and random rational profiles: against the float code
(``seqform.verify.exploitability`` / ``seqform.verify.infosetregret``, within 1e-9), against the two-player brute force
of ``tests/oracle/infoset_regret.py`` (within 1e-9), and, for three-player general-sum games,
*exactly* against a brute force in Fractions written here (recursion over the succinct game and
enumeration of pure continuation strategies; nothing shared with the backward pass)."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import seqform
from seqform import compile_tree, games
from seqform.errors import StrategyError
from seqform.exact.rationals import fmpq_of, fraction_of
from seqform.model.game import CHANCE, TERMINAL
from seqform.model.strategy import Profile, realization_plan_exact, uniform
from seqform.verify.evaluate import Evaluation, evaluate, exact_profile, exact_sequence_payoffs, is_exact_profile
from tests.oracle import infoset_regret as oracle
from tests.strategies import CHANCE_NODE, DECISION, LEAF, TreeGame, random_trees

# ----------------------------------------------------------------------------------------------
# helpers: random games with general-sum payoffs and up to three players, random exact profiles
# ----------------------------------------------------------------------------------------------


class TreeGame3(TreeGame):
    num_players = 3


def _reshape(tree: tuple, rng: random.Random, players: int, moved: set) -> tuple:
    """General-sum payoffs for ``players`` players; player 1's information sets in ``moved``
    become player 2's (moving whole information sets keeps perfect recall)."""
    kind = tree[0]
    if kind == LEAF:
        return (LEAF, tuple(Fraction(rng.randint(-6, 6), rng.choice([1, 1, 2, 3])) for _ in range(players)))
    if kind == CHANCE_NODE:
        return tree[:3] + (tuple(_reshape(c, rng, players, moved) for c in tree[3]),)
    _, p, key, labels, kids = tree
    if p == 1 and key in moved:
        p = 2
    return (DECISION, p, key, labels, tuple(_reshape(c, rng, players, moved) for c in kids))


def _player1_keys(tree: tuple, out: set) -> set:
    if tree[0] == DECISION and tree[1] == 1:
        out.add(tree[2])
    if tree[0] != LEAF:
        for c in tree[3] if tree[0] == CHANCE_NODE else tree[4]:
            _player1_keys(c, out)
    return out


@st.composite
def general_games(draw, players: int = 2):
    tree = draw(random_trees(max_nodes=36))
    rng = random.Random(draw(st.integers(0, 2**31)))
    keys = sorted(_player1_keys(tree, set()), key=repr)
    moved = {k for k in keys if players == 3 and rng.random() < 0.5}
    new = _reshape(tree, rng, players, moved)
    return (TreeGame3 if players == 3 else TreeGame)(new, f"general{players}")


def random_exact_profile(tree, rng: random.Random, zeros: bool = True) -> Profile:
    """Rational behaviour at every information set; sometimes pure (so parts go unreached)."""
    out = []
    for p in range(tree.num_players):
        b = [Fraction(1)] * tree.num_sequences[p]
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            if zeros and k > 1 and rng.random() < 0.35:
                w = [0] * k
                w[rng.randrange(k)] = 1
            else:
                w = [rng.randint(0, 4) for _ in range(k)]
                if not any(w):
                    w[0] = 1
            s = sum(w)
            b[f : f + k] = [Fraction(x, s) for x in w]
        out.append(b)
    return Profile(out)


def _keyed(tree, profile):
    """probs(player, key) -> list of the profile's probabilities (for the brute forces)."""
    idx = {(int(tree.infoset_player[i]), tree.infoset_key[i]): i for i in range(len(tree.infoset_player))}
    return lambda p, key: list(profile.action_probabilities(tree, idx[(p, key)]))


def assert_close_to_float(tree, ex: Evaluation, fl: Evaluation):
    tol = 1e-9
    for a, b in zip(ex.values + ex.best_response_values, fl.values + fl.best_response_values):
        assert abs(float(a) - b) <= tol * max(1.0, abs(b))
    assert abs(float(ex.nash_conv) - fl.nash_conv) <= tol
    assert abs(float(ex.exploitability) - fl.exploitability) <= tol
    assert abs(float(ex.max_regret) - fl.max_regret) <= tol
    assert ex.reached == fl.reached
    for a, b in zip(ex.infoset_regret, fl.infoset_regret):
        if a is None:
            assert math.isnan(b)
        else:
            assert abs(float(a) - b) <= tol * max(1.0, abs(b))


def assert_exact_types(ev: Evaluation):
    assert ev.exact
    for v in [*ev.values, *ev.best_response_values, ev.nash_conv, ev.exploitability, ev.max_regret]:
        assert type(v) is Fraction
    assert all(r is None or type(r) is Fraction for r in ev.infoset_regret)


# ----------------------------------------------------------------------------------------------
# an exact brute force for any number of players (test code only)
# ----------------------------------------------------------------------------------------------


def bf_value(game, h, p, probs, pure):
    """Player p's exact expected utility below h: p plays ``pure`` (key -> action) where it has
    an entry, everyone else (and p elsewhere) plays ``probs``."""
    pl = game.player(h)
    if pl == TERMINAL:
        return Fraction(game.utility(h)[p])
    if pl == CHANCE:
        return sum(
            (Fraction(q) * bf_value(game, game.next(h, a), p, probs, pure) for a, q in enumerate(game.chance(h)) if q),
            Fraction(0),
        )
    key = game.infoset(h)
    if pl == p and key in pure:
        return bf_value(game, game.next(h, pure[key]), p, probs, pure)
    return sum(
        (q * bf_value(game, game.next(h, a), p, probs, pure) for a, q in enumerate(probs(pl, key)) if q), Fraction(0)
    )


def bf_own_infosets(game, h, p, out):
    pl = game.player(h)
    if pl == TERMINAL:
        return out
    if pl == p:
        out[game.infoset(h)] = len(game.actions(h))
    for a in range(len(game.actions(h))):
        bf_own_infosets(game, game.next(h, a), p, out)
    return out


def bf_best(game, members, p, probs):
    """max over pure continuations of sum over (h, w) of w * value(h)."""
    below: dict = {}
    for h, _ in members:
        bf_own_infosets(game, h, p, below)
    names = list(below)
    return max(
        sum((w * bf_value(game, h, p, probs, dict(zip(names, c))) for h, w in members), Fraction(0))
        for c in itertools.product(*[range(below[k]) for k in names])
    )


def bf_evaluate(game, probs):
    """(values, best-response values, {(player, key): regret or None}) exactly, by brute force."""
    N = game.num_players
    groups: dict = {}

    def rec(h, reach):
        pl = game.player(h)
        if pl == TERMINAL:
            return
        if pl == CHANCE:
            for a, q in enumerate(game.chance(h)):
                rec(game.next(h, a), [r * Fraction(q) for r in reach])
            return
        key = game.infoset(h)
        groups.setdefault((pl, key), []).append((h, reach[pl]))
        for a, q in enumerate(probs(pl, key)):
            rec(game.next(h, a), [r * (q if i != pl else 1) for i, r in enumerate(reach)])

    rec(game.root(), [Fraction(1)] * N)
    root = game.root()
    values = [bf_value(game, root, p, probs, {}) for p in range(N)]
    brv = [bf_best(game, [(root, Fraction(1))], p, probs) for p in range(N)]
    regrets = {}
    for (pl, key), members in groups.items():
        W = sum((w for _, w in members), Fraction(0))
        if W == 0:
            regrets[(pl, key)] = None
            continue
        cur = sum((w * bf_value(game, h, pl, probs, {}) for h, w in members), Fraction(0))
        regrets[(pl, key)] = (bf_best(game, members, pl, probs) - cur) / W
    return values, brv, regrets


# ----------------------------------------------------------------------------------------------
# random games
# ----------------------------------------------------------------------------------------------


@given(general_games(players=2), st.integers(0, 2**31), st.booleans())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_two_players_match_float_code_and_oracle(game, seed, zero_sum):
    if zero_sum:  # the drawn game with u1 = -u0
        game = TreeGame(_zero_sum(game.tree), "zero-sum")
    tree = compile_tree(game)
    prof = random_exact_profile(tree, random.Random(seed))
    ex = evaluate(tree, prof)
    assert_exact_types(ex)
    fl = evaluate(tree, prof, exact=False)
    assert not fl.exact
    assert_close_to_float(tree, ex, fl)
    # the two-player brute force of tests/oracle (floats)
    fprobs = _keyed(tree, Profile([np.array([float(v) for v in b]) for b in prof.behaviour]))
    want = oracle.infoset_regrets(game, fprobs)
    for i in range(len(tree.infoset_player)):
        w = want[(int(tree.infoset_player[i]), tree.infoset_key[i])]
        got = ex.infoset_regret[i]
        if w is None:
            assert got is None and not ex.reached[i]
        else:
            assert ex.reached[i] and abs(float(got) - w) <= 1e-9 * max(1.0, abs(w))
    for p in range(2):
        assert abs(float(ex.best_response_values[p]) - oracle.best_response_value(game, p, fprobs)) <= 1e-9
    # exactly, against the exact brute force of this file (a recursion over the game)
    values, brv, _ = bf_evaluate(game, _keyed(tree, prof))
    assert list(ex.values) == values and list(ex.best_response_values) == brv
    plans = [[fmpq_of(v) for v in realization_plan_exact(tree, p, b)] for p, b in enumerate(prof.behaviour)]
    g = exact_sequence_payoffs(tree, plans)
    for p in range(2):
        # own value = x_p . g_p
        assert fraction_of(sum((x * y for x, y in zip(plans[p], g[p])), fmpq_of(0))) == ex.values[p]
    assert ex.nash_conv == sum(ex.gains) and ex.exploitability == ex.nash_conv / 2
    assert all(gain >= 0 for gain in ex.gains)


def _zero_sum(tree):
    if tree[0] == LEAF:
        return (LEAF, (tree[1][0], -tree[1][0]))
    kids = tree[3] if tree[0] == CHANCE_NODE else tree[4]
    return tree[:-1] + (tuple(_zero_sum(c) for c in kids),)


@given(general_games(players=3), st.integers(0, 2**31))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_three_players_general_sum_exactly_match_brute_force(game, seed):
    tree = compile_tree(game)
    assert tree.num_players == 3
    prof = random_exact_profile(tree, random.Random(seed))
    ex = evaluate(tree, prof)
    assert_exact_types(ex)
    values, brv, regrets = bf_evaluate(game, _keyed(tree, prof))
    assert ex.values == values
    assert ex.best_response_values == brv
    for i in range(len(tree.infoset_player)):
        assert ex.infoset_regret[i] == regrets[(int(tree.infoset_player[i]), tree.infoset_key[i])]
    assert ex.nash_conv == sum(b - v for b, v in zip(brv, values))
    assert ex.exploitability == ex.nash_conv / 3
    reached = [r for r in ex.infoset_regret if r is not None]
    assert ex.max_regret == (max(reached) if reached else 0)
    if reached:
        assert ex.infoset_regret[ex.max_regret_infoset] == ex.max_regret
    assert_close_to_float(tree, ex, evaluate(tree, prof, exact=False))


# ----------------------------------------------------------------------------------------------
# built-in games and equilibria
# ----------------------------------------------------------------------------------------------


def exact_behaviour(tree, p, x):
    """Exact behaviour of an exact realization plan (uniform where the plan does not reach)."""
    b = [Fraction(1)] * tree.num_sequences[p]
    for i in tree.player_infosets[p].tolist():
        f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
        px = x[int(tree.infoset_parent_seq[i])]
        b[f : f + k] = [x[f + j] / px if px else Fraction(1, k) for j in range(k)]
    return b


def test_certified_kuhn_equilibrium_has_exactly_zero_regret():
    tree = compile_tree(games.kuhn())
    sol = seqform.solve(tree)
    assert sol.certified
    prof = Profile([exact_behaviour(tree, p, sol.exact_realization[p]) for p in range(2)])
    ev = evaluate(tree, prof)
    assert_exact_types(ev)
    assert ev.values == [Fraction(-1, 18), Fraction(1, 18)]
    assert ev.best_response_values == ev.values
    assert ev.nash_conv == 0 and ev.exploitability == 0
    # which information sets an equilibrium reaches depends on the vertex HiGHS returns; what every
    # profile shares: chance deals every card, so player 0's first decisions are all reached
    first = [i for i in range(len(ev.reached)) if tree.infoset_player[i] == 0 and tree.infoset_parent_seq[i] == 0]
    assert len(first) == 3 and all(ev.reached[k] for k in first)
    # a Nash equilibrium has zero regret wherever it is played: at every information set that chance,
    # the opponent AND the owner's own plan reach (off its own path, e.g. a king facing a bet after
    # the king was always bet, a Nash equilibrium may play anything: that is what refinements fix)
    for i, (r, reg) in enumerate(zip(ev.reached, ev.infoset_regret)):
        p = int(tree.infoset_player[i])
        own = sol.exact_realization[p][int(tree.infoset_parent_seq[i])]
        assert (reg is None) == (not r)
        if r and own > 0:
            assert reg == 0, (tree.infoset_key[i], reg)


@pytest.mark.parametrize("name", ["kuhn", "leduc", "liars_dice(1,3)", "goofspiel(3)"])
def test_builtin_games_exact_against_float(name):
    tree = compile_tree(games.load(name))
    prof = random_exact_profile(tree, random.Random(7))
    ex = evaluate(tree, prof)
    assert_close_to_float(tree, ex, evaluate(tree, prof, exact=False))
    # zero-sum: the two values cancel exactly
    assert ex.values[0] + ex.values[1] == tree.constant_sum


def test_three_player_kuhn_against_openspiel():
    """OpenSpiel's own NashConv of a three-player game (an independent implementation)."""
    pytest.importorskip("pyspiel")
    import pyspiel
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from seqform.io.openspiel import to_openspiel_policy

    game = pyspiel.load_game("kuhn_poker(players=3)")
    tree = compile_tree(seqform.from_openspiel(game))
    assert tree.num_players == 3
    prof = random_exact_profile(tree, random.Random(3), zeros=False)
    ex = evaluate(tree, prof)
    fl = evaluate(tree, prof, exact=False)
    assert_close_to_float(tree, ex, fl)
    pol = to_openspiel_policy(tree, Profile([np.array([float(v) for v in b]) for b in prof.behaviour]), game)
    assert abs(float(ex.nash_conv) - os_exploitability.nash_conv(game, pol)) < 1e-9
    assert sum(ex.values) == 0


# ----------------------------------------------------------------------------------------------
# arithmetic choice, inputs and errors
# ----------------------------------------------------------------------------------------------


def test_exactness_is_decided_by_the_profile():
    tree = compile_tree(games.kuhn())
    fl = uniform(tree)
    assert not is_exact_profile(fl)
    ev = evaluate(tree, fl)
    assert not ev.exact and isinstance(ev.nash_conv, float)
    ex = exact_profile(tree, fl)  # 0.5 is exact in binary: no renormalisation
    assert is_exact_profile(ex)
    assert all(v == Fraction(1, 2) for b in ex.behaviour for v in b[1:])
    e2 = evaluate(tree, ex)
    assert e2.exact and e2.nash_conv == Fraction(11, 12) and e2.renormalised == []
    assert evaluate(tree, fl, exact=True).nash_conv == Fraction(11, 12)
    assert abs(ev.nash_conv - 11 / 12) < 1e-12
    # plain lists of per-player behaviour are accepted too, and so are ints (pure strategies)
    pure = [[1] + [1, 0] * 6, [1] + [0, 1] * 6]
    assert evaluate(tree, pure).exact


def test_exact_true_takes_floats_at_their_binary_value():
    tree = compile_tree(games.load("liars_dice(1,3)"))
    fl = uniform(tree)  # thirds: 1/3 + 1/3 + 1/3 in binary is not exactly 1
    ev = evaluate(tree, fl, exact=True)
    assert ev.exact and ev.renormalised  # renormalised exactly, and reported
    assert abs(float(ev.nash_conv) - evaluate(tree, fl).nash_conv) < 1e-12
    # a float that is not a distribution within 1e-9 is refused even with exact=True
    bad = Profile([b.copy() for b in fl.behaviour])
    bad.behaviour[0][1] += 1e-6
    with pytest.raises(StrategyError, match="player 0.*not a distribution"):
        evaluate(tree, bad, exact=True)


def test_errors_name_the_information_set():
    tree = compile_tree(games.kuhn())
    prof = Profile([[Fraction(1)] + [Fraction(1, 2)] * 12, [Fraction(1)] + [Fraction(1, 2)] * 12])
    prof.behaviour[1][3] = Fraction(1, 3)  # player 1's second information set sums to 5/6
    with pytest.raises(StrategyError, match=r"player 1's strategy at player 1 information set 'Q \| b'.*sum 5/6"):
        evaluate(tree, prof)
    prof.behaviour[1][3], prof.behaviour[1][4] = Fraction(3, 2), Fraction(-1, 2)
    with pytest.raises(StrategyError, match=r"'Q \| b'.*not a distribution"):
        evaluate(tree, prof)
    with pytest.raises(StrategyError, match="1 players; kuhn has 2"):
        evaluate(tree, prof.behaviour[:1])
    with pytest.raises(StrategyError, match="3 entries"):
        evaluate(tree, [[Fraction(1)] * 3, prof.behaviour[1]])
    f = uniform(tree)
    f.behaviour[0][1] = 0.7
    with pytest.raises(StrategyError, match=r"player 0's strategy at player 0 information set 'J'"):
        evaluate(tree, f)


def test_json_of_an_evaluation():
    tree = compile_tree(games.kuhn())
    ev = evaluate(tree, exact_profile(tree, uniform(tree)))
    js = ev.to_json()
    assert js["game"] == "kuhn" and js["exact"] is True
    assert js["nash_conv"] == "11/12" and js["exploitability"] == "11/24"
    assert js["max_regret_infoset"] == {
        "player": int(tree.infoset_player[ev.max_regret_infoset]),
        "infoset": tree.infoset_name(ev.max_regret_infoset),
    }
    assert [len(x) for x in js["infoset_regret"]] == [6, 6]
    assert ev.regret_at(0, (0, "")) == Fraction(js["infoset_regret"][0][0]["regret"])
    fj = evaluate(tree, uniform(tree)).to_json(per_infoset=False)
    assert isinstance(fj["nash_conv"], float) and "infoset_regret" not in fj


def test_unreached_information_sets():
    """Chance never reaches the left branch's information set; the other player's pure choice
    leaves one of player 0's information sets unreached by the others."""
    game = TreeGame(
        (
            "chance",
            ("a", "b"),
            (Fraction(0), Fraction(1)),
            (
                ("decision", 1, "X", ("l", "r"), (("leaf", (1, -1)), ("leaf", (2, -2)))),
                (
                    "decision",
                    1,
                    "Y",
                    ("l", "r"),
                    (
                        ("decision", 0, "P", ("u", "d"), (("leaf", (3, -3)), ("leaf", (0, 0)))),
                        ("decision", 0, "Q", ("u", "d"), (("leaf", (0, 0)), ("leaf", (5, -5)))),
                    ),
                ),
            ),
        ),
        name="unreached",
    )
    tree = compile_tree(game)
    prof = [[1, 1, 0, 1, 0], [1, Fraction(1, 2), Fraction(1, 2), 1, 0]]  # player 0: u at P and Q; 1: l at Y
    ev = evaluate(tree, prof)
    ids = {tree.infoset_key[i]: i for i in range(len(tree.infoset_player))}
    assert ev.infoset_regret[ids["X"]] is None and not ev.reached[ids["X"]]
    assert ev.infoset_regret[ids["Q"]] is None  # player 1 never plays r at Y
    assert ev.infoset_regret[ids["P"]] == 0 and ev.infoset_regret[ids["Y"]] == 3
    assert ev.max_regret == 3 and ev.max_regret_infoset == ids["Y"]
    fl = evaluate(tree, prof, exact=False)
    assert math.isnan(fl.infoset_regret[ids["X"]]) and fl.max_regret_infoset == ids["Y"]

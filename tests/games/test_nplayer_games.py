"""Kuhn poker and Leduc hold'em for more than two players, against OpenSpiel's ``kuhn_poker(players=N)``
and ``leduc_poker(players=N)``: the same tree (players, actions, chance probabilities, payoffs and
information-set partition, node for node), the same sizes, the same expected utilities of the
uniform profile and of random profiles carried over information set by information set, and the
same NashConv as OpenSpiel's ``exploitability.nash_conv``. Leduc for three players has 1.8 million
histories: the default tier compares it along random deals and plays, the slow tier in full."""

from __future__ import annotations

import io
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import seqform
from seqform.errors import UnknownGameError
from seqform.games import kuhn, leduc, load
from seqform.games.kuhn import Kuhn
from seqform.model.game import CHANCE, TERMINAL
from seqform.model.strategy import Profile
from tests.oneline import one_line_error
from tests.oracle.peers import assert_same_tree_as_openspiel, openspiel_sizes

#: OpenSpiel's expected returns are doubles: our exact values must agree to within this
TOL = 1e-12


def _pyspiel():
    return pytest.importorskip("pyspiel")


def _deal_label(game):
    """Our label of OpenSpiel's chance outcome ``a`` (a card id, numbered as ours): "deal Js",
    "public Kh"; Kuhn deals only."""
    if isinstance(game, Kuhn):
        return lambda st, a: f"deal {game.card_names[a]}"
    return lambda st, a: f"{'deal' if len(st.history()) < game.num_players else 'public'} {game.card_names[a]}"


def _infoset_rows(game, os_game) -> dict:
    """Walk both trees in step; {(player, our key): (OpenSpiel's information-state string, legal
    action ids)}, checked one to one."""
    rows: dict = {}
    back: dict = {}
    stack = [(game.root(), os_game.new_initial_state())]
    while stack:
        h, s = stack.pop()
        pl = game.player(h)
        if pl == TERMINAL:
            continue
        if pl == CHANCE:
            stack.extend((game.next(h, i), s.child(a)) for i, (a, _) in enumerate(s.chance_outcomes()))
            continue
        legal = s.legal_actions()
        info = s.information_state_string(pl)
        assert rows.setdefault((pl, game.infoset(h)), (info, legal)) == (info, legal)
        assert back.setdefault((pl, info), game.infoset(h)) == game.infoset(h)
        stack.extend((game.next(h, i), s.child(a)) for i, a in enumerate(legal))
    return rows


def _rational_profile(tree, rng, zeros: bool = True) -> Profile:
    """A random profile of exact rationals (small integer weights normalised; with ``zeros``
    some actions get probability 0, leaving parts of the tree unreached)."""
    out = []
    for p in range(tree.num_players):
        b = [Fraction(1)] * tree.num_sequences[p]
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            w = [int(x) for x in rng.integers(0 if zeros else 1, 4, size=k)]
            if sum(w) == 0:
                w[int(rng.integers(k))] = 1
            b[f : f + k] = [Fraction(x, sum(w)) for x in w]
        out.append(b)
    return Profile(out)


def _tabular_policy(tree, profile: Profile, os_game, rows: dict):
    """``profile`` as OpenSpiel's ``TabularPolicy``, row by row through ``rows`` (``_infoset_rows``)."""
    from open_spiel.python import policy

    pol = policy.TabularPolicy(os_game)
    arr = pol.action_probability_array
    for i in range(sum(tree.num_infosets)):
        p = int(tree.infoset_player[i])
        info, legal = rows[p, tree.infoset_key[i]]
        f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
        r = pol.state_lookup[info]
        arr[r, :] = 0.0
        arr[r, legal] = [float(x) for x in profile.behaviour[p][f : f + k]]
    return pol


def _openspiel_returns(os_game, pol) -> list:
    from open_spiel.python.algorithms import expected_game_score

    return list(expected_game_score.policy_value(os_game.new_initial_state(), [pol] * os_game.num_players()))


# --- the games themselves -------------------------------------------------------------------------


def test_two_players_is_the_default_and_keeps_its_name():
    assert kuhn().num_players == kuhn(players=2).num_players == 2 and kuhn(2).name == "kuhn"
    assert leduc().num_players == 2 and leduc(players=2).name == "leduc" and (leduc().ranks, leduc().suits) == (3, 2)
    assert seqform.compile_tree(kuhn(players=2)).sizes() == seqform.compile_tree(kuhn()).sizes()


@pytest.mark.parametrize(
    "spec,name,players,deck",
    [
        ("kuhn(players=3)", "kuhn(players=3)", 3, 4),
        ("kuhn(players=4)", "kuhn(players=4)", 4, 5),
        ("leduc(players=3)", "leduc(players=3)", 3, 8),
        ("leduc(players=4)", "leduc(players=4)", 4, 10),
        ("leduc(ranks=2,players=3)", "leduc(ranks=2,suits=2,players=3)", 3, 4),
        ("leduc(rake=5,players=3)", "leduc(rake=5,players=3)", 3, 8),
    ],
)
def test_names_load_back(spec, name, players, deck):
    g = load(spec)
    assert (g.name, g.num_players) == (name, players)
    assert (g.num_cards if isinstance(g, Kuhn) else len(g.deck)) == deck
    again = load(g.name)
    assert (again.name, again.num_players) == (name, players)


def test_only_two_player_leduc_declares_ordered_signals():
    assert leduc().ordered_signals() is not None
    assert leduc(players=3).ordered_signals() is None
    assert leduc(ranks=3, players=3).ordered_signals() is None


@pytest.mark.parametrize(
    "call,words",
    [
        (lambda: kuhn(players=1), ["players", "from 2 to 10", "players=1"]),
        (lambda: kuhn(players=11), ["players", "players=11"]),
        (lambda: kuhn(players=True), ["players", "integer"]),
        (lambda: leduc(players=1), ["players", "players=1"]),
        (lambda: leduc(players=5), ["players", "from 2 to 4", "players=5"]),
        (lambda: leduc(ranks=1, players=3), ["at least 4 cards", "3 players", "ranks=1"]),
        (lambda: leduc(ranks=3, suits=1, players=3), ["at least 4 cards", "suits=1"]),
        (lambda: leduc(ranks=2.5), ["ranks", "integer"]),
    ],
)
def test_bad_parameters_are_refused_by_name(call, words):
    with pytest.raises(UnknownGameError) as e:
        call()
    msg = str(e.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, msg


def test_the_command_line_refuses_bad_players_in_one_line():
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "info", "leduc(players=5)"], capture_output=True, text=True, timeout=120
    )
    one_line_error(r, "players", "from 2 to 4")


def test_four_player_leduc_is_refused_by_its_size_before_it_is_built():
    from seqform.model.limits import TooLargeError

    g = leduc(players=4)
    # counted over the betting tree (size_key), not walked: 349 million histories
    assert g.num_nodes_hint() > 3 * 10**8
    with pytest.raises(TooLargeError, match="it has"):
        seqform.compile_tree(g, memory_limit_bytes=8 * 2**30)


@pytest.mark.parametrize("game", [kuhn(3), kuhn(4), leduc(ranks=2, players=3)])
def test_size_hint_is_the_compiled_size(game):
    assert game.num_nodes_hint() == seqform.compile_tree(game).num_nodes


def _walk_bounds(game) -> int:
    """Check ``utility_bound`` at every node of ``game`` for every player against the largest
    utility at a leaf below (a brute-force walk); the number of nodes checked."""
    n, checked = game.num_players, 0

    def rec(h) -> tuple:
        nonlocal checked
        p = game.player(h)
        if p == TERMINAL:
            best = tuple(game.utility(h))
        else:
            kids = [rec(game.next(h, a)) for a in range(len(game.actions(h)))]
            best = tuple(max(k[i] for k in kids) for i in range(n))
        for i in range(n):
            assert game.utility_bound(h, i) >= best[i], (game.describe(h), i)
        checked += 1
        return best

    rec(game.root())
    return checked


@pytest.mark.parametrize("game", [kuhn(3), kuhn(4), leduc(ranks=2, players=3)])
def test_utility_bounds_hold_for_every_player(game):
    assert _walk_bounds(game) == seqform.compile_tree(game).num_nodes


def test_split_pots_and_folds_pay_as_the_rules_say():
    g = leduc(players=3)  # ranks T, J, Q, K of spades and hearts

    def play(*labels):
        h = g.root()
        for a in labels:
            h = g.next(h, list(g.actions(h)).index(a))
        return h

    # everyone checks twice; players 0 and 1 hold the jacks, player 2 a ten, the public card is a
    # king: the jacks split the pot of 3
    deal = ("deal Js", "deal Jh", "deal Ts")
    h = play(*deal, "Call", "Call", "Call", "public Ks", "Call", "Call", "Call")
    assert g.player(h) == TERMINAL and g.utility(h) == (Fraction(1, 2), Fraction(1, 2), -1)
    # player 0 raises 2, players 1 and 2 fold: player 0 takes their antes
    h = play(*deal, "Raise", "Fold", "Fold")
    assert g.player(h) == TERMINAL and g.utility(h) == (2, -1, -1)
    # player 1 raises, player 2 re-raises, player 0 folds, player 1 calls; in round 2 player 1
    # (the first still in) checks and player 2 checks: the ten pairs the public ten and wins 1 + 5
    h = play("deal Js", "deal Qs", "deal Ts", "Call", "Raise", "Raise", "Fold", "Call", "public Th", "Call", "Call")
    assert g.player(h) == TERMINAL and g.utility(h) == (-1, -5, 6)


# --- against OpenSpiel ------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_kuhn_is_openspiels_node_for_node(n):
    pyspiel = _pyspiel()
    g, os_game = kuhn(n), pyspiel.load_game(f"kuhn_poker(players={n})")
    assert_same_tree_as_openspiel(g, os_game, chance_label=_deal_label(g))
    t = seqform.compile_tree(g)
    assert t.sizes() == openspiel_sizes(os_game)
    assert t.constant_sum == 0


@pytest.mark.parametrize("n,playouts", [(3, 400), (4, 150)])
def test_leduc_is_openspiels_along_random_plays(n, playouts):
    """Random deals and plays walked in step: the same node kinds and players, the same actions
    and chance outcomes with the same probabilities, the same payoffs at the end, and information
    sets that correspond one to one over every state visited."""
    pyspiel = _pyspiel()
    g, os_game = leduc(players=n), pyspiel.load_game(f"leduc_poker(players={n})")
    label = _deal_label(g)
    rng = np.random.default_rng(n)
    fwd: dict = {}
    back: dict = {}
    ends = set()
    for _ in range(playouts):
        h, s = g.root(), os_game.new_initial_state()
        while True:
            pl = g.player(h)
            if pl == TERMINAL:
                assert s.is_terminal() and [float(u) for u in g.utility(h)] == s.returns()
                ends.add(tuple(g.utility(h)))
                break
            acts = list(g.actions(h))
            if pl == CHANCE:
                outs = s.chance_outcomes()
                assert s.is_chance_node() and acts == [label(s, a) for a, _ in outs]
                assert [Fraction(q) for q in g.chance(h)] == [Fraction(p).limit_denominator(100) for _, p in outs]
                i = int(rng.integers(len(outs)))
                h, s = g.next(h, i), s.child(outs[i][0])
                continue
            assert s.current_player() == pl
            legal = s.legal_actions()
            assert acts == [s.action_to_string(pl, a) for a in legal]
            key, info = (pl, g.infoset(h)), (pl, s.information_state_string(pl))
            assert fwd.setdefault(key, info) == info and back.setdefault(info, key) == key
            # fold and raise often enough to see folds by several players and both rounds' raises
            i = int(rng.integers(len(legal)))
            h, s = g.next(h, i), s.child(legal[i])
    assert len(ends) > 10  # many different payoffs seen: folds, showdowns, split pots


def _kuhn_case(n):
    pyspiel = _pyspiel()
    g = kuhn(n)
    os_game = pyspiel.load_game(f"kuhn_poker(players={n})")
    return g, seqform.compile_tree(g), os_game, _infoset_rows(g, os_game)


_CASES: dict = {}


def _case(n):
    if n not in _CASES:
        _CASES[n] = _kuhn_case(n)
    return _CASES[n]


@pytest.mark.parametrize("n", [3, 4])
def test_kuhn_uniform_profile_values_and_nash_conv_are_openspiels(n):
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability

    g, t, os_game, rows = _case(n)
    ev = seqform.evaluate(t, seqform.uniform(t), exact=True)
    uniform = policy.UniformRandomPolicy(os_game)
    for ours, theirs in zip(ev.values, _openspiel_returns(os_game, uniform)):
        assert abs(ours - Fraction(theirs)) <= TOL
    assert abs(ev.nash_conv - Fraction(exploitability.nash_conv(os_game, uniform))) <= 1e-9
    if n == 3:
        assert ev.nash_conv == Fraction(33, 16)  # OpenSpiel's 2.0625, exactly


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([3, 4]), zeros=st.booleans())
def test_kuhn_random_profiles_values_and_nash_conv_are_openspiels(seed, n, zeros):
    from open_spiel.python.algorithms import exploitability

    g, t, os_game, rows = _case(n)
    prof = _rational_profile(t, np.random.default_rng(seed), zeros)
    pol = _tabular_policy(t, prof, os_game, rows)
    ev = seqform.evaluate(t, prof)
    assert ev.exact
    for ours, theirs in zip(ev.values, _openspiel_returns(os_game, pol)):
        assert abs(ours - Fraction(theirs)) <= TOL
    theirs = exploitability.nash_conv(os_game, pol)
    assert abs(ev.nash_conv - Fraction(theirs)) <= 1e-9
    assert abs(seqform.evaluate(t, prof, exact=False).nash_conv - theirs) <= 1e-9


# --- files ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", [kuhn(3), seqform.games.selten_fig3()], ids=lambda g: g.name)
def test_efg_round_trip_keeps_three_player_games(game):
    t = seqform.compile_tree(game)
    buf = io.StringIO()
    seqform.write_efg(game, buf)
    back = seqform.compile_tree(seqform.read_efg(io.BytesIO(buf.getvalue().encode())))
    assert back.num_players == 3 and back.sizes() == t.sizes()
    # the same game: the same exact values, best responses and NashConv of a random profile
    # carried over by information-set order (both trees number them in depth-first order)
    prof = _rational_profile(t, np.random.default_rng(7))
    a, b = seqform.evaluate(t, prof), seqform.evaluate(back, prof)
    assert (a.values, a.best_response_values, a.nash_conv) == (b.values, b.best_response_values, b.nash_conv)


# --- slow: three-player Leduc in full -----------------------------------------------------------


@pytest.fixture(scope="module")
def leduc3():
    pyspiel = _pyspiel()
    g = leduc(players=3)
    return g, seqform.compile_tree(g), pyspiel.load_game("leduc_poker(players=3)")


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_leduc3_is_openspiels_node_for_node(leduc3):
    """1,831,601 histories walked in step with OpenSpiel, and its sizes."""
    g, t, os_game = leduc3
    assert t.sizes() == openspiel_sizes(os_game) and g.num_nodes_hint() == t.num_nodes
    assert_same_tree_as_openspiel(g, os_game, chance_label=_deal_label(g))


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_leduc3_values_and_nash_conv_are_openspiels(leduc3):
    """The uniform profile's and a random profile's exact values against OpenSpiel's expected
    returns, and their NashConv against OpenSpiel's (its C++ ``nash_conv``: the Python one takes
    tens of minutes on this game)."""
    pyspiel = _pyspiel()
    g, t, os_game = leduc3
    rows = _infoset_rows(g, os_game)
    for prof in (seqform.uniform(t), _rational_profile(t, np.random.default_rng(3), zeros=True)):
        table = {}
        for i in range(sum(t.num_infosets)):
            p = int(t.infoset_player[i])
            info, legal = rows[p, t.infoset_key[i]]
            f, k = int(t.infoset_first_seq[i]), int(t.infoset_num_actions[i])
            table[info] = [(a, float(x)) for a, x in zip(legal, prof.behaviour[p][f : f + k])]
        pol = pyspiel.TabularPolicy(table)
        ev = seqform.evaluate(t, prof, exact=True)
        theirs = pyspiel.expected_returns(os_game.new_initial_state(), pol, -1, True)
        for ours, v in zip(ev.values, theirs):
            assert abs(ours - Fraction(v)) <= 1e-9
        assert abs(float(ev.nash_conv) - pyspiel.nash_conv(os_game, pol)) <= 1e-7


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_leduc3_efg_round_trip(leduc3):
    """Written as an 88 MB .efg file and read back: the same sizes and exact uniform values."""
    g, t, _ = leduc3
    buf = io.StringIO()
    seqform.write_efg(t, buf)
    back = seqform.compile_tree(seqform.read_efg(io.BytesIO(buf.getvalue().encode())))
    assert back.sizes() == t.sizes()
    a, b = (
        seqform.evaluate(t, seqform.uniform(t), exact=True),
        seqform.evaluate(back, seqform.uniform(back), exact=True),
    )
    assert (a.values, a.nash_conv) == (b.values, b.nash_conv)

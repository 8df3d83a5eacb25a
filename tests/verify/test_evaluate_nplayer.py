"""Exact evaluation of profiles in games of more than two players (``seqform.evaluate``, ``seqform
evaluate``) against brute force (``tests/oracle/brute_force_nplayer.py``: pure strategies enumerated,
leaves walked, in Fractions): every player's value and best-response value, NashConv and the regret
at every information set, on three-player Kuhn poker and on small random three-player games."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import seqform
from seqform.games import kuhn
from seqform.games.explicit import CHANCE_NODE, DECISION, LEAF, TreeGame, _children
from seqform.io.strategyjson import profile_to_json
from seqform.model.strategy import Profile
from tests.oracle.brute_force_nplayer import brute_force_evaluate
from tests.strategies import random_trees


def _rational_profile(tree, rng) -> Profile:
    """Random exact probabilities: small integer weights, some 0 (unreached parts of the tree)."""
    out = []
    for p in range(tree.num_players):
        b = [Fraction(1)] * tree.num_sequences[p]
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            w = [int(x) for x in rng.integers(0, 4, size=k)]
            if sum(w) == 0:
                w[int(rng.integers(k))] = 1
            b[f : f + k] = [Fraction(x, sum(w)) for x in w]
        out.append(b)
    return Profile(out)


def _by_key(tree, profile: Profile) -> list:
    """The profile as the oracle takes it: per player, {information-set key: probabilities}."""
    out: list = [dict() for _ in range(tree.num_players)]
    for i in range(sum(tree.num_infosets)):
        p = int(tree.infoset_player[i])
        f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
        out[p][tree.infoset_key[i]] = list(profile.behaviour[p][f : f + k])
    return out


def _assert_matches_brute_force(game, tree, profile: Profile) -> None:
    ev = seqform.evaluate(tree, profile, exact=True)
    bf = brute_force_evaluate(game, _by_key(tree, profile))
    assert ev.exact
    assert ev.values == bf.values
    assert ev.best_response_values == bf.best_response_values
    assert ev.nash_conv == bf.nash_conv and ev.exploitability == bf.nash_conv / tree.num_players
    for i in range(sum(tree.num_infosets)):
        want = bf.infoset_regret[int(tree.infoset_player[i])][tree.infoset_key[i]]
        assert ev.infoset_regret[i] == want, (tree.infoset_label(i), ev.infoset_regret[i], want)
        assert bool(ev.reached[i]) == (want is not None)
    reached = [r for r in ev.infoset_regret if r is not None]
    assert ev.max_regret == (max(reached) if reached else 0)


@pytest.fixture(scope="module")
def kuhn3():
    g = kuhn(3)
    return g, seqform.compile_tree(g)


def test_kuhn3_uniform_profile(kuhn3):
    g, t = kuhn3
    uniform = Profile([[Fraction(1)] + [Fraction(1, 2)] * (n - 1) for n in t.num_sequences])
    _assert_matches_brute_force(g, t, uniform)
    # and OpenSpiel's nash_conv of its uniform policy on kuhn_poker(players=3) is 2.0625
    assert brute_force_evaluate(g, _by_key(t, uniform)).nash_conv == Fraction(33, 16)


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_kuhn3_random_profiles(kuhn3, seed):
    g, t = kuhn3
    _assert_matches_brute_force(g, t, _rational_profile(t, np.random.default_rng(seed)))


@st.composite
def three_player_games(draw) -> TreeGame:
    """A small random perfect-recall game of three players: a two-player ``random_trees`` tree
    (chance nodes, information sets spanning chance and opponents' moves) whose player-1
    information sets are split between players 1 and 2 (perfect recall survives: each one's own
    history is a part of the old one), with a third, independent payoff at every leaf
    (general-sum)."""
    tree = draw(random_trees(max_nodes=30, payoffs="int"))
    keys: set = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if node[0] == DECISION and node[1] == 1:
            keys.add(node[2])
        stack.extend(_children(node))
    moved = draw(st.sets(st.sampled_from(sorted(keys, key=repr)), min_size=1)) if keys else set()

    def convert(node):
        if node[0] == LEAF:
            return (LEAF, (*node[1], draw(st.integers(-5, 5))))
        kids = tuple(convert(c) for c in _children(node))
        if node[0] == CHANCE_NODE:
            return node[:-1] + (kids,)
        player = 2 if node[1] == 1 and node[2] in moved else node[1]
        return (DECISION, player, node[2], node[3], kids)

    return TreeGame(convert(tree), "random_3p")


@settings(max_examples=40, deadline=None)
@given(game=three_player_games(), seed=st.integers(0, 2**32 - 1))
def test_random_three_player_games(game, seed):
    t = seqform.compile_tree(game)
    assert t.num_players == 3
    _assert_matches_brute_force(game, t, _rational_profile(t, np.random.default_rng(seed)))


def test_command_line_evaluates_a_three_player_game(kuhn3, tmp_path):
    """``seqform evaluate 'kuhn(players=3)' FILE --json``: exact values, NashConv and the largest
    regret of a random rational profile written to a strategy file, as brute force finds them."""
    g, t = kuhn3
    prof = _rational_profile(t, np.random.default_rng(5))
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(profile_to_json(t, prof, exact=True)))
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "evaluate", "kuhn(players=3)", str(path), "--json", "--per-infoset"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    bf = brute_force_evaluate(g, _by_key(t, prof))
    assert out["exact"] and out["players"] == 3
    assert [Fraction(v) for v in out["values"]] == bf.values
    assert [Fraction(v) for v in out["best_response_values"]] == bf.best_response_values
    assert Fraction(out["nash_conv"]) == bf.nash_conv
    regrets = [r for per in bf.infoset_regret for r in per.values() if r is not None]
    assert Fraction(out["max_regret"]) == max(regrets)
    assert [len(per) for per in out["infoset_regret"]] == [16, 16, 16]

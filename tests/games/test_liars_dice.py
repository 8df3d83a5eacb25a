"""Liar's Dice: sizes from the spec, and the same tree, partition, payoffs and value as OpenSpiel."""

from __future__ import annotations

import numpy as np
import pytest

import seqform.games
from seqform.errors import UnknownGameError
from seqform.games.liars_dice import liars_dice
from seqform.model.tree import compile_tree
from tests.oracle.peers import assert_same_tree_as_openspiel, openspiel_lp_value, openspiel_sizes, tree_lp_value

SMALL = [(1, 2), (1, 3), (1, 4), (2, 2)]


@pytest.fixture(scope="module")
def ld16():
    return compile_tree(liars_dice(1, 6))


def test_sizes_of_the_default_game(ld16):
    # from the spec: OpenSpiel liars_dice(numdice=1, dice_sides=6)
    assert ld16.sizes() == {
        "histories": 294_883,
        "terminals": 147_420,
        "infosets": [12_288, 12_288],
        "sequences": [24_571, 24_571],
    }


def test_zero_sum(ld16):
    assert ld16.constant_sum == 0
    for d, s in SMALL:
        assert compile_tree(liars_dice(d, s)).constant_sum == 0


def test_load_and_errors():
    g = seqform.games.load("liars_dice(1,3)")
    assert (g.dice, g.sides) == (1, 3)
    assert seqform.games.load(g.name).name == g.name
    assert compile_tree(seqform.games.load("liars_dice(dice=1, sides=3)")).num_nodes == 1147
    with pytest.raises(UnknownGameError):
        liars_dice(0, 6)


def test_closed_form_sizes():
    # (S^(2D)-1)/(S-1) chance nodes, then S^(2D) deals each with 2^N + 2^N - 1 bid histories
    for d, s in SMALL:
        n, deals = 2 * d * s, s ** (2 * d)
        chance = sum(s**k for k in range(2 * d))
        multisets = len({tuple(sorted(r)) for r in np.ndindex(*(s,) * d)})
        t = compile_tree(liars_dice(d, s))
        assert t.num_nodes == chance + deals * (2 ** (n + 1) - 1)
        assert t.num_terminals == deals * (2**n - 1)
        assert t.num_infosets == (multisets * 2 ** (n - 1),) * 2


# --- against OpenSpiel ---------------------------------------------------------------------------


def _os_game(d, s):
    pyspiel = pytest.importorskip("pyspiel")
    return pyspiel.load_game(f"liars_dice(numdice={d},dice_sides={s})")


@pytest.mark.parametrize("d,s", SMALL)
def test_sizes_match_openspiel(d, s):
    assert compile_tree(liars_dice(d, s)).sizes() == openspiel_sizes(_os_game(d, s))


@pytest.mark.parametrize("d,s", [(1, 3), (2, 2)])
def test_same_tree_as_openspiel(d, s):
    """Walk both trees in step: same players, action labels, chance probabilities, payoffs, and the
    same information-set partition (a bijection between our keys and OpenSpiel's strings)."""
    assert_same_tree_as_openspiel(liars_dice(d, s), _os_game(d, s))


# --- game value: OpenSpiel's sequence-form LP vs an independent LP on our tree ---------------------


def test_value_matches_openspiel():
    game = _os_game(1, 3)
    assert abs(tree_lp_value(compile_tree(liars_dice(1, 3))) - openspiel_lp_value(game)) < 1e-6


def test_value_of_one_die_three_sides():
    # 1/9 for player 0, as OpenSpiel's sequence_form_lp reports for liars_dice(numdice=1, dice_sides=3)
    assert abs(tree_lp_value(compile_tree(liars_dice(1, 3))) - 1 / 9) < 1e-6

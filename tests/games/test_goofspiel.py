"""Goofspiel (turn-based, imperfect information): the same tree, partition, payoffs and value as
OpenSpiel's ``convert_to_turn_based(goofspiel(imp_info=true, ...))``."""

from __future__ import annotations

from fractions import Fraction

import pytest

import seqform.games
from seqform.errors import UnknownGameError
from seqform.games.goofspiel import goofspiel
from seqform.model.tree import compile_tree
from tests.oracle.peers import assert_same_tree_as_openspiel, openspiel_lp_value, openspiel_sizes, tree_lp_value

# (cards, points_order) -> (histories, terminals, infosets per player, sequences per player),
# as counted on OpenSpiel's turn-based goofspiel(imp_info=true)
OPENSPIEL_SIZES = {
    (3, "descending"): (67, 36, 8, 18),
    (4, "descending"): (1_077, 576, 81, 175),
    (5, "descending"): (26_931, 14_400, 1_062, 2_284),
    (3, "random"): (418, 216, 45, 94),
    (4, "random"): (26_773, 13_824, 1_804, 3_737),
}


@pytest.mark.parametrize("cards,order", sorted(OPENSPIEL_SIZES))
def test_recorded_sizes(cards, order):
    h, t, i, s = OPENSPIEL_SIZES[cards, order]
    want = {"histories": h, "terminals": t, "infosets": [i, i], "sequences": [s, s]}
    assert compile_tree(goofspiel(cards, order)).sizes() == want
    if cards <= 4:
        assert compile_tree(goofspiel(cards, order, "point_difference")).sizes() == want
        if order == "descending":
            assert compile_tree(goofspiel(cards, "ascending")).sizes() == want


@pytest.mark.parametrize("returns", ["win_loss", "point_difference"])
@pytest.mark.parametrize("order", ["descending", "ascending", "random"])
def test_zero_sum(order, returns):
    assert compile_tree(goofspiel(3, order, returns)).constant_sum == 0
    cards = 3 if order == "random" else 4
    assert compile_tree(goofspiel(cards, order, returns, imp_info=False)).constant_sum == 0


def test_payoffs():
    t = compile_tree(goofspiel(4, "descending", "point_difference"))
    assert {u[0] for u in t.payoff_exact} <= {Fraction(k, 2) for k in range(-10, 11)}
    # equal hands: winning every round is impossible, so the best is cards 4, 3, 2 against 1
    assert max(u[0] for u in t.payoff_exact) == 4
    t = compile_tree(goofspiel(4))
    assert {u[0] for u in t.payoff_exact} == {-1, 0, 1}


def test_load_and_errors():
    g = seqform.games.load("goofspiel(3)")
    assert g.cards == 3 and g.points_order == "descending" and g.imp_info
    for spec in ("goofspiel(4, 'random', 'point_difference')", "goofspiel(cards=3, imp_info=False)"):
        g = seqform.games.load(spec)
        assert seqform.games.load(g.name).name == g.name
    with pytest.raises(UnknownGameError):
        goofspiel(3, "sideways")
    with pytest.raises(UnknownGameError):
        goofspiel(3, returns="total_points")


def test_public_bids_variant_has_perfect_recall():
    # imp_info=False: finished rounds' bids are public (OpenSpiel's own partition would violate
    # perfect recall from 4 cards on; see the module docstring)
    t = compile_tree(goofspiel(4, imp_info=False))
    assert t.num_infosets == (1 + 16 + 144, 1 + 16 + 144)


# --- against OpenSpiel ---------------------------------------------------------------------------


def _os_game(cards, order="descending", returns="win_loss", imp_info=True):
    pyspiel = pytest.importorskip("pyspiel")
    return pyspiel.convert_to_turn_based(
        pyspiel.load_game(
            f"goofspiel(num_cards={cards},points_order={order},returns_type={returns},imp_info={str(imp_info).lower()})"
        )
    )


@pytest.mark.parametrize(
    "cards,order",
    [(c, o) for c in (1, 2, 3, 4) for o in ("descending", "ascending")]
    + [(5, "descending")]
    + [(c, "random") for c in (1, 2, 3, 4)],
)
def test_sizes_match_openspiel(cards, order):
    assert compile_tree(goofspiel(cards, order)).sizes() == openspiel_sizes(_os_game(cards, order))


@pytest.mark.parametrize("cards", [2, 3])
def test_public_bids_variant_matches_openspiel_when_small(cards):
    assert compile_tree(goofspiel(cards, imp_info=False)).sizes() == openspiel_sizes(_os_game(cards, imp_info=False))


@pytest.mark.parametrize(
    "cards,order,returns",
    [
        (4, "descending", "win_loss"),
        (4, "ascending", "point_difference"),
        (3, "random", "win_loss"),
        (4, "random", "point_difference"),
    ],
)
def test_same_tree_as_openspiel(cards, order, returns):
    """Walk both trees in step: same players, actions (cards), chance probabilities, payoffs, and
    the same information-set partition (a bijection between our keys and OpenSpiel's strings)."""
    assert_same_tree_as_openspiel(
        goofspiel(cards, order, returns),
        _os_game(cards, order, returns),
        lambda st, a: f"Deal {a + 1}",
        lambda st, pl, a: f"Bid {a + 1}",
    )


# --- game value: OpenSpiel's sequence-form LP vs an independent LP on our tree ---------------------


@pytest.mark.parametrize(
    "cards,order,returns",
    [
        (3, "descending", "win_loss"),
        (4, "descending", "win_loss"),
        (4, "descending", "point_difference"),
        (3, "random", "win_loss"),
    ],
)
def test_value_matches_openspiel(cards, order, returns):
    game = _os_game(cards, order, returns)
    ours = tree_lp_value(compile_tree(goofspiel(cards, order, returns)))
    assert abs(ours - openspiel_lp_value(game)) < 1e-6


def test_value_is_zero_by_symmetry():
    # the game is symmetric between the players, so its value is 0
    for cards, order in ((3, "descending"), (4, "ascending"), (3, "random")):
        assert abs(tree_lp_value(compile_tree(goofspiel(cards, order)))) < 1e-7


def test_value_of_a_lopsided_subgame_is_not_zero():
    # guard against a trivial LP: player 1 forced to bid its cards in ascending order
    from seqform.model.game import Game

    class Forced(Game):
        name, num_players = "forced", 2

        def __init__(self):
            self.g = goofspiel(3)

        def root(self):
            return self.g.root()

        def player(self, h):
            return self.g.player(h)

        def infoset(self, h):
            return self.g.infoset(h)

        def actions(self, h):
            a = self.g.actions(h)
            return a[:1] if self.g.player(h) == 1 else a

        def next(self, h, a):
            return self.g.next(h, a)

        def utility(self, h):
            return self.g.utility(h)

    # player 0 knows player 1 bids 1, 2, (3): bidding 2, 3, (1) wins points 3 and 2, so value 1
    assert abs(tree_lp_value(compile_tree(Forced())) - 1) < 1e-7

"""Goofspiel (turn-based, imperfect information): the same tree, partition, payoffs and value as
OpenSpiel's ``convert_to_turn_based(goofspiel(imp_info=true, ...))``."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

import seqform.games
from seqform.errors import ImperfectRecallError, UnknownGameError
from seqform.game import CHANCE, TERMINAL
from seqform.games.goofspiel import goofspiel
from seqform.tree import compile_tree

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
    return pyspiel.convert_to_turn_based(pyspiel.load_game(
        f"goofspiel(num_cards={cards},points_order={order},returns_type={returns},"
        f"imp_info={str(imp_info).lower()})"))


def _os_sizes(game) -> dict:
    """Histories, terminals, information sets and sequences per player, counted on OpenSpiel."""
    nodes = terms = 0
    infos = [{}, {}]
    stack = [game.new_initial_state()]
    while stack:
        s = stack.pop()
        nodes += 1
        if s.is_terminal():
            terms += 1
        elif s.is_chance_node():
            stack.extend(s.child(a) for a, _ in s.chance_outcomes())
        else:
            p = s.current_player()
            acts = s.legal_actions()
            infos[p][s.information_state_string(p)] = len(acts)
            stack.extend(s.child(a) for a in acts)
    return {"histories": nodes, "terminals": terms, "infosets": [len(i) for i in infos],
            "sequences": [1 + sum(i.values()) for i in infos]}


@pytest.mark.parametrize("cards,order", [(c, o) for c in (1, 2, 3, 4) for o in ("descending", "ascending")]
                         + [(5, "descending")] + [(c, "random") for c in (1, 2, 3, 4)])
def test_sizes_match_openspiel(cards, order):
    assert compile_tree(goofspiel(cards, order)).sizes() == _os_sizes(_os_game(cards, order))


@pytest.mark.parametrize("cards", [2, 3])
def test_public_bids_variant_matches_openspiel_when_small(cards):
    assert compile_tree(goofspiel(cards, imp_info=False)).sizes() == _os_sizes(_os_game(cards, imp_info=False))


@pytest.mark.parametrize("cards,order,returns", [(4, "descending", "win_loss"), (4, "ascending", "point_difference"),
                                                 (3, "random", "win_loss"), (4, "random", "point_difference")])
def test_same_tree_as_openspiel(cards, order, returns):
    """Walk both trees in step: same players, actions (cards), chance probabilities, payoffs, and
    the same information-set partition (a bijection between our keys and OpenSpiel's strings)."""
    ours, theirs = goofspiel(cards, order, returns), _os_game(cards, order, returns)
    fwd, back = {}, {}
    stack = [(ours.root(), theirs.new_initial_state())]
    while stack:
        h, st = stack.pop()
        pl = ours.player(h)
        if pl == TERMINAL:
            assert st.is_terminal()
            assert [float(x) for x in ours.utility(h)] == st.returns()
            continue
        acts = list(ours.actions(h))
        if pl == CHANCE:
            assert st.is_chance_node()
            outs = st.chance_outcomes()
            assert acts == [f"Deal {a + 1}" for a, _ in outs]
            assert all(abs(float(q) - p) < 1e-15 for q, (_, p) in zip(ours.chance(h), outs))
            assert sum(ours.chance(h)) == 1
            stack.extend((ours.next(h, i), st.child(a)) for i, (a, _) in enumerate(outs))
            continue
        assert st.current_player() == pl
        legal = st.legal_actions()
        assert acts == [f"Bid {a + 1}" for a in legal]
        key, label = (pl, ours.infoset(h)), (pl, st.information_state_string(pl))
        assert fwd.setdefault(key, label) == label
        assert back.setdefault(label, key) == key
        stack.extend((ours.next(h, i), st.child(a)) for i, a in enumerate(legal))


# --- game value: OpenSpiel's sequence-form LP vs an independent LP on our tree ---------------------

def _tree_value(t) -> float:
    """Player 0's value: max f'q s.t. F'q <= A'x, Ex = e, x >= 0 (Koller, Megiddo, von Stengel)."""
    n0, n1 = t.num_sequences
    s0 = t.node_seq[0, t.terminals]
    s1 = t.node_seq[1, t.terminals]
    A = sp.coo_matrix((t.terminal_chance * t.payoff[:, 0], (s0, s1)), shape=(n0, n1)).tocsr()

    def constraints(p):
        ids = t.player_infosets[p]
        rows, cols, vals = [0], [0], [1.0]
        for r, i in enumerate(ids, start=1):
            rows.append(r)
            cols.append(int(t.infoset_parent_seq[i]))
            vals.append(-1.0)
            first, k = int(t.infoset_first_seq[i]), int(t.infoset_num_actions[i])
            rows += [r] * k
            cols += range(first, first + k)
            vals += [1.0] * k
        return sp.csr_matrix((vals, (rows, cols)), shape=(len(ids) + 1, t.num_sequences[p]))

    E, F = constraints(0), constraints(1)
    m1 = F.shape[0]
    c = np.zeros(n0 + m1)
    c[n0] = -1.0
    A_ub = sp.hstack([-A.T, F.T]).tocsr()
    A_eq = sp.hstack([E, sp.csr_matrix((E.shape[0], m1))]).tocsr()
    b_eq = np.zeros(E.shape[0])
    b_eq[0] = 1.0
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(n1), A_eq=A_eq, b_eq=b_eq,
                  bounds=[(0, None)] * n0 + [(None, None)] * m1, method="highs")
    assert res.status == 0, res.message
    return -res.fun


def _openspiel_value(game) -> float:
    pytest.importorskip("cvxpy")
    from open_spiel.python.algorithms import lp_solver, sequence_form_lp
    # OpenSpiel's default solver (ECOS) may be missing and its kwargs are ECOS-only: use HiGHS.
    saved = lp_solver.LinearProgram.solve.__defaults__
    lp_solver.LinearProgram.solve.__defaults__ = (None, {})
    try:
        v0, v1, _, _ = sequence_form_lp.solve_zero_sum_game(game, solver="HIGHS")
    finally:
        lp_solver.LinearProgram.solve.__defaults__ = saved
    assert abs(v0 + v1) < 1e-6
    return float(v0)


@pytest.mark.parametrize("cards,order,returns", [(3, "descending", "win_loss"), (4, "descending", "win_loss"),
                                                 (4, "descending", "point_difference"), (3, "random", "win_loss")])
def test_value_matches_openspiel(cards, order, returns):
    game = _os_game(cards, order, returns)
    ours = _tree_value(compile_tree(goofspiel(cards, order, returns)))
    assert abs(ours - _openspiel_value(game)) < 1e-6


def test_value_is_zero_by_symmetry():
    # the game is symmetric between the players, so its value is 0
    for cards, order in ((3, "descending"), (4, "ascending"), (3, "random")):
        assert abs(_tree_value(compile_tree(goofspiel(cards, order)))) < 1e-7


def test_value_of_a_lopsided_subgame_is_not_zero():
    # guard against a trivial LP: player 1 forced to bid its cards in ascending order
    from seqform.game import Game

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
    assert abs(_tree_value(compile_tree(Forced())) - 1) < 1e-7

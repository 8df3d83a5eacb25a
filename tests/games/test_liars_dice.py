"""Liar's Dice: sizes from the spec, and the same tree, partition, payoffs and value as OpenSpiel."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

import seqform.games
from seqform.errors import UnknownGameError
from seqform.game import CHANCE, TERMINAL
from seqform.games.liars_dice import liars_dice
from seqform.tree import compile_tree

SMALL = [(1, 2), (1, 3), (1, 4), (2, 2)]


@pytest.fixture(scope="module")
def ld16():
    return compile_tree(liars_dice(1, 6))


def test_sizes_of_the_default_game(ld16):
    # from the spec: OpenSpiel liars_dice(numdice=1, dice_sides=6)
    assert ld16.sizes() == {"histories": 294_883, "terminals": 147_420,
                            "infosets": [12_288, 12_288], "sequences": [24_571, 24_571]}


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
        chance = sum(s ** k for k in range(2 * d))
        multisets = len({tuple(sorted(r)) for r in np.ndindex(*(s,) * d)})
        t = compile_tree(liars_dice(d, s))
        assert t.num_nodes == chance + deals * (2 ** (n + 1) - 1)
        assert t.num_terminals == deals * (2 ** n - 1)
        assert t.num_infosets == (multisets * 2 ** (n - 1),) * 2


# --- against OpenSpiel ---------------------------------------------------------------------------

def _os_game(d, s):
    pyspiel = pytest.importorskip("pyspiel")
    return pyspiel.load_game(f"liars_dice(numdice={d},dice_sides={s})")


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


@pytest.mark.parametrize("d,s", SMALL)
def test_sizes_match_openspiel(d, s):
    assert compile_tree(liars_dice(d, s)).sizes() == _os_sizes(_os_game(d, s))


@pytest.mark.parametrize("d,s", [(1, 3), (2, 2)])
def test_same_tree_as_openspiel(d, s):
    """Walk both trees in step: same players, action labels, chance probabilities, payoffs, and the
    same information-set partition (a bijection between our keys and OpenSpiel's strings)."""
    ours, theirs = liars_dice(d, s), _os_game(d, s)
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
            assert acts == [st.action_to_string(a) for a, _ in outs]
            assert [Fraction(p) for p in ours.chance(h)] == [Fraction(1, s)] * s
            assert all(abs(p - 1 / s) < 1e-15 for _, p in outs)
            stack.extend((ours.next(h, i), st.child(a)) for i, (a, _) in enumerate(outs))
            continue
        assert st.current_player() == pl
        legal = st.legal_actions()
        assert acts == [st.action_to_string(pl, a) for a in legal]
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


def test_value_matches_openspiel():
    game = _os_game(1, 3)
    assert abs(_tree_value(compile_tree(liars_dice(1, 3))) - _openspiel_value(game)) < 1e-6


def test_value_of_one_die_three_sides():
    # 1/9 for player 0, as OpenSpiel's sequence_form_lp reports for liars_dice(numdice=1, dice_sides=3)
    assert abs(_tree_value(compile_tree(liars_dice(1, 3))) - 1 / 9) < 1e-6

"""Independent computations from outside seqform, shared by the tests: counting an OpenSpiel game's
tree, OpenSpiel's own sequence-form LP value, and a plain scipy LP on a compiled tree's arrays
(written apart from seqform's LP code)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog


def openspiel_sizes(game, chance_nodes: bool = False) -> dict:
    """Histories, terminals, information sets and sequences per player, by walking OpenSpiel
    (and, with ``chance_nodes``, how many chance nodes)."""
    n = game.num_players()
    hist = term = chance = 0
    infos = [dict() for _ in range(n)]
    stack = [game.new_initial_state()]
    while stack:
        s = stack.pop()
        hist += 1
        if s.is_terminal():
            term += 1
            continue
        if s.is_chance_node():
            chance += 1
            stack.extend(s.child(a) for a, _ in s.chance_outcomes())
            continue
        p = s.current_player()
        infos[p][s.information_state_string(p)] = len(s.legal_actions())
        stack.extend(s.child(a) for a in s.legal_actions())
    out = {
        "histories": hist,
        "terminals": term,
        "infosets": [len(d) for d in infos],
        "sequences": [1 + sum(d.values()) for d in infos],
    }
    if chance_nodes:
        out["chance_nodes"] = chance
    return out


def openspiel_lp_value(game) -> float:
    """Player 0's value from OpenSpiel's sequence-form LP (``sequence_form_lp``, via cvxpy).

    OpenSpiel's default LP solver is ECOS, passed ECOS-only options; when ECOS is not installed,
    the same LP is run with HiGHS through cvxpy, the ECOS options removed for the call only."""
    import cvxpy
    from open_spiel.python.algorithms import lp_solver, sequence_form_lp

    if "ECOS" in cvxpy.installed_solvers():
        return float(sequence_form_lp.solve_zero_sum_game(game)[0])
    saved = dict(lp_solver.DEFAULT_SOLVER_KWARGS)  # the dict object bound as solve()'s default
    lp_solver.DEFAULT_SOLVER_KWARGS.clear()
    try:
        v0, v1, _, _ = sequence_form_lp.solve_zero_sum_game(game, solver="HIGHS")
    finally:
        lp_solver.DEFAULT_SOLVER_KWARGS.update(saved)
    assert abs(v0 + v1) < 1e-6
    return float(v0)


def tree_lp_value(t) -> float:
    """Player 0's value: max f'q s.t. F'q <= A'x, Ex = e, x >= 0 (Koller, Megiddo, von Stengel),
    built from a ``Tree``'s arrays with scipy's ``linprog``."""
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
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(n1),
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=[(0, None)] * n0 + [(None, None)] * m1,
        method="highs",
    )
    assert res.status == 0, res.message
    return -res.fun


def assert_same_tree_as_openspiel(ours, theirs, chance_label=None, action_label=None) -> None:
    """Walk a seqform game and an OpenSpiel game in step: same players, action labels, chance
    probabilities (ours exactly the rationals OpenSpiel's floats stand for, summing to exactly 1), payoffs, and the same
    information-set partition (a bijection between our keys and OpenSpiel's information-state strings).
    ``chance_label(state, a)`` and ``action_label(state, player, a)`` give the label we should
    show for OpenSpiel's action ``a`` (default: OpenSpiel's ``action_to_string``)."""
    from seqform.model.game import CHANCE, TERMINAL

    chance_label = chance_label or (lambda st, a: st.action_to_string(a))
    action_label = action_label or (lambda st, pl, a: st.action_to_string(pl, a))
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
            assert acts == [chance_label(st, a) for a, _ in outs]
            assert all(abs(float(q) - p) < 1e-15 for q, (_, p) in zip(ours.chance(h), outs))
            # exactly the rational OpenSpiel's float stands for (e.g. 1/3 for 0.3333333333333333)
            assert [Fraction(q) for q in ours.chance(h)] == [Fraction(p).limit_denominator(10**9) for _, p in outs]
            assert sum(ours.chance(h)) == 1
            stack.extend((ours.next(h, i), st.child(a)) for i, (a, _) in enumerate(outs))
            continue
        assert st.current_player() == pl
        legal = st.legal_actions()
        assert acts == [action_label(st, pl, a) for a in legal]
        key, label = (pl, ours.infoset(h)), (pl, st.information_state_string(pl))
        assert fwd.setdefault(key, label) == label
        assert back.setdefault(label, key) == key
        stack.extend((ours.next(h, i), st.child(a)) for i, a in enumerate(legal))


def openspiel_solver(algorithm: str, game):
    """OpenSpiel's Python solver of the CFR family named as seqform names it, on the pyspiel ``game``."""
    from open_spiel.python.algorithms import cfr as os_cfr
    from open_spiel.python.algorithms import discounted_cfr

    return {
        "cfr": os_cfr.CFRSolver,
        "cfr+": os_cfr.CFRPlusSolver,
        "dcfr": discounted_cfr.DCFRSolver,
        "lcfr": lambda g: discounted_cfr.DCFRSolver(g, alpha=1, beta=1, gamma=1),
        "cfr-simultaneous": lambda g: os_cfr._CFRSolver(
            g, regret_matching_plus=False, alternating_updates=False, linear_averaging=False
        ),
    }[algorithm](game)

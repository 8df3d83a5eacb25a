"""Causal-deviation regret (``efce.causalregret``) against brute force over every deviation strategy;
the exact EFCE polytope (``efce.exact``): its LP and maximum-entropy solutions have zero regret by
that independent dynamic program; and, on the job market game, EFCE reach the cooperative outcome
that no correlated (hence no Nash) equilibrium reaches (Dudik & Gordon 2009)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from efce.causalregret import causal_regrets
from efce.exact import max_entropy, solve_lp
from efce.games import job_market
from efce.strategies import profiles
from seqform.games.explicit import TreeGame
from seqform.model.tree import compile_tree
from tests.strategies import random_trees


def plan_utility(tree, plans, n):
    """Player n's expected payoff when every player follows its plan (a set of sequences)."""
    total = Fraction(0)
    for z, node in enumerate(tree.terminals.tolist()):
        if all(int(tree.node_seq[m, node]) in plans[m] for m in range(tree.num_players)):
            total += tree.terminal_chance_exact[z] * tree.payoff_exact[z][n]
    return total


def sub_plans(tree, n, m):
    """Every pure plan of player n on the sub-treeplex rooted at information set m."""
    kids = {}
    for j in tree.player_infosets[n].tolist():
        kids.setdefault(int(tree.infoset_parent_seq[j]), []).append(j)

    def at(j):
        f, k = int(tree.infoset_first_seq[j]), int(tree.infoset_num_actions[j])
        out = []
        for a in range(k):
            parts = [at(c) for c in kids.get(f + a, ())]
            for combo in itertools.product(*parts):
                out.append(frozenset({f + a}).union(*combo))
        return out

    return at(m)


def brute_regrets(prof, p):
    """max over deviation strategies, by enumeration, for every trigger: {(n, m, a): regret}."""
    tree = prof.tree
    out = {}
    for n in range(tree.num_players):
        for m in tree.player_infosets[n].tolist():
            f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
            below = set().union(*sub_plans(tree, n, m))
            for a in range(k):
                best = None
                for dev in sub_plans(tree, n, m):
                    gain = Fraction(0)
                    for idx, pk in enumerate(p):
                        if not pk:
                            continue
                        s = prof.profile(idx)
                        own = prof.plans[n][s[n]]
                        if f + a not in own:
                            continue
                        plans = [prof.plans[j][s[j]] for j in range(tree.num_players)]
                        dplans = list(plans)
                        dplans[n] = (own - below) | dev
                        gain += pk * (plan_utility(tree, dplans, n) - plan_utility(tree, plans, n))
                    best = gain if best is None else max(best, gain)
                out[n, m, a] = best
    return out


@st.composite
def small_games_and_distributions(draw):
    tree = draw(random_trees(max_depth=3, max_actions=2, max_nodes=16, max_pure_strategies=8, chance=True))
    game = TreeGame(tree, "random")
    prof = profiles(compile_tree(game))
    weights = draw(st.lists(st.integers(0, 3), min_size=prof.count, max_size=prof.count))
    if not any(weights):
        weights[0] = 1
    total = sum(weights)
    return prof, [Fraction(w, total) for w in weights]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_games_and_distributions())
def test_dynamic_program_equals_brute_force(case):
    prof, p = case
    brute = brute_regrets(prof, p)
    for d in causal_regrets(prof, p):
        assert d.regret == brute[d.player, d.infoset, d.action]


def test_job_market_regrets():
    prof = profiles(compile_tree(job_market()))
    # student plans: 0 study/yes, 1 study/no, 2 not/yes, 3 not/no; employer: 0 always hire,
    # 1 hire on yes, 2 hire on no, 3 never
    code = [Fraction(0)] * 16
    code[prof.index((0, 1))] = code[prof.index((1, 2))] = Fraction(1, 2)
    assert max(d.regret for d in causal_regrets(prof, code)) == 0  # the code-word EFCE
    always = [Fraction(0)] * 16
    always[prof.index((0, 0))] = Fraction(1)  # study and always be hired
    worst = max(causal_regrets(prof, always), key=lambda d: d.regret)
    assert worst.regret == 1 and worst.player == 0  # skip studying: 5 instead of 4


def test_job_market_efce_is_cooperative_but_no_correlated_equilibrium_is():
    prof = profiles(compile_tree(job_market()))
    best = solve_lp(prof, "welfare")
    assert [float(x) for x in best.payoffs] == pytest.approx([4, 5]) and best.max_regret <= 0
    # probability of the cooperative outcome (student studies and is hired), per reduced profile
    coop = np.zeros(prof.count)
    for k in range(prof.count):
        st_, em = prof.profile(k)
        answer_yes = st_ == 0
        if st_ in (0, 1):
            coop[k] = 1.0 if em == 0 or (em == 1 and answer_yes) or (em == 2 and not answer_yes) else 0.0
    assert float(coop @ solve_lp(prof, coop).p) == pytest.approx(1.0)
    # strategic-form correlated equilibria (a separate LP): no player gains by any switch of its
    # whole reduced strategy; they never reach the cooperative outcome
    from scipy.optimize import linprog

    rows = []
    for n in range(2):
        for a, b in itertools.permutations(range(prof.shape[n]), 2):
            r = np.zeros(prof.count)
            for k in range(prof.count):
                s = list(prof.profile(k))
                if s[n] != a:
                    continue
                t = list(s)
                t[n] = b
                r[k] = prof.utility[prof.index(tuple(t)), n] - prof.utility[k, n]
            rows.append(r)
    res = linprog(
        -coop,
        A_ub=np.array(rows),
        b_ub=np.zeros(len(rows)),
        A_eq=np.ones((1, prof.count)),
        b_eq=[1],
        bounds=[(0, None)] * prof.count,
        method="highs",
    )
    assert res.status == 0 and -res.fun <= 1e-9


def test_job_market_maximum_entropy():
    prof = profiles(compile_tree(job_market()))
    me = max_entropy(prof)
    assert [float(x) for x in me.payoffs] == pytest.approx([2.5, 0.2536], abs=1e-3)
    assert abs(float(me.max_regret)) <= 1e-6
    biased = max_entropy(prof, (1, 1))
    assert [float(x) for x in biased.payoffs] == pytest.approx([4, 5], abs=5e-3)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_games_and_distributions())
def test_lp_and_maximum_entropy_solutions_have_zero_regret(case):
    prof, _ = case
    for res in (solve_lp(prof, "welfare"), solve_lp(prof, "feasibility"), max_entropy(prof)):
        scale = max(1.0, float(np.abs(prof.utility).max()))
        assert float(max((d.regret for d in causal_regrets(prof, list(res.p))), default=0)) <= 1e-6 * scale

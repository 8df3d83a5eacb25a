"""Exact refined equilibria (trembling-LP limit), checked against independent computations:

* the limit profile's value against seqform's certified Nash LP and the brute-force reduced
  normal form (tests/oracle/brute_force.py); its exploitability exactly zero (``seqform.evaluate``);
* sequential rationality against the brute-force information-set regret oracle
  (tests/oracle/infoset_regret.py): each player's limit strategy against the opponent's perturbed
  strategy at a small eps, solved exactly at that number on the accepted basis, has regret O(eps)
  at every information set;
* the fixed-eps solutions converge to the limit as eps shrinks.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import refinements
import seqform
from refinements.iterativerefinement import exact_plans
from seqform.errors import UnsupportedGameError
from seqform.model.strategy import behaviour_from_realization
from tests.oracle.brute_force import brute_force_value_exact
from tests.oracle.infoset_regret import infoset_regrets
from tests.strategies import random_games


def perturbed_plans(sol, eps: Fraction) -> list:
    """Both players' exact plans at ``eps`` on the basis the limit search accepted."""
    x, y, _ = exact_plans(sol.lp, eps, sol.basis)
    return [x, y]


def oracle_regrets(game, sol, eps: Fraction) -> dict:
    """{(player, key): regret} of each player's limit strategy against the other's perturbed one."""
    tree = sol.tree
    plans = perturbed_plans(sol, eps)
    pert_b = [behaviour_from_realization(tree, p, np.array([float(v) for v in plans[p]])) for p in range(2)]
    lim_b = [np.array([float(v) for v in b]) for b in sol.exact_profile.behaviour]
    key_of = {(int(tree.infoset_player[i]), tree.infoset_key[i]): i for i in range(len(tree.infoset_player))}
    out = {}
    for p in range(2):
        beh = [lim_b[0], pert_b[1]] if p == 0 else [pert_b[0], lim_b[1]]

        def probs(pl, key, beh=beh):
            i = key_of[(pl, key)]
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            return list(beh[pl][f : f + k])

        for (pl, key), r in infoset_regrets(game, probs).items():
            if pl == p:
                out[(pl, key)] = r
    return out


def check_refined(game, sol, eps=Fraction(1, 10**7), tol=1e-4):
    assert sol.certified, sol.notes
    assert sol.nash_value is None or sol.value == sol.nash_value
    assert sol.max_infoset_regret == 0 and sol.positive_regret_infosets == 0
    assert all(r == 0 for r in sol.infoset_regret if r is not None)
    ev = seqform.evaluate(sol.tree, sol.exact_profile)
    assert ev.exact and ev.exploitability == 0
    regs = oracle_regrets(game, sol, min(eps, sol.basis_eps / 10))
    # the oracle's None (unreached) matches ours: information sets chance never reaches
    assert all(r is None or r <= tol for r in regs.values()), max(r for r in regs.values() if r is not None)
    assert sum(r is None for r in regs.values()) == sum(r is None for r in sol.infoset_regret)


@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_kuhn(concept):
    g = seqform.games.kuhn()
    sol = refinements.refine(g, concept, cross_check=True)
    assert sol.value == Fraction(-1, 18)
    check_refined(g, sol)


@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_threat_zero_sum_takes_what_nash_gives_up(concept):
    g = seqform.games.threat_zero_sum()
    nash = seqform.solve(g)
    sol = refinements.refine(g, concept)
    check_refined(g, sol)
    # player 1's information set after player 0's mistake: the refined strategy wins 5 there
    i = 1  # global id of player 1's only information set
    assert sol.tree.infoset_player[i] == 1
    f = int(sol.tree.infoset_first_seq[i])
    refined = sol.exact_profile.behaviour[1][f : f + 2]
    assert list(refined) == [1, 0]  # x: wins 5
    gain = lambda b: 5 * b[0] + 0 * b[1]  # player 1's payoff after y
    assert gain(refined) == 5
    # some Nash equilibria give it up: the profile (x, y) has exact exploitability 0
    bad = seqform.Profile([nash.exact_profile.behaviour[0], [Fraction(1), Fraction(0), Fraction(1)]])
    assert seqform.evaluate(sol.tree, bad).exploitability == 0
    assert gain([0, 1]) == 0


@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_guess_the_ace(concept):
    g = seqform.games.guess_the_ace()
    sol = refinements.refine(g, concept)
    check_refined(g, sol)
    tree = sol.tree
    i = [j for j in range(len(tree.infoset_player)) if tree.infoset_player[j] == 1][0]
    f = int(tree.infoset_first_seq[i])
    assert list(sol.exact_profile.behaviour[1][f : f + 2]) == [0, 1]  # always "other"
    # Nash allows guessing "ace" up to half the time (exactly unexploitable), no more
    for q, nash_ok in ((Fraction(1, 2), True), (Fraction(51, 100), False)):
        b1 = [Fraction(1), q, 1 - q]
        ev = seqform.evaluate(tree, seqform.Profile([sol.exact_profile.behaviour[0], b1]))
        assert (ev.exploitability == 0) == nash_ok


def test_three_players_with_a_custom_perturbation_are_refused_clearly():
    # efpe and qpe take any number of players (tests/refinements/test_nplayer_refine.py); a custom one two
    with pytest.raises(
        UnsupportedGameError, match="3 players; the refined equilibria .* two-player games, zero-sum or general-sum"
    ):
        refinements.refine(seqform.games.selten_horse(), lambda t: refinements.custom(t))


@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_leduc_refined_is_certified_where_plain_lp_has_regret(concept):
    g = seqform.games.leduc()
    nash = seqform.solve(g)
    plain = seqform.infoset_regret(nash.tree, nash.profile)
    assert plain.count_positive(1e-9) > 0 and plain.max_regret > 1  # the plain LP plays badly somewhere
    sol = refinements.refine(g, concept)
    assert sol.certified and sol.value == nash.value
    assert sol.max_infoset_regret == 0 and all(r == 0 for r in sol.infoset_regret)
    # the perturbed equilibria on the accepted basis have vanishing float regret too
    tree = sol.tree
    plans = perturbed_plans(sol, sol.basis_eps / 100)
    prof = seqform.Profile(
        [behaviour_from_realization(tree, p, np.array([float(v) for v in plans[p]])) for p in range(2)]
    )
    assert seqform.infoset_regret(tree, prof).max_regret < 1e-3


@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_fixed_eps_converges_to_the_limit(concept):
    g = seqform.games.kuhn()
    lim = refinements.refine(g, concept)
    dist, vals = [], []
    for eps in (1e-2, 1e-3, 1e-4, 1e-5):
        s = refinements.refine(g, concept, eps=eps)
        assert s.tremble_violation <= 0
        vals.append(abs(s.value - lim.value))
        dist.append(
            max(
                float(abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)).max())
                for a, b in zip(s.profile.behaviour, lim.exact_profile.behaviour)
            )
        )
    assert vals == sorted(vals, reverse=True) and vals[-1] < 1e-4
    assert dist[-1] < 1e-3 and dist[-1] <= dist[0]


@given(random_games(max_depth=4, max_actions=3, max_nodes=30, max_pure_strategies=16))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_games_limits_are_nash_with_zero_regret(game):
    v = brute_force_value_exact(game)
    for concept in ("efpe", "qpe"):
        sol = refinements.refine(game, concept)
        assert sol.value == v
        check_refined(game, sol, tol=1e-3)


@given(random_games(max_depth=4, max_actions=3, max_nodes=30, max_pure_strategies=16))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_games_fixed_eps_converge_to_the_limit(game):
    for concept in ("efpe", "qpe"):
        lim = refinements.refine(game, concept)
        # the perturbed equilibria on the accepted basis (optimal for all small enough eps; ours are
        # 10 to 100,000 times below the eps it was found at, where it is exactly optimal too)
        # approach the limit behavioural strategies at every information set, reached or not
        dist = []
        for k in (10, 1000, 100000):
            plans = perturbed_plans(lim, lim.basis_eps / k)
            b = [behaviour_from_realization(lim.tree, p, np.array([float(v) for v in plans[p]])) for p in range(2)]
            dist.append(
                max(
                    float(np.max(np.abs(b[p] - np.array([float(v) for v in lim.exact_profile.behaviour[p]]))))
                    for p in range(2)
                )
            )
        assert dist[-1] <= 1e-3 and dist[-1] <= dist[0] + 1e-12
        # and HiGHS's fixed-eps solutions (made exact at eps) have values converging to the limit's
        gaps = [abs(refinements.refine(game, concept, eps=e).value - lim.value) for e in (1e-2, 1e-4)]
        assert gaps[1] <= gaps[0] and gaps[1] <= Fraction(1, 100)

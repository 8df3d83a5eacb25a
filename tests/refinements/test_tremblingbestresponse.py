"""Best responses inside perturbed polytopes (``refinements.tremblingbestresponse``) and the
perturbed-game measures built on them: against a linear program (tests/oracle), exactly zero at
the exact perturbed equilibrium, positive elsewhere."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import refinements
import seqform
from refinements.errors import PerturbationError
from refinements.perturbation import custom, efpe, qpe
from refinements.tremblingbestresponse import perturbed_measures, trembling_best_response
from seqform.model.strategy import Profile, behaviour_from_realization_exact
from tests.oracle.perturbed_best_response_lp import lp_best_response_value
from tests.strategies import random_games

PERTURBATIONS = {"efpe": efpe, "qpe": qpe}


def bounds_at(pert, p: int, eps: Fraction, n: int) -> tuple:
    return (pert.beta_exact(p, eps) or [Fraction(0)] * n, pert.lam_exact(p, eps) or [Fraction(0)] * n)


@given(
    random_games(max_depth=5, max_nodes=50),
    st.sampled_from(["efpe", "qpe"]),
    st.lists(st.integers(-9, 9), min_size=200, max_size=200),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_dynamic_program_equals_the_lp(game, concept, draws):
    """For arbitrary sequence payoffs g, the exact trembling best response value equals the
    LP optimum (within 1e-9), and its plan is feasible and attains it exactly."""
    tree = seqform.compile_tree(game)
    pert = PERTURBATIONS[concept](tree)
    eps = Fraction(1, 20)
    for p in range(2):
        n = tree.num_sequences[p]
        g = [Fraction(draws[s % len(draws)], 1 + s % 3) for s in range(n)]
        beta, lam = bounds_at(pert, p, eps, n)
        br = trembling_best_response(tree, p, g, beta, lam)
        assert abs(float(br.value) - lp_best_response_value(tree, p, g, beta, lam)) <= 1e-9 * (1 + abs(float(br.value)))
        x, par = br.plan, tree.seq_parent[p].tolist()
        assert x[0] == 1 and sum(a * b for a, b in zip(g, x)) == br.value
        for s in range(1, n):
            assert x[s] >= beta[s] * x[par[s]] and x[s] >= lam[s]
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            assert sum(x[f : f + k]) == x[int(tree.infoset_parent_seq[i])]


def exact_equilibrium(tree, concept: str, eps: Fraction):
    sol = refinements.refine(tree, concept, eps=float(eps))
    x, y = sol.exact_realization
    prof = Profile([behaviour_from_realization_exact(tree, p, [Fraction(v) for v in z]) for p, z in ((0, x), (1, y))])
    return sol, prof


@pytest.mark.parametrize("game", ["kuhn", "leduc", "threat_zero_sum"])
@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_measures_are_exactly_zero_at_the_perturbed_equilibrium_and_positive_elsewhere(game, concept):
    tree = seqform.compile_tree(seqform.games.load(game))
    eps = Fraction(1, 100)
    sol, prof = exact_equilibrium(tree, concept, eps)
    assert sol.certified  # the fixed-eps solve is now certified by the same best responses
    pert = PERTURBATIONS[concept](tree)
    m = perturbed_measures(tree, pert, eps, prof, Fraction(sol.value))
    assert (m.exploitability, m.value_gap, m.max_infoset_regret, m.tremble_violation) == (0, 0, 0, 0)
    assert all(isinstance(v, Fraction) for v in (m.exploitability, m.value_gap))
    # the uniform profile is inside the polytopes (eps small) but not an equilibrium there
    uniform = Profile(
        [
            [Fraction(1)] + [Fraction(1, int(tree.infoset_num_actions[i])) for i in tree.seq_infoset[p][1:]]
            for p in range(2)
        ]
    )
    mu = perturbed_measures(tree, pert, eps, uniform, Fraction(sol.value))
    assert mu.tremble_violation == 0 and mu.exploitability > 0 and mu.max_infoset_regret > 0


def test_an_unperturbed_equilibrium_is_not_one_of_the_perturbed_game():
    """Kuhn's LP equilibrium plays some actions with probability 0: it violates the trembles,
    and the measures say by how much."""
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    nash = seqform.solve(tree)
    m = perturbed_measures(tree, efpe(tree), Fraction(1, 100), nash.exact_profile)
    assert m.tremble_violation > 0


def test_mixed_bounds_at_one_information_set_are_refused():
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    n = tree.num_sequences[0]
    pert = custom(tree, behavioural=[[0] + [1] * (n - 1), None], realization=[[0] + [1] * (n - 1), None])
    with pytest.raises(PerturbationError, match="both behavioural and realization"):
        trembling_best_response(
            tree, 0, [Fraction(0)] * n, pert.beta_exact(0, Fraction(1, 100)), pert.lam_exact(0, Fraction(1, 100))
        )


def test_float_measures_agree_with_exact_ones():
    tree = seqform.compile_tree(seqform.games.load("leduc"))
    rng = np.random.default_rng(0)
    prof = []
    for p in range(2):
        b = np.ones(tree.num_sequences[p])
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            w = rng.integers(1, 10, k)
            b[f : f + k] = w / w.sum()
        prof.append(b)
    exact = Profile([[Fraction(v) for v in b] for b in prof])  # each float at its binary value
    m_exact = perturbed_measures(tree, qpe(tree), Fraction(1, 100), exact)
    m_float = perturbed_measures(tree, qpe(tree), 0.01, Profile(prof))
    assert float(m_exact.exploitability) == pytest.approx(m_float.exploitability, rel=1e-9)
    assert float(m_exact.max_infoset_regret) == pytest.approx(m_float.max_infoset_regret, rel=1e-9)

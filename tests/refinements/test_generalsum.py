"""Refined equilibria of general-sum games (``refinements.generalsum``): the perturbed
sequence-form LCP, checked by exact best responses (the limit is Nash), by the concepts'
definitions (``refinements.definitioncertificate``) and, at a fixed eps, against every perturbed
pure strategy (``tests/oracle/perturbed_pure.py``)."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

import refinements
import seqform
from refinements.definitioncertificate import certify_efpe, certify_qpe
from seqform.exact.sequenceformlcp import solve_lcp
from tests.oracle.perturbed_pure import best_pure_gain, meets_bounds
from tests.strategies import general_sum_games


def _pure_check(tree, sol, eps):
    """The exact perturbed equilibrium at ``eps`` meets its bounds and no perturbed pure strategy
    beats it."""
    pert = refinements.perturbation.efpe(tree) if sol.concept == "efpe" else refinements.perturbation.qpe(tree)
    q = Fraction(str(eps))
    bounds = [pert.bounds(tree, p, q) for p in range(2)]
    plans = sol.exact_realization
    assert all(meets_bounds(tree, p, plans[p], *bounds[p]) for p in range(2))
    assert best_pure_gain(tree, plans, bounds) == [0, 0]


@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_mertens_voting_separates_the_concepts(concept):
    """Mertens (1995): the unique QPE has both players vote for themselves and do the task right;
    every EFPE has someone vote for the other. Each solution passes its own definition and fails
    the other's."""
    tree = seqform.compile_tree(seqform.games.load("mertens_voting"))
    sol = refinements.refine(tree, concept)
    assert sol.certified and sol.method == "trembling-lcp" and sol.values == [1, 1]
    votes = [sol.exact_profile.behaviour[p] for p in range(2)]
    me = [b[1] for b in votes]  # sequence 1: "me", 2: "you"
    if concept == "qpe":
        assert me == [1, 1] and all(b[3] == 1 for b in votes)  # and "right" when elected
    else:
        assert 0 in me
    other = "efpe" if concept == "qpe" else "qpe"
    assert sol.certificates[concept].holds and not sol.certificates[other].holds


def test_definition_certificates_refuse_a_witness_that_is_not_completely_mixed():
    tree = seqform.compile_tree(seqform.games.load("mertens_voting"))
    pure = [[[Fraction(1), Fraction(1), Fraction(0), Fraction(1), Fraction(0)]]] * 2
    for c in (certify_efpe(tree, pure), certify_qpe(tree, pure)):
        assert not c.holds and "completely mixed" in c.reason


def test_threat_game_drops_the_non_credible_threat():
    """Kroer, Farina & Sandholm (2017), Figure 1 (left): (x, y) is Nash, held up by player 1's threat
    to play y; both refinements play y then x, for (1, 1)."""
    for concept in ("efpe", "qpe"):
        sol = refinements.refine(seqform.games.threat_general_sum(), concept)
        assert sol.certified and sol.values == [1, 1]
        assert sol.exact_realization[0][2] == 1 and sol.exact_realization[1][1] == 1


def _family(p0, p1):
    """A witness family from per-player {power: plan} dicts (plans as lists of ints)."""

    def lists(d, n):
        return [[Fraction(v) for v in d.get(k, [0] * n)] for k in range(max(d) + 1)]

    return [lists(p0, 5), lists(p1, 3)]


def test_selten_figure_2_perfect_in_the_normal_form_is_not_enough():
    """Selten (1975), Figure 2. Player 0's sequences: (), R, L, L r, L l; player 1's: (), R, L.
    Every Nash equilibrium plays R at the root (L earns player 0 at most 0 against any reply
    that is a best response, R earns 1); at player 0's second node l (2) beats r (0), so the
    unique extensive-form perfect and quasi-perfect equilibrium is (R, l) against R. (R, r)
    against R, perfect in the normal form where R r and R l are one strategy, fails both
    definitions; (R, l) passes both. The witnesses are written by hand, not by the solver."""
    tree = seqform.compile_tree(seqform.games.load("selten_fig2"))
    nash = seqform.solve(tree, method="lcp")
    assert nash.certified and nash.nash_conv == 0 and nash.exact_realization[0][1] == 1
    for concept in ("efpe", "qpe"):
        sol = refinements.refine(tree, concept)
        assert sol.certified and sol.values == [1, 1]
        b = sol.exact_profile.behaviour
        assert b[0][1] == 1 and b[0][4] == 1 and b[1][1] == 1  # R, then l off the path; R
        assert sol.certificates["efpe"].holds and sol.certificates["qpe"].holds
    p1 = {0: [1, 1, 0], 1: [0, -1, 1]}
    plays_r = _family({0: [1, 1, 0, 0, 0], 1: [0, -1, 1, 1, 0], 2: [0, 0, 0, -1, 1]}, p1)
    plays_l = _family({0: [1, 1, 0, 0, 0], 1: [0, -1, 1, 0, 1], 2: [0, 0, 0, 1, -1]}, p1)
    for certify in (certify_efpe, certify_qpe):
        bad, good = certify(tree, plays_r), certify(tree, plays_l)
        assert not bad.holds and any("P0 second" in f[0] for f in bad.failures)
        assert good.holds


@pytest.mark.parametrize("eps", [0.1, 0.01])
@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_fixed_eps_against_every_perturbed_pure_strategy(concept, eps):
    for name in ("mertens_voting", "threat_general_sum", "selten_fig2", "kuhn"):
        tree = seqform.compile_tree(seqform.games.load(name))
        if tree.constant_sum is not None:  # the LCP solves zero-sum games too
            pert = getattr(refinements.perturbation, concept)(tree)
            eq = solve_lcp(
                tree,
                bounds=[(pert.behavioural[p] or None, pert.realization[p] or None) for p in range(2)],
                eps=Fraction(str(eps)),
            )
            bounds = [pert.bounds(tree, p, Fraction(str(eps))) for p in range(2)]
            assert best_pure_gain(tree, eq.plans, bounds) == [0, 0]
            continue
        sol = refinements.refine(tree, concept, eps)
        assert sol.certified and sol.method == "perturbed-lcp"
        _pure_check(tree, sol, eps)


def _tremble_start_games():
    """Two games hypothesis found on which every prior's starting basis was infeasible for the
    symbolic EFPE LCP: a player with no moves or constant payoffs and a chance outcome of
    probability 0 leave the best responses to the prior tied at order 1, and the perturbed best
    response broke the tie at order eps without the trembles' own free mass below them."""
    from seqform.games.explicit import TreeGame

    F = Fraction
    leaf = lambda *u: ("leaf", u)  # noqa: E731
    go = lambda name, u: ("decision", 0, name, ("go",), (leaf(*u),))  # noqa: E731

    # player 0 moves at P0, P1 and P2 (one action); player 1 never moves. L then R' risks a
    # tremble to L' and 0, so the EFPE plays R at P0, for (1, 0).
    def branch(u):
        return (
            "decision",
            0,
            "P0",
            ("L", "R"),
            (("decision", 0, "P1", ("L", "R"), (go("P2", (0, 0)), leaf(*u))), leaf(*u)),
        )

    first = TreeGame(("chance", ("c0", "c1"), (F(0), F(1)), (branch((0, 0)), branch((1, 0)))))
    second = TreeGame(
        (
            "decision",
            1,
            "Q0",
            ("l", "r"),
            (
                (
                    "decision",
                    1,
                    "Q1",
                    ("l", "m", "r"),
                    (
                        leaf(0, 1),
                        leaf(0, 3),
                        ("decision", 1, "Q2", ("l", "m", "r"), (go("P0", (0, 0)), go("P0", (0, 0)), leaf(0, 0))),
                    ),
                ),
                (
                    "decision",
                    0,
                    "P0",
                    ("go",),
                    (
                        (
                            "chance",
                            ("c0", "c1", "c2"),
                            (F(0), F(2, 5), F(3, 5)),
                            (("decision", 0, "P1", ("L", "R"), (leaf(0, 0), leaf(0, 0))), leaf(0, 0), leaf(0, 5)),
                        ),
                    ),
                ),
            ),
        )
    )
    return first, second


@pytest.mark.parametrize("which", [0, 1])
def test_tremble_start_is_feasible_for_every_prior(which):
    """The start is the perturbed best response to the prior; it must be feasible whatever the
    prior, so one attempt per seed succeeds. The refined equilibria pass their definitions."""
    tree = seqform.compile_tree(_tremble_start_games()[which])
    pert = refinements.perturbation.efpe(tree)
    bounds = [(pert.behavioural[p] or None, pert.realization[p] or None) for p in range(2)]
    for seed in range(5):
        eq = solve_lcp(tree, bounds=bounds, seed=seed, attempts=1)
        assert eq.seed == seed
    for concept in ("efpe", "qpe"):
        sol = refinements.refine(tree, concept)
        assert sol.certified and sol.certificates[concept].holds
        fixed = refinements.refine(tree, concept, 0.1)
        assert fixed.certified
        _pure_check(tree, fixed, 0.1)
    if which == 0:
        sol = refinements.refine(tree, "efpe")
        assert sol.values == [1, 0] and sol.exact_profile.behaviour[0][2] == 1  # R at P0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(general_sum_games(max_nodes=18))
def test_random_general_sum_games(g):
    """Random general-sum games with chance: the limit is an exact Nash equilibrium that passes
    its concept's definition; at eps = 1/10 no perturbed pure strategy beats the perturbed
    equilibrium."""
    tree = seqform.compile_tree(g)
    if tree.constant_sum is not None:
        return
    for concept in ("efpe", "qpe"):
        sol = refinements.refine(tree, concept)
        assert sol.certified, sol.notes
        assert sol.certificates[concept].holds
        fixed = refinements.refine(tree, concept, 0.1)
        assert fixed.certified
        _pure_check(tree, fixed, 0.1)


@pytest.mark.slow  # the default tier: random general-sum games, the threat game, Selten's figure 2, Mertens' game
def test_raked_leduc_nash_and_qpe():
    """The issue's general-sum Leduc: a 5% rake. Exact Nash by the LCP (floating-point path,
    exact final basis) and the exact QPE limit, certified by its definition."""
    g = seqform.games.load("leduc(rake=5)")
    tree = seqform.compile_tree(g)
    assert tree.constant_sum is None
    nash = seqform.solve(tree)
    assert nash.certified and nash.method == "lcp" and nash.nash_conv == 0
    sol = refinements.qpe(tree)
    assert sol.certified and sol.certificates["qpe"].holds

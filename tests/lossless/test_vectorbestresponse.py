"""The vector-form best response over an abstraction (``lossless.vectorbestresponse``) against
the exact best response on the compiled *original* game tree (``seqform.verify.evaluate`` with
exact arithmetic): the profile is lifted from the abstraction to the original game, so the check
also tests that best responses to class-constant strategies lose nothing by being class-constant.

The floating-point values must lie within their own rigorous error bounds of the exact values,
and the bounds must be small (a bound that is always huge would pass vacuously).
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lossless
import seqform
from lossless import BettingBuilder, OrderedSignalGame
from lossless.abstractlp import abstract_sequence_form
from lossless.betting import FOLD, SHOWDOWN, outcomes
from lossless.errors import AbstractionError
from lossless.sequencelayout import sequence_layout
from lossless.vectorbestresponse import behaviour_from_plan, best_response, bracket, normalised_behaviour
from seqform.lp.zerosumlp import solve_lp
from seqform.model.strategy import Profile
from seqform.verify.evaluate import evaluate
from tests.lossless.test_shrink_random import ordered_signal_games

TIGHT = 1e-9  # the bounds stay below this on these games (chips of order 1 to 100)


def tree_profile(layout, abstract_tree, behaviours) -> Profile:
    """The compiled abstract game's profile (exact Fractions) playing the layout's behaviours,
    normalised exactly as the vector form normalises them: through the information-set keys
    (point, class, betting node) of ``lossless.abstractgame``."""
    out = []
    for p in range(2):
        b = np.asarray(behaviours[p], dtype=np.float64)
        prof = [Fraction(1)] * abstract_tree.num_sequences[p]
        for m in abstract_tree.player_infosets[p].tolist():
            _, c, v = abstract_tree.infoset_key[m]
            f, k = int(abstract_tree.infoset_first_seq[m]), int(abstract_tree.infoset_num_actions[m])
            vals = [Fraction(float(b[layout.base[v, a] + c])) for a in range(k)]
            tot = sum(vals)
            prof[f : f + k] = [x / tot for x in vals] if tot > 0 else [Fraction(1, k)] * k
        out.append(prof)
    return Profile(out)


def exact_best_responses(game, sh, layout, behaviours):
    """Both players' exact best-response payoffs in the original game to the lifted profile."""
    abstract_tree, original_tree = seqform.compile_tree(sh.abstract), seqform.compile_tree(game)
    lifted = sh.abstract.lift(tree_profile(layout, abstract_tree, behaviours), abstract_tree, original_tree)
    ev = evaluate(original_tree, lifted, exact=True)
    return [ev.values[p] + ev.gains[p] for p in range(2)]


def check(game, behaviours_of):
    sh = lossless.shrink(game)
    layout = sequence_layout(sh.abstraction)
    behaviours = behaviours_of(layout)
    exact = exact_best_responses(game, sh, layout, behaviours)
    for p in range(2):
        br = best_response(layout, p, behaviours[1 - p])
        assert abs(Fraction(br.value) - exact[p]) <= Fraction(br.error), (p, br, exact[p])
        assert br.error < TIGHT
    return sh, layout


def _random(seed, zeros=False):
    def make(layout):
        rng = np.random.default_rng(seed)
        out = []
        for p in range(2):
            b = rng.random(layout.num_sequences[p])
            if zeros:
                b[rng.random(len(b)) < 0.3] = 0.0
            out.append(b)
        return out

    return make


@pytest.mark.parametrize(
    "spec", ["leduc_os", "four_card", "rhode_island(ranks=2,suits=2)", "leduc_os(ranks=4,suits=2)"]
)
@pytest.mark.parametrize("zeros", [False, True])
def test_random_profiles_against_the_exact_tree(spec, zeros):
    check(seqform.games.load(spec), _random(7, zeros))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ordered_signal_games(), st.integers(0, 2**16), st.booleans())
def test_random_games(game, seed, zeros):
    """Random decks (weighted too), rounds, betting trees and hand orders."""
    check(game, _random(seed, zeros))


@pytest.mark.parametrize("spec", ["leduc_os", "rhode_island(ranks=2,suits=2)"])
def test_bracket_of_the_lp_equilibrium_holds_the_exact_value(spec):
    """The abstract LP's floating-point equilibrium (HiGHS) brackets the exact game value, which
    ``lossless.solve`` certifies independently (exact LP, lifted, exact best responses)."""
    game = seqform.games.load(spec)
    sh = lossless.shrink(game)
    layout = sequence_layout(sh.abstraction)
    lp = solve_lp(abstract_sequence_form(sh.abstraction))
    b0, b1 = behaviour_from_plan(layout, 0, lp.x), behaviour_from_plan(layout, 1, lp.y)
    br = bracket(layout, b0, b1)
    exact = lossless.solve(game)
    assert exact.certified
    assert Fraction(br.lower) <= exact.value <= Fraction(br.upper)
    assert 0 <= br.width < 1e-6  # an optimal vertex up to HiGHS's tolerances


def test_the_best_response_is_a_pure_strategy_that_attains_its_value():
    """The returned response, played against the same opponent, earns the best-response value
    (the opponent's best response to it is then checked by the other player's pass)."""
    game = seqform.games.load("leduc_os")
    sh = lossless.shrink(game)
    layout = sequence_layout(sh.abstraction)
    behaviours = _random(3)(layout)
    br0 = best_response(layout, 0, behaviours[1])
    assert set(np.unique(br0.behaviour)) <= {0.0, 1.0}
    value = exact_best_responses(game, sh, layout, [br0.behaviour, behaviours[1]])
    abstract_tree, original_tree = seqform.compile_tree(sh.abstract), seqform.compile_tree(game)
    lifted = sh.abstract.lift(
        tree_profile(layout, abstract_tree, [br0.behaviour, behaviours[1]]), abstract_tree, original_tree
    )
    ev = evaluate(original_tree, lifted, exact=True)
    assert ev.gains[0] == 0 and abs(Fraction(br0.value) - ev.values[0]) <= Fraction(br0.error)
    assert value[0] == ev.values[0]


def test_normalisation_and_refusals():
    game = seqform.games.load("leduc_os")
    layout = sequence_layout(lossless.shrink(game).abstraction)
    b = normalised_behaviour(layout, 0, np.zeros(layout.num_sequences[0]))
    assert b[0] == 1 and np.all((b[1:] > 0) & (b[1:] <= 0.5))  # uniform over 2 or 3 actions
    with pytest.raises(AbstractionError, match="shape"):
        best_response(layout, 0, np.ones(3))
    with pytest.raises(AbstractionError, match="negative"):
        best_response(layout, 0, -np.ones(layout.num_sequences[1]))
    # a game whose payoffs do not sum to zero has no game value to bracket
    bb = BettingBuilder(2, 1)
    v = bb.add("decide", 0, "", player=0, actions=["a", "b"])
    bb.link(v, bb.add(FOLD, 0, "a", payoff=(1, 1)))
    bb.link(v, bb.add(SHOWDOWN, 0, "b", payoff={o: (1, -1) for o in outcomes(2)}))
    g = OrderedSignalGame(["x", "y"], private=[(1, 1)], public=[0], betting=bb.build(), rank=lambda c: c[0])
    lay = sequence_layout(lossless.shrink(g).abstraction)
    with pytest.raises(AbstractionError, match="zero"):
        bracket(lay, np.ones(lay.num_sequences[0]), np.ones(lay.num_sequences[1]))

"""The sparsified LP (``lossless.sparsifiedlp``) against the exact game value, computed without it
(``lossless.solve``: the abstract game's exact LP, lifted and certified by exact best responses in
the original game; for random games, the original game's certified LP), and its solution's
bracket by vector-form best responses."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

import lossless
import seqform
from lossless.sparsifiedlp import solve_sparsified, sparsified_lp
from lossless.vectorbestresponse import behaviour_from_plan, bracket
from tests.lossless.test_shrink_random import ordered_signal_games

TOL = 1e-7  # HiGHS's optimum against the exact value (payoffs of order 1 to 100)


def check(game, share, exact):
    sh = lossless.shrink(game, nonzeros=False, build_abstract=False)
    lp = sparsified_lp(sh.abstraction, max_correction_share=share)
    sol = solve_sparsified(lp, method="ipm")
    assert abs(sol.value - float(exact)) < TOL, (sol.value, float(exact), lp.factored)
    lay = lp.layout
    b = bracket(lay, behaviour_from_plan(lay, 0, sol.x), behaviour_from_plan(lay, 1, sol.y))
    assert Fraction(b.lower) <= exact <= Fraction(b.upper) and b.width < 1e-6
    return lp


@pytest.mark.parametrize(
    "spec",
    [
        "leduc_os",
        "leduc_os(ranks=4,suits=2)",
        "four_card",
        "rhode_island(ranks=2,suits=2)",
        # repeats on a larger game what the smaller Rhode Island checks: the slow tier
        pytest.param("rhode_island(ranks=2,suits=3)", marks=pytest.mark.slow),
    ],
)
def test_value_equals_the_exact_value(spec):
    """Factorised in every round (``max_correction_share=1``, so the factorisation is used even
    where it does not pay) and as it chooses by default."""
    game = seqform.games.load(spec)
    exact = lossless.solve(game).value
    forced = check(game, 1.0, exact)
    assert forced.explicit == [] and forced.factored
    check(game, 0.25, exact)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ordered_signal_games())
def test_random_games(game):
    """Random decks (weighted ones keep explicit entries), betting trees with arbitrary payoffs per
    outcome (ties pay too) and hand orders with many ties."""
    exact = seqform.solve(game, method="simplex")
    assert exact.certified
    check(game, 1.0, exact.value)


def test_fewer_nonzeros_where_blocks_are_large():
    """Rhode Island with a 24-card deck: the factorisation pays (default threshold) and the LP has
    fewer nonzeros than the plain abstract LP (``lossless.sizes`` counts those, through ``shrink``)."""
    game = lossless.rhode_island(ranks=6, suits=4)
    sh = lossless.shrink(game, build_abstract=False)
    lp = sparsified_lp(sh.abstraction)
    assert 2 in lp.factored  # the last round, where the showdowns are
    assert lp.nonzeros < 0.6 * sh.sizes["after"]["lp_nonzeros"]

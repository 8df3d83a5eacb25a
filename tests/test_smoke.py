"""One certified solve per package, each checked against an independent computation: the part of
the suite that .ci/run also runs against the newest and the oldest releases of our dependencies.

Oracles: the brute-force normal-form solver of ``tests/oracle/brute_force.py`` (exact, no seqform),
and for the packages that build on the LP, the certified LP value of the same game.
"""

from fractions import Fraction

import doracle
import lossless
import refinements
import seqform
from efce.exact import solve_lp as efce_lp
from efce.strategies import profiles
from tests.oracle.brute_force import brute_force_value_exact


def test_seqform_lp_equals_brute_force():
    game = seqform.games.kuhn()
    sol = seqform.solve(game)
    assert sol.certified
    assert sol.value == brute_force_value_exact(game) == Fraction(-1, 18)
    ev = seqform.evaluate(sol.tree, sol.exact_profile)
    assert ev.nash_conv == 0


def test_refinements_qpe_and_efpe_are_equilibria_of_the_game():
    game = seqform.games.kuhn()
    value = brute_force_value_exact(game)
    for concept in (refinements.qpe, refinements.efpe):
        r = concept(game)
        assert r.certified and r.value == value and r.max_infoset_regret == 0


def test_lossless_abstraction_keeps_the_value():
    game = lossless.leduc_os(ranks=3, suits=2)
    res = lossless.solve(game)
    direct = seqform.solve(game)
    assert res.certified and direct.certified
    assert res.value == direct.value


def test_double_oracle_meets_the_lp_value():
    game = seqform.games.kuhn()
    res = doracle.double_oracle(game)
    assert res.value == res.lower == res.upper == brute_force_value_exact(game)


def test_efce_welfare_lp_has_zero_regret():
    tree = seqform.compile_tree(seqform.games.load("job_market"))
    res = efce_lp(profiles(tree), "welfare")
    assert res.max_regret == 0
    # the cooperative outcome of the job market game pays (4, 5) (Dudik & Gordon 2009, section 5)
    assert [float(x) for x in res.payoffs] == [4.0, 5.0]

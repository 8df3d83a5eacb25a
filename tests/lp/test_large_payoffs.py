"""Payoffs of any size: a game whose payoffs are 10^16, 10^300 or 10^-300 solves and certifies
exactly (HiGHS sees them scaled by a power of two; the certificate uses the original rationals).

Independent checks: the brute-force normal-form oracle on the unscaled game, times the factor (a
positive multiple of every payoff multiplies the value and keeps the equilibria), and exact
best responses in the scaled game itself.
"""

import json
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

import refinements
import seqform
from seqform.errors import SolverError
from tests.oracle.brute_force import brute_force_value_exact
from tests.strategies import random_games

FACTORS = [Fraction(10) ** 16, Fraction(10) ** 300, Fraction(1, 10**300)]


class Scaled(seqform.Game):
    """``game`` with every payoff multiplied by ``k`` (exactly); everything else delegated."""

    def __init__(self, game, k: Fraction):
        self.game, self.k = game, k
        self.name, self.num_players = f"{game.name}_x{k}", game.num_players

    def root(self):
        return self.game.root()

    def player(self, h):
        return self.game.player(h)

    def infoset(self, h):
        return self.game.infoset(h)

    def actions(self, h):
        return self.game.actions(h)

    def next(self, h, a):
        return self.game.next(h, a)

    def chance(self, h):
        return self.game.chance(h)

    def utility(self, h):
        return tuple(Fraction(u) * self.k for u in self.game.utility(h))


def certified_and_exact(game) -> Fraction:
    sol = seqform.solve(game)
    assert sol.certified, sol.certificate.note if sol.certificate else "no certificate"
    assert seqform.evaluate(sol.tree, sol.exact_profile).nash_conv == 0
    return sol.value


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games(max_depth=3, max_nodes=25))
def test_scaled_random_games_certify_at_the_scaled_value(game):
    value = brute_force_value_exact(game)
    for k in FACTORS:
        assert certified_and_exact(Scaled(game, k)) == value * k


@pytest.mark.parametrize("k", FACTORS, ids=["1e16", "1e300", "1e-300"])
def test_refined_equilibria_of_scaled_kuhn(k):
    scaled = Scaled(seqform.games.kuhn(), k)
    for concept in (refinements.qpe, refinements.efpe):
        r = concept(scaled)
        assert r.certified and r.value == Fraction(-1, 18) * k
    fixed = refinements.efpe(scaled, eps=1e-3)
    assert fixed.tremble_violation == 0


def test_efg_file_with_payoffs_of_1e300_through_the_cli(tmp_path):
    kuhn = seqform.compile_tree(seqform.games.kuhn())
    plain = tmp_path / "kuhn.efg"
    seqform.write_efg(kuhn, plain)
    big = tmp_path / "kuhn300.efg"
    big.write_text(_scale_efg_payoffs(plain.read_text(), 10**300))
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "solve", str(big), "--json", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["certified"] and Fraction(out["value"]) == Fraction(-1, 18) * 10**300
    assert out["value_float"] == pytest.approx(-1 / 18 * 1e300, rel=1e-12)


def _scale_efg_payoffs(text: str, k: int) -> str:
    import re

    return re.sub(
        r"\{ ([-0-9/, ]+) \}",
        lambda m: "{ " + ", ".join(str(Fraction(v) * k) for v in m.group(1).split(",")) + " }",
        text,
    )


def test_what_highs_still_rejects_is_named():
    import numpy as np
    import scipy.sparse as sp

    from seqform.lp.highs import INF, solve_highs

    K = sp.csc_matrix(np.array([[1e16, 1.0]]))
    with pytest.raises(SolverError, match=r"1 matrix entries exceed 1e\+15 in magnitude \(largest 1e\+16\)"):
        solve_highs(K, np.ones(2), np.zeros(2), np.full(2, INF), np.array([-INF]), np.array([1.0]), maximize=True)

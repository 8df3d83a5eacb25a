"""The papers' worst-case bounds plotted beside measured curves (``seqform.study.regretbounds``):
the constants from the games' rules, and measured exploitability never above them."""

import math

import pytest

import seqform
from seqform.study.regretbounds import exploitability_bound
from seqform.study.verifyharness import verify


def test_kuhn_constants_from_the_rules():
    """Kuhn: payoffs range over [-2, 2] (D = 4), each player has 6 information sets of 2 actions:
    (4 * 6 * sqrt(2) + 4 * 6 * sqrt(2)) / 2 / sqrt(T)."""
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    per_player = 4 * 6 * math.sqrt(2)
    assert exploitability_bound(tree, "cfr", 1) == pytest.approx(per_player, rel=1e-12)
    assert exploitability_bound(tree, "cfr", 400) == pytest.approx(per_player / 20, rel=1e-12)
    assert exploitability_bound(tree, "es-mccfr", 1) == pytest.approx(per_player * (1 + math.sqrt(2 / 0.1)), rel=1e-12)
    for unbounded in ("cfr+", "dcfr", "pcfr+", "os-mccfr", "egt"):
        assert exploitability_bound(tree, unbounded, 10) is None


@pytest.mark.parametrize("game,iterations", [("kuhn", 1000), ("leduc", 200)])
@pytest.mark.parametrize("solver", ["cfr", "cfr-simultaneous"])
def test_measured_exploitability_stays_under_the_cfr_bound(game, iterations, solver):
    rep = verify(solver, seqform.games.load(game), iterations)
    assert all(p.theorem_bound is not None and p.exploitability <= p.theorem_bound for p in rep.points)
    assert rep.to_json()["points"][-1]["theorem_bound"] == rep.points[-1].theorem_bound


def test_external_sampling_stays_under_its_bound_over_seeds():
    rep = verify("es-mccfr", seqform.games.load("kuhn"), 500, seeds=5)
    assert all(p.exploitability_q90 <= p.theorem_bound for p in rep.points)

"""CFR+ on perturbed polytopes (``refinements.perturbedcfr``), measured in the perturbed game it
solves by exact trembling best responses (``refinements.tremblingbestresponse``), and against
plain CFR+ as the tremble vanishes."""

import json

import numpy as np
import pytest

import refinements
import seqform
from refinements.perturbedcfr import PerturbedCFRPlus
from seqform.iterative.cfr import RegretMinimizer
from tests.refinements.test_refine_cli import run


@pytest.mark.parametrize("game,iterations,bound", [("kuhn", 1000, 1e-4), ("leduc", 2000, 2e-4)])
@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_converges_in_the_perturbed_game(game, iterations, bound, concept):
    tree = seqform.compile_tree(seqform.games.load(game))
    truth = refinements.refine(tree, concept, eps=0.01)
    s = PerturbedCFRPlus(tree, concept, eps=0.01)
    s.step(50)
    early = truth.measure(s.average_profile())
    s.step(iterations - 50)
    late = truth.measure(s.average_profile())
    assert late["perturbed_exploitability"] < bound < early["perturbed_exploitability"]
    for prof in (s.average_profile(), s.current_profile()):  # both inside the polytopes
        assert truth.measure(prof)["tremble_violation"] <= 1e-12


@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_without_a_tremble_it_is_cfr_plus(concept):
    """At eps = 0 the perturbed polytope is the treeplex: the run is CFR+'s (checked against
    OpenSpiel in tests/iterative), bit for bit. (A tiny positive eps is not a test of this:
    regret matching+ is discontinuous where all regrets are 0, and 1e-15 flips it.)"""
    tree = seqform.compile_tree(seqform.games.load("leduc"))
    a, b = PerturbedCFRPlus(tree, concept, eps=0), RegretMinimizer(tree, "cfr+")
    a.step(100)
    b.step(100)
    for p in range(2):
        assert np.array_equal(a.regret[p], b.regret[p]) and np.array_equal(a.cumulative[p], b.cumulative[p])


def test_checkpoint_resumes_bit_for_bit(tmp_path):
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    whole = PerturbedCFRPlus(tree, "efpe", eps=0.02)
    whole.step(60)
    part = PerturbedCFRPlus(tree, "efpe", eps=0.02)
    part.step(25)
    part.save(tmp_path / "c.npz")
    resumed = PerturbedCFRPlus.load(tmp_path / "c.npz", tree)
    assert (resumed.algorithm, resumed.eps) == ("cfr+-efpe", 0.02)
    resumed.step(35)
    for p in range(2):
        assert np.array_equal(whole.cumulative[p], resumed.cumulative[p])
        assert np.array_equal(whole.regret[p], resumed.regret[p])


def test_verify_runs_it_by_name():
    r = run(
        "verify", "cfr+-qpe", "kuhn", "--iterations", "300", "--eps", "0.01", "--refined", "qpe", "--json", "--quiet"
    )
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["solver"] == "cfr+-qpe" and rep["perturbed"]["concept"] == "qpe"
    pts = rep["points"]
    assert pts[-1]["perturbed_exploitability"] < pts[0]["perturbed_exploitability"] / 100

"""The CFR family (``seqform.iterative.cfr``): iterates equal OpenSpiel's solvers', average strategies reach
stated exploitability thresholds (exploitability from ``seqform.verify.exploitability``, itself checked
against OpenSpiel in test_openspiel), checkpoints resume bit for bit, and bad use is refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import seqform
from seqform.errors import SeqformError
from seqform.iterative.cfr import ALGORITHMS, CheckpointError, RegretMinimizer
from seqform.model.tree import compile_tree
from seqform.verify.exploitability import exploitability
from tests.oracle.peers import openspiel_solver
from tests.strategies import random_games


def expl(tree, solver) -> float:
    return exploitability(tree, solver.average_profile()).exploitability


# Leduc repeats on a larger game what Kuhn checks: the slow tier
@pytest.mark.parametrize("name,iterations", [("kuhn", 100), pytest.param("leduc", 25, marks=pytest.mark.slow)])
@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "dcfr", "lcfr", "cfr-simultaneous"])
def test_iterates_equal_openspiels(name, iterations, algorithm):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from seqform.io.openspiel import from_openspiel_policy

    game = pyspiel.load_game(f"{name}_poker")
    tree = compile_tree(getattr(seqform.games, name)())  # node for node OpenSpiel's tree
    theirs = openspiel_solver(algorithm, game)
    ours = RegretMinimizer(tree, algorithm)
    for _ in range(iterations):
        ours.step()
        theirs.evaluate_and_update_policy()
        avg = theirs.average_policy()
        mine = ours.average_profile().behaviour
        other = from_openspiel_policy(tree, avg).behaviour
        assert max(np.abs(mine[p] - other[p]).max() for p in (0, 1)) <= 1e-9
    # the average strategies agree at every iteration; OpenSpiel's own exploitability (about a
    # second on Leduc) is compared once, at the end
    assert abs(expl(tree, ours) - os_exploitability.exploitability(game, avg)) <= 1e-9


@pytest.mark.parametrize(
    "name,algorithm,iterations,threshold",
    [
        ("kuhn", "cfr", 1000, 2e-3),
        ("kuhn", "cfr+", 1000, 2e-4),
        ("kuhn", "dcfr", 1000, 2e-4),
        ("leduc", "cfr", 1000, 2e-2),
        ("leduc", "cfr+", 1000, 1e-3),
        ("leduc", "dcfr", 1000, 1e-3),
    ],
)
def test_exploitability_thresholds(name, algorithm, iterations, threshold):
    tree = compile_tree(getattr(seqform.games, name)())
    s = RegretMinimizer(tree, algorithm)
    s.step(iterations)
    assert s.iteration == iterations and s.traversals == 2 * iterations
    assert expl(tree, s) < threshold


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games())
def test_random_games_converge_to_the_lp_value(game):
    tree = compile_tree(game)
    value = float(seqform.solve(tree).value)
    scale = max(1.0, float(np.abs(tree.payoff).max()))
    s = RegretMinimizer(tree, "cfr+")
    s.step(3000)
    ev = exploitability(tree, s.average_profile())
    assert ev.exploitability <= 1e-2 * scale
    # the average profile's value is within its exploitability of the game value
    assert abs(ev.values[0] - value) <= 2 * ev.exploitability + 1e-9


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_checkpoint_resume_is_bit_identical(tmp_path, algorithm):
    tree = compile_tree(seqform.games.leduc())
    whole = RegretMinimizer(tree, algorithm)
    whole.step(62)
    first = RegretMinimizer(tree, algorithm)
    first.step(37)
    path = tmp_path / "run.npz"
    first.save(path)
    resumed = RegretMinimizer.load(path, tree)
    assert resumed.algorithm == algorithm and resumed.iteration == 37
    resumed.step(25)
    for k in ("regret", "cumulative", "behaviour"):
        for p in (0, 1):
            assert np.array_equal(getattr(whole, k)[p], getattr(resumed, k)[p])
    for p in (0, 1):
        assert np.array_equal(whole.average_profile().behaviour[p], resumed.average_profile().behaviour[p])


def test_a_checkpoint_resumes_only_its_own_algorithm_and_game(tmp_path):
    path = tmp_path / "plus.npz"
    s = RegretMinimizer(seqform.games.kuhn(), "cfr+")
    s.step(3)
    s.save(path)
    with pytest.raises(CheckpointError, match="'cfr\\+' run; it cannot resume as 'cfr'"):
        RegretMinimizer.load(path, seqform.games.kuhn(), algorithm="cfr")
    with pytest.raises(CheckpointError, match="sequences"):
        RegretMinimizer.load(path, seqform.games.leduc())
    (tmp_path / "junk.npz").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="not a seqform regret checkpoint"):
        RegretMinimizer.load(tmp_path / "junk.npz", seqform.games.kuhn())


def test_an_unknown_algorithm_is_refused():
    with pytest.raises(SeqformError, match="unknown regret-minimisation algorithm 'cfr-'"):
        RegretMinimizer(seqform.games.kuhn(), "cfr-")


@pytest.mark.parametrize("name,iterations", [("kuhn", 40), ("threat_zero_sum", 40), ("leduc", 4)])
def test_predictive_cfr_plus_equals_an_independent_implementation(name, iterations):
    """Predictive CFR+ against tests/oracle/predictive_cfr.py (a recursive implementation over the
    Game interface): the same average strategy at every information set, every iteration."""
    from tests.oracle.predictive_cfr import PredictiveCFRPlus

    game = seqform.games.load(name)
    tree = compile_tree(game)
    ours, oracle = RegretMinimizer(tree, "pcfr+"), PredictiveCFRPlus(game)
    for _ in range(iterations):
        ours.step()
        oracle.step()
        avg = ours.average_profile()
        for i in range(len(tree.infoset_player)):
            p, n = int(tree.infoset_player[i]), int(tree.infoset_num_actions[i])
            want = oracle.average(p, tree.infoset_key[i], n)
            assert np.allclose(avg.action_probabilities(tree, i), want, rtol=0, atol=1e-9), (name, i)


def test_predictive_cfr_plus_converges_and_delay_waits():
    tree = compile_tree(seqform.games.leduc())
    p = RegretMinimizer(tree, "pcfr+")
    p.step(1000)
    assert expl(tree, p) < 1e-3
    d = RegretMinimizer(tree, "cfr+-delay", delay=50)
    d.step(50)
    assert not np.any(d.cumulative[0])  # nothing averaged before the delay
    d.step(1)
    assert np.any(d.cumulative[0])

"""MCCFR in batches (``seqform.iterative.batchedmccfr``): with one episode a batch, external and
outcome sampling have the same distribution of runs as ``MonteCarloCFR``'s; larger batches
converge too, and checkpoints resume bit for bit."""

import numpy as np
import pytest
from scipy.stats import ks_2samp

import seqform
from seqform.errors import CheckpointError, SeqformError
from seqform.iterative.batchedmccfr import BatchedExternalSampling, BatchedOutcomeSampling
from seqform.iterative.mccfr import MonteCarloCFR


def expl(tree, solver) -> float:
    return seqform.exploitability(tree, solver.average_profile()).exploitability


@pytest.mark.parametrize(
    "cls,sampling,iterations", [(BatchedExternalSampling, "external", 120), (BatchedOutcomeSampling, "outcome", 200)]
)
def test_one_episode_a_batch_is_the_scalar_algorithm(cls, sampling, iterations):
    """Two-sample Kolmogorov-Smirnov test, 20 seeds each, on Kuhn's exploitability after N
    iterations: batch=1 against the scalar walk (itself tested against OpenSpiel); reject at
    p < 0.01."""
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    ours, scalar = [], []
    for seed in range(20):
        b = cls(tree, batch=1, seed=seed)
        b.step(iterations)
        ours.append(expl(tree, b))
        m = MonteCarloCFR(tree, sampling, seed=500 + seed)
        m.step(iterations)
        scalar.append(expl(tree, m))
    assert ks_2samp(ours, scalar).pvalue >= 0.01, (np.median(ours), np.median(scalar))


@pytest.mark.parametrize("game,iterations,bound", [("kuhn", 20000, 0.01), ("leduc", 40000, 0.15)])
def test_batches_converge(game, iterations, bound):
    tree = seqform.compile_tree(seqform.games.load(game))
    s = BatchedExternalSampling(tree, batch=64, seed=2)
    s.step(640)
    early = expl(tree, s)
    s.step(iterations - 640)
    assert expl(tree, s) < bound < early
    # the work is what the samples reach, as for one episode at a time (the scalar walk's count)
    m = MonteCarloCFR(tree, "external", seed=2)
    m.step(2000)
    assert 0.8 < (s.nodes_touched / iterations) / (m.nodes_touched / 2000) < 1.25


def test_checkpoint_resumes_bit_for_bit(tmp_path):
    tree = seqform.compile_tree(seqform.games.load("leduc"))
    a = BatchedExternalSampling(tree, batch=32, seed=4)
    a.step(320)
    a.save(tmp_path / "c.npz")
    a.step(320)
    b = BatchedExternalSampling.load(tmp_path / "c.npz", tree)
    b.step(320)
    for p in range(2):
        assert np.array_equal(a.regret[p], b.regret[p]) and np.array_equal(a.cumulative[p], b.cumulative[p])
    with pytest.raises(CheckpointError):
        BatchedExternalSampling.load(tmp_path / "c.npz", seqform.compile_tree(seqform.games.load("kuhn")))
    with pytest.raises(SeqformError):
        BatchedExternalSampling(tree, batch=0)


def test_outcome_batches_converge_and_resume(tmp_path):
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    s = BatchedOutcomeSampling(tree, batch=64, seed=3)
    s.step(640)
    early = expl(tree, s)
    s.step(60000 - 640)
    assert expl(tree, s) < 0.05 < early
    s.save(tmp_path / "o.npz")
    s.step(640)
    r = BatchedOutcomeSampling.load(tmp_path / "o.npz", tree)
    assert r.exploration == 0.6 and r.algorithm == "os-mccfr-batched"
    r.step(640)
    for p in range(2):
        assert np.array_equal(s.regret[p], r.regret[p]) and np.array_equal(s.cumulative[p], r.cumulative[p])
    with pytest.raises(CheckpointError, match="os-mccfr-batched"):
        BatchedExternalSampling.load(tmp_path / "o.npz", tree)

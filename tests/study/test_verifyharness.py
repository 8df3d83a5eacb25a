"""The verification harness (``seqform.study.verifyharness`` and ``seqform verify``): its measurements equal
independent computations, it accepts every kind of source (our solvers, OpenSpiel's, a generator
of strategies), and its command line writes JSON and a plot."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import seqform
from seqform.errors import SeqformError
from seqform.iterative.cfr import RegretMinimizer
from seqform.model.strategy import uniform
from seqform.model.tree import compile_tree
from seqform.study.verifyharness import checkpoints, verify
from seqform.verify.exploitability import exploitability
from seqform.verify.infosetregret import infoset_regret


def test_checkpoints_are_log_spaced_and_end_at_the_last_iteration():
    pts = checkpoints(1000)
    assert pts[0] == 1 and pts[-1] == 1000 and pts == sorted(set(pts)) and 20 <= len(pts) <= 41


@pytest.mark.parametrize("iterations", [2**53, 2**63 - 1, 10**30])
def test_checkpoints_of_huge_counts_stay_exact_integers(iterations):
    """A study may ask for any positive integer (the fuzzer found 2^63 - 1): no int64 overflow, no
    warning, every point an int in 1..iterations, log-spaced (ratios of neighbours bounded)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pts = checkpoints(iterations)
    assert pts[0] == 1 and pts[-1] == iterations and pts == sorted(set(pts))
    assert all(type(p) is int for p in pts) and 20 <= len(pts) <= 41
    assert all(b / a < 10 ** (math.log10(iterations) / 30) for a, b in zip(pts[1:], pts[2:]))


def test_measurements_equal_independent_computations():
    tree = compile_tree(seqform.games.kuhn())
    rep = verify("cfr+", tree, 50, points=[10, 50])
    twin = RegretMinimizer(tree, "cfr+")
    twin.step(50)
    last = rep.points[-1]
    prof = twin.average_profile()
    assert last.iteration == 50 and last.traversals == 100
    assert last.exploitability == pytest.approx(exploitability(tree, prof).exploitability, abs=1e-12)
    assert last.value_gap == pytest.approx(exploitability(tree, prof).values[0] + 1 / 18, abs=1e-12)
    assert last.max_infoset_regret == pytest.approx(infoset_regret(tree, prof).max_regret, abs=1e-12)
    assert rep.game_value == seqform.solve(tree).value


def test_a_generator_of_strategies_and_the_distance_to_the_efpe():
    tree = compile_tree(seqform.games.kuhn())

    def source(t):
        while True:  # the uniform profile, forever
            yield uniform(t)

    rep = verify(source, tree, 5, refined=["efpe", "qpe"])
    assert all(p.traversals is None for p in rep.points)
    ex = exploitability(tree, uniform(tree)).exploitability
    assert all(p.exploitability == pytest.approx(ex) for p in rep.points)
    assert all(0 < p.efpe_distance <= 1 and 0 < p.qpe_distance <= 1 for p in rep.points)


def test_openspiel_solvers_through_the_harness():
    pytest.importorskip("pyspiel")
    tree = compile_tree(seqform.games.kuhn())
    ours = verify("cfr", tree, 30, points=[30]).points[-1]
    theirs = verify("openspiel-cfr", tree, 30, points=[30]).points[-1]
    assert abs(ours.exploitability - theirs.exploitability) <= 1e-9


def test_egt_through_the_harness_counts_traversals():
    rep = verify("egt", seqform.games.kuhn(), 20, points=[20])
    assert rep.points[-1].traversals > 20 * 3 and rep.points[-1].exploitability < 0.05


def test_bad_sources_are_refused():
    with pytest.raises(SeqformError, match="unknown solver 'cfr-'"):
        verify("cfr-", seqform.games.kuhn(), 3)
    with pytest.raises(SeqformError, match="yielded a int"):
        verify(lambda t: iter([1, 2, 3]), seqform.games.kuhn(), 3)
    with pytest.raises(SeqformError, match="efpe or qpe"):
        verify("cfr", seqform.games.kuhn(), 3, refined=["nfpe"])


def test_cli_json_and_plot(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "out.png"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "seqform",
            "verify",
            "cfr+",
            "kuhn",
            "--iterations",
            "40",
            "--plot",
            str(png),
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["game_value"] == "-1/18" and out["points"][-1]["iteration"] == 40
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "verify", "egt", "leduc", "--iterations", "0"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 2 and "--iterations must be at least 1" in r.stderr
    assert np.isfinite(out["points"][-1]["exploitability"])


def test_batched_solvers_run_and_are_measured_in_whole_batches():
    """A batched sampler updates its strategies once per batch: the harness steps it a batch at a
    time (never a batch of 1), and measures at the first whole batch at or after each point; the
    run is the one the solver makes alone."""
    from seqform.iterative.batchedmccfr import BatchedExternalSampling

    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    rep = verify("es-mccfr-batched", tree, 1000, points=[1, 200, 1000], seed=3)
    assert [p.iteration for p in rep.points] == [128, 256, 1024]
    alone = BatchedExternalSampling(tree, batch=128, seed=3)
    alone.step(1024)
    assert rep.points[-1].exploitability == seqform.exploitability(tree, alone.average_profile()).exploitability
    assert rep.points[-1].nodes_touched == alone.nodes_touched

"""Monte Carlo CFR (``seqform.iterative.mccfr``): its average strategies converge (exact-enough
best responses on the whole tree), its runs are distributed as OpenSpiel's MCCFR runs are, its work
follows the sample, and a checkpoint resumes it bit for bit."""

import json
import subprocess
import sys

import numpy as np
import pytest
from scipy.stats import ks_2samp

import seqform
from seqform.errors import CheckpointError, SeqformError
from seqform.iterative.mccfr import MonteCarloCFR
from tests import smallgames


def expl(tree, solver) -> float:
    return seqform.exploitability(tree, solver.average_profile()).exploitability


@pytest.mark.parametrize(
    "sampling,iterations,bound", [("external", 5000, 0.03), ("outcome", 20000, 0.03), ("chance", 4000, 0.02)]
)
def test_kuhn_average_strategy_converges(sampling, iterations, bound):
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    s = MonteCarloCFR(tree, sampling, seed=3)
    first = None
    s.step(100)
    first = expl(tree, s)
    s.step(iterations - 100)
    assert expl(tree, s) < bound < first


@pytest.mark.parametrize("sampling,iterations", [("external", 5000), ("outcome", 40000), ("chance", 3000)])
def test_leduc_and_small_games_converge(sampling, iterations):
    tree = seqform.compile_tree(seqform.games.load("leduc"))
    s = MonteCarloCFR(tree, sampling, seed=0)
    s.step(200)
    early = expl(tree, s)
    s.step(iterations - 200)
    assert expl(tree, s) < 0.4 * early
    for name in ("matching_pennies", "guess_the_ace"):
        game = getattr(smallgames, name)() if hasattr(smallgames, name) else seqform.games.load(name)
        t = seqform.compile_tree(game)
        m = MonteCarloCFR(t, sampling, seed=1)
        m.step(20000)
        assert expl(t, m) < 0.05 * max(1.0, float(np.abs(t.payoff).max()))


def openspiel_runs(game_name: str, sampling: str, seeds: int, iterations: int) -> list:
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.algorithms import external_sampling_mccfr as es
    from open_spiel.python.algorithms import outcome_sampling_mccfr as os_

    game = pyspiel.load_game(game_name)
    out = []
    for seed in range(seeds):
        np.random.seed(seed)
        s = (
            es.ExternalSamplingSolver(game, es.AverageType.SIMPLE)
            if sampling == "external"
            else os_.OutcomeSamplingSolver(game)
        )
        for _ in range(iterations):
            s.iteration()
        out.append(exploitability.exploitability(game, s.average_policy()))
    return out


@pytest.mark.parametrize(
    "game,os_name,seeds,iterations",
    # Leduc repeats on a larger game what Kuhn checks: the slow tier
    [("kuhn", "kuhn_poker", 20, 1000), pytest.param("leduc", "leduc_poker", 10, 300, marks=pytest.mark.slow)],
)
@pytest.mark.parametrize("sampling", ["external", "outcome"])
def test_runs_are_distributed_as_openspiels(game, os_name, seeds, iterations, sampling):
    """Two-sample Kolmogorov-Smirnov test on the exploitability after ``iterations`` iterations
    over independent seeds (ours: random.Random(seed); OpenSpiel: numpy's global state): the
    same algorithm gives the same distribution; reject at p < 0.01."""
    theirs = openspiel_runs(os_name, sampling, seeds, iterations)
    tree = seqform.compile_tree(seqform.games.load(game))
    ours = []
    for seed in range(seeds):
        s = MonteCarloCFR(tree, sampling, seed=1000 + seed)
        s.step(iterations)
        ours.append(expl(tree, s))
    p = ks_2samp(ours, theirs).pvalue
    assert p >= 0.01, (np.median(ours), np.median(theirs), p)


@pytest.mark.parametrize("game", ["kuhn", "leduc", "liars_dice(1,3)", "goofspiel(3)"])
@pytest.mark.parametrize("sampling", ["external", "outcome"])
def test_walks_equal_the_plain_recursion(game, sampling):
    """The library's walks (leaves read in place, chance chains in a loop, closures) make the
    same run as a plain recursion (tests/oracle/plain_mccfr.py) from the same seed, bit for bit."""
    from tests.oracle.plain_mccfr import PlainMCCFR

    tree = seqform.compile_tree(seqform.games.load(game))
    ours, plain = MonteCarloCFR(tree, sampling, seed=11), PlainMCCFR(tree, sampling, seed=11)
    ours.step(300)
    plain.step(300)
    assert ours.regret == plain.regret and ours.cumulative == plain.cumulative
    assert ours.nodes_touched == plain.nodes_touched


def test_work_follows_the_sample():
    """Outcome sampling touches one trajectory per player per iteration; external sampling a
    small part of Leduc's 9,457 nodes; both count it in ``nodes_touched``."""
    tree = seqform.compile_tree(seqform.games.load("leduc"))
    depth = int(np.max([len(tree.history(int(z))) for z in tree.terminals[:200]])) + 1
    os_ = MonteCarloCFR(tree, "outcome", seed=0)
    os_.step(100)
    assert 0 < os_.nodes_touched <= 100 * 2 * depth
    es = MonteCarloCFR(tree, "external", seed=0)
    es.step(100)
    assert 0 < es.nodes_touched < 100 * tree.num_nodes / 20


def nodes_below_the_sample(tree, solver) -> int:
    """Nodes every one of whose chance edges is the outcome the sample drew there (counted
    from the tree's arrays, root down, not by walking as the solver does)."""
    parent = tree.parent
    drawn = {c: solver._kids[c][j] for c, j in solver.chance_sample.items()}
    ok = np.zeros(tree.num_nodes, dtype=bool)
    ok[0] = True
    for v in range(1, tree.num_nodes):  # parents come first in node order
        u = int(parent[v])
        ok[v] = ok[u] and (tree.player[u] != -1 or drawn.get(u) == v)
    return int(ok.sum())


@pytest.mark.parametrize("game", ["kuhn", "leduc", "leduc(ranks=5)"])
def test_chance_sampling_walks_exactly_the_sampled_subtree(game):
    """Each player's episode touches every node below the drawn chance outcomes and no other:
    the work follows the sample (Zinkevich et al. 2007, section 4), not the tree."""
    tree = seqform.compile_tree(seqform.games.load(game))
    s = MonteCarloCFR(tree, "chance", seed=5)
    for _ in range(3):
        before = s.nodes_touched
        s.step(1)
        assert s.nodes_touched - before == 2 * nodes_below_the_sample(tree, s)
    assert s.nodes_touched < 3 * 2 * tree.num_nodes / 5


def test_chance_sampling_is_unbiased_for_cfr():
    """Over every joint chance outcome, weighted by its probability, player 0's first regret
    update equals vanilla CFR's first (RegretMinimizer "cfr", which walks no sample): the
    sampled counterfactual regrets are unbiased, exactly (up to float rounding)."""
    from itertools import product

    from seqform.iterative.cfr import RegretMinimizer

    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    nodes = tree.chance_nodes.tolist()
    expected = np.zeros(tree.num_sequences[0])
    for outcome in product(*[range(len(p)) for p in tree.chance_probs]):
        s = MonteCarloCFR(tree, "chance")
        s.chance_sample.update(zip(nodes, outcome))
        s._chance_walk()(0)  # player 0's episode, on this sample
        w = np.prod([float(tree.chance_probs[k][j]) for k, j in enumerate(outcome)])
        expected += w * np.asarray(s.regret[0])
    cfr = RegretMinimizer(tree, "cfr")
    cfr.step(1)
    np.testing.assert_allclose(expected[1:], cfr.regret[0], rtol=0, atol=1e-12)
    assert np.abs(expected).max() > 0.1


@pytest.mark.parametrize("sampling", ["external", "outcome", "chance"])
def test_checkpoint_resumes_bit_for_bit(tmp_path, sampling):
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    a = MonteCarloCFR(tree, sampling, seed=7)
    a.step(300)
    a.save(tmp_path / "c.npz")
    a.step(300)
    b = MonteCarloCFR.load(tmp_path / "c.npz", tree)
    b.step(300)
    assert a.regret == b.regret and a.cumulative == b.cumulative
    assert (a.iteration, a.nodes_touched) == (b.iteration, b.nodes_touched)
    with pytest.raises(CheckpointError):
        MonteCarloCFR.load(tmp_path / "c.npz", seqform.compile_tree(seqform.games.load("leduc")))
    (tmp_path / "bad.npz").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError):
        MonteCarloCFR.load(tmp_path / "bad.npz", tree)


def test_bad_settings_are_refused():
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    with pytest.raises(SeqformError, match="sampling"):
        MonteCarloCFR(tree, "pure")
    with pytest.raises(SeqformError, match="exploration"):
        MonteCarloCFR(tree, "outcome", exploration=1.5)


@pytest.mark.parametrize("solver", ["es-mccfr", "os-mccfr", "cs-cfr"])
def test_verify_runs_mccfr_from_the_command_line(solver):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "seqform",
            "verify",
            solver,
            "kuhn",
            "--iterations",
            "500",
            "--seed",
            "2",
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["solver"] == solver and rep["points"][-1]["iteration"] == 500
    assert rep["points"][-1]["exploitability"] < rep["points"][0]["exploitability"]


def test_several_seeds_report_medians_and_bands(tmp_path):
    """``verify(..., seeds=K)``: each point's measures are the medians over K independent runs
    (checked against the K single-seed runs made separately), inside their 10-90% bands."""
    from seqform.study.verifyharness import verify

    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    marks = [10, 100, 400]
    rep = verify("os-mccfr", tree, 400, points=marks, seed=5, seeds=5)
    singles = [verify("os-mccfr", tree, 400, points=marks, seed=5 + k) for k in range(5)]
    assert [p.iteration for p in rep.points] == marks
    for j, pt in enumerate(rep.points):
        assert pt.seeds == 5
        for attr in ("exploitability", "value_gap", "max_infoset_regret"):
            vals = [getattr(s.points[j], attr) for s in singles]
            assert getattr(pt, attr) == pytest.approx(float(np.median(vals)), rel=1e-12, abs=1e-15)
            assert getattr(pt, f"{attr}_q10") <= getattr(pt, attr) <= getattr(pt, f"{attr}_q90")
            assert min(vals) <= getattr(pt, f"{attr}_q10") and getattr(pt, f"{attr}_q90") <= max(vals)
        assert pt.nodes_touched > 0 and pt.current_exploitability is not None
    pytest.importorskip("matplotlib")
    rep.plot(str(tmp_path / "bands.png"))
    assert (tmp_path / "bands.png").stat().st_size > 0
    with pytest.raises(SeqformError, match="seeds"):
        verify(MonteCarloCFR(tree, "outcome"), tree, 10, seeds=2)


def test_seeds_from_the_command_line():
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "seqform",
            "verify",
            "es-mccfr",
            "kuhn",
            "--iterations",
            "200",
            "--seeds",
            "3",
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    last = json.loads(r.stdout)["points"][-1]
    assert last["seeds"] == 3
    assert last["exploitability_q10"] <= last["exploitability"] <= last["exploitability_q90"]
    bad = subprocess.run(
        [sys.executable, "-m", "seqform", "verify", "es-mccfr", "kuhn", "--iterations", "10", "--seeds", "0"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 2 and "--seeds must be at least 1" in bad.stderr

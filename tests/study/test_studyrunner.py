"""Studies (``seqform.study.studyrunner``): the same table on the local pool and on Ray, resumable,
failures recorded and retried, a killed worker or driver loses no finished cell."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import seqform
from seqform.study.studyrunner import run_study
from seqform.study.studyspec import load_study
from seqform.study.studytable import DETERMINISTIC_COLUMNS, read_cells, read_table
from seqform.study.verifyharness import verify

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "examples" / "studies" / "smoke.toml"


def run_cli(*args, **kw):
    return subprocess.Popen(
        [sys.executable, "-m", "seqform", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw
    )


def comparable(rows):
    return sorted((tuple(r[c] for c in DETERMINISTIC_COLUMNS) for r in rows), key=repr)


@pytest.fixture(scope="module")
def smoke_local(tmp_path_factory):
    out = tmp_path_factory.mktemp("smoke") / "local"
    res = run_study(load_study(SMOKE), out, workers=2, progress=False)
    return out, res


def test_local_study_matches_verify(smoke_local):
    """Each cell's rows are the verify run of that cell, run here in-process; the ground truth
    (the value) is the certified LP's, shared by every cell."""
    out, res = smoke_local
    assert (res.cells, res.ok, res.failed, res.skipped) == (3, 3, 0, 0)
    rows = read_table(out)
    assert {r["status"] for r in rows} == {"ok"} and res.rows == len(rows)
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    value = seqform.solve(tree).value
    for solver, seed, n in (("cfr+", 0, 300), ("es-mccfr", 1, 1000)):
        mine = sorted((r for r in rows if r["solver"] == solver and r["seed"] == seed), key=lambda r: r["iteration"])
        rep = verify(solver, tree, n, points=[r["iteration"] for r in mine], seed=seed)
        assert [p.iteration for p in rep.points] == [r["iteration"] for r in mine]
        for p, r in zip(rep.points, mine):
            assert p.exploitability == r["exploitability"] and p.value_gap == r["value_gap"]
            assert r["game_value"] == str(value)
            assert r["work"] == (p.nodes_touched if p.nodes_touched is not None else p.traversals * tree.num_nodes)
    # the deterministic solver ran once, the sampler once per seed
    assert sorted({(r["solver"], r["seed"]) for r in rows}) == [("cfr+", 0), ("es-mccfr", 0), ("es-mccfr", 1)]
    env = json.loads((out / "environment.json").read_text())
    assert env["versions"]["seqform"] and "git_commit" in env


# slow: Ray's start-up; tests/study/test_ray_cluster.py (slow) runs a real cluster, and the
# default tier keeps the local pool's tables
@pytest.mark.slow
@pytest.mark.runtime
def test_ray_gives_the_same_table(smoke_local, tmp_path):
    """The local pool and a local Ray runtime give identical tables (timings and places aside)."""
    pytest.importorskip("ray", reason="Ray is in the test extras; this test runs in CI")
    out, _ = smoke_local
    res = run_study(load_study(SMOKE), tmp_path / "ray", ray=True, workers=2, progress=False)
    assert (res.ok, res.failed, res.executor) == (3, 0, "ray")
    assert comparable(read_table(tmp_path / "ray")) == comparable(read_table(out))
    # the node column: the one Ray node's id (hex) on Ray, none on the pool
    nodes = {r["node"] for r in read_table(tmp_path / "ray")}
    assert len(nodes) == 1 and int(nodes.pop(), 16) > 0
    assert {r["node"] for r in read_table(out)} == {None}


@pytest.mark.runtime
def test_rerun_skips_finished_cells(smoke_local):
    out, _ = smoke_local  # shared by the module's tests (and by every repeat under --count)
    before = {f.name: f.stat().st_mtime_ns for f in (out / "cells").glob("*.parquet")}
    resumed = len(json.loads((out / "environment.json").read_text()).get("resumed", []))
    res = run_study(load_study(SMOKE), out, workers=1, progress=False)
    assert (res.skipped, res.ok) == (3, 0)
    assert {f.name: f.stat().st_mtime_ns for f in (out / "cells").glob("*.parquet")} == before
    env = json.loads((out / "environment.json").read_text())
    assert len(env["resumed"]) == resumed + 1  # this rerun is recorded, once


@pytest.mark.runtime
def test_a_cell_past_its_time_limit_fails_twice_and_the_study_goes_on(tmp_path):
    p = tmp_path / "t.toml"
    p.write_text(
        '[study]\nname = "t"\ngames = ["kuhn", "leduc"]\nseeds = 1\ntime_limit = 2\n'
        'iterations = { kuhn = 50, leduc = 10000000 }\n\n[[solvers]]\nname = "cfr"\n'
    )
    res = run_study(load_study(p), tmp_path / "o", workers=2, progress=False)
    assert (res.ok, res.failed, res.retried) == (1, 1, 1)
    rows = read_table(tmp_path / "o")
    bad = [r for r in rows if r["status"] == "failed"]
    assert len(bad) == 1 and bad[0]["game"] == "leduc" and bad[0]["attempts"] == 2
    assert "time limit of 2 s" in bad[0]["error"] and bad[0]["exploitability"] is None
    assert all(r["status"] == "ok" for r in rows if r["game"] == "kuhn")


SLOW = """[study]
name = "slow"
games = ["leduc"]
seeds = 4
iterations = 40000
checkpoints = 3

[[solvers]]
name = "es-mccfr"
"""


def _workers(pid: int) -> list:
    """The pool's worker processes among ``pid``'s children (not multiprocessing's resource tracker)."""
    out = []
    for child in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split():
        try:
            cmd = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in cmd:
            out.append(int(child))
    return out


def _wait_for_cells(out: Path, n: int, proc, limit: float = 240) -> None:
    t0 = time.time()
    while len(list((out / "cells").glob("*.parquet"))) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.time() - t0 < limit
        time.sleep(0.1)


def start_slow(tmp_path: Path, *flags, **kw) -> tuple:
    """Start ``seqform study`` on the slow study and wait for its first finished cell."""
    study = tmp_path / "slow.toml"
    study.write_text(SLOW)
    out = tmp_path / "o"
    proc = run_cli("study", str(study), "--out", str(out), *flags, **kw)
    _wait_for_cells(out, 1, proc)
    return study, out, proc


def _alive(pid: int) -> bool:
    try:
        return not Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return False


# slow: two worker processes' start-up and a study of several cells (24 CPU s); the default tier
# keeps a stopped study's table consistent through the Ctrl-C and SIGTERM tests, and the verify and
# shrink runs killed mid-way resume there (tests/study/test_verify_resume.py, tests/lossless)
@pytest.mark.slow
@pytest.mark.runtime
def test_killed_worker_loses_no_finished_cell(tmp_path):
    study, out, proc = start_slow(tmp_path, "--workers", "2", "--json")
    first = {f.name: f.read_bytes() for f in (out / "cells").glob("*.parquet")}
    victims = _workers(proc.pid)
    assert victims
    os.kill(victims[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr
    res = json.loads(stdout)
    assert res["ok"] + res["skipped"] == 4 and res["failed"] == 0
    assert res["retried"] >= 1  # the killed worker's cell ran again
    rows = read_table(out)
    assert {r["status"] for r in rows} == {"ok"} and len({r["cell"] for r in rows}) == 4
    for name, data in first.items():  # the cells finished before the kill were not run again
        assert (out / "cells" / name).read_bytes() == data


# slow: the Ctrl-C and SIGTERM tests keep a stopped study's resumption in the default tier
@pytest.mark.slow
@pytest.mark.runtime
def test_killed_driver_then_rerun_completes(tmp_path):
    study, out, proc = start_slow(tmp_path, "--workers", "1", "--quiet")
    workers = _workers(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    t0 = time.time()  # the orphaned worker notices its driver is gone and exits
    while any(_alive(w) for w in workers) and time.time() - t0 < 10:
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers)
    done = read_cells(out)
    assert 1 <= len(done) < 4
    rerun = subprocess.run(
        [sys.executable, "-m", "seqform", "study", str(study), "--out", str(out), "--json", "--quiet"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert rerun.returncode == 0, rerun.stderr
    res = json.loads(rerun.stdout)
    assert res["skipped"] == len(done) and res["ok"] == 4 - len(done)
    assert len({r["cell"] for r in read_table(out)}) == 4


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
@pytest.mark.runtime
def test_ctrl_c_leaves_a_consistent_table(tmp_path, sig):
    study, out, proc = start_slow(
        tmp_path, "--workers", "1", "--quiet", preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)
    )
    workers = _workers(proc.pid)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    rows = read_table(out)
    cells = {r["cell"] for r in rows}
    assert 1 <= len(cells) < 4 and {r["status"] for r in rows} == {"ok"}
    # whole cells only: every cell has all of its measuring points
    assert all(sum(r["cell"] == c for r in rows) == 3 for c in cells)
    assert np.all([r["exploitability"] > 0 for r in rows])
    assert not any(_alive(w) for w in workers)  # the driver stopped its workers


@pytest.mark.runtime
def test_refined_and_perturbed_ground_truth_reach_the_workers(tmp_path):
    """With refined and eps the driver computes the exact limit EFPE and the exact eps-perturbed
    equilibrium once; the workers measure against them as verify does in-process."""
    p = tmp_path / "r.toml"
    p.write_text(
        '[study]\nname = "r"\ngames = ["kuhn"]\niterations = 200\ncheckpoints = 3\nrefined = ["efpe"]\n'
        'eps = 0.01\n\n[[solvers]]\nname = "cfr+-efpe"\n'
    )
    res = run_study(load_study(p), tmp_path / "o", workers=1, progress=False)
    assert (res.ok, res.failed) == (1, 0)
    rows = sorted(read_table(tmp_path / "o"), key=lambda r: r["iteration"])
    rep = verify(
        "cfr+-efpe",
        seqform.compile_tree(seqform.games.load("kuhn")),
        200,
        points=[r["iteration"] for r in rows],
        refined=["efpe"],
        eps=0.01,
    )
    for pt, r in zip(rep.points, rows):
        assert r["efpe_distance"] == pt.efpe_distance and r["perturbed_exploitability"] == pt.perturbed_exploitability
        assert r["tremble_violation"] == pt.tremble_violation and r["perturbed_value_gap"] is not None


@pytest.mark.runtime
def test_workers_capped_at_a_small_share_still_run_their_cells(tmp_path):
    """A 0.1 GiB limit over 4 workers caps each worker's address space at 26 MiB (plus the
    headroom) beyond what it has mapped once it imported what cells use: the cells still run."""
    p = tmp_path / "s.toml"
    p.write_text(
        '[study]\nname = "s"\ngames = ["kuhn"]\nseeds = 2\niterations = 200\ncheckpoints = 3\n\n'
        '[[solvers]]\nname = "es-mccfr"\n'
    )
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "study", str(p), "--out", str(tmp_path / "o"), "--workers", "4", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "SEQFORM_MEMORY_LIMIT": "0.1"},
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert (res["ok"], res["failed"]) == (2, 0)

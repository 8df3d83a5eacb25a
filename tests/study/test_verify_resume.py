"""``seqform verify --checkpoint FILE``: a run killed with SIGKILL, started again, reports what the
uninterrupted run reports (timings aside); a damaged checkpoint, another run's, and a solver that
cannot be saved are refused with one line and status 2. In process, ``verify(checkpoint=...)``
stopped at any measuring point resumes every checkpointable solver to the uninterrupted report."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from seqform.cli.main import main
from seqform.games import kuhn
from seqform.model.tree import compile_tree
from seqform.study.verifycheckpoint import VerifyCheckpoint
from seqform.study.verifyharness import all_solvers, checkpoint_refusal, checkpoints, fingerprint, ground_truth, verify
from tests.oneline import one_line_error
from tests.processwatch import kill_when

SEQFORM = [sys.executable, "-m", "seqform", "verify"]
TIMINGS = ("seconds", "solver_seconds")


def masked(obj):
    """A verify report's JSON with its timings (wall and solver seconds) removed."""
    if isinstance(obj, dict):
        return {k: masked(v) for k, v in obj.items() if k not in TIMINGS}
    if isinstance(obj, list):
        return [masked(v) for v in obj]
    return obj


def run(args: list) -> subprocess.CompletedProcess:
    """``seqform verify ARGS`` in a process of its own."""
    return subprocess.run(SEQFORM + args, capture_output=True, text=True, timeout=300)


@pytest.fixture
def cli(capsys):
    """``seqform verify ARGS`` in this process (faster than a process of its own): a
    ``CompletedProcess`` of its status, standard output and standard error."""

    def call(args: list) -> subprocess.CompletedProcess:
        code = main(["verify", *args])
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out, err)

    return call


def saved_meta(path) -> dict:
    """The checkpoint's JSON record, read with numpy alone (not through the code under test)."""
    with np.load(path, allow_pickle=False) as f:
        return json.loads(str(f["meta"]))


def kill_when_saved(cmd: list, path, ready) -> None:
    """Start ``seqform verify CMD`` and SIGKILL it once ``ready(meta)`` holds for the checkpoint at
    ``path`` (``tests.processwatch.kill_when``)."""

    def saved() -> bool:
        try:  # (only ever a whole file: it is renamed into place)
            return os.path.exists(path) and ready(saved_meta(path))
        except (OSError, ValueError, KeyError):
            return False

    kill_when(["verify", *cmd], saved)


@pytest.mark.parametrize(
    "cmd, ready",
    [
        # one deterministic run, killed at its first checkpoint: resumed inside the run (the case below
        # covers it too, with the runs before it)
        pytest.param(
            ["cfr+", "kuhn", "--iterations", "150"], lambda meta: meta["current"] is not None, marks=pytest.mark.slow
        ),
        # a sampled solver, two seeds: killed once the first seed's run is finished and the second's has
        # started, so both the finished run and the random state of the one in progress are restored
        (
            ["es-mccfr", "kuhn", "--iterations", "400", "--seeds", "2"],
            lambda meta: meta["current"] is not None and len(meta["finished"].get("es-mccfr", [])) == 1,
        ),
    ],
    ids=["cfr+", "es-mccfr-seeds"],
)
@pytest.mark.runtime
def test_a_killed_run_resumes_to_the_uninterrupted_report(tmp_path, cli, cmd, ready):
    path = tmp_path / "run.ckpt"
    with_ck = cmd + ["--json", "--checkpoint", str(path), "--checkpoint-every", "0"]
    kill_when_saved(with_ck, path, ready)
    resumed = run(with_ck)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming from" in resumed.stderr
    plain = cli(cmd + ["--json", "--quiet"])
    assert plain.returncode == 0, plain.stderr
    a, b = json.loads(resumed.stdout), json.loads(plain.stdout)
    assert masked(a) == masked(b)
    assert len(a["points"]) == len(checkpoints(int(cmd[3])))


@pytest.mark.runtime
def test_several_solvers_resume_by_solver(tmp_path, cli):
    """Two solvers in one command: the first finished, the second in progress when killed."""
    path = tmp_path / "run.ckpt"
    cmd = ["cfr+,os-mccfr", "kuhn", "--iterations", "300", "--json"]
    kill_when_saved(
        cmd + ["--checkpoint", str(path), "--checkpoint-every", "0"],
        path,
        lambda meta: meta["current"] is not None and meta["current"]["key"] == "os-mccfr",
    )
    resumed = run(cmd + ["--checkpoint", str(path), "--checkpoint-every", "0"])
    assert resumed.returncode == 0, resumed.stderr
    plain = cli(cmd + ["--quiet"])
    assert masked(json.loads(resumed.stdout)) == masked(json.loads(plain.stdout))


def test_a_damaged_checkpoint_is_refused(tmp_path, cli):
    path = tmp_path / "run.ckpt"
    r = cli(["cfr+", "kuhn", "--iterations", "20", "--quiet", "--checkpoint", str(path)])
    assert r.returncode == 0, r.stderr
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])  # cut short, as a full disk leaves a file
    one_line_error(cli(["cfr+", "kuhn", "--iterations", "20", "--checkpoint", str(path)]), "--checkpoint", str(path))
    path.write_bytes(b"not a checkpoint\n")
    one_line_error(cli(["cfr+", "kuhn", "--iterations", "20", "--checkpoint", str(path)]), "--checkpoint", str(path))


@pytest.mark.parametrize(
    "other, named",
    [
        (["cfr+", "kuhn", "--iterations", "30"], "iterations"),
        (["cfr", "kuhn", "--iterations", "20"], "solvers"),
        (["cfr+", "leduc(ranks=2)", "--iterations", "20"], "game"),
        (["cfr+", "kuhn", "--iterations", "20", "--every", "5"], "points"),
    ],
)
def test_a_checkpoint_of_another_run_is_refused(tmp_path, cli, other, named):
    path = tmp_path / "run.ckpt"
    r = cli(["cfr+", "kuhn", "--iterations", "20", "--quiet", "--checkpoint", str(path)])
    assert r.returncode == 0, r.stderr
    before = path.read_bytes()
    one_line_error(cli(other + ["--checkpoint", str(path)]), "another run", named)
    assert path.read_bytes() == before  # refused, not overwritten


def test_solvers_without_save_and_bad_flags_are_refused(tmp_path, cli):
    path = str(tmp_path / "run.ckpt")
    pytest.importorskip("pyspiel")
    one_line_error(cli(["openspiel-cfr", "kuhn", "--iterations", "5", "--checkpoint", path]), "OpenSpiel", "checkpoint")
    one_line_error(cli(["cfr+,openspiel-cfr+", "kuhn", "--iterations", "5", "--checkpoint", path]), "openspiel-cfr+")
    assert not os.path.exists(path)
    one_line_error(cli(["cfr+", "kuhn", "--iterations", "5", "--checkpoint-every", "1"]), "--checkpoint")
    one_line_error(cli(["cfr+", "kuhn", "--iterations", "5", "--checkpoint", path, "--checkpoint-every", "-1"]))
    one_line_error(cli(["cfr+", "kuhn", "--iterations", "5", "--checkpoint", str(tmp_path)]), "directory")
    one_line_error(cli(["cfr+", "kuhn", "--iterations", "5", "--checkpoint", str(tmp_path / "no" / "f")]), "directory")


class _Stop(Exception):
    pass


TREE = compile_tree(kuhn())
TRUTH = ground_truth(TREE)


# one of each way a solver's state is kept: regrets and predictions, Python's and numpy's random
# streams, EGT's smoothing state, optimistic mirror descent's prox centres, an extension's subclass;
# the others run with the slow tests
TYPICAL = ("cfr+", "pcfr+", "es-mccfr", "os-mccfr-batched", "egt-perturbed", "cfr+-efpe", "omwu")


@pytest.mark.parametrize(
    "name",
    [
        s if s in TYPICAL else pytest.param(s, marks=pytest.mark.slow)
        for s in all_solvers()
        if checkpoint_refusal(s, TREE) is None
    ],
)
def test_every_checkpointable_solver_resumes_exactly(tmp_path, name):
    """Two seeds, stopped (an exception from the progress callback) a third of the way through its
    measurements, resumed and stopped again a third further on: the report resumed from there is the
    uninterrupted one's."""
    iterations, seeds, batch = 40, 2, {"batch": 8} if "batched" in name else None
    full = verify(name, TREE, iterations, truth=TRUTH, seeds=seeds, params=batch)
    path = tmp_path / "c.ckpt"
    fp = fingerprint(
        TREE, [name], iterations, checkpoints(iterations), eps=None, seed=0, seeds=seeds, params=batch, refined=[]
    )
    third = seeds * len(full.points) // 3
    for stop_at in (third, third):
        seen = []

        def progress(msg, seen=seen, stop_at=stop_at):
            if "exploitability" in msg:
                seen.append(msg)
                if len(seen) == stop_at:
                    raise _Stop

        with pytest.raises(_Stop):
            ck = VerifyCheckpoint.open(path, fp, every=0)
            verify(name, TREE, iterations, truth=TRUTH, seeds=seeds, params=batch, progress=progress, checkpoint=ck)
    said: list = []
    ck = VerifyCheckpoint.open(path, fp, every=0)
    rep = verify(name, TREE, iterations, truth=TRUTH, seeds=seeds, params=batch, progress=said.append, checkpoint=ck)
    assert any("resuming from" in m for m in said)
    assert masked(rep.to_json()) == masked(full.to_json())

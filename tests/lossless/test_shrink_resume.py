"""``seqform shrink GAME --cfr SECONDS --checkpoint FILE``: CFR+ in vector form killed with SIGKILL,
started again, makes the same iterates as the uninterrupted run: the same brackets at the same
iterations, the same average profile. A damaged checkpoint and another run's are refused with one
line and status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import lossless
from lossless import sequence_layout
from lossless.vectorcfr import CFRCheckpoint, cfr_plus
from seqform.cli.main import main
from tests.oneline import one_line_error
from tests.processwatch import kill_when

GAME = "leduc_os(ranks=2,suits=2)"
RUN = ["--cfr", "600", "--cfr-iterations", "80", "--bracket-every", "20", "--json"]


@pytest.fixture
def cli(capsys):
    """``seqform ARGS`` in this process: a ``CompletedProcess`` of its status and outputs."""

    def call(args: list) -> subprocess.CompletedProcess:
        code = main(args)
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out, err)

    return call


def without_timings(out: dict) -> dict:
    """``shrink --json`` with its timings removed: the seconds and each bracket's time."""
    out = {k: v for k, v in out.items() if k != "seconds"}
    out["history"] = [[h[0], h[2], h[3]] for h in out["history"]]
    return out


@pytest.mark.runtime
def test_a_killed_run_makes_the_same_iterates(tmp_path, cli):
    path = tmp_path / "cfr.ckpt"
    args = ["shrink", GAME, *RUN, "--checkpoint", str(path), "--checkpoint-every", "0"]
    kill_when(args, path.exists)
    cmd = [sys.executable, "-m", "seqform", *args]
    with np.load(path, allow_pickle=False) as f:  # read with numpy alone
        reached = json.loads(str(f["meta"]))["t"]
    assert 1 <= reached < 80
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming from" in resumed.stderr
    plain = cli(["shrink", GAME, *RUN, "--quiet"])
    assert plain.returncode == 0, plain.stderr
    a, b = json.loads(resumed.stdout), json.loads(plain.stdout)
    assert [h[0] for h in a["history"]] == [20, 40, 60, 80]
    assert without_timings(a) == without_timings(b)


def test_cfr_plus_resumed_anywhere_gives_the_same_result(tmp_path):
    """``cfr_plus`` stopped (an exception from ``tick``) after iterations 7 and 33, resumed each time
    from its checkpoint: the brackets and the average profile are the uninterrupted run's, bit for bit."""
    sh = lossless.shrink(lossless.leduc_os(ranks=2, suits=2), build_abstract=False)
    layout = sequence_layout(sh.abstraction)
    full = cfr_plus(layout, iterations=50, bracket_every=10)
    ck = CFRCheckpoint(tmp_path / "cfr.ckpt", every=0)

    class Stop(Exception):
        pass

    for stop_at in (7, 33):

        def tick(t, elapsed, stop_at=stop_at):
            if t == stop_at:
                raise Stop

        with pytest.raises(Stop):
            cfr_plus(layout, iterations=50, bracket_every=10, tick=tick, checkpoint=ck)
    res = cfr_plus(layout, iterations=50, bracket_every=10, checkpoint=ck)
    assert [(h[0], h[2], h[3]) for h in res.history] == [(h[0], h[2], h[3]) for h in full.history]
    assert (res.lower, res.upper, res.iterations, res.stopped) == (full.lower, full.upper, 50, full.stopped)
    for p in (0, 1):
        assert np.array_equal(res.behaviours[p], full.behaviours[p])
    # a finished run's checkpoint gives its result again, without iterating
    again = cfr_plus(layout, iterations=50, bracket_every=10, checkpoint=ck, tick=lambda t, e: pytest.fail("ran"))
    assert again.history == res.history and np.array_equal(again.behaviours[0], full.behaviours[0])


def test_damaged_and_foreign_checkpoints_are_refused(tmp_path, cli):
    path = tmp_path / "cfr.ckpt"
    small = ["--cfr", "600", "--cfr-iterations", "3", "--json", "--quiet", "--checkpoint", str(path)]
    assert cli(["shrink", GAME, *small]).returncode == 0
    whole = path.read_bytes()
    # another run: other stops (refused before the abstraction is built), another game (after)
    other = ["--cfr", "600", "--cfr-iterations", "4", "--quiet", "--checkpoint", str(path)]
    one_line_error(cli(["shrink", GAME, *other]), "--checkpoint", "another run", "iterations")
    one_line_error(cli(["shrink", "four_card", *small]), "--checkpoint", "another run", "game")
    assert path.read_bytes() == whole  # refused, not overwritten
    path.write_bytes(whole[: len(whole) // 2])
    one_line_error(cli(["shrink", GAME, *small]), "--checkpoint", str(path))
    path.write_bytes(b"PK\x03\x04 not really\n")
    one_line_error(cli(["shrink", GAME, *small]), "--checkpoint", str(path))


def test_checkpoint_flags_need_cfr(tmp_path, cli):
    path = str(tmp_path / "cfr.ckpt")
    one_line_error(cli(["shrink", "four_card", "--checkpoint", path]), "--checkpoint", "--cfr")
    one_line_error(cli(["shrink", "four_card", "--cfr-iterations", "5"]), "--cfr-iterations", "--cfr")
    one_line_error(cli(["shrink", "four_card", "--cfr", "5", "--checkpoint-every", "1"]), "--checkpoint")
    one_line_error(cli(["shrink", "four_card", "--cfr", "5", "--cfr-iterations", "0"]), "--cfr-iterations")
    one_line_error(cli(["shrink", "four_card", "--cfr", "5", "--checkpoint", str(tmp_path)]), "directory")
    assert not os.path.exists(path)

"""``run_study`` from a script without ``if __name__ == "__main__":``: the local pool's spawned
workers import the script again and would start the study again; the study stops at once with
``UnguardedMainError``, one line naming the fix, and runs or retries no cell. The same script
guarded runs its cells. Each script runs as a user runs it, ``python script.py``."""

import json

import pytest

from tests.spawnscripts import assert_stopped_with_one_line, run_script, script

STUDY = """[study]
name = "guard"
games = ["kuhn"]
seeds = 2
iterations = 200

[[solvers]]
name = "es-mccfr"
"""

# the study file is written by the test, not by the script: an unguarded script's top-level code
# runs again in every worker, and one worker rewriting the file while the other reads it races
# (seen on one core: a worker read it empty and printed its own traceback)
BODY = """res = study.run_study(study.load_study("s.toml"), "out", workers=2, progress=False)
print("ran", res.ok, res.failed, res.retried)
"""


HEAD = "import seqform.study as study\n"


pytestmark = pytest.mark.runtime  # spawned worker processes


def test_an_unguarded_script_stops_at_once_with_one_line(tmp_path):
    (tmp_path / "s.toml").write_text(STUDY)
    assert_stopped_with_one_line(run_script(tmp_path, script(HEAD, BODY, guarded=False)))
    assert not list((tmp_path / "out" / "cells").glob("*")), "a cell ran"
    # the workers stopped before touching the output: only the driver's run is recorded
    assert "resumed" not in json.loads((tmp_path / "out" / "environment.json").read_text())


def test_the_guarded_script_runs_its_cells(tmp_path):
    (tmp_path / "s.toml").write_text(STUDY)
    r = run_script(tmp_path, script(HEAD, BODY, guarded=True))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ran", "2", "0", "0"]

"""``run_study`` from a script without ``if __name__ == "__main__":``: the local pool's spawned
workers import the script again and would start the study again; the study stops at once with
``UnguardedMainError``, one line naming the fix, and runs or retries no cell. The same script
guarded runs its cells. Each script runs as a user runs it, ``python script.py``."""
import json
import subprocess
import sys

STUDY = '''[study]
name = "guard"
games = ["kuhn"]
seeds = 2
iterations = 200

[[solvers]]
name = "es-mccfr"
'''

BODY = '''pathlib.Path("s.toml").write_text(STUDY)
res = study.run_study(study.load_study("s.toml"), "out", workers=2, progress=False)
print("ran", res.ok, res.failed, res.retried)
'''


def script(guarded: bool) -> str:
    """The user's script: the study written out and run on 2 workers, guarded or not."""
    head = f"import pathlib\nimport seqform.study as study\nSTUDY = {STUDY!r}\n"
    if not guarded:
        return head + BODY
    return head + 'if __name__ == "__main__":\n' + "".join("    " + line + "\n" for line in BODY.splitlines())


def run_script(tmp_path, code: str) -> subprocess.CompletedProcess:
    (tmp_path / "script.py").write_text(code)
    # generous: the unguarded script used to retry every cell, a child traceback per attempt
    return subprocess.run([sys.executable, "script.py"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)


def test_an_unguarded_script_stops_at_once_with_one_line(tmp_path):
    r = run_script(tmp_path, script(guarded=False))
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0, r.stdout
    assert lines[-1].startswith("seqform.errors.UnguardedMainError: script.py: "), r.stderr
    assert 'put that code under `if __name__ == "__main__":`' in lines[-1]
    # one exception, no child's traceback ("... bootstrapping phase"), nothing retried
    assert "bootstrapping phase" not in r.stderr and "retrying" not in r.stderr
    assert len(lines) < 20 and r.stderr.count("Traceback") == 1, r.stderr
    assert "ran" not in r.stdout
    assert not list((tmp_path / "out" / "cells").glob("*")), "a cell ran"
    # the workers stopped before touching the output: only the driver's run is recorded
    assert "resumed" not in json.loads((tmp_path / "out" / "environment.json").read_text())


def test_the_guarded_script_runs_its_cells(tmp_path):
    r = run_script(tmp_path, script(guarded=True))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ran", "2", "0", "0"]

"""User scripts that start a process pool, run as a user runs them (``python script.py``), and
the one-line stop an unguarded one must end with (``seqform.spawnpool``)."""

import subprocess
import sys


def script(head: str, body: str, guarded: bool) -> str:
    """``head`` then ``body``, the body under ``if __name__ == "__main__":`` when ``guarded``."""
    if not guarded:
        return head + body
    return head + 'if __name__ == "__main__":\n' + "".join("    " + line + "\n" for line in body.splitlines())


def run_script(tmp_path, code: str) -> subprocess.CompletedProcess:
    """``code`` saved as ``tmp_path/script.py`` and run there; generous timeout: an unguarded
    script used to retry every cell, with a child traceback per attempt."""
    (tmp_path / "script.py").write_text(code)
    return subprocess.run([sys.executable, "script.py"], capture_output=True, text=True, cwd=tmp_path, timeout=120)


def assert_stopped_with_one_line(r: subprocess.CompletedProcess) -> None:
    """The unguarded script failed with ``UnguardedMainError`` naming the fix: one exception, no
    child's traceback ("... bootstrapping phase"), nothing retried, and it printed no result."""
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0, r.stdout
    assert lines[-1].startswith("seqform.errors.UnguardedMainError: script.py: "), r.stderr
    assert 'put that code under `if __name__ == "__main__":`' in lines[-1]
    for noise in ("bootstrapping phase", "BrokenProcessPool", "retrying"):
        assert noise not in r.stderr, r.stderr
    assert len(lines) < 20 and r.stderr.count("Traceback") == 1, r.stderr
    assert "ran" not in r.stdout

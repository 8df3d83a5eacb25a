"""pyarrow is the ``study`` extra: without it, ``seqform study`` stops at once with one line naming the extra."""

from __future__ import annotations

import pathlib
import subprocess
import sys

from seqform.installation import install_command

ROOT = pathlib.Path(__file__).resolve().parents[2]

# pyarrow made unimportable (sys.modules[name] = None makes import raise ImportError), as in an
# environment installed without the extra
BLOCKED = "import sys; sys.modules['pyarrow'] = None; from seqform.cli import main; sys.exit(main(sys.argv[1:]))"


def run(*argv: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKED, *argv], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_study_without_pyarrow_names_the_extra_before_running(tmp_path):
    proc = run("study", str(ROOT / "examples" / "studies" / "smoke.toml"), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and install_command("study") in lines[0], proc.stderr
    assert not (tmp_path / "out").exists()  # refused before any cell ran


def test_core_commands_do_not_need_pyarrow(tmp_path):
    proc = run("solve", "kuhn", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert '"value": "-1/18"' in proc.stdout

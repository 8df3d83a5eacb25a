"""Every code block in README.md runs, and the output it shows is what the code prints.

- ```python blocks: each runs as written, alone, in a fresh interpreter, saved as a file and run as
  ``python block.py`` the way a reader runs it (so a block that uses a name it does not define
  fails here as it would for a reader, and so does one that starts a process pool without
  ``if __name__ == "__main__":``: the pool's spawned workers import the file again, which
  ``python -c`` hides).
- Shell blocks: every ``$ command`` line runs in a shell (``seqform`` is this environment's); the
  lines under a command, up to the next ``$``, are its expected standard output, compared line by
  line with the timings masked (see ``normalise``).
- ```json blocks: a sample of what a command prints, with ``...`` standing for omitted entries; the
  block says which command (``seqform solve kuhn --json --strategy`` for the strategy form) and its
  pieces between the ``...`` must appear, in order, in that command's output, each probability
  standing for any rational string (the equilibrium HiGHS returns depends on its version).
- The two set-up commands (indented blocks): the test command is the one .ci/run runs, and the part
  of the first after ``pip install . &&`` runs here (installing is what CI does).
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BIN = pathlib.Path(sys.executable).parent


def blocks(text: str) -> list:
    """Fenced code blocks as (language, first line number, lines)."""
    out, lang, start, body = [], None, 0, []
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            if lang is None:
                lang, start, body = line[3:].strip() or "shell", n + 1, []
            else:
                out.append((lang, start, body))
                lang = None
        elif lang is not None:
            body.append(line)
    assert lang is None, "README.md has an unclosed code block"
    return out


def indented_commands(text: str) -> list:
    """The set-up section's commands: lines indented by four spaces after a blank line, outside fences."""
    cmds, fenced, prev = [], False, ""
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("    ") and not prev.strip() and line.strip().startswith("pip "):
            cmds.append(line.strip())
        prev = line
    return cmds


ALL = blocks(README.read_text())
PYTHON = [(start, "\n".join(body)) for lang, start, body in ALL if lang == "python"]
SHELL = [(start, body) for lang, start, body in ALL if lang == "shell"]
JSON = [(start, "\n".join(body)) for lang, start, body in ALL if lang == "json"]


def run_shell(cmd: str, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=str(BIN) + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


_RATIONAL = re.compile(r'"-?\d+(?:/\d+)?"')
_TINY = re.compile(r"[-+]?\d(?:\.\d+)?e-(?:1\d|[2-9]\d)\b")


def normalise(line: str) -> str:
    """A line with what differs from run to run masked: on a ``seconds`` line every number; elsewhere
    floats below 1e-9 in magnitude (rounding residue such as ``1.34e-15``, which depends on the
    BLAS and HiGHS build) become ``~0``, and the certified basis's size (it depends on the optimal
    vertex HiGHS returns) is masked."""
    line = line.rstrip()
    if line.startswith("seconds"):
        return re.sub(r"\d+(?:\.\d+)?", "N", line)
    # the size of the certified basis depends on which optimal vertex HiGHS returns
    line = re.sub(r"basis of [\d,]+ unknowns", "basis of N unknowns", line)
    return _TINY.sub("~0", line)


def shell_commands(body: list) -> list:
    """(command, expected output lines) for each ``$`` line of a shell block."""
    cmds = []
    for line in body:
        if line.startswith("$ "):
            cmd = re.sub(r"\s+#.*$", "", line[2:]).strip()
            cmds.append((cmd, []))
        elif cmds:
            cmds[-1][1].append(line)
        else:
            raise AssertionError(f"README shell block line {line!r} is neither a command nor its output")
    return cmds


SHELL_CASES = [(start, cmd, expected) for start, body in SHELL for cmd, expected in shell_commands(body)]


@pytest.mark.parametrize("start,code", PYTHON, ids=[f"line{s}" for s, _ in PYTHON])
def test_python_block_runs(start, code, tmp_path):
    if "plot(" in code and _missing("matplotlib"):
        pytest.skip("the block draws a plot and matplotlib is not installed")
    (tmp_path / "block.py").write_text(code + "\n")
    r = subprocess.run([sys.executable, "block.py"], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 0, f"README.md line {start}: the block fails:\n{r.stderr[-3000:]}"


@pytest.mark.parametrize("start,cmd,expected", SHELL_CASES, ids=[f"line{s}:{c}" for s, c, _ in SHELL_CASES])
def test_shell_command_runs_and_prints_what_readme_shows(start, cmd, expected, tmp_path):
    if ("--plot" in cmd or "study report" in cmd) and _missing("matplotlib"):
        pytest.skip("the command draws a plot and matplotlib is not installed")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")  # as from a checkout's root, which the README assumes
    r = run_shell(cmd, tmp_path)
    assert r.returncode == 0, f"README.md line {start}: `{cmd}` exits {r.returncode}: {r.stderr[-2000:]}"
    if "--json" in cmd.split():
        json.loads(r.stdout)
    if expected:
        got = [normalise(x) for x in r.stdout.rstrip("\n").splitlines()]
        assert got == [normalise(x) for x in expected], f"README.md line {start}: `{cmd}` prints\n{r.stdout}"


@pytest.mark.parametrize("start,sample", JSON, ids=[f"line{s}" for s, _ in JSON])
def test_json_sample_is_what_the_command_prints(start, sample, tmp_path):
    r = run_shell("seqform solve kuhn --json --strategy --quiet", tmp_path)
    assert r.returncode == 0, r.stderr
    # which equilibrium HiGHS returns depends on its version: compare the form (keys, labels,
    # probabilities as rational strings), not the probabilities themselves
    printed = _RATIONAL.sub('"P"', json.dumps(json.loads(r.stdout)["strategy"]))
    sample = _RATIONAL.sub('"P"', sample)
    at = 0
    for piece in (p.strip().strip(",").strip() for p in sample.split("...")):
        for part in (q for q in re.split(r"\s*\n\s*", piece) if q):
            found = printed.find(part, at)
            assert found >= 0, f"README.md line {start}: {part!r} is not in the output (after {at}):\n{printed}"
            at = found + len(part)


def test_setup_commands():
    cmds = indented_commands(README.read_text())
    assert len(cmds) == 2, cmds
    install_and_run, test_command = cmds
    assert install_and_run.startswith("pip install . && ")
    ci = (ROOT / ".ci" / "run").read_text()
    install, _, pytest_cmd = test_command.partition(" && ")
    assert install.replace("pip install ", "pip install -q ") in ci and pytest_cmd in ci, \
        "the README's test command is not what .ci/run runs"
    r = run_shell(install_and_run.partition(" && ")[2] + " --quiet", ROOT)
    assert r.returncode == 0 and "certificate     exact" in r.stdout, r.stderr


def _missing(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is None

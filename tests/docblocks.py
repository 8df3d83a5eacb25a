"""Run the code blocks of a Markdown page the way a reader runs them (README.md and docs/**/*.md).

Fenced blocks, by language:

- ``python``: saved as a file and run with ``python FILE`` in the page's folder (a fresh
  interpreter, so a block that uses a name it does not define fails here as it would for a
  reader, and so does one that starts a process pool without ``if __name__ == "__main__":``).
  A block whose first line is ``# NAME.py`` is a module later blocks import: it is saved as
  ``NAME.py`` and compiled (running it is the importing block's job); any other is saved as
  ``block.py`` and run.
- ``console``, ``shell`` or no language: every ``$ command`` line runs in bash (``seqform`` is
  this environment's); the lines under a command, up to the next ``$``, are its expected standard
  output, compared line by line with the timings masked (``normalise``).
- ``json``: a sample of what ``seqform solve kuhn --json --strategy`` prints, ``...`` standing for
  omitted entries (``json_sample_matches``).
- ``toml``: must parse (``tomllib``); ``bibtex``: must be well formed (``@type{key,`` and balanced
  braces).

Any other language is an error: no block is skipped silently.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SHELL_LANGS = ("shell", "console", "")
KNOWN = ("python", "json", "toml", "bibtex") + SHELL_LANGS


def blocks(text: str) -> list:
    """Fenced code blocks as (language, first line number, lines); myst directives (```{...})
    are not code and are left out."""
    out, lang, start, body = [], None, 0, []
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            if lang is None:
                lang, start, body = line[3:].strip(), n + 1, []
            else:
                if not lang.startswith("{"):
                    out.append((lang or "shell", start, body))
                lang = None
        elif lang is not None:
            body.append(line)
    assert lang is None, "unclosed code block"
    return out


def run_shell(cmd: str, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=str(BIN) + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


_RATIONAL = re.compile(r'"-?\d+(?:/\d+)?"')
_TINY = re.compile(r"[-+]?\d(?:\.\d+)?e-(?:1\d|[2-9]\d)\b")


def normalise(line: str) -> str:
    """A line with what differs from run to run masked: on a ``seconds`` line, and on the
    timing and memory lines of ``seqform verify``, ``study`` and ``efce``, every number; elsewhere
    floats below 1e-9 in magnitude (rounding residue such as ``1.34e-15``, which depends on the
    BLAS and HiGHS build) become ``~0``, and the certified basis's size (it depends on the optimal
    vertex HiGHS returns) is masked; durations anywhere become ``N s``, and floats in scientific
    notation keep 3 significant digits."""
    line = line.rstrip()
    if re.match(r"\s*(seconds|memory|after|cells|ground truth|wall)\b", line):
        return re.sub(r"\d+(?:[.,]\d+)*", "N", line)
    line = re.sub(r"basis of [\d,]+ unknowns", "basis of N unknowns", line)
    line = re.sub(r"\b\d+(?:\.\d+)? s\b", "N s", line)  # a duration anywhere ("in 6.0 s on 1 worker")
    line = _TINY.sub("~0", line)
    # floats in scientific notation to 3 significant digits: an iterative solver's last digits
    # move with the BLAS and numpy's summation order
    return re.sub(r"(\d\.\d{2})\d*(e[-+]\d+)", r"\1\2", line)


def shell_commands(body: list) -> list:
    """(command, expected output lines) for each ``$`` line of a shell block."""
    cmds = []
    for line in body:
        if line.startswith("$ "):
            cmds.append((re.sub(r"\s+#.*$", "", line[2:]).strip(), []))
        elif cmds:
            cmds[-1][1].append(line)
        else:
            raise AssertionError(f"shell block line {line!r} is neither a command nor its output")
    return cmds


def check_shell(where: str, cmd: str, expected: list, cwd) -> None:
    r = run_shell(cmd, cwd)
    assert r.returncode == 0, f"{where}: `{cmd}` exits {r.returncode}: {r.stderr[-2000:]}"
    if "--json" in cmd.split() and ">" not in cmd:
        json.loads(r.stdout)
    if expected:
        got = [normalise(x) for x in r.stdout.rstrip("\n").splitlines()]
        want = [normalise(x) for x in expected]
        assert got == want, f"{where}: `{cmd}` prints\n{r.stdout}"


def check_python(where: str, code: str, cwd) -> None:
    first = code.lstrip().splitlines()[0] if code.strip() else ""
    m = re.fullmatch(r"#\s*(\w+\.py)", first.strip())
    name = m[1] if m else "block.py"
    (Path(cwd) / name).write_text(code + "\n")
    if m:  # a module: compiled here, run by the block that imports it
        compile(code, f"{where} ({name})", "exec")
        return
    r = subprocess.run([sys.executable, name], capture_output=True, text=True, cwd=cwd, timeout=600)
    assert r.returncode == 0, f"{where}: the block fails:\n{r.stderr[-3000:]}"


def json_sample_matches(where: str, sample: str, cwd) -> None:
    r = run_shell("seqform solve kuhn --json --strategy --quiet", cwd)
    assert r.returncode == 0, r.stderr
    # which equilibrium HiGHS returns depends on its version: compare the form (keys, labels,
    # probabilities as rational strings), not the probabilities themselves
    printed = _RATIONAL.sub('"P"', json.dumps(json.loads(r.stdout)["strategy"]))
    sample = _RATIONAL.sub('"P"', sample)
    at = 0
    for piece in (p.strip().strip(",").strip() for p in sample.split("...")):
        for part in (q for q in re.split(r"\s*\n\s*", piece) if q):
            found = printed.find(part, at)
            assert found >= 0, f"{where}: {part!r} is not in the output (after {at}):\n{printed}"
            at = found + len(part)


def check_toml(where: str, text: str) -> None:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    tomllib.loads(text)


def check_bibtex(where: str, text: str) -> None:
    assert re.match(r"\s*@\w+\{[\w:-]+,", text), f"{where}: a BibTeX entry starts @type{{key,"
    assert text.count("{") == text.count("}"), f"{where}: unbalanced braces"


def prepare(cwd) -> None:
    """The folder a page's blocks run in: as a checkout's root, which the pages assume."""
    shutil.copytree(ROOT / "examples", Path(cwd) / "examples")


def run_block(page: str, lang: str, start: int, body: list, cwd) -> None:
    """Run one block of ``page`` (its name, for messages) in ``cwd``."""
    where = f"{page} line {start}"
    assert lang in KNOWN, f"{where}: a ```{lang} block: no test knows how to run it (tests/docblocks.py)"
    text = "\n".join(body)
    if lang == "python":
        check_python(where, text, cwd)
    elif lang == "json":
        json_sample_matches(where, text, cwd)
    elif lang == "toml":
        check_toml(where, text)
    elif lang == "bibtex":
        check_bibtex(where, text)
    else:
        for cmd, expected in shell_commands(body):
            check_shell(where, cmd, expected, cwd)


def missing(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is None

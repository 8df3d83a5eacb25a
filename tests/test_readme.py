"""Every code block in README.md runs, and the output it shows is what the code prints.

The blocks run as ``tests/docblocks.py`` says (the guides' blocks run the same way, in
tests/test_docs.py): ```python blocks saved as a file and run as ``python block.py``; shell
blocks (```console) run every ``$ command`` and compare its output line by line, timings masked;
```json blocks are samples of ``seqform solve kuhn --json --strategy``; ```bibtex blocks must be
well formed. A block in any other language fails.

The two set-up commands (indented blocks): the test command is the one .ci/run runs, and the part
of the first after ``pip install . &&`` runs here (installing is what CI does).
"""

from __future__ import annotations

import pathlib

import pytest

from tests import docblocks

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


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


ALL = docblocks.blocks(README.read_text())
SHELL_CASES = [
    (start, cmd, expected)
    for lang, start, body in ALL
    if lang in ("shell", "console")
    for cmd, expected in docblocks.shell_commands(body)
]
OTHER = [(lang, start, body) for lang, start, body in ALL if lang not in ("shell", "console")]


@pytest.mark.parametrize("lang,start,body", OTHER, ids=[f"line{s}:{lang}" for lang, s, _ in OTHER])
def test_block_runs(lang, start, body, tmp_path):
    if "plot(" in "\n".join(body) and docblocks.missing("matplotlib"):
        pytest.skip("the block draws a plot and matplotlib is not installed")
    docblocks.prepare(tmp_path)
    docblocks.run_block("README.md", lang, start, body, tmp_path)


@pytest.mark.parametrize("start,cmd,expected", SHELL_CASES, ids=[f"line{s}:{c}" for s, c, _ in SHELL_CASES])
def test_shell_command_runs_and_prints_what_readme_shows(start, cmd, expected, tmp_path):
    if ("--plot" in cmd or "study report" in cmd) and docblocks.missing("matplotlib"):
        pytest.skip("the command draws a plot and matplotlib is not installed")
    docblocks.prepare(tmp_path)
    docblocks.check_shell(f"README.md line {start}", cmd, expected, tmp_path)


def test_every_block_has_a_known_language():
    assert {lang for lang, _, _ in ALL} <= set(docblocks.KNOWN) | {"shell"}


def test_setup_commands():
    cmds = indented_commands(README.read_text())
    assert len(cmds) == 2, cmds
    install_and_run, test_command = cmds
    assert install_and_run.startswith("pip install . && ")
    ci = (ROOT / ".ci" / "run").read_text()
    install, _, pytest_cmd = test_command.partition(" && ")
    assert install.replace("pip install ", "pip install -q ") in ci and pytest_cmd in ci, (
        "the README's test command is not what .ci/run runs"
    )
    r = docblocks.run_shell(install_and_run.partition(" && ")[2] + " --quiet", ROOT)
    assert r.returncode == 0 and "certificate     exact" in r.stdout, r.stderr

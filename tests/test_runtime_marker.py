"""Every test that touches a clock, worker processes or signals carries the ``runtime`` marker, so
that ``pytest -m runtime --count 20`` under load repeats all of them (docs/reliability.md). A test
that sends a signal, kills a process, starts worker processes or sets a time limit without the
marker fails here, naming it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).parent

# what makes a test depend on timing: signals and kills, worker processes, clocks and time limits
TRIGGERS = re.compile(
    r"send_signal|os\.kill|SIGINT|SIGKILL|SIGTERM|--workers|workers=|time_limit|--time-limit|spawn_pool"
    r"|ProcessPool|monotonic|perf_counter|setitimer|clock|Popen|run_script|Watched\(|kill_when\("
)


def _marked(node: ast.AST, markers: set[str]) -> bool:
    """A runtime mark among ``node``'s decorators, directly or through one of the module's own
    decorators that applies it (``markers``)."""
    return any("runtime" in ast.unparse(d) or ast.unparse(d) in markers for d in getattr(node, "decorator_list", []))


def _module_marked(tree: ast.Module) -> bool:
    return any(
        isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in n.targets)
        and "runtime" in ast.unparse(n.value)
        for n in tree.body
    )


def unmarked_tests(root: Path = TESTS) -> list[str]:
    """``file::test`` of every test under ``root`` whose source matches ``TRIGGERS`` and has no
    runtime marker (on the function, or the module's ``pytestmark``)."""
    missing = []
    for path in sorted(root.rglob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        src = path.read_text()
        tree = ast.parse(src)
        if _module_marked(tree):
            continue
        # the module's own helpers that do it: a test calling one does it too
        helpers = {
            n.name
            for n in tree.body
            if isinstance(n, ast.FunctionDef) and TRIGGERS.search(ast.get_source_segment(src, n) or "")
        }
        markers = {
            n.name
            for n in tree.body
            if isinstance(n, ast.FunctionDef) and "mark.runtime" in (ast.get_source_segment(src, n) or "")
        }
        touching = re.compile(TRIGGERS.pattern + "".join(rf"|\b{h}\(" for h in sorted(helpers)))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_") and not _marked(node, markers):
                if touching.search(ast.get_source_segment(src, node) or ""):
                    missing.append(f"{path.relative_to(root.parent)}::{node.name}")
    return missing


def test_every_test_touching_clocks_processes_or_signals_is_marked_runtime():
    assert unmarked_tests() == []


def test_the_check_finds_an_unmarked_test(tmp_path):
    (tmp_path / "test_x.py").write_text(
        "import os, signal\n\ndef test_kill():\n    os.kill(1, signal.SIGINT)\n\n"
        "@pytest.mark.runtime\ndef test_marked():\n    os.kill(1, signal.SIGINT)\n\ndef test_quiet():\n    pass\n"
    )
    (tmp_path / "test_y.py").write_text("pytestmark = pytest.mark.runtime\n\ndef test_pool():\n    Popen(1)\n")
    (tmp_path / "test_z.py").write_text("def _stop(p):\n    p.send_signal(9)\n\ndef test_via_helper():\n    _stop(1)\n")
    assert unmarked_tests(tmp_path) == [
        f"{tmp_path.name}/test_x.py::test_kill",
        f"{tmp_path.name}/test_z.py::test_via_helper",
    ]

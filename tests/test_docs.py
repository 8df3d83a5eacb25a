"""The API reference (docs/api) builds without a warning, and every public entry point it
documents has numpydoc Parameters, Returns and Examples sections whose examples run."""
import doctest
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INDEX = ROOT / "docs" / "api" / "index.rst"
ENTRY_POINTS = re.findall(r"^\.\. autofunction:: (\S+)$", INDEX.read_text(), flags=re.M)


def resolve(dotted: str):
    parts = dotted.split(".")
    for k in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for name in parts[k:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(dotted)


def test_the_api_reference_builds_without_warnings(tmp_path):
    r = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                        str(INDEX.parent), str(tmp_path / "html")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "html" / "index.html").is_file()


@pytest.mark.parametrize("dotted", [e for e in ENTRY_POINTS if e != "seqform.registry.registry"])
def test_entry_points_document_parameters_returns_and_a_runnable_example(dotted):
    func = resolve(dotted)
    doc = func.__doc__ or ""
    sections = ["Parameters\n    ----------", "Examples\n    --------"]
    if inspect.signature(func).return_annotation not in (None, "None"):
        sections.append("Returns\n    -------")
    for section in sections:
        assert section in doc, f"{dotted}: no {section.split()[0]} section"
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(func, dotted, globs={})
    assert tests and tests[0].examples, f"{dotted}: no example"
    for t in tests:
        runner.run(t, out=lambda s: None)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, f"{dotted}: {res.failed} example(s) failed (run python -m doctest on it)"

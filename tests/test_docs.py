"""The documentation site (docs/) builds without a warning, every code block of its guides runs as
a reader runs it, and every public entry point the API reference documents has numpydoc
Parameters, Returns and Examples sections whose examples run."""

import doctest
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import docblocks

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
INDEX = DOCS / "api" / "index.rst"
ENTRY_POINTS = re.findall(r"^\.\. autofunction:: (\S+)$", INDEX.read_text(), flags=re.M)
# background and results pages: records of past measurements, whose commands take minutes or
# name the machine they ran on; they are built (test_the_site_builds...) but their blocks not run
BACKGROUND = {
    "efce-sampling-runs.md",
    "indian-poker-sign.md",
    "references.md",
    "rhode-island-node-count.md",
    "findings.md",
    "reliability.md",
    "json-output.md",
    "efg-format.md",
    "changelog.md",
}
PAGES = sorted(
    p.relative_to(DOCS).as_posix()
    for p in DOCS.rglob("*.md")
    if p.name not in BACKGROUND and "_generated" not in p.parts and "_build" not in p.parts
)


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


def test_the_site_builds_without_warnings(tmp_path):
    """The whole site: guides, API reference, generated results pages, changelog."""
    r = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(tmp_path / "html")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    for page in [
        "index",
        "getting-started",
        "api/index",
        "changelog",
        "_generated/results/index",
        "_generated/results/cfr",
        "tutorials/verify-your-own-solver",
    ]:
        assert (tmp_path / "html" / f"{page}.html").is_file(), page
    # the results pages show their plots
    assert (tmp_path / "html" / "_images" / "compare-kuhn.png").is_file()


def test_results_pages_take_the_newest_run(tmp_path):
    sys.path.insert(0, str(DOCS))
    try:
        import generate_results
    finally:
        sys.path.pop(0)
    names = generate_results.generate(tmp_path)
    assert {"cfr", "solve", "compare", "mccfr-batched"} <= set(names)
    assert "cfr-2026-11-24.md" in (tmp_path / "cfr.md").read_text()
    assert generate_results.benchmark_of("mccfr-2026-11-24-os-batched") == ("mccfr-os-batched", "2026-11-24")


@pytest.mark.parametrize("page", PAGES)
def test_every_code_block_of_the_guide_runs(page, tmp_path):
    """A page's blocks run in order in one folder (a later block may import a module an earlier
    one saved), as a reader following the page does."""
    docblocks.prepare(tmp_path)
    for lang, start, body in docblocks.blocks((DOCS / page).read_text()):
        docblocks.run_block(f"docs/{page}", lang, start, body, tmp_path)


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

"""The study report (``seqform.study.studyreport``): plots per game, and a summary whose numbers are
recomputed here from the table."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from seqform.study.studyrunner import run_study
from seqform.study.studyspec import load_study
from seqform.study.studytable import read_table

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    p = d / "r.toml"
    p.write_text(
        '[study]\nname = "r"\ngames = ["kuhn"]\nseeds = 3\niterations = 400\ncheckpoints = 8\n\n'
        '[[solvers]]\nname = "cfr+"\n\n[[solvers]]\nname = "os-mccfr"\n\n'
        '[[solvers]]\nname = "es-mccfr-batched"\nparams = { batch = [4, 16] }\n'
    )
    run_study(load_study(p), d / "out", workers=2, progress=False)
    return d / "out"


def test_report_cli_writes_plots_and_summary(table, tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "seqform",
            "study",
            "report",
            str(table / "results.parquet"),
            "--out",
            str(tmp_path),
            "--json",
            "--levels",
            "0.1,0.05",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert [Path(p).name for p in got["plots"]] == ["r-kuhn.png"] and Path(got["plots"][0]).stat().st_size > 10000
    md = Path(got["summary"]).read_text()
    rows = read_table(table)
    lines = {ln.split(" | ")[0].lstrip("| "): ln for ln in md.splitlines() if ln.startswith("| ") and "---" not in ln}
    assert set(lines) >= {"cfr+", "os-mccfr", "es-mccfr-batched batch=4", "es-mccfr-batched batch=16"}
    # recomputed from the table: the median final exploitability, and the median seconds to 0.1
    for label, solver, params in (
        ("os-mccfr", "os-mccfr", "{}"),
        ("es-mccfr-batched batch=16", "es-mccfr-batched", '{"batch": 16}'),
    ):
        mine = [r for r in rows if r["solver"] == solver and r["params"] == params]
        seeds = sorted({r["seed"] for r in mine})
        assert len(seeds) == 3
        final = [
            max((r for r in mine if r["seed"] == s), key=lambda r: r["iteration"])["exploitability"] for s in seeds
        ]
        cells = lines[label].split(" | ")
        assert cells[1] == "3 / 0"
        assert float(cells[2].split(" ")[0]) == pytest.approx(
            np.median(final), rel=5e-3
        )  # printed to 3 significant digits
        hits = []
        for s in seeds:
            pts = sorted((r for r in mine if r["seed"] == s), key=lambda r: r["iteration"])
            hit = next((r for r in pts if r["exploitability"] <= 0.1), None)
            if hit is not None:
                hits.append(hit["solver_seconds"])
        if hits:
            m = re.match(r"([0-9.e+-]+) s / .* \((\d+)/3\)", cells[4])
            assert m and int(m.group(2)) == len(hits)
            assert float(m.group(1)) == pytest.approx(np.median(hits), rel=5e-3)  # printed to 3 significant digits
    assert "## Failures" in md and "None." in md


def test_report_refuses_what_is_not_a_table(tmp_path):
    bad = tmp_path / "x.parquet"
    bad.write_text("not parquet")
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "study", "report", str(bad)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2 and "not a study table" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "study", "report"], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2 and "needs a TABLE" in r.stderr


def test_report_figure_has_labels_units_an_outside_legend_and_the_seed_count(table, tmp_path, monkeypatch):
    """The figure's own objects: every panel's axes labelled (units on the measures), one legend
    outside every panel naming each solver, and the seed count in the title."""
    from matplotlib.figure import Figure

    from seqform.study.studyreport import plot
    from tests.study.test_verifyplot import assert_legend_outside, legend_texts

    figures = []
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: (figures.append(self), real(self, *a, **k))[1])
    plot(read_table(table), tmp_path, "r")
    (fig,) = figures
    fig.draw_without_rendering()
    assert all(ax.get_xlabel() for ax in fig.axes)
    assert all("payoff units" in ax.get_ylabel() for ax in fig.axes if ax.get_ylabel())
    assert_legend_outside(fig)
    names = legend_texts(fig)
    for solver in ("cfr+", "os-mccfr", "es-mccfr-batched batch=4", "es-mccfr-batched batch=16"):
        assert any(n.startswith(solver) for n in names), (solver, names)
    assert "over 3 seeds" in fig._suptitle.get_text()

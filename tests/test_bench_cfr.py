"""Smoke test of bench/bench_cfr.py: Kuhn, 20 iterations, so the script does not rot.

No timing assertions: only that it runs (peers present or not), prints the CFR+ table with a
seqform row and writes its results files.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "bench_cfr.py"


def test_bench_cfr_kuhn(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--games",
            "kuhn",
            "--iterations",
            "20",
            "--repeats",
            "1",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    header = next(i for i, ln in enumerate(lines) if ln.startswith("| game | solver | iterations |"))
    cols = [c.strip() for c in lines[header].strip("|").split("|")]
    rows = {}
    for ln in lines[header + 2 :]:
        if not ln.startswith("|"):
            break
        cells = [c.strip() for c in ln.strip("|").split("|")]
        rows[cells[1]] = dict(zip(cols, cells))
    assert set(rows) == {"seqform", "OpenSpiel C++", "OpenSpiel Python", "LiteEFG"}
    seq = rows["seqform"]
    assert seq["game"] == "kuhn" and seq["iterations"] == "20"
    assert float(seq["it/s"].replace(",", "")) > 0
    assert 0 < float(seq["exploitability"]) < 0.5
    data = json.loads(next(tmp_path.glob("cfr-*.json")).read_text())
    (s,) = [r for r in data["cfr"] if r["solver"] == "seqform"]
    assert s["status"] == "ok" and s["iterations"] == 20
    # where OpenSpiel is installed, its CFR+ iterates are ours: the same exploitability
    cpp = next(r for r in data["cfr"] if r["solver"] == "OpenSpiel C++")
    if cpp["status"] == "ok":
        assert abs(cpp["exploitability"] - s["exploitability"]) < 1e-9
    assert list(tmp_path.glob("cfr-*.md"))


def test_bench_cfr_no_write(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--games",
            "kuhn",
            "--iterations",
            "5",
            "--repeats",
            "1",
            "--no-write",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| kuhn | seqform | 5 |" in proc.stdout
    assert not list(tmp_path.iterdir())

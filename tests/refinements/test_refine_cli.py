"""``seqform solve GAME --refine efpe|qpe [--eps X]``, run as a user runs it, and the refinements
benchmark script (on Kuhn, so that it does not rot)."""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args):
    return subprocess.run([sys.executable, "-m", "seqform", *args], capture_output=True, text=True, timeout=300)


def test_refine_json_has_solve_keys_and_regret():
    r = run("solve", "threat_zero_sum", "--refine", "efpe", "--json", "--strategy", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    for key in ("game", "value", "value_float", "certified", "exploitability", "sizes", "seconds"):
        assert key in out
    assert out["refine"] == "efpe" and out["certified"] is True and out["value"] == "0"
    assert out["max_infoset_regret"] == "0" and out["positive_regret_infosets"] == 0
    p1 = out["strategy"]["strategies"][1]["infosets"][0]["actions"]
    assert Fraction(p1["x"]) == 1  # takes the 5 the plain Nash LP gives up


def test_refine_human_output_and_eps():
    r = run("solve", "kuhn", "--refine", "qpe", "--quiet")
    assert r.returncode == 0 and "-1/18" in r.stdout and "regret exactly zero" in r.stdout
    r = run("solve", "kuhn", "--refine", "efpe", "--eps", "0.01", "--json", "--quiet")
    out = json.loads(r.stdout)
    # certified at that eps: the trembling best responses meet at the perturbed value
    assert out["eps"] == 0.01 and out["tremble_violation"] <= 0 and out["certified"] is True
    assert -1 / 18 < out["value_float"] < -1 / 18 + 0.01


def test_refine_errors_are_one_line():
    for args, msg in (
        (("kuhn", "--refine", "efpe", "--eps", "0.9"), "too large"),
        (("kuhn", "--eps", "0.1"), "--eps needs --refine"),
        (("selten_horse", "--refine", "efpe", "--eps", "0.6"), "too large"),
    ):
        r = run("solve", *args, "--quiet")
        assert r.returncode == 2 and msg in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


def test_bench_refine_kuhn(tmp_path):
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_refine.py"), "--games", "kuhn", "--out-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    md = next(tmp_path.glob("refine-*.md")).read_text()
    assert "| kuhn |" in md and "True" in md
    data = json.loads(next(tmp_path.glob("refine-*.json")).read_text())
    assert data["rows"][0]["efpe"]["certified"] and data["rows"][0]["value"] == "-1/18"

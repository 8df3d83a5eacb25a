"""Smoke test of bench/bench_solve.py: Kuhn, seqform only, so the script does not rot.

No timing assertions: only that it runs, prints the table and gets Kuhn's value -1/18.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "bench_solve.py"


def test_bench_solve_kuhn_skip_peers(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--games",
            "kuhn",
            "--skip-peers",
            "--repeat",
            "1",
            "--cap",
            "60",
            "--out-dir",
            str(tmp_path),
            "--quiet",
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    lines = out.splitlines()
    header = next(i for i, ln in enumerate(lines) if ln.startswith("| game |"))
    cols = [c.strip() for c in lines[header].strip("|").split("|")]
    assert lines[header + 1].startswith("|---")
    row = [c.strip() for c in lines[header + 2].strip("|").split("|")]
    assert row[0] == "kuhn"
    assert row[cols.index("value (P1)")] == "-1/18"
    assert row[cols.index("values agree")] == "yes"
    float(row[cols.index("seqform float s")])  # a number, not a failure
    float(row[cols.index("seqform certified s")])
    # the results files
    mds = list(tmp_path.glob("solve-*.md"))
    jss = list(tmp_path.glob("solve-*.json"))
    assert len(mds) == 1 and len(jss) == 1
    assert mds[0].read_text() == out.rstrip("\n") or mds[0].read_text() in out
    data = json.loads(jss[0].read_text())
    (game,) = data["games"]
    assert game["game"] == "kuhn"
    assert game["runs"]["seqform-exact"]["value"] == "-1/18"
    assert game["runs"]["seqform-exact"]["peak_rss_mib"] > 0
    assert "cpu" in data["machine"] and "loadavg_start" in data["machine"]


# slow: three smoothing runs on Leduc (12 CPU s); the first-order and perturbed benches' smoke tests
# stay in the default tier, and tests/iterative checks the solvers themselves
@pytest.mark.slow
def test_smoothing_experiment_smoke(tmp_path):
    """bench/smoothing_leduc.py at a tiny budget, on Leduc 3 (Leduc 5's exact perturbed equilibrium
    alone takes a minute): runs, writes its table, JSON and its three plots
    (NashConv, information-set regret, and perturbed EGT in its own perturbed game)."""
    import pytest

    pytest.importorskip("matplotlib")
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "smoothing_leduc.py"),
            "--traversals",
            "60",
            "--eps",
            "0.05",
            "--ranks",
            "3",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| CFR+ |" in proc.stdout and "| EGT, eps=0.05 |" in proc.stdout
    assert len(list(tmp_path.glob("smoothing-leduc3-*.png"))) == 3
    data = json.loads(next(tmp_path.glob("smoothing-leduc3-*.json")).read_text())
    assert set(data) == {"CFR+", "EGT", "EGT, eps=0.05"}
    last = data["EGT, eps=0.05"]["points"][-1]
    assert data["EGT, eps=0.05"]["perturbed"]["concept"] == "efpe" and last["perturbed_exploitability"] >= -1e-12


def test_bench_mccfr_kuhn(tmp_path):
    """bench/bench_mccfr.py on Kuhn, two seeds, a few seconds: runs, writes its table and JSON, and
    both solvers reach the first levels (exploitability is measured, not assumed)."""
    pytest = __import__("pytest")
    pytest.importorskip("pyspiel")
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_mccfr.py"),
            "--game",
            "kuhn",
            "--seeds",
            "2",
            "--cap",
            "5",
            "--python-seeds",
            "1",
            "--python-cap",
            "5",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(next(tmp_path.glob("mccfr-*.json")).read_text())
    es = [r for r in data["rows"] if r["sampling"] == "external" and r["level"] == 0.05]
    assert {r["impl"] for r in es} == {"seqform", "seqform batched", "OpenSpiel C++", "OpenSpiel Python"}
    assert all(r["reached"] == r["seeds"] for r in es)
    assert next(tmp_path.glob("mccfr-*.md")).read_text().count("| external |") == 2


def test_pcfr_and_zinkevich_benches_run(tmp_path):
    """bench/pcfr_vs_cfrplus.py and bench/zinkevich_fig1b.py on small settings: they run and write
    tables whose numbers were measured (predictive CFR+ beats CFR+ on Kuhn, as on every run)."""
    for args in (
        ["pcfr_vs_cfrplus.py", "--games", "kuhn", "--iterations", "100"],
        ["zinkevich_fig1b.py", "--ranks", "3", "--level", "0.5", "--seeds", "1"],
    ):
        proc = subprocess.run(
            [sys.executable, str(ROOT / "bench" / args[0]), *args[1:], "--out-dir", str(tmp_path)],
            cwd=str(ROOT),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
    pc = json.loads(next(tmp_path.glob("pcfr-*.json")).read_text())["rows"][0]
    assert pc["pcfr+"]["100"] < pc["cfr+"]["100"]
    zk = json.loads(next(tmp_path.glob("zinkevich-fig1b-*.json")).read_text())["rows"][0]
    assert zk["cfr_iterations"] and zk["cs_iterations"] and zk["cs_reached"] == 1


def test_first_order_and_perturbed_benches_run(tmp_path):
    """bench/bench_first_order.py and bench/bench_perturbed.py on Kuhn: they run and their tables
    hold measured numbers (every solver's exploitability falls with more gradients; the perturbed
    solvers reach a loose target)."""
    for args in (
        ["bench_first_order.py", "--game", "kuhn", "--budgets", "100", "1000"],
        ["bench_perturbed.py", "--game", "kuhn", "--eps", "0.01", "--target", "1e-3", "--cap", "20"],
    ):
        proc = subprocess.run(
            [sys.executable, str(ROOT / "bench" / args[0]), *args[1:], "--out-dir", str(tmp_path)],
            cwd=str(ROOT),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
    fo = json.loads(next(tmp_path.glob("first-order-*.json")).read_text())["rows"]
    assert all(r["1000"]["exploitability"] < r["100"]["exploitability"] for r in fo)
    pt = json.loads(next(tmp_path.glob("perturbed-*.json")).read_text())["rows"]
    assert all(r["reached"] for r in pt)


def test_bench_lcp_threat_game(tmp_path):
    """bench/bench_lcp.py on the threat game with pygambit (when installed): runs, writes its
    table and files, and both solvers find an equilibrium."""
    import pytest

    pytest.importorskip("pygambit")
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_lcp.py"),
            "--games",
            "threat_general_sum",
            "--timeout",
            "60",
            "--qpe",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    row = next(ln for ln in proc.stdout.splitlines() if ln.startswith("| threat_general_sum |"))
    assert "| True |" in row and "error" not in row
    data = json.loads(next(tmp_path.glob("lcp-*.json")).read_text())
    (r,) = data["rows"]
    assert r["certified"] and r["qpe_certified"]
    assert r["pygambit_rational"]["status"] == "ok" and r["pygambit_rational"]["equilibria"] >= 1


def test_bench_wide_payoffs_kuhn(tmp_path):
    """bench/bench_wide_payoffs.py on Kuhn poker with payoffs up to 10^16, with pygambit's
    rational LP when installed: certified by the exact simplex, and the peer's value agrees."""
    import pytest

    peers = [] if importlib.util.find_spec("pygambit") else ["--skip-peers"]
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_wide_payoffs.py"),
            "--games",
            "kuhn",
            "--tops",
            "16",
            "--timeout",
            "60",
            "--out-dir",
            str(tmp_path),
            *peers,
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (r,) = json.loads(next(tmp_path.glob("wide-payoffs-*.json")).read_text())["rows"]
    assert r["certified"] and r["method"] == "lp-exact-simplex" and r["pivots"] > 0
    if not peers:
        assert r["pygambit"]["agrees"]
    else:
        pytest.skip("pygambit is not installed: the peer's value was not compared")


def test_rhode_island_benches_run(tmp_path):
    """bench/bench_rhode_island.py and bench/bench_sparsified_lp.py on small decks: they run, write
    their files, and what they report holds together (a bracket narrows; both LPs agree)."""
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_rhode_island.py"),
            "--game",
            "rhode_island(ranks=2,suits=3)",
            "--seconds",
            "3",
            "--bracket-every",
            "20",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(next(tmp_path.glob("rhode-island-*.json")).read_text())
    hist = data["history"]
    assert (
        len(hist) >= 2
        and all(lo <= up for _, _, lo, up in hist)
        and hist[-1][3] - hist[-1][2] < hist[0][3] - hist[0][2]
    )
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_sparsified_lp.py"),
            "--games",
            "rhode_island(ranks=2,suits=3)",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = json.loads(next(tmp_path.glob("sparsified-lp-*.json")).read_text())["rows"]
    plain, sparse = rows
    assert plain["status"] == sparse["status"] == "ok"
    assert abs(plain["value"] - sparse["value"]) < 1e-7 and sparse["lower"] <= sparse["value"] + 1e-9


def test_efce_sweep_speed_runs():
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "efce_sweep_speed.py"),
            "--game",
            "job_market",
            "--sizes",
            "20",
            "--repeat",
            "1",
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| 20 | " in proc.stdout


def test_efce_exact_and_noise_benches_run(tmp_path):
    """bench_efce_exact on a 2 x 2 grid (the welfare LP equals the full LP's, 1421/250, and is
    certified; then 2 s of the sampler against the ranges over its eps-EFCE polytope) and
    bench_efce_noise on one small sample, so the scripts do not rot."""
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_efce_exact.py"),
            "--games",
            "grid_game(size=2)",
            "--ranges",
            "--pool-cap",
            "0",
            "--max-idle",
            "1",
            "--pricing-cap",
            "30",
            "--sampler",
            "2",
            "--cap",
            "120",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| grid_game(size=2,seed=0) | welfare | 1421/250 | 5.684 | yes | yes |" in proc.stdout
    # welfare and both ends of four players' ranges, then those ends again over the eps polytope
    assert proc.stdout.count("| yes | yes |") == 17
    row = json.loads(next(tmp_path.glob("efce-exact-*.json")).read_text())[0]
    samp = row["sampler"]
    assert Fraction(samp["eps"]) >= samp["validated_regret"] + 2 * samp["validated_stderr"] - 1e-12
    assert samp["outside_eps_ranges"] is not None and len(samp["eps_ranges"]) == 4
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_efce_noise.py"),
            "--sizes",
            "100",
            "--seeds",
            "1",
            "--max-rounds",
            "50",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    row = json.loads(next(tmp_path.glob("efce-noise-*.json")).read_text())["rows"][0]
    assert row["sample_size"] == 100 and row["exact_error"] >= 0 and 0 <= row["tv"] <= 1

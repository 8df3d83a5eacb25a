"""``seqform efce``, run as a user runs it: JSON keys, exact and sampling modes, clear errors."""
import json
import subprocess
import sys

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "seqform", "efce", *args], capture_output=True, text=True, timeout=300)


def test_exact_json():
    r = run("job_market", "--exact", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["payoffs"] == pytest.approx([2.5, 0.2536], abs=1e-3) and abs(out["max_regret"]) <= 1e-6


def test_welfare_and_weights():
    r = run("job_market", "--welfare", "--json", "--quiet")
    assert json.loads(r.stdout)["payoffs"] == pytest.approx([4, 5])
    r = run("job_market", "--exact", "--weights", "1,1", "--json", "--quiet")
    assert json.loads(r.stdout)["payoffs"] == pytest.approx([4, 5], abs=5e-3)


def test_sampling_text_reports_rounds_samples_time_memory():
    r = run("job_market", "--rounds", "5", "--seed", "3", "--expectations", "mcmc")
    assert r.returncode == 0, r.stderr
    for word in ("payoffs", "max regret", "rounds", "samples", "memory", "seconds"):
        assert word in r.stdout
    assert "round 1:" in r.stderr
    out = json.loads(run("job_market", "--rounds", "5", "--seed", "3", "--json", "--quiet", "--expectations",
                         "mcmc").stdout)
    assert len(out["payoffs"]) == 2 and 1 <= out["rounds"] <= 5 and "max_regret" in out


def test_sampling_validates_on_fresh_samples_and_runs_large_grids():
    """An 8 x 8 grid (3^64 profiles; the polymatrix engine) and the re-estimated regret, its
    burn-in in two worker processes."""
    r = run("grid_game(size=8)", "--rounds", "30", "--validate", "300", "--max-reuse", "0", "--workers", "2", "--json",
            "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert len(out["payoffs"]) == 64 and out["rounds"] == 30
    assert out["validated_stderr"] > 0 and out["fresh_max_regret"] >= 0
    assert out["validation_burn_in"] == 30 and "validation_energy_drift" in out


@pytest.mark.parametrize("seed", ["0", "7"])
def test_default_job_market_run_ends_near_the_maximum_entropy_efce(seed):
    """The issue's check: a default run, any seed, within 0.05 of cvxpy's maximum-entropy payoffs
    (the default uses exact expectations on a game this small: 32 full pure profiles)."""
    import efce
    from efce.strategies import profiles
    from seqform.model.tree import compile_tree
    truth = efce.max_entropy(profiles(compile_tree(efce.job_market())))
    out = json.loads(run("job_market", "--seed", seed, "--json", "--quiet").stdout)
    assert out["expectations"] == "exact" and out["stopped_by"] == "target"
    assert out["payoffs"] == pytest.approx([float(x) for x in truth.payoffs], abs=0.05)


def test_payoff_ranges_equal_column_generation():
    import numpy as np

    from efce.columngeneration import EFCEColumnGeneration
    from efce.games import job_market
    out = json.loads(run("job_market", "--ranges", "--json", "--quiet").stdout)
    assert out["certified"] and out["proved_optimal"] and out["max_regret"] <= 0
    cg = EFCEColumnGeneration(job_market())
    for n in range(2):
        e = np.eye(2)[n]
        assert out["ranges_exact"][n] == [str(cg.solve(-e).payoffs[n]), str(cg.solve(e).payoffs[n])]
    text = run("job_market", "--ranges").stdout
    assert "player 0 payoff   from 0 to 9/2" in text


def test_payoff_ranges_over_the_eps_polytope_equal_the_full_lp():
    """--eps: the ranges over the eps-EFCE polytope (column generation, exact), against the full
    LP over every reduced profile with eps on its trigger rows (floats, HiGHS via scipy)."""
    from fractions import Fraction

    import numpy as np

    from efce.exact import solve_lp
    from efce.games import job_market
    from efce.strategies import profiles
    from seqform.model.tree import compile_tree
    out = json.loads(run("job_market", "--ranges", "--eps", "1/10", "--json", "--quiet").stdout)
    assert out["certified"] and out["proved_optimal"] and out["eps_exact"] == "1/10"
    assert Fraction(out["max_regret_exact"]) <= Fraction(1, 10)
    prof = profiles(compile_tree(job_market()))
    for n in range(2):
        e = np.eye(2)[n]
        lo, hi = (float(Fraction(x)) for x in out["ranges_exact"][n])
        assert hi == pytest.approx(solve_lp(prof, e, eps=0.1).objective, abs=1e-7)
        assert lo == pytest.approx(-solve_lp(prof, -e, eps=0.1).objective, abs=1e-7)
    assert out["ranges"][0][0] < 0 < 4.5 < out["ranges"][0][1]      # wider than the EFCE polytope's [0, 9/2]
    assert "over the 1/10-EFCE polytope" in run("job_market", "--ranges", "--eps", "0.1").stdout


def test_four_card_indian_poker_welfare_is_an_exact_efce():
    """Issue 26's check: beyond enumeration (~10^31 reduced profiles), column generation returns a
    distribution whose largest causal-deviation gain, by the dynamic program in rationals, is at
    most 0. Any EFCE is welfare-optimal in this zero-sum game, so the exact welfare must be 0; the
    3-card game's distribution is also checked by the independent oracle in
    ``test_efce_columngeneration``. About 20 s of CPU (68 pricing rounds with the default dual
    smoothing; 159 rounds and 3 minutes without it, which kept this test in the slow tier); the
    default has no warm start, so the run depends on the seed alone."""
    from fractions import Fraction
    r = subprocess.run([sys.executable, "-m", "seqform", "efce", "indian_poker(cards=4)", "--welfare", "--json",
                        "--quiet"], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert out["certified"] and out["proved_optimal"] and Fraction(out["max_regret_exact"]) <= 0
    pay = [Fraction(x) for x in out["payoffs_exact"]]
    assert sum(pay) == 0 and Fraction(out["welfare_exact"]) == 0
    assert [float(x) for x in pay] == pytest.approx(out["payoffs"], abs=1e-12)


def test_errors():
    r = run("job_market", "--weights", "1,2,3")
    assert r.returncode == 2 and "2 players, got 3 weights" in r.stderr
    r = run("indian_poker(cards=8)", "--exact")
    assert r.returncode == 2 and "reduced pure strategy profiles" in r.stderr and "sampling method" in r.stderr
    r = run("indian_poker(cards=3)", "--expectations", "exact", "--rounds", "1")
    assert r.returncode == 2 and "full pure strategy profiles" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = run("job_market", "--ranges", "--welfare")
    assert r.returncode == 2 and "give one" in r.stderr
    r = run("job_market", "--ranges", "--expectations", "mcmc")
    assert r.returncode == 2 and "--expectations" in r.stderr
    r = run("job_market", "--workers", "2")
    assert r.returncode == 2 and "nothing to draw" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    for bad, why in (("abc", "expected a number"), ("-1/2", "at least 0"), ("1/0", "expected a number")):
        r = run("job_market", "--ranges", f"--eps={bad}")
        assert r.returncode == 2 and why in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = run("job_market", "--eps", "0.1")
    assert r.returncode == 2 and "--eps applies to --welfare and --ranges" in r.stderr
    r = run("job_market", "--welfare", "--workers", "2")
    assert r.returncode == 2 and "--workers applies to the sampling algorithm" in r.stderr


def test_bench_efce_smoke(tmp_path):
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / "bench" / "bench_efce.py"), "--poker", "3", "--grids", "2",
                        "--time-limit", "3", "--workers", "2", "--check-workers", "2", "--out-dir", str(tmp_path)], cwd=str(root), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    # the children's progress reaches the parent's stderr, as whole lines
    assert "\nround 1: largest regret" in r.stderr and "grid_game(size=2,seed=0): sampling" in r.stderr
    assert "| indian_poker(cards=3) | seed | 10 | 1 | 0.1 | 2 | 144 |" in r.stdout
    assert "| grid_game(size=2,seed=0) | seed | 10 | 1 | 0.1 | 2 | 12 |" in r.stdout
    assert len(list(tmp_path.glob("efce-*.png"))) == 2 and len(list(tmp_path.glob("efce-*.json"))) == 1
    rows = json.loads(next(tmp_path.glob("efce-*.json")).read_text())
    assert all(r["validation_burn_in"] == 100 and isinstance(r["energy_drift"], float) for r in rows)


def test_bench_efce_saved_runs_validate_again_alike(tmp_path):
    """--save-state keeps a run's q_lambda; --revalidate with the same settings must reproduce
    the validation the run itself reported (same seeds, so the same chains)."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    bench = [sys.executable, str(root / "bench" / "bench_efce.py"), "--check", "200", "--burn-in", "20",
             "--out-dir", str(tmp_path)]
    r = subprocess.run(bench + ["--poker", "3", "--grids", "", "--time-limit", "2", "--save-state",
                                str(tmp_path / "state"), "--name", "run"], cwd=str(root), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    run_row = json.loads(next(tmp_path.glob("run-*.json")).read_text())[0]
    r = subprocess.run(bench + ["--revalidate", *map(str, (tmp_path / "state").glob("*.pkl")), "--name", "again"],
                       cwd=str(root), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    again = json.loads(next(tmp_path.glob("again-*.json")).read_text())
    assert len(again) == 1 and again[0]["rounds"] == run_row["rounds"] and "| indian_poker(cards=3) |" in r.stdout
    for k in ("found_regret", "validated_regret", "validated_stderr", "energy_drift"):
        assert again[0][k] == pytest.approx(run_row[k], abs=1e-12)

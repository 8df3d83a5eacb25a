"""``seqform efce sample|maxent|welfare|ranges``, run as a user runs it: JSON keys, exact and sampling
modes, the same run as the library's, clear errors, and the form before subcommands refused."""

import json
import subprocess
import sys

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "seqform", "efce", *args], capture_output=True, text=True, timeout=300)


_BATCH = """
import contextlib, io, json, sys
from seqform.cli import main
out = []
for argv in json.loads(sys.argv[1]):
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        try:
            code = main(["efce", *argv])
        except SystemExit as x:  # argparse's own refusals
            code = x.code
    out.append([code, o.getvalue(), e.getvalue()])
with open(sys.argv[2], "w") as f:
    json.dump(out, f)
"""


def run_batch(cases: list, tmp_path) -> list:
    """``seqform efce ARGS`` for every ARGS in ``cases``, in one fresh interpreter
    (``seqform.cli.main``, what the console script calls), as (exit status, stdout, stderr)
    each: the refusals tested here end before any computation, so an interpreter each (two
    seconds of imports) would only measure start-up. An uncaught exception fails the batch."""
    result = tmp_path / "batch.json"
    r = subprocess.run(
        [sys.executable, "-c", _BATCH, json.dumps(cases), str(result)], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(result.read_text())
    return [subprocess.CompletedProcess(["seqform", "efce", *c], *g) for c, g in zip(cases, got)]


def test_exact_json():
    r = run("maxent", "job_market", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["payoffs"] == pytest.approx([2.5, 0.2536], abs=1e-3) and abs(out["max_regret"]) <= 1e-6


def test_welfare_and_weights():
    r = run("welfare", "job_market", "--json", "--quiet")
    assert json.loads(r.stdout)["payoffs"] == pytest.approx([4, 5])
    r = run("maxent", "job_market", "--weights", "1,1", "--json", "--quiet")
    assert json.loads(r.stdout)["payoffs"] == pytest.approx([4, 5], abs=5e-3)


def test_sampling_text_reports_rounds_samples_time_memory():
    r = run("sample", "job_market", "--rounds", "5", "--seed", "3", "--option", "expectations=mcmc")
    assert r.returncode == 0, r.stderr
    for word in ("payoffs", "max regret", "rounds", "samples", "memory", "seconds"):
        assert word in r.stdout
    assert "round 1:" in r.stderr
    out = json.loads(
        run(
            "sample", "job_market", "--rounds", "5", "--seed", "3", "--json", "--quiet", "--option", "expectations=mcmc"
        ).stdout
    )
    assert len(out["payoffs"]) == 2 and 1 <= out["rounds"] <= 5 and "max_regret" in out


@pytest.mark.runtime
def test_sampling_validates_on_fresh_samples_and_runs_large_grids():
    """An 8 x 8 grid (3^64 profiles; the polymatrix engine) and the re-estimated regret, its
    burn-in in two worker processes."""
    r = run(
        "sample",
        "grid_game(size=8)",
        "--rounds",
        "30",
        "--validate",
        "300",
        "--option",
        "max_reuse=none",
        "--workers",
        "2",
        "--json",
        "--quiet",
    )
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
    out = json.loads(run("sample", "job_market", "--seed", seed, "--json", "--quiet").stdout)
    assert out["expectations"] == "exact" and out["stopped_by"] == "target"
    assert out["payoffs"] == pytest.approx([float(x) for x in truth.payoffs], abs=0.05)


def test_payoff_ranges_equal_column_generation():
    import numpy as np

    from efce.colgen import EFCEColumnGeneration
    from efce.games import job_market

    out = json.loads(run("ranges", "job_market", "--json", "--quiet").stdout)
    assert out["certified"] and out["proved_optimal"] and out["max_regret"] <= 0
    cg = EFCEColumnGeneration(job_market())
    for n in range(2):
        e = np.eye(2)[n]
        assert out["ranges_exact"][n] == [str(cg.solve(-e).payoffs[n]), str(cg.solve(e).payoffs[n])]
    text = run("ranges", "job_market").stdout
    assert "player 0 payoff  from 0 to 4.5  (= 9/2)" in text


def test_payoff_ranges_over_the_eps_polytope_equal_the_full_lp():
    """--allowance: the ranges over the eps-EFCE polytope (column generation, exact), against the full
    LP over every reduced profile with eps on its trigger rows (floats, HiGHS via scipy)."""
    from fractions import Fraction

    import numpy as np

    from efce.exact import solve_lp
    from efce.games import job_market
    from efce.strategies import profiles
    from seqform.model.tree import compile_tree

    out = json.loads(run("ranges", "job_market", "--allowance", "1/10", "--json", "--quiet").stdout)
    assert out["certified"] and out["proved_optimal"] and out["eps_exact"] == "1/10"
    assert Fraction(out["max_regret_exact"]) <= Fraction(1, 10)
    prof = profiles(compile_tree(job_market()))
    for n in range(2):
        e = np.eye(2)[n]
        lo, hi = (float(Fraction(x)) for x in out["ranges_exact"][n])
        assert hi == pytest.approx(solve_lp(prof, e, eps=0.1).objective, abs=1e-7)
        assert lo == pytest.approx(-solve_lp(prof, -e, eps=0.1).objective, abs=1e-7)
    assert out["ranges"][0][0] < 0 < 4.5 < out["ranges"][0][1]  # wider than the EFCE polytope's [0, 9/2]
    assert "over the 1/10-EFCE polytope" in run("ranges", "job_market", "--allowance", "0.1").stdout


@pytest.mark.slow  # repeats on a larger game what the 3-card game's welfare checks by the oracle
def test_four_card_indian_poker_welfare_is_an_exact_efce():
    """Beyond enumeration (~10^31 reduced profiles), column generation returns a
    distribution whose largest causal-deviation gain, by the dynamic program in rationals, is at
    most 0. Any EFCE is welfare-optimal in this zero-sum game, so the exact welfare must be 0; the
    3-card game's distribution is also checked by the independent oracle in
    ``test_efce_columngeneration``. About 20 s of CPU (68 pricing rounds with the default dual
    smoothing; 159 rounds and 3 minutes without it, which kept this test in the slow tier); the
    default has no warm start, so the run depends on the seed alone."""
    from fractions import Fraction

    r = subprocess.run(
        [sys.executable, "-m", "seqform", "efce", "welfare", "indian_poker(cards=4)", "--json", "--quiet"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert out["certified"] and out["proved_optimal"] and Fraction(out["max_regret_exact"]) <= 0
    pay = [Fraction(x) for x in out["payoffs_exact"]]
    assert sum(pay) == 0 and Fraction(out["welfare_exact"]) == 0
    assert [float(x) for x in pay] == pytest.approx(out["payoffs"], abs=1e-12)


@pytest.mark.runtime
def test_errors(tmp_path):
    one_line = [
        # (arguments, what the one-line message must say)
        (
            ("sample", "indian_poker(cards=3)", "--option", "expectations=exact", "--rounds", "1"),
            "full pure strategy profiles",
        ),
        # two exact computations at once: one subcommand is one computation, and the other's old flag is refused
        (("ranges", "job_market", "--welfare"), "seqform efce welfare"),
        (("sample", "job_market", "--workers", "2"), "nothing to draw"),
        *[
            (("ranges", "job_market", f"--allowance={bad}"), why)
            for bad, why in (("abc", "expected a number"), ("-1/2", "at least 0"), ("1/0", "expected a number"))
        ],
        # a regret allowance belongs to welfare and ranges only, and --workers to sample only
        (("sample", "job_market", "--allowance", "0.1"), "--allowance"),
        (("welfare", "job_market", "--workers", "2"), "--workers"),
        *[
            (("sample", "job_market", "--option", option), why)
            for option, why in (
                ("colour=red", "NAME one of"),
                ("thin=x", "whole number"),
                ("max_reuse=0", "max_reuse"),
                ("overlap=maybe", "true or false"),
                ("workers=2", "NAME one of"),
            )
        ],
    ]
    other = [
        (("sample", "job_market", "--weights", "1,2,3"), ["2 players, got 3 weights"]),
        (("maxent", "indian_poker(cards=8)"), ["reduced pure strategy profiles", "sampling method"]),
        (("ranges", "job_market", "--expectations", "mcmc"), ["--expectations"]),
    ]
    cases = [list(a) for a, _ in one_line] + [list(a) for a, _ in other]
    results = run_batch(cases, tmp_path)
    for (args, why), r in zip(one_line, results):
        assert r.returncode == 2 and why in r.stderr and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
        assert "Traceback" not in r.stderr
    for (args, whys), r in zip(other, results[len(one_line) :]):
        assert r.returncode == 2 and all(w in r.stderr for w in whys), (args, r.stderr)


@pytest.mark.parametrize(
    "args,new",
    [
        (("job_market", "--exact"), "seqform efce maxent job_market"),
        (("job_market", "--welfare", "--json"), "seqform efce welfare job_market"),
        (("job_market", "--ranges"), "seqform efce ranges job_market"),
        (("job_market", "--ranges", "--eps", "1/100"), "seqform efce ranges job_market"),
        (("job_market", "--eps", "0.1"), "--allowance"),
        (("job_market",), "seqform efce sample job_market"),
        (("indian_poker(cards=4)", "--time-limit", "4"), "seqform efce sample 'indian_poker(cards=4)'"),
        (("--welfare", "job_market"), "seqform efce welfare GAME"),
        (("welfare", "job_market", "--eps", "0.1"), "--allowance"),
        (("sample", "job_market", "--exact"), "seqform efce maxent GAME"),
        (("sample", "job_market", "--max-reuse", "0"), "--option max_reuse"),
    ],
)
def test_the_form_before_subcommands_is_refused_naming_the_new_command(args, new):
    r = run(*args)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("seqform efce: "), r.stderr
    assert new in r.stderr, r.stderr


def test_each_subcommand_has_at_most_eight_options_of_its_own():
    """The shared options (``common_options``: --json, --memory-limit, --quiet) and --help aside;
    the old flags each subcommand refuses are hidden from --help and take no value."""
    import argparse

    from seqform.cli.main import build_parser

    top = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    efce = top.choices["efce"]
    sub = next(a for a in efce._actions if isinstance(a, argparse._SubParsersAction))
    shared = {"--json", "--memory-limit", "--quiet", "--help"}
    for name in ("sample", "maxent", "welfare", "ranges"):
        own = [
            a.option_strings[-1]
            for a in sub._name_parser_map[name]._actions
            if a.option_strings and a.help is not argparse.SUPPRESS and a.option_strings[-1] not in shared
        ]
        assert 1 <= len(own) <= 8, (name, own)
        assert "--eps" not in own and "--exact" not in own


@pytest.mark.parametrize(
    "spec,cli,lib,expectations",
    [
        ("job_market", (), dict(), "exact"),
        ("job_market", ("--seed", "7", "--rounds", "40"), dict(seed=7, max_rounds=40), "exact"),
        ("indian_poker(cards=3)", ("--seed", "2", "--rounds", "5"), dict(seed=2, max_rounds=5), "mcmc"),
    ],
)
def test_the_command_line_runs_the_library_run(spec, cli, lib, expectations):
    """``seqform efce sample GAME`` is ``efce.sample_efce(game)``: the same algorithm with the same
    defaults ("auto" expectations and the refit decided in the library), so the same seed gives the
    same numbers, on a game small enough for exact expectations and on one that needs MCMC."""
    import efce
    import seqform

    out = json.loads(run("sample", spec, *cli, "--json", "--quiet").stdout)
    res = efce.sample_efce(seqform.games.load(spec), **lib)
    assert out["expectations"] == res.expectations == expectations
    assert out["payoffs"] == [float(x) for x in res.payoffs]
    assert (out["max_regret"], out["initial_regret"], out["rounds"], out["samples"], out["deviations"]) == (
        res.max_regret,
        res.initial_regret,
        res.rounds,
        res.samples,
        len(res.deviations),
    )
    assert out["stopped_by"] == res.stopped_by and out["round_limit"] == res.round_limit


# slow: two sampling workers and two checking workers started for a small run (18 CPU s); the saved
# runs' revalidation below runs the same bench in the default tier, and the samplers' worker
# processes are tested in tests/efce/test_efce_sampling.py
@pytest.mark.slow
@pytest.mark.runtime
def test_bench_efce_smoke(tmp_path):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    r = subprocess.run(
        [
            sys.executable,
            str(root / "bench" / "bench_efce.py"),
            "--poker",
            "3",
            "--grids",
            "2",
            "--time-limit",
            "3",
            "--workers",
            "2",
            "--check-workers",
            "2",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=str(root),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    # the children's progress reaches the parent's stderr, as whole lines
    assert "\nround 1: largest regret" in r.stderr and "grid_game(size=2,seed=0): sampling" in r.stderr
    assert "| indian_poker(cards=3) | seed | 10 | 1 | 0.1 | 2 | 144 |" in r.stdout
    assert "| grid_game(size=2,seed=0) | seed | 10 | 1 | 0.1 | 2 | 12 |" in r.stdout
    assert len(list(tmp_path.glob("efce-*.png"))) == 2 and len(list(tmp_path.glob("efce-*.json"))) == 1
    rows = json.loads(next(tmp_path.glob("efce-*.json")).read_text())
    assert all(r["validation_burn_in"] == 100 and isinstance(r["energy_drift"], float) for r in rows)


@pytest.mark.runtime
def test_bench_efce_saved_runs_validate_again_alike(tmp_path):
    """--save-state keeps a run's q_lambda; --revalidate with the same settings must reproduce
    the validation the run itself reported (same seeds, so the same chains)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    bench = [
        sys.executable,
        str(root / "bench" / "bench_efce.py"),
        "--check",
        "200",
        "--burn-in",
        "20",
        "--out-dir",
        str(tmp_path),
    ]
    r = subprocess.run(
        bench
        + [
            "--poker",
            "3",
            "--grids",
            "",
            "--time-limit",
            "2",
            "--save-state",
            str(tmp_path / "state"),
            "--name",
            "run",
        ],
        cwd=str(root),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    run_row = json.loads(next(tmp_path.glob("run-*.json")).read_text())[0]
    r = subprocess.run(
        bench + ["--revalidate", *map(str, (tmp_path / "state").glob("*.pkl")), "--name", "again"],
        cwd=str(root),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    again = json.loads(next(tmp_path.glob("again-*.json")).read_text())
    assert len(again) == 1 and again[0]["rounds"] == run_row["rounds"] and "| indian_poker(cards=3) |" in r.stdout
    for k in ("found_regret", "validated_regret", "validated_stderr", "energy_drift"):
        assert again[0][k] == pytest.approx(run_row[k], abs=1e-12)

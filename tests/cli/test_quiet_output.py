"""Standard output belongs to the user: no solver library (HiGHS, cvxpy and its solvers, flint)
writes to our process's standard output or error unless the user asked for a log.

Each case runs in a fresh process, because highspy (1.16 and newer) prints its banner once per
process, at the first ``Highs()``: a test in a process that had already made one would pass
whatever the code does.
"""

import json
import re
import subprocess
import sys
import textwrap

import pytest


def run_cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "seqform", *args], capture_output=True, text=True, timeout=600, cwd=cwd
    )


def one_json_object(stdout: str) -> dict:
    """``stdout`` is exactly one JSON object (json.loads refuses anything before or after it)."""
    obj = json.loads(stdout)
    assert isinstance(obj, dict)
    return obj


@pytest.fixture(scope="module")
def kuhn_strategy(tmp_path_factory):
    """An equilibrium of Kuhn poker in the JSON form ``evaluate`` reads, written by ``solve``."""
    r = run_cli("solve", "kuhn", "--json", "--strategy", "--quiet")
    assert r.returncode == 0, r.stderr
    path = tmp_path_factory.mktemp("strategy") / "kuhn.json"
    path.write_text(json.dumps(one_json_object(r.stdout)["strategy"]))
    return path


SOLVE_CASES = [
    ["solve", "kuhn", "--json"],
    ["solve", "kuhn", "--json", "--quiet"],
    ["solve", "kuhn", "--json", "--method", "simplex"],
    ["solve", "kuhn", "--json", "--method", "ipm"],
    ["solve", "kuhn", "--json", "--method", "choose"],
    ["solve", "kuhn", "--json", "--method", "doracle"],
    ["solve", "threat_zero_sum", "--json", "--method", "backward-induction"],
    ["solve", "threat_general_sum", "--json", "--strategy"],
    ["solve", "kuhn", "--json", "--method", "lcp"],
    ["solve", "kuhn", "--json", "--strategy", "--no-certify"],
    ["solve", "kuhn", "--json", "--refine", "qpe"],
    ["solve", "kuhn", "--json", "--refine", "efpe"],
    ["solve", "kuhn", "--json", "--refine", "efpe", "--eps", "0.001"],
    ["solve", "kuhn", "--json", "--refine", "qpe", "--eps", "0.01", "--strategy"],
    ["info", "leduc", "--json"],
    ["verify", "cfr+", "kuhn", "--iterations", "20", "--json"],
    ["verify", "egt-perturbed", "kuhn", "--iterations", "20", "--refined", "efpe,qpe", "--json"],
    ["verify", "egt-perturbed", "kuhn", "--iterations", "20", "--refined", "qpe", "--eps", "0.01", "--json"],
    ["efce", "maxent", "job_market", "--json"],
    ["efce", "welfare", "job_market", "--json"],
    ["efce", "ranges", "job_market", "--json"],
    ["efce", "sample", "job_market", "--json", "--rounds", "20"],
    ["efce", "sample", "job_market", "--json", "--rounds", "5", "--option", "expectations=mcmc", "--validate", "50"],
    ["games", "--json"],
    ["shrink", "four_card", "--json"],
    ["shrink", "leduc_os", "--json", "--solve"],
]


@pytest.mark.parametrize("args", SOLVE_CASES, ids=lambda a: " ".join(a))
def test_cli_json_is_exactly_one_object(args):
    r = run_cli(*args)
    assert r.returncode == 0, r.stderr
    obj = one_json_object(r.stdout)
    assert obj  # not an empty object
    # whatever went to stderr is ours: progress lines, no solver banner or log
    assert "HiGHS" not in r.stderr.replace("HiGHS:", ""), r.stderr
    assert "Running HiGHS" not in r.stdout + r.stderr


def test_evaluate_json_is_exactly_one_object(kuhn_strategy):
    r = run_cli("evaluate", "kuhn", str(kuhn_strategy), "--json", "--per-infoset")
    assert r.returncode == 0, r.stderr
    obj = one_json_object(r.stdout)
    assert obj["nash_conv"] in ("0", 0)  # the certified equilibrium, evaluated exactly


def test_convert_json_is_exactly_one_object(tmp_path):
    r = run_cli("convert", "kuhn", str(tmp_path / "kuhn.efg"), "--json")
    assert r.returncode == 0, r.stderr
    assert one_json_object(r.stdout)["sizes"]["histories"] == 58


def test_convert_writes_nothing_to_stdout_with_quiet(tmp_path):
    r = run_cli("convert", "kuhn", str(tmp_path / "kuhn.efg"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and r.stderr == ""
    assert (tmp_path / "kuhn.efg").read_text().startswith("EFG 2 R")


SCRIPT = textwrap.dedent("""
    import doracle, efce, lossless, refinements, seqform
    from efce.exact import max_entropy, solve_lp
    from efce.strategies import profiles

    kuhn = seqform.games.kuhn()
    assert seqform.solve(kuhn).certified
    assert seqform.solve(kuhn, method="ipm").certified
    assert refinements.qpe(kuhn).certified
    assert refinements.efpe(kuhn).certified
    refinements.efpe(kuhn, eps=1e-3)
    assert lossless.solve(lossless.four_card()).certified
    assert doracle.double_oracle(kuhn).value is not None
    tree = seqform.compile_tree(seqform.games.load("job_market"))
    prof = profiles(tree)
    max_entropy(prof)
    solve_lp(prof, "welfare")
    efce.sample_efce(efce.job_market(), max_rounds=3, options=efce.SamplerOptions(expectations="mcmc"))
    from seqform.study.verifyharness import verify
    verify("cfr+", seqform.compile_tree(kuhn), 10)
""")


def test_public_api_writes_nothing(tmp_path):
    """A user's script that calls the solvers sees nothing of them on stdout or stderr."""
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert r.stderr == ""


def test_highs_log_reaches_a_sink_not_the_terminal(tmp_path):
    """With a log sink (the CLI's progress), a long solve's HiGHS log goes there, never to fd 1."""
    script = tmp_path / "log.py"
    script.write_text(
        textwrap.dedent("""
        import sys
        import seqform.lp.highs as H
        from seqform.games import load
        from seqform import compile_tree, sequence_form
        from seqform.lp.zerosumlp import solve_lp
        H.LOG_AFTER_SECONDS = 0.0   # forward every line, so that a small LP has some
        lines = []
        sf = sequence_form(compile_tree(load("kuhn")))
        with H.log_to(lines.append):
            solve_lp(sf, method="simplex")
        solve_lp(sf, method="simplex")   # outside the block: nowhere
        sys.stderr.write(f"{len(lines)} {sum(l.startswith('HiGHS: ') for l in lines)}")
    """)
    )
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    n, prefixed = map(int, r.stderr.split())
    assert n > 0 and prefixed == n


def test_cli_progress_receives_the_highs_log(tmp_path):
    """The command line's progress (unless --quiet) is where a long solve's HiGHS log goes, as
    one line "LP: HiGHS iteration N" now and then, never HiGHS's own lines."""
    script = tmp_path / "prog.py"
    script.write_text(
        textwrap.dedent("""
        import sys
        import seqform.lp.highs as H
        from seqform.cli import Progress
        from seqform.games import load
        from seqform import compile_tree, sequence_form
        from seqform.lp.zerosumlp import solve_lp
        H.LOG_AFTER_SECONDS = 0.0
        Progress(quiet=True)
        assert H._log_sink.get() is None
        Progress(quiet=False)
        solve_lp(sequence_form(compile_tree(load("kuhn"))), method="simplex")
    """)
    )
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    # a small LP's log has iteration rows: the first is shown; the next would wait 10 s
    assert len(lines) == 1 and re.fullmatch(r"\[ *\d+\.\d\ds\] LP: HiGHS iteration \d+", lines[0]), r.stderr

"""The command line, run as a user runs it (a subprocess), including its errors."""

import json
import re
import subprocess
import sys

import pytest

from tests.processwatch import Watched


def run(*args):
    return subprocess.run([sys.executable, "-m", "seqform", *args], capture_output=True, text=True, timeout=300)


def test_solve_kuhn_json():
    r = run("solve", "kuhn", "--json", "--strategy")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["value"] == "-1/18" and out["certified"] is True
    assert out["sizes"] == {"histories": 58, "terminals": 30, "infosets": [6, 6], "sequences": [13, 13]}
    assert set(out["seconds"]) == {"read", "build", "solve", "certify", "exploitability", "total"}
    parts = sum(v for k, v in out["seconds"].items() if k != "total")
    assert parts <= out["seconds"]["total"] + 1e-9
    assert abs(out["value_float"] + 1 / 18) < 1e-12
    assert out["exploitability"] < 1e-12
    # every information set's exact probabilities sum to one
    from fractions import Fraction

    assert out["strategy"]["game"] == "kuhn" and out["strategy"]["players"] == 2
    for player in out["strategy"]["strategies"]:
        assert len(player["infosets"]) == 6
        for entry in player["infosets"]:
            assert sum(Fraction(v) for v in entry["actions"].values()) == 1


def test_solve_human_output_and_progress():
    r = run("solve", "leduc")
    assert r.returncode == 0, r.stderr
    assert "certificate     exact" in r.stdout
    assert "-0.085606424078" in r.stdout
    assert "solving LP" in r.stderr


def test_info():
    r = run("info", "leduc(ranks=5)", "--json", "--quiet")
    assert r.returncode == 0
    assert json.loads(r.stdout)["sizes"]["histories"] == 55361


@pytest.mark.parametrize(
    "spec,needle",
    [
        ("nope", "unknown game 'nope'"),
        ("leduc(rank=5)", "unexpected keyword argument 'rank'"),
        ("leduc(ranks='a')", "should be an integer"),
        ("leduc(ranks=1)", "at least 3 cards"),
        ("leduc(", "cannot read game"),
    ],
)
def test_bad_game_names_are_one_line_errors(spec, needle):
    r = run("solve", spec)
    assert r.returncode == 2
    assert needle in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.runtime
def test_ctrl_c_stops_the_lp_cleanly():
    """Ctrl-C once the LP is being solved (HiGHS takes seconds on this LP): status 130, one
    line, no value."""
    p = Watched("solve", "leduc(ranks=8)", "--no-certify", "--no-abstraction")
    p.wait_for("solving LP")
    status, out, err = p.interrupt()
    assert status == 130
    assert "seqform: interrupted" in err and "Traceback" not in err
    assert "value" not in out


def test_solve_then_evaluate_round_trip(tmp_path):
    r = run("solve", "leduc", "--json", "--strategy", "--quiet")
    path = tmp_path / "leduc.json"
    path.write_text(json.dumps(json.loads(r.stdout)["strategy"]))
    r = run("evaluate", "leduc", str(path), "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    # the certified strategies, read back exactly, are an exact equilibrium
    assert out["nash_conv"] == "0" and out["exploitability"] == "0"


def test_evaluate_errors_name_the_problem(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"strategies": [{"infosets": []}, {"infosets": []}]}')
    r = run("evaluate", "kuhn", str(path))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "missing" in r.stderr
    path.write_text("{not json")
    r = run("evaluate", "kuhn", str(path))
    assert r.returncode == 2 and "line 1" in r.stderr


def test_convert_then_solve_the_file(tmp_path):
    out = tmp_path / "liars.efg"
    r = run("convert", "liars_dice(1,3)", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    r = run("solve", str(out), "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    # the value known independently (OpenSpiel's LP gives 1/9 for liars_dice(1,3); see tests/games)
    assert j["value"] == "1/9" and j["sizes"]["histories"] == 1147
    r = run("info", str(out), "--json", "--quiet")
    assert json.loads(r.stdout)["sizes"] == j["sizes"]


def test_openspiel_game_names():
    pytest.importorskip("pyspiel")
    r = run("solve", "openspiel:kuhn_poker", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["value"] == "-1/18"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["solve", "/nonexistent/game.efg"], "no such file: /nonexistent/game.efg"),
        (["convert", "kuhn", "out.txt"], "seqform writes Gambit .efg files"),
    ],
)
def test_file_errors_are_one_line(args, needle):
    r = run(*args)
    assert r.returncode == 2 and needle in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_malformed_file_names_line_and_column(tmp_path):
    bad = tmp_path / "bad.efg"
    bad.write_text('EFG 2 R "x" { "a" "b" }\np "" 1 1 "" { "x" } 0\nt "" 1 "" { 1 2 3 }\n')
    r = run("solve", str(bad))
    assert r.returncode == 2
    assert f"{bad}:3:17: expected '}}' after the 2 payoffs of outcome 1, found '3'" in r.stderr


def test_file_too_large_refused_before_reading(tmp_path):
    big = tmp_path / "big.efg"
    # 700,000 leaves of three tokens each in 5.6 MB: reading costs per token, not per byte
    big.write_text('EFG 2 R "x" { "a" "b" }\n' + 't "" 1\n' * 700_000)
    r = run("solve", str(big), "--memory-limit", "0.05")
    assert r.returncode == 2 and "would need about" in r.stderr and "0.05 GiB" in r.stderr


@pytest.mark.runtime
def test_output_into_a_closed_pipe_is_quiet():
    """``seqform solve ... | head -1``: no traceback when the reader goes away."""
    # Leduc's strategies (~80 kB) overflow the pipe buffer, so the write really hits a closed pipe
    p = subprocess.Popen(
        [sys.executable, "-m", "seqform", "solve", "leduc", "--strategy", "--no-certify", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=60)
    assert "Traceback" not in err and p.returncode == 141


# ---- issue 19: what a new user hit -------------------------------------------------------------


def one_line_error(r):
    """A refusal: exit 2, nothing on stdout, exactly one line on stderr, no traceback."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    return r.stderr


@pytest.mark.parametrize(
    "content,expect",
    [
        (None, "no such file"),
        ("dir", "is a directory"),
        (b"\xff\xfe{", "not UTF-8"),
        (b'{"a":', "not valid JSON"),
    ],
)
def test_evaluate_bad_strategy_files(tmp_path, content, expect):
    path = tmp_path / "s.json"
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    err = one_line_error(run("evaluate", "kuhn", str(path), "--quiet"))
    assert expect in err and str(path) in err


def test_openspiel_typo_is_one_line_with_a_suggestion():
    pytest.importorskip("pyspiel")
    err = one_line_error(run("info", "openspiel:kuhn_pker"))
    assert "unknown OpenSpiel game 'kuhn_pker'" in err and "kuhn_poker" in err
    err = one_line_error(run("info", "openspiel:kuhn_poker(players=x)"))
    assert "OpenSpiel cannot load game" in err


def test_version():
    from importlib import metadata

    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"seqform {metadata.version('seqform')}"


def test_games_lists_every_registered_game_with_its_parameters():
    import inspect

    import seqform

    r = run("games", "--json")
    assert r.returncode == 0, r.stderr
    rows = {g["name"]: g for g in json.loads(r.stdout)["games"]}
    available = seqform.games.available()  # the core's games and the extensions'
    assert set(rows) == set(available)
    for name, factory in available.items():
        assert list(rows[name]["parameters"]) == list(inspect.signature(factory).parameters)
    assert rows["leduc"]["parameters"] == {"ranks": None, "suits": 2, "rake": 0, "players": 2}
    text = run("games")
    assert text.returncode == 0 and "leduc(ranks=None, suits=2, rake=0, players=2)" in text.stdout


def test_every_argument_has_help():
    import argparse

    from seqform.cli import build_parser

    top = build_parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in sub.choices.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"seqform {name}: {action.option_strings or action.dest} has no help"
    assert all(a.help for a in top._actions)


@pytest.mark.parametrize(
    "args,flags",
    [
        (("solve", "kuhn", "--method", "doracle", "--refine", "qpe"), ["--method doracle", "--refine"]),
        (("solve", "kuhn", "--do-mode", "alternating"), ["--do-mode", "--method doracle"]),
        (("solve", "kuhn", "--time-limit", "-1"), ["--time-limit"]),
        (("solve", "kuhn", "--time-limit", "0"), ["--time-limit"]),
        (("solve", "kuhn", "--memory-limit", "-2"), ["--memory-limit"]),
        (("solve", "kuhn", "--exact-limit", "-1"), ["--exact-limit"]),
        (("solve", "kuhn", "--refine", "qpe", "--eps", "0"), ["--eps"]),
        (("solve", "kuhn", "--refine", "qpe", "--eps", "1.5"), ["--eps"]),
        (("solve", "kuhn", "--eps", "0.1"), ["--eps", "--refine"]),
        (("solve", "kuhn", "--refine", "efpe", "--no-certify"), ["--no-certify", "--refine"]),
        (("verify", "cfr", "kuhn", "--iterations", "0"), ["--iterations"]),
        (("verify", "cfr", "kuhn", "--iterations", "5", "--every", "0"), ["--every"]),
        (("verify", "cfr", "kuhn", "--iterations", "5", "--eps", "0.1"), ["--eps"]),
        (("verify", "cfr", "kuhn", "--iterations", "5", "--refined", "nash"), ["--refined"]),
        (("efce", "sample", "job_market", "--rounds", "0"), ["--rounds"]),
        (("efce", "sample", "job_market", "--option", "sample_size=0"), ["sample_size"]),
        (("efce", "sample", "job_market", "--validate", "-1"), ["--validate"]),
        (("efce", "sample", "job_market", "--target", "0"), ["--target"]),
        (("efce", "maxent", "job_market", "--welfare"), ["--welfare"]),
        (("efce", "maxent", "job_market", "--time-limit", "5"), ["--time-limit"]),
        (("efce", "welfare", "job_market", "--base", "reduced"), ["--base"]),
        (("shrink", "four_card", "--method", "simplex"), ["--method", "--solve"]),
        (("solve", "kuhn", "--bogus"), ["--bogus"]),
    ],
)
@pytest.mark.runtime
def test_contradictory_or_invalid_options_are_refused(args, flags):
    err = one_line_error(run(*args))
    for flag in flags:
        assert flag in err, err
    assert "memory_limit_gib" not in err and "time_limit" not in err


@pytest.mark.runtime
def test_efce_time_limit_is_not_cut_short_by_a_hidden_round_limit():
    r = run(
        "efce",
        "sample",
        "job_market",
        "--target",
        "1e-12",
        "--time-limit",
        "4",
        "--option",
        "expectations=mcmc",
        "--json",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["stopped_by"] == "time_limit" and out["round_limit"] is None
    assert out["seconds"]["total"] >= 4
    # without either limit, the documented default round limit applies, and the output says so
    r = run("efce", "sample", "job_market", "--target", "1e-12", "--option", "expectations=mcmc", "--json", "--quiet")
    out = json.loads(r.stdout)
    assert out["stopped_by"] == "rounds" and out["rounds"] == out["round_limit"] == 1000
    assert out["round_limit_is_default"] is True
    text = run(
        "efce",
        "sample",
        "job_market",
        "--target",
        "1e-12",
        "--option",
        "expectations=mcmc",
        "--rounds",
        "20",
        "--quiet",
    ).stdout
    assert "stopped by       the round limit of 20" in text


@pytest.mark.parametrize(
    "args,started",
    [
        (("solve", "flipit(depth=6)", "--method", "doracle", "--json"), "iteration 2:"),
        (("efce", "sample", "indian_poker(cards=8)", "--target", "1e-12", "--time-limit", "300", "--json"), "round "),
    ],
)
@pytest.mark.runtime
def test_ctrl_c_exits_130_with_the_partial_result(args, started):
    import signal

    # the child must not inherit an ignored SIGINT (a test run started in the background has one)
    p = subprocess.Popen(
        [sys.executable, "-m", "seqform", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        for line in p.stderr:
            if started in line:
                break
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        p.kill()
    assert p.returncode == 130, err
    assert "Traceback" not in err
    obj = json.loads(out)  # still exactly one JSON object
    assert obj["interrupted"] is True


@pytest.mark.runtime
def test_ctrl_c_with_worker_processes_exits_130_without_tracebacks():
    """Ctrl-C at a terminal reaches the whole process group: the sampler's draw workers (spawned
    processes) ignore it and the parent returns the partial result."""
    import os
    import signal

    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "seqform",
            "efce",
            "sample",
            "indian_poker(cards=4)",
            "--target",
            "1e-12",
            "--time-limit",
            "300",
            "--option",
            "expectations=mcmc",
            "--workers",
            "2",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        for line in p.stderr:
            if "round " in line:
                break
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        p.kill()
    assert p.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert json.loads(out)["interrupted"] is True


def test_solve_a_game_of_wide_payoffs_prints_its_exact_value(tmp_path):
    """The 10^16-beside-single-digits game (tests/test_solve.py): certified, and the value the
    human output prints is the exact one, at the independent oracle's value."""
    from fractions import Fraction

    from seqform.io.efgread import read_efg
    from tests.test_solve import WIDE_EFG, _exact_oracle_value

    path = tmp_path / "big.efg"
    path.write_text(WIDE_EFG)
    want = _exact_oracle_value(read_efg(str(path)))
    r = run("solve", str(path), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["certified"] is True and Fraction(out["value"]) == want
    # the text shows the decimal first; with --rationals, the exact value beside it
    r = run("solve", str(path), "--rationals")
    assert r.returncode == 0, r.stderr
    value_line = next(line for line in r.stdout.splitlines() if line.startswith("value"))
    exact = re.search(r"\(= (-?\d+(?:/\d+)?)", value_line)
    assert exact and Fraction(exact[1]) == want and "not certified" not in r.stdout
    assert float(value_line.split()[1]) == pytest.approx(float(want), rel=1e-11)


@pytest.mark.runtime
def test_solve_stopped_by_its_time_limit_prints_an_exact_bracket():
    """``--time-limit`` that HiGHS reaches is a clean stop: exit 0, the bracket, no error."""
    from fractions import Fraction

    r = run("solve", "leduc", "--time-limit", "1e-9", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["certified"] is False and "time limit" in " ".join(out["notes"])
    assert Fraction(out["certificate"]["lower"]) <= Fraction(out["certificate"]["upper"])

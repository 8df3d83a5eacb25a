"""The text a person reads: decimals first and exact rationals beside them only when short (or
asked for with ``--rationals``; the JSON keeps them whole), words that agree with the numbers (a
certified solve's exploitability is the certificate's, as in its JSON), aligned columns, and no
solver library's log. The commands run in this process (``seqform.cli.main.main``) unless a fresh
process is the point."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from fractions import Fraction

import pytest

from seqform.cli.main import main
from seqform.result import RATIONAL_LIMIT, number, table

RATIONAL = re.compile(r"-?\d+/\d+")


def run(capsys, *argv: str) -> str:
    status = main([*argv, "--quiet"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def run_json(capsys, *argv: str) -> dict:
    return json.loads(run(capsys, *argv, "--json"))


def long_rationals(text: str) -> list:
    return [r for r in RATIONAL.findall(text) if len(r) > RATIONAL_LIMIT]


def value_columns(text: str) -> set:
    """The columns where each labelled line's text starts (a label, then two or more spaces); a
    line indented by four or more spaces continues the one before, in the same column."""
    cols = set()
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        if indent >= 4:
            cols.add(indent)
            continue
        m = re.match(r"(\s*\S.*?)\s{2,}\S", line)
        if m:
            cols.add(m.end() - 1)
    return cols


# leduc's value has a 65-character rational; its QPE's and the abstraction's are the same value
LEDUC_COMMANDS = [
    ("solve", "leduc"),
    ("solve", "leduc", "--refine", "qpe"),
    ("shrink", "leduc_os", "--solve"),
]


@pytest.mark.parametrize("argv", LEDUC_COMMANDS, ids=" ".join)
def test_no_long_rational_unless_asked(capsys, argv):
    exact = Fraction(run_json(capsys, *argv)["value"])
    assert len(str(exact)) > RATIONAL_LIMIT  # else this test would test nothing
    text = run(capsys, *argv)
    assert not long_rationals(text), text
    # the decimal is there, to 12 digits, and the way to the rational is named
    assert f"{float(exact):.12g}" in text and "--rationals" in text
    asked = run(capsys, *argv, "--rationals")
    assert str(exact) in asked  # whole, as the JSON has it


def test_strategy_lines_carry_no_long_rational(capsys):
    text = run(capsys, "solve", "leduc", "--strategy")
    assert not long_rationals(text)
    sol = run_json(capsys, "solve", "leduc", "--strategy")
    longest = max(
        (p for st in sol["strategy"]["strategies"] for e in st["infosets"] for p in e["actions"].values()), key=len
    )
    assert len(longest) > RATIONAL_LIMIT  # leduc's equilibrium has such probabilities
    assert longest in run(capsys, "solve", "leduc", "--strategy", "--rationals")


def test_short_rationals_are_shown_beside_the_decimal(capsys):
    text = run(capsys, "solve", "kuhn")
    assert "-0.0555555555556  (= -1/18, player 0)" in text


def exploitability_line(text: str) -> str:
    (line,) = [x for x in text.splitlines() if x.startswith("exploitability")]
    return line.split(None, 1)[1]


def test_certified_exploitability_agrees_with_the_json(capsys):
    out = run_json(capsys, "solve", "kuhn")
    assert out["certified"] and out["exploitability_bound"] == "0"
    assert exploitability_line(run(capsys, "solve", "kuhn")) == "0  (exact)"


def test_bracketed_exploitability_is_the_exact_bound(capsys):
    out = run_json(capsys, "solve", "leduc", "--exact-limit", "1000")
    bound = Fraction(out["exploitability_bound"])
    assert not out["certified"] and bound > 0
    line = exploitability_line(run(capsys, "solve", "leduc", "--exact-limit", "1000"))
    assert line.startswith(f"<= {float(bound):.3g}  (exact bound")


def test_refined_and_general_sum_exploitability_is_exactly_zero_when_certified(capsys):
    assert run_json(capsys, "solve", "kuhn", "--refine", "qpe")["certified"]
    assert exploitability_line(run(capsys, "solve", "kuhn", "--refine", "qpe")).startswith("0  (exact")
    out = run_json(capsys, "solve", "threat_general_sum", "--method", "lcp")
    assert out["nash_conv"] == "0"
    assert exploitability_line(run(capsys, "solve", "threat_general_sum", "--method", "lcp")) == "0  (exact)"


@pytest.mark.parametrize(
    "argv",
    [
        ("solve", "kuhn"),
        ("solve", "kuhn", "--no-certify"),
        ("solve", "kuhn", "--refine", "qpe"),
        ("solve", "kuhn", "--refine", "efpe", "--eps", "0.01"),
        ("solve", "threat_general_sum", "--method", "lcp"),
        ("solve", "mertens_voting", "--refine", "qpe"),
        ("solve", "flipit(depth=2)", "--method", "doracle"),
        ("shrink", "four_card"),
        ("shrink", "leduc_os", "--solve"),
        ("efce", "ranges", "job_market"),
        ("efce", "welfare", "job_market"),
        ("info", "kuhn"),
    ],
    ids=" ".join,
)
def test_summaries_are_aligned(capsys, argv):
    text = run(capsys, *argv)
    assert len(value_columns(text)) == 1, text


def test_evaluate_is_aligned_and_decimal_first(capsys, tmp_path):
    (tmp_path / "s.json").write_text(json.dumps(run_json(capsys, "solve", "kuhn", "--strategy")["strategy"]))
    text = run(capsys, "evaluate", "kuhn", str(tmp_path / "s.json"))
    assert len(value_columns(text)) == 1, text
    assert "value -0.0555555555556  (= -1/18)" in text


def test_games_columns(capsys):
    assert main(["games"]) == 0
    lines = capsys.readouterr().out.splitlines()
    heads = [x for x in lines if re.match(r"\s*[\d,]+ nodes  |size unknown  ", x)]
    assert len(heads) >= 10
    # every game's name starts in one column, right after its size
    assert len({x.index(" nodes  ") if " nodes  " in x else x.index("size unknown") + 7 for x in heads}) == 1


def test_number_and_table():
    assert number(Fraction(-1, 18), detail="player 0") == "-0.0555555555556  (= -1/18, player 0)"
    assert number(Fraction(0)) == "0"
    big = Fraction(10**20 + 1, 3 * 10**20)
    assert "/" not in number(big) and "/" in number(big, rationals=True)
    assert table([("a", "1"), ("longer label", "2"), ("", "3")], min_width=0) == (
        "a             1\nlonger label  2\n              3"
    )


SHRINK_WITH_LOG = textwrap.dedent("""
    import sys
    import seqform.lp.highs as H
    from seqform.cli.main import main
    H.LOG_AFTER_SECONDS = 0.0  # forward HiGHS's log from its first line, so that a small LP has one
    sys.exit(main(["shrink", "leduc_os", "--solve"]))
""")


def test_shrink_solve_prints_no_highs_log(tmp_path):
    """HiGHS's log (presolve reports, iteration rows) reaches neither standard output nor error;
    a long LP shows as our own progress line "LP: HiGHS iteration N". A fresh process: highspy
    writes its banner once per process."""
    script = tmp_path / "shrink.py"
    script.write_text(SHRINK_WITH_LOG)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "value" in r.stdout
    highs_words = re.compile(r"HiGHS:|Presolv|Objective|Iteration|dual simplex|nonzeros\s+\d|Running HiGHS")
    for line in (r.stdout + r.stderr).splitlines():
        assert not highs_words.search(line) or re.search(r"\] LP: HiGHS iteration [\d,]+$", line), line
    assert any("LP: HiGHS iteration" in line for line in r.stderr.splitlines())  # progress, still


def test_irrational_numbers_are_printed_by_radicals_that_match_the_decimals(capsys):
    """nau2004's only equilibrium is irrational: every value and probability prints its closed
    form beside its decimal; the closed form, evaluated here, must be that decimal, and the
    JSON's float of the same number too."""
    text = run(capsys, "solve", "nau2004", "--strategy")
    data = run_json(capsys, "solve", "nau2004")
    pairs = re.findall(r"(-?\d+\.\d+)\s+\(=? ?\(?(-?\d+) ([+-]) (\d*)√(\d+)\)/(\d+)", text)
    assert len(pairs) == 3 + 6  # three values, two probabilities for each player
    for dec, p, sign, q, t, r in pairs:
        closed = (int(p) + (1 if sign == "+" else -1) * int(q or 1) * int(t) ** 0.5) / int(r)
        assert abs(closed - float(dec)) < 1e-6 * max(1.0, abs(closed))
    for v, f in zip(data["values"], data["values_float"]):
        assert abs(v["float"] - f) < 1e-15
        lo, hi = (Fraction(x) for x in v["interval"])
        assert lo < Fraction(f) < hi

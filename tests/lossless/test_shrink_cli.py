"""``seqform shrink GAME [--out F] [--json] [--solve]``, run as a user runs it, and the GameShrink
benchmark script on a tiny game (so that it does not rot)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import seqform
from tests.processwatch import Watched

ROOT = Path(__file__).resolve().parents[2]


def run(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "seqform", *args], capture_output=True, text=True, timeout=timeout)


def test_shrink_four_card_prints_sizes_before_and_after():
    r = run("shrink", "four_card")
    assert r.returncode == 0, r.stderr
    assert "game tree           113 nodes -> 39" in r.stdout
    assert "LP rows" in r.stdout and "seconds" in r.stdout
    assert "refinement pass" in r.stderr  # progress goes to standard error


def test_shrink_json_and_out_file_is_the_abstract_game(tmp_path):
    out = tmp_path / "abstract.efg"
    r = run("shrink", "leduc_os", "--json", "--quiet", "--out", str(out))
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["before"]["infosets"] == [468, 468] and data["after"]["infosets"] == [144, 144]
    assert data["before"]["lp_rows"] == 1093 + 468 + 1 and data["after"]["game_tree_nodes"] == 1939
    assert set(data["seconds"]) >= {"signal_tree", "shrink"}
    # the written game, read back by the core, has Leduc's value
    abstract = seqform.solve(seqform.read_efg(str(out)))
    assert abstract.sizes["histories"] == 1939
    assert abstract.value == seqform.solve(seqform.games.leduc()).value


def test_shrink_solve_certifies_in_the_original_game():
    r = run("shrink", "rhode_island(ranks=2,suits=2)", "--solve", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["certified"] is True and data["exploitability"] == "0"
    assert data["value"] == str(seqform.solve(seqform.games.load("rhode_island(ranks=2,suits=2)")).value)


def test_shrink_errors_are_one_line():
    for args, msg in (
        (("kuhn",), "ordered signals"),
        (("leduc_os", "--solve", "--own-view"), "--own-view"),
        (("four_card", "--out", "x.txt"), ".efg"),
        (("rhode_island(ranks=20)",), "1..13 ranks"),
    ):
        r = run("shrink", *args, "--quiet")
        assert r.returncode == 2, (args, r.stderr)
        assert msg in r.stderr and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_full_rhode_island_is_refused_at_once_by_the_tree_compiler():
    """The game knows its size (6.7 billion nodes), so ``info``/``solve`` refuse it before walking."""
    r = run("info", "rhode_island", "--quiet", timeout=60)
    assert r.returncode == 2 and "it has 6,705,372,545 nodes" in r.stderr and "--memory-limit" in r.stderr


def test_bench_shrink_smoke(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_shrink.py"),
            "--game",
            "four_card",
            "--small",
            "four_card",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| four_card | lossless |" in proc.stdout
    row = next(ln for ln in proc.stdout.splitlines() if ln.startswith("| four_card | 113 |"))
    assert row.rstrip().endswith("| yes |")
    assert list(tmp_path.glob("shrink-*.md")) and list(tmp_path.glob("shrink-*.json"))


def test_cfr_bracket_holds_the_exact_value():
    """``--cfr``: CFR+ in vector form brackets the value; the exact value comes from
    ``lossless.solve`` (exact LP on the abstraction, certified in the original game)."""
    from fractions import Fraction

    import lossless

    r = run("shrink", "leduc_os", "--cfr", "2", "--json", "--quiet", "--no-nonzeros")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)  # exactly one JSON object on standard output
    exact = lossless.solve(lossless.leduc_os()).value
    assert data["method"] == "vector-cfr+" and data["iterations"] > 0
    assert Fraction(data["lower"]) <= exact <= Fraction(data["upper"])
    assert data["lower_float"] <= float(exact) <= data["upper_float"]
    r = run("shrink", "leduc_os", "--cfr", "60", "--target-width", "0.05", "--no-nonzeros")
    assert r.returncode == 0 and "value bracket" in r.stdout and "bracket width" in r.stdout, r.stderr


def test_cfr_bad_options_are_one_line_errors():
    for args, words in (
        (["--cfr", "0"], "positive"),
        (["--cfr", "5", "--solve"], "--solve"),
        (["--cfr", "5", "--own-view"], "--own-view"),
        (["--target-width", "1"], "need --cfr"),
        (["--cfr", "5", "--bracket-every", "0"], "at least 1"),
    ):
        r = run("shrink", "leduc_os", *args)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and r.stdout == "" and len(lines) == 1 and words in lines[0], (args, r.stderr)


@pytest.mark.runtime
def test_cfr_stops_cleanly_on_ctrl_c():
    """Ctrl-C during CFR+: status 130, and the bracket of the average so far is still printed."""
    p = Watched("shrink", "rhode_island(ranks=3,suits=2)", "--cfr", "120", "--json", "--no-nonzeros")
    p.wait_for(", iteration ")  # the progress bar counts iterations done: there is an average to bracket
    status, out, err = p.interrupt()
    assert status == 130 and "interrupted" in err and "Traceback" not in err
    data = json.loads(out)
    assert data["stopped"] == "interrupted" and data["lower_float"] <= data["upper_float"]

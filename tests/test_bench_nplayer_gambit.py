"""Smoke test of bench/bench_nplayer_gambit.py on a tiny random three-player game with a chance
move (each run is a fresh process: one game keeps the test to seconds), so the script does not
rot. Its claims are checked independently: the equilibrium seqform reports, and every profile
pygambit's enumpoly returns, is evaluated again by the brute-force oracle
(tests/oracle/brute_force_nplayer.py, which enumerates pure strategies and shares no code with
seqform's evaluation). No timing assertions."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import seqform
from seqform.io.strategyjson import profile_from_json
from tests.oracle.brute_force_nplayer import brute_force_evaluate

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "bench_nplayer_gambit.py"
GAMES = ["random/5/5"]


def _bench_module():
    spec = importlib.util.spec_from_file_location("bench_nplayer_gambit", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(SCRIPT.parent))  # its own imports (isolated, report) sit beside it
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return mod


def _by_key_exact(tree, profile) -> list:
    """Per player {information-set key: Fractions}: floats at their binary values, an information
    set whose values do not sum to exactly 1 divided by its sum (what the bench says it does)."""
    out: list = [dict() for _ in range(tree.num_players)]
    for i in range(sum(tree.num_infosets)):
        probs = [Fraction(v) for v in profile.action_probabilities(tree, i)]
        s = sum(probs, Fraction(0))
        out[int(tree.infoset_player[i])][tree.infoset_key[i]] = [v / s for v in probs]
    return out


# slow: pygambit's enumpoly and seqform each in a fresh process (10 CPU s); the default tier checks
# the polish against the brute-force oracle (tests/exact/test_nplayerpolish.py, tests/test_solve.py)
@pytest.mark.slow
def test_bench_nplayer_gambit_tiny_random_game(tmp_path):
    pytest.importorskip("pygambit")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--games", ";".join(GAMES), "--cap", "60", "--out-dir", str(tmp_path), "--quiet"],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    header = next(i for i, ln in enumerate(lines) if ln.startswith("| game |"))
    cols = [c.strip() for c in lines[header].strip("|").split("|")]
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines[header + 2 : header + 2 + len(GAMES)]]
    assert [r[0] for r in rows] == GAMES
    assert all(r[cols.index("certified")].startswith("yes") for r in rows)
    (md,) = tmp_path.glob("nplayer-gambit-*.md")
    (js,) = tmp_path.glob("nplayer-gambit-*.json")
    assert "| random/5/5 |" in md.read_text() and "load average" in md.read_text()
    data = json.loads(js.read_text())
    assert [r["game"] for r in data["rows"]] == GAMES

    bench = _bench_module()
    for row in data["rows"]:
        game = bench.load_game(row["game"])
        tree = seqform.compile_tree(game)
        s = row["seqform"]
        assert s["status"] == "ok" and s["certified"], s
        # seqform's equilibrium: no player gains by any pure strategy, and the values agree
        bf = brute_force_evaluate(game, _by_key_exact(tree, profile_from_json(tree, s["profile"])))
        assert bf.nash_conv == 0, row["game"]
        assert [str(v) for v in bf.values] == s["values"]
        # enumpoly's profiles: the bench's exact NashConv is the oracle's, to the last digit
        e = row["enumpoly"]
        assert e["status"] == "ok" and len(e["equilibria"]) >= 1
        for q in e["equilibria"]:
            bq = brute_force_evaluate(game, _by_key_exact(tree, profile_from_json(tree, q["profile"])))
            assert str(bq.nash_conv) == q["nash_conv_exact"], row["game"]
            assert q["not_nash"] == (bq.nash_conv > Fraction(data["tol"]) * Fraction(s["payoff_range"]))

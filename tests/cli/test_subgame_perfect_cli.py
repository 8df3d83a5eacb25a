"""``seqform solve GAME --strategy`` on games of perfect information, run as a user runs it: the
backward-induction strategy plays the optimal action also at a node that the player's own
earlier choice cuts off (subgame perfection), and ``seqform evaluate --per-infoset`` measures
regret 0 there; the LP's Nash equilibrium is uniform there, with positive regret."""

import json
import subprocess
import sys
from fractions import Fraction

# Player 0 takes "out" (4) rather than "in", after which player 1 would take "l" (3) over "r" (5)
# to player 0's node "late", where "a" (3) beats "b" (-1). "late" is cut off by player 0's own
# first choice (his plan is 0 there), but player 1's choice reaches it. Value 4.
CUT_OFF_EFG = """EFG 2 R "cut off" { "P1" "P2" }
""
p "" 1 1 "root" { "out" "in" } 0
t "" 1 "out" { 4, -4 }
p "" 2 1 "mid" { "l" "r" } 0
p "" 1 2 "late" { "a" "b" } 0
t "" 2 "a" { 3, -3 }
t "" 3 "b" { -1, 1 }
t "" 4 "r" { 5, -5 }
"""

# Three players: player 0 "stop"s (4, 0, 0) rather than "go" on to player 1, whose "y" (1) beats
# "x" (0) and leads to player 0's node "again": "a" (on to player 2, who takes "r": (3, 1, 1))
# beats "b" (1, 1, 1). "again" is cut off by player 0's own "stop".
THREE_PLAYER_EFG = """EFG 2 R "cut off 3" { "P1" "P2" "P3" }
""
p "" 1 1 "root" { "stop" "go" } 0
t "" 1 "stop" { 4, 0, 0 }
p "" 2 1 "p1" { "x" "y" } 0
t "" 2 "x" { 0, 0, 5 }
p "" 1 2 "again" { "a" "b" } 0
p "" 3 1 "p2" { "l" "r" } 0
t "" 3 "l" { 1, 3, 0 }
t "" 4 "r" { 3, 1, 1 }
t "" 5 "b" { 1, 1, 1 }
"""


def run(*args):
    return subprocess.run([sys.executable, "-m", "seqform", *args], capture_output=True, text=True, timeout=300)


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def strategy_at(out: dict, player: int, infoset: str) -> dict:
    """The actions' probabilities ``solve --json --strategy`` prints at one information set."""
    [entry] = [e for e in out["strategy"]["strategies"][player]["infosets"] if e["infoset"] == infoset]
    return entry["actions"]


def solve_json(*args) -> dict:
    r = run("solve", *args, "--strategy", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_solve_strategy_json_plays_the_optimal_action_where_the_player_cut_it_off(tmp_path):
    out = solve_json(write(tmp_path, "cut.efg", CUT_OFF_EFG))
    assert out["method"] == "backward-induction" and out["certified"] and out["value"] == "4"
    assert strategy_at(out, 0, "root") == {"out": "1", "in": "0"}
    assert strategy_at(out, 0, "late") == {"a": "1", "b": "0"}  # not 1/2, 1/2
    assert strategy_at(out, 1, "mid") == {"l": "1", "r": "0"}


def test_without_the_certificate_the_float_strategy_plays_it_too(tmp_path):
    out = solve_json(write(tmp_path, "cut.efg", CUT_OFF_EFG), "--no-certify")
    assert out["method"] == "backward-induction" and not out["certified"]
    late = strategy_at(out, 0, "late")
    # floats made from 0 and 1: the tolerance only states that they are compared as floats
    assert abs(late["a"] - 1.0) <= 1e-12 and abs(late["b"]) <= 1e-12


def test_solve_human_strategy_output(tmp_path):
    r = run("solve", write(tmp_path, "cut.efg", CUT_OFF_EFG), "--strategy", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "  late  a: 1, b: 0" in r.stdout.splitlines()


def test_evaluate_per_infoset_regret_there_backward_induction_against_the_lp(tmp_path):
    """evaluate's regret at an information set the player's own play excludes is measured as if
    it were reached (Bayes weights over chance and the other players: player 1 reaches "late"):
    0 for backward induction's strategy, 3 - (3 - 1) / 2 = 2 for the LP's uniform one."""
    game = write(tmp_path, "cut.efg", CUT_OFF_EFG)
    regrets = {}
    for method in ("backward-induction", "simplex"):
        strategy = write(tmp_path, f"{method}.json", json.dumps(solve_json(game, "--method", method)))
        r = run("evaluate", game, strategy, "--per-infoset", "--json", "--quiet")
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        [late] = [e for e in out["infoset_regret"][0] if e["infoset"] == "late"]
        assert late["reached"] is True
        regrets[method] = Fraction(late["regret"])
    assert regrets == {"backward-induction": 0, "simplex": 2}


def test_three_players_solve_strategy_json(tmp_path):
    out = solve_json(write(tmp_path, "cut3.efg", THREE_PLAYER_EFG))
    assert out["method"] == "backward-induction" and out["certified"]
    assert out["values"] == ["4", "0", "0"]
    assert strategy_at(out, 0, "root") == {"stop": "1", "go": "0"}
    assert strategy_at(out, 0, "again") == {"a": "1", "b": "0"}
    assert strategy_at(out, 2, "p2") == {"l": "0", "r": "1"}

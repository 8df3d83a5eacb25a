"""``seqform solve GAME --method doracle``, run as a user runs it."""

import json
import subprocess
import sys

import seqform


def run(*args):
    return subprocess.run([sys.executable, "-m", "seqform", *args], capture_output=True, text=True, timeout=300)


def test_doracle_json_value_is_the_lps():
    r = run("solve", "flipit(depth=3)", "--method", "doracle", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["certified"] is True and out["lower"] == out["upper"] == out["value"]
    assert out["value"] == str(seqform.solve(seqform.games.load("flipit(depth=3)")).value)
    assert out["restricted_nodes"] < 15_685


def test_doracle_text_and_progress():
    r = run("solve", "kuhn", "--method", "doracle")
    assert r.returncode == 0 and "-1/18" in r.stdout and "double oracle" in r.stdout
    assert "iteration 1:" in r.stderr and "bounds" in r.stderr


def test_bench_doracle_smoke(tmp_path):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    r = subprocess.run(
        [sys.executable, str(root / "bench" / "bench_doracle.py"), "--games", "kuhn", "--out-dir", str(tmp_path)],
        cwd=str(root),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    row = next(ln for ln in r.stdout.splitlines() if ln.startswith("| kuhn |"))
    assert row.rstrip().endswith("| yes |")


def test_doracle_strategies_extend_to_an_equilibrium():
    """The printed strategy (``"strategy"``: the restricted strategies completed by the first action
    elsewhere, in seqform's strategy JSON) is an equilibrium of the full game (exact best responses
    of the compiled tree)."""
    from fractions import Fraction

    from seqform.io.strategyjson import profile_from_json
    from seqform.model.tree import compile_tree
    from seqform.verify.evaluate import evaluate

    r = run("solve", "leduc", "--method", "doracle", "--do-mode", "alternating", "--strategy", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert "strategies" not in out  # the legacy key is gone: "strategy" is the standard one
    tree = compile_tree(seqform.games.leduc())
    profile = profile_from_json(tree, out["strategy"])
    ev = evaluate(tree, profile, exact=True)
    assert ev.best_response_values[0] == Fraction(out["value"]) == -ev.best_response_values[1]

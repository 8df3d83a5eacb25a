"""One result type: every solver's result is a ``seqform.Result``, its ``to_json`` has the common
keys, and every ``--json --strategy`` is read back by ``seqform evaluate``, which confirms the
solver's claim independently (exact best responses on the whole game)."""
import json
import subprocess
import sys
from fractions import Fraction

import pytest

import seqform
from seqform import Result

COMMON = {"game", "method", "value", "value_float", "certified", "lower", "upper", "exploitability", "sizes",
          "seconds", "notes"}


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "seqform", *args], capture_output=True, text=True, timeout=600)


def solvers():
    import doracle
    import efce
    import efce.exact
    import efce.sampling
    import efce.strategies
    import lossless
    import refinements
    kuhn = seqform.games.load("kuhn")
    yield "lp", lambda: seqform.solve(kuhn)
    yield "efpe", lambda: refinements.efpe(kuhn)
    yield "qpe at eps", lambda: refinements.qpe(kuhn, eps=0.01)
    yield "doracle", lambda: doracle.double_oracle(kuhn)
    yield "gameshrink", lambda: lossless.solve(lossless.four_card())
    yield "efce sampling", lambda: efce.sampling.sample_efce(efce.job_market(), max_rounds=3, seed=0)
    yield "efce exact", lambda: efce.exact.solve_lp(
        efce.strategies.profiles(seqform.compile_tree(efce.job_market())), "welfare")


@pytest.mark.parametrize("name,run", list(solvers()), ids=[n for n, _ in solvers()])
def test_every_solver_returns_a_result_with_the_common_keys(name, run):
    res = run()
    assert isinstance(res, Result)
    out = res.to_json()
    assert COMMON <= set(out), COMMON - set(out)
    json.dumps(out)  # JSON-ready as it is
    assert isinstance(out["seconds"], (dict, float))
    if out["certified"]:
        assert out["value"] is not None and Fraction(out["value"]) == res.value
        assert out["lower"] == out["upper"] == out["value"]


@pytest.mark.parametrize("extra", [[], ["--refine", "qpe"], ["--method", "doracle"]],
                         ids=["lp", "refine", "doracle"])
def test_every_strategy_json_is_read_back_by_evaluate(tmp_path, extra):
    r = cli("solve", "kuhn", "--json", "--strategy", "--quiet", *extra)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["certified"] and out["strategy"] is not None
    path = tmp_path / "strategy.json"
    path.write_text(json.dumps(out["strategy"]))
    ev = cli("evaluate", "kuhn", str(path), "--exact", "--json", "--quiet")
    assert ev.returncode == 0, ev.stderr
    got = json.loads(ev.stdout)
    # an exact equilibrium: zero exploitability, and player 0 gets the certified value
    assert Fraction(got["exploitability"]) == 0
    assert Fraction(got["values"][0]) == Fraction(out["value"])

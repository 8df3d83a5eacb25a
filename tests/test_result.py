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

COMMON = {
    "game",
    "method",
    "value",
    "value_float",
    "certified",
    "lower",
    "upper",
    "exploitability",
    "sizes",
    "seconds",
    "notes",
}


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
    yield (
        "efce exact",
        lambda: efce.exact.solve_lp(efce.strategies.profiles(seqform.compile_tree(efce.job_market())), "welfare"),
    )


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


@pytest.mark.parametrize("extra", [[], ["--refine", "qpe"], ["--method", "doracle"]], ids=["lp", "refine", "doracle"])
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


FIELDS = {
    "game": "str",
    "method": "str",
    "value": "Fraction | None",
    "value_float": "float | None",
    "certified": "bool",
    "lower": "Fraction | None",
    "upper": "Fraction | None",
    "exploitability": "float | Fraction | None",
    "profile": "Profile | None",
    "exact_profile": "Profile | None",
    "tree": "Tree | None",
    "sizes": "dict[str, Any]",
    "seconds": "dict[str, float]",
    "notes": "tuple[str, ...] | list[str]",
}


def test_result_is_a_dataclass_with_typed_keyword_fields():
    import dataclasses

    fields = {f.name: f for f in dataclasses.fields(Result)}
    assert {k: f.type for k, f in fields.items()} == FIELDS  # the annotations, as written
    assert all(f.kw_only for f in fields.values())
    r = Result()
    assert (r.game, r.value, r.certified, r.seconds, list(r.notes)) == ("", None, False, {}, [])
    assert Result().seconds is not r.seconds  # a fresh dict each
    assert not hasattr(r, "values")  # no attribute appears from nowhere
    assert r.summary().startswith("game ")


@pytest.mark.parametrize("name,run", list(solvers()), ids=[n for n, _ in solvers()])
def test_every_result_is_a_dataclass_with_seconds_total_and_a_summary(name, run):
    import dataclasses

    res = run()
    assert dataclasses.is_dataclass(res) and isinstance(res, Result)
    assert isinstance(res.seconds, dict) and "total" in res.seconds
    assert all(isinstance(v, float) for v in res.seconds.values())
    text = res.summary()
    assert text.startswith("game") and res.game in text and not text.endswith("\n")
    # a new result with other values leaves the solver's unchanged
    other = dataclasses.replace(res, seconds={**res.seconds, "total": res.seconds["total"] + 1})
    assert other.seconds["total"] == res.seconds["total"] + 1 and other.to_json()["value"] == res.to_json()["value"]

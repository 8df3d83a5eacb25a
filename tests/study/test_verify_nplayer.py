"""The verification harness on games without a value (``seqform.study.verifyharness``): three-player
Kuhn poker (OpenSpiel's) and a two-player general-sum game. There is no LP to solve and no value
to measure against: runs are measured by NashConv, checked here against OpenSpiel's own
best responses, and exactly at the last point, checked against ``seqform.evaluate``. Two-player
zero-sum output keeps its keys and meanings; the JSON validates against its schema, which says
that a game without a value has null values; a study of a three-player game gives a table and a
report that say there is no game value."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import jsonschema
import numpy as np
import pytest

import seqform
from seqform.iterative.mccfr import MonteCarloCFR
from seqform.model.tree import compile_tree
from seqform.schemas import load
from seqform.study.verifyharness import ground_truth, solver_refusal, verify
from tests.oneline import one_line_error

pyspiel = pytest.importorskip("pyspiel")
KUHN3 = "kuhn_poker(players=3)"


@pytest.fixture(scope="module")
def kuhn3():
    game = pyspiel.load_game(KUHN3)
    return game, compile_tree(seqform.from_openspiel(game))


def seqform_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "seqform", *args], capture_output=True, text=True, timeout=300)


def test_no_lp_is_solved_and_there_is_no_value(kuhn3, monkeypatch):
    _, tree = kuhn3

    def no_solve(*a, **k):
        raise AssertionError("ground_truth solved an LP for a game without a value")

    monkeypatch.setattr(sys.modules["seqform.solve"], "solve", no_solve)
    truth = ground_truth(tree)
    assert truth.value is None and not truth.has_value and truth.players == 3
    with pytest.raises(seqform.SeqformError, match="two-player zero-sum"):
        ground_truth(tree, refined=["efpe"])


def test_nash_conv_equals_openspiels_at_every_point(kuhn3):
    """Each point's NashConv and values equal OpenSpiel's best responses and expected returns on
    the same profile (an independent solver run twin of the harness's, same seed)."""
    from open_spiel.python.algorithms.expected_game_score import policy_value
    from open_spiel.python.algorithms.exploitability import nash_conv

    game, tree = kuhn3
    marks = [1, 7, 30]
    rep = verify("es-mccfr", tree, 30, points=marks, seed=3)
    assert rep.game_value is None and rep.players == 3
    twin = MonteCarloCFR(tree, sampling="external", seed=3)
    done = 0
    for pt, m in zip(rep.points, marks):
        while done < m:
            twin.step()
            done += 1
        pol = seqform.to_openspiel_policy(tree, twin.average_profile(), game=game)
        assert pt.iteration == m and pt.value_gap is None
        assert pt.nash_conv == pytest.approx(nash_conv(game, pol), abs=1e-9)
        theirs = policy_value(game.new_initial_state(), [pol] * 3)
        assert np.allclose(pt.values, theirs, atol=1e-9) and pt.value == pt.values[0]
        assert pt.exploitability == pytest.approx(pt.nash_conv / 3, abs=1e-15)  # seqform's NashConv / N
        assert pt.theorem_bound is None  # the papers' bounds are two-player zero-sum


def test_the_last_point_is_also_exact(kuhn3):
    """The last point's exact NashConv and largest regret are ``seqform.evaluate``'s with
    ``exact=True`` on the same profile; the earlier points have floats only."""
    _, tree = kuhn3
    rep = verify("os-mccfr", tree, 20, points=[5, 20], seed=1)
    twin = MonteCarloCFR(tree, sampling="outcome", seed=1)
    for _ in range(20):
        twin.step()
    ev = seqform.evaluate(tree, twin.average_profile(), exact=True)
    first, last = rep.points
    assert first.nash_conv_exact is None and first.max_infoset_regret_exact is None
    assert Fraction(last.nash_conv_exact) == ev.nash_conv and Fraction(last.max_infoset_regret_exact) == ev.max_regret
    assert float(ev.nash_conv) == pytest.approx(last.nash_conv, abs=1e-12)


def test_several_seeds_band_nash_conv_and_take_the_exact_median(kuhn3):
    _, tree = kuhn3
    rep = verify("es-mccfr", tree, 10, points=[10], seed=0, seeds=3)
    singles = [verify("es-mccfr", tree, 10, points=[10], seed=k).points[-1] for k in range(3)]
    pt = rep.points[-1]
    ncs = [s.nash_conv for s in singles]
    assert pt.nash_conv == pytest.approx(float(np.median(ncs)), abs=1e-15)
    assert min(ncs) <= pt.nash_conv_q10 <= pt.nash_conv <= pt.nash_conv_q90 <= max(ncs)
    assert Fraction(pt.nash_conv_exact) == sorted(Fraction(s.nash_conv_exact) for s in singles)[1]
    assert pt.value_gap is None and pt.value_gap_q10 is None


def test_two_player_general_sum_has_no_value_either():
    tree = compile_tree(seqform.games.load("threat_general_sum"))
    assert tree.num_players == 2 and tree.constant_sum is None
    rep = verify("cfr", tree, 20, points=[20])
    last = rep.points[-1]
    ex = seqform.exploitability(tree, cfr_average(tree, 20))
    assert rep.game_value is None and last.value_gap is None
    assert last.nash_conv == pytest.approx(ex.nash_conv, abs=1e-12) and last.nash_conv_exact is not None


def cfr_average(tree, n):
    from seqform.iterative.cfr import RegretMinimizer

    s = RegretMinimizer(tree, "cfr")
    s.step(n)
    return s.average_profile()


def test_two_player_zero_sum_keeps_its_value_and_adds_nash_conv():
    tree = compile_tree(seqform.games.kuhn())
    rep = verify("cfr+", tree, 30, points=[30])
    out = rep.to_json()
    assert out["game_value"] == "-1/18" and out["game_value_float"] == -1 / 18 and out["players"] == 2
    last = out["points"][-1]
    assert last["value_gap"] == pytest.approx(last["value"] + 1 / 18, abs=1e-15)
    assert last["nash_conv"] == pytest.approx(2 * last["exploitability"], abs=1e-15)
    assert last["values"][0] == last["value"] and last["nash_conv_exact"] is None
    jsonschema.validate(out, load("verify"), cls=jsonschema.Draft202012Validator)


def test_cli_json_validates_and_says_there_is_no_value(kuhn3):
    r = seqform_cli("verify", "es-mccfr,cfr+", f"openspiel:{KUHN3}", "--iterations", "20", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    schema = load("verify")
    jsonschema.validate(out, schema, cls=jsonschema.Draft202012Validator)
    assert out["game_value"] is None and out["players"] == 3
    for run in out["runs"]:
        assert run["game_value"] is None and all(p["value_gap"] is None for p in run["points"])
        assert run["points"][-1]["nash_conv_exact"] is not None
    # the schema says so: a value gap without a game value is refused
    run = out["runs"][0]
    run["points"][0]["value_gap"] = 0.0
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(run, schema, cls=jsonschema.Draft202012Validator)


def test_cli_text_reports_nash_conv_and_no_value():
    r = seqform_cli("verify", "es-mccfr", f"openspiel:{KUHN3}", "--iterations", "20", "--quiet")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any(line.startswith("game value") and "none (3 players)" in line for line in lines)
    assert any(line.startswith("NashConv") for line in lines)
    assert not any(line.startswith(("exploitability", "value gap")) for line in lines)


def test_a_two_player_solver_is_refused_in_one_line(kuhn3):
    r = seqform_cli("verify", "egt", f"openspiel:{KUHN3}", "--iterations", "5")
    one_line_error(r, "solver 'egt'", "two-player zero-sum")
    _, tree = kuhn3
    assert "solver 'omwu'" in solver_refusal("omwu", tree) and solver_refusal("es-mccfr", tree) is None
    assert solver_refusal("egt", compile_tree(seqform.games.kuhn())) is None


def test_the_figure_measures_nash_conv(kuhn3, tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from seqform.study.verifyplot import figure

    _, tree = kuhn3
    reps = [verify(s, tree, 10, points=[1, 10], seed=0) for s in ("es-mccfr", "os-mccfr")]
    for group in (reps[:1], reps):
        fig, _ = figure(group)
        try:
            ylabels = [ax.get_ylabel() for ax in fig.axes]
            assert any("NashConv" in y and "payoff units" in y for y in ylabels)
            assert not any("exploitability" in y or "value gap" in y for y in ylabels)
            assert "no game value" in fig._suptitle.get_text()
        finally:
            plt.close(fig)


@pytest.mark.runtime
def test_a_study_of_a_three_player_game(tmp_path):
    pytest.importorskip("pyarrow")
    from seqform.study import load_study, read_table, report, run_study

    spec = tmp_path / "s.toml"
    spec.write_text(
        f'[study]\nname = "n3"\ngames = ["openspiel:{KUHN3}"]\nseeds = 2\niterations = 20\ncheckpoints = 3\n'
        '[[solvers]]\nname = "es-mccfr"\n[[solvers]]\nname = "egt"\n'
    )
    res = run_study(load_study(spec), tmp_path / "out", workers=1, progress=False)
    assert (res.ok, res.failed, res.retried) == (2, 1, 0)  # egt refuses the game: not retried
    rows = read_table(tmp_path / "out")
    ok = [r for r in rows if r["status"] == "ok"]
    assert all(r["game_value"] is None and r["value_gap"] is None and r["players"] == 3 for r in ok)
    assert all(r["nash_conv"] == pytest.approx(3 * r["exploitability"], abs=1e-15) for r in ok)
    for seed in (0, 1):
        mine = sorted((r for r in ok if r["seed"] == seed), key=lambda r: r["iteration"])
        assert [r["nash_conv_exact"] is not None for r in mine] == [False] * (len(mine) - 1) + [True]
        assert len(json.loads(mine[-1]["values"])) == 3
    (bad,) = [r for r in rows if r["status"] != "ok"]
    assert bad["solver"] == "egt" and bad["attempts"] == 1 and "UnsupportedGameError" in bad["error"]
    pytest.importorskip("matplotlib")
    got = report(tmp_path / "out")
    text = open(got["summary"]).read()
    assert "No game value (3 players)" in text and "final NashConv" in text and "final value gap" not in text
    assert len(got["plots"]) == 1 and open(got["plots"][0], "rb").read(8) == b"\x89PNG\r\n\x1a\n"

"""``seqform verify ... --refined C --eps E``: a perturbed solver measured in the perturbed game
it solves, against that game's exact (certified) equilibrium value."""

import json
from fractions import Fraction

import refinements
import seqform
from seqform.study.verifyharness import verify
from tests.refinements.test_refine_cli import run


def test_perturbed_egt_is_measured_in_its_own_perturbed_game():
    game = seqform.games.load("kuhn")
    rep = verify("egt-perturbed", game, 300, refined=["efpe"], eps=0.01)
    truth = refinements.refine(game, "efpe", eps=0.01)
    assert rep.perturbed == {"concept": "efpe", "eps": 0.01, "value": str(truth.value)}
    first, last = rep.points[0], rep.points[-1]
    for pt in rep.points:
        # inside the polytopes every measure is at least 0 (up to float rounding)
        assert pt.tremble_violation <= 1e-12 and pt.perturbed_exploitability >= -1e-12
        assert abs(pt.value - float(truth.value) - pt.perturbed_value_gap) <= 1e-12
    assert last.perturbed_exploitability < first.perturbed_exploitability / 10


def test_verify_reports_perturbed_measures_in_json():
    r = run(
        "verify",
        "egt-perturbed",
        "kuhn",
        "--iterations",
        "50",
        "--eps",
        "0.01",
        "--refined",
        "efpe",
        "--json",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["perturbed"]["concept"] == "efpe" and Fraction(rep["perturbed"]["value"]) < 0
    last = rep["points"][-1]
    for key in ("perturbed_exploitability", "perturbed_value_gap", "perturbed_max_infoset_regret", "tremble_violation"):
        assert isinstance(last[key], float)

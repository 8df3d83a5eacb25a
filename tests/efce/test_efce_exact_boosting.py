"""Dudik & Gordon (2009)'s boosting with exact expectations (``sample_efce(...,
options=SamplerOptions(expectations="exact"))``: every full pure profile, weighted by q_lambda, in place of MCMC
samples) against the maximum-entropy EFCE that cvxpy finds over the EFCE polytope (``efce.exact``), an
independent computation: a conic solver on the reduced-profile LP constraints, not coordinate
descent on the dual.

Tolerances: cvxpy (Clarabel) solves to about 1e-8; the boosting stops once no causal deviation
gains more than ``target`` r_max and no recorded lambda overshoots by more; at target 1e-6 the
payoffs must agree to 1e-3 (the issue's bound) and the distributions over reduced profiles to
1e-3 in total variation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from efce.causalregret import max_regret
from efce.exact import max_entropy
from efce.games import indian_poker, job_market
from efce.sampling import (
    MAX_EXACT_PROFILES,
    SamplerOptions,
    count_full_profiles,
    exact_distribution,
    make_model,
    sample_efce,
)
from seqform.errors import SeqformError
from seqform.games.explicit import TreeGame
from tests.strategies import random_trees


def _against_cvxpy(game, weights=None, target=1e-6, corrective=True, max_rounds=200):
    res = sample_efce(
        game,
        weights,
        target=target,
        max_rounds=max_rounds,
        options=SamplerOptions(expectations="exact", corrective=corrective),
    )
    assert res.expectations == "exact" and res.stopped_by in ("target", "trivial")
    q, prof = exact_distribution(game, res)
    truth = max_entropy(prof, weights)
    assert np.asarray(res.payoffs) == pytest.approx([float(x) for x in truth.payoffs], abs=1e-3)
    assert np.abs(q - truth.p).sum() / 2 <= 1e-3
    # and it is an EFCE, up to the target: the exact dynamic program of efce.causalregret
    assert float(max_regret(prof, list(q)).regret) <= 1e-4 * max(1.0, float(np.ptp(prof.utility)))
    return res


def test_job_market_coordinate_descent_converges_to_the_maximum_entropy_efce():
    # the sampler's own update, one coordinate a round, without the corrective refit
    res = _against_cvxpy(job_market(), target=1e-5, corrective=False, max_rounds=2000)
    assert res.samples == 32  # 2^5 full pure profiles, enumerated once
    assert res.to_json()["expectations"] == "exact"


def test_job_market_totally_corrective_converges_to_the_maximum_entropy_efce():
    res = _against_cvxpy(job_market())
    assert res.rounds <= 50


def test_job_market_weighted_converges_to_the_weighted_maximum_entropy_efce():
    _against_cvxpy(job_market(), (0.5, 0.2))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_trees(max_depth=3, max_actions=2, max_nodes=16, max_pure_strategies=8, chance=True))
def test_random_games_converge_to_the_maximum_entropy_efce(tree):
    _against_cvxpy(TreeGame(tree, "random"))


def test_auto_is_exact_when_the_profiles_can_be_enumerated():
    auto = SamplerOptions(expectations="auto")
    assert sample_efce(job_market(), None, max_rounds=5, options=auto).expectations == "exact"
    big = indian_poker(4)
    assert count_full_profiles(make_model(big, np.zeros(3))) > MAX_EXACT_PROFILES
    assert (
        sample_efce(
            big, None, max_rounds=1, options=SamplerOptions(expectations="auto", sample_size=5, burn_in=0)
        ).expectations
        == "mcmc"
    )


def test_exact_refuses_games_too_large_to_enumerate_and_unknown_modes():
    with pytest.raises(SeqformError, match="full pure strategy profiles"):
        sample_efce(indian_poker(3), None, max_rounds=1, options=SamplerOptions(expectations="exact"))
    with pytest.raises(SeqformError, match="expectations"):
        sample_efce(job_market(), None, max_rounds=1, options=SamplerOptions(expectations="exactly"))
    with pytest.raises(SeqformError, match="corrective"):
        sample_efce(job_market(), None, max_rounds=1, options=SamplerOptions(expectations="mcmc", corrective=True))

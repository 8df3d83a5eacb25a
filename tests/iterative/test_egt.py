"""The excessive gap technique (``seqform.iterative.egt``): its certified bound mu_u D_u + mu_v D_v holds
at every iteration against independently computed gaps (NashConv from ``seqform.verify.exploitability``
for the plain game; brute force over perturbed pure strategies for the perturbed one), it
converges, and the perturbed iterates respect the tremble."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import seqform
from seqform.errors import SeqformError
from seqform.iterative.egt import ExcessiveGap
from seqform.model.strategy import Profile
from seqform.model.tree import compile_tree
from seqform.verify.exploitability import expected_payoffs, exploitability
from tests.strategies import random_games

OPTIONS = [
    dict(),
    dict(adaptive_tau=False, balance=False),
    dict(weights="one"),
    dict(balance=False),
    dict(weights="kroer17"),
    dict(weights="farina21"),
    dict(distance="euclidean"),
    dict(distance="euclidean", weights="one", balance=False),
]


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_the_gap_bound_holds_at_every_iteration(name, options):
    tree = compile_tree(getattr(seqform.games, name)())
    e = ExcessiveGap(tree, **options)
    for _ in range(150):
        e.step()
        nash_conv = 2 * exploitability(tree, e.average_profile()).exploitability
        assert nash_conv <= e.gap_bound * (1 + 1e-9) + 1e-12


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games())
def test_random_games_bound_and_convergence(game):
    tree = compile_tree(game)
    e = ExcessiveGap(tree)
    noise = 1e-10 * max(1.0, float(np.abs(tree.payoff).max()))  # float error of the best responses
    bounds = []
    for _ in range(400):
        e.step()
        nash_conv = 2 * exploitability(tree, e.average_profile()).exploitability
        assert nash_conv <= e.gap_bound * (1 + 1e-9) + noise
        bounds.append(e.gap_bound)
    assert bounds[-1] < bounds[0] or bounds[0] < 1e-9


def perturbed_pure_profiles(tree, p, eps):
    """Every pure strategy of player p, made eps-perturbed (eps on each other action)."""
    ids = tree.player_infosets[p].tolist()
    for pick in itertools.product(*(range(int(tree.infoset_num_actions[m])) for m in ids)):
        b = np.ones(tree.num_sequences[p])
        for m, a in zip(ids, pick):
            f, n = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
            b[f : f + n] = eps
            b[f + a] = 1 - (n - 1) * eps
        yield b


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games(max_pure_strategies=16))
def test_perturbed_gap_bound_against_brute_force(game):
    eps = 0.05
    tree = compile_tree(game)
    e = ExcessiveGap(tree, perturbation="efpe", eps=eps)
    for it in range(60):
        e.step()
        prof = e.average_profile()
        if it % 10:
            continue
        best0 = max(
            expected_payoffs(tree, Profile([b, prof.behaviour[1]]))[0] for b in perturbed_pure_profiles(tree, 0, eps)
        )
        worst1 = min(
            expected_payoffs(tree, Profile([prof.behaviour[0], b]))[0] for b in perturbed_pure_profiles(tree, 1, eps)
        )
        assert best0 - worst1 <= e.gap_bound * (1 + 1e-9) + 1e-10 * max(1.0, float(np.abs(tree.payoff).max()))
        assert abs((best0 - worst1) - e.gap()) <= 1e-9


def test_convergence_and_the_tremble():
    tree = compile_tree(seqform.games.leduc())
    e = ExcessiveGap(tree)
    e.step(1000)
    assert exploitability(tree, e.average_profile()).exploitability < 2e-3
    p = ExcessiveGap(tree, perturbation="efpe", eps=0.01)
    p.step(200)
    for b in p.average_profile().behaviour:
        assert b[1:].min() >= 0.01 - 1e-12


def test_bad_options_are_refused():
    with pytest.raises(SeqformError, match="eps=0.6 is too large"):
        ExcessiveGap(seqform.games.kuhn(), perturbation="efpe", eps=0.6)
    with pytest.raises(SeqformError, match="unknown weights"):
        ExcessiveGap(seqform.games.kuhn(), weights="two")
    with pytest.raises(SeqformError, match="unknown perturbation"):
        ExcessiveGap(seqform.games.kuhn(), perturbation="qpe")
    with pytest.raises(SeqformError, match="scale must be positive"):
        ExcessiveGap(seqform.games.kuhn(), scale=0)


def test_tune_scale_picks_the_candidate_with_the_smallest_gap():
    from seqform.iterative.egt import tune_scale

    tree = compile_tree(seqform.games.kuhn())
    cands = (0.01, 1.0, 100.0)
    c = tune_scale(tree, candidates=cands, iterations=15)
    gaps = {}
    for x in cands:
        e = ExcessiveGap(tree, scale=x)
        e.step(15)
        gaps[x] = 2 * exploitability(tree, e.average_profile()).exploitability
    assert c in cands and gaps[c] == pytest.approx(min(gaps.values()), abs=1e-9)


@pytest.mark.parametrize("options", [dict(), dict(perturbation="efpe", eps=0.02, adaptive_tau=False)], ids=str)
def test_checkpoint_resume_is_bit_identical(tmp_path, options):
    from seqform.iterative.cfr import CheckpointError

    tree = compile_tree(seqform.games.leduc())
    whole = ExcessiveGap(tree, **options)
    whole.step(40)
    first = ExcessiveGap(tree, **options)
    first.step(23)
    first.save(tmp_path / "egt.npz")
    resumed = ExcessiveGap.load(tmp_path / "egt.npz", tree)
    resumed.step(17)
    assert np.array_equal(whole.x, resumed.x) and np.array_equal(whole.y, resumed.y)
    assert (whole.mu_u, whole.mu_v, whole.traversals) == (resumed.mu_u, resumed.mu_v, resumed.traversals)
    with pytest.raises(CheckpointError, match="cannot resume as 'cfr'"):
        ExcessiveGap.load(tmp_path / "egt.npz", tree, algorithm="cfr")


def test_weights_by_hand_on_kuhn():
    """Kuhn, player 0: three first information sets (one per card) with one set after
    check-bet below "check" each. kroer17: 2 below, 2 + 2 * 2 = 6 above; farina21: 1 and
    1 + 1 = 2; "kroer": 2 + 2^1 * 1 = 4 above."""
    from seqform.iterative.dilatedentropy import DilatedEntropy

    tree = compile_tree(seqform.games.kuhn())
    ids = tree.player_infosets[0]
    top = ids[tree.infoset_parent_seq[ids] == 0]
    low = ids[tree.infoset_parent_seq[ids] != 0]
    for weights, hi, lo in (("kroer17", 6.0, 2.0), ("farina21", 2.0, 1.0), ("kroer", 4.0, 2.0), ("one", 1.0, 1.0)):
        beta = DilatedEntropy._weights(tree, 0, weights)
        assert np.all(beta[top] == hi) and np.all(beta[low] == lo), weights


def test_first_reading_is_half_the_recursive_weights():
    """Our first reading takes the maximum per depth and adds 2^k per set at depth k, where the
    recursion doubles each set's whole weight: kroer17 <= 2 kroer - 2, with equality wherever one
    action attains every depth's maximum (on these games, everywhere)."""
    from seqform.iterative.dilatedentropy import DilatedEntropy

    for spec in ("leduc", "liars_dice(1,3)", "goofspiel(4)"):
        tree = compile_tree(seqform.games.load(spec))
        for p in (0, 1):
            ids = tree.player_infosets[p]
            k, k17 = DilatedEntropy._weights(tree, p, "kroer")[ids], DilatedEntropy._weights(tree, p, "kroer17")[ids]
            assert np.all(k17 <= 2 * k - 2 + 1e-9)
            assert np.allclose(k17, 2 * k - 2)


def test_simplex_projection_against_bisection():
    """``project_groups`` (sorting) against the projection found by bisection on theta, where
    sum max(v - theta, 0) = 1, on random groups."""
    from seqform.iterative.dilatedeuclidean import project_groups

    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 6, 200)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    rep = np.repeat(np.arange(len(sizes)), sizes)
    v = rng.normal(0, 2, int(sizes.sum()))
    got = project_groups(v, starts, rep)
    for _g, (a, k) in enumerate(zip(starts, sizes)):
        w = v[a : a + k]
        lo, hi = w.min() - 1, w.max()
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if np.maximum(w - mid, 0).sum() > 1 else (lo, mid)
        np.testing.assert_allclose(got[a : a + k], np.maximum(w - lo, 0), atol=1e-9)


def test_euclidean_gradient_by_finite_differences():
    """The dilated Euclidean distance's gradient at an interior plan, against central differences
    of d along every sequence (d as a function of the realization plan)."""
    from seqform.iterative.dilatedeuclidean import DilatedEuclidean

    tree = compile_tree(seqform.games.kuhn())
    X = DilatedEuclidean(tree, 0, "one")
    rng = np.random.default_rng(1)
    b = np.ones(X.n)
    for seqs, starts, rep, *_ in X.levels:
        w = rng.uniform(0.2, 1.0, len(seqs))
        b[seqs] = w / np.add.reduceat(w, starts)[rep]
    x = X.realization(b)

    def d_of(xx):
        total = 0.0
        for seqs, starts, _rep, parents, beta, *_ in X.levels:
            total += float(np.sum(beta * 0.5 * np.add.reduceat(xx[seqs] ** 2, starts) / xx[parents]))
        return total

    h = 1e-6
    fd = np.array([(d_of(x + h * np.eye(X.n)[s]) - d_of(x - h * np.eye(X.n)[s])) / (2 * h) for s in range(X.n)])
    np.testing.assert_allclose(X.gradient(b), fd, atol=1e-6)

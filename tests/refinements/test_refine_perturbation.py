"""Perturbed polytopes: the EFPE and QPE bounds, user-given bounds, and clear errors."""

from fractions import Fraction

import numpy as np
import pytest

import seqform
from refinements import PerturbationError, custom
from refinements.perturbation import efpe, qpe, sequence_depths
from seqform.model.tree import compile_tree


@pytest.fixture(scope="module")
def kuhn():
    return compile_tree(seqform.games.kuhn())


def test_qpe_bounds_are_eps_to_the_own_depth(kuhn):
    pert = qpe(kuhn)
    for p in range(2):
        d = sequence_depths(kuhn, p)
        lam = pert.lam(p, 0.1)
        assert lam[0] == 0
        # each sequence's bound is eps^|s| with |s| counted by walking the parents
        par = kuhn.seq_parent[p]
        for s in range(1, kuhn.num_sequences[p]):
            k, t = 0, s
            while t > 0:
                k, t = k + 1, par[t]
            assert d[s] == k and abs(lam[s] - 0.1**k) < 1e-15
        assert not pert.behavioural[p]


def test_efpe_bounds_are_behavioural(kuhn):
    pert = efpe(kuhn)
    for p in range(2):
        b = pert.beta(p, 0.01)
        assert b[0] == 0 and np.allclose(b[1:], 0.01)
        assert pert.beta_exact(p, Fraction(1, 100))[1] == Fraction(1, 100)
        assert not pert.realization[p]


def test_too_large_eps_names_the_information_set(kuhn):
    with pytest.raises(PerturbationError, match=r"information set .* sum to 1.2 > 1"):
        efpe(kuhn).check(kuhn, 0.6)
    with pytest.raises(PerturbationError, match="mass"):
        qpe(kuhn).check(kuhn, 0.9)
    with pytest.raises(PerturbationError, match="positive"):
        efpe(kuhn).check(kuhn, 0.0)
    efpe(kuhn).check(kuhn, 0.4)
    qpe(kuhn).check(kuhn, 0.4)


def test_custom_bounds_are_validated(kuhn):
    n0, n1 = kuhn.num_sequences
    pert = custom(kuhn, realization=[[0] + [Fraction(1, 2)] * (n0 - 1), None])
    assert pert.lam(0, 0.1)[1] == pytest.approx(0.05)
    with pytest.raises(PerturbationError, match="coefficients for"):
        custom(kuhn, behavioural=[[1, 2], None])
    with pytest.raises(PerturbationError, match="empty sequence"):
        custom(kuhn, behavioural=[[1] * n0, None])
    with pytest.raises(PerturbationError, match="nonnegative"):
        custom(kuhn, realization=[None, [0] + [-1] * (n1 - 1)])

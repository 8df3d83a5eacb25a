"""Optimistic multiplicative weights on the sequence form (``seqform.iterative.optimistic``):
against a plain optimistic-MWU on a matrix game, where the dilated entropy is the entropy, and
converging on Kuhn and Leduc by exact-enough best responses."""

from fractions import Fraction

import numpy as np
import pytest

import seqform
from seqform.games.explicit import LEAF, TreeGame
from seqform.iterative.optimistic import OptimisticMirrorDescent

RPS = np.array([[0, -1, 2], [1, 0, -1], [-1, 1, 0]], dtype=float)  # a skewed rock-paper-scissors


def matrix_game(M: np.ndarray) -> TreeGame:
    """Player 0 picks a row; player 1, not seeing it, a column (one information set)."""
    rows = tuple(
        ("decision", 1, "cols", ("a", "b", "c"), tuple((LEAF, (Fraction(int(v)), -Fraction(int(v)))) for v in M[i]))
        for i in range(3)
    )
    return TreeGame(("decision", 0, "rows", ("A", "B", "C"), rows), "matrix")


def plain_omwu(M: np.ndarray, eta: float, T: int) -> tuple:
    """Optimistic multiplicative weights, both players simultaneously, the last loss as the
    prediction; player 0 maximises x^T M y."""
    xh, yh = np.ones(3) / 3, np.ones(3) / 3
    lx, ly = np.zeros(3), np.zeros(3)
    for _ in range(T):
        x = xh * np.exp(-eta * lx)
        x /= x.sum()
        y = yh * np.exp(-eta * ly)
        y /= y.sum()
        lx, ly = -(M @ y), M.T @ x
        xh = xh * np.exp(-eta * lx)
        xh /= xh.sum()
        yh = yh * np.exp(-eta * ly)
        yh /= yh.sum()
    return x, y


def test_equals_plain_optimistic_mwu_on_a_matrix_game():
    tree = seqform.compile_tree(matrix_game(RPS))
    s = OptimisticMirrorDescent(tree, step_size=0.7)
    for T in (1, 2, 7, 40):
        s.step(T - s.iteration)
        x, y = plain_omwu(RPS, 0.7 / np.abs(RPS).max(), T)
        np.testing.assert_allclose(s.plans[0][1:], x, atol=1e-12)
        np.testing.assert_allclose(s.plans[1][1:], y, atol=1e-12)


@pytest.mark.parametrize("game,iterations,bound", [("kuhn", 2000, 1e-3), ("leduc", 2000, 1e-2)])
def test_average_converges(game, iterations, bound):
    tree = seqform.compile_tree(seqform.games.load(game))
    s = OptimisticMirrorDescent(tree)
    s.step(20)
    early = seqform.exploitability(tree, s.average_profile()).exploitability
    s.step(iterations - 20)
    assert seqform.exploitability(tree, s.average_profile()).exploitability < bound < early
    assert s.traversals == 2 * iterations


def test_last_iterate_converges_on_kuhn():
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    s = OptimisticMirrorDescent(tree)
    s.step(2000)
    assert seqform.exploitability(tree, s.current_profile()).exploitability < 1e-9

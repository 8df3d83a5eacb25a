"""The abstract LP's exact payoffs (``lossless.exactabstractlp``): they agree with the float
matrix ``lossless.abstractlp`` builds, a uniform deck's counting path agrees with the weighted
path given equal weights, and the exact basis plans are realization plans at the LP's value."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import lossless
from lossless.abstractlp import abstract_sequence_form
from lossless.exactabstractlp import exact_payoff_entries, solve_exactly
from lossless.gameshrink import gameshrink
from lossless.orderedsignals import OrderedSignalGame
from lossless.sequencelayout import sequence_layout


def _dense(entries) -> dict:
    rows, cols, vals = entries
    return {(int(r), int(c)): Fraction(v) for r, c, v in zip(rows, cols, vals)}


@pytest.mark.parametrize(
    "game", [lossless.leduc_os(), lossless.rhode_island(ranks=2, suits=2), lossless.four_card()], ids=lambda g: g.name
)
def test_the_exact_payoffs_are_the_float_matrix(game):
    ab = gameshrink(game)
    sf = abstract_sequence_form(ab)
    exact = _dense(exact_payoff_entries(sequence_layout(ab)))
    A = sf.A.tocoo()
    floats = {(int(r), int(c)): float(v) for r, c, v in zip(A.row, A.col, A.data)}
    assert exact.keys() == floats.keys()
    for k, v in exact.items():
        assert abs(float(v) - floats[k]) <= 1e-12 * max(1.0, abs(floats[k]))


def test_a_uniform_deck_counts_as_equal_weights_weigh():
    # two independent paths: integer counts of worlds over their number, and the worlds' exact
    # probabilities from the weights
    base = lossless.leduc_os()
    weighted = OrderedSignalGame(
        base.deck,
        [(1, 1), (0, 0)],
        [0, 1],
        base.betting,
        base.rank,
        weights=[Fraction(7)] * len(base.deck),
        name="leduc, weights all 7",
    )
    a = _dense(exact_payoff_entries(sequence_layout(gameshrink(base))))
    b = _dense(exact_payoff_entries(sequence_layout(gameshrink(weighted))))
    assert a == b


def test_the_exact_basis_plans_are_realization_plans_at_the_lp_value():
    ab = gameshrink(lossless.leduc_os(ranks=4))
    found = solve_exactly(ab, method="simplex")
    assert found is not None
    lay = found.layout
    A = _dense(exact_payoff_entries(lay))
    x, y = ([Fraction(int(v.p), int(v.q)) for v in plan] for plan in found.plans)
    assert x[0] == 1 and y[0] == 1 and min(x) >= 0 and min(y) >= 0
    value = sum(x[r] * a * y[c] for (r, c), a in A.items())
    assert abs(float(value) - found.lp.value) < 1e-9
    # behaviour sums to one at every abstract information set
    bet = ab.game.betting
    for i in range(2):
        b = found.behaviour[i]
        for v in lay.decision_nodes(i):
            k = len(bet.actions[v])
            n = lay.ncls[i][bet.round[v]]
            sums = [sum(b[lay.base[v, a] + c] for a in range(k)) for c in range(n)]
            assert all(s == 1 for s in sums)
    assert np.isfinite(found.lp.value)


def test_auto_runs_the_interior_point_on_large_sparse_lps():
    # Rhode Island's abstract LP with 3 ranks and 2 suits: 42,674 rows and 4.6 nonzeros a row,
    # below the density rule, above the row count where the interior point always wins
    from seqform.lp.zerosumlp import IPM_ALWAYS_ROWS, IPM_MIN_DENSITY, auto_method, lp_matrix

    K = lp_matrix(abstract_sequence_form(gameshrink(lossless.rhode_island(ranks=3, suits=2))))
    assert K.shape[0] >= IPM_ALWAYS_ROWS and K.nnz < IPM_MIN_DENSITY * K.shape[0]
    assert auto_method(K) == "ipm"

"""The integer programs' door to HiGHS (``seqform.lp.highs.solve_highs_mip``): optimal on random
small knapsacks (checked by enumerating every 0/1 vector), a clock that runs out is a stop that
carries a bound, and an infeasible program is our error."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from seqform.errors import SolverError
from seqform.lp.highs import INF, solve_highs_mip


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 8).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 20), min_size=n, max_size=n),
            st.lists(st.integers(1, 9), min_size=n, max_size=n),
            st.integers(0, 30),
        )
    )
)
def test_random_knapsacks_are_solved_to_the_enumerated_optimum(data):
    value, weight, capacity = data
    n = len(value)
    best = max(
        sum(v for v, b in zip(value, bits) if b)
        for bits in itertools.product((0, 1), repeat=n)
        if sum(w for w, b in zip(weight, bits) if b) <= capacity
    )
    res = solve_highs_mip(
        sp.csc_matrix(np.array([weight], dtype=float)),
        np.array(value, dtype=float),
        np.zeros(n),
        np.ones(n),
        np.array([-INF]),
        np.array([float(capacity)]),
        np.ones(n),
        maximize=True,
        gap=0.0,
    )
    assert res.optimal and not res.stopped
    assert abs(res.objective - best) <= 1e-9 and res.bound >= best - 1e-9
    x = np.round(res.col_value)
    assert np.all(np.abs(res.col_value - x) <= 1e-6) and float(np.dot(weight, x)) <= capacity + 1e-9


@pytest.mark.runtime
def test_a_time_limit_of_zero_is_a_stop_not_an_error():
    """HiGHS checks its clock before it starts: a limit of 0 s stops it on any machine."""
    n = 30
    rng = np.random.default_rng(0)
    w = rng.integers(1, 50, n).astype(float)
    res = solve_highs_mip(
        sp.csc_matrix(w[None, :]),
        rng.integers(1, 50, n).astype(float),
        np.zeros(n),
        np.ones(n),
        np.array([-INF]),
        np.array([w.sum() / 2]),
        np.ones(n),
        maximize=True,
        time_limit=0.0,
    )
    assert not res.optimal and "time limit" in res.stopped
    if res.col_value is None:
        assert np.isnan(res.objective)
    else:  # an incumbent found before the first check of the clock: the bound still holds it
        assert res.bound >= res.objective - 1e-9


def test_an_infeasible_program_is_our_error():
    with pytest.raises(SolverError, match="integer program"):
        solve_highs_mip(
            sp.csc_matrix(np.ones((1, 2))),
            np.ones(2),
            np.zeros(2),
            np.ones(2),
            np.array([3.0]),
            np.array([INF]),
            np.ones(2),
            maximize=True,
        )

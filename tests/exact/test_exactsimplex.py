"""The exact simplex (``seqform.exact.exactsimplex``): on random small LPs its answer satisfies
the optimality conditions exactly (primal feasible, dual feasible, complementary: optimal by LP
duality, whatever algorithm found it) and agrees with HiGHS; on zero-sum games whose payoffs span
1 to 10^300 it turns HiGHS's wrong basis into one whose plans the exact best responses certify,
at the value of an independent exact solve of the reduced normal form."""

import re
from fractions import Fraction

import flint
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import seqform
from seqform.errors import CertificateError
from seqform.exact.exactsimplex import ExactLP, PivotLimit, exact_simplex
from seqform.io.efgread import parse_efg
from seqform.io.efgwrite import efg_string
from seqform.lp.highs import INF, solve_highs
from tests.oracle.brute_force import (
    pure_strategy_payoff_matrix,
    solve_matrix_game_exact,
)

Q = flint.fmpq


@st.composite
def feasible_lps(draw):
    """A random LP with every column boxed in [0, u] or [l, u] (so it is bounded) and row bounds
    around K w0 for a point w0 of the box (so it is feasible); some rows are equalities."""
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    K = [[draw(st.integers(-3, 3)) for _ in range(n)] for _ in range(m)]
    lo = [draw(st.integers(-2, 0)) for _ in range(n)]
    up = [lo[j] + draw(st.integers(0, 3)) for j in range(n)]
    w0 = [draw(st.integers(lo[j], up[j])) for j in range(n)]
    act = [sum(K[i][j] * w0[j] for j in range(n)) for i in range(m)]
    kinds = [draw(st.sampled_from(["eq", "ge", "le", "range", "free"])) for _ in range(m)]
    rl = [a if k in ("eq", "ge", "range") else None for a, k in zip(act, kinds)]
    ru = [a if k == "eq" else a + 2 if k == "range" else a if k == "le" else None for a, k in zip(act, kinds)]
    cost = [draw(st.integers(-4, 4)) for _ in range(n)]
    return K, cost, lo, up, rl, ru


def _q(v):
    return None if v is None else Q(v)


def _check_optimal(K, cost, lo, up, rl, ru, res):
    """The optimality conditions of ``maximise c w s.t. rl <= K w <= ru, lo <= w <= up``, exactly:
    w feasible, and with the duals y the reduced cost of each column c - K^T y and each row's
    dual push only against a bound the variable sits at."""
    m, n = len(K), len(cost)
    w, y = res.w, res.duals
    act = [sum((Q(K[i][j]) * w[j] for j in range(n)), Q(0)) for i in range(m)]
    for j in range(n):
        assert lo[j] <= w[j] <= up[j]
        d = Q(cost[j]) - sum((Q(K[i][j]) * y[i] for i in range(m)), Q(0))
        assert d <= 0 or w[j] == up[j], (j, d)  # could still rise with profit
        assert d >= 0 or w[j] == lo[j], (j, d)  # could still fall with profit
    for i in range(m):
        assert (rl[i] is None or act[i] >= rl[i]) and (ru[i] is None or act[i] <= ru[i])
        # slack s_i = row i's activity, column -e_i, cost 0: its reduced cost is y_i
        assert y[i] <= 0 or (ru[i] is not None and act[i] == ru[i])
        assert y[i] >= 0 or (rl[i] is not None and act[i] == rl[i])
    assert res.objective == sum((Q(c) * v for c, v in zip(cost, w)), Q(0))


@settings(max_examples=150, deadline=None)
@given(feasible_lps())
def test_random_lps_from_the_slack_basis_meet_the_optimality_conditions(data):
    """From the all-slack basis with every column at its lower bound (often infeasible: phase 1
    runs) the result is optimal by the conditions above, at HiGHS's objective."""
    K, cost, lo, up, rl, ru = data
    m, n = len(K), len(cost)
    lp = ExactLP(
        [{j: Q(v) for j, v in enumerate(r) if v} for r in K],
        [Q(c) for c in cost],
        [Q(v) for v in lo],
        [Q(v) for v in up],
        [_q(v) for v in rl],
        [_q(v) for v in ru],
    )
    res = exact_simplex(lp, list(range(n, n + m)))
    _check_optimal(K, cost, lo, up, rl, ru, res)
    inf = lambda v, s: s * INF if v is None else float(v)
    hi = solve_highs(
        sp.csc_matrix(np.array(K, dtype=float)),
        np.array(cost, dtype=float),
        np.array(lo, float),
        np.array(up, float),
        np.array([inf(v, -1) for v in rl]),
        np.array([inf(v, 1) for v in ru]),
        maximize=True,
    )
    assert abs(float(res.objective) - hi.objective) <= 1e-9


def test_a_pivot_limit_and_an_infeasible_lp_are_our_errors():
    # maximise w0 + w1 with w0 + w1 <= 1, both in [0, 1]: one pivot is needed
    lp = ExactLP([{0: Q(1), 1: Q(1)}], [Q(1), Q(1)], [Q(0), Q(0)], [Q(1), Q(1)], [None], [Q(1)])
    with pytest.raises(PivotLimit):
        exact_simplex(lp, [2], max_pivots=0)
    assert exact_simplex(lp, [2]).objective == 1
    # w0 + w1 >= 3 with both at most 1
    bad = ExactLP([{0: Q(1), 1: Q(1)}], [Q(1), Q(1)], [Q(0), Q(0)], [Q(1), Q(1)], [Q(3)], [None])
    with pytest.raises(CertificateError, match="infeasible"):
        exact_simplex(bad, [2])


def widened(spec: str, exponents=(0, 16, 1, 300, 3, 0, 50, 8)) -> seqform.Game:
    """Built-in game ``spec`` with its outcomes' payoffs multiplied by 10^k, k cycling through
    ``exponents``: magnitudes no float LP resolves, in one game."""
    ks = iter(exponents * 100_000)

    def times(m):
        k = next(ks)
        return m.group(1) + "{ " + ", ".join(str(Fraction(v) * 10**k) for v in m.group(2).split(",")) + " }"

    text = re.sub(
        r'^(t "[^"]*" \d+ "[^"]*" )\{ ([^}]*) \}', times, efg_string(seqform.games.load(spec)), flags=re.MULTILINE
    )
    return parse_efg(text, f"{spec} widened")


def _no_lemke(monkeypatch):
    import seqform.exact.sequenceformlcp as lcp

    def refused(*a, **k):
        raise AssertionError("the exact simplex should have certified without Lemke's algorithm")

    monkeypatch.setattr(lcp, "solve_lcp", refused)


@pytest.mark.parametrize("spec", ["kuhn"])
def test_widened_games_are_certified_by_the_exact_simplex_at_the_normal_forms_value(monkeypatch, spec):
    """HiGHS's basis fails its exact check; the exact simplex from it certifies, alone, at the
    value of the reduced normal form solved by an exact simplex over Fractions (no floats)."""
    _no_lemke(monkeypatch)
    game = widened(spec)
    sol = seqform.solve(game, method="simplex")
    assert sol.certified and sol.method == "lp-exact-simplex" and "did not certify" in sol.certificate.note
    A, _, _ = pure_strategy_payoff_matrix(game)
    assert sol.value == solve_matrix_game_exact(A, method="simplex").value


def test_widened_liars_dice_1x3_is_certified(monkeypatch):
    """A game of 572 sequences and information sets (HiGHS's basis is 179 pivots from optimal
    at payoffs up to 10^16): certified, its plans verified by exact best responses."""
    _no_lemke(monkeypatch)
    sol = seqform.solve(widened("liars_dice(1,3)", (0, 0, 1, 3, 8, 16)), method="simplex")
    assert sol.certified and sol.method == "lp-exact-simplex"
    assert sol.certificate.lower == sol.certificate.upper == sol.value

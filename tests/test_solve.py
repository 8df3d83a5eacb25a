"""seqform.solve against values known independently of this code: the literature (Kuhn -1/18),
the spec/OpenSpiel (Leduc -0.0856064241), hand-solved games; certificates against tampering."""
from fractions import Fraction

import numpy as np
import pytest

import seqform
from seqform import UnsupportedGameError, games
from seqform.verify.exploitability import exploitability
from seqform.exact.certificate import ExactSequenceForm, exact_bracket
from seqform.exact.rationals import fmpq_of
from seqform.model.strategy import Profile, behaviour_from_realization
from tests import smallgames


def test_kuhn_value_exactly_minus_one_eighteenth():
    sol = seqform.solve(games.kuhn())
    assert sol.certified and sol.value == Fraction(-1, 18)
    assert sol.certificate.method == "basis"
    assert sol.exploitability <= 1e-12


@pytest.fixture(scope="module")
def leduc_solution():
    return seqform.solve(games.leduc())


def test_leduc_value_and_certificate(leduc_solution):
    sol = leduc_solution
    assert abs(sol.value_float - (-0.0856064241)) <= 1e-9
    assert sol.certified
    assert abs(float(sol.value) - (-0.0856064241)) <= 1e-9
    assert sol.exploitability_bound == 0


def test_leduc_exact_strategies_are_unexploitable_by_float_best_response(leduc_solution):
    # an independent computation: the float best-response code on the exact strategies
    sol = leduc_solution
    t = sol.tree
    prof = Profile([behaviour_from_realization(t, p, np.array([float(v) for v in sol.exact_realization[p]]))
                    for p in range(2)])
    assert exploitability(t, prof).nash_conv <= 1e-12


def test_tampered_strategy_is_not_certified(leduc_solution):
    sol = leduc_solution
    t = sol.tree
    sf = seqform.sequence_form(t)
    ex = ExactSequenceForm(sf)
    x = [fmpq_of(v) for v in sol.exact_realization[0]]
    y = [fmpq_of(v) for v in sol.exact_realization[1]]
    _, lo, up = exact_bracket(t, ex, x, y)
    assert lo == up
    # move a little mass at player 0's first information set: still a valid plan, no longer optimal
    i = int(t.player_infosets[0][0])
    f = int(t.infoset_first_seq[i])
    d = fmpq_of(Fraction(1, 1000))
    src = f if x[f] >= d else f + 1
    dst = f + 1 if src == f else f
    x2 = list(x)
    # shift the whole subtree proportionally: scale the two branches of the first information set
    scale_src = (x[src] - d) / x[src]
    scale_dst = (x[dst] + d) / x[dst] if x[dst] else None
    if scale_dst is None:
        pytest.skip("degenerate first information set")
    par = t.seq_parent[0]
    for s in range(1, len(x2)):
        a = s
        while a > 0 and par[a] != 0:
            a = par[a]
        if a == src:
            x2[s] = x[s] * scale_src
        elif a == dst:
            x2[s] = x[s] * scale_dst
    bad, lo2, up2 = exact_bracket(t, ex, x2, y)
    assert bad == ""
    assert lo2 < up2


def test_constant_sum_game_is_solved_as_zero_sum():
    # by hand: at h (1/3) player 0 takes y (2), at t (2/3) it gets 2 either way: value 2
    sol = seqform.solve(smallgames.constant_sum())
    assert sol.certified and sol.value == 2


def test_matching_pennies():
    sol = seqform.solve(smallgames.matching_pennies())
    assert sol.certified and sol.value == 0
    assert [str(v) for v in sol.exact_realization[0]] == ["1", "1/2", "1/2"]


def test_general_sum_goes_to_the_lcp_and_the_lp_refuses_it_clearly():
    sol = seqform.solve(smallgames.general_sum())  # perfect information: subgame perfect, by backward induction
    assert sol.method == "backward-induction" and sol.certified and sol.nash_conv == 0
    sol = seqform.solve(smallgames.general_sum(), method="lcp")
    assert sol.method == "lcp" and sol.certified and sol.nash_conv == 0
    with pytest.raises(UnsupportedGameError, match="not zero-sum"):
        seqform.solve(smallgames.general_sum(), method="simplex")


def test_ipm_with_crossover_also_certifies():
    sol = seqform.solve(games.kuhn(), method="ipm")
    assert sol.certified and sol.value == Fraction(-1, 18)


def test_exact_limit_falls_back_to_rigorous_bound(leduc_solution):
    sol = seqform.solve(games.leduc(), exact_limit=10)
    assert sol.certificate.method == "rounded"
    assert "exact basis solve skipped" in sol.certificate.note
    # the bracket is exact and must contain the certified value
    assert sol.certificate.lower <= leduc_solution.value <= sol.certificate.upper
    assert sol.exploitability_bound == (sol.certificate.upper - sol.certificate.lower) / 2
    assert sol.exploitability_bound < Fraction(1, 10**5)
    # the float exploitability of the returned (rounded) profile is within the exact bound
    assert sol.exploitability <= float(sol.exploitability_bound) + 1e-12


def test_auto_method_picks_the_interior_point_for_dense_lps_only():
    from seqform.lp.zerosumlp import auto_method, lp_matrix, solve_lp
    from seqform.lp.sequenceform import sequence_form
    forms = {spec: sequence_form(seqform.compile_tree(games.load(spec)))
             for spec in ("kuhn", "leduc", "liars_dice(1,4)", "leduc(ranks=5)")}
    picks = {spec: auto_method(lp_matrix(sf)) for spec, sf in forms.items()}
    assert picks == {"kuhn": "simplex", "leduc": "simplex", "liars_dice(1,4)": "simplex",
                     "leduc(ranks=5)": "ipm"}
    # the result says which method "auto" ran; "auto" is solve's default
    lp = solve_lp(forms["kuhn"], method="auto")
    assert lp.method == "simplex" and abs(lp.value + 1 / 18) < 1e-12
    import inspect
    assert inspect.signature(seqform.solve).parameters["method"].default == "auto"


def test_solver_errors_are_ours():
    with pytest.raises(seqform.SolverError, match="unknown LP method"):
        seqform.solve(games.kuhn(), method="magic")


def test_time_limit_is_our_error():
    with pytest.raises(seqform.SolverError, match="time limit"):
        seqform.solve(games.leduc(ranks=5), time_limit=0.01, certify_exact=False)

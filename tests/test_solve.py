"""seqform.solve against values known independently of this code: the literature (Kuhn -1/18),
the spec/OpenSpiel (Leduc -0.0856064241), hand-solved games; certificates against tampering."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import seqform
from seqform import UnsupportedGameError, games
from seqform.exact.certificate import ExactSequenceForm, exact_bracket
from seqform.exact.rationals import fmpq_of
from seqform.model.strategy import Profile, behaviour_from_realization
from seqform.verify.exploitability import exploitability
from tests import smallgames
from tests.strategies import random_games


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
    prof = Profile(
        [behaviour_from_realization(t, p, np.array([float(v) for v in sol.exact_realization[p]])) for p in range(2)]
    )
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
    from seqform.lp.sequenceform import sequence_form
    from seqform.lp.zerosumlp import auto_method, lp_matrix, solve_lp

    forms = {
        spec: sequence_form(seqform.compile_tree(games.load(spec)))
        for spec in ("kuhn", "leduc", "liars_dice(1,4)", "leduc(ranks=5)")
    }
    picks = {spec: auto_method(lp_matrix(sf)) for spec, sf in forms.items()}
    assert picks == {"kuhn": "simplex", "leduc": "simplex", "liars_dice(1,4)": "simplex", "leduc(ranks=5)": "ipm"}
    # the result says which method "auto" ran; "auto" is solve's default
    lp = solve_lp(forms["kuhn"], method="auto")
    assert lp.method == "simplex" and abs(lp.value + 1 / 18) < 1e-12
    import inspect

    assert inspect.signature(seqform.solve).parameters["method"].default == "auto"


def test_solver_errors_are_ours():
    with pytest.raises(seqform.SolverError, match="unknown LP method"):
        seqform.solve(games.kuhn(), method="magic")


@pytest.mark.parametrize("certify_exact", [True, False])
@pytest.mark.runtime
def test_a_time_limit_is_a_clean_stop_with_an_exact_bracket(leduc_solution, certify_exact):
    """HiGHS stopped by its clock (a limit of 0 s stops it at its first check, on any machine)
    is a stop, not an error: the strategies where it stood, rounded, bracket the value exactly
    (the certified value, found independently, lies inside), and the float value reported lies
    inside that bracket."""
    sol = seqform.solve(games.leduc(), time_limit=0.0, certify_exact=certify_exact)
    cert = sol.certificate
    assert not sol.certified and sol.value is None and "time limit" in cert.note
    assert cert.lower <= leduc_solution.value <= cert.upper
    assert float(cert.lower) <= sol.value_float <= float(cert.upper)
    assert sol.exploitability_bound == (cert.upper - cert.lower) / 2


@pytest.mark.runtime
def test_highs_stopped_by_its_clock_is_our_time_limit_error():
    """The one door to HiGHS turns its time limit into ``TimeLimitError`` (a ``SolverError``)."""
    from seqform.errors import TimeLimitError
    from seqform.lp.highs import INF, solve_highs
    from seqform.lp.sequenceform import sequence_form
    from seqform.lp.zerosumlp import lp_matrix

    sf = sequence_form(seqform.compile_tree(games.leduc()))
    K = lp_matrix(sf)
    n1, m1 = sf.E.shape[1], sf.E.shape[0]
    n2, m2 = sf.F.shape[1], sf.F.shape[0]
    cost = np.zeros(n1 + m2)
    cost[n1] = 1.0
    with pytest.raises(TimeLimitError, match="time limit"):
        solve_highs(
            K,
            cost,
            np.r_[np.zeros(n1), np.full(m2, -INF)],
            np.full(n1 + m2, INF),
            np.r_[sf.e, np.zeros(n2)],
            np.r_[sf.e, np.full(n2, INF)],
            maximize=True,
            time_limit=0.0,
        )
    assert issubclass(TimeLimitError, seqform.SolverError) and m1 > 0


# ------------------------------------------------------------------------------------------
# exact whatever the payoffs' magnitudes
# ------------------------------------------------------------------------------------------

#: an 11-node zero-sum game whose payoffs mix 10^16 with single digits: HiGHS's basis is not
#: optimal in rationals (its best responses bracket the value in [1/3, 3])
WIDE_EFG = """EFG 2 R "t" { "P1" "P2" }
""
c "" 1 "deal" { "H" 1/3 "T" 2/3 } 0
p "" 1 1 "I1" { "a" "b" } 0
t "" 1 "o1" { 1, -1 }
p "" 2 1 "J1" { "x" "y" } 0
t "" 2 "o2" { 10000000000000000, -10000000000000000 }
t "" 3 "o3" { -1, 1 }
p "" 1 2 "I2" { "a" "b" } 0
t "" 4 "o4" { 0, 0 }
p "" 2 1 "J1" { "x" "y" } 0
t "" 5 "o5" { -3, 3 }
t "" 6 "o6" { 4, -4 }
"""


def _exact_oracle_value(game) -> Fraction:
    """The value by the independent oracle: the reduced normal form solved by an exact simplex
    over Fractions (no floats anywhere, so no magnitude defeats it)."""
    from tests.oracle.brute_force import pure_strategy_payoff_matrix, solve_matrix_game_exact

    return solve_matrix_game_exact(pure_strategy_payoff_matrix(game)[0], method="simplex").value


def test_payoffs_of_10_to_the_16_beside_single_digits_are_solved_exactly(tmp_path):
    from seqform.io.efgread import read_efg

    path = tmp_path / "big.efg"
    path.write_text(WIDE_EFG)
    game = read_efg(str(path))
    sol = seqform.solve(game)
    assert sol.certified and sol.value == _exact_oracle_value(game)
    assert sol.certificate.method == "exact-simplex" and "did not certify" in sol.certificate.note
    # what is returned is the verified equilibrium, not the LP's wrong floats
    assert sol.exploitability <= 1e-9 * 10**16 * 1e-6
    assert [float(v) for v in sol.exact_realization[0]] == pytest.approx(sol.realization[0], abs=1e-12)


def test_when_the_exact_simplex_does_not_finish_lemkes_algorithm_repairs_the_basis(monkeypatch, tmp_path):
    import importlib

    from seqform.io.efgread import read_efg

    monkeypatch.setattr(importlib.import_module("seqform.solve"), "SIMPLEX_REPAIR_PIVOTS_PER_ROW", 0)
    path = tmp_path / "big.efg"
    path.write_text(WIDE_EFG)
    game = read_efg(str(path))
    sol = seqform.solve(game)
    assert sol.certified and sol.value == _exact_oracle_value(game) and sol.method == "lcp"
    assert "the exact simplex from HiGHS's basis did not finish" in sol.certificate.note


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(random_games(payoffs="wide", max_nodes=30))
def test_games_with_payoffs_spread_over_1_to_10_to_the_300_are_certified(monkeypatch, g):
    """Random games whose payoffs span 1 to 10^300 (the LP, not backward induction): certified
    by the LP's basis or the exact simplex from it (Lemke's algorithm is refused), at the
    independent exact oracle's value; the LP's float value, when its basis failed, is not what
    is reported."""
    import seqform.exact.sequenceformlcp as lcp

    def refused(*a, **k):
        raise AssertionError("the exact simplex should have certified without Lemke's algorithm")

    monkeypatch.setattr(lcp, "solve_lcp", refused)
    sol = seqform.solve(g, method="simplex")
    assert sol.certified and sol.value == _exact_oracle_value(g)
    assert sol.value_float == float(sol.value)


def test_a_value_outside_its_own_exact_bracket_is_never_reported(monkeypatch, tmp_path):
    """Without the exact repairs (as for a game too large for them), the reported float value lies
    inside the exact bracket, whatever the LP said; the note says why there is no repair."""
    import importlib

    import seqform.exact.sequenceformlcp as lcp
    from seqform.io.efgread import read_efg
    from seqform.model.limits import TooLargeError

    def too_large(*a, **k):
        raise TooLargeError("refused for the test")

    monkeypatch.setattr(lcp, "solve_lcp", too_large)
    monkeypatch.setattr(importlib.import_module("seqform.solve"), "SIMPLEX_REPAIR_PIVOTS_PER_ROW", 0)
    path = tmp_path / "big.efg"
    path.write_text(WIDE_EFG)
    sol = seqform.solve(read_efg(str(path)))
    cert = sol.certificate
    assert not sol.certified and "no exact repair: refused for the test" in cert.note
    assert "the exact simplex from HiGHS's basis did not finish" in cert.note
    # float() is monotone, so a float of a point in the bracket lies in the bracket's floats
    assert float(cert.lower) <= sol.value_float <= float(cert.upper)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(random_games(payoffs="wide", max_nodes=30))
def test_games_too_large_for_integer_pivoting_are_certified_or_bracketed(monkeypatch, g):
    """With the exact simplex stopped at once and integer pivoting refused (as for a game past
    ``LCP_REPAIR_ENTRIES``), a basis that fails goes to Lemke's floating-point path, which payoffs near 10^300 can
    overflow: the result is then certified at the oracle's value or an exact bracket that holds it, with the
    float value inside, never an exception."""
    import importlib

    solve_module = importlib.import_module("seqform.solve")
    monkeypatch.setattr(solve_module, "LCP_REPAIR_ENTRIES", 0)
    monkeypatch.setattr(solve_module, "SIMPLEX_REPAIR_PIVOTS_PER_ROW", 0)  # Lemke's path, not the simplex
    sol = seqform.solve(g, method="simplex")
    want = _exact_oracle_value(g)
    if sol.certified:
        assert sol.value == want
    else:
        cert = sol.certificate
        # a bracket 1/2 wide at 5e49 holds no float: the float value lies in the bracket's floats
        assert cert.lower <= want <= cert.upper
        assert float(cert.lower) <= sol.value_float <= float(cert.upper)


# ---- games of imperfect information with more than two players: CFR+ polished, then certified


def _by_key(tree, profile: Profile) -> list:
    """A profile as the brute-force oracle takes it: per player, {information-set key: probabilities}."""
    out: list = [dict() for _ in range(tree.num_players)]
    for i in range(sum(tree.num_infosets)):
        out[int(tree.infoset_player[i])][tree.infoset_key[i]] = list(profile.action_probabilities(tree, i))
    return out


def test_three_player_kuhn_is_solved_exactly_and_the_oracle_agrees():
    from tests.oracle.brute_force_nplayer import brute_force_evaluate

    game = games.load("kuhn(players=3)")
    sol = seqform.solve(game)
    assert isinstance(sol, seqform.GeneralSumSolution) and sol.method == "cfr+-polish"
    assert sol.certified and sol.nash_conv == 0 and len(sol.values) == 3
    # independent: every player's best response, by enumerating its pure strategies, gains nothing
    bf = brute_force_evaluate(game, _by_key(sol.tree, sol.exact_profile))
    assert bf.nash_conv == 0 and list(bf.values) == list(sol.values)
    assert sum(sol.values) == 0  # Kuhn poker is zero-sum for any number of players
    assert "subgame perfect" not in sol.summary()  # a Nash equilibrium, claimed as nothing more


def test_more_than_two_players_too_large_for_the_polish_is_refused(monkeypatch):
    import seqform.exact.nplayerpolish as nplayerpolish

    monkeypatch.setattr(nplayerpolish, "MAX_UNKNOWNS", 100)
    with pytest.raises(UnsupportedGameError, match="at most 100"):
        seqform.solve(games.load("kuhn(players=3)"))


@pytest.mark.runtime
def test_more_than_two_players_past_the_time_limit_is_a_clean_stop():
    with pytest.raises(seqform.errors.TimeLimitError, match="CFR\\+ ran 500 iterations"):
        seqform.solve(games.load("kuhn(players=4)"), time_limit=1e-3)


def test_the_polish_asked_for_on_two_player_kuhn_meets_the_lp_value():
    polished = seqform.solve(games.load("kuhn"), method="cfr+-polish")
    lp = seqform.solve(games.load("kuhn"))
    assert polished.method == "cfr+-polish" and polished.certified
    assert polished.values == [lp.value, -lp.value]


def test_support_enumeration_takes_over_where_the_polish_fails():
    """Van der Laan's 3x3x3 game (Gambit's g2): CFR+'s average is far from its only equilibrium,
    (3/7, 4/7, 0), (0, 1, 0), (0, 2/3, 1/3); support enumeration finds it, and the brute-force
    oracle agrees that no player gains."""
    from pathlib import Path

    from tests.oracle.brute_force_nplayer import brute_force_evaluate

    game = seqform.read_efg(str(Path(__file__).parent.parent / "bench" / "gambit_games" / "g2.efg"))
    sol = seqform.solve(game)
    assert sol.method == "support-enumeration" and sol.certified and sol.nash_conv == 0
    bf = brute_force_evaluate(game, _by_key(sol.tree, sol.exact_profile))
    assert bf.nash_conv == 0 and list(bf.values) == list(sol.values)
    played = [[v for v in b[1:]] for b in sol.exact_profile.behaviour]
    assert played == [[Fraction(3, 7), Fraction(4, 7), 0], [0, 1, 0], [0, Fraction(2, 3), Fraction(1, 3)]]
    alone = seqform.solve(game, method="support-enumeration")
    assert alone.method == "support-enumeration" and alone.values == sol.values

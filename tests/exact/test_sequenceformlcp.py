"""The sequence-form LCP by Lemke's algorithm (``seqform.exact.sequenceformlcp``): exact Nash
equilibria of general-sum games, checked by exact best responses (an evaluation independent of
the pivoting), by the certified LP on zero-sum games, and against pygambit's ``lcp_solve``."""

import io
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import seqform
from seqform.errors import SolverError
from seqform.exact.sequenceformlcp import solve_lcp
from seqform.model.strategy import Profile, behaviour_from_realization_exact
from seqform.verify.evaluate import evaluate
from tests.strategies import general_sum_games, random_games


def check_equilibrium(tree, plans) -> list:
    """The plans are exact realization plans and no player gains by deviating: returns the values."""
    for p in (0, 1):
        x = plans[p]
        assert all(isinstance(v, Fraction) and v >= 0 for v in x) and x[0] == 1
        for I in tree.player_infosets[p]:  # sum over I's actions = the parent sequence's
            f, k = int(tree.infoset_first_seq[I]), int(tree.infoset_num_actions[I])
            assert sum(x[f : f + k]) == x[int(tree.infoset_parent_seq[I])]
    prof = Profile([behaviour_from_realization_exact(tree, p, plans[p]) for p in (0, 1)])
    ev = evaluate(tree, prof, exact=True)
    assert ev.gains == [0, 0], ev.gains
    return ev.values


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(general_sum_games())
def test_random_general_sum_games_exact_equilibrium(g):
    tree = seqform.compile_tree(g)
    check_equilibrium(tree, solve_lcp(tree).plans)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games(max_nodes=30))
def test_zero_sum_games_value_equals_the_certified_lp(g):
    tree = seqform.compile_tree(g)
    values = check_equilibrium(tree, solve_lcp(tree).plans)
    lp = seqform.solve(tree, method="simplex")
    assert lp.certified and values[0] == lp.value


@pytest.mark.parametrize("name,value", [("kuhn", Fraction(-1, 18)), ("threat_general_sum", None)])
def test_builtin_games(name, value):
    tree = seqform.compile_tree(seqform.games.load(name))
    values = check_equilibrium(tree, solve_lcp(tree).plans)
    if value is not None:
        assert values[0] == value


def test_every_prior_gives_an_equilibrium():
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    for seed in range(5):
        eq = solve_lcp(tree, seed=seed * 10)
        assert check_equilibrium(tree, eq.plans)[0] == Fraction(-1, 18)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(general_sum_games(max_nodes=24))
def test_pygambit_lcp_equilibrium_is_certified_too(g):
    """pygambit's rational lcp_solve on the same game, written by our .efg writer: its
    equilibrium also passes our exact evaluation (both solvers are right, whichever equilibrium
    each finds)."""
    gbt = pytest.importorskip("pygambit")
    from seqform.io.efgwrite import efg_string
    from seqform.io.strategyjson import from_pygambit_behavior

    tree = seqform.compile_tree(g)
    ours = check_equilibrium(tree, solve_lcp(tree).plans)
    game = gbt.read_efg(io.StringIO(efg_string(tree)))
    res = gbt.nash.lcp_solve(game, rational=True, use_strategic=False)
    assert res.equilibria
    prof = from_pygambit_behavior(tree, res.equilibria[0], undefined="uniform")
    ev = evaluate(tree, prof, exact=True)
    assert ev.gains == [0, 0]
    assert len(ours) == 2


def battle_of_the_sexes():
    """Simultaneous moves (player 1 does not see player 0's choice): three equilibria, values
    (2, 1), (1, 2) and (2/3, 2/3)."""
    from seqform.games.explicit import TreeGame

    q = lambda a, b: ("decision", 1, "Q", ("o", "f"), (("leaf", a), ("leaf", b)))  # noqa: E731
    return TreeGame(("decision", 0, "P", ("O", "F"), (q((2, 1), (0, 0)), q((0, 0), (1, 2)))), "bos")


def test_solve_picks_the_lcp_for_general_sum_games_of_imperfect_information():
    sol = seqform.solve(battle_of_the_sexes())
    assert sol.method == "lcp" and sol.certified and sol.nash_conv == 0
    assert tuple(sol.values) in {(2, 1), (1, 2), (Fraction(2, 3), Fraction(2, 3))}
    assert sol.to_json()["values"] == [str(v) for v in sol.values]


def test_backward_induction_for_any_number_of_players():
    """A three-player centipede: each mover prefers passing only if the end pays it more; the
    subgame-perfect outcome is (4, 4, 4), and exact best responses gain nothing."""
    from seqform.games.explicit import TreeGame

    c = ("decision", 2, "c", ("T", "P"), (("leaf", (0, 0, 3)), ("leaf", (4, 4, 4))))
    b = ("decision", 1, "b", ("T", "P"), (("leaf", (0, 2, 0)), c))
    sol = seqform.solve(TreeGame(("decision", 0, "a", ("T", "P"), (("leaf", (1, 0, 0)), b)), "centipede3"))
    assert sol.method == "backward-induction" and sol.values == [4, 4, 4] and sol.nash_conv == 0
    c = ("decision", 2, "c", ("T", "P"), (("leaf", (0, 0, 5)), ("leaf", (4, 4, 4))))
    b = ("decision", 1, "b", ("T", "P"), (("leaf", (0, 2, 0)), c))
    sol = seqform.solve(TreeGame(("decision", 0, "a", ("T", "P"), (("leaf", (1, 0, 0)), b)), "centipede3b"))
    assert sol.values == [1, 0, 0]  # player 2 would take: player 1 takes, so player 0 takes first


@pytest.mark.parametrize(
    "args,words",
    [
        (["leduc(rake=5)", "--refine", "efpe"], ["perturbed LCP of 'leduc(rake=5)'", "solve it at a fixed eps"]),
        (["selten_horse", "--method", "lcp"], ["3 players"]),
        (["selten_fig3", "--method", "simplex"], ["3 players", "two-player zero-sum"]),
    ],
)
def test_refusals_are_one_line(args, words):
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "seqform", "solve", *args, "--json", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), r.stderr


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(general_sum_games())
def test_floating_point_path_ends_on_an_exact_equilibrium(g):
    """The path followed in floats (``seqform.exact.lemkepath``) ends on a basis whose exact
    solution is an equilibrium; integer pivoting from the same start does too."""
    tree = seqform.compile_tree(g)
    try:
        fast = solve_lcp(tree, method="float-path")
    except SolverError as e:
        # rounding can end the float path on a ray in degenerate games (the CI example below),
        # and a prior whose best responses tie can give an infeasible start (the path used to
        # run from it and end on a basis that fails the exact check); the default method then
        # tries another prior
        assert "ray" in str(e) or "starting basis" in str(e), e
        fast = solve_lcp(tree)
    else:
        assert fast.path == "floating point"
    check_equilibrium(tree, fast.plans)
    check_equilibrium(tree, solve_lcp(tree, method="exact").plans)


def test_a_float_path_ending_on_a_ray_tries_another_prior():
    """Found by hypothesis in CI (session 16): player 0's payoffs are all 0 and chance has two
    outcomes of probability 0. The float path used to crash on an empty ratio test (a ValueError
    from numpy); it now raises SolverError, and the default method tries another prior."""
    from fractions import Fraction

    from seqform.games.explicit import TreeGame

    F = Fraction
    z, one, m1 = ("leaf", (0, 0)), ("leaf", (0, 1)), ("leaf", (0, -1))
    p1 = ("decision", 0, "P1", ("L", "R"), (z, z))
    spec = (
        "chance",
        ("c0", "c1", "c2"),
        (F(1), F(0), F(0)),
        (
            (
                "decision",
                0,
                "P0",
                ("L", "R"),
                (
                    ("decision", 1, "Q0", ("l", "m", "r"), (z, ("decision", 1, "Q1", ("l", "r"), (m1, z)), z)),
                    ("decision", 1, "Q0", ("l", "m", "r"), (z, ("decision", 1, "Q1", ("l", "r"), (one, z)), p1)),
                ),
            ),
            (
                "decision",
                1,
                "Q2",
                ("l", "r"),
                (("decision", 0, "P0", ("L", "R"), (z, p1)), ("decision", 0, "P0", ("L", "R"), (z, p1))),
            ),
            ("decision", 0, "P0", ("L", "R"), (z, z)),
        ),
    )
    tree = seqform.compile_tree(TreeGame(spec, "ci-example"))
    check_equilibrium(tree, solve_lcp(tree).plans)
    check_equilibrium(tree, solve_lcp(tree, method="exact").plans)


def test_a_float_basis_that_fails_its_exact_check_falls_back_to_exact_pivoting(monkeypatch):
    import seqform.exact.sequenceformlcp as lcp

    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    monkeypatch.setattr(lcp, "_solve_basis", lambda *a, **k: None)
    eq = lcp.solve_lcp(tree)
    assert eq.path == "exact"
    check_equilibrium(tree, eq.plans)
    with pytest.raises(seqform.errors.SolverError, match="not feasible in exact arithmetic"):
        lcp.solve_lcp(tree, method="float-path")


def test_a_failed_float_path_tries_another_prior(monkeypatch):
    import seqform.exact.sequenceformlcp as lcp

    real, calls = lcp.lemke_path, []

    def flaky(*a, **k):
        calls.append(1)
        if len(calls) == 1:
            raise seqform.errors.SolverError("Lemke (floating point): a basis repeated after 7 pivots (rounding)")
        return real(*a, **k)

    monkeypatch.setattr(lcp, "lemke_path", flaky)
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    eq = lcp.solve_lcp(tree, seed=3)
    assert len(calls) == 2 and eq.seed == 4
    check_equilibrium(tree, eq.plans)


@pytest.mark.slow  # the default tier checks the floating-point path and its exact basis on random games
def test_raked_leduc_is_general_sum_and_solved_exactly():
    """Leduc with a 5% rake (1,093 sequences per player): the floating-point path, then the exact
    basis; exact best responses gain nothing."""
    g = seqform.games.load("leduc(rake=5)")
    assert g.name == "leduc(rake=5)"
    tree = seqform.compile_tree(g)
    assert tree.constant_sum is None and tuple(tree.num_sequences) == (1093, 1093)
    eq = solve_lcp(tree)
    assert eq.path == "floating point"
    check_equilibrium(tree, eq.plans)


def test_qpe_lower_bounds_symbolic_and_at_a_fixed_eps_agree():
    """Realization lower bounds ``eps^|s|`` solved for every small eps at once: the returned
    polynomial plans, evaluated at a small rational eps, are an equilibrium of that perturbed game
    (an exact check at that eps by exact best responses inside the polytope is in
    tests/refinements); here: they meet every bound and sum correctly."""
    from refinements.perturbation import qpe

    tree = seqform.compile_tree(seqform.games.load("liars_dice(1,3)"))
    pert = qpe(tree)
    bounds = [(None, pert.realization[p]) for p in range(2)]
    sym = solve_lcp(tree, bounds=bounds)
    eps = Fraction(1, 1000)
    for p in range(2):
        x = [sum(sym.series[p][k][s] * eps**k for k in range(len(sym.series[p]))) for s in range(tree.num_sequences[p])]
        lam = pert.lam_exact(p, eps)
        assert all(x[s] >= lam[s] for s in range(1, len(x)))
    check_equilibrium(tree, sym.plans)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(st.lists(st.integers(-5, 5), min_size=8, max_size=8))
def test_unique_equilibrium_agrees_with_pygambit(u):
    """2x2 bimatrix games (as simultaneous-move trees) with no pure equilibrium and no payoff ties
    have exactly one equilibrium, completely mixed: ours and pygambit's rational lcp_solve must be
    the same profile."""
    gbt = pytest.importorskip("pygambit")
    from seqform.games.explicit import TreeGame
    from seqform.io.efgwrite import efg_string
    from seqform.io.strategyjson import from_pygambit_behavior

    a = [[u[0], u[1]], [u[2], u[3]]]  # player 0's payoffs: rows T/B, columns l/r
    b = [[u[4], u[5]], [u[6], u[7]]]
    # a tie could allow more equilibria
    assume(a[0][0] != a[1][0] and a[0][1] != a[1][1] and b[0][0] != b[0][1] and b[1][0] != b[1][1])
    assume(not any(a[i][j] > a[1 - i][j] and b[i][j] > b[i][1 - j] for i in range(2) for j in range(2)))
    q = lambda i: ("decision", 1, "Q", ("l", "r"), (("leaf", (a[i][0], b[i][0])), ("leaf", (a[i][1], b[i][1]))))  # noqa: E731
    tree = seqform.compile_tree(TreeGame(("decision", 0, "P", ("T", "B"), (q(0), q(1))), "bimatrix"))
    ours = solve_lcp(tree).plans
    check_equilibrium(tree, ours)
    game = gbt.read_efg(io.StringIO(efg_string(tree)))
    res = gbt.nash.lcp_solve(game, rational=True, use_strategic=False)
    theirs = from_pygambit_behavior(tree, res.equilibria[0], undefined="uniform")
    for p in range(2):
        assert [Fraction(v) for v in theirs.behaviour[p]] == behaviour_from_realization_exact(tree, p, ours[p])

"""Refined equilibria of games of more than two players (``refinements.nplayer*``): the exact
equilibrium of the eps-perturbed game, checked by enumerating every perturbed pure strategy
(``tests/oracle/perturbed_pure.py``, payoffs from the tree's arrays here); the certified limit
eps -> 0, checked as a Nash equilibrium by the brute-force oracle (``tests/oracle/brute_force_nplayer.py``)
and, at eps the reconstruction never used, as the perturbed game's equilibrium by enumeration;
and Selten's horse, whose Nash equilibrium (D, c, L) is not perfect."""

from fractions import Fraction

import flint
import numpy as np
import pytest

import refinements
import seqform
from refinements.nplayercfr import NPlayerPerturbedCFRPlus
from refinements.nplayerlimit import limit
from refinements.nplayerperturbed import solve_perturbed
from refinements.ratfunc import RatFunc, interpolate, sign_radius
from seqform.cli.main import main
from seqform.model.strategy import Profile
from tests.cli.test_json_schema import check, run_json
from tests.oracle.brute_force_nplayer import brute_force_evaluate
from tests.oracle.perturbed_pure import meets_bounds, perturbed_pure_plans


def _tree(name):
    return seqform.compile_tree(seqform.games.load(name))


def _bounds(tree, p, concept, eps):
    """The perturbation's bounds by its definition: EFPE beta_s = eps; QPE lambda_s = eps^|s|,
    |s| counted by walking up the parents."""
    n = tree.num_sequences[p]
    par = tree.seq_parent[p].tolist()
    if concept == "efpe":
        return [Fraction(0)] + [eps] * (n - 1), [Fraction(0)] * n
    depth = [0] * n
    for s in range(1, n):
        t, d = s, 0
        while t:
            t, d = par[t], d + 1
        depth[s] = d
    return [Fraction(0)] * n, [Fraction(0)] + [eps ** depth[s] for s in range(1, n)]


def _payoff(tree, p, plans):
    """Player p's exact payoff when every player plays its realization plan (all players' leaves)."""
    total = Fraction(0)
    seqs = [tree.node_seq[q, tree.terminals].tolist() for q in range(tree.num_players)]
    for z in range(len(tree.terminals)):
        w = Fraction(tree.terminal_chance_exact[z]) * Fraction(tree.payoff_exact[z][p])
        for q in range(tree.num_players):
            w *= plans[q][seqs[q][z]]
        total += w
    return total


def _plans(tree, behaviour):
    """Exact realization plans of a behavioural profile (Fractions), walking parents first."""
    out = []
    for p, b in enumerate(behaviour):
        par = tree.seq_parent[p].tolist()
        x = [Fraction(1)] + [Fraction(0)] * (tree.num_sequences[p] - 1)
        for s in range(1, len(x)):
            x[s] = x[par[s]] * Fraction(b[s])
        out.append(x)
    return out


def _is_perturbed_equilibrium(tree, concept, eps, plans):
    """Every plan meets its bounds, and no player's perturbed pure strategy pays more."""
    for p in range(tree.num_players):
        beta, lam = _bounds(tree, p, concept, eps)
        if not meets_bounds(tree, p, plans[p], beta, lam):
            return False
        current = _payoff(tree, p, plans)
        for x in perturbed_pure_plans(tree, p, beta, lam):
            if _payoff(tree, p, [x if q == p else plans[q] for q in range(tree.num_players)]) > current:
                return False
    return True


def _by_key(tree, behaviour):
    out = [dict() for _ in range(tree.num_players)]
    prof = Profile([list(b) for b in behaviour])
    for i in range(sum(tree.num_infosets)):
        out[int(tree.infoset_player[i])][tree.infoset_key[i]] = [
            Fraction(v) for v in prof.action_probabilities(tree, i)
        ]
    return out


@pytest.mark.parametrize("game", ["selten_horse", "selten_fig3"])
@pytest.mark.parametrize("eps", [Fraction(1, 100), Fraction(1, 7)])
def test_perturbed_equilibrium_is_exact(game, eps):
    """EFPE-perturbed games of Selten's examples: exact at each eps, by enumeration."""
    tree = _tree(game)
    eq = solve_perturbed(tree, "efpe", eps)
    assert eq.certified, eq.reason
    assert _is_perturbed_equilibrium(tree, "efpe", eps, eq.plans)
    # a plan just off the equilibrium is not one (the enumeration can fail)
    bad = [list(x) for x in eq.plans]
    bad[0][1], bad[0][2] = bad[0][1] + eps / 10, bad[0][2] - eps / 10
    assert not _is_perturbed_equilibrium(tree, "efpe", eps, bad)


@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_selten_horse_perturbed_equilibrium_in_closed_form(concept):
    """By hand: player 0 trembles to D with eps; player 2 is indifferent when 2 P(D) = P(C, d),
    so player 1 plays d with probability 2 eps / (1 - eps), which it does only when indifferent:
    player 2 plays L with probability 1/4 (each player has one information set: both
    perturbations are the same)."""
    tree = _tree("selten_horse")
    for eps in (Fraction(1, 10), Fraction(1, 1000)):
        b = solve_perturbed(tree, concept, eps).behaviour.behaviour
        assert list(b[0]) == [1, 1 - eps, eps]
        assert list(b[1]) == [1, 1 - 2 * eps / (1 - eps), 2 * eps / (1 - eps)]
        assert list(b[2]) == [1, Fraction(1, 4), Fraction(3, 4)]


def test_selten_horse_refined_outcome_is_the_perfect_one():
    """The limit: (C, c) with player 2's L at 1/4, payoffs (1, 1, 1); a Nash equilibrium by the
    brute-force oracle; the family is a perturbed equilibrium at eps it was not fitted on."""
    game = seqform.games.selten_horse()
    sol = refinements.efpe(game)
    assert sol.certified and sol.method == "rational-limit" and sol.values == [1, 1, 1]
    b = sol.exact_profile.behaviour
    assert b[0][1] == 1 and b[1][1] == 1 and b[2][1] == Fraction(1, 4)
    assert brute_force_evaluate(game, _by_key(sol.tree, b)).nash_conv == 0
    assert sol.certificates["efpe"].holds
    lim = limit(sol.tree, "efpe")
    for eps in (sol.eps0, sol.eps0 / 3, Fraction(1, 10**6)):
        plans = [[_at(v, eps) for v in x] for x in lim.family]
        assert _is_perturbed_equilibrium(sol.tree, "efpe", eps, plans)


def _at(f, eps):
    f, e = RatFunc.of(f), flint.fmpq(eps.numerator, eps.denominator)
    v = f.num(e) / f.den(e)
    return Fraction(int(v.p), int(v.q))


def test_selten_horse_has_a_nash_equilibrium_that_is_not_perfect():
    """(D, c, L) is a Nash equilibrium (the oracle: NashConv 0) with another outcome, (3, 2, 2);
    it is not perfect: in the eps-perturbed game, near it, player 1 reaches its information set
    with probability at least eps, and c (its part of the profile) is strictly worse there than d
    (1 against 4 P(L)), so no equilibrium of a perturbed game plays c above its bound near
    (D, c, L): player 1's perturbed pure strategy d beats it at every eps and every profile of the
    others near it."""
    game = seqform.games.selten_horse()
    tree = seqform.compile_tree(game)
    nash = [[1, 0, 1], [1, 1, 0], [1, 1, 0]]  # D; c; L
    ev = brute_force_evaluate(game, _by_key(tree, nash))
    assert ev.nash_conv == 0 and ev.values == [3, 2, 2]
    rng = np.random.default_rng(0)
    for eps in (Fraction(1, 10), Fraction(1, 100), Fraction(1, 10**4)):
        for _ in range(5):
            # the others anywhere within eps of the equilibrium, inside the perturbed polytope
            d = eps + Fraction(int(rng.integers(0, 100)), 100) * eps
            near = [[1, d, 1 - d], [1, 1 - eps, eps], [1, 1 - d, d]]
            plans = _plans(tree, near)
            beta, lam = _bounds(tree, 1, "efpe", eps)
            current = _payoff(tree, 1, plans)
            gains = [
                _payoff(tree, 1, [plans[0], x, plans[2]]) - current for x in perturbed_pure_plans(tree, 1, beta, lam)
            ]
            assert max(gains) > 0
    # and the refined outcome is another one: (C, c), payoffs (1, 1, 1)
    assert refinements.qpe(game).values == [1, 1, 1]


def test_selten_fig3_limit_and_an_irrational_qpe():
    """EFPE: the limit by hand (eps -> 0 in the indifference conditions of the three players:
    player 1's L at 24/49, player 1's R at 5/8, player 2's R at 3/4), a Nash equilibrium by the
    oracle. QPE: the perturbed game's equilibrium at eps = 1/100 solves a quadratic on its
    support; the limit stops with one sentence saying so."""
    game = seqform.games.selten_fig3()
    sol = refinements.efpe(game)
    assert sol.certified
    b = sol.exact_profile.behaviour
    assert (b[0][2], b[1][1], b[2][1]) == (Fraction(24, 49), Fraction(5, 8), Fraction(3, 4))
    assert brute_force_evaluate(game, _by_key(sol.tree, b)).nash_conv == 0
    q = refinements.qpe(game)
    assert not q.certified and q.exact_profile is None and q.values is None
    assert len(q.notes) == 1 and "no rational solution" in q.notes[0] and "eps=1/100" in q.notes[0]


def test_an_irrational_perturbed_equilibrium_is_certified_in_its_field():
    """selten_fig3's QPE-perturbed game at eps = 1/100: its equilibrium solves a quadratic. It is
    certified in Q(alpha), and the enumeration of every perturbed pure strategy, computing in that
    field, finds no better one for any player."""
    tree = _tree("selten_fig3")
    eps = Fraction(1, 100)
    eq = solve_perturbed(tree, "qpe", eps)
    assert eq.certified and eq.number_field is not None and eq.number_field.degree == 2
    assert any(not v.is_rational() for x in eq.plans for v in x if hasattr(v, "is_rational"))
    assert _is_perturbed_equilibrium(tree, "qpe", eps, eq.plans)
    # a plan moved off the equilibrium by a small rational is no longer one
    nudged = [list(x) for x in eq.plans]
    nudged[1][1], nudged[1][2] = nudged[1][1] + Fraction(1, 1000), nudged[1][2] - Fraction(1, 1000)
    assert not _is_perturbed_equilibrium(tree, "qpe", eps, nudged)
    # the command's values are the field's numbers, by radicals
    sol = refinements.qpe(seqform.games.load("selten_fig3"), eps=0.01)
    assert sol.certified and "√711360049" in sol.summary()


def test_cfr_stays_in_the_perturbed_polytopes():
    tree = seqform.compile_tree(seqform.games.load("kuhn(players=3)"))
    s = NPlayerPerturbedCFRPlus(tree, "qpe", 0.05)
    s.step(20)
    plans = [seqform.model.strategy.realization_plan(tree, p, b) for p, b in enumerate(s.average_profile().behaviour)]
    for p, x in enumerate(plans):
        lam = np.array([float(v) for v in _bounds(tree, p, "qpe", Fraction(1, 20))[1]])
        assert (x[1:] >= lam[1:] - 1e-12).all()


def test_rational_functions():
    e = [Fraction(1, k) for k in range(3, 12)]
    f = interpolate(e, [(1 - 2 * x) / (1 + x * x) for x in e], 5)
    assert f.num.coeffs() == [1, -2] and f.den.coeffs() == [1, 0, 1]
    assert interpolate(e[:4], [x**5 for x in e[:4]], 1) is None
    g = RatFunc(f.num * f.num - f.den)  # (1 - 2x)^2 - (1 + x^2) = -4x + 3x^2
    r = sign_radius(g.num)
    assert g.sign() == -1 and all(_at(g, r * k / 7) < 0 for k in range(1, 8))


def test_command_line_json_and_text(capsys):
    """``seqform solve selten_horse --refine efpe``: the solve schema, the exact strategy."""
    out = run_json(capsys, "solve", "selten_horse", "--refine", "efpe", "--strategy")
    check("solve", out)
    assert out["certified"] is True and out["method"] == "rational-limit" and out["values"] == ["1", "1", "1"]
    assert out["players"] == 3 and out["nash_conv"] == "0" and Fraction(out["eps0"]) > 0
    assert out["strategy"]["strategies"][2]["infosets"][0]["actions"] == {"L": "1/4", "R": "3/4"}
    out = run_json(capsys, "solve", "selten_fig3", "--refine", "qpe")  # not rational: one sentence, no payoffs
    check("solve", out)
    assert out["certified"] is False and "values" not in out and "eps=1/100" in out["notes"][0]
    assert main(["solve", "selten_horse", "--refine", "qpe", "--eps", "0.1", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "qpe perturbed game at eps=0.1" in text and "0.9  (= 9/10, player 2)" in text


@pytest.mark.slow
@pytest.mark.parametrize("concept", ["efpe", "qpe"])
def test_three_player_kuhn(concept):
    """Three-player Kuhn poker (a minute or two each): the perturbed equilibrium at eps = 1/100
    exact, each player's payoff the optimum of the best-response LP over its perturbed polytope
    (scipy, the test oracle); the limit certified (rational functions of eps: degree 17 for EFPE,
    10 for QPE), a Nash equilibrium by the brute-force oracle."""
    from tests.oracle.perturbed_best_response_lp import lp_best_response_value

    game = seqform.games.load("kuhn(players=3)")
    tree = seqform.compile_tree(game)
    eps = Fraction(1, 100)
    eq = solve_perturbed(tree, concept, eps)
    assert eq.certified, eq.reason
    seqs = [tree.node_seq[q, tree.terminals].tolist() for q in range(3)]
    for p in range(3):
        g = np.zeros(tree.num_sequences[p])
        for z in range(len(tree.terminals)):
            w = float(tree.terminal_chance_exact[z]) * float(tree.payoff_exact[z][p])
            g[seqs[p][z]] += w * np.prod([float(eq.plans[q][seqs[q][z]]) for q in range(3) if q != p])
        beta, lam = _bounds(tree, p, concept, eps)
        best = lp_best_response_value(tree, p, g, [float(v) for v in beta], [float(v) for v in lam])
        assert abs(best - float(_payoff(tree, p, eq.plans))) < 1e-9
    sol = refinements.refine(game, concept)
    assert sol.certified and sol.certificates[concept].holds, sol.notes
    ev = brute_force_evaluate(game, _by_key(sol.tree, sol.exact_profile.behaviour))
    assert ev.nash_conv == 0 and ev.values == sol.values


def test_definition_tests_agree_with_the_two_player_ones_and_can_fail():
    """``nplayerdefinition`` against ``definitioncertificate`` (two players, written separately)
    on Kuhn's and selten_fig2's trembling-LP families; and on a family converging to Selten's
    horse's (D, c, L), which is not perfect: player 1's c loses to d."""
    from refinements.nplayerdefinition import certify_efpe, certify_qpe

    for name in ("kuhn", "selten_fig2"):
        sol = refinements.qpe(seqform.games.load(name))
        plans = [
            [RatFunc(flint.fmpq_poly([flint.fmpq(c.numerator, c.denominator) for c in col])) for col in zip(*ser)]
            for ser in sol.series
        ]
        for mine, theirs in ((certify_efpe, "efpe"), (certify_qpe, "qpe")):
            got = mine(sol.tree, plans)
            assert got.holds == sol.certificates[theirs].holds and got.checked == sol.certificates[theirs].checked
    tree = _tree("selten_horse")
    e = RatFunc(flint.fmpq_poly([0, 1]))
    toward = [[1, e, 1 - e], [1, 1 - e, e], [1, 1 - e, e]]  # D; c; L
    cert = certify_efpe(tree, toward)
    assert not cert.holds and cert.failures[0][1:] == ("c", "d")


def test_a_wrong_family_is_refused():
    """The identity check in Q(eps) fails for a family off by a term of order eps^3."""
    from refinements.nplayerlimit import verify_family

    tree = _tree("selten_horse")
    lim = limit(tree, "efpe")
    system = lim.perturbed[0].system
    fam = list(lim.unknowns)
    eps0, why = verify_family(system, fam)
    assert eps0 == lim.eps0 and not why
    j = system.xcol[1][2]  # player 1's d
    fam[j] = fam[j] + RatFunc(flint.fmpq_poly([0, 0, 0, 1]))
    eps0, why = verify_family(system, fam)
    assert eps0 is None and "does not hold identically" in why

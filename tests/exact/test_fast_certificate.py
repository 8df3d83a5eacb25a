"""The certificate's vectorised integer arithmetic (``seqform.exact.integerplans``,
``SequenceForm.A_integer``, ``scaled_best_response_value``) against references written here from
the definitions, in Fractions, leaf by leaf:

* the payoff matrix: ``A[s0, s1] = sum over leaves of chance * payoff``;
* ``lower = min over pure plans y' of x^T A y'`` and ``upper = max over pure plans x' of x'^T A y``,
  by enumerating every pure strategy (a linear function's optimum over the realization-plan
  polytope is at a vertex, and the vertices are the pure strategies' plans);
* plan checks by the definition of a realization plan.

Random games and random exact profiles (some information sets unreached), with payoffs of every
kind (rationals, integers up to 10^300: the int64 and the Python-int paths), and the fallbacks
(plans or payoffs with unrelated denominators kept as fmpq) forced by lowering their thresholds.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import seqform
import seqform.exact.integerplans as integerplans
import seqform.lp.sequenceform as sequenceform
from seqform.errors import CertificateError
from seqform.exact.certificate import ExactSequenceForm, certify, certify_plans, check_plan, exact_bracket
from seqform.exact.exactbestresponse import exact_backward_pass, scaled_best_response_value
from seqform.exact.rationals import common_denominator
from seqform.lp.sequenceform import exact_payoff_entries, sequence_form
from seqform.lp.zerosumlp import solve_lp
from seqform.model.tree import Tree, compile_tree
from tests.strategies import random_games


def leaf_entries(tree, p: int, shift=0) -> dict:
    """``A``'s nonzeros from the definition, in the order of each entry's first nonzero leaf."""
    acc: dict = {}
    for i, node in enumerate(tree.terminals.tolist()):
        v = Fraction(tree.terminal_chance_exact[i]) * (Fraction(tree.payoff_exact[i][p]) - shift)
        if v:
            key = (int(tree.node_seq[0, node]), int(tree.node_seq[1, node]))
            acc[key] = acc.get(key, 0) + v
    return {k: v for k, v in acc.items() if v != 0}


def sequence_payoffs(tree, plan: list, p: int) -> list:
    """Player 0's payoff per sequence of player ``p`` against the other player's ``plan``: the sum
    over leaves of chance * u_0 * plan[the other's sequence]."""
    g = [Fraction(0)] * tree.num_sequences[p]
    for i, node in enumerate(tree.terminals.tolist()):
        s = int(tree.node_seq[p, node])
        o = int(tree.node_seq[1 - p, node])
        g[s] += Fraction(tree.terminal_chance_exact[i]) * Fraction(tree.payoff_exact[i][0]) * Fraction(plan[o])
    return g


def pure_plans(tree, p: int):
    """Every pure strategy of player ``p`` as a realization plan (0/1 per sequence)."""
    first, nact = tree.infoset_first_seq, tree.infoset_num_actions
    ids = tree.player_infosets[p].tolist()
    par = tree.seq_parent[p].tolist()
    for pick in itertools.product(*[range(int(first[i]), int(first[i] + nact[i])) for i in ids]):
        chosen = set(pick)
        x = [1] + [0] * (tree.num_sequences[p] - 1)
        for s in range(1, len(x)):  # a parent sequence has a smaller id
            x[s] = x[par[s]] if s in chosen else 0
        yield x


def reference_bracket(tree, x: list, y: list) -> tuple[Fraction, Fraction]:
    g1 = sequence_payoffs(tree, x, 1)
    g0 = sequence_payoffs(tree, y, 0)
    lower = min(sum(a * b for a, b in zip(g1, yp)) for yp in pure_plans(tree, 1))
    upper = max(sum(a * b for a, b in zip(g0, xp)) for xp in pure_plans(tree, 0))
    return lower, upper


def random_plan(tree, p: int, rng: random.Random, den: int = 0) -> list:
    """A random exact realization plan: small integer weights at each information set (some
    zero, leaving parts unreached); with ``den``, weights over unrelated denominators near it."""
    b: list = [Fraction(1)] * tree.num_sequences[p]
    for i in tree.player_infosets[p].tolist():
        f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
        w = [Fraction(rng.randint(0, 4), rng.randint(den, 2 * den) if den else 1) for _ in range(k)]
        if not any(w):
            w[rng.randrange(k)] = Fraction(1)
        b[f : f + k] = [v / sum(w) for v in w]
    x = [Fraction(1)] * len(b)
    par = tree.seq_parent[p].tolist()
    for s in range(1, len(x)):
        x[s] = x[par[s]] * b[s]
    return x


def bracket_of(tree, x, y) -> tuple:
    bad, lo, up = exact_bracket(tree, ExactSequenceForm(sequence_form(tree)), x, y)
    assert bad == ""
    return Fraction(int(lo.p), int(lo.q)), Fraction(int(up.p), int(up.q))


GAMES = random_games(payoffs="mixed") | random_games(payoffs="rational") | random_games(payoffs="wide")


@given(GAMES, st.randoms(use_true_random=False), st.booleans())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_bracket_and_payoffs_match_the_definitions(game, rng, levels):
    tree = compile_tree(game)
    x, y = random_plan(tree, 0, rng), random_plan(tree, 1, rng)
    with pytest.MonkeyPatch.context() as mp:
        if levels:  # small games take the scalar pass: force the one-step-per-level pass too
            mp.setattr(Tree, "is_narrow", lambda self, p: False)
        sf = sequence_form(tree)
        rows, cols, vals = sf.A_exact
        assert dict(zip(zip(rows.tolist(), cols.tolist()), vals)) == leaf_entries(tree, 0)
        ex = ExactSequenceForm(sf)
        assert ex.player1_payoffs(x) == [flint.fmpq(v.numerator, v.denominator) for v in sequence_payoffs(tree, x, 1)]
        assert ex.player0_payoffs(y) == [flint.fmpq(v.numerator, v.denominator) for v in sequence_payoffs(tree, y, 0)]
        want = reference_bracket(tree, x, y)
        assert bracket_of(tree, x, y) == want
        # the same plans as fmpq, and as ints where integral: the same numbers
        xq = [v.numerator if v.denominator == 1 else flint.fmpq(v.numerator, v.denominator) for v in x]
        assert bracket_of(tree, xq, y) == want
        cert = certify_plans(sf, x, y, "test")
        assert (cert.lower, cert.upper) == want and cert.certified == (want[0] == want[1])
        assert cert.exploitability == (want[1] - want[0]) / 2 and cert.x == x and cert.y == y


@given(GAMES, st.integers(0, 1), st.sampled_from([0, 3, Fraction(-7, 3)]))
@settings(max_examples=40, deadline=None)
def test_payoff_entries_match_the_leaves_in_order(game, p, shift):
    tree = compile_tree(game)
    got = exact_payoff_entries(tree, p, shift)
    want = leaf_entries(tree, p, shift)
    assert list(got.items()) == list(want.items())
    assert all(type(v) is int or (type(v) is Fraction and v.denominator > 1) for v in got.values())


@given(GAMES, st.randoms(use_true_random=False))
@settings(max_examples=30, deadline=None)
def test_fallbacks_to_fmpq_give_the_same_bracket(game, rng):
    tree = compile_tree(game)
    x, y = random_plan(tree, 0, rng, den=1000), random_plan(tree, 1, rng, den=1000)
    want = reference_bracket(tree, x, y)
    # a sequence form that offers only A_exact (as one built without a game tree does)
    sf = sequence_form(tree)
    sf.__dict__["A_integer"] = None
    bad, lo, up = exact_bracket(tree, ExactSequenceForm(sf), x, y)
    assert bad == "" and (lo, up) == tuple(flint.fmpq(v.numerator, v.denominator) for v in want)
    with pytest.MonkeyPatch.context() as mp:
        # plans over unrelated denominators stay fmpq; payoffs too (A_exact's leaf-by-leaf sums)
        mp.setattr(integerplans, "MAX_COMMON_DENOMINATOR_BITS", 1)
        mp.setattr(sequenceform, "MAX_DENOMINATOR_BITS", 0)
        sf = sequence_form(tree)
        assert sf.A_integer is None
        assert list(exact_payoff_entries(tree, 0).items()) == list(leaf_entries(tree, 0).items())
        assert bracket_of(tree, x, y) == want
        for plan in (x, y):
            if any(Fraction(v).denominator > 1 for v in plan):
                assert integerplans.scaled_vector(plan).nums.dtype == object
                assert integerplans.scaled_vector(plan).den == 1


def test_common_denominator():
    assert common_denominator([Fraction(1, 6), 2, flint.fmpq(3, 4), Fraction(-5, 6)]) == ([2, 24, 9, -10], 12)
    assert common_denominator([]) == ([], 1)
    assert common_denominator([Fraction(1, 3), Fraction(1, 5), Fraction(1, 7)], max_bits=6) is None
    assert common_denominator([Fraction(1, 3), Fraction(1, 5), Fraction(1, 7)], max_bits=7) == ([35, 21, 15], 105)


def test_best_response_leaves_int64_before_it_could_overflow():
    tree = compile_tree(seqform.games.load("leduc"))
    rng = random.Random(5)
    for p in range(2):
        n = tree.num_sequences[p]
        for big in (1, 2**40, 2**58, 2**62 - 1):
            g = np.array([rng.randint(-big, big) for _ in range(n)], dtype=np.int64)
            want = exact_backward_pass(tree, p, [flint.fmpq(int(v)) for v in g]).value_best
            assert scaled_best_response_value(tree, p, g) == want
            assert scaled_best_response_value(tree, p, g.astype(object)) == want


def test_kuhn_value_and_mutated_plans():
    tree = compile_tree(seqform.games.load("kuhn"))
    sf = sequence_form(tree)
    cert = certify(sf, solve_lp(sf))
    assert cert.certified and cert.value == Fraction(-1, 18) and cert.method == "basis"
    again = certify_plans(sequence_form(tree), cert.x, cert.y, "again")
    assert again.certified and again.value == Fraction(-1, 18)
    x, y = cert.x, cert.y
    s = next(s for s in range(1, len(x)) if x[s] > 0)
    more = list(x)
    more[s] += Fraction(1, 10**30)
    assert "does not conserve flow" in check_plan(tree, 0, more)
    with pytest.raises(CertificateError, match="mutant: player 0's plan does not conserve flow"):
        certify_plans(sf, more, y, "mutant")
    neg = list(y)
    neg[-1] = Fraction(-1, 3)
    assert check_plan(tree, 1, neg) == f"player 1's plan is negative (-1/3) at sequence {len(y) - 1}"
    assert check_plan(tree, 0, [Fraction(2)] + x[1:]) == "player 0's plan has x[empty] = 2, not 1"
    assert "entries" in check_plan(tree, 0, x[:-1])
    # a valid plan far from optimal: the uniform strategy, which the best response exploits
    uniform = [Fraction(1)] * len(x)
    for s in range(1, len(x)):
        k = int(tree.infoset_num_actions[tree.seq_infoset[0][s]])
        uniform[s] = uniform[int(tree.seq_parent[0][s])] / k
    assert check_plan(tree, 0, uniform) == ""
    lo, up = bracket_of(tree, uniform, y)
    assert (lo, up) == reference_bracket(tree, uniform, y)
    assert lo < Fraction(-1, 18) == up


def test_leduc_bracket_matches_the_fmpq_passes():
    """Leduc's levels are wide (the vectorised pass, not the scalar one): the bracket of random
    exact plans against ``exact_backward_pass`` (fmpq, one information set at a time) on
    sequence payoffs summed leaf by leaf."""
    tree = compile_tree(seqform.games.load("leduc"))
    assert not tree.is_narrow(0) and not tree.is_narrow(1)
    rng = random.Random(3)
    x, y = random_plan(tree, 0, rng), random_plan(tree, 1, rng)
    q = [flint.fmpq(v.numerator, v.denominator) for v in sequence_payoffs(tree, x, 1)]
    lower = -exact_backward_pass(tree, 1, [-v for v in q]).value_best
    g0 = [flint.fmpq(v.numerator, v.denominator) for v in sequence_payoffs(tree, y, 0)]
    upper = exact_backward_pass(tree, 0, g0).value_best
    bad, lo, up = exact_bracket(tree, ExactSequenceForm(sequence_form(tree)), x, y)
    assert bad == "" and (lo, up) == (lower, upper) and lo < up


@pytest.mark.slow  # the default tier checks Leduc's bracket the same way
def test_leduc_5_ranks_certificate_matches_the_fmpq_passes():
    """Leduc with 5 ranks (32,760 leaves): the LP's certified value, and the bracket of its exact
    plans slightly perturbed, against ``exact_backward_pass`` on sequence payoffs summed leaf by
    leaf in Fractions."""
    tree = compile_tree(seqform.games.load("leduc(ranks=5)"))
    sf = sequence_form(tree)
    cert = certify(sf, solve_lp(sf))
    assert cert.certified and cert.method == "basis"
    rng = random.Random(7)
    x = [(v + w) / 2 for v, w in zip(cert.x, random_plan(tree, 0, rng))]  # a mixture: still a plan
    q = [flint.fmpq(v.numerator, v.denominator) for v in sequence_payoffs(tree, x, 1)]
    lower = -exact_backward_pass(tree, 1, [-v for v in q]).value_best
    g0 = [flint.fmpq(v.numerator, v.denominator) for v in sequence_payoffs(tree, cert.y, 0)]
    upper = exact_backward_pass(tree, 0, g0).value_best
    assert Fraction(int(upper.p), int(upper.q)) == cert.value
    out = certify_plans(sequence_form(tree), x, cert.y, "mixture")
    assert (out.lower, out.upper) == (Fraction(int(lower.p), int(lower.q)), cert.value)
    assert out.lower < out.upper

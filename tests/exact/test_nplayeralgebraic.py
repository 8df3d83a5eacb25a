"""Equilibria with irrational probabilities (``seqform.exact.nplayeralgebraic``): found as real
algebraic numbers and certified in their number field; checked by the brute-force oracle run in
that field (pure strategies enumerated, every sum and comparison exact in Q(alpha)), and by pygambit's
enumpoly as a peer."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import seqform
from seqform.exact.algebraic import AlgebraicNumber, FieldElement
from seqform.exact.nplayerpolish import polish
from seqform.io.efgread import parse_efg
from seqform.model.strategy import Profile
from tests.exact.test_nplayerpolish import _irrational_game
from tests.oracle.brute_force_nplayer import brute_force_evaluate


def by_key(tree, behaviour: list) -> list:
    """Per player {information-set key: probabilities} (any number type) for the oracle."""
    out = []
    for p in range(tree.num_players):
        d = {}
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            d[tree.infoset_key[i]] = list(behaviour[p][f : f + k])
        out.append(d)
    return out


def _polished(tree, start) -> object:
    res = polish(tree, start)
    assert res.status == "certified", res.reason
    assert res.profile is None and res.algebraic is not None and res.nash_conv == 0
    return res.algebraic


def test_one_over_sqrt2_is_certified_in_its_field():
    """Three players; A pays 1 when both others play A, B pays 1/2: the mixed equilibrium plays A
    with probability 1/sqrt(2) (each player indifferent when q r = 1/2)."""
    g = _irrational_game()
    t = seqform.compile_tree(g)
    q = 2**-0.5 + 1e-4
    eq = _polished(t, Profile([np.array([1.0, q, 1 - q])] * 3))
    assert eq.field.degree == 2
    for b in eq.behaviour:
        num = b[1].number()
        assert isinstance(num, AlgebraicNumber) and num.minimal_polynomial == (-1, 0, 2)  # 2x^2 - 1
        assert float(num.lo) < 2**-0.5 < float(num.hi)
        assert b[1] * b[1] == Fraction(1, 2)  # exactly
    # the oracle, every sum and comparison exact in Q(sqrt 2): NashConv exactly 0
    ev = brute_force_evaluate(g, by_key(t, eq.behaviour))
    assert ev.nash_conv == 0
    assert all(v == Fraction(1, 2) for v in ev.values)


def test_nau2004_unique_equilibrium():
    """Nau, Gomez Canovas & Hansen (2004), section 4: the game's only equilibrium is irrational."""
    g = seqform.games.load("nau2004")
    t = seqform.compile_tree(g)
    sol = seqform.solve(g)
    eq = sol.algebraic
    assert sol.certified and eq is not None and sol.nash_conv == 0
    assert any(isinstance(x, FieldElement) and not x.is_rational() for b in eq.behaviour for x in b)
    ev = brute_force_evaluate(g, by_key(t, eq.behaviour))
    assert ev.nash_conv == 0  # exact, in Q(sqrt 601)
    # the values users see are the oracle's, as algebraic numbers
    for v, w in zip(sol.values, ev.values):
        assert isinstance(v, AlgebraicNumber) and w.number() == v
    # the indifference conditions of the completely mixed equilibrium, written by hand from the
    # payoff table (p = P(T), q = P(L), r = P(W)), hold exactly in Q(alpha)
    p, q, r = eq.behaviour[0][1], eq.behaviour[1][1], eq.behaviour[2][1]
    assert q * (1 + 2 * r) == (1 - q) * (2 - r)  # player 0: T against B
    assert (1 - p) * (3 - 2 * r) == p * (1 + r)  # player 1: L against R
    assert 2 * p * q == 3 * (1 - p) * (1 - q)  # player 2: W against E
    assert abs(float(p) - (53 - math.sqrt(601)) / 46) < 1e-15  # the closed form the summary prints
    assert seqform.evaluate(t, sol.profile).nash_conv < 1e-12  # the float profile the JSON's strategy holds


def test_nau2004_matches_enumpoly():
    gbt = pytest.importorskip("pygambit")
    game = gbt.catalog.load("journals/ijgt/nau2004/sec4")
    eqs = gbt.nash.enumpoly_solve(game).equilibria
    assert len(eqs) == 1  # the paper's unique equilibrium
    sol = seqform.solve(seqform.games.load("nau2004"))
    ours = [[float(x) for x in b[1:]] for b in sol.algebraic.behaviour]
    theirs = [[float(eqs[0][s]) for s in pl.strategies] for pl in game.players]
    assert np.allclose(ours, theirs, atol=1e-9)


def test_no_field_found_stops_with_what_was_found(monkeypatch):
    import seqform.exact.nplayeralgebraic as alg

    monkeypatch.setattr(alg, "MAX_DEGREE", 1)  # a field of degree 1 only: the rationals
    t = seqform.compile_tree(_irrational_game())
    q = 2**-0.5 + 1e-4
    res = polish(t, Profile([np.array([1.0, q, 1 - q])] * 3))
    assert res.status == "failed" and res.profile is None and res.algebraic is None
    assert "no rational solution" in res.reason or "algebraic" in res.reason
    assert any("as algebraic numbers" in line for line in res.log)
    for b in res.approximate.behaviour:
        assert abs(b[1] - 2**-0.5) < 1e-12


def _two_fields_game():
    """Chance picks one of two copies of the game above (each with probability 1/2), every player
    told which: B pays 1/2 in the first and 1/3 in the second, so the mixed equilibrium plays A
    with probability 1/sqrt(2) in the first and 1/sqrt(3) in the second: Q(sqrt 2, sqrt 3), of
    degree 4, generated by no single probability."""
    lines = ['EFG 2 R "two fields" { "1" "2" "3" }', 'c "" 1 "" { "x" 1/2 "y" 1/2 } 0']
    for part, b in ((1, "1/2"), (2, "1/3")):
        lines.append(f'p "" 1 {part} "" {{ "A" "B" }} 0')
        for a1 in range(2):
            lines.append(f'p "" 2 {part} "" {{ "A" "B" }} 0')
            for a2 in range(2):
                lines.append(f'p "" 3 {part} "" {{ "A" "B" }} 0')
                for a3 in range(2):
                    a = (a1, a2, a3)
                    u = [b if a[i] else ("1" if sum(a) == 0 else "0") for i in range(3)]
                    lines.append(f't "" {len(lines)} "" {{ {", ".join(u)} }}')
    return parse_efg("\n".join(lines) + "\n")


def test_two_quadratic_fields_join_in_a_primitive_element():
    g = _two_fields_game()
    t = seqform.compile_tree(g)
    q2, q3 = 2**-0.5 + 1e-4, 3**-0.5 - 1e-4
    eq = _polished(t, Profile([np.array([1.0, q2, 1 - q2, q3, 1 - q3])] * 3))
    assert eq.field.degree == 4
    for b in eq.behaviour:
        assert b[1] * b[1] == Fraction(1, 2) and b[3] * b[3] == Fraction(1, 3)
    assert brute_force_evaluate(g, by_key(t, eq.behaviour)).nash_conv == 0

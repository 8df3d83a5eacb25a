"""Exact best responses over the public tree (``lossless.publicbestresponse``) against the exact
best responses on the compiled ORIGINAL game tree (``seqform.evaluate`` with exact arithmetic) of
the same lifted profile: for ``lossless.solve``'s certified equilibria, for random rational
profiles (not equilibria: the bracket is then strict), and for random games with ordered
signals, weighted decks included (a dense table of deal probabilities instead of the sorted
prefix sums). The tree's evaluation shares no code with the public-tree walk.
"""

import dataclasses
import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lossless
import lossless.publicbestresponse as pbr
from lossless import OrderedSignalGame
from lossless.errors import AbstractionError
from lossless.publicbestresponse import (
    exact_bracket_original,
    original_bracket,
    plans_from_layout,
    plans_from_tree,
    unsupported_reason,
)
from lossless.sequencelayout import sequence_layout
from seqform.model.strategy import Profile
from seqform.model.tree import Tree, compile_tree
from seqform.verify.evaluate import evaluate
from tests.lossless.test_shrink_random import betting_trees

SMALL = [lossless.four_card(), lossless.leduc_os(), lossless.leduc_os(4, 2), lossless.rhode_island(2, 2)]


def random_profile(tree, rng: random.Random) -> Profile:
    """Random rational behaviour at every information set: small integer weights (zeros too, so
    some sets are never reached), normalised exactly."""
    out = []
    for p in range(tree.num_players):
        b = [Fraction(1)] * tree.num_sequences[p]
        for m in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
            w = [rng.randint(0, 3) for _ in range(k)]
            if sum(w) == 0:
                w[rng.randrange(k)] = 1
            b[f : f + k] = [Fraction(x, sum(w)) for x in w]
        out.append(b)
    return Profile(out)


def tree_best_responses(game, sh, abstract_tree, profile) -> tuple:
    """Both players' exact best-response payoffs to the lifted profile, on the original tree."""
    original = compile_tree(game)
    ev = evaluate(original, sh.abstract.lift(profile, abstract_tree, original), exact=True)
    return tuple(ev.values[p] + ev.gains[p] for p in range(2)), ev


@pytest.mark.parametrize("game", SMALL, ids=lambda g: g.name)
def test_certified_equilibrium_matches_the_tree(game):
    res = lossless.solve(game)
    assert res.certified
    sh = res.shrunk
    abstract_tree = compile_tree(sh.abstract)
    prof = res.abstract_solution.exact_profile
    br = exact_bracket_original(sh.abstraction, abstract_tree, prof)
    ref, ev = tree_best_responses(game, sh, abstract_tree, prof)
    assert br.best_response == ref
    assert br.lower == br.upper == res.value == ev.values[0]
    assert br.exploitability == ev.exploitability == res.exploitability == 0


@pytest.mark.parametrize(
    "game, arithmetic",
    [(g, "auto") for g in SMALL] + [(g, "python ints") for g in SMALL[:3]],
    ids=lambda x: getattr(x, "name", x),
)
def test_random_profiles_match_the_tree(game, arithmetic, monkeypatch):
    if arithmetic == "python ints":  # no bound is small enough: the object-array path
        monkeypatch.setattr(pbr, "_INT64_SAFE", 0)
    sh = lossless.shrink(game)
    abstract_tree = compile_tree(sh.abstract)
    for seed in range(2):
        prof = random_profile(abstract_tree, random.Random(seed))
        br = exact_bracket_original(sh.abstraction, abstract_tree, prof)
        ref, ev = tree_best_responses(game, sh, abstract_tree, prof)
        assert br.best_response == ref
        assert br.exploitability == ev.exploitability
        assert br.lower < br.upper  # a random profile is no equilibrium
        if arithmetic == "python ints":
            assert br.arithmetic == ("python ints", "python ints")


def test_layout_behaviours_give_the_same_plans_as_the_tree():
    """``plans_from_layout`` (no abstract tree) and ``plans_from_tree`` agree on one profile."""
    game = lossless.leduc_os()
    sh = lossless.shrink(game)
    layout = sequence_layout(sh.abstraction)
    abstract_tree = compile_tree(sh.abstract)
    rng = random.Random(7)
    beh = [[Fraction(rng.randint(0, 3)) for _ in range(layout.num_sequences[i])] for i in range(2)]
    # the same behaviours on the compiled abstract game, through its keys (point, class, node)
    out = []
    for p in range(2):
        b = [Fraction(1)] * abstract_tree.num_sequences[p]
        for m in abstract_tree.player_infosets[p].tolist():
            _, c, v = abstract_tree.infoset_key[m]
            f, k = int(abstract_tree.infoset_first_seq[m]), int(abstract_tree.infoset_num_actions[m])
            w = [beh[p][layout.base[v, a] + c] for a in range(k)]
            b[f : f + k] = [x / sum(w) for x in w] if sum(w) else [Fraction(1, k)] * k
        out.append(b)
    by_layout = original_bracket(sh.abstraction, plans_from_layout(layout, beh))
    by_tree = original_bracket(sh.abstraction, plans_from_tree(sh.abstraction, abstract_tree, Profile(out)))
    assert by_layout.best_response == by_tree.best_response
    ref, _ = tree_best_responses(game, sh, abstract_tree, Profile(out))
    assert by_layout.best_response == ref


@st.composite
def one_card_games(draw):
    """Random games with ordered signals that deal one private card each before the first
    betting, any public cards per round, random betting and hand order, weighted decks or not."""
    num_rounds = draw(st.integers(1, 2))
    ranks, suits = draw(st.integers(2, 3)), draw(st.integers(1, 2))
    deck = [f"{r}{s}" for r in range(ranks) for s in range(suits)]
    public = [draw(st.integers(0, 2)) for _ in range(num_rounds)]  # boards dealt in order, several a round
    while 2 + sum(public) > len(deck):
        public[public.index(max(public))] -= 1
    weights = draw(st.one_of(st.none(), st.lists(st.integers(1, 3), min_size=len(deck), max_size=len(deck))))
    seed = draw(st.integers(0, 10**6))

    def rank(cards: tuple) -> int:
        return hash((seed, tuple(sorted(c // suits for c in cards)))) % 3

    return OrderedSignalGame(
        deck,
        [(1, 1)] + [(0, 0)] * (num_rounds - 1),
        public,
        draw(betting_trees(num_rounds)),
        rank,
        weights=None if weights is None else [Fraction(w) for w in weights],
        name=f"random(seed={seed})",
    )


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(one_card_games(), st.integers(0, 10**6))
def test_random_games_random_profiles_match_the_tree(game, seed):
    assert unsupported_reason(game) is None
    sh = lossless.shrink(game)
    abstract_tree = compile_tree(sh.abstract)
    prof = random_profile(abstract_tree, random.Random(seed))
    br = exact_bracket_original(sh.abstraction, abstract_tree, prof)
    ref, ev = tree_best_responses(game, sh, abstract_tree, prof)
    assert br.best_response == ref
    assert br.exploitability == ev.exploitability


def test_equal_weights_dense_table_agrees_with_the_sorted_prefix_sums():
    """A deck whose weights are all equal is the usual deck: the dense deal table (weighted path)
    and the sorted prefix sums (uniform path) must give the same exact values, on a game whose
    tree is larger than the other tests build."""
    plain = lossless.rhode_island(3, 3)
    weighted = OrderedSignalGame(
        plain.deck, plain.private, plain.public, plain.betting, plain.rank, weights=[2] * len(plain.deck)
    )
    sh = lossless.shrink(plain)
    layout = sequence_layout(sh.abstraction)
    rng = random.Random(3)
    beh = [[Fraction(rng.randint(0, 2)) for _ in range(layout.num_sequences[i])] for i in range(2)]
    plans = plans_from_layout(layout, beh)
    a = original_bracket(sh.abstraction, plans)
    # the same classes (so the same lifted profile), the weighted game's chance
    b = original_bracket(dataclasses.replace(sh.abstraction, game=weighted), plans)
    assert a.best_response == b.best_response and a.lower < a.upper


def test_other_deals_are_refused_in_one_line():
    bet = lossless.leduc_os().betting
    late = OrderedSignalGame(["a", "b", "c"], [(1, 0), (0, 1)], [0, 1], bet, lambda cs: cs, name="late")
    why = unsupported_reason(late)
    assert why is not None and "\n" not in why and "one private card" in why
    sh = lossless.shrink(late)
    tree = compile_tree(sh.abstract)
    with pytest.raises(AbstractionError, match="one private card"):
        exact_bracket_original(sh.abstraction, tree, random_profile(tree, random.Random(0)))
    # lossless.solve falls back to the original tree and still certifies
    res = lossless.solve(late)
    assert res.certified and res.original_tree is not None


def test_solve_builds_the_original_tree_only_when_read():
    game = lossless.leduc_os(4, 2)
    res = lossless.solve(game)
    assert res.certified and res.exploitability == 0
    assert not isinstance(res.__dict__["_original_tree"], Tree)  # not built by the certificate
    counted = dict(res.sizes)
    tree = res.original_tree
    assert counted == tree.sizes()
    assert res.tree is tree and res.profile is res.exact_profile
    ev = evaluate(tree, res.profile, exact=True)
    assert ev.exploitability == 0 and ev.values[0] == res.value


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_rhode_island_3_2_certified_equilibrium_matches_the_tree():
    test_certified_equilibrium_matches_the_tree(lossless.rhode_island(3, 2))


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_rhode_island_4_4_is_certified_without_its_tree():
    """The abstract LP takes minutes of HiGHS here; the original tree (45 million nodes) is never
    built."""
    res = lossless.solve(lossless.rhode_island(4, 4))
    assert res.certified and res.exploitability == 0
    assert not isinstance(res.__dict__["_original_tree"], Tree)  # never built
    print(f"rhode_island(4,4) solved and certified: {res.seconds}")

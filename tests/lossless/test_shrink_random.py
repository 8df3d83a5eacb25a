"""Random games with ordered signals (hypothesis): GameShrink preserves the value exactly and the
lifted equilibrium is certified in the original game.

The games vary what GameShrink's test must get right: decks with repeated ranks and suits, and
weighted decks (unequal probabilities, so the matching must respect them); one or two rounds;
private cards for one or both players and public cards; random betting trees (random movers,
two or three actions, folds, round ends, showdowns with random payoffs per outcome); random hand
orders with many ties. The reference is the original game's certified LP, solved without any
abstraction.
"""

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import seqform
from lossless import BettingBuilder, OrderedSignalGame, shrink, solve
from lossless.betting import DECIDE, FOLD, NEXT, SHOWDOWN, outcomes
from seqform.model.tree import compile_tree
from seqform.verify.evaluate import evaluate


@st.composite
def betting_trees(draw, num_rounds: int):
    """A random two-player zero-sum betting form over ``num_rounds`` rounds."""
    b = BettingBuilder(2, num_rounds)
    pay = st.integers(-3, 3)

    def grow(rnd: int, depth: int, name: str) -> int:
        last = rnd + 1 == num_rounds
        choices = ["decide"] if depth == 0 else ["decide", "end", "fold"]
        what = draw(st.sampled_from(choices)) if depth < 3 else draw(st.sampled_from(["end", "fold"]))
        if what == "fold":
            u = draw(pay)
            return b.add(FOLD, rnd, name + "f", payoff=(u, -u))
        if what == "end":
            if last:
                table = {}
                for o in outcomes(2):
                    u = draw(pay)
                    table[o] = (u, -u)
                return b.add(SHOWDOWN, rnd, name + "s", payoff=table)
            v = b.add(NEXT, rnd, name + "/")
            b.link(v, grow(rnd + 1, 0, name + "/"))
            return v
        k = draw(st.integers(2, 3))
        v = b.add(DECIDE, rnd, name, player=draw(st.integers(0, 1)), actions=[f"a{t}" for t in range(k)])
        for t in range(k):
            b.link(v, grow(rnd, depth + 1, name + f"a{t}"))
        return v

    grow(0, 0, "")
    return b.build()


@st.composite
def ordered_signal_games(draw):
    num_rounds = draw(st.integers(1, 2))
    ranks, suits = draw(st.integers(2, 3)), draw(st.integers(1, 2))
    deck = [f"{r}{s}" for r in range(ranks) for s in range(suits)]
    private, public = [], []
    for r in range(num_rounds):
        private.append((draw(st.integers(0, 1)), draw(st.integers(0, 1))) if r == 0 else (0, draw(st.integers(0, 1))))
        public.append(draw(st.integers(0, 1)))
    dealt = sum(sum(p) for p in private) + sum(public)
    if dealt == 0 or dealt > len(deck):
        private, public = [(1, 1)] + [(0, 0)] * (num_rounds - 1), [0] * num_rounds
    weights = draw(st.one_of(st.none(), st.lists(st.integers(1, 3), min_size=len(deck), max_size=len(deck))))
    seed = draw(st.integers(0, 10**6))
    levels = 3  # few distinct hand values: many ties and many isomorphic pieces

    def rank(cards: tuple) -> int:
        # a random total preorder on hands, determined by the ranks of the cards (suits ignored)
        return hash((seed, tuple(sorted(c // suits for c in cards)))) % levels

    return OrderedSignalGame(
        deck,
        private,
        public,
        draw(betting_trees(num_rounds)),
        rank,
        weights=None if weights is None else [Fraction(w) for w in weights],
        name=f"random(seed={seed})",
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ordered_signal_games())
def test_random_games_value_preserved_and_lift_certified(game):
    original = seqform.solve(game, method="simplex", abstraction=False)
    assert original.certified
    # seqform.solve's own path through the abstraction (the game declares its ordered signals):
    # the abstract LP built from the classes, its basis solved exactly, the lifted plans certified
    through = seqform.solve(game, method="simplex", abstraction=True)
    assert through.method == "abstraction-lp-simplex"
    assert through.certified and through.value == original.value
    res = solve(game, method="simplex")
    assert res.certified, res.abstract_solution.certificate.note
    assert res.value == original.value
    ev = evaluate(res.original_tree, res.profile, exact=True)
    assert ev.exploitability == 0 and ev.values[0] == original.value


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ordered_signal_games())
def test_random_games_sizes_match_the_built_games(game):
    sh = shrink(game)
    for part, tree in (("before", compile_tree(game)), ("after", compile_tree(sh.abstract))):
        assert sh.sizes[part]["game_tree_nodes"] == tree.num_nodes
        assert sh.sizes[part]["infosets"] == list(tree.num_infosets)
        assert sh.sizes[part]["sequences"] == list(tree.num_sequences)

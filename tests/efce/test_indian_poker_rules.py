"""Indian poker's rule variants (``indian_poker(cards, uncalled=...)``) against a hand-written pot
computation, walked over every leaf of the tree.

Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct
Extensive-Form Games", section 2.1, leave open what a bettor nobody calls gets; its list of
utility values {-2, -1, 0, 3, 4} matches "refund" (the hand is not contested) and not "pot" (the
lone bettor takes the antes: +2). docs/indian-poker-sign.md has the readings and measurements.
"""

from fractions import Fraction

import pytest

from efce.games import indian_poker
from efce.sampling import regret_bound
from efce.strategies import count_reduced
from seqform.errors import UnknownGameError
from seqform.model.game import CHANCE, TERMINAL
from seqform.model.tree import compile_tree

RULES = ("pot", "refund")
PAPER_VALUES = {-2, -1, 0, 3, 4}  # Dudik & Gordon 2009, section 2.1: the utility node's values

# every betting sequence that ends the hand: all pass; a bet by player 0, 1 or 2 (after passes),
# then each of the other two folds ("p") or calls ("b") in turn
LEAF_BETTING = {"ppp"} | {pre + "b" + x + y for pre in ("", "p", "pp") for x in "pb" for y in "pb"}


def hand_payoffs(cards, betting, uncalled):
    """Net payoffs from first principles: the player at turn k is k mod 3 (turns go 0, 1, 2, 0, 1);
    each antes 1 and each "b" (bet or call) puts in 1 more; the highest card among those who put
    in a bet takes everything; nobody bets: antes back; a lone bettor: the rule ``uncalled``."""
    paid = [1, 1, 1]
    entered = []
    for k, letter in enumerate(betting):
        if letter == "b":
            paid[k % 3] += 1
            entered.append(k % 3)
    if not entered or (len(entered) == 1 and uncalled == "refund"):
        return (0, 0, 0)
    winner = max(entered, key=lambda i: cards[i])
    return tuple((sum(paid) if i == winner else 0) - paid[i] for i in range(3))


def leaves(game):
    """(history, chance probability, node) of every leaf, by walking root / player / next."""
    out = []
    stack = [(game.root(), Fraction(1))]
    while stack:
        h, prob = stack.pop()
        p = game.player(h)
        if p == TERMINAL:
            out.append((h, prob))
            continue
        acts = game.actions(h)
        probs = game.chance(h) if p == CHANCE else (prob,) * len(acts)
        for a in range(len(acts)):
            stack.append((game.next(h, a), prob * probs[a] if p == CHANCE else prob))
    return out


@pytest.mark.parametrize("cards", [3, 4])
@pytest.mark.parametrize("rule", RULES)
def test_every_leaf_against_the_hand_written_pot(rule, cards):
    g = indian_poker(cards, uncalled=rule)
    got = leaves(g)
    assert len(got) == cards * (cards - 1) * (cards - 2) * len(LEAF_BETTING)
    assert sum(prob for _, prob in got) == len(LEAF_BETTING)  # each deal once per betting leaf
    seen = set()
    for (dealt, betting), _ in got:
        assert betting in LEAF_BETTING
        seen.add(betting)
        u = tuple(g.utility((dealt, betting)))
        assert u == hand_payoffs(dealt, betting, rule), (dealt, betting)
        assert sum(u) == 0  # zero-sum
    assert seen == LEAF_BETTING


@pytest.mark.parametrize("rule, values", [("pot", PAPER_VALUES | {2}), ("refund", PAPER_VALUES)])
def test_attainable_payoffs(rule, values):
    for cards in (3, 4, 5):
        tree = compile_tree(indian_poker(cards, uncalled=rule))
        assert set(tree.payoff.ravel().tolist()) == values
        assert abs(tree.payoff.sum(axis=1)).max() == 0


def test_the_rules_differ_only_for_a_lone_bettor():
    pot, refund = indian_poker(4), indian_poker(4, uncalled="refund")
    differ = set()
    for (dealt, betting), _ in leaves(pot):
        if tuple(pot.utility((dealt, betting))) != tuple(refund.utility((dealt, betting))):
            differ.add(betting)
    assert differ == {"bpp", "pbpp", "ppbpp"}
    # player 0 bets on the lowest card and both fold: it takes the antes, or gets everything back
    assert tuple(pot.utility(((0, 1, 2), "bpp"))) == (2, -1, -1)
    assert tuple(refund.utility(((0, 1, 2), "bpp"))) == (0, 0, 0)
    assert tuple(pot.utility(((3, 1, 2), "ppbpp"))) == (-1, -1, 2)
    # one caller: the higher of the two takes 5, the folder loses its ante, under both rules
    for g in (pot, refund):
        assert tuple(g.utility(((0, 3, 2), "bbp"))) == (-2, 3, -1)
        assert tuple(g.utility(((3, 1, 2), "pbbb"))) == (4, -2, -2)


@pytest.mark.parametrize("rule", RULES)
def test_same_tree_and_counts(rule):
    cards = 4
    tree = compile_tree(indian_poker(cards, uncalled=rule))
    default = compile_tree(indian_poker(cards))
    assert sum(n - 1 for n in tree.num_sequences) == 24 * cards * (cards - 1)
    assert list(tree.num_sequences) == list(default.num_sequences)
    assert tree.num_nodes == default.num_nodes and list(tree.player) == list(default.player)
    obs = cards * (cards - 1)
    assert [count_reduced(tree, n) for n in range(3)] == [9**obs, 10**obs, 16**obs]


@pytest.mark.parametrize("rule", RULES)
def test_regret_bound_is_the_payoff_range(rule):
    g = indian_poker(4, uncalled=rule)
    assert g.regret_bound() == regret_bound(g) == 6.0


def test_names_and_loading():
    import seqform.games

    assert indian_poker().name == "indian_poker(cards=8)"
    assert indian_poker(4).name == indian_poker(4, uncalled="pot").name == "indian_poker(cards=4)"
    r = indian_poker(4, uncalled="refund")
    assert r.name == "indian_poker(cards=4,uncalled='refund')"
    back = seqform.games.load(r.name)
    assert back.name == r.name and back.uncalled == "refund"
    assert seqform.games.load("indian_poker(cards=5)").uncalled == "pot"
    with pytest.raises(UnknownGameError, match="uncalled"):
        indian_poker(4, uncalled="split")


def _uniform_value(g):
    """Expected payoffs when every decision is 1/2 (the paper's q_0: uniform over full profiles)."""
    total = [Fraction(0)] * 3
    for (dealt, betting), prob in leaves(g):
        for i, x in enumerate(g.utility((dealt, betting))):
            total[i] += prob * Fraction(1, 2 ** len(betting)) * x
    return tuple(total)


def test_uniform_play_favours_the_first_mover_under_both_rules():
    # docs/indian-poker-sign.md: the starting point q_0 of the paper's boosting already pays
    # player 0 most; the refund rule shrinks, but does not flip, that edge
    assert _uniform_value(indian_poker(4)) == (Fraction(15, 64), Fraction(-3, 64), Fraction(-3, 16))
    assert _uniform_value(indian_poker(4, uncalled="refund")) == (Fraction(5, 64), Fraction(-1, 64), Fraction(-1, 16))

"""Backward induction on games of perfect information, against independent computations: the
brute-force oracle (reduced normal form, exact simplex), the sequence-form LP with its exact
certificate, and exact evaluation of the strategies it returns."""
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, reject, settings

import seqform
from seqform.errors import UnsupportedGameError
from seqform.exact.backwardinduction import backward_induction, is_perfect_information
from seqform.games.explicit import CHANCE_NODE, LEAF, TreeGame
from seqform.io.efgread import parse_efg
from seqform.verify.evaluate import evaluate
from tests.oracle.brute_force import OracleTooLarge, brute_force_value_exact
from tests.strategies import random_games
from tests.test_deep_trees import backward_induction as chain_value, chain_efg

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def with_singleton_infosets(tree: tuple, path: tuple = ()) -> tuple:
    """The same tree with every decision node in an information set of its own (keyed by its
    path): a game of perfect information, with perfect recall by construction."""
    if tree[0] == LEAF:
        return tree
    if tree[0] == CHANCE_NODE:
        _, labels, probs, kids = tree
        return (CHANCE_NODE, labels, probs, tuple(with_singleton_infosets(c, path + (i,)) for i, c in enumerate(kids)))
    _, player, _, labels, kids = tree
    return (tree[0], player, "n" + "".join(map(str, path)), labels,
            tuple(with_singleton_infosets(c, path + (i,)) for i, c in enumerate(kids)))


def perfect_information(game: TreeGame) -> TreeGame:
    return TreeGame(with_singleton_infosets(game.tree), game.name + "-pi")


@given(random_games(max_depth=4, max_nodes=30, max_pure_strategies=27))
@SETTINGS
def test_value_equals_the_brute_force_and_the_lp(game):
    game = perfect_information(game)
    tree = seqform.compile_tree(game)
    assert is_perfect_information(tree)
    bi = backward_induction(tree)
    try:
        truth = brute_force_value_exact(game)
    except OracleTooLarge:  # singleton information sets multiply the pure strategies
        reject()
    assert Fraction(int(bi.value.p), int(bi.value.q)) == truth
    sol = seqform.solve(tree)
    assert sol.method == "backward-induction" and sol.certified
    lp = seqform.solve(tree, method="simplex")
    assert lp.method.startswith("lp") and lp.certified and lp.value == sol.value


@given(random_games(max_depth=5, max_nodes=50, max_pure_strategies=64))
@SETTINGS
def test_strategies_are_a_subgame_perfect_equilibrium(game):
    """Exact evaluation, not the solver's own certificate: the pure behavioural strategies have
    exploitability exactly 0 and exactly zero regret at every information set, reached or not
    (a Nash equilibrium that is not subgame perfect fails the second)."""
    tree = seqform.compile_tree(perfect_information(game))
    bi = backward_induction(tree)
    ev = evaluate(tree, [[Fraction(v) for v in b] for b in bi.behaviour], exact=True)
    assert ev.exploitability == 0
    assert ev.max_regret == 0
    assert ev.values[0] == Fraction(int(bi.value.p), int(bi.value.q))


def test_auto_keeps_the_lp_for_imperfect_information():
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    assert not is_perfect_information(tree)
    assert seqform.solve(tree).method.startswith("lp")
    with pytest.raises(UnsupportedGameError, match="perfect information"):
        seqform.solve(tree, method="backward-induction")


def test_payoffs_of_any_size_on_a_chain():
    """Exact arithmetic all the way: payoffs near 1e300 that differ in their last digits."""
    payoffs = [10 ** 300 + k * (-1) ** k for k in range(41)]
    sol = seqform.solve(parse_efg(chain_efg(payoffs), "chain.efg"))
    assert sol.method == "backward-induction" and sol.certified
    assert sol.value == chain_value(payoffs)


def test_chance_nodes_are_averaged_exactly():
    leaf = lambda u: (LEAF, (Fraction(u), -Fraction(u)))  # noqa: E731
    # chance picks one of two subgames with probability 1/3, 2/3; player 0 then player 1 move
    sub = lambda a, b, c, d: ("decision", 0, None, ("l", "r"), (  # noqa: E731
        ("decision", 1, None, ("L", "R"), (leaf(a), leaf(b))),
        ("decision", 1, None, ("L", "R"), (leaf(c), leaf(d)))))
    game = perfect_information(TreeGame((CHANCE_NODE, ("x", "y"), (Fraction(1, 3), Fraction(2, 3)),
                                         (sub(3, 1, 0, 7), sub(-2, 5, 4, 4))), "chance"))
    # subgame x: max(min(3,1), min(0,7)) = 1; subgame y: max(min(-2,5), min(4,4)) = 4
    assert seqform.solve(game).value == Fraction(1, 3) * 1 + Fraction(2, 3) * 4

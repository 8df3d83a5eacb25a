"""The implicit best-response oracle (``doracle.oracle``), with and without pruning, against
the compiled tree's exact best responses (``seqform.evaluate``), on textbook, poker, Flip-It and
random games."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

import seqform
from doracle.oracle import best_response
from seqform.games.flipit import flipit
from seqform.model.tree import compile_tree
from seqform.verify.evaluate import evaluate
from tests.strategies import random_games


def strategy_dict(tree, behaviour, player):
    """The behaviour of ``player`` as {information-set key: probabilities}."""
    out = {}
    for m in tree.player_infosets[player].tolist():
        f, n = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
        out[tree.infoset_key[m]] = list(behaviour[f : f + n])
    return out


def check(game, profile, tree):
    """Both players' oracle values equal the exact best-response values of the compiled tree, and
    the oracle's pure choice attains its value."""
    exact = evaluate(tree, profile, exact=True)
    for p, prune in ((0, True), (1, True), (0, False), (1, False)):
        br = best_response(game, p, strategy_dict(tree, profile.behaviour[1 - p], 1 - p), prune=prune)
        assert br.value == exact.best_response_values[p]
        pure = list(profile.behaviour)
        b = [Fraction(1)] + [Fraction(0)] * (tree.num_sequences[p] - 1)
        for m in tree.player_infosets[p].tolist():
            a = br.choice.get(tree.infoset_key[m], 0)
            b[int(tree.infoset_first_seq[m]) + a] = Fraction(1)
        pure[p] = b
        assert evaluate(tree, pure, exact=True).values[p] == br.value


@pytest.mark.parametrize(
    "game",
    [
        seqform.games.kuhn(),
        seqform.games.leduc(),
        flipit(2),
        flipit(2, observe="actions"),
        seqform.games.liars_dice(1, 3),
    ],
    ids=lambda g: g.name,
)
def test_against_equilibrium_and_uniform_strategies(game):
    tree = compile_tree(game)
    check(game, seqform.solve(tree).exact_profile, tree)
    exact_uniform = [
        [Fraction(1)]
        + [Fraction(1, int(tree.infoset_num_actions[tree.seq_infoset[p][s]])) for s in range(1, tree.num_sequences[p])]
        for p in (0, 1)
    ]
    check(game, seqform.Profile(exact_uniform), tree)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games())
def test_random_games(game):
    tree = compile_tree(game)
    check(game, seqform.solve(tree).exact_profile, tree)


def test_missing_information_sets_play_the_first_action():
    game = seqform.games.kuhn()
    tree = compile_tree(game)
    sol = seqform.solve(tree).exact_profile
    strat = strategy_dict(tree, sol.behaviour[1], 1)
    dropped = list(strat)[:2]
    for k in dropped:
        del strat[k]
    b1 = list(sol.behaviour[1])
    for m in tree.player_infosets[1].tolist():
        if tree.infoset_key[m] in dropped:
            f, n = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
            b1[f : f + n] = [Fraction(1)] + [Fraction(0)] * (n - 1)
    want = evaluate(tree, [sol.behaviour[0], b1], exact=True).best_response_values[0]
    assert best_response(game, 0, strat).value == want


def test_the_walk_stays_in_the_opponents_support():
    game = flipit(3)
    tree = compile_tree(game)
    first = {
        tree.infoset_key[m]: [1] + [0] * (int(tree.infoset_num_actions[m]) - 1)
        for m in tree.player_infosets[1].tolist()
    }
    br = best_response(game, 0, first)
    assert br.nodes < tree.num_nodes / 3  # the attacker's pure strategy prunes the tree


@pytest.mark.parametrize("game", [flipit(3), seqform.games.leduc()], ids=lambda g: g.name)
def test_pruning_and_move_ordering_visit_fewer_nodes_for_the_same_value(game):
    tree = compile_tree(game)
    sol = seqform.solve(tree).exact_profile
    for p in (0, 1):
        strat = strategy_dict(tree, sol.behaviour[1 - p], 1 - p)
        plain = best_response(game, p, strat, prune=False)
        pruned = best_response(game, p, strat)
        hinted = best_response(game, p, strat, hint=plain.choice)
        assert plain.value == pruned.value == hinted.value
        assert pruned.nodes < plain.nodes and pruned.pruned > 0
        assert hinted.nodes <= pruned.nodes

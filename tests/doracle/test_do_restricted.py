"""Restricted games (``doracle.restricted``) are valid and their strategies extend to the full
game. Checked independently: a walk beside the original game (every history continues with a
subset of the original actions, or is a real leaf with the real payoff, or is a temporary leaf),
temporary-leaf values against brute force over the other player's pure strategies below the leaf,
and the double-oracle profile, extended by the default strategy, evaluated in the compiled full
game by ``seqform.evaluate`` (exact best responses)."""

import itertools
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

import seqform
from doracle.extend import extended_profile
from doracle.loop import _default_sequences, double_oracle
from doracle.oracle import best_response
from doracle.restricted import RestrictedGame
from seqform.games.flipit import flipit
from seqform.model.game import CHANCE, TERMINAL
from seqform.model.tree import compile_tree
from seqform.verify.evaluate import evaluate
from tests.strategies import random_games


def brute_leaf_value(game, state, responder):
    """Player 0's utility below ``state`` when the player not ``responder`` plays its first action
    everywhere and ``responder`` its best pure strategy (information sets as seen below
    ``state``), by enumerating the responder's pure strategies."""
    infosets = {}

    def collect(h):
        p = game.player(h)
        if p == TERMINAL:
            return
        n = len(game.actions(h))
        if p == responder:
            infosets[game.infoset(h)] = n
        for a in range(n):
            if p == CHANCE and not game.chance(h)[a]:
                continue
            if p not in (CHANCE, responder) and a > 0:
                continue
            collect(game.next(h, a))

    def value(h, plan):
        p = game.player(h)
        if p == TERMINAL:
            return Fraction(game.utility(h)[0])
        if p == CHANCE:
            return sum(pr * value(game.next(h, a), plan) for a, pr in enumerate(game.chance(h)) if pr)
        return value(game.next(h, plan[game.infoset(h)] if p == responder else 0), plan)

    collect(state)
    keys = list(infosets)
    vals = [value(state, dict(zip(keys, pick))) for pick in itertools.product(*(range(infosets[k]) for k in keys))]
    return max(vals) if responder == 0 else min(vals)


def check_restricted(game, rg):
    """Walk ``rg`` beside ``game``; returns the number of temporary leaves met."""
    leaves = 0
    stack = [rg.root()]
    while stack:
        h = stack.pop()
        state = h[0]
        p, q = rg.player(h), game.player(state)
        if q == TERMINAL:
            assert p == TERMINAL and tuple(rg.utility(h)) == tuple(game.utility(state))
            continue
        if p == TERMINAL:  # a temporary leaf: a decision node of the original with nothing kept
            assert q >= 0
            leaves += 1
            u = rg.utility(h)
            assert u[0] == -u[1] == brute_leaf_value(game, state, 1 - q)
            continue
        assert p == q
        labels = rg.actions(h)
        assert labels and set(labels) <= set(game.actions(state))
        for a in range(len(labels)):
            if p == CHANCE and not rg.chance(h)[a]:
                continue
            child = rg.next(h, a)
            orig = game.next(state, list(game.actions(state)).index(labels[a]))
            assert game.describe(child[0]) == game.describe(orig)
            stack.append(child)
    compile_tree(rg)  # perfect recall, chance sums, shape: the core's own checks
    return leaves


def one_sided(game):
    """The restricted game of the default profile plus player 1's best response to player 0's
    default: player 0 has no continuation below many of player 1's new nodes."""
    seqs = _default_sequences(game)
    seqs[1] |= best_response(game, 1, {}).sequences
    return RestrictedGame(game, seqs)


def test_leduc_restricted_game_has_valid_temporary_leaves():
    game = seqform.games.leduc()
    rg = one_sided(game)
    assert check_restricted(game, rg) > 0
    assert compile_tree(rg).num_nodes < compile_tree(game).num_nodes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games())
def test_random_restricted_games_are_valid(game):
    check_restricted(game, one_sided(game))


# Kuhn, Leduc, Goofspiel(4), Flip-It(2), Flip-It(3) and Flip-It(3, observe="actions"): the same check
# on the double-oracle run of test_do_loop.test_value_equals_the_full_lp (one run per game)
@pytest.mark.parametrize("game", [flipit(2, observe="actions")], ids=lambda g: g.name)
def test_the_profile_extends_to_an_equilibrium_of_the_full_game(game):
    res = double_oracle(game)
    tree = compile_tree(game)
    ev = evaluate(tree, extended_profile(tree, res.profile), exact=True)
    assert res.converged
    assert ev.values[0] == res.value
    assert ev.best_response_values[0] == res.value and ev.best_response_values[1] == -res.value


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games())
def test_random_profiles_extend_to_equilibria(game):
    res = double_oracle(game)
    tree = compile_tree(game)
    ev = evaluate(tree, extended_profile(tree, res.profile), exact=True)
    assert res.converged and ev.best_response_values[0] == res.value == -ev.best_response_values[1]

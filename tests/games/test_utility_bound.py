"""``Game.utility_bound`` (the best-response oracle's pruning bound) against brute force: at every
node of small games, the bound is at least the largest utility at a leaf below, and equals it for
the games that claim exact bounds (Flip-It, explicit trees)."""

import pytest
from hypothesis import given, settings

import seqform
from seqform.games.flipit import flipit
from seqform.model.game import CHANCE, TERMINAL
from tests.strategies import random_games


def walk_bounds(game, exact: bool) -> int:
    """Check every node below the root; returns the number of nodes checked."""
    checked = 0

    def rec(h):
        nonlocal checked
        p = game.player(h)
        if p == TERMINAL:
            best = tuple(game.utility(h))
        else:
            kids = [rec(game.next(h, a)) for a in range(len(game.actions(h))) if p != CHANCE or game.chance(h)[a]]
            best = tuple(max(k[i] for k in kids) for i in (0, 1))
        for i in (0, 1):
            b = game.utility_bound(h, i)
            assert b >= best[i], (game.describe(h), i, b, best[i])
            if exact:
                assert b == best[i], (game.describe(h), i, b, best[i])
        checked += 1
        return best

    rec(game.root())
    return checked


@pytest.mark.parametrize(
    "game",
    [
        flipit(1),
        flipit(2),
        flipit(3),
        flipit(2, observe="actions"),
        flipit(2, hosts=3, edges=((0, 1), (1, 2)), rewards=(3, -1, 7), costs=(1, 0, 4)),
    ],
    ids=lambda g: g.name,
)
def test_flipit_bounds_are_exact(game):
    assert walk_bounds(game, exact=True) > 0


@pytest.mark.parametrize(
    "game",
    [
        seqform.games.kuhn(),
        seqform.games.leduc(),
        seqform.games.goofspiel(3),
        seqform.games.goofspiel(3, returns="point_difference"),
    ],
    ids=lambda g: g.name,
)
def test_poker_and_goofspiel_bounds_are_valid(game):
    assert walk_bounds(game, exact=False) > 0


@settings(max_examples=30, deadline=None)
@given(random_games())
def test_tree_game_bounds_are_exact(game):
    walk_bounds(game, exact=True)

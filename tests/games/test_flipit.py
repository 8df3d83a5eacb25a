"""Flip-It (Bosansky (2019)'s network-security game): its tree sizes are the lecture's, its rules are
checked on hand-computed plays, and small depths are solved and checked against the brute-force
normal form (tests/oracle/brute_force.py)."""

from __future__ import annotations

import pytest

import seqform
from seqform.errors import UnknownGameError
from seqform.games.flipit import flipit
from seqform.model.tree import compile_tree
from tests.oracle.brute_force import brute_force_value_exact

# Bosansky 2019, "SQF for Flip-it Game in a network": nodes at depths 3, 4, 5
SEED_SIZES = {3: 15_685, 4: 495_205, 5: 16_715_941}


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_compiled_sizes_and_the_count_without_building(depth):
    tree = compile_tree(flipit(depth))
    assert tree.num_nodes == flipit(depth).num_nodes_hint()
    if depth in SEED_SIZES:
        assert tree.num_nodes == SEED_SIZES[depth]


def test_depth_5_has_the_seeds_size():
    assert flipit(5).num_nodes_hint() == SEED_SIZES[5]


def play(game, moves):
    """Follow (defender host or None for pass, attacker host or None) rounds; return the leaf."""
    h = game.root()
    for d, a in moves:
        for _who, m in ((0, d), (1, a)):
            label = "pass" if m is None else f"host {m}"
            h = game.next(h, list(game.actions(h)).index(label))
    return h


def test_rules_on_hand_computed_plays():
    g = flipit(1)
    # the attacker takes entry host 0 (reward 10, cost 8); the defender keeps 1..4 (28)
    assert g.utility(play(g, [(None, 0)])) == (28 - 2, -(28 - 2))
    # a tie on host 0: the defender held it at the start of the round and keeps it; both pay
    assert g.utility(play(g, [(0, 0)])) == (38 - 8 + 8, -38)
    g2 = flipit(2)
    # host 1 needs a controlled predecessor: round 1 the attacker takes 0, round 2 host 1 works
    h = play(g2, [(None, 0), (None, 1)])
    assert h[2] == (1, 1, 0, 0, 0)
    # host 4 has predecessor 3: after taking 3, flipping 4 works
    h = play(g2, [(None, 3), (None, 4)])
    assert h[2] == (0, 0, 0, 1, 1)
    # the attacker tried 0 but lost the tie, so host 1 (offered: it tried 0) has no attacker
    # predecessor and the flip fails; the attacker still pays for it
    h = play(g2, [(0, 0), (None, 1)])
    assert h[2] == (0, 0, 0, 0, 0)
    assert g2.utility(h)[0] == (38 - 8 + 8) + (38 + 2)


def test_attacker_options_grow_with_what_it_tried():
    g = flipit(3)
    assert g.attacker_options(frozenset()) == (0, 3, -1)
    assert g.attacker_options(frozenset({0})) == (0, 1, 2, 3, -1)
    assert g.attacker_options(frozenset({3})) == (0, 3, 4, -1)


@pytest.mark.parametrize("depth,observe", [(1, "none"), (2, "none"), (1, "actions")])
def test_value_against_the_brute_force_normal_form(depth, observe):
    g = flipit(depth, observe=observe)
    sol = seqform.solve(g)
    assert sol.certified and sol.value == brute_force_value_exact(g)


def test_observing_actions_refines_information():
    none, actions = compile_tree(flipit(3)), compile_tree(flipit(3, observe="actions"))
    assert none.num_nodes == actions.num_nodes
    assert all(a > b for a, b in zip(actions.num_infosets, none.num_infosets))


def test_bad_parameters():
    with pytest.raises(UnknownGameError, match="observe"):
        flipit(2, observe="everything")
    with pytest.raises(UnknownGameError, match="no entry host"):
        flipit(1, hosts=2, edges=[(0, 1), (1, 0)], rewards=[1, 1], costs=[1, 1])
    with pytest.raises(UnknownGameError, match="edge 0->7"):
        flipit(1, hosts=2, edges=[(0, 7)], rewards=[1, 1], costs=[1, 1])
    with pytest.raises(UnknownGameError, match="load.*|depth"):
        seqform.games.load("flipit(depth=0)")

"""Dudik & Gordon (2009)'s games (``efce.games``) against the paper's own counts: Indian poker's sequence
complexity 24 C (C-1), its C (C-1) (C-2) deals and 9, 10 and 16 reduced strategies per
observation; the grid game's 3 L^2; the job market game's payoffs."""

import pytest

from efce.games import grid_game, indian_poker, job_market
from efce.strategies import count_reduced, reduced_strategies
from seqform.errors import TooLargeError
from seqform.model.game import CHANCE
from seqform.model.tree import compile_tree


@pytest.mark.parametrize("cards", [3, 4, 5])
def test_indian_poker_counts(cards):
    tree = compile_tree(indian_poker(cards))
    assert sum(n - 1 for n in tree.num_sequences) == 24 * cards * (cards - 1)
    assert tree.terminal_chance.size and len({tuple(tree.node_seq[:, z]) for z in tree.terminals}) > 0
    deals = sum(
        1
        for node in range(tree.num_nodes)
        if tree.player[node] != CHANCE
        and tree.parent[node] >= 0
        and tree.player[tree.parent[node]] == CHANCE
        and all(tree.player[a] == CHANCE for a in _ancestors(tree, node))
    )
    assert deals == cards * (cards - 1) * (cards - 2)
    obs = cards * (cards - 1)
    assert [count_reduced(tree, n) for n in range(3)] == [9**obs, 10**obs, 16**obs]


def _ancestors(tree, node):
    out = []
    while tree.parent[node] >= 0:
        node = int(tree.parent[node])
        out.append(node)
    return out


def test_indian_poker_payoffs_are_zero_sum_and_the_seeds():
    g = indian_poker(4)
    tree = compile_tree(g)
    assert abs(tree.payoff.sum(axis=1)).max() == 0
    assert set(tree.payoff.ravel().tolist()) == {-2, -1, 0, 2, 3, 4}


def test_count_reduced_equals_enumeration():
    tree = compile_tree(indian_poker(3))
    # player 2 (4 information sets per observation, no nesting): 16^6 is too many to list, so
    # compare on the job market game and on a deal-restricted count
    jm = compile_tree(job_market())
    for n in range(2):
        assert count_reduced(jm, n) == len(reduced_strategies(jm, n)) == 4
    assert count_reduced(tree, 2) == 16**6


def test_grid_game():
    g = grid_game(3, seed=5)
    tree = compile_tree(g)
    assert g.num_players == 9 and sum(n - 1 for n in tree.num_sequences) == 27
    assert grid_game(3, seed=5).payoff[4][1].tolist() == g.payoff[4][1].tolist()
    assert grid_game(3, seed=6).payoff[4][1].tolist() != g.payoff[4][1].tolist()
    h = (0, 1, 2, 0, 1, 2, 0, 1, 2)
    u = g.utility(h)
    assert float(u[4]) == pytest.approx(g.profile_utility(h)[4])
    assert len(g.neighbours[4]) == 4 and len(g.neighbours[0]) == 2


@pytest.mark.parametrize("size", [1001, 100000])
def test_grids_too_large_to_count_are_refused_at_once(size):
    """The fuzzer's grid_game(size=100000): writing down its 3^(10^10) nodes would never end; past
    10^6 players the hint refuses with the count's number of digits instead. A grid just under
    the bound still gets its exact count, refused by the memory limit as before."""
    with pytest.raises(TooLargeError, match=r"\(3\^\d+ - 1\)/2 nodes \(a number of"):
        compile_tree(grid_game(size=size))
    with pytest.raises(TooLargeError, match="nodes: compiling it would need more than"):
        compile_tree(grid_game(size=1000), memory_limit_bytes=2**30)


def test_job_market_payoffs():
    g = job_market()
    # (study, answer yes, hired) pays (4, 5); not studying and hired (0, ..., hire): (5, -5)
    assert tuple(g.utility((0, 0, 0))) == (4, 5)
    assert tuple(g.utility((1, 0, 0))) == (5, -5)
    assert tuple(g.utility((0, 1, 1))) == (-1, 0)


def test_regret_bounds_cover_the_payoff_ranges():
    from efce.sampling import regret_bound

    for g in (grid_game(2, seed=1), grid_game(3, seed=2), indian_poker(3), indian_poker(4)):
        assert g.regret_bound() >= regret_bound(g) > 0  # the hook against a walk of every leaf

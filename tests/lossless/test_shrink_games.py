"""GameShrink on the poker family, each result checked against an independent computation:

* the ordered-signal model against the core: ``leduc_os`` has the tree, sizes and certified value
  of ``seqform.games.leduc`` (written independently, node for node like OpenSpiel's);
* values: the abstract game's certified value equals the original game's certified LP value, and
  the lifted strategies are certified in the original game by exact best responses
  (``seqform.evaluate``), which does not trust the abstraction;
* sizes counted without building against ``compile_tree`` and ``sequence_form`` on the built
  games, and the full Rhode Island Hold'em counts against the numbers the seed reports.
"""

import math

import pytest

import seqform
from lossless import build_signal_tree, four_card, leduc_os, rhode_island, shrink, solve
from lossless.treesizes import game_tree_nodes, sequence_form_sizes
from seqform.games import leduc
from seqform.lp.sequenceform import sequence_form
from seqform.model.tree import compile_tree
from seqform.verify.evaluate import evaluate


def test_four_card_game_of_figure_2_shrinks_113_to_39_nodes():
    g = four_card()
    sh = shrink(g)
    original, abstract = compile_tree(g), compile_tree(sh.abstract)
    assert original.num_nodes == 113 and abstract.num_nodes == 39  # Sandholm 2010, Figure 2
    assert sh.sizes["before"]["game_tree_nodes"] == 113 and sh.sizes["after"]["game_tree_nodes"] == 39
    # the abstraction is the figure's: each player sees only the rank of its card
    assert sh.sizes["after"]["per_round"] == [[2], [2]]
    res = solve(g)
    assert res.certified and res.value == seqform.solve(g).value and res.exploitability == 0


def test_leduc_as_ordered_signal_game_is_the_core_leduc():
    ours, core = seqform.solve(leduc_os()), seqform.solve(leduc())
    assert ours.sizes == core.sizes
    assert ours.certified and core.certified and ours.value == core.value


# rhode_island(2, 3) takes about two minutes of one core: the slow tier's
@pytest.mark.parametrize(
    "game",
    [leduc_os(), leduc_os(4, 2), rhode_island(2, 2), pytest.param(rhode_island(2, 3), marks=pytest.mark.slow)],
    ids=lambda g: g.name,
)
def test_value_preserved_and_lifted_strategies_certified(game):
    original = seqform.solve(game, method="simplex")
    assert original.certified
    res = solve(game, method="simplex")
    assert res.certified
    assert res.value == original.value
    ev = evaluate(res.original_tree, res.profile, exact=True)
    assert ev.exact and ev.exploitability == 0 and ev.values[0] == original.value
    # the abstraction is smaller than the game
    assert res.abstract_solution.sizes["histories"] < original.sizes["histories"]


# slow tier (100 s): the default tier checks lifted strategies on rhode_island(2, 2)
# (test_value_preserved_and_lifted_strategies_certified) and the classes' sequence form on smaller
# games; this adds the 3-rank game, where the original LP's certificate fails, and its own-view gap
@pytest.mark.slow
def test_rhode_island_three_ranks_solved_through_the_abstraction():
    """The original LP (388,717 nodes) takes 90 s and its certificate fails; the abstract one
    (194,233 nodes) certifies, and its lifted strategies are exact equilibria of the original
    game: exact best responses in the original game meet at the abstract value. The own-view
    merge changes this game's value."""
    g = rhode_island(3, 2)
    res = solve(g, method="simplex")
    assert res.certified and res.exploitability == 0
    ev = evaluate(res.original_tree, res.profile, exact=True)
    assert ev.best_response_values[0] == res.value == -ev.best_response_values[1]
    assert res.shrunk.sizes["after"]["per_round"] == [[3, 15, 60]] * 2
    # the own-view abstraction (3 / 11 / 32 classes) is not lossless here either: its value is
    # 0.006 away from the one just certified
    own = shrink(g, lossless=False, nonzeros=False)
    assert own.sizes["after"]["per_round"] == [[3, 11, 32]] * 2
    # (its value to 1e-3 is all this needs: the interior point method, 13 s against the simplex's 27)
    naive = seqform.solve(own.abstract, method="ipm", certify_exact=False)
    assert abs(naive.value_float - float(res.value)) > 1e-3
    # ``abstractlp`` on this game (the largest of test_sequence_form_built_from_the_classes_is_the_
    # abstract_games, checked here so that the abstract game's LP is solved once, not three times):
    # E, F, A built from the classes alone have the compiled abstract game's shapes and nonzeros,
    # and their LP value is the compiled abstract game's, which ``solve`` above certified exactly
    # (the direct LP by the interior point method with crossover: 2x faster here than the simplex,
    # and the value is the property, not the method)
    check_abstract_sequence_form(res.shrunk, res.abstract_solution.tree, res.abstract_solution.value, "ipm")


@pytest.mark.parametrize(
    "game",
    [four_card(), leduc_os(), rhode_island(2, 3), pytest.param(rhode_island(3, 2), marks=pytest.mark.slow)],
    ids=lambda g: g.name,
)
def test_sizes_counted_without_building_match_the_built_games(game):
    sh = shrink(game)
    for part, tree in (("before", compile_tree(game)), ("after", compile_tree(sh.abstract))):
        sizes, sf = sh.sizes[part], sequence_form(tree)
        assert sizes["game_tree_nodes"] == tree.num_nodes
        assert sizes["infosets"] == list(tree.num_infosets)
        assert sizes["sequences"] == list(tree.num_sequences)
        assert sizes["payoff_nonzeros"] == sf.A.nnz
        assert sizes["lp_nonzeros"] == sf.A.nnz + sf.E.nnz + sf.F.nnz
        assert sizes["lp_rows"] == tree.num_sequences[0] + tree.num_infosets[1] + 1


def test_full_rhode_island_original_sizes_match_the_seed():
    """|Sigma_1| + |I_2| + 1 = 91,224,226 (Sandholm 2010), from the betting tree and the deck alone."""
    g = rhode_island()
    per_round = [math.perm(52, 1), math.perm(52, 2), math.perm(52, 3)]
    sizes = sequence_form_sizes(g.betting, [per_round, per_round])
    assert sizes["lp_rows"] == 91_224_226
    assert game_tree_nodes(g) == 6_705_372_545  # every chance, decision and leaf node


# slow tier (half a minute of one core): test_shrink_oracle checks the classes, and that the
# own-view variant merges the suit orbits, on small decks
@pytest.mark.slow
def test_full_rhode_island_shrinks_and_the_own_view_variant_gives_the_seeds_numbers():
    """The paper's 1,237,238 rows and 50,428,638 nonzeros come out of the own-view variant; the
    lossless abstraction is finer (it respects what the opponent knows) and still merges every
    suit-isomorphic pair (13 and 325 classes in rounds 1 and 2 are the suit orbits; see
    test_shrink_oracle for the orbits of small decks)."""
    g = rhode_island()
    signals = build_signal_tree(g)
    own = shrink(g, lossless=False, build_abstract=False, signals=signals)
    assert own.sizes["before"]["lp_rows"] == 91_224_226
    assert own.sizes["after"]["per_round"] == [[13, 205, 1774]] * 2
    assert own.sizes["after"]["lp_rows"] == 1_237_238
    assert own.sizes["after"]["lp_nonzeros"] == 50_428_638
    full = shrink(g, nonzeros=False, build_abstract=False, signals=signals)
    r1, r2, r3 = full.sizes["after"]["per_round"][0]
    assert (r1, r2) == (13, 325)
    assert 1774 < r3 <= 9997  # finer than the own view, at least as coarse as the suit orbits


def check_abstract_sequence_form(sh, abstract_tree, value=None, method="simplex"):
    """``abstractlp``'s E, F, A (built from the classes alone) against the compiled abstract game's
    sequence form: same shapes and nonzeros, and the same LP value (``value``, the compiled game's
    value when already known exactly; else its LP solved here)."""
    from lossless.abstractlp import abstract_sequence_form
    from seqform.lp.zerosumlp import solve_lp

    direct, compiled = abstract_sequence_form(sh.abstraction), sequence_form(abstract_tree)
    for a, b in ((direct.E, compiled.E), (direct.F, compiled.F), (direct.A, compiled.A)):
        assert a.shape == b.shape and a.nnz == b.nnz
    if value is None:
        value = solve_lp(compiled, method="simplex").value
    assert abs(solve_lp(direct, method=method).value - float(value)) < 1e-9


@pytest.mark.parametrize("game", [four_card(), leduc_os(), rhode_island(2, 3)], ids=lambda g: g.name)
def test_sequence_form_built_from_the_classes_is_the_abstract_games(game):
    """``abstractlp`` builds E, F, A from the classes alone; the compiled abstract game's sequence
    form (``seqform.sequence_form``) has the same shapes and nonzeros and the same LP value.
    (rhode_island(3, 2) is checked in test_rhode_island_three_ranks_solved_through_the_abstraction,
    against the abstract LP's exact value that test certifies.)"""
    sh = shrink(game)
    check_abstract_sequence_form(sh, compile_tree(sh.abstract))


def test_a_naive_merge_loses_value_and_gameshrink_does_not_make_it():
    """The own-view merge (each player's observations compared by the outcomes against an unseen
    opponent, ignoring what the opponent knows; it reproduces the paper's Rhode Island counts)
    merges, in Leduc (ranks Q < K < A), a queen with a king on the board and a queen with an ace
    on the board: both lose to everything but the other queen. But the opponent's first-round
    betting depends on its card, and which cards it can hold differs, so the merge changes the game: its value moves and
    its lifted strategies are exploitable in the original game. GameShrink keeps them apart."""
    game = leduc_os()
    exact = seqform.solve(game).value
    own = shrink(game, lossless=False)
    assert own.sizes["after"]["per_round"] == [[3, 7], [3, 7]]  # lossless: [[3, 9], [3, 9]]
    abstract_tree = compile_tree(own.abstract)
    naive = seqform.solve(abstract_tree)
    assert naive.certified and naive.value != exact
    assert abs(float(naive.value) - float(exact)) > 0.01
    lifted = own.lift(naive.exact_profile, abstract_tree)
    assert evaluate(game, lifted, exact=True).exploitability > 0
    assert shrink(game).sizes["after"]["per_round"] == [[3, 9], [3, 9]]

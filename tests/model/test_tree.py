"""The compiler: sizes of the built-in games (numbers from the spec and OpenSpiel), perfect
recall and chance checks with clear errors, constant-sum detection."""

from fractions import Fraction

import numpy as np
import pytest

from seqform import ChanceProbabilityError, ImperfectRecallError, compile_tree, games
from seqform.model.strategy import realization_plan_exact
from tests import smallgames


@pytest.mark.parametrize(
    "spec,sizes",
    [
        ("kuhn", (58, 30, 6, 13)),
        ("leduc", (9457, 5520, 468, 1093)),
        ("leduc(ranks=5)", (55361, 32760, 1380, 3221)),
    ],
)
def test_sizes_from_spec(spec, sizes):
    t = compile_tree(games.load(spec))
    s = t.sizes()
    assert (s["histories"], s["terminals"]) == sizes[:2]
    assert s["infosets"] == [sizes[2]] * 2
    assert s["sequences"] == [sizes[3]] * 2
    assert t.constant_sum == 0


def test_tree_arrays_are_consistent():
    t = compile_tree(games.leduc())
    # preorder: a parent precedes its children
    assert np.all(t.parent[1:] < np.arange(1, t.num_nodes))
    # every sequence's parent has a smaller id (the numbering backward passes rely on)
    for p in range(2):
        assert np.all(t.seq_parent[p][1:] < np.arange(1, t.num_sequences[p]))
    # under the uniform profile, the leaves' probabilities sum to one, exactly
    reach = []
    for p in range(2):
        b = [Fraction(1)] + [Fraction(1, int(t.infoset_num_actions[i])) for i in t.seq_infoset[p][1:]]
        reach.append(realization_plan_exact(t, p, b))
    total = sum(
        c * reach[0][s0] * reach[1][s1]
        for c, s0, s1 in zip(t.terminal_chance_exact, t.node_seq[0, t.terminals], t.node_seq[1, t.terminals])
    )
    assert total == 1
    # every node of an information set has the same own sequence (perfect recall, checked anew)
    dec = np.flatnonzero(t.infoset >= 0)
    own = t.node_seq[t.player[dec].astype(int), dec]
    assert np.array_equal(own, t.infoset_parent_seq[t.infoset[dec]])


def test_imperfect_recall_names_the_infoset_and_both_histories():
    with pytest.raises(ImperfectRecallError) as e:
        compile_tree(smallgames.forgetful())
    msg = str(e.value)
    assert "'second'" in msg and "player 0" in msg
    assert "a" in msg and "b" in msg


def test_chance_not_summing_to_one_names_the_node():
    with pytest.raises(ChanceProbabilityError) as e:
        compile_tree(smallgames.bad_chance())
    assert "chance node y " in str(e.value) and "9/10" in str(e.value)


def test_float_chance_probabilities_that_are_not_exact_are_refused():
    tree = ("chance", ("a", "b", "c"), (0.1, 0.2, 0.7), (("leaf", (0, 0)),) * 3)
    with pytest.raises(ChanceProbabilityError, match="Fraction"):
        compile_tree(smallgames.TreeGame(tree, "floaty"))


def test_constant_and_general_sum_detected():
    assert compile_tree(smallgames.constant_sum()).constant_sum == Fraction(3)
    assert compile_tree(smallgames.general_sum()).constant_sum is None


def test_unhashable_key_and_boolean_probability_are_game_errors():
    from seqform import GameError

    g = smallgames.TreeGame(("decision", 0, ["list"], ("a", "b"), (("leaf", (0, 0)), ("leaf", (1, -1)))), "lk")
    with pytest.raises(GameError, match="not hashable"):
        compile_tree(g)
    g = smallgames.TreeGame(("chance", ("a", "b"), (True, False), (("leaf", (0, 0)), ("leaf", (1, -1)))), "bool")
    with pytest.raises(GameError, match="boolean"):
        compile_tree(g)


def test_chance_nodes_keep_their_probabilities_and_labels():
    t = compile_tree(games.leduc())
    assert len(t.chance_nodes) == int(np.sum(t.player == -1))
    assert t.chance_labels[0] == ("deal Js", "deal Jh", "deal Qs", "deal Qh", "deal Ks", "deal Kh")
    assert t.chance_probs[0] == (Fraction(1, 6),) * 6
    # the product of edge probabilities down to each leaf is its exact chance reach
    for k in range(0, t.num_terminals, 97):
        node, prod = int(t.terminals[k]), Fraction(1)
        while node > 0:
            prod *= t.edge_probability(node)
            node = int(t.parent[node])
        assert prod == t.terminal_chance_exact[k]

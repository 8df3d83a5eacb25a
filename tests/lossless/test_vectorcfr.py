"""CFR+ in vector form over an abstraction (``lossless.vectorcfr``) against CFR+ on the compiled
abstract game tree (``seqform.iterative.cfr``, "cfr+": an independent implementation over the
sequence-form payoff matrix, whose conventions match OpenSpiel's), and its brackets against the
exact game value (``lossless.solve``: exact LP, lifted, certified by exact best responses)."""

from fractions import Fraction

import numpy as np
import pytest

import lossless
import seqform
from lossless.cardmatrices import card_matrices
from lossless.errors import AbstractionError
from lossless.sequencelayout import sequence_layout
from lossless.vectorbestresponse import normalised_behaviour, plan_from_behaviour
from lossless.vectorcfr import _update, cfr_plus
from seqform.iterative.cfr import RegretMinimizer, cfr


def _key_map(layout, tree, p):
    """(num_sequences of the tree,) the layout's sequence of each of the compiled abstract tree's
    (through the keys (point, class, betting node) of ``lossless.abstractgame``)."""
    out = np.zeros(tree.num_sequences[p], dtype=np.int64)
    for m in tree.player_infosets[p].tolist():
        _, c, v = tree.infoset_key[m]
        f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
        out[f : f + k] = [layout.base[v, a] + c for a in range(k)]
    return out


@pytest.mark.parametrize("spec", ["leduc_os", "rhode_island(ranks=2,suits=2)", "rhode_island(ranks=3,suits=2)"])
def test_one_regret_update_equals_the_tree_update(spec):
    """From the same random strategies, one CFR+ update of each player gives the same regrets."""
    game = seqform.games.load(spec)
    sh = lossless.shrink(game)
    layout = sequence_layout(sh.abstraction)
    tree = seqform.compile_tree(sh.abstract)
    cards = card_matrices(layout)
    rng = np.random.default_rng(5)
    beh = [normalised_behaviour(layout, p, rng.random(layout.num_sequences[p])) for p in range(2)]
    maps = [_key_map(layout, tree, p) for p in range(2)]
    for p in range(2):
        o = 1 - p
        ref = RegretMinimizer(tree, "cfr+")
        ref.behaviour = [beh[i][maps[i]] for i in range(2)]
        ref.iteration = 1
        plans = [ref._realization(i, ref.behaviour[i]) for i in range(2)]
        ref._update(p, ref._payoffs(p, plans))
        q = np.zeros(layout.num_sequences[p])
        _update(layout, cards, p, beh[p], q, plan_from_behaviour(layout, o, beh[o])[0])
        assert np.abs(q[maps[p][1:]] / cards.scale - ref.regret[p]).max() < 1e-12


@pytest.mark.parametrize("spec", ["leduc_os", "leduc_os(ranks=4,suits=2)", "four_card"])
def test_same_iterates_as_tree_cfr_plus(spec):
    """After 60 iterations from the uniform strategies both average profiles agree.

    Not on the small Rhode Island decks: their symmetries give regrets that are exactly 0 in exact
    arithmetic, which rounding leaves at 0 in one implementation and 1e-17 in the other, and
    regret matching+ turns that into different strategies (uniform, or all on one action): both
    runs are CFR+, and the iterates part (the update itself is compared above)."""
    game = seqform.games.load(spec)
    sh = lossless.shrink(game)
    layout = sequence_layout(sh.abstraction)
    tree = seqform.compile_tree(sh.abstract)
    ours = cfr_plus(layout, iterations=60, bracket_every=60)
    theirs = cfr(tree, 60, algorithm="cfr+").average_profile()
    for p in range(2):
        mine = ours.behaviours[p][_key_map(layout, tree, p)]
        assert np.abs(mine - np.asarray(theirs.behaviour[p], dtype=np.float64)).max() < 1e-9


@pytest.mark.parametrize(
    "spec,iterations,width",
    # Rhode Island repeats on a larger game what Leduc checks: the slow tier
    [("leduc_os", 1000, 2e-3), pytest.param("rhode_island(ranks=2,suits=2)", 400, 0.5, marks=pytest.mark.slow)],
)
def test_brackets_hold_the_exact_value_and_narrow(spec, iterations, width):
    game = seqform.games.load(spec)
    exact = lossless.solve(game)
    assert exact.certified
    layout = sequence_layout(lossless.shrink(game).abstraction)
    res = cfr_plus(layout, iterations=iterations, bracket_every=iterations // 4)
    assert res.iterations == iterations and len(res.history) == 4
    for _, _, lo, up in res.history:
        assert Fraction(lo) <= exact.value <= Fraction(up)
    assert res.lower <= exact.value <= res.upper
    widths = [up - lo for _, _, lo, up in res.history]
    assert widths[-1] < widths[0] and res.width < width
    assert res.to_json()["method"] == "vector-cfr+"


def test_stops_at_a_target_width_and_refuses_bad_arguments():
    layout = sequence_layout(lossless.shrink(seqform.games.load("leduc_os")).abstraction)
    res = cfr_plus(layout, iterations=5000, bracket_every=50, target_width=0.01)
    assert res.width <= 0.01 and res.iterations < 5000 and "width" in res.stopped
    with pytest.raises(AbstractionError, match="iterations, seconds or target_width"):
        cfr_plus(layout)
    with pytest.raises(AbstractionError, match="bracket_every"):
        cfr_plus(layout, iterations=3, bracket_every=0)

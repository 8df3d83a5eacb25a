"""``OrderedSignalGame.lp_size_hint`` (what ``seqform.solve`` refuses full Rhode Island by, before
building anything) against the sequence form built from the compiled tree: rows, columns and the
nonzeros of E and F, on small decks of every ordered-signal family."""

import pytest

import seqform
from seqform.lp.sequenceform import sequence_form


@pytest.mark.parametrize(
    "spec",
    ["leduc_os(ranks=3,suits=2)", "leduc_os(ranks=4,suits=1)", "rhode_island(ranks=3,suits=2)", "four_card"],
)
def test_the_hint_is_the_built_sequence_form(spec):
    game = seqform.games.load(spec)
    rows, cols, nonzeros = game.lp_size_hint()
    sf = sequence_form(seqform.compile_tree(game))
    # the zero-sum LP in (x, dual of F's rows): E's rows and one per sequence of player 1 as
    # constraints; player 0's sequences and F's rows as variables
    assert rows == sf.E.shape[0] + sf.F.shape[1]
    assert cols == sf.E.shape[1] + sf.F.shape[0]
    assert nonzeros == sf.E.nnz + sf.F.nnz

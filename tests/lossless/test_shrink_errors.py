"""Bad games with ordered signals get clear errors naming the problem and where it is."""

import pytest

from lossless import (
    FOLD,
    SHOWDOWN,
    AbstractionError,
    BettingBuilder,
    OrderedSignalError,
    OrderedSignalGame,
    limit_betting,
    shrink,
)


def betting_one_showdown(table):
    b = BettingBuilder(2, 1)
    v = b.add("decide", 0, "", player=0, actions=["x", "y"])
    b.link(v, b.add(FOLD, 0, "x", payoff=(1, -1)))
    b.link(v, b.add(SHOWDOWN, 0, "y", payoff=table))
    return b.build()


def test_showdown_without_a_payoff_for_every_outcome():
    with pytest.raises(OrderedSignalError, match=r"betting node 2 \(y\): no payoff for outcome"):
        betting_one_showdown({(0, 1): (1, -1), (1, 0): (-1, 1)})


def test_more_cards_dealt_than_the_deck_has():
    with pytest.raises(OrderedSignalError, match="3 cards are dealt from a deck of 2"):
        OrderedSignalGame(
            ["a", "b"], private=[(1, 1)], public=[1], betting=limit_betting(1, (1,), 1), rank=lambda cards: cards
        )


def test_deals_and_betting_disagree_on_rounds():
    with pytest.raises(OrderedSignalError, match="the betting has 2 rounds"):
        OrderedSignalGame(
            ["a", "b", "c"], private=[(1, 1)], public=[0], betting=limit_betting(2, (1, 2), 1), rank=lambda cards: cards
        )


def test_float_weights_are_refused():
    with pytest.raises(OrderedSignalError, match="weights must be exact"):
        OrderedSignalGame(
            ["a", "b", "c"],
            private=[(1, 1)],
            public=[0],
            betting=limit_betting(1, (1,), 1),
            rank=lambda cards: cards,
            weights=[0.5, 0.25, 0.25],
        )


def test_a_rank_function_that_fails_names_the_hand():
    def rank(cards):
        if cards == (2,):
            raise ValueError("no rank for this card")
        return cards[0]

    game = OrderedSignalGame(
        ["a", "b", "c"], private=[(1, 1)], public=[0], betting=limit_betting(1, (1,), 1), rank=rank, name="broken"
    )
    with pytest.raises(AbstractionError, match=r"broken: rank\(\('c',\)\) failed: no rank for this card"):
        shrink(game)


def test_ranks_that_do_not_compare():
    game = OrderedSignalGame(
        ["a", "b", "c"],
        private=[(1, 1)],
        public=[0],
        betting=limit_betting(1, (1,), 1),
        rank=lambda cards: "x" if cards == (0,) else 1,
        name="mixed",
    )
    with pytest.raises(AbstractionError, match="mixed: hand ranks are not mutually comparable"):
        shrink(game)


def test_shrink_needs_a_game_with_ordered_signals():
    import seqform

    with pytest.raises(AbstractionError, match="needs a game with ordered signals"):
        shrink(seqform.games.kuhn())

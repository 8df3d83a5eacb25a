"""``lossless.treesizes.node_count_conventions`` against independent counts on small decks.

Each convention is a closed form over the betting tree and the deck. Here each is counted again
without it: from the arrays of the tree ``seqform.compile_tree`` builds (node kinds, and the kind
of each node's parent), from the tree compiled from a rewrite of the game that deals every card
at the root, or by walking the game's histories and counting distinct keys (the sets of cards
each player and the board hold; the suit orbit of the deal, by trying every suit permutation).
The full Rhode Island Hold'em numbers that docs/rhode-island-node-count.md reports are pinned.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from lossless import OrderedSignalGame, four_card, leduc_os, limit_betting, rhode_island
from lossless.handrank import three_card
from lossless.poker import deck_labels
from lossless.treesizes import game_tree_nodes, node_count_conventions
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.model.tree import compile_tree


def four_bets(ranks: int, suits: int) -> OrderedSignalGame:
    """Rhode Island Hold'em with 4 bets a round (the opening bet and 3 raises)."""
    return OrderedSignalGame(
        deck_labels(ranks, suits),
        private=[(1, 1), (0, 0), (0, 0)],
        public=[0, 1, 1],
        betting=limit_betting(3, (10, 20, 20), max_bets=4, ante=5),
        rank=three_card(ranks, suits),
        name=f"four_bets({ranks},{suits})",
    )


GAMES = [four_card(), leduc_os(), rhode_island(2, 2), rhode_island(1, 4), four_bets(2, 2)]


class DealtAtRoot(Game):
    """``game`` with one chance node at the root dealing every card (all ordered deals); players
    still see only the cards dealt by the current round."""

    def __init__(self, game: OrderedSignalGame):
        self.game, self.name, self.num_players = game, game.name + "@root", game.num_players
        self.deals = list(itertools.permutations(range(len(game.deck)), len(game.levels)))

    def root(self):
        return None

    def player(self, h):
        return CHANCE if h is None else self.game.player(h)

    def infoset(self, h):
        cards, v = h
        seen = cards[: self.game.dealt_by[self.game.betting.round[v]]]
        return (self.game.observation(seen, self.game.betting.player[v]), v)

    def actions(self, h):
        return tuple(str(d) for d in self.deals) if h is None else self.game.betting.actions[h[1]]

    def chance(self, h):
        return (Fraction(1, len(self.deals)),) * len(self.deals)

    def next(self, h, a):
        return (self.deals[a], 0) if h is None else (h[0], self.game.betting.after(h[1], a))

    def utility(self, h):
        return self.game.utility(h)


def histories(game: OrderedSignalGame):
    """Every history (cards, betting node) of the game, by walking its queries."""
    stack = [game.root()]
    while stack:
        h = stack.pop()
        yield h
        if game.player(h) != TERMINAL:
            stack.extend(game.next(h, a) for a in range(len(game.actions(h))))


def distinct(game: OrderedSignalGame, key) -> int:
    return len({(len(h[0]), h[1], key(h[0])) for h in histories(game)})


def as_sets(game: OrderedSignalGame):
    def key(cards):
        return tuple(
            frozenset(c for c, (owner, _) in zip(cards, game.levels) if owner == g)
            for g in sorted({owner for owner, _ in game.levels})
        )

    return key


def suit_orbit(game: OrderedSignalGame):
    suits = len({label[1:] for label in game.deck})
    perms = list(itertools.permutations(range(suits)))

    def key(cards):  # card = rank * suits + suit
        return min(tuple(c - c % suits + p[c % suits] for c in cards) for p in perms)

    return key


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_conventions_against_independent_counts(game):
    got = node_count_conventions(game)
    tree = compile_tree(game)
    kind = np.asarray(tree.player)
    parent = np.asarray(tree.parent)
    chance = kind == CHANCE
    parent_kind = np.where(parent >= 0, kind[np.maximum(parent, 0)], TERMINAL)
    assert got["compile_tree"] == tree.num_nodes == game_tree_nodes(game)
    assert got["decision_nodes"] == int((kind >= 0).sum())
    assert got["chance_nodes"] == int(chance.sum())
    assert got["terminal_nodes"] == int((kind == TERMINAL).sum())
    assert got["nonterminal_nodes"] == int((kind != TERMINAL).sum())
    # every round of these games deals cards, so a round's end is the edge from a decision node
    # into the chance node of the next round's first card
    assert got["with_round_ends"] == tree.num_nodes + int((chance & (parent_kind >= 0)).sum())
    # one chance node per round: chance nodes under chance nodes merge into the first
    assert got["one_chance_node_per_round"] == tree.num_nodes - int((chance & (parent_kind == CHANCE)).sum())
    root = compile_tree(DealtAtRoot(game))
    root_kind = np.asarray(root.player)
    assert got["cards_dealt_at_root"] == root.num_nodes
    assert got["cards_dealt_at_root_decision_nodes"] == int((root_kind >= 0).sum())
    assert int((root_kind == CHANCE).sum()) == 1
    assert got["hands_as_sets"] == distinct(game, as_sets(game))
    assert got["suit_isomorphic"] == distinct(game, suit_orbit(game))


def test_no_suit_count_without_a_rank_by_suit_deck():
    g = leduc_os()
    odd = OrderedSignalGame(
        ["Qc", "Kc", "Kd"],
        private=[(1, 1), (0, 0)],
        public=[0, 1],
        betting=g.betting,
        rank=lambda cards: tuple(sorted(cards)),
        name="odd",
    )
    assert "suit_isomorphic" not in node_count_conventions(odd)


def test_full_rhode_island_numbers_of_the_doc():
    """docs/rhode-island-node-count.md: none of these is the 3.1 billion of Sandholm (2010)."""
    assert node_count_conventions(rhode_island()) == {
        "compile_tree": 6_705_372_545,
        "decision_nodes": 2_554_427_616,
        "chance_nodes": 6_516_017,
        "terminal_nodes": 4_144_428_912,
        "nonterminal_nodes": 2_560_943_633,
        "with_round_ends": 6_711_888_509,
        "one_chance_node_per_round": 6_705_372_493,
        "cards_dealt_at_root": 7_413_533_401,
        "cards_dealt_at_root_decision_nodes": 2_962_814_400,
        "hands_as_sets": 3_362_460_245,
        "suit_isomorphic": 378_239_603,
    }
    assert node_count_conventions(four_bets(13, 4))["compile_tree"] == 14_242_107_257

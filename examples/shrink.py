"""Lossless abstraction: GameShrink shrinks a poker game, the LP solves the small game exactly,
and the strategies lift back to an exact equilibrium of the original game.

Run: python examples/shrink.py
"""

import lossless
from seqform import evaluate

# Sandholm 2010, Figure 2: two jacks and two kings; each player only needs to know its card's rank.
sh = lossless.shrink(lossless.four_card())
print(f"four-card game: {sh.sizes['before']['game_tree_nodes']} nodes -> {sh.sizes['after']['game_tree_nodes']}")

# Rhode Island Hold'em with a 6-card deck (2 ranks x 3 suits): 388,717 nodes.
game = lossless.rhode_island(ranks=2, suits=3)
res = lossless.solve(game)
print(
    f"{game.name}: {res.original_tree.num_nodes:,} nodes, abstract game "
    f"{res.abstract_solution.sizes['histories']:,} nodes"
)
print(f"value {res.value} (certified: {res.certified})")
# the lifted strategies are checked in the ORIGINAL game by exact best responses
ev = evaluate(res.original_tree, res.profile, exact=True)
print(f"lifted strategies: exact exploitability {ev.exploitability} in the original game")

# Full Rhode Island Hold'em: sizes only (about 20 s; the game tree has 6.7 billion nodes):
#   seqform shrink rhode_island

"""Lossless abstraction of games with ordered signals (GameShrink; Gilpin & Sandholm 2007, Sandholm 2010).

* ``OrderedSignalGame``: games with ordered signals (rounds of betting on a fixed tree, private
  and public cards, a total order on hands); also ``seqform.Game``s.
* The poker family: ``rhode_island(ranks, suits)``, ``leduc_os(ranks, suits)``, ``four_card()``
  (built-in game names through ``lossless.plugin``, e.g. ``seqform shrink rhode_island``).
* ``shrink(game)``: GameShrink, with the abstract game, the information-set map, ``lift`` and the
  sizes before and after; ``solve(game)``: solve through the abstraction, certified exactly in the
  original game. ``gameshrink`` explains (and proves) what is merged.
* At scale, without the game tree or the payoff matrix: ``sequence_layout(abstraction)`` numbers
  the abstract sequences, ``card_matrices`` holds the card part of the payoffs, ``bracket`` gives
  a certified bracket of the value from any profile (vector-form best responses with rigorous
  float error bounds) and ``cfr_plus`` runs CFR+ in the same vector form; ``sparsified_lp`` builds
  the abstract LP with its card matrices factorised (blocks, rank one plus a correction, sorted
  showdowns) and ``solve_sparsified`` gives it to HiGHS.
* Counting without building: ``game_tree_nodes(game)`` and ``node_count_conventions(game)`` (the
  node count under each counting convention; ``lossless.treesizes``).

References:

- Sandholm (2010), "The State of Solving Large Incomplete-Information Games, and Application to Poker", AI Magazine.
- Gilpin & Sandholm (2007), "Lossless Abstraction of Imperfect Information Games", Journal of the ACM.
"""

from seqform.lazyexports import lazy_exports

# every name is imported when first used: the command line loads this package for its plugin
__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)

"""Double oracle for extensive-form games (Bosansky, Kiekintveld, Lisy & Pechoucek, JAIR 2014;
Bosansky 2019): exact solving of two-player zero-sum games whose full sequence-form LP does not fit,
by growing a restricted game from best responses.

* ``doracle.oracle``: the best-response oracle on the implicit game (depth-first over the
  opponent's extended strategy, pruning by the game's utility bounds, exact);
* ``doracle.restricted``: restricted games from sequence sets, with temporary leaves;
* ``doracle.loop``: the loop (certified restricted LPs, exact best responses, modes "both" and
  "alternating", time limit and Ctrl-C return the bounds so far);
* ``doracle.extend``: a restricted strategy completed by the default strategy, on the full game's
  tree (``extended_profile``).

``doracle.solve(game)`` is ``double_oracle``; ``seqform solve GAME --method doracle`` runs it. The
Flip-It game of the paper is ``seqform.games.flipit``.

References:

- Bosansky (2019), "Solving Extensive-Form Games", lecture, Multiagent Systems, Czech Technical University in Prague.
- Bosansky, Kiekintveld, Lisy & Pechoucek (2014), "An Exact Double-Oracle Algorithm for Zero-Sum Extensive-Form Games
  with Imperfect Information", JAIR.
"""

from seqform.lazyexports import lazy_exports

# every name is imported when first used: the command line loads this package for its plugin
__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)

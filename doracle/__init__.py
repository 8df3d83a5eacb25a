"""Double oracle for extensive-form games (Bosansky, Kiekintveld, Lisy & Pechoucek, JAIR 2014).

In progress (the project's double-oracle issue). Here so far:

* ``bestresponse.best_response``: the best-response oracle on the implicit game (a depth-first
  walk over the opponent's support, default first action outside it, exact);
* ``restricted.RestrictedGame``: restricted games from sequence sets, with temporary leaves;
* ``loop.double_oracle``: the loop, exact (certified restricted LPs, exact best responses), both
  players' best responses each iteration;
* the Flip-It game (``seqform.games.flipit``).

``doracle.solve(game)`` is ``double_oracle``; ``seqform solve GAME --method doracle`` runs it.
Still to come: pruning by utility bounds in the oracle, and the Flip-It benchmark.
"""
from .loop import MODES, DoubleOracleResult, double_oracle

solve = double_oracle  # ``doracle.solve(game)``: the API name

__all__ = ["solve", "double_oracle", "DoubleOracleResult", "MODES"]

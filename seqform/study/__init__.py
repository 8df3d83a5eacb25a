"""Solvers tracked against certified ground truth: ``convergence`` (``seqform verify``: an
iterative solver's exploitability, value gap, information-set regret and distance to exact
refined equilibria, measured along its run)."""

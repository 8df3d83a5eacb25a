"""Per-information-set regret (Kroer, Farina & Sandholm 2017, section 4: the refinement measure of its Figure 3).

For information set I of player p: take I as reached with probability one, weight its nodes by
Bayes' rule (chance times the other players' reach; p's own reach is the same at every node of I
under perfect recall), and measure how much p gains, in expectation over those nodes, by
best-responding at I and at every one of p's information sets below it, the others' strategies
fixed. With ``W(I)`` the total weight of I's nodes and ``V_best``, ``V_cur`` the unnormalised
values of the backward pass (``seqform.verify.exploitability.backward_pass``),

    regret(I) = (V_best(I) - V_cur(I)) / W(I).

Where ``W(I) = 0`` (the others or chance never reach I), Bayes' rule is undefined: regret is
reported as NaN there and ``reached`` is False. Conditioning on a tremble-completed opponent
instead is the refinements package's business.

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqform.model.strategy import Profile, validate_profile
from seqform.model.tree import Tree
from seqform.verify.exploitability import backward_pass, others_reach, sequence_payoffs


@dataclass
class InfosetRegret:
    """``regret`` (M,) by global information-set id (NaN where unreached); ``reached`` (M,) bool;
    ``max_regret`` over reached information sets; ``argmax`` its global id (-1 if none)."""

    regret: np.ndarray
    reached: np.ndarray
    max_regret: float
    argmax: int

    def count_positive(self, tol: float = 1e-9) -> int:
        """How many reached information sets have regret above ``tol``."""
        return int(np.sum(self.regret[self.reached] > tol))


def reach_weights(tree: Tree, realizations: list) -> np.ndarray:
    """``W(I)`` per global information set, shape (M,): the sum over I's nodes of chance's reach
    times the other players' realization weights (the Bayes denominator of the module docstring)."""
    M = len(tree.infoset_player)
    dec = np.flatnonzero(tree.infoset >= 0)
    W = np.zeros(M)
    for p in range(tree.num_players):
        nodes = dec[tree.player[dec] == p]
        W += np.bincount(tree.infoset[nodes], weights=others_reach(tree, p, realizations, nodes), minlength=M)
    return W


def infoset_regret(tree: Tree, profile: Profile, validate: bool = True) -> InfosetRegret:
    """Regret at every information set of every player, in floats (see the module docstring).

    Parameters
    ----------
    tree, profile, validate
        As for ``seqform.exploitability`` (which raises the same ``StrategyError``).

    Returns
    -------
    InfosetRegret
        ``regret`` by global information set (NaN where unreached), ``reached``, ``max_regret``,
        ``argmax``.

    Examples
    --------
    >>> import seqform
    >>> tree = seqform.compile_tree(seqform.games.load("kuhn"))
    >>> r = seqform.infoset_regret(tree, seqform.uniform(tree))
    >>> round(r.max_regret, 6), int(r.reached.sum())
    (1.5, 12)
    """
    if validate:
        validate_profile(tree, profile)
    real = profile.realization(tree)
    M = len(tree.infoset_player)
    num = np.zeros(M)
    for p in range(tree.num_players):
        bp = backward_pass(tree, p, sequence_payoffs(tree, p, real), profile.behaviour[p])
        ids = tree.player_infosets[p]
        num[ids] = bp.best[ids] - bp.current[ids]
    W = reach_weights(tree, real)
    reached = W > 0
    regret = np.full(M, np.nan)
    # a best response never does worse than the strategy itself; clip rounding noise below zero
    regret[reached] = np.maximum(num[reached] / W[reached], 0.0)
    if reached.any():
        arg = int(np.flatnonzero(reached)[np.argmax(regret[reached])])
        return InfosetRegret(regret, reached, float(regret[arg]), arg)
    return InfosetRegret(regret, reached, 0.0, -1)

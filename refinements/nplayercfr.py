"""CFR+ in the eps-perturbed game of a game of any number of players: the near-equilibrium that
``refinements.nplayerperturbed`` polishes.

``refinements.perturbedcfr.PerturbedCFRPlus`` runs CFR+ on the perturbed polytopes (Farina, Kroer &
Sandholm 2017, "Regret Minimization in Behaviorally-Constrained Zero-Sum Games"): one regret
minimiser per information set on the split of the mass its bounds leave free. Its update is per
player against that player's sequence payoffs, so it holds for any number of players once the
payoffs come from all the others' plans (``seqform.iterative.cfr.RegretMinimizer.step`` computes
them, each player in turn against the others' newest plans); this class builds the bounds of every
player and declares ``ANY_NUMBER_OF_PLAYERS``. With more than two players CFR+ has no convergence
guarantee to an equilibrium; its average is only a guess, which the exact polish then certifies or
not.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from seqform.iterative.cfr import RegretMinimizer
from seqform.model.game import Game
from seqform.model.strategy import Profile, behaviour_from_realization
from seqform.model.tree import Tree, compile_tree

from . import nplayerperturbation as _np
from .errors import PerturbationError
from .perturbedcfr import PerturbedCFRPlus


class NPlayerPerturbedCFRPlus(PerturbedCFRPlus):
    """CFR+ in the ``concept`` ("efpe" or "qpe") perturbed game of ``tree`` at ``eps``, any number
    of players; ``average_profile()`` is behavioural, inside the perturbed polytopes."""

    ANY_NUMBER_OF_PLAYERS = True

    def __init__(self, tree: Game | Tree, concept: str = "efpe", eps: float = 1e-3):
        tree = tree if isinstance(tree, Tree) else compile_tree(tree)
        pert = _np.perturbation(tree, concept)
        _np.check(tree, pert, Fraction(str(eps)))
        self.pert, self.eps = pert, float(eps)
        RegretMinimizer.__init__(self, tree, "cfr+")
        self.algorithm = f"cfr+-{pert.name}"
        self._beta, self._need = [], []
        for p in range(tree.num_players):
            beta, lam = pert.bounds(tree, p, float(eps))
            need = lam.copy()
            for _lvl, seqs, starts, parents in tree.levels[p]:
                np.maximum.at(need, parents, np.add.reduceat(need[seqs], starts))
            self._beta.append(beta)
            self._need.append(need)
        if any(len(b) != len(s) for b, s in zip(self._beta, self._need)):
            raise PerturbationError("internal: bounds of the wrong length")
        self.behaviour = [self._matching(p) for p in range(tree.num_players)]

    def current_profile(self) -> Profile:
        """The behavioural strategies played now (inside the perturbed polytopes)."""
        return Profile(
            [
                behaviour_from_realization(self.tree, p, self._realization(p, self.behaviour[p]))
                for p in range(self.num_players)
            ]
        )

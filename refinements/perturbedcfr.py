"""CFR+ on perturbed polytopes: a regret minimiser for the eps-perturbed game of an EFPE or QPE
perturbation (Farina, Kroer & Sandholm 2017, "Regret Minimization in Behaviorally-Constrained
Zero-Sum Games").

Every plan of player p's perturbed polytope (``refinements.perturbation``) is reached by
choosing, at each information set J with incoming mass ``m = x[parent(J)]``, a point ``sigma_J``
of the simplex and setting ``x[(J, a)] = l_a(m) + sigma_J(a) (m - sum_b l_b(m))``: every action
gets its lower bound ``l_a(m)`` (``beta_a m`` for behavioural bounds, the mass ``R_a`` the
realization bounds below need, as in ``refinements.tremblingbestresponse``) and ``sigma_J``
spreads the rest. The polytope is thus a treeplex of scaled, shifted simplices, and regret
decomposes over it as over the plain treeplex (the scaled extension of Farina, Kroer & Sandholm
2019, "Regret Circuits: Composability of Regret Minimizers"): one regret minimiser per
information set, on ``sigma_J``, with counterfactual utilities

    D[s] = g[s] + sum over information sets K after s, actions b of K: (dx[(K, b)] / dm) D[(K, b)],

``dx[(K, b)] / dm = beta_b + (1 - sum beta) sigma_K(b)`` (behavioural) or ``sigma_K(b)``
(realization bounds, which do not grow with ``m``). The instantaneous regret of ``sigma_J`` is
``D[(J, a)] - sum_b sigma_J(b) D[(J, b)]`` (up to a positive factor per information set, which
regret matching+ ignores).

The rest is CFR+ as ``seqform.iterative.cfr`` runs it: regret matching+, alternating updates,
linear averaging of the realization plans played (the average stays in the polytope: it is
convex). With eps = 0 it is CFR+.

References:

- Farina, Kroer & Sandholm (2017), "Regret Minimization in Behaviorally-Constrained Zero-Sum Games", ICML.
- Farina, Kroer & Sandholm (2019), "Regret Circuits: Composability of Regret Minimizers", ICML.
- Tammelin, Burch, Johanson & Bowling (2015), "Solving Heads-up Limit Texas Hold'em", IJCAI.
"""

from __future__ import annotations

import numpy as np

from seqform.iterative.cfr import RegretMinimizer
from seqform.model.game import Game
from seqform.model.strategy import Profile, behaviour_from_realization
from seqform.model.tree import Tree, compile_tree

from .errors import PerturbationError
from .perturbation import Perturbation, efpe, qpe

PERTURBATIONS = {"efpe": efpe, "qpe": qpe}


class PerturbedCFRPlus(RegretMinimizer):
    """CFR+ in the eps-perturbed game of ``perturbation`` ("efpe", "qpe" or a function
    ``tree -> Perturbation``), module docstring. ``behaviour[p]`` holds ``sigma`` (the split of
    the free mass per information set); ``current_profile()`` and ``average_profile()`` are the
    behavioural strategies actually played, inside the perturbed polytopes.

    Examples
    --------
    >>> import seqform
    >>> from refinements.perturbedcfr import PerturbedCFRPlus
    >>> s = PerturbedCFRPlus(seqform.games.load("kuhn"), "efpe", eps=0.01)
    >>> s.step(500)
    >>> min(b.min() for b in s.average_profile().behaviour) >= 0.01 - 1e-12
    True
    """

    def __init__(self, game: Game | Tree, perturbation="efpe", eps: float = 1e-3):
        tree = game if isinstance(game, Tree) else compile_tree(game)
        make = PERTURBATIONS.get(perturbation, perturbation) if isinstance(perturbation, str) else perturbation
        if not callable(make):
            raise PerturbationError(f"unknown perturbation {perturbation!r}; choose one of efpe, qpe")
        pert: Perturbation = make(tree)
        if eps != 0:  # eps = 0 is the unperturbed game: plain CFR+
            pert.check(tree, eps)
        self.pert, self.eps = pert, float(eps)
        super().__init__(tree, "cfr+")
        self.algorithm = f"cfr+-{pert.name}"
        # per player: behavioural bounds, and the mass each sequence's realization bounds need
        self._beta, self._need = [], []
        for p in (0, 1):
            beta = pert.bounds(tree, p, float(eps))[0]
            need = pert.mass_needed(tree, p, eps)
            for seqs, starts, _rep, _parents in self._players[p].levels:
                if np.any(
                    (np.add.reduceat(beta[seqs] > 0, starts) > 0) & (np.add.reduceat(need[seqs] > 0, starts) > 0)
                ):
                    raise PerturbationError("perturbed CFR+ handles one kind of lower bound per information set")
            self._beta.append(beta)
            self._need.append(need)
        self.behaviour = [self._matching(p) for p in (0, 1)]

    def _realization(self, p: int, sigma: np.ndarray) -> np.ndarray:
        """The plan played: top-down, bounds first, then ``sigma`` spreads the free mass."""
        beta, need = self._beta[p], self._need[p]
        x = np.empty(len(sigma))
        x[0] = 1.0
        for seqs, starts, rep, parents in reversed(self._players[p].levels):
            m = x[parents][rep]
            low = beta[seqs] * m + need[seqs]
            free = m - np.add.reduceat(low, starts)[rep]
            x[seqs] = low + sigma[seqs] * free
        return x

    def _update(self, p: int, g: np.ndarray) -> None:
        L = self._players[p]
        sigma, beta = self.behaviour[p], self._beta[p]
        below = np.zeros(L.n)
        inst = np.empty(L.n)
        for seqs, starts, rep, parents in L.levels:
            D = g[seqs] + below[seqs]
            inst[seqs] = D - np.add.reduceat(sigma[seqs] * D, starts)[rep]
            # how the plan below grows with this information set's incoming mass
            bsum = np.add.reduceat(beta[seqs], starts)[rep]
            slope = beta[seqs] + (1.0 - bsum) * sigma[seqs]
            below += np.bincount(parents, weights=np.add.reduceat(slope * D, starts), minlength=L.n)
        R = self.regret[p]
        R += inst[1:]
        np.maximum(R, 0.0, out=R)
        self.cumulative[p] += float(self.iteration) * self._realization(p, sigma)
        self.behaviour[p] = self._matching(p)
        self.traversals += 1

    def current_profile(self) -> Profile:
        """The behavioural strategies played now (inside the perturbed polytopes)."""
        return Profile(
            [behaviour_from_realization(self.tree, p, self._realization(p, self.behaviour[p])) for p in (0, 1)]
        )

    def _meta(self) -> dict:
        return {**super()._meta(), "perturbation": self.pert.name, "eps": self.eps}

    @classmethod
    def _from_meta(cls, game, meta: dict) -> PerturbedCFRPlus:
        return cls(game, meta["perturbation"], meta["eps"])

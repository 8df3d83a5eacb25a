"""The dilated Euclidean distance on a player's treeplex (Hoda, Gilpin, Pena & Sandholm 2010;
strong-convexity bounds in Farina, Kroer & Sandholm 2019): the Euclidean-prox choice for EGT.

At information set I with parent sequence p(I) and behaviour b_I = x_I / x_p(I):

    d(x) = sum_I beta_I x_p(I) |b_I|^2 / 2,

with the weights of ``seqform.iterative.dilatedentropy``. Its gradient at a plan with behaviour b
is ``beta_I b_s - sum_{J right below s} beta_J |b_J|^2 / 2`` at sequence s = (I, a). The
operations EGT needs, each one bottom-up pass:

* smoothed best response ``max_x <g, x> - d(x)``: at each information set, with ``c`` the actions'
  values (payoff plus the value below), the best ``b`` is the Euclidean projection of ``c / beta``
  onto the simplex, worth ``<b, c> - beta |b|^2 / 2`` per unit of the parent's mass;
* Bregman step ``argmin_x <s, x> + D(x, x')`` = ``argmin_x <s - grad d(x'), x> + d(x)``.

EGT wants a distance that is 0 at its minimiser ``c`` over the treeplex (the "prox centre"), so
it uses ``d(x) - d(c) - <grad d(c), x - c>``; its largest value over the treeplex, ``D``, is
reached at a pure strategy (the function is convex) and is found by one more bottom-up pass.
Behavioural perturbations are not supported with this distance.

References:

- Hoda, Gilpin, Pena & Sandholm (2010), "Smoothing Techniques for Computing Nash Equilibria of Sequential Games",
  Mathematics of Operations Research.
- Farina, Kroer & Sandholm (2019), "Optimistic Regret Minimization for Extensive-Form Games via Dilated
  Distance-Generating Functions", NeurIPS.
"""

from __future__ import annotations

import numpy as np

from seqform.iterative.dilatedentropy import DilatedEntropy
from seqform.model.tree import Tree


def project_groups(v: np.ndarray, starts: np.ndarray, rep: np.ndarray) -> np.ndarray:
    """Euclidean projection of each group of ``v`` onto the probability simplex (groups are
    consecutive runs beginning at ``starts``; ``rep`` maps each entry to its group), by sorting:
    ``b = max(v - theta, 0)`` with theta from the largest ``rho`` such that the rho largest
    entries, less theta, stay positive."""
    order = np.lexsort((-v, rep))
    u = v[order]
    cs = np.cumsum(u)
    before = np.concatenate(([0.0], cs))[starts][rep]  # the sum of the groups before
    cs = cs - before
    j = np.arange(len(v)) - starts[rep] + 1  # rank within the group, from 1
    ok = u - (cs - 1.0) / j > 0
    rho = np.maximum.reduceat(np.where(ok, j, 0), starts)
    theta = (cs[starts + rho - 1] - 1.0) / rho
    return np.maximum(v - theta[rep], 0.0)


class DilatedEuclidean(DilatedEntropy):
    """One player's treeplex with the dilated Euclidean distance (module docstring); the same
    interface as ``DilatedEntropy`` (``prox`` returns the gradient at its point as the state a
    later Bregman step starts from)."""

    def __init__(self, tree: Tree, p: int, weights: str, scale: float = 1.0):
        super().__init__(tree, p, weights, 0.0, scale)
        self.tree, self.p = tree, p
        b_c, _ = self._smooth(np.zeros(self.n))
        self.centre = b_c
        x_c = self.realization(b_c)
        self.grad_c = self.gradient(b_c)
        self.d_c = self.value(b_c)
        self.shift = self.d_c - float(self.grad_c @ x_c)
        self.D = self._max_normalised()

    def gradient(self, b: np.ndarray) -> np.ndarray:
        """The gradient of d at the plan of behaviour ``b`` (module docstring)."""
        grad = np.zeros(self.n)
        for seqs, starts, rep, parents, beta, *_ in self.levels:
            grad[seqs] += beta[rep] * b[seqs]
            np.add.at(grad, parents, -0.5 * beta * np.add.reduceat(b[seqs] ** 2, starts))
        return grad

    def value(self, b: np.ndarray) -> float:
        """d at the plan of behaviour ``b``."""
        x = self.realization(b)
        total = 0.0
        for seqs, starts, _rep, parents, beta, *_ in self.levels:
            total += float(np.sum(beta * x[parents] * 0.5 * np.add.reduceat(b[seqs] ** 2, starts)))
        return total

    def _smooth(self, g: np.ndarray) -> tuple:
        """argmax_x <g, x> - d(x): (behaviour, its value)."""
        V = np.zeros(self.n)
        b = np.empty(self.n)
        b[0] = 1.0
        for seqs, starts, rep, parents, beta, *_ in self.levels:
            c = g[seqs] + V[seqs]
            q = project_groups(c / beta[rep], starts, rep)
            b[seqs] = q
            VI = np.add.reduceat(q * c, starts) - 0.5 * beta * np.add.reduceat(q * q, starts)
            np.add.at(V, parents, VI)
        return b, float(g[0] + V[0])

    def prox(self, s: np.ndarray, grad_prev: np.ndarray | None = None) -> tuple:
        """argmin_x <s, x> + D(x, x') for the point x' whose gradient is ``grad_prev`` (None: the
        prox centre). Returns (behaviour, the gradient at the new point, W) where, from the centre,
        ``max_x <-s, x> - (d(x) - d(c) - <grad d(c), x - c>) = W``."""
        prev = self.grad_c if grad_prev is None else grad_prev
        b, val = self._smooth(-(s - prev))
        return b, self.gradient(b), val + self.shift

    def _max_normalised(self) -> float:
        """max over pure strategies of d(x) - <grad d(c), x> - shift (a convex function: its
        maximum over the treeplex is at a vertex). At a pure strategy d adds beta_I / 2 for every
        information set it reaches."""
        below = -self.grad_c.copy()
        for seqs, starts, _rep, parents, beta, *_ in self.levels:
            np.add.at(below, parents, 0.5 * beta + np.maximum.reduceat(below[seqs], starts))
        return float(below[0] - self.shift)


__all__ = ["DilatedEuclidean", "project_groups"]

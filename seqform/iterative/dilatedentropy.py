"""The dilated entropy on a player's treeplex (Hoda, Gilpin, Pena & Sandholm 2010), with
behavioural perturbations (Kroer, Farina & Sandholm 2017): its weights, its largest value, and
the two operations first-order methods need, each one bottom-up pass over the information sets.

At information set I with parent sequence p(I), behaviour b_I = x_I / x_p(I):
d(x) = sum_I beta_I x_p(I) h(q_I), q_I = (b_I - eps_I) / (1 - n_I eps_I), h(q) = sum q log q + log n_I
(the perturbed simplex mapped affinely onto the simplex; eps = 0 is the plain dilated entropy).
Its minimiser is the uniform (perturbed) strategy, where d = 0. The weights ``beta`` are
described in ``seqform.iterative.egt``'s module docstring (``WEIGHTS``).

References:

- Hoda, Gilpin, Pena & Sandholm (2010), "Smoothing Techniques for Computing Nash Equilibria of Sequential Games",
  Mathematics of Operations Research.
- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
- Kroer, Waugh, Kilinc-Karzan & Sandholm (2017), "Theoretical and Practical Advances on Smoothing for Extensive-Form
  Games", EC (Mathematical Programming 2020).
- Farina, Kroer & Sandholm (2021), "Better Regularization for Sequential Decision Spaces: Fast Convergence Rates for
  Nash, Correlated, and Team Equilibria", EC.
"""

from __future__ import annotations

import numpy as np

from seqform.errors import SeqformError
from seqform.model.tree import Tree

WEIGHTS = ("kroer", "kroer17", "farina21", "one")


#: the first-order methods' tables (``seqform.model.limits.check_solver_tables``): iterates, averages
#: and gradients per sequence, the payoff matrix per leaf; measured ~160-240 bytes a sequence and
#: ~40 a leaf, all included (Leduc 5 ranks, Liar's Dice 1x5, Goofspiel 4); ``weights_bytes`` adds
#: Kroer's weights' tables
TABLE_BYTES = {"per_sequence": 320, "per_terminal": 64}


def weights_bytes(tree: Tree) -> int:
    """Bytes of the weights' tables (``kroer``: per information set and per sequence, one entry for
    each depth below, twice for the sequences' temporaries), both players."""
    M = len(tree.infoset_player)
    return sum((M + 2 * int(tree.num_sequences[p])) * (len(tree.levels[p]) + 1) * 8 for p in range(tree.num_players))


class DilatedEntropy:
    """One player's treeplex with the dilated entropy: the level schedule, per-information-set
    weights and perturbations (module docstring)."""

    def __init__(self, tree: Tree, p: int, weights: str, eps: float, scale: float = 1.0):
        self.n = tree.num_sequences[p]
        self.levels = []
        beta_of = scale * self._weights(tree, p, weights)
        for lvl, seqs, starts, parents in tree.levels[p]:
            nact = tree.infoset_num_actions[lvl]
            rep = np.repeat(np.arange(len(lvl)), nact)
            if eps * nact.max(initial=1) >= 1:
                raise SeqformError(
                    f"eps={eps} is too large: an information set of player {p} has "
                    f"{int(nact.max())} actions, so eps must be below {1 / nact.max():.3g}"
                )
            self.levels.append(
                (seqs, starts, rep, parents, beta_of[lvl], np.log(nact), eps * np.ones(len(lvl)), 1.0 - nact * eps)
            )
        self.D = self._max_distance(tree, p, beta_of)

    @staticmethod
    def _weights(tree: Tree, p: int, weights: str) -> np.ndarray:
        M = len(tree.infoset_player)
        beta = np.ones(M)
        if weights == "one":
            return beta
        if weights in ("kroer17", "farina21"):
            # bottom-up: beta_I = c0 + c1 max_a (sum of the weights of the sets right below (I, a))
            c0, c1 = (2.0, 2.0) if weights == "kroer17" else (1.0, 1.0)
            below = np.zeros(tree.num_sequences[p])
            for lvl, seqs, starts, parents in tree.levels[p]:
                beta[lvl] = c0 + c1 * np.maximum.reduceat(below[seqs], starts)
                np.add.at(below, parents, beta[lvl])
            return beta
        if weights != "kroer":
            raise SeqformError(f"unknown weights {weights!r}; choose one of {', '.join(WEIGHTS)}")
        depth = len(tree.levels[p])
        # reach[I, k]: most information sets at depth k below I (k = 0: I itself) one pure strategy reaches
        reach = np.zeros((M, depth + 1))
        below = np.zeros((tree.num_sequences[p], depth + 1))
        for lvl, seqs, starts, parents in tree.levels[p]:
            r = np.zeros((len(lvl), depth + 1))
            r[:, 0] = 1.0
            if depth:
                r[:, 1:] = np.maximum.reduceat(below[seqs][:, :-1], starts, axis=0)
            reach[lvl] = r
            np.add.at(below, parents, r)
        k = np.arange(depth + 1)
        beta = 2.0 + (reach[:, 1:] * 2.0 ** k[1:]).sum(axis=1)
        return beta

    @staticmethod
    def _max_distance(tree: Tree, p: int, beta: np.ndarray) -> float:
        """max d over the treeplex: at a pure strategy every reached I adds beta_I log n_I."""
        below = np.zeros(tree.num_sequences[p])
        for lvl, seqs, starts, parents in tree.levels[p]:
            v = beta[lvl] * np.log(tree.infoset_num_actions[lvl]) + np.maximum.reduceat(below[seqs], starts)
            np.add.at(below, parents, v)
        return float(below[0])

    def prox(self, s: np.ndarray, log_prev: np.ndarray | None = None) -> tuple:
        """argmin_x <s, x> + D(x, x') for the point x' with per-information-set log q' (None: the
        centre, uniform q'). Returns (behaviour, log q, W) where -W is the minimum's value when
        x' is the centre (so max_x <g, x> - d(x) = W for s = -g)."""
        W = np.zeros(self.n)
        b = np.empty(self.n)
        b[0] = 1.0
        logq = np.zeros(self.n)
        for seqs, starts, rep, parents, beta, lognact, eps, scale in self.levels:
            c = -s[seqs] + W[seqs]
            z = (scale[rep] * c) / beta[rep]
            z = z + (log_prev[seqs] if log_prev is not None else -lognact[rep])
            m = np.maximum.reduceat(z, starts)
            e = np.exp(z - m[rep])
            tot = np.add.reduceat(e, starts)
            q = e / tot[rep]
            logq[seqs] = z - (m + np.log(tot))[rep]
            b[seqs] = eps[rep] + scale[rep] * q
            WI = beta * (m + np.log(tot)) + eps * np.add.reduceat(c, starts)
            np.add.at(W, parents, WI)
        return b, logq, W[0] - s[0]

    def realization(self, b: np.ndarray) -> np.ndarray:
        x = np.empty(self.n)
        x[0] = 1.0
        for seqs, _starts, rep, parents, *_ in reversed(self.levels):
            x[seqs] = b[seqs] * x[parents][rep]
        return x

    def best_value(self, g: np.ndarray) -> float:
        """max <g, x> over the (perturbed) treeplex: each information set puts eps on every action
        and the rest on the best one."""
        below = np.zeros(self.n)
        for seqs, starts, _rep, parents, _beta, _lognact, eps, scale in self.levels:
            c = g[seqs] + below[seqs]
            v = eps * np.add.reduceat(c, starts) + scale * np.maximum.reduceat(c, starts)
            np.add.at(below, parents, v)
        return float(g[0] + below[0])


__all__ = ["DilatedEntropy", "WEIGHTS"]

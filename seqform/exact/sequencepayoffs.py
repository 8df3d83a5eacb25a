"""The sequence payoffs of a game of any number of players: player p's payoff from each of its
sequences s, the others' realization plans fixed,

    g_p[s] = sum over leaves z with seq_p(z) = s of chance(z) u_p(z) prod_{q != p} r_q[seq_q(z)],

multilinear in the others' plans (Koller, Megiddo & von Stengel (1996), "Efficient Computation of
Equilibria for Extensive Two-Person Games", with one factor per other player). The N-player polish
(``seqform.exact.nplayerpolish``) and the perturbed games of ``refinements`` share it.
"""

from __future__ import annotations

import flint
import numpy as np

from seqform.exact.rationals import fmpq_of
from seqform.model.tree import Tree


class SequencePayoffs:
    """Each player's sequence payoffs ``g_p[s] = sum over leaves z with seq_p(z) = s of chance(z)
    u_p(z) prod_{q != p} r_q[seq_q(z)]``, in floats or exactly for any ring elements (fmpq, elements
    of a number field, rational functions of eps). ``S[q]``: each leaf's sequence of player q;
    ``w[p]``: chance times player p's payoff per leaf (floats), ``w_exact[p]`` the same in fmpq."""

    def __init__(self, tree: Tree):
        t = tree.terminals
        self.tree, self.N = tree, tree.num_players
        self.S = [tree.node_seq[q, t] for q in range(self.N)]
        self.w = [tree.terminal_chance * tree.payoff[:, p] for p in range(self.N)]
        cu = list(zip(tree.terminal_chance_exact, tree.payoff_exact))
        self.w_exact = [[fmpq_of(c) * fmpq_of(u[p]) for c, u in cu] for p in range(self.N)]
        self.S_list = [s.tolist() for s in self.S]

    def g_float(self, r: list, p: int) -> np.ndarray:
        """Player p's payoffs for float plans ``r`` (per player, shape (n_q,)), shape (n_p,)."""
        prod = self.w[p].copy()
        for q in range(self.N):
            if q != p:
                prod *= r[q][self.S[q]]
        return np.bincount(self.S[p], weights=prod, minlength=self.tree.num_sequences[p])

    def g_exact(self, r: list, p: int) -> list:
        """Player p's payoffs for exact plans ``r``; leaves some other player never reaches skipped."""
        g = [flint.fmpq(0)] * self.tree.num_sequences[p]
        others = [q for q in range(self.N) if q != p]
        for k, w in enumerate(self.w_exact[p]):
            if not w or not all(r[q][self.S_list[q][k]] for q in others):
                continue
            for q in others:
                w = w * r[q][self.S_list[q][k]]
            g[self.S_list[p][k]] = g[self.S_list[p][k]] + w
        return g

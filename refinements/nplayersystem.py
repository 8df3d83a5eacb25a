"""The equations of an eps-perturbed game's equilibrium on one guessed support, any number of
players, with eps kept as a symbol in the coefficients.

In the eps-perturbed game (``refinements.nplayerperturbation``) player p's plan ``x`` is a best
response inside its perturbed polytope exactly when, at every information set J, the actions whose
sequence is above its bound have the largest *slope* ``C`` (the value of one more unit of mass on
that sequence, best play below it): ``refinements.tremblingbestresponse`` gives the best response
in closed form, and every information set is reached by the player's own plan (every bound is
positive), so a plan is optimal exactly when each set spreads its free mass on slope maximisers.
The slopes satisfy

    C[s] = g_p[s] + sum over information sets J right after s of c_J,
    c_J  = sum_a beta_a C[(J, a)] + (1 - sum_a beta_a) w_J      (behavioural bounds, EFPE)
    c_J  = w_J                                                   (realization bounds, QPE)

with ``w_J = max_a C[(J, a)]`` and ``g_p`` multilinear in the others' plans (the sequence payoffs of
``seqform.exact.sequencepayoffs.SequencePayoffs``). On a guessed support (which sequences are *at* their
bound) the conditions are polynomial equations, one per unknown:

* unknowns: every player's ``x[s]`` (s non-empty), ``C[s]``, and ``w_J`` per information set;
* equations: the flow constraints ``sum_a x[(J, a)] = x[parent(J)]``; ``x[s] = beta_s x[parent(s)] +
  lambda_s`` for s at its bound; the slope equations; ``C[s] = w_J`` for s above its bound;

and the inequalities: ``x[s] > beta_s x[parent(s)] + lambda_s`` above the bound, ``C[s] <= w_J`` at
it. The linear part's coefficients are polynomials in eps (``flint.fmpq_poly``); ``at(eps)`` gives
them at one eps, as floats or exactly.

References:

- Selten (1975), "Reexamination of the perfectness concept for equilibrium points in extensive games", International
  Journal of Game Theory.
- Farina, Kroer & Sandholm (2017), "Regret Minimization in Behaviorally-Constrained Zero-Sum Games", ICML.
- Miltersen & Sorensen (2010), "Computing a Quasi-Perfect Equilibrium of a Two-Player Game", Economic Theory.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from seqform.exact.sequencepayoffs import SequencePayoffs
from seqform.model.tree import Tree

from .nplayerperturbation import bound_polys
from .perturbation import Perturbation

_ONE = flint.fmpq_poly([1])


@dataclass
class Linear:
    """The linear part at one eps: ``L`` (m x n) and ``c`` (m,), floats or fmpq objects."""

    L: np.ndarray
    c: np.ndarray


class PerturbedSystem:
    """The equations of one support guess (module docstring). ``at_bound[p]``: bool per sequence
    of player p (index 0, the empty sequence, ignored). Unknowns ``z``: plans (``xcol``), then
    slopes (``ccol``), then ``w`` (``wcol``: global information set -> column); rows: flow,
    at-bound, slope (``grow``: (player, sequence) whose ``g`` the row subtracts), above-bound."""

    def __init__(self, tree: Tree, pert: Perturbation, at_bound: list):
        N = tree.num_players
        self.tree, self.N, self.pert = tree, N, pert
        self.at_bound = [np.asarray(a, dtype=bool).copy() for a in at_bound]
        for a in self.at_bound:
            a[0] = False
        self.base = SequencePayoffs(tree)
        self.beta, self.lam = zip(*(bound_polys(pert, p, tree.num_sequences[p]) for p in range(N)))
        n = 0
        self.xcol: list = []
        self.ccol: list = []
        for cols in (self.xcol, self.ccol):
            for p in range(N):
                c = np.full(tree.num_sequences[p], -1)
                c[1:] = np.arange(n, n + tree.num_sequences[p] - 1)
                cols.append(c)
                n += tree.num_sequences[p] - 1
            if cols is self.xcol:
                self.num_plan = n
        self.wcol = {}
        for p in range(N):
            for i in tree.player_infosets[p].tolist():
                self.wcol[i] = n
                n += 1
        self.n = n
        self.rows: list = []  # per row: ({column: fmpq_poly}, constant fmpq_poly)
        self.grow: list = []  # per slope row: (player, sequence, row)
        for p in range(N):
            self._player_rows(p)
        self.m = len(self.rows)
        self.g_rows = [np.array([k for q, _s, k in self.grow if q == p], dtype=int) for p in range(N)]
        self.g_seqs = [np.array([s for q, s, _k in self.grow if q == p], dtype=int) for p in range(N)]
        self._cache: dict = {}

    def _row(self, coef: dict, const=None) -> None:
        self.rows.append((coef, const if const is not None else flint.fmpq_poly([])))

    def _player_rows(self, p: int) -> None:
        tree = self.tree
        first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
        xc, cc, beta, lam = self.xcol[p], self.ccol[p], self.beta[p], self.lam[p]
        par = tree.seq_parent[p].tolist()
        ids = tree.player_infosets[p].tolist()
        for i in ids:  # flow
            f, k, ps = int(first[i]), int(nact[i]), int(pseq[i])
            coef = {int(xc[s]): _ONE for s in range(f, f + k)}
            if ps:
                self._row({**coef, int(xc[ps]): -_ONE})
            else:
                self._row(coef, -_ONE)
        for s in np.flatnonzero(self.at_bound[p]).tolist():  # x[s] = beta x[parent] + lam
            coef = {int(xc[s]): _ONE}
            const = -lam[s]
            if par[s]:
                coef[int(xc[par[s]])] = -beta[s]
            else:
                const = const - beta[s]
            self._row(coef, const)
        after: dict = {}
        for i in ids:
            after.setdefault(int(pseq[i]), []).append(i)
        for s in range(1, tree.num_sequences[p]):  # slopes: C[s] - sum_J c_J = g[s]
            coef = {int(cc[s]): _ONE}
            for i in after.get(s, []):
                f, k = int(first[i]), int(nact[i])
                bsum = flint.fmpq_poly([])
                for a in range(f, f + k):
                    if beta[a]:
                        coef[int(cc[a])] = -beta[a]
                        bsum += beta[a]
                coef[self.wcol[i]] = bsum - _ONE
            self._row(coef)
            self.grow.append((p, s, len(self.rows) - 1))
        for s in np.flatnonzero(~self.at_bound[p][1:]).tolist():  # C[s] = w_J above the bound
            s += 1
            self._row({int(cc[s]): _ONE, self.wcol[int(tree.seq_infoset[p][s])]: -_ONE})

    # ----- evaluation -------------------------------------------------------------------------
    def at(self, eps) -> Linear:
        """``L`` and ``c`` at ``eps``: floats for a float, fmpq objects for a Fraction or fmpq."""
        exact = not isinstance(eps, float)
        key = (exact, str(eps))
        if key not in self._cache:
            q = Fraction(eps)
            e = flint.fmpq(q.numerator, q.denominator)
            ef = float(eps)
            conv = (lambda v: v) if exact else float
            zero = flint.fmpq(0) if exact else 0.0
            L = np.empty((self.m, self.n), dtype=object if exact else float)
            L[:] = zero
            c = np.empty(self.m, dtype=object if exact else float)
            for k, (coef, const) in enumerate(self.rows):
                for j, poly in coef.items():
                    L[k, j] = conv(poly(e) if exact else _float_eval(poly, ef))
                c[k] = conv(const(e) if exact else _float_eval(const, ef))
            self._cache = {key: Linear(L, c)} if len(self._cache) > 4 else {**self._cache, key: Linear(L, c)}
        return self._cache[key]

    def plans(self, z: np.ndarray) -> list:
        """Every player's full realization plan (with ``x[empty] = 1``) from ``z``."""
        one = flint.fmpq(1) if z.dtype == object else 1.0
        out = []
        for p in range(self.N):
            r = np.empty(self.tree.num_sequences[p], dtype=z.dtype)
            r[0] = one
            r[1:] = z[self.xcol[p][1:]]
            out.append(r)
        return out

    def residual(self, z: np.ndarray, eps) -> np.ndarray:
        """``L(eps) z + c(eps) - g`` on the slope rows: floats, or fmpq for an object ``z``."""
        exact = z.dtype == object
        lin = self.at(eps if exact else float(eps))
        F = lin.L.dot(z) + lin.c
        r = self.plans(z)
        for p in range(self.N):
            g = np.array(self.base.g_exact(list(r), p), dtype=object) if exact else self.base.g_float(r, p)
            F[self.g_rows[p]] -= g[self.g_seqs[p]]
        return F

    def jacobian(self, z: np.ndarray, eps: float) -> np.ndarray:
        """dF/dz at a float ``z``: ``L(eps)`` minus g differentiated in each other player's plan."""
        tree, N = self.tree, self.N
        r = self.plans(z)
        J = self.at(float(eps)).L.copy()
        for p in range(N):
            row_of = np.full(tree.num_sequences[p], -1)
            row_of[self.g_seqs[p]] = self.g_rows[p]
            for q in range(N):
                if q == p:
                    continue
                prod = self.base.w[p].copy()
                for k in range(N):
                    if k not in (p, q):
                        prod *= r[k][self.base.S[k]]
                rr, cc = row_of[self.base.S[p]], self.xcol[q][self.base.S[q]]
                keep = (rr >= 0) & (cc >= 0)
                np.add.at(J, (rr[keep], cc[keep]), -prod[keep])
        return J


def _float_eval(poly: flint.fmpq_poly, e: float) -> float:
    out = 0.0
    for c in reversed(poly.coeffs()):
        out = out * e + float(c)
    return out

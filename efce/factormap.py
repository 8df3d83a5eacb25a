"""The most likely full pure profile of a model's energy, exactly, by mixed-integer programming:
the pricing problem of column generation for the EFCE LP (``efce.columngeneration``).

Both models of Dudik & Gordon (2009)'s exponential family write the energy
w . u(s) - L . G(s) + Lam . B(s) as a sum of *factors*, each depending on the actions at a few
information sets (``efce.family``):

* ``efce.treemodel.TreeModel``: one factor per leaf z, over the information sets on z's path, with
  the leaf table's values (``TreeModel.table``): at most 5 information sets and 32 combinations
  in Indian poker.
* ``efce.polymatrix.PolymatrixModel``: one factor per edge {i, j} of the graph, over (s_i, s_j):
  player i's term (w_i + Lam[i, s_i]) M_ij[s_i, s_j] - sum_b L[(i, s_i), b] M_ij[b, s_j] plus
  player j's, since u_i(s) = sum_j M_ij[s_i, s_j].

The maximum over profiles of a sum of factors is the maximum a-posteriori problem of a Markov
random field. Its integer program over the local polytope (e.g. Wainwright & Jordan 2008,
"Graphical Models, Exponential Families, and Variational Inference", section 8.4): a binary
x[i, a] per information set and action (one action each), a continuous mu[f, c] >= 0 per factor
and combination, summing to 1, whose marginal on each of its information sets is x. With x
integral, mu is the indicator of the chosen combination, so the optimum is the exact maximum.
HiGHS's branch and cut solves it (``scipy.optimize.milp``). The constraints do not depend on
lambda: they are built once, and each solve only sets the objective.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
- Wainwright & Jordan (2008), "Graphical Models, Exponential Families, and Variational Inference".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from seqform.errors import SolverError


@dataclass
class MapSolution:
    """``profile``: the best full profile (information sets + 1 entries, the models' layout);
    ``energy``: its energy (the model's own evaluation); ``bound``: HiGHS's upper bound on the
    maximum (equal up to its gap tolerance when ``optimal``)."""

    profile: np.ndarray
    energy: float
    bound: float
    optimal: bool


class FactorMAP:
    """The MAP integer program of ``model`` (a ``TreeModel`` or ``PolymatrixModel``), built once."""

    def __init__(self, model):
        self.model = model
        M = model.M
        A = np.asarray(model.A, dtype=np.int64)
        self.xoff = np.concatenate([[0], np.cumsum(A)]).astype(np.int64)   # x[i, a] at xoff[i] + a
        nx = int(self.xoff[-1])
        if hasattr(model, "rows"):
            self._tree_factors()
        else:
            self._edge_factors()
        nmu = self.nmu
        # rows: one action per information set; each factor's mass 1; marginals equal x
        r_one = np.repeat(np.arange(M), A)
        c_one = np.arange(nx)
        rows, cols, vals = [r_one], [c_one], [np.ones(nx)]
        nrow = M
        F = len(self.fstart) - 1
        fac_of_mu = np.repeat(np.arange(F), np.diff(self.fstart))
        rows.append(nrow + fac_of_mu)
        cols.append(nx + np.arange(nmu))
        vals.append(np.ones(nmu))
        nrow += F
        # marginal rows: (factor, slot, action): sum of mu over the combinations with that action
        # there, minus x[infoset, action]
        mrow = nrow + self.marg_row          # (entries,) a row per (factor, slot, action)
        rows.append(mrow)
        cols.append(nx + self.marg_mu)
        vals.append(np.ones(len(mrow)))
        nrow_m = int(self.marg_row.max()) + 1 if len(self.marg_row) else 0
        rows.append(nrow + self.mx_row)
        cols.append(self.mx_col)
        vals.append(-np.ones(len(self.mx_row)))
        nrow += nrow_m
        self.A_ub = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                                  shape=(nrow, nx + nmu))
        self.nx, self.nrow = nx, nrow
        self.integrality = np.r_[np.ones(nx), np.zeros(nmu)]

    # ------------------------------------------------------------ factors of the two models
    def _tree_factors(self) -> None:
        """One factor per leaf: its path's information sets (slots with more than one action)."""
        m = self.model
        r = m.rows
        D, T = m.radix.shape
        sizes = m.radix.prod(0)                                  # combinations per leaf
        self.fstart = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.nmu = int(self.fstart[-1])
        # the leaf table's entry of each (leaf, combination): z K + c
        z_of = np.repeat(np.arange(T), sizes)
        c_of = np.arange(self.nmu) - self.fstart[z_of]
        self.obj_index = z_of * m.K + c_of
        mr, mm, xr, xc = [], [], [], []
        row = 0
        for k in range(D):
            live = np.flatnonzero(m.radix[k] > 1)
            if not len(live):
                continue
            # every (leaf, combination) of the live leaves, and its action at slot k
            for_leaf = np.isin(z_of, live)
            mu = np.flatnonzero(for_leaf)
            act = (c_of[mu] // m.stride[k, z_of[mu]]) % m.radix[k, z_of[mu]]
            # a row per (live leaf, action at slot k): numbered densely
            Akz = m.radix[k, live]
            rbase = np.concatenate([[0], np.cumsum(Akz)[:-1]])
            pos = np.full(T, -1, dtype=np.int64)
            pos[live] = np.arange(len(live))
            mr.append(row + rbase[pos[z_of[mu]]] + act)
            mm.append(mu)
            leaf_rows = np.repeat(row + rbase, Akz)
            acts = np.arange(int(Akz.sum())) - np.repeat(rbase, Akz)
            xr.append(leaf_rows + acts)
            xc.append(self.xoff[np.repeat(r.J[k, live], Akz)] + acts)
            row += int(Akz.sum())
        cat = (lambda xs: np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64))
        self.marg_row, self.marg_mu, self.mx_row, self.mx_col = cat(mr), cat(mm), cat(xr), cat(xc)

    def _edge_factors(self) -> None:
        """One factor per edge {i, j} (i < j) of the polymatrix game, over (s_i, s_j)."""
        m = self.model
        edges = [(i, j) for i, nb in enumerate(m.pm.neighbours) for j in nb if i < j]
        self.edges = np.array(edges, dtype=np.int64).reshape(-1, 2)
        A = m.A
        sizes = A[self.edges[:, 0]] * A[self.edges[:, 1]] if len(edges) else np.zeros(0, dtype=np.int64)
        self.fstart = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.nmu = int(self.fstart[-1])
        mr, mm, xr, xc = [], [], [], []
        row = 0
        for e, (i, j) in enumerate(edges):
            ai, aj = int(A[i]), int(A[j])
            mu = self.fstart[e] + np.arange(ai * aj)
            a, b = np.divmod(np.arange(ai * aj), aj)
            mr += [row + a, row + ai + b]
            mm += [mu, mu]
            xr += [row + np.arange(ai), row + ai + np.arange(aj)]
            xc += [self.xoff[i] + np.arange(ai), self.xoff[j] + np.arange(aj)]
            row += ai + aj
        cat = (lambda xs: np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64))
        self.marg_row, self.marg_mu, self.mx_row, self.mx_col = cat(mr), cat(mm), cat(xr), cat(xc)

    def _objective(self) -> np.ndarray:
        """Each (factor, combination)'s energy under the model's current w, L and Lam: (nmu,)."""
        m = self.model
        if hasattr(m, "rows"):
            return np.asarray(m.table())[self.obj_index]
        Phi = m.edge_tables()
        out = np.empty(self.nmu)
        for e, (i, j) in enumerate(self.edges.tolist()):
            d = list(m.pm.neighbours[i]).index(j)
            out[self.fstart[e]:self.fstart[e + 1]] = Phi[i, d, :int(m.A[i]), :int(m.A[j])].ravel()
        return out

    # ------------------------------------------------------------ the solve
    def solve(self, time_limit: float | None = None, gap: float = 1e-9) -> MapSolution:
        """The full profile of largest energy under the model's current w, L and Lam."""
        from scipy.optimize import Bounds, LinearConstraint, milp
        theta = self._objective()
        nx, M = self.nx, self.model.M
        F = len(self.fstart) - 1
        lo = np.r_[np.ones(M), np.ones(F), np.zeros(self.nrow - M - F)]
        cons = LinearConstraint(self.A_ub, lo, lo)
        c = -np.r_[np.zeros(nx), theta]
        opts = {"mip_rel_gap": gap, "disp": False}
        if time_limit is not None:
            opts["time_limit"] = float(time_limit)
        res = milp(c, constraints=cons, integrality=self.integrality,
                   bounds=Bounds(np.zeros(nx + self.nmu), np.ones(nx + self.nmu)), options=opts)
        if res.x is None:
            raise SolverError(f"HiGHS found no MAP profile: {res.message}")
        x = res.x[:nx]
        prof = np.zeros(M + 1, dtype=np.int64)
        for i in range(M):
            prof[i] = int(np.argmax(x[self.xoff[i]:self.xoff[i + 1]]))
        e = float(self.model.energy(prof[None, :])[0])
        bound = -float(getattr(res, "mip_dual_bound", res.fun) if getattr(res, "mip_dual_bound", None) is not None
                       else res.fun)
        return MapSolution(prof, e, max(bound, e), res.status == 0)

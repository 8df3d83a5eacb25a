"""The most likely full pure profile of a model's energy, exactly, by mixed-integer programming:
the pricing problem of column generation for the EFCE LP (``efce.colgen``).

Both models of Dudik & Gordon (2009)'s exponential family write the energy
w . u(s) - L . G(s) + Lam . B(s) as a sum of *factors*, each depending on the actions at a few
information sets (``efce.family``):

* ``efce.treemodel.TreeModel``: one term per leaf z, over the information sets on z's path, with
  the leaf table's values (``TreeModel.table``): at most 5 information sets and 32 combinations
  in Indian poker. The leaves that share their chance outcomes (a deal of cards) are summed into
  one factor over all their information sets (12 and 4,096 combinations in Indian poker), which
  makes the relaxation far tighter (``FactorMAP``'s ``cluster_limit``).
* ``efce.polymatrix.PolymatrixModel``: one factor per edge {i, j} of the graph, over (s_i, s_j):
  player i's term (w_i + Lam[i, s_i]) M_ij[s_i, s_j] - sum_b L[(i, s_i), b] M_ij[b, s_j] plus
  player j's, since u_i(s) = sum_j M_ij[s_i, s_j].

The maximum over profiles of a sum of factors is the maximum a-posteriori problem of a Markov
random field. Its integer program over the local polytope (e.g. Wainwright & Jordan 2008,
"Graphical Models, Exponential Families, and Variational Inference", section 8.4): a binary
x[i, a] per information set and action (one action each), a continuous mu[f, c] >= 0 per factor
and combination, summing to 1, whose marginal on each of its information sets is x. With x
integral, mu is the indicator of the chosen combination, so the optimum is the exact maximum.
HiGHS's branch and cut solves it (``seqform.lp.highs.solve_highs_mip``). The constraints do not depend on
lambda: they are built once, and each solve only sets the objective.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
- Wainwright & Jordan (2008), "Graphical Models, Exponential Families, and Variational Inference".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
import scipy.sparse as sp

from seqform.errors import SolverError

from .family import Model

if TYPE_CHECKING:
    from .polymatrix import PolymatrixModel
    from .treemodel import TreeModel
from .leafpaths import leaf_paths


@dataclass
class MapSolution:
    """``profile``: the best full profile (information sets + 1 entries, the models' layout),
    or None when the time limit stopped HiGHS before it found any; ``energy``: its energy (the
    model's own evaluation; -inf without a profile); ``bound``: HiGHS's upper bound on the
    maximum (equal up to its gap tolerance when ``optimal``; inf when it proved none)."""

    profile: np.ndarray | None
    energy: float
    bound: float
    optimal: bool

    @property
    def stopped_empty(self) -> bool:
        """The time limit stopped the integer program before it found a profile."""
        return self.profile is None


class FactorMAP:
    """The MAP integer program of ``model`` (``efce.family.Model``: its ``kind`` says whether
    the factors are a tree's leaf clusters or a polymatrix game's edges), built once.
    ``cluster_limit``: a tree model's leaves are grouped by their chance outcomes into one factor
    each while the group's information sets have at most this many action combinations
    (``_leaf_clusters``; 1: one factor per leaf). At the duals where 4-card Indian poker's
    first-mover maximum stalls, one factor per deal (4,096 combinations each, 98,304 mu) proved
    the largest reduced cost 1.3e-11 in 169 s; one per leaf (5,568 mu) had not closed its bound
    (0.079) after 960 s. The LP relaxation bound there: 0.089 against 4.9."""

    def __init__(self, model: Model, cluster_limit: int = 4096):
        self.model = model
        self.cluster_limit = int(cluster_limit)
        M = model.M
        A = np.asarray(model.A, dtype=np.int64)
        self.xoff = np.concatenate([[0], np.cumsum(A)]).astype(np.int64)  # x[i, a] at xoff[i] + a
        nx = int(self.xoff[-1])
        if model.kind == "tree":
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
        mrow = nrow + self.marg_row  # (entries,) a row per (factor, slot, action)
        rows.append(mrow)
        cols.append(nx + self.marg_mu)
        vals.append(np.ones(len(mrow)))
        nrow_m = int(self.marg_row.max()) + 1 if len(self.marg_row) else 0
        rows.append(nrow + self.mx_row)
        cols.append(self.mx_col)
        vals.append(-np.ones(len(self.mx_row)))
        nrow += nrow_m
        self.A_ub = sp.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(nrow, nx + nmu)
        )
        self.nx, self.nrow = nx, nrow
        self.integrality = np.r_[np.ones(nx), np.zeros(nmu)]

    # ------------------------------------------------------------ factors of the two models
    def _tree_factors(self) -> None:
        """One factor per cluster of leaves (``_leaf_clusters``) over the union of their paths'
        information sets (those with more than one action); its value at a combination is the sum
        of its leaves' table entries there (``obj_map``, a 0/1 matrix onto the leaf table)."""
        m = cast("TreeModel", self.model)  # kind "tree"
        J = m.rows.J
        D, T = m.radix.shape
        fsizes, obj_r, obj_c, mr, mm, xr, xc = [], [], [], [], [], [], []
        mu0 = row = 0
        for leaves in self._leaf_clusters():
            live = m.radix[:, leaves] > 1  # (D, n)
            scope = np.unique(J[:, leaves][live])
            A = m.A[scope]
            P = int(np.prod(A))
            combos = (
                np.stack(np.unravel_index(np.arange(P), A), 1) if len(scope) else np.zeros((1, 0), dtype=np.int64)
            )  # (P, |scope|)
            at = np.minimum(np.searchsorted(scope, J[:, leaves]), max(0, len(scope) - 1))
            act = (
                np.where(live[None], combos[:, at], 0) if len(scope) else np.zeros((1, D, len(leaves)), dtype=np.int64)
            )
            c = (act * m.stride[:, leaves][None]).sum(1)  # (P, n): each leaf's combination
            obj_r.append(mu0 + np.repeat(np.arange(P), len(leaves)))
            obj_c.append((leaves[None, :] * m.K + c).ravel())
            for p, (j, ap) in enumerate(zip(scope.tolist(), A.tolist())):
                mr.append(row + combos[:, p])
                mm.append(mu0 + np.arange(P))
                xr.append(row + np.arange(ap))
                xc.append(self.xoff[j] + np.arange(ap))
                row += ap
            fsizes.append(P)
            mu0 += P
        self.fstart = np.concatenate([[0], np.cumsum(fsizes)]).astype(np.int64)
        self.nmu = mu0
        oc = np.concatenate(obj_c)
        self.obj_map = sp.csr_matrix((np.ones(len(oc)), (np.concatenate(obj_r), oc)), shape=(mu0, T * m.K))
        cat = lambda xs: np.concatenate(xs).astype(np.int64) if xs else np.zeros(0, dtype=np.int64)
        self.marg_row, self.marg_mu, self.mx_row, self.mx_col = cat(mr), cat(mm), cat(xr), cat(xc)

    def _leaf_clusters(self) -> list:
        """The leaves grouped by their chance outcomes (a deal of cards in Indian poker), a group
        kept whole while its information sets have at most ``cluster_limit`` combinations, else
        one leaf each. A cluster's factor is a joint distribution over all its information sets,
        so the relaxation is tighter than with one factor per leaf (the local polytope of the
        coarser factor graph); with x integral both are exact."""
        m = cast("TreeModel", self.model)  # kind "tree"
        T = m.radix.shape[1]
        if self.cluster_limit <= 1:
            return [np.array([z]) for z in range(T)]
        chn, chact = leaf_paths(m.tree)[2:]
        key = np.hstack([chn, chact]) if chn.size else np.zeros((T, 1), dtype=np.int64)
        _, grp = np.unique(key, axis=0, return_inverse=True)
        grp = grp.ravel()
        out = []
        for g in range(int(grp.max()) + 1):
            leaves = np.flatnonzero(grp == g)
            scope = np.unique(m.rows.J[:, leaves][m.radix[:, leaves] > 1])
            if np.prod(m.A[scope].astype(float)) <= self.cluster_limit:
                out.append(leaves)
            else:
                out += [np.array([z]) for z in leaves.tolist()]
        return out

    def _edge_factors(self) -> None:
        """One factor per edge {i, j} (i < j) of the polymatrix game, over (s_i, s_j)."""
        m = cast("PolymatrixModel", self.model)  # kind "polymatrix"
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
        cat = lambda xs: np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64)
        self.marg_row, self.marg_mu, self.mx_row, self.mx_col = cat(mr), cat(mm), cat(xr), cat(xc)

    def _objective(self) -> np.ndarray:
        """Each (factor, combination)'s energy under the model's current w, L and Lam: (nmu,)."""
        if self.model.kind == "tree":
            return self.obj_map @ np.asarray(cast("TreeModel", self.model).table())
        m = cast("PolymatrixModel", self.model)
        Phi = m.edge_tables()
        out = np.empty(self.nmu)
        for e, (i, j) in enumerate(self.edges.tolist()):
            d = list(m.pm.neighbours[i]).index(j)
            out[self.fstart[e] : self.fstart[e + 1]] = Phi[i, d, : int(m.A[i]), : int(m.A[j])].ravel()
        return out

    # ------------------------------------------------------------ the solve
    def relaxation_bound(self, time_limit: float | None = None) -> float:
        """An upper bound on the largest energy: the LP relaxation (the local polytope) of
        ``solve``'s integer program, without integrality; inf when HiGHS does not solve it
        (its time limit included: no bound is proved then)."""
        saved = self.integrality
        self.integrality = np.zeros_like(saved)
        try:
            sol = self.solve(time_limit=time_limit)
        except SolverError:
            return math.inf
        finally:
            self.integrality = saved
        return sol.bound if sol.optimal else math.inf

    def _program(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The integer program's objective and bounds, for ``seqform.lp.highs``: cost over
        (x, mu), column bounds [0, 1], and each row's value (lower = upper)."""
        nx, M = self.nx, self.model.M
        F = len(self.fstart) - 1
        rows = np.r_[np.ones(M), np.ones(F), np.zeros(self.nrow - M - F)]
        cost = np.r_[np.zeros(nx), self._objective()]
        return cost, np.zeros(nx + self.nmu), np.ones(nx + self.nmu), rows, rows

    def solve(self, time_limit: float | None = None, gap: float = 1e-9) -> MapSolution:
        """The full profile of largest energy under the model's current w, L and Lam, by
        HiGHS's branch and cut through ``seqform.lp.highs.solve_highs_mip``. A clock that runs
        out is a stop, not a failure: without an incumbent the solution has no profile
        (``stopped_empty``) and the caller decides what it knew."""
        from seqform.lp.highs import solve_highs_mip

        res = solve_highs_mip(
            self.A_ub.tocsc(), *self._program(), self.integrality, maximize=True, time_limit=time_limit, gap=gap
        )
        if res.col_value is None:
            return MapSolution(None, -math.inf, res.bound, False)
        x = res.col_value[: self.nx]
        prof = np.zeros(self.model.M + 1, dtype=np.int64)
        for i in range(self.model.M):
            prof[i] = int(np.argmax(x[self.xoff[i] : self.xoff[i + 1]]))
        e = float(self.model.energy(prof[None, :])[0])
        return MapSolution(prof, e, max(res.bound, e), res.optimal)

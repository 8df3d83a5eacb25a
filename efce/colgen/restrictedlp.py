"""The EFCE LP restricted to a pool of pure profiles (``efce.colgen``): its regret rows, the
pool of profile columns, and its solve by HiGHS.

**The rows** (von Stengel & Forges 2008's EFCE LP with full pure profiles as columns). For
trigger t = (information set i of player n, action a), the best deviation is a best response
over n's sub-treeplex rooted at i against the sequence payoffs g_t(p) = p . G[:, pairs of t];
dualised (the causal-deviation dynamic program of ``efce.deviationdp`` as an LP), "it gains
at most eps" reads

    g_t,tau(p) - v_t,J(tau) + sum of v_t,K over the information sets K right below tau <= 0
                                           for every sequence tau of n at or below i,
    v_t,i - p . B[:, t] - eps <= 0,

with free v, and sum p = 1. G and B are the models' sample statistics (``efce.family``), so the
rows are the same for ``efce.treemodel.TreeModel`` and ``efce.polymatrix.PolymatrixModel``:
one per (trigger, sequence) pair and one per trigger, polynomially many, while the profiles are
not.

**The pool.** Profiles join as columns when a pricing finds them; ``retire`` drops those that
have been nonbasic for a while once the pool is over its cap. Deleting only nonbasic columns
leaves the last basis optimal, so the LP's value never drops.

References:

- von Stengel & Forges (2008), "Extensive-Form Correlated Equilibrium: Definition and Computational Complexity",
  Mathematics of Operations Research.
- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from ..deviationdp import CausalDeviationDP
from ..family import Model

if TYPE_CHECKING:
    from seqform.lp.highs import HighsResult

#: HiGHS's basis status of a basic column or row
BASIC = 1
#: HiGHS's least feasibility tolerances (its default is 1e-7), for ``solve(tight=True)``
TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


class RegretRows:
    """The restricted LP's regret rows for the causal-deviation program ``dp`` (module
    docstring): for each trigger its pairs' rows, then, after every trigger's pairs, one row per
    trigger; and the free v variables, one per (trigger, information set at or below the
    trigger's). ``pair_rows`` (P,) and ``trig_rows`` (T,): the model's pair and trigger of each
    row; ``own``, ``kids`` (per pair row) and ``roots`` (per trigger): v's columns; ``V``
    (P + T, nv): their coefficients."""

    def __init__(self, dp: CausalDeviationDP) -> None:
        pair_rows, own, kids, roots, trig_rows = [], [], [], [], []
        nv = 0
        for t in dp.triggers():
            items = dp.trigger_items(t)
            loc = {x.infoset: nv + k for k, x in enumerate(items)}
            for r, m in sorted((x.start + b, x.infoset) for x in items for b in range(x.size)):
                pair_rows.append(r)
                own.append(loc[m])
                kids.append([loc[j] for j in dp.below.get(r, ())])
            roots.append(loc[dp.root[t]])
            trig_rows.append(t)
            nv += len(items)
        self.pair_rows = np.array(pair_rows, dtype=np.int64)
        self.trig_rows = np.array(trig_rows, dtype=np.int64)
        self.own, self.kids, self.roots = own, kids, roots
        P, T = len(pair_rows), len(trig_rows)
        self.npair_rows = P
        self.nrows = P + T
        self.nv = nv
        r, c, v = [], [], []
        for k in range(P):
            r.append(k)
            c.append(own[k])
            v.append(-1.0)
            for j in kids[k]:
                r.append(k)
                c.append(j)
                v.append(1.0)
        for k in range(T):
            r.append(P + k)
            c.append(roots[k])
            v.append(1.0)
        self.V = sp.csc_matrix((v, (r, c)), shape=(self.nrows, nv))


class RestrictedLP:
    """The pool of profiles and the restricted LP over them, for ``model`` with the regret rows
    ``rows``. ``S`` (K, M + 1): the profiles; ``Gt`` (rows, K): their columns in the regret rows
    (G on the pair rows, -B on the trigger rows); ``U`` (K, N): their utilities. ``pool_cap``,
    ``max_idle``: ``retire``'s rule. ``primal_time_limit``: seconds a warm-started primal simplex
    may take before the caller starts again from scratch."""

    def __init__(self, model: Model, rows: RegretRows, pool_cap: float, max_idle: int) -> None:
        self.model = model
        self.rows = rows
        self.S = np.zeros((0, model.M + 1), dtype=np.int64)
        self.Gt = sp.csc_matrix((rows.nrows, 0))
        self.U = np.zeros((0, model.N))
        self.pool_cap = pool_cap
        self.max_idle = int(max_idle)
        self.idle = np.zeros(0, dtype=np.int64)
        self.retired = 0
        self.primal_time_limit = 10.0

    @property
    def nv(self) -> int:
        return self.rows.nv

    def add(self, S: np.ndarray) -> int:
        """Add the profiles of S (rows) not in the pool yet; returns how many were new."""
        seen = {row.tobytes() for row in self.S}
        new = [row for row in S if row.tobytes() not in seen]
        new = list({row.tobytes(): row for row in new}.values())
        if not new:
            return 0
        S = np.array(new, dtype=np.int64)
        st = self.model.statistics(S)
        G = st.G.tocsc()[:, self.rows.pair_rows]
        B = st.B.tocsc()[:, self.rows.trig_rows]
        col = sp.hstack([G, -B]).T.tocsc()
        self.S = np.vstack([self.S, S])
        self.Gt = sp.hstack([self.Gt, col]).tocsc()
        self.U = np.vstack([self.U, np.asarray(st.U, dtype=float)])
        self.idle = np.r_[self.idle, np.zeros(len(new), dtype=np.int64)]
        return len(new)

    def retire(self, res: HighsResult | None, K_before: int) -> tuple[HighsResult | None, int]:
        """Count, for each profile the last restricted LP had (the first ``K_before``), how many
        LPs in a row it has been nonbasic; once the pool holds over ``pool_cap`` profiles, drop
        those nonbasic in the last ``max_idle``. Returns res and K_before for what is left (the
        dropped columns' entries removed; they were nonbasic at 0, so the basis stays feasible
        and optimal). A dropped profile comes back if a pricing finds it again. Why: on 4-card
        Indian poker the pool grew to 28,000 profiles for 1,104 rows, and every round rebuilt
        and re-solved an LP of that width (8 s a round)."""
        if res is None or res.col_status is None:
            return res, K_before
        off = self.nv + 1
        basic = res.col_status[off : off + K_before] == BASIC
        self.idle[:K_before] = np.where(basic, 0, self.idle[:K_before] + 1)
        if len(self.S) <= self.pool_cap:
            return res, K_before
        drop = np.zeros(len(self.S), dtype=bool)
        drop[:K_before] = (self.idle[:K_before] >= self.max_idle) & ~basic
        if not drop.any():
            return res, K_before
        keep = np.flatnonzero(~drop)
        self.S, self.U, self.idle = self.S[keep], self.U[keep], self.idle[keep]
        self.Gt = self.Gt[:, keep]
        self.retired += int(drop.sum())
        cols = np.r_[np.arange(off), off + keep[keep < K_before]]
        res = dataclasses.replace(res, col_value=res.col_value[cols], col_status=res.col_status[cols])
        return res, K_before - int(drop[:K_before].sum())

    def solve(
        self, c: np.ndarray, phase1: bool, basis=None, primal: bool = True, eps: float = 0.0, tight: bool = False
    ) -> tuple[HighsResult, sp.csc_matrix, np.ndarray]:
        """Solve the restricted LP over (v, eps, p) with profit ``c`` (K,) on p; returns (the
        HiGHS result, the constraint matrix, the costs). Phase 1 minimises eps, the largest gain
        any trigger's best deviation may keep (so the restricted LP is always feasible, and its
        duals say which profiles would lower the worst regret); phase 2 fixes it at ``eps`` (0:
        the EFCE polytope). ``basis``: HiGHS's (column, row) statuses to start from; ``primal``:
        with a basis, primal simplex, stopped after ``primal_time_limit`` seconds. ``tight``:
        HiGHS's least tolerances."""
        from seqform.lp.highs import solve_highs

        K = self.Gt.shape[1]
        nrows, P, nv = self.rows.nrows, self.rows.npair_rows, self.nv
        eps_col = sp.csc_matrix(
            (-np.ones(nrows - P), (np.arange(P, nrows), np.zeros(nrows - P, dtype=int))), shape=(nrows, 1)
        )
        top = sp.hstack([self.rows.V, eps_col, self.Gt])
        conv = sp.csr_matrix(np.r_[np.zeros(nv), 0.0, np.ones(K)][None, :])
        Amat = sp.vstack([top, conv]).tocsc()
        cost = np.r_[np.zeros(nv), -1.0 if phase1 else 0.0, np.zeros(K) if phase1 else c]
        lo = np.r_[np.full(nv, -np.inf), 0.0 if phase1 else eps, np.zeros(K)]
        hi = np.r_[np.full(nv, np.inf), np.inf if phase1 else eps, np.full(K, np.inf)]
        rlo = np.r_[np.full(nrows, -np.inf), 1.0]
        rhi = np.r_[np.zeros(nrows), 1.0]
        # new columns leave the last basis primal feasible: primal simplex goes on from there
        # (primal simplex can stall on the degenerate first phase: past primal_time_limit seconds
        # the caller starts again from scratch, with dual simplex)
        warm = basis is not None and primal
        options: dict[str, Any] = {"simplex_strategy": 4} if warm else {}
        if tight:
            options.update(TIGHT)
        res = solve_highs(
            Amat,
            cost,
            lo,
            hi,
            rlo,
            rhi,
            maximize=True,
            basis=basis,
            options=options,
            time_limit=self.primal_time_limit if warm else None,
        )
        return res, Amat, cost

    def duals(self, res, Amat: sp.csc_matrix, cost: np.ndarray) -> np.ndarray:
        """The restricted LP's row duals y (rows + 1,) in the sign for which c - A^T y is the
        reduced cost."""
        y = np.asarray(res.row_dual)
        # HiGHS's convention: reduced cost c - A^T y; the basic columns' must vanish
        basic = np.flatnonzero(res.col_status == BASIC) if res.col_status is not None else np.arange(0)
        if len(basic):
            r_plus = np.abs(cost[basic] - Amat[:, basic].T @ y).max()
            r_minus = np.abs(cost[basic] + Amat[:, basic].T @ y).max()
            if r_minus < r_plus:
                y = -y
        return y

    def basis(self, res, K_before: int) -> tuple | None:
        """The last basis, extended by nonbasic (at 0) columns for profiles added since; None
        without one."""
        if res is None or res.col_status is None:
            return None
        add = self.Gt.shape[1] - K_before
        return (np.r_[res.col_status, np.zeros(add, dtype=np.int8)], res.row_status)

"""Exact extensive-form correlated equilibria of games too large to enumerate: the EFCE LP over a
growing set of pure profiles (column generation), priced by the most likely profile of Dudik &
Gordon (2009)'s exponential family.

**The LP** (``efce.exact``'s, with full pure profiles as columns): maximise c . p over
distributions p on profiles such that no causal deviation gains. For trigger t = (information
set i of player n, action a), the best deviation is a best response over n's sub-treeplex rooted
at i against sequence payoffs g_t(p) = p . G[:, pairs of t]; dualised, "it gains nothing" reads

    g_t,tau(p) - v_t,J(tau) + sum of v_t,K over the information sets K right below tau <= 0
                                           for every sequence tau of n at or below i,
    v_t,i - p . B[:, t] <= 0,

with free v. G and B are the models' sample statistics (``efce.family``) of the profiles, so the
same code serves ``efce.treemodel.TreeModel`` (any tree that compiles) and
``efce.polymatrix.PolymatrixModel`` (grids of any size), and the number of rows is the number of
(trigger, sequence) pairs: polynomial, while the profiles are not.

**Column generation.** A restricted LP over a few profiles, solved by HiGHS; its row duals y give
every profile's reduced cost, c_s - y . A_s = w . u(s) - L . G(s) + Lam . B(s) - y_conv with
L = the pair rows' duals and Lam = the trigger rows' duals: exactly the energy of the exponential
family with lambda replaced by the duals (for c = w . u). The profile of largest reduced cost is
found exactly by ``efce.factormap`` (an integer program over the energy's factors, HiGHS); while
it is positive it joins the LP. A first phase drives out an artificial column (a distribution on
"nothing", which no deviation gains on) so that the restricted LP is always feasible. This is a
double oracle for correlation in the sense of Farina, Ling, Fang & Sandholm (2019),
"Correlation in Extensive-Form Games: Saddle-Point Formulation and Benchmarks": the causal-deviation
dynamic program is the best response of the deviators, the MAP profile the mediator's.

A first phase minimises eps, the gain every trigger's best deviation may keep, over the pool
(always feasible); the second fixes eps at 0, or at ``solve``'s eps > 0 for the eps-EFCE
polytope, whose payoff ranges are the ones an iterative method's eps-EFCE must lie in. Before
the integer program, annealed Gibbs chains (the models' ``sweep`` on the sharpened energy,
ending greedy) look for profiles of positive reduced cost, cheaply, first at smoothed duals
(Wentges 1997: the restricted LP is degenerate and its own duals jump); the integer program
runs only when they find none or have stalled (``stall_rounds``), always at the LP's own duals,
so its verdict ends each phase.
The pool is kept narrow (``_retire``): once it holds over ``pool_cap`` profiles, those nonbasic
in the last ``max_idle`` restricted LPs leave it; a pricing may bring them back. Deleting only
nonbasic columns leaves the last basis optimal, so the LP's value never drops.
``warm_start`` fills the pool from the sampling algorithm's distribution, a near-EFCE: on
3-card Indian poker the restricted LP then holds an exact EFCE at once. On 4 cards it did not pay:
172 s without it, 190 s and over 300 s in two runs with 30 s of it (its sampling stops on the
clock, so its pool, and the run after it, depend on the machine's speed).

**Exactness.** At the end, the optimal basis HiGHS returns is solved again in rational arithmetic
(``seqform.exact.sparselu``) with the profiles' statistics made exact (every entry of G, B and
u is a sum of chance x payoff with a known common denominator), and the distribution is then
*verified* independently: it is a distribution, and the causal-deviation dynamic program over
every trigger, in rationals, finds no deviation that gains (``max_regret`` exactly 0 or below).
HiGHS's basis is feasible up to its tolerance (1e-7), so in rationals it can miss; then the LP
is solved again from that basis with tolerances 1e-10 and verified once more (``_certified``).
Its payoffs and objective are exact. Optimality: no profile has reduced cost above the pricing
tolerance (``tol`` r_max) by HiGHS's MIP, whose own gap tolerance is 1e-9; by weak duality the
optimum is at most the restricted LP's plus the largest reduced cost (``bound``).

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
- von Stengel & Forges (2008), "Extensive-Form Correlated Equilibrium: Definition and Computational Complexity", Mathematics of Operations Research.
- Farina, Ling, Fang & Sandholm (2019), "Correlation in Extensive-Form Games: Saddle-Point Formulation and Benchmarks", NeurIPS.
- Wentges (1997), "Weighted Dantzig-Wolfe Decomposition for Linear Mixed-Integer Programming", International Transactions in Operational Research.
"""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np
import scipy.sparse as sp

from seqform.errors import SeqformError, SolverError
from seqform.exact.sparselu import SparseLU, TooLarge
from seqform.result import Result

from .factormap import FactorMAP, MapSolution

_BASIC, _ZERO = 1, 3
#: HiGHS's least feasibility tolerances (its default is 1e-7), for the re-solve of ``_certified``
_TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


class ColumnGenerationStopped(SolverError):
    """Column generation reached its time limit. What was known then: ``lp_value``, the
    restricted LP's value (float; in the second phase a feasible EFCE's objective, else None);
    ``feasible``, that EFCE solved again in rationals and verified (a ``ColumnGenerationResult``
    with ``proved_optimal`` False; its exact ``objective`` is a lower bound on the optimum when
    it is ``certified``; None in the first phase); and ``upper_bound``, weak duality's least
    bound (float; from the exact pricings, or from the pricing's LP relaxation when none ran in
    the second phase): the optimum lies between them."""

    def __init__(self, message: str, lp_value: float | None = None, upper_bound: float = math.inf,
                 feasible=None):
        super().__init__(message)
        self.lp_value = lp_value
        self.upper_bound = upper_bound
        self.feasible = feasible


@dataclass
class ColumnGenerationResult(Result):
    """An exact EFCE found by column generation: ``columns`` (the profiles, rows in the models'
    layout) and ``p_exact`` (Fractions, summing to 1, on them); ``payoffs`` (exact, per player);
    ``objective`` (exact, the weights times the payoffs); ``max_regret`` (exact: the largest
    gain of a causal deviation, by the dynamic program in rationals; 0 or below means an EFCE);
    ``bound``: the optimum is at most ``objective + bound`` (weak duality, the least bound over
    the exact pricings; floats); ``iterations`` (pricing rounds), ``certified`` (the exact basis solution was
    verified)."""

    game: str
    weights: list
    payoffs: list
    objective: Fraction
    max_regret: Fraction
    columns: np.ndarray = field(repr=False)
    p_exact: list = field(repr=False)
    bound: float = 0.0
    iterations: int = 0
    certified: bool = False
    #: False when a pricing integer program stopped at its time limit: the EFCE is exact, but
    #: its objective may be up to ``bound`` below the optimum
    proved_optimal: bool = True
    worst_deviation: str = ""
    #: the gain every trigger's best deviation was allowed (``solve``'s eps; 0: the EFCE polytope)
    eps: Fraction = Fraction(0)
    seconds: dict = field(default_factory=dict)
    method: str = "column generation (exact EFCE LP)"

    @property
    def support(self) -> int:
        return sum(1 for v in self.p_exact if v)

    def json_fields(self) -> dict:
        return {"weights": self.weights, "payoffs": [float(x) for x in self.payoffs],
                "payoffs_exact": [str(x) for x in self.payoffs], "objective": str(self.objective),
                "max_regret": float(self.max_regret), "max_regret_exact": str(self.max_regret),
                "worst_deviation": self.worst_deviation, "profiles": int(len(self.columns)), "support": self.support,
                "pricing_bound": self.bound, "proved_optimal": self.proved_optimal, "iterations": self.iterations,
                "eps": float(self.eps), "eps_exact": str(self.eps), "seconds": self.seconds.get("total")}


class EFCEColumnGeneration:
    """The EFCE LP of ``game`` by column generation; ``solve(weights)`` any number of times (the
    profiles found stay in the pool). ``engine``: as ``efce.sampling.make_model``. ``smoothing``:
    the weight of the last duals' centre in the cheap pricing (``_price``); 0 turns it off. 0.8
    (with the greedy sweeps of ``_annealed_candidates``) found an EFCE of 4-card Indian poker in
    68 pricing rounds and 18 s, where four annealed sweeps without smoothing took 159 rounds and
    172 s. ``stall_rounds``, ``stall_gain``: once the cheap pricings since the last integer
    program have moved the LP by less than ``stall_gain`` r_max over ``stall_rounds`` rounds,
    the integer program prices the next round."""

    def __init__(self, game, engine: str | None = None, tol: float = 1e-9, progress=None, seed: int = 0,
                 heuristic: bool = True, smoothing: float = 0.8, pool_cap: float | None = None,
                 max_idle: int = 50, stall_rounds: int = 50, stall_gain: float = 1e-5):
        from .sampling import make_model, regret_bound
        self.game = game
        self.model = make_model(game, np.zeros(game.num_players), None, None, engine)
        self.say = progress or (lambda msg: None)
        self.rmax = float(game.regret_bound()) if hasattr(game, "regret_bound") else regret_bound(game)
        self.tol = tol * max(1.0, self.rmax)
        self._structure()
        self.pricer = FactorMAP(self.model)
        self.denominator = _denominator(game, self.model)
        self.S = np.zeros((0, self.model.M + 1), dtype=np.int64)
        self.Gt = sp.csc_matrix((self.nrows, 0))      # the profiles' columns in the regret rows
        self.U = np.zeros((0, game.num_players))
        self.rng = np.random.default_rng(seed)
        self.heuristic_rounds = 1 if heuristic else 0
        self.smoothing = float(smoothing)
        self._center = None
        self._deadline = None
        self._mip_on_deadline = False   # whether the last integer program ran on what was left of solve's clock
        self.primal_time_limit = 10.0
        # the pool's upkeep (``_retire``): an optimal basis holds at most nrows + 1 profiles
        self.pool_cap = 4 * (self.nrows + 1) if pool_cap is None else pool_cap
        self.max_idle = int(max_idle)
        # tailing off (``solve``): the integer program prices when the cheap rounds stall
        self.stall_rounds = int(stall_rounds)
        self.stall_gain = float(stall_gain) * max(1.0, self.rmax)
        self.idle = np.zeros(0, dtype=np.int64)
        self.retired = 0
        self.tight_resolves = 0   # LPs solved again with tight tolerances (``_certified``)

    # ------------------------------------------------------------------ the rows
    def _structure(self) -> None:
        """The regret rows: for each trigger its pairs' rows, then its own row; the free v
        variables, one per (trigger, information set at or below the trigger's)."""
        m = self.model
        pair_rows, own, kids, roots, trig_rows = [], [], [], [], []
        nv = 0
        if hasattr(m, "rows"):                                    # TreeModel
            tree = m.tree
            for i in range(m.M):
                n = int(m.infoset_player[i])
                seqs = m.under[i].tolist()
                local = sorted({int(tree.seq_infoset[n][s]) for s in seqs})
                loc = {j: k for k, j in enumerate(local)}
                for a in range(int(m.A[i])):
                    t = int(m.tfirst[i]) + a
                    for k, s in enumerate(seqs):
                        pair_rows.append(int(m.pbase[t]) + k)
                        own.append(nv + loc[int(tree.seq_infoset[n][s])])
                        kids.append([nv + loc[j] for j in m.kids[n].get(s, ())])
                    roots.append(nv + loc[i])
                    trig_rows.append(t)
                    nv += len(local)
        else:                                                      # PolymatrixModel
            A = m.Amax
            for i in range(m.N):
                for a in range(int(m.A[i])):
                    t = i * A + a
                    for b in range(int(m.A[i])):
                        pair_rows.append(int(m.pbase[t]) + b)
                        own.append(nv)
                        kids.append([])
                    roots.append(nv)
                    trig_rows.append(t)
                    nv += 1
        self.pair_rows = np.array(pair_rows, dtype=np.int64)
        self.trig_rows = np.array(trig_rows, dtype=np.int64)
        self.own, self.kids, self.roots = own, kids, roots
        P, T = len(pair_rows), len(trig_rows)
        self.nrows = P + T
        self.nv = nv
        r, c, v = [], [], []
        for k in range(P):
            r.append(k), c.append(own[k]), v.append(-1.0)
            for j in kids[k]:
                r.append(k), c.append(j), v.append(1.0)
        for k in range(T):
            r.append(P + k), c.append(roots[k]), v.append(1.0)
        self.V = sp.csc_matrix((v, (r, c)), shape=(self.nrows, nv))

    def _pairs_per_trigger(self) -> list:
        m = self.model
        if hasattr(m, "rows"):
            return [int(m.Usize[i]) for i in range(m.M) for _ in range(int(m.A[i]))]
        return [int(m.A[i]) for i in range(m.N) for _ in range(int(m.A[i]))]

    def warm_start(self, seconds: float, profiles: int = 2000, sweeps: int = 60) -> int:
        """Fill the pool with ``profiles`` draws from the sampling algorithm's distribution after
        ``seconds`` of it (``efce.sample_efce``, MCMC, thin 5): profiles of a near-EFCE, among
        which the restricted LP usually finds an exact EFCE at once. Column generation alone
        starts from nothing, and on Indian poker its first phase then needs hundreds of
        pricing rounds. Returns the number of new profiles."""
        from .sampling import _loaded, sample_efce
        w = np.zeros(self.game.num_players)
        res = sample_efce(self.game, w, seed=int(self.rng.integers(2**31)), time_limit=seconds, max_rounds=None,
                          thin=5, expectations="mcmc")
        model = _loaded(self.game, res, self.rng)
        S = model.new_profiles(profiles, self.rng)
        for _ in range(sweeps):
            model.sweep(S, self.rng)
        added = self._add(S)
        self.say(f"warm start: {res.rounds:,} sampling rounds, {added:,} profiles of its distribution")
        return added

    def _add(self, S: np.ndarray) -> int:
        """Add the profiles of S not in the pool yet; returns how many were new."""
        seen = {row.tobytes() for row in self.S}
        new = [row for row in S if row.tobytes() not in seen]
        new = list({row.tobytes(): row for row in new}.values())
        if not new:
            return 0
        S = np.array(new, dtype=np.int64)
        st = self.model.statistics(S)
        G = st.G.tocsc()[:, self.pair_rows]
        B = st.B.tocsc()[:, self.trig_rows]
        col = sp.hstack([G, -B]).T.tocsc()
        self.S = np.vstack([self.S, S])
        self.Gt = sp.hstack([self.Gt, col]).tocsc()
        self.U = np.vstack([self.U, np.asarray(st.U, dtype=float)])
        self.idle = np.r_[self.idle, np.zeros(len(new), dtype=np.int64)]
        return len(new)

    def _retire(self, res, K_before: int):
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
        basic = res.col_status[off:off + K_before] == _BASIC
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

    # ------------------------------------------------------------------ the restricted LP
    def _lp(self, c: np.ndarray, phase1: bool, basis=None, primal: bool = True, eps: float = 0.0,
            tight: bool = False):
        """Solve the restricted LP over (v, eps, p); returns the HiGHS result. Phase 1 minimises
        eps, the largest gain any trigger's best deviation may keep (so the restricted LP is
        always feasible, and its duals say which profiles would lower the worst regret); phase
        2 fixes it at ``eps`` (0: the EFCE polytope). ``tight``: HiGHS's least tolerances."""
        from seqform.lp.highs import solve_highs
        K = self.Gt.shape[1]
        P = len(self.pair_rows)
        eps_col = sp.csc_matrix((-np.ones(self.nrows - P), (np.arange(P, self.nrows), np.zeros(self.nrows - P, dtype=int))),
                                shape=(self.nrows, 1))
        top = sp.hstack([self.V, eps_col, self.Gt])
        conv = sp.csr_matrix(np.r_[np.zeros(self.nv), 0.0, np.ones(K)][None, :])
        Amat = sp.vstack([top, conv]).tocsc()
        cost = np.r_[np.zeros(self.nv), -1.0 if phase1 else 0.0, np.zeros(K) if phase1 else c]
        lo = np.r_[np.full(self.nv, -np.inf), 0.0 if phase1 else eps, np.zeros(K)]
        hi = np.r_[np.full(self.nv, np.inf), np.inf if phase1 else eps, np.full(K, np.inf)]
        rlo = np.r_[np.full(self.nrows, -np.inf), 1.0]
        rhi = np.r_[np.zeros(self.nrows), 1.0]
        # new columns leave the last basis primal feasible: primal simplex goes on from there
        # (primal simplex can stall on the degenerate first phase: past primal_time_limit seconds
        # the caller starts again from scratch, with dual simplex)
        warm = basis is not None and primal
        options = {"simplex_strategy": 4} if warm else {}
        if tight:
            options.update(_TIGHT)
        res = solve_highs(Amat, cost, lo, hi, rlo, rhi, maximize=True, basis=basis, options=options,
                          time_limit=self.primal_time_limit if warm else None)
        return res, Amat, cost

    def _price(self, res, Amat, cost, w: np.ndarray, cheap: bool = True) -> tuple:
        """The profile of largest reduced cost, and that reduced cost; or (profiles, None, None)
        when the cheap search found profiles of positive reduced cost. With ``smoothing`` a > 0
        (Wentges 1997, "Weighted Dantzig-Wolfe decomposition for linear mixed-integer
        programming"), the cheap search first looks at the duals a * centre + (1 - a) * y, the
        centre being the last duals it looked at: the restricted LP's duals jump between vertices
        when it is degenerate, and their smoothed path finds profiles that move it further. Only
        profiles of positive reduced cost at y itself are returned, and the integer program
        always prices at y, so the end is proved as without smoothing. ``cheap`` False: the
        integer program at once."""
        y = self._duals(res, Amat, cost)
        a = self.smoothing
        found = None
        if cheap and a > 0 and self._center is not None:
            sep = a * self._center + (1.0 - a) * y
            self._set_duals(sep, w)
            found = self._annealed_candidates(float(sep[-1]))
        self._set_duals(y, w)
        self._mu = float(y[-1])
        if found is not None:
            good = self.model.energy(found) - self._mu > self.tol
            if good.any():
                self._center = sep
                return found[good], None, None
        self._center = y.copy()
        found = self._annealed_candidates(self._mu) if cheap else None
        if found is not None:
            return found, None, None
        return self._price_exact(res)

    def _duals(self, res, Amat, cost) -> np.ndarray:
        """The restricted LP's row duals y in the sign for which c - A^T y is the reduced cost."""
        y = np.asarray(res.row_dual)
        # HiGHS's convention: reduced cost c - A^T y; the basic columns' must vanish
        basic = np.flatnonzero(res.col_status == _BASIC) if res.col_status is not None else np.arange(0)
        if len(basic):
            r_plus = np.abs(cost[basic] - Amat[:, basic].T @ y).max()
            r_minus = np.abs(cost[basic] + Amat[:, basic].T @ y).max()
            if r_minus < r_plus:
                y = -y
        return y

    def _set_duals(self, y: np.ndarray, w: np.ndarray) -> None:
        """The model's energy becomes the reduced cost plus y's convexity entry."""
        m = self.model
        P = len(self.pair_rows)
        m.L[:] = 0.0
        m.Lam[:] = 0.0
        m.L[self.pair_rows] = y[:P]
        m.Lam[self.trig_rows] = y[P:self.nrows]
        self._set_w(w)

    def _annealed_candidates(self, mu: float, chains: int = 64, sweeps: int = 10, keep: int = 32):
        """Cheap pricing before the integer program: Gibbs chains (``sweep``) on the energy
        sharpened by ``beta``, started from the pool's profiles; the profiles they visit with
        reduced cost above the tolerance, best first (at most ``keep``), or None. ``beta`` grows
        fourfold each sweep, so the last sweeps are greedy (each information set takes its best
        action given the rest): at the first duals of 4-card Indian poker's second phase (player
        0's maximum) the best profile found had reduced cost 2.9 to 3.8 in five tries, against
        2.1 to 2.4 with four sweeps."""
        m = self.model
        if self.heuristic_rounds <= 0:
            return None
        saved = (m.L.copy(), m.Lam.copy(), m.w.copy())
        # chains start at the pool's best profiles; the temperature is set by the spread of the
        # reduced costs there, then lowered: from exploring to greedy
        pool = self.S if len(self.S) <= 4096 else self.S[self.rng.integers(len(self.S), size=4096)]
        e = m.energy(pool)
        spread = max(float(e.std()), 1e-9 * max(1.0, self.rmax))
        S = pool[np.argsort(-e)[:chains]]
        S = S[self.rng.integers(len(S), size=chains)].copy()
        seen = []
        try:
            for k in range(sweeps):
                beta = 2.0 * 4.0 ** k / spread
                m.L[:] = beta * saved[0]
                m.Lam[:] = beta * saved[1]
                self._set_w(beta * saved[2])
                m.sweep(S, self.rng)
                seen.append(S.copy())
        finally:
            m.L[:], m.Lam[:] = saved[0], saved[1]
            self._set_w(saved[2])
        cand = np.unique(np.vstack(seen), axis=0)
        rc = m.energy(cand) - mu
        good = np.flatnonzero(rc > self.tol)
        if not len(good):
            return None
        order = good[np.argsort(-rc[good])][:keep]
        return cand[order]

    def _price_exact(self, res) -> tuple:
        """The integer program's pricing with the duals already set by ``_price``, stopped by
        ``pricing_time_limit`` or by what is left of ``solve``'s time limit (one integer program
        on 4-card Indian poker takes 11 minutes: without this a time limit could be overrun by
        that much)."""
        limit = self.pricing_time_limit
        self._mip_on_deadline = False
        if self._deadline is not None:
            # no floor under what is left: a clock that has run out starts no integer program
            left = self._deadline - time.perf_counter()
            self._mip_on_deadline = limit is None or left <= limit
            if left <= 0:
                return MapSolution(None, -math.inf, math.inf, False), -math.inf, math.inf
            limit = left if limit is None else min(limit, left)
        self.say(f"pricing by integer program over {self.pricer.nx + self.pricer.nmu:,} variables")
        sol = self.pricer.solve(time_limit=limit)
        if sol.stopped_empty:
            return sol, -math.inf, math.inf
        mu = self._mu
        return sol, sol.energy - mu, sol.bound - mu

    def _basis(self, res, K_before: int):
        """The last basis, extended by nonbasic (at 0) columns for profiles added since."""
        if res is None or res.col_status is None:
            return None
        add = self.Gt.shape[1] - K_before
        return (np.r_[res.col_status, np.zeros(add, dtype=np.int8)], res.row_status)

    def solve(self, weights, *, eps=0, max_iterations: int = 10_000, time_limit: float | None = None,
              pricing_time_limit: float | None = None) -> ColumnGenerationResult:
        """Maximise sum_n weights[n] E_p[u_n] over the EFCE polytope (module docstring), or with
        ``eps`` > 0 (a rational, or a float taken exactly) over the eps-EFCE polytope: the
        distributions on which no causal deviation gains more than eps. An iterative method's
        distribution with largest regret eps has payoffs inside the eps polytope's ranges, so
        these are the ranges to check its payoffs against.
        ``pricing_time_limit``: seconds for each integer program; when one stops without
        proving that no profile improves the LP, the result says so (``proved_optimal`` False,
        ``bound`` the gap it left). ``time_limit`` also stops an integer program, with the same
        outcome in the second phase; otherwise, once it has passed, ``SolverError``."""
        t0 = time.perf_counter()
        N = self.game.num_players
        w = np.asarray(weights, dtype=float)
        if w.shape != (N,):
            raise SeqformError(f"weights: give one per player ({N}), not {len(w)}")
        eps = Fraction(eps)
        if eps < 0:
            raise SeqformError(f"eps: the gain deviations may keep must be at least 0, not {eps}")
        ef = float(eps)
        if len(self.S) == 0:
            self._add(self.model.new_profiles(64, self.rng))
        self.pricing_time_limit = pricing_time_limit
        self._deadline = None if time_limit is None else t0 + time_limit
        # an objective equal on every leaf (welfare in a zero-sum game) is equal on every
        # distribution: any EFCE is optimal, and the first phase finds one
        constant = hasattr(self.model, "rows") and float(np.ptp(self.model.payoff @ w)) <= 1e-12
        it = 0
        res = None
        proved = True
        ub = 0.0
        best_bound = math.inf   # phase 2: the least of LP + the largest reduced cost over exact pricings
        lp_phase2 = False       # res is a phase-2 LP's (its value a feasible point's, its duals phase 2's)
        Amat = cost = None      # the last restricted LP's matrix and costs (none before the first)
        for phase1 in (True, False):
            zero = np.zeros(N)
            K0 = self.Gt.shape[1]
            self._center = None
            cheap_values: list = []   # the LP's values over the cheap rounds since the last integer program
            while True:
                it += 1
                if it > max_iterations:
                    raise SolverError(f"column generation: no optimum after {max_iterations:,} pricing rounds")
                if time_limit is not None and time.perf_counter() - t0 > time_limit:
                    raise self._stopped(f"time limit of {time_limit:g} s reached", res if lp_phase2 else None,
                                        Amat, cost, w, best_bound, it, t0, eps)
                res, K0 = self._retire(res, K0)
                c = self.U @ w
                basis = self._basis(res, K0) if res is not None else None
                try:
                    # the first solve of a phase changes the objective (and fixes eps): dual simplex
                    res, Amat, cost = self._lp(c, phase1, basis, primal=K0 != self.Gt.shape[1] or phase1, eps=ef)
                except SolverError:
                    res, Amat, cost = self._lp(c, phase1, None, eps=ef)
                K0 = self.Gt.shape[1]
                lp_phase2 = not phase1
                if (phase1 and res.objective >= -max(ef, self.tol)) or (constant and not phase1):
                    break
                # tailing off: the cheap rounds keep finding profiles that barely move the LP (5-card
                # Indian poker, player 0's maximum: 700 rounds, the last 8 moving it by 6e-6), and
                # the integer program, which would bound the optimum or end the LP, never runs
                cheap_values.append(res.objective)
                stalled = len(cheap_values) > self.stall_rounds and \
                    cheap_values[-1] - cheap_values[-1 - self.stall_rounds] < self.stall_gain
                sol, rc, ub = self._price(res, Amat, cost, zero if phase1 else w, cheap=not stalled)
                if rc is None:  # the annealed chains found profiles that improve the LP
                    added = self._add(sol)
                    self.say(f"{'phase 1' if phase1 else 'phase 2'}, round {it}: LP {res.objective:.9g}, "
                             f"{added} profiles from annealed chains, {len(self.S):,} in all")
                    if added:
                        continue
                    sol, rc, ub = self._price_exact(res)
                if sol.stopped_empty and self._mip_on_deadline:
                    # solve's clock ran out in (or before) the integer program, which found no
                    # profile: the same stop as at the top of a round, with what the LP knows
                    raise self._stopped(f"time limit of {time_limit:g} s reached while pricing", res if lp_phase2
                                        else None, Amat, cost, w, best_bound, it, t0, eps)
                cheap_values.clear()    # an integer program priced this round
                if not phase1:   # ub is the MIP's bound on the largest reduced cost (never below rc)
                    best_bound = min(best_bound, res.objective + max(0.0, ub))
                self.say(f"{'phase 1' if phase1 else 'phase 2'}, round {it}: {len(self.S):,} profiles, LP "
                         f"{res.objective:.9g}, largest reduced cost {rc:.3g} (integer program)"
                         + (f", optimum at most {best_bound:.9g}" if best_bound < math.inf else ""))
                if rc <= self.tol:
                    if not sol.optimal and ub > self.tol:   # the integer program stopped early
                        proved = False
                        found = "no profile" if sol.stopped_empty else f"no profile above {rc:.3g}"
                        self.say(f"the integer program stopped at its time limit: it found {found}, but it could "
                                 f"not rule out one up to {ub:.3g}")
                        if phase1:
                            raise ColumnGenerationStopped("column generation: the pricing integer program hit its "
                                                          "time limit with the regret bound still at "
                                                          f"{-res.objective:.3g}")
                        break
                    if phase1:
                        raise SolverError("column generation: phase 1 ended with a positive regret bound "
                                          f"({-res.objective:.3g}) and no profile to lower it")
                    break
                if self._add(sol.profile[None, :]) == 0:
                    self.say(f"the best profile is in the LP already (reduced cost {rc:.3g}): numerical limit")
                    break
        gap = best_bound - res.objective if best_bound < math.inf else (ub or 0.0)
        out = self._certified(res, w, max(0.0, gap), it, t0, eps)
        out.proved_optimal = proved
        return out

    def _stopped(self, why: str, res, Amat, cost, w: np.ndarray, best_bound: float, it: int, t0: float,
                 eps: Fraction) -> ColumnGenerationStopped:
        """The stop that a clock running out ends ``solve`` with: what is known then. ``res`` is
        the last second-phase restricted LP (None in the first phase): its value, a feasible
        EFCE's, solved again in rationals and verified, and weak duality's bound from the exact
        pricings, or, when none ran, from the pricing's LP relaxation at its duals (seconds, not
        minutes)."""
        if res is None:
            return ColumnGenerationStopped(f"column generation: {why} ({len(self.S):,} profiles)")
        if best_bound == math.inf:
            y = self._duals(res, Amat, cost)
            self._set_duals(y, w)
            relax = self.pricer.relaxation_bound(time_limit=60.0)
            best_bound = res.objective + max(0.0, relax - float(y[-1]))
        known = f"; the optimum lies between {res.objective:.6g} and " + \
            (f"{best_bound:.6g}" if best_bound < math.inf else "an unknown bound")
        feasible = self._certified(res, w, max(0.0, best_bound - res.objective), it, t0, eps)
        feasible.proved_optimal = False
        return ColumnGenerationStopped(f"column generation: {why} ({len(self.S):,} profiles{known})",
                                       float(res.objective), best_bound, feasible)

    def _set_w(self, w: np.ndarray) -> None:
        m = self.model
        m.w = np.asarray(w, dtype=float)
        if hasattr(m, "rows"):
            m.rows.wu = m.payoff @ m.w
            m._table = None   # the leaf table is cached against lambda only

    # ------------------------------------------------------------------ exactness
    def _certified(self, res, w: np.ndarray, bound: float, it: int, t0: float,
                   eps: Fraction) -> ColumnGenerationResult:
        """``_certify`` the second phase's last LP; if its distribution fails, once more after
        re-solving that LP from its basis with HiGHS's least tolerances. HiGHS stops at a basis
        feasible up to 1e-7; solved in rationals such a basis can leave a deviation a gain of
        that order (the 6 x 6 grid: 2 of 73 LPs, 5e-8), and at 1e-10 the simplex sees the
        violation and pivots on."""
        out = self._certify(res, w, bound, it, t0, eps)
        if out.certified or res.col_status is None:
            return out
        self.tight_resolves += 1
        self.say(f"the optimal basis, solved in rationals, is not an exact {'eps-' if eps else ''}EFCE (largest "
                 f"gain {float(out.max_regret):.3g}): solving the LP again with tolerances 1e-10")
        try:
            # profiles priced in after that LP join it nonbasic (at a time-limit stop)
            basis = self._basis(res, len(res.col_status) - self.nv - 1)
            res2, _, _ = self._lp(self.U @ w, False, basis, primal=False, eps=float(eps), tight=True)
        except SolverError as e:
            self.say(f"the re-solve failed ({e}); the distribution stays uncertified")
            return out
        again = self._certify(res2, w, bound, it, t0, eps)
        return again if again.certified else out

    def _certify(self, res, w: np.ndarray, bound: float, it: int, t0: float,
                 eps: Fraction = Fraction(0)) -> ColumnGenerationResult:
        """Solve the second phase's optimal basis in rationals, then verify the distribution
        exactly: no deviation gains more than ``eps``."""
        D = self.denominator
        K = self.Gt.shape[1]
        ncols = self.nv + 1 + K
        certified = False
        p = None
        if res.col_status is not None:
            try:
                p = self._basis_solution(res, ncols, eps)
            except (TooLarge, SolverError) as e:
                # say why, for the log (the basis may be singular in rationals, or too large to solve)
                self.say(f"the optimal basis was not solved in rationals ({type(e).__name__}: {e}); "
                         "verifying the rounded floats instead")
                p = None
        if p is None:  # no usable basis: the floats, rounded (verified all the same)
            x = np.maximum(np.asarray(res.col_value)[self.nv + 1:], 0.0)
            p = [Fraction(v).limit_denominator(10**9) for v in x / x.sum()]
            tot = sum(p)
            p = [v / tot for v in p]
        support = [k for k, v in enumerate(p) if v]
        Gx = self._exact_columns(support, D)
        regret, worst = self._exact_regret(p, support, Gx)
        U = [[Fraction(round(u * D), D) if D else Fraction(u) for u in self.U[k]] for k in range(K)]
        payoffs = [sum((p[k] * U[k][n] for k in support), Fraction(0)) for n in range(self.game.num_players)]
        objective = sum((Fraction(wn).limit_denominator(10**12) * pn for wn, pn in zip(w.tolist(), payoffs)), Fraction(0))
        certified = all(v >= 0 for v in p) and sum(p) == 1 and regret <= eps
        return ColumnGenerationResult(self.game.name, w.tolist(), payoffs, objective, regret, self.S.copy(), p,
                                      bound=bound, iterations=it, certified=certified, worst_deviation=worst,
                                      eps=eps, seconds={"total": time.perf_counter() - t0})

    def _basis_solution(self, res, ncols: int, eps: Fraction = Fraction(0)) -> list:
        """The optimal basis's primal solution in rationals: the p part. The eps column, fixed
        at ``eps`` in the second phase, moves to the trigger rows' right-hand side when it is
        nonbasic."""
        D = self.denominator
        if not D:
            raise SolverError("no common denominator for the statistics")
        bcols = np.flatnonzero(res.col_status == _BASIC).tolist()
        nrows_nb = np.flatnonzero(res.row_status != _BASIC).tolist()
        if len(bcols) != len(nrows_nb):
            raise SolverError("basis not square")
        pos = {c: k for k, c in enumerate(bcols)}
        Vc = self.V.tocsr()
        Gr = self.Gt.tocsr()
        rows = []
        rhs = []
        for r in nrows_nb:
            d = {}
            if r < self.nrows:
                a, b = Vc.indptr[r], Vc.indptr[r + 1]
                for c, v in zip(Vc.indices[a:b].tolist(), Vc.data[a:b].tolist()):
                    if c in pos:
                        d[pos[c]] = flint.fmpq(int(v))
                trigger_row = r >= len(self.pair_rows)
                if self.nv in pos and trigger_row:
                    d[pos[self.nv]] = flint.fmpq(-1)
                a, b = Gr.indptr[r], Gr.indptr[r + 1]
                for c, v in zip(Gr.indices[a:b].tolist(), Gr.data[a:b].tolist()):
                    cc = self.nv + 1 + c
                    if cc in pos:
                        d[pos[cc]] = flint.fmpq(_exact_int(v, D), D)
                rhs.append(flint.fmpq(eps.numerator, eps.denominator)
                           if trigger_row and self.nv not in pos else flint.fmpq(0))
            else:  # the convexity row
                for cc in range(self.nv + 1, ncols):
                    if cc in pos:
                        d[pos[cc]] = flint.fmpq(1)
                rhs.append(flint.fmpq(1))
            rows.append(d)
        z = SparseLU(rows, len(bcols), 2_000_000).solve(rhs)
        p = [Fraction(0)] * (ncols - self.nv - 1)
        for c, v in zip(bcols, z):
            if c > self.nv:
                p[c - self.nv - 1] = Fraction(int(v.p), int(v.q))
        return p

    def _exact_columns(self, support: list, D: int) -> dict:
        """The support profiles' columns in the regret rows, exactly: {profile: {row: Fraction}}."""
        out = {}
        for k in support:
            col = self.Gt[:, k]
            out[k] = {int(r): Fraction(_exact_int(v, D), D) if D else Fraction(v)
                      for r, v in zip(col.indices.tolist(), col.data.tolist())}
        return out

    def _exact_regret(self, p: list, support: list, Gx: dict) -> tuple:
        """The largest causal-deviation gain of p (rationals), by the dynamic program over each
        trigger's sub-treeplex, and a label for it."""
        P = len(self.pair_rows)
        total = [Fraction(0)] * self.nrows
        for k in support:
            for r, v in Gx[k].items():
                total[r] += p[k] * v
        # per trigger: best(J) = max_b g(J, b) + sum best(K below); pairs of a trigger are contiguous
        best_regret, label = None, ""
        start = 0
        for t, cnt in enumerate(self._pairs_per_trigger()):
            pairs = range(start, start + cnt)
            start += cnt
            byown: dict = {}
            for r in pairs:
                byown.setdefault(self.own[r], []).append(r)
            memo: dict = {}

            def best(J):
                if J not in memo:
                    memo[J] = max(total[r] + sum((best(K) for K in self.kids[r]), Fraction(0)) for r in byown[J])
                return memo[J]
            baseline = -total[P + t]          # the trigger row holds -B
            gain = best(self.roots[t]) - baseline
            if best_regret is None or gain > best_regret:
                best_regret, label = gain, f"trigger {t}"
        return (best_regret if best_regret is not None else Fraction(0)), label


def _exact_int(v: float, D: int) -> int:
    """v D as an integer, which it must be (the statistics' common denominator D)."""
    x = v * D
    n = round(x)
    if abs(x - n) > 1e-6 * max(1.0, abs(x)):
        raise SolverError(f"a statistic {v!r} is not a multiple of 1/{D}")
    return int(n)


def _denominator(game, model) -> int:
    """A common denominator of every chance x payoff product of the game (0 when unknown)."""
    if hasattr(model, "rows"):
        tree = model.tree
        d = 1
        for z in range(len(tree.terminals)):
            c = Fraction(tree.terminal_chance_exact[z])
            for u in tree.payoff_exact[z]:
                d = math.lcm(d, (c * Fraction(u)).denominator)
        return d
    return int(getattr(game, "payoff_denominator", 0))


@dataclass
class PayoffRanges(Result):
    """Each player's least and greatest payoff over the EFCE polytope (the eps-EFCE polytope when
    ``eps`` > 0): ``ranges`` [(min, max)] per player (exact), from 2N LPs; ``max_regret`` the
    largest exact causal-deviation gain among their optimal distributions (at most eps: all
    are eps-EFCEs); ``proved_optimal`` as in ``ColumnGenerationResult``; ``profiles`` the
    profiles in the LP."""

    game: str
    ranges: list
    max_regret: Fraction
    profiles: int
    proved_optimal: bool = True
    method: str = ""
    seconds: dict = field(default_factory=dict)
    eps: Fraction = Fraction(0)

    @property
    def certified(self) -> bool:
        return self.max_regret <= self.eps

    def json_fields(self) -> dict:
        return {"ranges": [[float(lo), float(hi)] for lo, hi in self.ranges],
                "ranges_exact": [[str(lo), str(hi)] for lo, hi in self.ranges],
                "max_regret": float(self.max_regret), "max_regret_exact": str(self.max_regret),
                "proved_optimal": self.proved_optimal, "profiles": self.profiles,
                "eps": float(self.eps), "eps_exact": str(self.eps), "seconds": self.seconds.get("total")}


def efce_column_generation(game, weights, *, engine: str | None = None, progress=None,
                           time_limit: float | None = None, warm_start: float = 0.0,
                           seed: int = 0) -> ColumnGenerationResult:
    """Compute the EFCE that maximises a weighted sum of payoffs, exactly, by column generation.

    The EFCE LP (von Stengel & Forges 2008, "Extensive-Form Correlated Equilibrium: Definition and
    Computational Complexity") over a growing pool of pure profiles, priced by the most likely
    profile of Dudik & Gordon (2009)'s exponential family under the LP's duals (the
    ``efce.columngeneration`` module docstring): for games whose reduced profiles are too many to
    enumerate. The answer is solved again in rationals and verified by the causal-deviation
    dynamic program.

    Parameters
    ----------
    game : Game
        Any number of players; its tree must compile, or it must be a polymatrix game.
    weights : sequence of float
        One weight per player: maximise sum_n weights[n] E[u_n] (all ones: social welfare).
    engine : str, optional
        "tree" or "polymatrix" (``efce.sampling.make_model``); None picks.
    progress : callable, optional
        ``progress(message)`` gets a line per pricing round.
    time_limit : float, optional
        Seconds; past them ``SolverError``.
    warm_start : float, default 0.0
        Seconds of the sampling algorithm whose profiles seed the pool.
    seed : int, default 0
        Seeds the annealed chains (the answer's value does not depend on it).

    Returns
    -------
    ColumnGenerationResult
        ``p_exact`` on ``columns``, exact ``payoffs`` and ``objective``, exact ``max_regret``
        (0 or below: an EFCE), ``certified``, ``proved_optimal``.

    Raises
    ------
    SolverError
        HiGHS fails; ``ColumnGenerationStopped`` (a SolverError) when the time limit passes,
        with the bounds on the optimum known then.

    Examples
    --------
    >>> import efce
    >>> res = efce.efce_column_generation(efce.job_market(), [1, 1])
    >>> res.certified, res.objective, [str(x) for x in res.payoffs]
    (True, Fraction(9, 1), ['4', '5'])
    """
    cg = EFCEColumnGeneration(game, engine, progress=progress, seed=seed)
    if warm_start > 0:
        cg.warm_start(warm_start)
    return cg.solve(weights, time_limit=time_limit)


def payoff_ranges(game, *, eps=0, engine: str | None = None, progress=None, time_limit: float | None = None,
                  warm_start: float = 0.0, seed: int = 0) -> list:
    """Compute each player's least and greatest payoff over the EFCE polytope, exactly.

    2N LPs over the EFCE polytope (maximise and minimise each player's expected payoff), by
    column generation sharing one pool of profiles (``efce_column_generation``; von Stengel &
    Forges 2008, "Extensive-Form Correlated Equilibrium: Definition and Computational
    Complexity").

    Parameters
    ----------
    game : Game
        As for ``efce_column_generation``.
    eps : Fraction, int or float, default 0
        Over the eps-EFCE polytope instead: no causal deviation gains more than eps (a float is
        taken exactly). The ranges an iterative method's payoffs must lie in when its largest
        regret is at most eps.
    engine, progress, time_limit, warm_start, seed
        As for ``efce_column_generation`` (``time_limit`` applies to each LP).

    Returns
    -------
    list of tuple
        Per player, (the result that minimises its payoff, the one that maximises it): each a
        ``ColumnGenerationResult``, whose ``payoffs[n]`` is the exact bound.

    Examples
    --------
    >>> import efce
    >>> lo, hi = efce.payoff_ranges(efce.job_market())[0]
    >>> str(lo.payoffs[0]), str(hi.payoffs[0]), lo.certified and hi.certified
    ('0', '9/2', True)
    """
    cg = EFCEColumnGeneration(game, engine, progress=progress, seed=seed)
    if warm_start > 0:
        cg.warm_start(warm_start)
    out = []
    for n in range(game.num_players):
        e = np.zeros(game.num_players)
        e[n] = 1.0
        hi = cg.solve(e, eps=eps, time_limit=time_limit)
        lo = cg.solve(-e, eps=eps, time_limit=time_limit)
        out.append((lo, hi))
    return out

"""Pricing for column generation on the EFCE LP (``efce.colgen``): the profile of largest reduced
cost under the restricted LP's duals, cheaply by annealed Gibbs chains, exactly by the MAP
integer program.

The restricted LP's row duals y give every profile s its reduced cost c_s - y . A_s =
w . u(s) - L . G(s) + Lam . B(s) - y_conv, with L the pair rows' duals and Lam the trigger rows'
duals: exactly the energy of Dudik & Gordon (2009)'s exponential family with lambda replaced by
the duals, minus the convexity row's dual (``set_duals``). So the models that sample q_lambda
price too:

* **cheaply** (``annealed_candidates``): Gibbs chains (the models' ``sweep``) on the energy
  sharpened fourfold each sweep, ending greedy, started from the pool's best profiles; first
  at smoothed duals (Wentges 1997: the restricted LP is degenerate and its own duals jump);
* **exactly** (``price_exact``): the maximum a-posteriori profile of the energy, by the integer
  program over the local polytope of its factor graph (``efce.factormap``; Wainwright & Jordan
  2008, section 8.4), always at the LP's own duals, so that its verdict ends each phase. Its
  clock is its own limit or what is left of the solve's, whichever ends first.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
- Wainwright & Jordan (2008), "Graphical Models, Exponential Families, and Variational Inference".
- Wentges (1997), "Weighted Dantzig-Wolfe Decomposition for Linear Mixed-Integer Programming", International
  Transactions in Operational Research.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..factormap import FactorMAP, MapSolution
from ..family import Model
from .restrictedlp import RegretRows


class Pricing:
    """The pricing of column generation for ``model`` over the regret rows ``rows`` (module
    docstring). ``tol``: the least reduced cost that counts (absolute); ``rmax``: the game's
    payoff scale, which floors the chains' temperature; ``smoothing``: the weight of the last
    duals' centre in the cheap pricing (0: off); ``heuristic``: whether the annealed chains run
    at all; ``clock``: seconds now (the caller's clock, which the deadline is on); ``say``: the
    progress lines. ``deadline`` (on ``clock``) and ``time_limit`` (seconds per integer
    program) bound ``price_exact``."""

    def __init__(
        self,
        model: Model,
        rows: RegretRows,
        rng: np.random.Generator,
        tol: float,
        rmax: float,
        smoothing: float,
        heuristic: bool,
        clock: Callable[[], float],
        say: Callable[[str], None],
    ):
        self.model = model
        self.rows = rows
        self.rng = rng
        self.tol = tol
        self.rmax = rmax
        self.smoothing = float(smoothing)
        self.heuristic = bool(heuristic)
        self.clock = clock
        self.say = say
        self.pricer = FactorMAP(model)
        self.center = None  # the duals the last cheap pricing looked at
        self.mu = 0.0  # the convexity row's dual at the last pricing
        self.deadline: float | None = None
        self.time_limit: float | None = None
        self.mip_on_deadline = False  # whether the last integer program ran on what was left of the deadline

    def set_duals(self, y: np.ndarray, w: np.ndarray) -> None:
        """Make the model's energy, with utility weights ``w`` (N,), the reduced cost under the
        restricted LP's row duals ``y`` (rows + 1,) plus y's convexity entry."""
        m, rows = self.model, self.rows
        P = rows.npair_rows
        m.L[:] = 0.0
        m.Lam[:] = 0.0
        m.L[rows.pair_rows] = y[:P]
        m.Lam[rows.trig_rows] = y[P : rows.nrows]
        m.set_weights(w)

    def price(self, y: np.ndarray, w: np.ndarray, pool: np.ndarray, cheap: bool = True) -> tuple:
        """Price at the duals ``y`` with utility weights ``w``, the chains starting from the
        profiles ``pool`` (K, M + 1): (profiles, None, None) when the cheap search found
        profiles of positive reduced cost at y, else ``price_exact``'s (solution, largest reduced
        cost, bound on it). With ``smoothing`` a > 0 (Wentges 1997) the cheap search first looks
        at the duals a * centre + (1 - a) * y, the centre being the last duals it looked at: the
        restricted LP's duals jump between vertices when it is degenerate, and their smoothed
        path finds profiles that move it further. Only profiles of positive reduced cost at y
        itself are returned, and the integer program always prices at y, so the end is proved
        as without smoothing. ``cheap`` False: the integer program at once."""
        a = self.smoothing
        found = None
        if cheap and a > 0 and self.center is not None:
            sep = a * self.center + (1.0 - a) * y
            self.set_duals(sep, w)
            found = self.annealed_candidates(pool, float(sep[-1]))
        self.set_duals(y, w)
        self.mu = float(y[-1])
        if found is not None:
            good = self.model.energy(found) - self.mu > self.tol
            if good.any():
                self.center = sep
                return found[good], None, None
        self.center = y.copy()
        found = self.annealed_candidates(pool, self.mu) if cheap else None
        if found is not None:
            return found, None, None
        return self.price_exact()

    def annealed_candidates(
        self, pool: np.ndarray, mu: float, chains: int = 64, sweeps: int = 10, keep: int = 32
    ) -> np.ndarray | None:
        """Cheap pricing before the integer program: Gibbs chains (``sweep``) on the energy
        sharpened by ``beta``, started from the best of ``pool``'s profiles; the profiles they
        visit with reduced cost (energy - ``mu``) above the tolerance, best first (at most
        ``keep``), or None. ``beta`` grows fourfold each sweep, so the last sweeps are greedy
        (each information set takes its best action given the rest): at the first duals of
        4-card Indian poker's second phase (player 0's maximum) the best profile found had
        reduced cost 2.9 to 3.8 in five tries, against 2.1 to 2.4 with four sweeps."""
        m = self.model
        if not self.heuristic:
            return None
        saved = (m.L.copy(), m.Lam.copy(), m.w.copy())
        # chains start at the pool's best profiles; the temperature is set by the spread of the
        # reduced costs there, then lowered: from exploring to greedy
        if len(pool) > 4096:
            pool = pool[self.rng.integers(len(pool), size=4096)]
        e = m.energy(pool)
        spread = max(float(e.std()), 1e-9 * max(1.0, self.rmax))
        S = pool[np.argsort(-e)[:chains]]
        S = S[self.rng.integers(len(S), size=chains)].copy()
        seen = []
        try:
            for k in range(sweeps):
                beta = 2.0 * 4.0**k / spread
                m.L[:] = beta * saved[0]
                m.Lam[:] = beta * saved[1]
                m.set_weights(beta * saved[2])
                m.sweep(S, self.rng)
                seen.append(S.copy())
        finally:
            m.L[:], m.Lam[:] = saved[0], saved[1]
            m.set_weights(saved[2])
        cand = np.unique(np.vstack(seen), axis=0)
        rc = m.energy(cand) - mu
        good = np.flatnonzero(rc > self.tol)
        if not len(good):
            return None
        order = good[np.argsort(-rc[good])][:keep]
        return cand[order]

    def price_exact(self) -> tuple:
        """The integer program's pricing with the duals already set (``price``): (its solution,
        the largest reduced cost it found, HiGHS's bound on it), stopped by ``time_limit`` or by
        what is left until ``deadline`` (one integer program on 4-card Indian poker takes 11
        minutes: without this a time limit could be overrun by that much). A clock that has run
        out starts no integer program: the empty stop, (-inf, inf)."""
        limit = self.time_limit
        self.mip_on_deadline = False
        if self.deadline is not None:
            # no floor under what is left: a clock that has run out starts no integer program
            left = self.deadline - self.clock()
            self.mip_on_deadline = limit is None or left <= limit
            if left <= 0:
                return MapSolution(None, -math.inf, math.inf, False), -math.inf, math.inf
            limit = left if limit is None else min(limit, left)
        self.say(f"pricing by integer program over {self.pricer.nx + self.pricer.nmu:,} variables")
        sol = self.pricer.solve(time_limit=limit)
        if sol.stopped_empty:
            return sol, -math.inf, math.inf
        return sol, sol.energy - self.mu, sol.bound - self.mu

    def relaxation_bound(self, y: np.ndarray, w: np.ndarray, time_limit: float) -> float:
        """An upper bound on the largest reduced cost plus y's convexity entry at the duals
        ``y`` with weights ``w``: the MAP integer program's LP relaxation (inf when HiGHS does
        not solve it in ``time_limit`` seconds)."""
        self.set_duals(y, w)
        return self.pricer.relaxation_bound(time_limit=time_limit)

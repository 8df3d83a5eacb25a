"""Column generation for the EFCE LP (``efce.colgen``): the two phases over a growing pool of
profiles, each round a restricted LP (``efce.colgen.restrictedlp``) and a pricing (``efce.colgen.pricing``),
and at the end the exact certificate (``efce.colgen.efcecertificate``); a clock that runs out ends the solve with what
is known (``ColumnGenerationStopped``).

A first phase minimises eps, the gain every trigger's best deviation may keep, over the pool
(always feasible); the second fixes eps at 0, or at ``solve``'s eps > 0 for the eps-EFCE polytope
(von Stengel & Forges 2008's EFCE LP; the double oracle of Farina, Ling, Fang & Sandholm 2019).
Each round prices cheaply first and by the integer program when the cheap search finds nothing
or has stalled (``stall_rounds``), so the integer program's verdict ends each phase; by weak
duality the optimum is at most the restricted LP's value plus the largest reduced cost
(``bound``).

References:

- von Stengel & Forges (2008), "Extensive-Form Correlated Equilibrium: Definition and Computational Complexity",
  Mathematics of Operations Research.
- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
- Farina, Ling, Fang & Sandholm (2019), "Correlation in Extensive-Form Games: Saddle-Point Formulation and Benchmarks",
  NeurIPS.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from seqform.errors import SeqformError, SolverError
from seqform.exact.rationals import to_fraction
from seqform.model.game import Game

from ..factormap import FactorMAP
from ..family import DeclaresRegretBound
from ..sampling import SamplerOptions, loaded_model, make_model, regret_bound, sample_efce
from .colgenresult import ColumnGenerationResult, ColumnGenerationStopped
from .efcecertificate import certify, statistics_denominator
from .pricing import Pricing
from .restrictedlp import RegretRows, RestrictedLP

if TYPE_CHECKING:
    from seqform.lp.highs import HighsResult


@dataclass
class _Run:
    """One ``solve``'s state across its rounds and phases: the weights, eps, its clock, and the
    last restricted LP (``res``, with its matrix and costs) and pricing bounds."""

    w: np.ndarray
    eps: Fraction
    t0: float
    time_limit: float | None
    max_iterations: int
    constant: bool
    it: int = 0
    res: HighsResult | None = None
    Amat: sp.csc_matrix | None = None  # the last restricted LP's matrix and costs (none before the first)
    cost: np.ndarray | None = None
    K0: int = 0  # the profiles the last restricted LP had
    proved: bool = True
    ub: float | None = 0.0  # the last pricing's bound on the largest reduced cost (None: a cheap one)
    best_bound: float = math.inf  # phase 2: the least of LP + the largest reduced cost over exact pricings
    lp_phase2: bool = False  # res is a phase-2 LP's (its value a feasible point's, its duals phase 2's)

    def last_lp(self) -> tuple[HighsResult, sp.csc_matrix, np.ndarray]:
        """The last restricted LP's result, matrix and costs (there is one from the first round on)."""
        if self.res is None or self.Amat is None or self.cost is None:
            raise SolverError("column generation: no restricted LP has been solved yet")
        return self.res, self.Amat, self.cost

    @property
    def ef(self) -> float:
        return float(self.eps)


class EFCEColumnGeneration:
    """The EFCE LP of ``game`` by column generation; ``solve(weights)`` any number of times (the
    profiles found stay in the pool). ``engine``: as ``efce.sampling.make_model``. ``smoothing``:
    the weight of the last duals' centre in the cheap pricing (``Pricing.price``); 0 turns it off.
    0.8 (with the greedy sweeps of ``Pricing.annealed_candidates``) found an EFCE of 4-card
    Indian poker in 68 pricing rounds and 18 s, where four annealed sweeps without smoothing took
    159 rounds and 172 s. ``stall_rounds``, ``stall_gain``: once the cheap pricings since the last
    integer program have moved the LP by less than ``stall_gain`` r_max over ``stall_rounds``
    rounds, the integer program prices the next round. ``pool_cap`` (default 4 x (rows + 1): an
    optimal basis holds at most rows + 1 profiles), ``max_idle``: the pool's upkeep
    (``RestrictedLP.retire``)."""

    def __init__(
        self,
        game: Game,
        engine: str | None = None,
        tol: float = 1e-9,
        progress: Callable[[str], None] | None = None,
        seed: int = 0,
        heuristic: bool = True,
        smoothing: float = 0.8,
        pool_cap: float | None = None,
        max_idle: int = 50,
        stall_rounds: int = 50,
        stall_gain: float = 1e-5,
    ):
        self.game = game
        self.model = make_model(game, np.zeros(game.num_players), None, None, engine)
        self.say = progress or (lambda msg: None)
        self.rmax = float(game.regret_bound()) if isinstance(game, DeclaresRegretBound) else regret_bound(game)
        self.tol = tol * max(1.0, self.rmax)
        self.rows = RegretRows(self.model.dp)
        self.rng = np.random.default_rng(seed)
        self.pricing = Pricing(
            self.model, self.rows, self.rng, self.tol, self.rmax, smoothing, heuristic, self._now, self.say
        )
        self.denominator = statistics_denominator(game, self.model)
        self.lp = RestrictedLP(
            self.model, self.rows, 4 * (self.rows.nrows + 1) if pool_cap is None else pool_cap, max_idle
        )
        # tailing off (``solve``): the integer program prices when the cheap rounds stall
        self.stall_rounds = int(stall_rounds)
        self.stall_gain = float(stall_gain) * max(1.0, self.rmax)
        self.tight_resolves = 0  # LPs solved again with tight tolerances (``certify``)

    @staticmethod
    def _now() -> float:
        """Seconds, on the clock every time limit is measured with."""
        return time.perf_counter()

    @property
    def S(self) -> np.ndarray:
        """The pool's profiles: (K, information sets + 1), the models' layout."""
        return self.lp.S

    @property
    def U(self) -> np.ndarray:
        """The pool's profiles' utilities: (K, players)."""
        return self.lp.U

    @property
    def retired(self) -> int:
        """Profiles dropped from the pool so far (``RestrictedLP.retire``)."""
        return self.lp.retired

    @property
    def pricer(self) -> FactorMAP:
        """The MAP integer program that prices exactly (``efce.factormap.FactorMAP``)."""
        return self.pricing.pricer

    def warm_start(self, seconds: float, profiles: int = 2000, sweeps: int = 60) -> int:
        """Fill the pool with ``profiles`` draws from the sampling algorithm's distribution after
        ``seconds`` of it (``efce.sample_efce``, MCMC, thin 5): profiles of a near-EFCE, among
        which the restricted LP usually finds an exact EFCE at once. Column generation alone
        starts from nothing, and on Indian poker its first phase then needs hundreds of
        pricing rounds. On 3-card Indian poker the restricted LP then holds an exact EFCE at
        once; on 4 cards it did not pay: 172 s without it, 190 s and over 300 s in two runs with
        30 s of it (its sampling stops on the clock, so its pool, and the run after it, depend
        on the machine's speed). Returns the number of new profiles."""
        w = np.zeros(self.game.num_players)
        res = sample_efce(
            self.game,
            w,
            seed=int(self.rng.integers(2**31)),
            time_limit=seconds,
            max_rounds=None,
            options=SamplerOptions(thin=5, expectations="mcmc"),
        )
        model = loaded_model(self.game, res, self.rng)
        S = model.new_profiles(profiles, self.rng)
        for _ in range(sweeps):
            model.sweep(S, self.rng)
        added = self.lp.add(S)
        self.say(f"warm start: {res.rounds:,} sampling rounds, {added:,} profiles of its distribution")
        return added

    def solve(
        self,
        weights,
        *,
        eps=0,
        max_iterations: int = 10_000,
        time_limit: float | None = None,
        pricing_time_limit: float | None = None,
    ) -> ColumnGenerationResult:
        """Maximise sum_n weights[n] E_p[u_n] over the EFCE polytope (module docstring), or with
        ``eps`` > 0 (a rational, or a float taken exactly) over the eps-EFCE polytope: the
        distributions on which no causal deviation gains more than eps. An iterative method's
        distribution with largest regret eps has payoffs inside the eps polytope's ranges, so
        these are the ranges to check its payoffs against.
        ``pricing_time_limit``: seconds for each integer program; when one stops without
        proving that no profile improves the LP, the result says so (``proved_optimal`` False,
        ``bound`` the gap it left). ``time_limit`` also stops an integer program, with the same
        outcome in the second phase; otherwise, once it has passed, ``SolverError``
        (``ColumnGenerationStopped`` with the bounds known then)."""
        t0 = self._now()
        N = self.game.num_players
        w = np.asarray(weights, dtype=float)
        if w.shape != (N,):
            raise SeqformError(f"weights: give one per player ({N}), not {len(w)}")
        eps = to_fraction(eps)
        if eps < 0:
            raise SeqformError(f"eps: the gain deviations may keep must be at least 0, not {eps}")
        if len(self.lp.S) == 0:
            self.lp.add(self.model.new_profiles(64, self.rng))
        self.pricing.time_limit = pricing_time_limit
        self.pricing.deadline = None if time_limit is None else t0 + time_limit
        # an objective equal on every leaf (welfare in a zero-sum game) is equal on every
        # distribution: any EFCE is optimal, and the first phase finds one
        run = _Run(w, eps, t0, time_limit, max_iterations, self.model.objective_is_constant(w))
        for phase1 in (True, False):
            self._phase(run, phase1)
        res = run.last_lp()[0]
        gap = run.best_bound - res.objective if run.best_bound < math.inf else (run.ub or 0.0)
        out = self.certify(res, w, eps, bound=max(0.0, gap), iterations=run.it, t0=t0)
        return replace(out, proved_optimal=run.proved)

    def _phase(self, run: _Run, phase1: bool) -> None:
        """One phase's rounds, until its end (or a stop, raised)."""
        run.K0 = self.lp.Gt.shape[1]
        self.pricing.center = None
        cheap_values: list = []  # the LP's values over the cheap rounds since the last integer program
        while self._round(run, phase1, cheap_values):
            pass

    def _solve_lp(self, run: _Run, phase1: bool) -> None:
        """The round's restricted LP, warm-started from the last basis (the pool's idle profiles
        retired first); from scratch if that fails."""
        run.res, run.K0 = self.lp.retire(run.res, run.K0)
        c = self.lp.U @ run.w
        basis = self.lp.basis(run.res, run.K0) if run.res is not None else None
        try:
            # the first solve of a phase changes the objective (and fixes eps): dual simplex
            run.res, run.Amat, run.cost = self.lp.solve(
                c, phase1, basis, primal=run.K0 != self.lp.Gt.shape[1] or phase1, eps=run.ef
            )
        except SolverError:
            run.res, run.Amat, run.cost = self.lp.solve(c, phase1, None, eps=run.ef)
        run.K0 = self.lp.Gt.shape[1]
        run.lp_phase2 = not phase1

    def _round(self, run: _Run, phase1: bool, cheap_values: list) -> bool:
        """One pricing round: the restricted LP, then a cheap or an exact pricing. False when the
        phase has ended."""
        run.it += 1
        if run.it > run.max_iterations:
            raise SolverError(f"column generation: no optimum after {run.max_iterations:,} pricing rounds")
        if run.time_limit is not None and self._now() - run.t0 > run.time_limit:
            raise self._stopped(f"time limit of {run.time_limit:g} s reached", run)
        self._solve_lp(run, phase1)
        res, Amat, cost = run.last_lp()
        if (phase1 and res.objective >= -max(run.ef, self.tol)) or (run.constant and not phase1):
            return False
        # tailing off: the cheap rounds keep finding profiles that barely move the LP (5-card
        # Indian poker, player 0's maximum: 700 rounds, the last 8 moving it by 6e-6), and
        # the integer program, which would bound the optimum or end the LP, never runs
        cheap_values.append(res.objective)
        stalled = (
            len(cheap_values) > self.stall_rounds
            and cheap_values[-1] - cheap_values[-1 - self.stall_rounds] < self.stall_gain
        )
        y = self.lp.duals(res, Amat, cost)
        w = np.zeros(len(run.w)) if phase1 else run.w
        sol, rc, run.ub = self.pricing.price(y, w, self.lp.S, cheap=not stalled)
        name = "phase 1" if phase1 else "phase 2"
        if rc is None:  # the annealed chains found profiles that improve the LP (and bound nothing: ub None)
            added = self.lp.add(sol)
            self.say(
                f"{name}, round {run.it}: LP {res.objective:.9g}, {added} profiles from annealed chains, "
                f"{len(self.lp.S):,} in all"
            )
            if added:
                return True
            sol, rc, run.ub = self.pricing.price_exact()
        ub = run.ub
        if sol.stopped_empty and self.pricing.mip_on_deadline:
            # solve's clock ran out in (or before) the integer program, which found no
            # profile: the same stop as at the top of a round, with what the LP knows
            raise self._stopped(f"time limit of {run.time_limit:g} s reached while pricing", run)
        cheap_values.clear()  # an integer program priced this round
        if not phase1:  # ub is the MIP's bound on the largest reduced cost (never below rc)
            run.best_bound = min(run.best_bound, res.objective + max(0.0, ub))
        self.say(
            f"{name}, round {run.it}: {len(self.lp.S):,} profiles, LP {res.objective:.9g}, largest reduced "
            f"cost {rc:.3g} (integer program)"
            + (f", optimum at most {run.best_bound:.9g}" if run.best_bound < math.inf else "")
        )
        if rc <= self.tol:
            return self._ended(run, phase1, sol, rc, ub)
        if self.lp.add(sol.profile[None, :]) == 0:
            self.say(f"the best profile is in the LP already (reduced cost {rc:.3g}): numerical limit")
            return False
        return True

    def _ended(self, run: _Run, phase1: bool, sol, rc: float, ub: float) -> bool:
        """No profile above the tolerance: the phase ends (False), proved unless the integer
        program stopped early; a first phase that ends with a positive regret bound raises."""
        if not sol.optimal and ub > self.tol:  # the integer program stopped early
            run.proved = False
            found = "no profile" if sol.stopped_empty else f"no profile above {rc:.3g}"
            self.say(
                f"the integer program stopped at its time limit: it found {found}, but it could "
                f"not rule out one up to {ub:.3g}"
            )
            if phase1:
                raise ColumnGenerationStopped(
                    "column generation: the pricing integer program hit its "
                    f"time limit with the regret bound still at {-run.last_lp()[0].objective:.3g}"
                )
            return False
        if phase1:
            raise SolverError(
                "column generation: phase 1 ended with a positive regret bound "
                f"({-run.last_lp()[0].objective:.3g}) and no profile to lower it"
            )
        return False

    def _stopped(self, why: str, run: _Run) -> ColumnGenerationStopped:
        """The stop that a clock running out ends ``solve`` with: what is known then. The last
        second-phase restricted LP (none in the first phase): its value, a feasible EFCE's,
        solved again in rationals and verified, and weak duality's bound from the exact
        pricings, or, when none ran, from the pricing's LP relaxation at its duals (seconds, not
        minutes)."""
        res = run.res if run.lp_phase2 else None
        if res is None:
            return ColumnGenerationStopped(f"column generation: {why} ({len(self.lp.S):,} profiles)")
        best_bound = run.best_bound
        if best_bound == math.inf:
            y = self.lp.duals(*run.last_lp())
            relax = self.pricing.relaxation_bound(y, run.w, time_limit=60.0)
            best_bound = res.objective + max(0.0, relax - float(y[-1]))
        known = f"; the optimum lies between {res.objective:.6g} and " + (
            f"{best_bound:.6g}" if best_bound < math.inf else "an unknown bound"
        )
        feasible = self.certify(
            res, run.w, run.eps, bound=max(0.0, best_bound - res.objective), iterations=run.it, t0=run.t0
        )
        feasible = replace(feasible, proved_optimal=False)
        return ColumnGenerationStopped(
            f"column generation: {why} ({len(self.lp.S):,} profiles{known})", float(res.objective), best_bound, feasible
        )

    def certify(
        self,
        res,
        w: np.ndarray,
        eps: Fraction = Fraction(0),
        *,
        bound: float = 0.0,
        iterations: int = 0,
        t0: float | None = None,
        tight: bool = True,
    ) -> ColumnGenerationResult:
        """The second phase's restricted LP ``res``, certified (``efce.colgen.efcecertificate.certify``):
        its basis solved in rationals and its distribution verified; with ``tight``, if that
        fails, once more after re-solving the LP from its basis with HiGHS's least tolerances.
        HiGHS stops at a basis feasible up to 1e-7; solved in rationals such a basis can leave a
        deviation a gain of that order (the 6 x 6 grid: 2 of 73 LPs, 5e-8), and at 1e-10 the
        simplex sees the violation and pivots on. ``seconds`` counts from ``t0`` (default: now)."""
        t0 = self._now() if t0 is None else t0
        out = self._certify_once(res, w, eps, bound, iterations, t0)
        if out.certified or res.col_status is None or not tight:
            return out
        self.tight_resolves += 1
        self.say(
            f"the optimal basis, solved in rationals, is not an exact {'eps-' if eps else ''}EFCE (largest "
            f"gain {float(out.max_regret):.3g}): solving the LP again with tolerances 1e-10"
        )
        try:
            # profiles priced in after that LP join it nonbasic (at a time-limit stop)
            basis = self.lp.basis(res, len(res.col_status) - self.rows.nv - 1)
            res2, _, _ = self.lp.solve(self.lp.U @ w, False, basis, primal=False, eps=float(eps), tight=True)
        except SolverError as e:
            self.say(f"the re-solve failed ({e}); the distribution stays uncertified")
            return out
        again = self._certify_once(res2, w, eps, bound, iterations, t0)
        return again if again.certified else out

    def _certify_once(
        self, res, w: np.ndarray, eps: Fraction, bound: float, iterations: int, t0: float
    ) -> ColumnGenerationResult:
        out = certify(self.game, self.lp, self.model, self.denominator, res, w, eps, bound, iterations, self.say)
        return replace(out, seconds={"total": self._now() - t0})


def efce_column_generation(
    game: Game,
    weights,
    *,
    engine: str | None = None,
    progress: Callable[[str], None] | None = None,
    time_limit: float | None = None,
    warm_start: float = 0.0,
    seed: int = 0,
) -> ColumnGenerationResult:
    """Compute the EFCE that maximises a weighted sum of payoffs, exactly, by column generation.

    The EFCE LP (von Stengel & Forges 2008, "Extensive-Form Correlated Equilibrium: Definition and
    Computational Complexity") over a growing pool of pure profiles, priced by the most likely
    profile of Dudik & Gordon (2009)'s exponential family under the LP's duals (the
    ``efce.colgen`` package docstring): for games whose reduced profiles are too many to
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

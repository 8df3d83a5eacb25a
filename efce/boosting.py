"""The boosting of Dudik & Gordon (2009)'s sampling algorithm: coordinate descent on the dual of
eq. 2, one causal deviation's lambda per round (section 3, AdaBoost / SUMMET), with expectations
taken over a weighted sample of q_lambda.

``Boosting`` holds lambda, and ``run_rounds`` drives it until a stopping rule (``Limits``) holds.
Each round it reads the sample (``assess``: section 3.2's best deviation and the recorded
deviations' mean regrets) and moves one coordinate (``update``):

- It raises the lambda of the deviation with the largest regret r*: eq. 7's step with the
  deviation's own bound R >= |r_phi(s)| (r_max times its trigger's chance mass) in place of
  r_max, which the same analysis allows and which is larger. A line search then minimises the
  sample estimate of log Z, up to ``step_cap`` times eq. 7's step (the paper's "constant-fold
  increase"; it names no constant), stopped where the effective sample size would fall below
  ``ess_min`` times the sample's size (section 3.4), and never cut below eq. 7's step, which the
  convergence analysis needs.
- Or, when a recorded lambda has overshot, so that its deviation's regret is now more negative
  than r* is positive, it lowers that lambda instead, never below 0. The paper only raises; the
  dual's other coordinates are what make the limit the *maximum-entropy* EFCE and not merely
  some EFCE.

With exact expectations (every full profile, weighted by q_lambda) there is no sample to wear
out: the line search has no effective-size floor, it may go far enough to cut the profiles a
deviation gains on by up to e^-50, and a totally corrective refit (``refit``) may follow each
step.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .family import Deviation

__all__ = ["Assessment", "Boosting", "Limits", "Rounds", "run_rounds", "effective_size", "line_search", "refit"]


@dataclass
class Assessment:
    """One round's reading of the weighted sample: the largest regret r* and its deviation (None
    when no deviation gains), every recorded deviation's mean regret, and the largest
    overshoot: the most negative mean regret among deviations with lambda > 0, as a gain (0 when
    none)."""

    regret: float
    deviation: Deviation | None
    means: np.ndarray
    overshoot: float


class Boosting:
    """lambda, and the coordinate steps that move it (see the module docstring).

    ``model``: a model of q_lambda (``efce.treemodel``, ``efce.polymatrix``), whose deviations and
    lambda aggregates this object keeps in step with its own lambda. ``rmax``: the payoff range
    that bounds every regret. ``exact``: expectations are exact (see the module docstring)."""

    def __init__(
        self,
        model,
        rmax: float,
        *,
        exact: bool,
        line_search: bool = True,
        step_cap: float = 10.0,
        ess_min: float = 0.5,
        corrective: bool = False,
    ):
        self.model = model
        self.rmax = rmax
        self.exact = exact
        self.line_search = line_search
        self.step_cap = step_cap
        self.ess_min = ess_min
        self.corrective = corrective
        self._lam = np.zeros(64)  # grown by doubling; the first ``count`` are the recorded deviations'
        self.count = 0

    @property
    def lam(self) -> np.ndarray:
        """The recorded deviations' lambdas, in the model's order (a view)."""
        return self._lam[: self.count]

    def assess(self, sample) -> Assessment:
        """r* and its deviation on ``sample`` (its ``stats`` weighted by its ``weights``), with the
        recorded deviations' mean regrets and the largest overshoot."""
        r_star, dev, _ = self.model.best_deviation(sample.stats, sample.weights)
        means = self.model.mean_regrets(sample.stats, sample.weights)
        positive = self.lam > 0
        return Assessment(r_star, dev, means, float(np.max(-means[positive], initial=0.0)))

    def update(self, sample, seen: Assessment) -> None:
        """One coordinate step on ``sample``: raise r*'s lambda or lower the most overshot one,
        then reweight ``sample.weights`` to the new lambda; with ``corrective``, refit every
        lambda (``refit``)."""
        model = self.model
        j, step, lo, hi = self._raise(seen) if seen.regret >= seen.overshoot else self._lower(seen)
        rs = model.deviation_regrets(sample.stats, model.devs[j])
        if self.line_search:
            floor = 0.0 if self.exact else self.ess_min * len(sample.weights)
            step = line_search(sample.weights, rs, lo, hi, step, floor)
        if step < 0 and self._lam[j] + step <= 1e-6 * self._lam[j]:
            step = -self._lam[j]  # the search only nears its bound: a lambda that should be 0 is 0
        self._lam[j] += step
        model.add(model.devs[j], step)
        sample.weights = model.reweight(sample.stats, sample.weights, step, rs)
        if self.corrective:
            for k, d in enumerate(refit(model, sample.stats, sample.profiles, self.lam)):
                self._lam[k] += d
                model.add(model.devs[k], d)

    def _raise(self, seen: Assessment) -> tuple:
        """(index, eq. 7's step, the line search's bracket) for r*'s deviation, recorded first if
        it is new."""
        j = self.model.register(seen.deviation)
        if j == self.count:
            if self.count == len(self._lam):
                self._lam = np.concatenate([self._lam, np.zeros(self.count)])
            self.count += 1
        R = self.model.bound(seen.deviation, self.rmax)
        r = min(seen.regret, R * (1 - 1e-9))
        step = math.log((R + r) / (R - r)) / (2 * R)
        # exact expectations may need lambda to grow without bound (the maximum-entropy EFCE gives
        # some profiles probability 0), so the bracket reaches a cut of e^-50 on their weight
        hi = max(self.step_cap * step, 50.0 / R) if self.exact else self.step_cap * step
        return j, step, 0.0, hi

    def _lower(self, seen: Assessment) -> tuple:
        """(index, step, bracket) that lowers the most overshot lambda by eq. 7's step for its
        overshoot, never below 0."""
        lam = self.lam
        positive = lam > 0
        j = int(np.flatnonzero(positive)[np.argmax(-seen.means[positive])])
        R = self.model.bound(self.model.devs[j], self.rmax)
        slack = seen.overshoot
        step = -min(lam[j], math.log((R + slack) / (R - min(slack, R * (1 - 1e-9)))) / (2 * R))
        return j, step, -lam[j], 0.0


@dataclass(frozen=True)
class Limits:
    """The stopping rules: the regret to reach (``target`` r_max, or with ``stop_ratio`` that
    fraction of the first round's), and the round and time limits."""

    target_regret: float
    stop_ratio: float | None
    max_rounds: int | None
    time_limit: float | None

    def reached(self, seen, initial: float) -> bool:
        """Whether a round's reading ``seen`` meets the target: neither the largest regret nor the
        largest overshoot above the goal (or no deviation gains and none overshoots)."""
        goal = self.target_regret if self.stop_ratio is None else self.stop_ratio * initial
        return max(seen.regret, seen.overshoot) <= goal or (seen.deviation is None and seen.overshoot == 0)


@dataclass
class Rounds:
    """What the rounds leave: the last largest regret, the first, the round count, whether the
    target was met, which rule stopped them, and each round's record."""

    max_regret: float = math.inf
    initial: float | None = None
    rounds: int = 0
    converged: bool = False
    stopped_by: str = "rounds"
    history: list = field(default_factory=list)


def run_rounds(
    source,
    boost: Boosting,
    limits: Limits,
    every: float,
    say: Callable[[str], None],
    memory_now: Callable[[], int | None],
    t0: float,
) -> Rounds:
    """The boosting rounds (Dudik & Gordon 2009, section 3): each takes the sample ``source``
    (``efce.samplesources``) gives it, reads it (``Boosting.assess``), stops at a limit or moves
    one coordinate of lambda (``Boosting.update``). A progress line goes to ``say`` at most every
    ``every`` seconds; each round's record holds ``memory_now()`` and the seconds since ``t0``.
    Ctrl-C stops the rounds with the distribution so far."""
    run = Rounds()
    last_say = -math.inf
    rounds = range(1, limits.max_rounds + 1) if limits.max_rounds is not None else itertools.count(1)
    try:
        for t in rounds:
            ess = source.for_round(t)
            sample = source.sample
            seen = boost.assess(sample)
            run.initial = seen.regret if run.initial is None else run.initial
            run.max_regret, run.rounds = seen.regret, t
            run.history.append(
                {
                    "round": t,
                    "regret": seen.regret,
                    "overshoot": seen.overshoot,
                    "sample": len(sample.weights),
                    "ess": ess,
                    "deviations": boost.count,
                    "seconds": time.perf_counter() - t0,
                    "memory": memory_now(),
                }
            )
            now = time.perf_counter()
            if now - last_say >= every:
                last_say = now
                share = seen.regret / run.initial if run.initial else 0
                say(
                    f"round {t}: largest regret {seen.regret:.4g} ({share:.3g} of the first), overshoot "
                    f"{seen.overshoot:.3g}, sample {len(sample.weights)} (effective {ess:.0f}), deviations "
                    f"{boost.count}, {now - t0:.0f} s"
                )
            if limits.reached(seen, run.initial):
                run.converged, run.stopped_by = True, "target"
                break
            boost.update(sample, seen)
            if limits.time_limit is not None and time.perf_counter() - t0 > limits.time_limit:
                say(f"time limit of {limits.time_limit:g} s reached")
                run.stopped_by = "time_limit"
                break
    except KeyboardInterrupt:
        say("interrupted: returning the current distribution")
        run.stopped_by = "interrupted"
    return run


def refit(model, stats, S: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """The change to every recorded lambda that minimises log Z(lambda) over lambda >= 0 (the
    dual of Dudik & Gordon 2009's eq. 2, exactly, over the enumerated profiles ``S``), from the
    current lambda: totally corrective boosting (L-BFGS-B, gradient -E_q[r_phi]). Coordinate
    steps alone can zig-zag for thousands of rounds between deviations that pull the same profiles
    opposite ways; the limit is the same."""
    from scipy.optimize import minimize

    Rm = np.column_stack([model.deviation_regrets(stats, d) for d in model.devs])  # (profiles, deviations)
    lam0 = np.asarray(lam, dtype=float)
    base = model.energy(S) + Rm @ lam0  # w . u(s), the part of the energy lambda does not move

    def dual(x):
        e = base - Rm @ x
        top = e.max()
        q = np.exp(e - top)
        z = q.sum()
        return math.log(z) + top, -(q @ Rm) / z

    got = minimize(
        dual,
        lam0,
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * len(lam0),
        options={"maxiter": 500, "ftol": 1e-15, "gtol": 1e-12},
    )
    new = got.x if got.fun <= dual(lam0)[0] else lam0
    return new - lam0


def effective_size(weights: np.ndarray) -> float:
    """Effective sample size (Dudik & Gordon 2009, section 3.4): exp of the entropy of the
    normalised weights."""
    q = weights / weights.sum()
    q = q[q > 0]
    return float(np.exp(-(q * np.log(q)).sum()))


def line_search(om: np.ndarray, rs: np.ndarray, lo: float, hi: float, step0: float, ess_floor: float) -> float:
    """The step in [lo, hi] minimising the sample estimate F(x) = log sum om exp(-x rs) of log Z
    (Dudik & Gordon 2009, section 3.4), stopped short where the effective sample size would fall
    below ``ess_floor`` (``_ess_truncated``). F is convex with F' = -E_x[rs] and F'' = Var_x[rs]:
    safeguarded Newton steps, bisection when a step leaves the bracket. Profiles with rs = 0 (the
    deviation's trigger not reached) only add a constant weight, so they are summed once."""
    nz = (rs != 0) & (om > 0)
    r, lw = rs[nz], np.log(om[nz])
    w0 = float(om[(rs == 0) & (om > 0)].sum())
    lw0 = math.log(w0) if w0 > 0 else -math.inf
    if len(r) == 0:
        return step0

    def moments(x):
        # in log space: at a long step exp(-x r) under- or overflows for every profile
        z = lw - x * r
        zmax = max(float(z.max()), lw0)
        e = np.exp(z - zmax)
        tot = float(e.sum()) + math.exp(lw0 - zmax)
        m1 = float(e @ r) / tot
        return -m1, float(e @ (r * r)) / tot - m1 * m1

    a0, b0 = lo, hi
    if moments(hi)[0] <= 0:  # still descending at the cap: the cap
        x = hi
    elif moments(lo)[0] >= 0:
        x = lo
    else:
        x = min(max(step0, lo), hi)
    for _ in range(50 if lo < x < hi else 0):
        d1, d2 = moments(x)
        if d1 > 0:
            b0 = x
        else:
            a0 = x
        if abs(d1) <= 1e-10 * float(np.abs(r).max()) or b0 - a0 <= 1e-10 * (hi - lo):
            break
        nx = x - d1 / d2 if d2 > 0 else (a0 + b0) / 2
        x = nx if a0 < nx < b0 else (a0 + b0) / 2
    return _ess_truncated(om, rs, step0, x, ess_floor)


def _ess_truncated(om: np.ndarray, rs: np.ndarray, step0: float, x: float, ess_floor: float) -> float:
    """The line search stopped where the effective sample size would fall below ``ess_floor``
    (section 3.4): the step between eq. 7's ``step0`` and the search's ``x`` nearest ``x`` that
    keeps it, by bisection (``step0`` when even that falls below)."""
    with np.errstate(divide="ignore"):
        lw = np.log(om)  # once, not at each of the bisection's 40 trial steps

    def keeps(t: float) -> bool:
        z = lw - t * rs
        return effective_size(np.exp(z - z.max())) >= ess_floor

    if keeps(x):
        return x
    if not keeps(step0):
        return step0
    a, b = step0, x
    for _ in range(40):
        m = (a + b) / 2
        a, b = (m, b) if keeps(m) else (a, m)
    return a

"""Where the boosting rounds of Dudik & Gordon (2009)'s sampling algorithm get their expectations
from: one source per kind, each holding the current weighted sample (``Sample``) and deciding,
each round, whether to keep it or replace it.

- ``ExactEnumeration``: every full pure profile, weighted by q_lambda itself (computed from the
  energies each round, not by compounding reweightings, which drift). No sampling noise and no
  reuse rules; the ground truth against which to measure MCMC's noise.
- ``MarkovChains``: section 3.3's persistent parallel Markov chains, one per sampled profile,
  each advanced by ``thin`` Gibbs sweeps between samples (after ``burn_in`` sweeps at the start),
  in this process or split over worker processes (``efce.drawpool``). When the sample size grows,
  new chains start as copies of random existing ones.
- ``OverlappedChains``: the same chains, the next sample drawn by the workers in the background
  while the rounds fit on the current one, and weighted on arrival by q_lambda over the q it was
  drawn from.

The reuse rules (section 3.4 and ours): a sample serves rounds, reweighted by exp(-step
r_phi(s)), while its effective sample size (exp of the entropy of the weights) stays above
``ess_min`` times its size (the paper's rule; it names no threshold, half is ours), for at most
``max_reuse`` rounds (ours: a long-reused sample overfits, its regret estimate falling below the
distribution's), and, with ``reuse_time``, for rounds taking at most that multiple of the time
the sample took to draw (ours: late in a long run the steps are so small that the effective size
never falls). A fresh sample in round t has ``sample_size + growth t`` profiles (section 3.4:
100 + t/10).

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .boosting import effective_size
from .family import SampleStats
from .models import full_profiles

if TYPE_CHECKING:
    from .drawpool import DrawPool

__all__ = ["Sample", "ExactEnumeration", "MarkovChains", "OverlappedChains"]


@dataclass
class Sample:
    """The profiles the rounds fit on (rows), their lambda-free statistics (None before the first
    round), and their weights: q_lambda over the distribution they were drawn from, up to a
    constant."""

    profiles: np.ndarray
    stats: SampleStats | None = None
    weights: np.ndarray = field(default_factory=lambda: np.zeros(0))


class ExactEnumeration:
    """Every full pure profile of the model's game (at most ``efce.models.MAX_EXACT_PROFILES``),
    weighted by q_lambda."""

    kind = "exact"

    def __init__(self, model):
        self.model = model
        self.sample = Sample(full_profiles(model))
        self.drawn = 0

    def start(self) -> None:
        """Nothing to burn in."""

    def for_round(self, t: int) -> float:
        """Weight every profile by the current q_lambda; returns the effective sample size."""
        s = self.sample
        if s.stats is None:
            s.stats = self.model.statistics(s.profiles)
            self.drawn = len(s.profiles)
        e = self.model.energy(s.profiles)
        s.weights = np.exp(e - e.max())
        return effective_size(s.weights)

    def close(self) -> None:
        """Nothing to stop."""


class MarkovChains:
    """Gibbs chains of q_lambda, swept in this process or, with ``pool`` (a callable returning an
    ``efce.drawpool.DrawPool``), by worker processes. ``options``: the run's
    ``efce.SamplerOptions`` (its sample size, growth, thin, burn-in and reuse rules); ``rng``
    draws the chains' starting profiles, their sweeps and the workers' seeds."""

    kind = "mcmc"

    def __init__(self, model, rng: np.random.Generator, options, pool: Callable | None = None):
        self.model = model
        self.rng = rng
        self.options = options
        self.sample = Sample(model.new_profiles(options.sample_size, rng))
        self.drawn = 0  # profiles drawn in total
        self.drawn_at = 0  # the round the current sample was drawn in
        self._make_pool = pool
        self.pool: DrawPool | None = None
        self._drawn_until = 0.0  # when the current sample was ready (perf_counter)
        self._draw_cost = 0.0  # seconds it took to draw

    def start(self) -> None:
        """Start the workers, if any, and sweep every chain ``burn_in`` times."""
        s, opts = self.sample, self.options
        if self._make_pool is not None:
            self.pool = self._make_pool()
            s.profiles = self.pool.draw(self.model, s.profiles, opts.burn_in, self.rng, stats=False)[0]
            return
        for _ in range(opts.burn_in):
            self.model.sweep(s.profiles, self.rng)

    def for_round(self, t: int) -> float:
        """Keep the sample for round ``t`` or draw afresh (the reuse rules of the module
        docstring); returns its effective sample size."""
        s = self.sample
        ess = effective_size(s.weights) if s.stats is not None else 0.0
        reuse_time = self.options.reuse_time
        if self._due(t, ess) or (
            reuse_time is not None and time.perf_counter() - self._drawn_until > reuse_time * self._draw_cost
        ):
            tic = time.perf_counter()
            s.profiles = self._grown(s.profiles, t)
            if self.pool is not None:
                s.profiles, s.stats = self.pool.draw(self.model, s.profiles, self.options.thin, self.rng)
            else:
                for _ in range(self.options.thin):
                    self.model.sweep(s.profiles, self.rng)
                s.stats = self.model.statistics(s.profiles)
            self.drawn += len(s.profiles)
            self.drawn_at = t
            self._drawn_until = time.perf_counter()
            self._draw_cost = self._drawn_until - tic
            s.weights = np.ones(len(s.profiles))
            ess = float(len(s.profiles))
        return ess

    def close(self) -> None:
        """Stop the workers, if any."""
        if self.pool is not None:
            self.pool.close()

    def _due(self, t: int, ess: float) -> bool:
        """The reuse rules that call for a new sample whatever the time: none yet, too few
        effective profiles left, or ``max_reuse`` rounds served."""
        max_reuse = self.options.max_reuse
        return (
            self.sample.stats is None
            or ess < self.options.ess_min * len(self.sample.weights)
            or t - self.drawn_at >= (math.inf if max_reuse is None else max_reuse)
        )

    def _grown(self, S: np.ndarray, t: int) -> np.ndarray:
        """The chains S with copies of random ones added, up to round ``t``'s sample size."""
        m = int(self.options.sample_size + self.options.growth * t)
        if len(S) >= m:
            return S
        return np.vstack([S, S[self.rng.integers(len(S), size=m - len(S))]])


class OverlappedChains(MarkovChains):
    """``MarkovChains`` whose next sample the workers draw while the rounds fit on the current
    one, so that neither waits for the other. A sample is drawn with the lambda of the moment its
    draw started and weighted on arrival by q_lambda over that q: exp of the energy change,
    -dL . G(s) + dLam . B(s), the reweighting that sample reuse does anyway. It replaces the
    current sample when the reuse rules call for a new one, or, with ``reuse_time``, as soon as it
    is ready (then the run depends on timing, as it does with ``reuse_time`` alone)."""

    def for_round(self, t: int) -> float:
        """Keep the sample for round ``t`` or swap in the one drawn in the background, and start
        the next draw; returns the effective sample size."""
        s, pool, model = self.sample, self.pool, self.model
        assert pool is not None  # started (start) with a pool: this source needs one
        ess = effective_size(s.weights) if s.stats is not None else 0.0
        if not (self._due(t, ess) or (self.options.reuse_time is not None and pool.ready())):
            return ess
        if pool.pending is None:  # the first draw
            pool.submit(model, s.profiles, self.options.thin, self.rng)
        s.profiles, s.stats, L0, Lam0 = pool.collect()
        z = s.stats.B @ (model.Lam - Lam0) - s.stats.G @ (model.L - L0)
        s.weights = np.exp(z - z.max())
        ess = effective_size(s.weights)
        self.drawn += len(s.profiles)
        self.drawn_at = t
        # the chains go on from where this sample left them
        pool.submit(model, self._grown(s.profiles, t), self.options.thin, self.rng)
        return ess

"""Fresh samples drawn by several processes: the sampling algorithm's Gibbs sweeps and sample
statistics (Dudik & Gordon (2009), section 3.3) split by chains over worker processes.

The chains are independent given lambda, so each worker advances a share of them and computes
that share's statistics (``efce.family.SampleStats``); the parent stacks the shares. Everything a
worker needs is lambda aggregated per trigger (``L`` and ``Lam``, the model's only state that
boosting changes), sent with each task: a few tens of kilobytes. Each worker builds its own
model of q_lambda once, from the pickled game (``concurrent.futures`` with spawned processes; a
spawned child inherits no threads or state from the caller). Random streams come from the
parent's generator, so a run is reproducible for a given number of workers. A spawned child
imports the caller's main script again: if its top-level code, unguarded by
``if __name__ == "__main__":``, starts a pool again, ``DrawPool`` raises ``UnguardedMainError`` at
once (``seqform.spawnpool.spawn_pool``).

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import signal
import threading
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

import numpy as np
import scipy.sparse as sp

from .family import Model, SampleStats

_MODEL: Model | None = None  # the worker process's model of q_lambda


def _start(make, game, w, engine) -> None:
    """A worker's initializer: its model, ``make(game, w, None, None, engine)``; Ctrl-C is the
    parent's to handle."""
    global _MODEL
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _MODEL = make(game, w, None, None, engine)


def _ready() -> None:
    """A no-op task: its completion says a worker has started."""


def _draw(S: np.ndarray, L: np.ndarray, Lam: np.ndarray, sweeps: int, seed: int, stats: bool) -> tuple:
    """Advance the chains S (rows) by ``sweeps`` Gibbs sweeps of q_lambda; with their
    statistics when asked."""
    m = _MODEL
    assert m is not None  # set by _start, the worker's initializer
    m.L[:] = L
    m.Lam[:] = Lam
    rng = np.random.default_rng(seed)
    for _ in range(sweeps):
        m.sweep(S, rng)
    return S, (m.statistics(S) if stats else None)


class DrawPool:
    """``workers`` processes, each with a model of ``game``'s q_lambda for utility weights ``w``,
    built by ``make`` (``efce.models.make_model``, passed in so that this module does not import
    the sampler that uses it). ``submit`` starts ``sweeps`` Gibbs sweeps of every chain, and
    optionally their statistics, with the parent ``model``'s current lambda; ``collect`` waits for
    them. Between the two the parent may go on fitting (``SamplerOptions(overlap=True)``)."""

    def __init__(self, make, game, w, engine: str | None, workers: int):
        # here, not at the top: the workers import this module, and need none of seqform.study
        from seqform.spawnpool import spawn_pool, stop_broken_pool

        self.workers = workers
        self.pending: tuple[list[Future], np.ndarray, np.ndarray] | None = None  # (futures, L, Lam)
        self.ex = spawn_pool(workers, _start, (make, game, np.asarray(w, dtype=float), engine))
        # Start every worker now, with SIGINT ignored while they are spawned: a spawned child
        # keeps an ignored SIGINT through exec, so Ctrl-C cannot interrupt its imports before its
        # initializer runs (the executor spawns lazily, one worker per task, and one left
        # starting could print a KeyboardInterrupt traceback).
        main = threading.current_thread() is threading.main_thread()
        old = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            started = [self.ex.submit(_ready) for _ in range(workers)]
        finally:
            if main:
                signal.signal(signal.SIGINT, old)
        try:
            for f in started:
                f.result()
        except BrokenProcessPool:
            stop_broken_pool(self.ex)  # UnguardedMainError if the workers re-ran an unguarded script
            raise

    def submit(self, model, S: np.ndarray, sweeps: int, rng: np.random.Generator, stats: bool = True) -> None:
        """Start advancing the chains S (split into ``workers`` contiguous shares). One draw is
        pending at a time."""
        cuts = np.linspace(0, len(S), self.workers + 1).round().astype(int)
        # copies: the executor pickles a task's arguments later, in its own thread, by when the
        # parent fitting on (overlap) may have moved lambda in place. S needs none: with a pool the
        # sampler replaces S when a draw is collected and never sweeps it in place.
        L, Lam = model.L.copy(), model.Lam.copy()
        futs = [
            self.ex.submit(_draw, S[a:b], L, Lam, sweeps, int(rng.integers(2**63)), stats)
            for a, b in zip(cuts[:-1], cuts[1:])
            if b > a
        ]
        self.pending = (futs, L, Lam)

    def ready(self) -> bool:
        """Whether the pending draw has finished."""
        return self.pending is not None and all(f.done() for f in self.pending[0])

    def collect(self) -> tuple:
        """(S advanced, its SampleStats or None, the L and Lam it was drawn with), waited for."""
        if self.pending is None:
            raise RuntimeError("DrawPool.collect: no draw is pending")
        futs, L, Lam = self.pending
        self.pending = None
        return (*_stacked([f.result() for f in futs]), L, Lam)

    def draw(self, model, S: np.ndarray, sweeps: int, rng: np.random.Generator, stats: bool = True) -> tuple:
        """``submit`` then ``collect``: (S advanced, its SampleStats or None)."""
        self.submit(model, S, sweeps, rng, stats)
        return self.collect()[:2]

    def close(self) -> None:
        """Stop the workers; a task under way is abandoned (Ctrl-C must not wait for it)."""
        self.ex.shutdown(wait=False, cancel_futures=True)


def _stacked(done: list) -> tuple:
    """The workers' shares, stacked: (S, SampleStats or None)."""
    S = np.vstack([d[0] for d in done])
    if done[0][1] is None:
        return S, None
    st = [d[1] for d in done]
    return S, SampleStats(
        sp.vstack([x.G for x in st]).tocsr(),
        sp.vstack([x.B for x in st]).tocsr(),
        np.vstack([x.U for x in st]),
        None if st[0].S is None else np.vstack([x.S for x in st]),
    )

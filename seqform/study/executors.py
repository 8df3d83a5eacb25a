"""Where a study's cells run: a local process pool, or Ray.

Both executors take the ground truth of every game once (``GroundTruth``, computed by the driver)
and hand each worker a copy once: the pool through its initializer, Ray through its object store
(``ray.put``). A cell is ``run_cell(cell, truth, time_limit)``, the same function on both,
so the same study gives the same table. The driver (``seqform.study.studyrunner``) submits
cells, collects ``(cell, rows)`` or ``(cell, error)`` as they finish, and retries failures.

* ``LocalExecutor(workers)``: ``concurrent.futures.ProcessPoolExecutor`` with spawned processes
  (no fork: HiGHS and OpenSpiel hold threads). At most ``workers`` cells are in flight, so when a
  worker dies (killed, out of memory) and the pool breaks, the cells in flight are the ones to
  charge an attempt and run again, on a new pool.
* A spawned worker imports the driver's main script again (as ``__mp_main__``). A script whose
  top-level code starts a pool, without ``if __name__ == "__main__":``, would start one in every
  worker while it is still starting, which ``multiprocessing`` refuses with a RuntimeError and a
  traceback per worker and per retry. ``seqform.spawnpool.spawn_pool`` makes such a worker exit at once, quietly,
  with the status ``UNGUARDED_EXIT``; ``stop_broken_pool`` finds that status among the broken
  pool's workers and raises ``UnguardedMainError``, one line naming the fix. Nothing is retried.
* ``RayExecutor(address)``: Ray tasks (``pip install "seqform[distributed]"``); ``address=None``
  starts a local Ray runtime, else joins the cluster at ``address`` ("auto", "ray://host:10001",
  ...). A dead worker is Ray's ``WorkerCrashedError``, retried by the driver like any failure; so
  is a lost node (``NodeDiedError``, or the cell's result lost with the node): the retry runs on a
  node still alive. Each row records the Ray node id that ran the cell (``node``; null on the pool).

A local pool's workers share the memory limit (``seqform.model.limits.limit_worker_memory``: the
limit over the number of workers, as an address-space cap): a cell that outgrows it fails with a
``MemoryError`` and is retried like any failure. Ray's workers are bounded by Ray's own memory
monitor.

Workers never write on standard output (it belongs to the driver's user): their file descriptor 1
points at standard error. They ignore SIGINT: Ctrl-C stops the driver, which stops them.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor
from concurrent.futures import wait as futures_wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from seqform.errors import SeqformError
from seqform.model.limits import limit_worker_memory
from seqform.spawnpool import spawn_pool, stop_broken_pool

_TRUTHS: dict = {}
_TREES: dict = {}


def _watch_parent() -> None:
    """Exit when the driver is gone (killed without the chance to stop its pool): an orphaned
    worker would otherwise run its cell to the end for nobody."""
    import threading

    parent = os.getppid()

    def watch():
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="seqform-parent-watch").start()


def _worker_setup(truths: dict | None = None, watch: bool = False, workers: int = 0) -> None:
    if watch:
        _watch_parent()
    if workers:
        # the pool's workers share the memory limit: a runaway cell gets a MemoryError, a failed
        # cell the driver retries, instead of the kernel's out-of-memory killer picking a process.
        # What every cell imports is mapped first, so that the share is left for the cell's data
        # (the libraries reserve hundreds of MB of address space they never touch)
        import seqform.study.verifyharness  # noqa: F401

        limit_worker_memory(workers)
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread (some Ray workers): Ray stops them itself
        pass
    try:
        os.dup2(2, 1)
    except OSError:
        pass
    if truths:
        _TRUTHS.update(truths)


def _tree(game: str):
    if game not in _TREES:
        from seqform.io.gamespec import load_game
        from seqform.model.tree import compile_tree

        _TREES[game] = compile_tree(load_game(game))
    return _TREES[game]


def run_cell(cell, truth=None, time_limit: float | None = None) -> list:
    """Run one cell (a ``verify`` run) and return its rows for the table (without the study's
    name, status and attempts, which the driver adds). ``truth``: the game's ``GroundTruth``
    (default: the one this worker was given at start), whose ``eps`` is also the perturbed
    solvers' tremble."""
    from seqform.study.studytable import truth_columns
    from seqform.study.verifyharness import takes_eps, verify

    t0 = time.perf_counter()
    truth = truth if truth is not None else _TRUTHS[cell.game]
    tree = _tree(cell.game)
    rep = verify(
        cell.solver,
        tree,
        cell.iterations,
        points=list(cell.points),
        seed=cell.seed,
        params=dict(cell.params),
        truth=truth,
        eps=truth.eps if takes_eps(cell.solver) else None,
        time_limit=time_limit,
    )
    if rep.interrupted:
        raise SeqformError("the cell was interrupted")
    where = f"{socket.gethostname()}:{os.getpid()}"
    rows = []
    for pt in rep.points:
        work = (
            pt.nodes_touched
            if pt.nodes_touched is not None
            else (None if pt.traversals is None else int(pt.traversals) * int(tree.num_nodes))
        )
        rows.append(
            {
                "game": cell.game,
                "solver": cell.solver,
                "params": cell.params_json,
                "seed": cell.seed,
                "iterations": cell.iterations,
                "cell": cell.key,
                "iteration": pt.iteration,
                "traversals": pt.traversals,
                "nodes_touched": pt.nodes_touched,
                "work": work,
                "seconds": pt.seconds,
                "solver_seconds": pt.solver_seconds,
                "exploitability": pt.exploitability,
                "current_exploitability": pt.current_exploitability,
                "value": pt.value,
                "value_gap": pt.value_gap,
                "max_infoset_regret": pt.max_infoset_regret,
                "theorem_bound": pt.theorem_bound,
                "efpe_distance": pt.efpe_distance,
                "qpe_distance": pt.qpe_distance,
                "perturbed_exploitability": pt.perturbed_exploitability,
                "perturbed_value_gap": pt.perturbed_value_gap,
                "perturbed_max_infoset_regret": pt.perturbed_max_infoset_regret,
                "tremble_violation": pt.tremble_violation,
                **truth_columns(pt, truth),  # game value (null without one), NashConv, values
                "worker": where,
                "cell_seconds": time.perf_counter() - t0,
                "node": None,  # off Ray; a Ray task sets its node's id (``_ray_cell``)
            }
        )
    return rows


def _run_cell_here(cell, time_limit):
    return run_cell(cell, None, time_limit)


class WorkerDied(SeqformError):
    """The process running a cell died (killed, out of memory, a crash in compiled code)."""


class LocalExecutor:
    """A process pool on this machine (module docstring)."""

    name = "local"

    def __init__(self, workers: int, truths: dict, time_limit: float | None):
        if workers < 1:
            raise SeqformError(f"--workers must be at least 1, got {workers}")
        self.workers, self.truths, self.time_limit = workers, truths, time_limit
        self._pool: ProcessPoolExecutor | None = None
        self._running: dict = {}  # future -> cell
        self._charged: list = []  # results of a pool found broken by ``submit``, for ``results``

    def _new_pool(self) -> ProcessPoolExecutor:
        self._pool = spawn_pool(self.workers, _worker_setup, (self.truths, True, self.workers))
        return self._pool

    @property
    def capacity(self) -> int:
        return self.workers - len(self._running)

    @property
    def in_flight(self) -> int:
        return len(self._running)

    def submit(self, cell) -> None:
        pool = self._pool if self._pool is not None else self._new_pool()
        try:
            future = pool.submit(_run_cell_here, cell, self.time_limit)
        except BrokenProcessPool:
            # a worker died after the last ``results``: the cells in flight are settled now (and
            # reported by the next ``results``), and this cell goes to a new pool
            self._charged.extend(self._settle_broken())
            future = self._new_pool().submit(_run_cell_here, cell, self.time_limit)
        self._running[future] = cell

    def _settle_broken(self) -> list:
        """The cells in flight on a broken pool: those that finished before it broke keep their
        rows, the others are charged an attempt (``WorkerDied``). The broken pool is stopped."""
        out: list[tuple[Any, Any, Exception | None]] = []
        for f, cell in self._running.items():
            if f.done() and not f.cancelled() and f.exception() is None:
                out.append((cell, f.result(), None))
            else:
                out.append((cell, None, WorkerDied("a worker process died while this cell ran (the pool broke)")))
        self._running.clear()
        pool, self._pool = self._pool, None
        if pool is not None:
            stop_broken_pool(pool)  # an unguarded main script: UnguardedMainError, no cell retried
        return out

    def results(self, timeout: float) -> list:
        """Cells finished within ``timeout`` seconds: ``(cell, rows, None)`` or ``(cell, None, error)``."""
        charged, self._charged = self._charged, []
        if not self._running:
            return charged
        if charged:
            timeout = 0  # report these at once
        done, _ = futures_wait(list(self._running), timeout=timeout, return_when=FIRST_COMPLETED)
        out: list[tuple[Any, Any, Exception | None]] = charged
        broken = False
        for f in done:
            cell = self._running.pop(f)
            try:
                out.append((cell, f.result(), None))
            except BrokenProcessPool:
                broken = True
                out.append(
                    (
                        cell,
                        None,
                        WorkerDied(
                            "a worker process died while this cell ran (killed, out of "
                            "memory, or a crash in compiled code)"
                        ),
                    )
                )
            except Exception as e:  # the cell's own error: recorded, retried by the driver
                out.append((cell, None, e))
        if broken:  # the cells still in flight died with the pool: each is charged an attempt
            out.extend(self._settle_broken())
        return out

    def shutdown(self, kill: bool = False) -> None:
        if self._pool is None:
            return
        if kill:  # Ctrl-C: the cells in flight are abandoned, their workers stopped
            for p in list(getattr(self._pool, "_processes", {}).values()):
                try:
                    p.terminate()
                except Exception:
                    pass
        self._pool.shutdown(wait=not kill, cancel_futures=True)
        self._pool = None
        self._running.clear()


class RayExecutor:
    """Ray tasks, on a local runtime or a cluster (module docstring)."""

    name = "ray"

    def __init__(self, address: str | None, truths: dict, time_limit: float | None, workers: int | None = None):
        try:
            import ray
        except ImportError:
            from seqform.installation import install_command

            raise SeqformError(f"--ray needs Ray: {install_command('distributed')}") from None
        import logging

        self.ray = ray
        kwargs: dict[str, Any] = dict(
            include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR, configure_logging=True
        )
        if address is None and workers:
            kwargs["num_cpus"] = workers
        from seqform.silence import silenced_fds

        try:
            with silenced_fds():  # Ray's start-up banner goes to the terminal, not to our stdout
                ray.init(address=address, **kwargs)
        except Exception as e:
            raise SeqformError(
                f"--ray: cannot start or join Ray{'' if address is None else ' at ' + address}: "
                f"{str(e).splitlines()[0] if str(e) else type(e).__name__}"
            ) from None
        self.started_here = address is None
        self._stdout = _RayStdoutToStderr.install()
        self.time_limit = time_limit
        self.truth_refs = {g: ray.put(t) for g, t in truths.items()}
        self._remote = ray.remote(num_cpus=1, max_retries=0)(_ray_cell)
        self._running: dict = {}  # ObjectRef -> cell
        self.workers = int(ray.cluster_resources().get("CPU", 1))

    @property
    def capacity(self) -> int:
        return 2 * self.workers - len(self._running)  # a short queue keeps every CPU busy

    @property
    def in_flight(self) -> int:
        return len(self._running)

    def submit(self, cell) -> None:
        ref = self._remote.remote(cell, self.truth_refs[cell.game], self.time_limit)
        self._running[ref] = cell

    def results(self, timeout: float) -> list:
        if not self._running:
            return []
        ray = self.ray
        done, _ = ray.wait(list(self._running), num_returns=len(self._running), timeout=timeout)
        out: list[tuple[Any, Any, Exception | None]] = []
        for ref in done:
            cell = self._running.pop(ref)
            try:
                out.append((cell, ray.get(ref), None))
            except ray.exceptions.RayTaskError as e:  # the cell's own error, raised in the task
                cause = getattr(e, "cause", None)
                out.append(
                    (cell, None, cause if isinstance(cause, Exception) else SeqformError(str(e).splitlines()[0]))
                )
            except ray.exceptions.RayError as e:  # the worker died, a node was lost, ...
                out.append((cell, None, WorkerDied(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")))
        return out

    def shutdown(self, kill: bool = False) -> None:
        ray = self.ray
        if kill:
            for ref in list(self._running):
                try:
                    ray.cancel(ref, force=True)
                except Exception:
                    pass
        self._running.clear()
        from seqform.silence import silenced_fds

        # a local runtime stops; a cluster only loses this driver (Ray then stops its tasks) and
        # keeps running: either way Ray's threads in this process end, and stop printing
        with silenced_fds():
            ray.shutdown()
        self._stdout.uninstall()


class _RayStdoutToStderr:
    """``sys.stdout``, except for what Ray's own threads in the driver write there.

    A driver that joined a cluster prints the cluster's events (a node "marked dead", a worker
    killed for memory, ...) from a thread of its own (``ray_listen_error_messages``) on
    ``sys.stdout``, whatever ``log_to_driver`` says: that would break a ``--json`` object. While
    the executor is connected, lines written by threads whose name starts with ``ray_`` go to
    ``sys.stderr``; everything else reaches standard output as before."""

    def __init__(self, out):
        self._out = out

    @classmethod
    def install(cls) -> _RayStdoutToStderr:
        import sys

        router = cls(sys.stdout)
        sys.stdout = router
        return router

    def uninstall(self) -> None:
        import sys

        if sys.stdout is self:  # (else someone replaced it meanwhile: theirs stays)
            sys.stdout = self._out

    def _sink(self):
        import sys
        import threading

        return sys.stderr if threading.current_thread().name.startswith("ray_") else self._out

    def write(self, text: str) -> int:
        return self._sink().write(text)

    def flush(self) -> None:
        self._sink().flush()

    def __getattr__(self, name: str):  # fileno, isatty, encoding, ...: the real stdout's
        return getattr(self._out, name)


def _ray_cell(cell, truth, time_limit):
    """``run_cell`` as a Ray task; its rows name the Ray node that ran it (``node``), so a
    cluster's table says where each cell ran (a node lost mid-study: which cells ran again where)."""
    import ray

    _worker_setup()
    rows = run_cell(cell, truth, time_limit)
    node = ray.get_runtime_context().get_node_id()
    for r in rows:
        r["node"] = node
    return rows


__all__ = ["LocalExecutor", "RayExecutor", "run_cell", "WorkerDied"]

"""Process pools of spawned workers, and the one mistake every user script makes with them.

A spawned worker imports the driver's main script again (as ``__mp_main__``). A script whose
top-level code starts a pool, without ``if __name__ == "__main__":``, would start one in every
worker while it is still starting, which ``multiprocessing`` refuses with a RuntimeError and a
traceback per worker (and per retry, where the caller retries). ``spawn_pool`` makes such a worker
exit at once, quietly, with the status ``UNGUARDED_EXIT``; ``stop_broken_pool`` finds that status
among a broken pool's workers and raises ``UnguardedMainError``, one line naming the fix. The
studies' local executor (``seqform.study.executors``) and ``efce``'s ``DrawPool`` start their
pools here.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from seqform.errors import UnguardedMainError

#: the exit status of a spawned worker that, still importing its parent's main script, was about to
#: start a process pool (``exit_if_bootstrapping``); a status no cell or interpreter error gives
UNGUARDED_EXIT = 87


def exit_if_bootstrapping() -> None:
    """End this process at once, quietly, with status ``UNGUARDED_EXIT``, if it is a spawned worker
    still importing its parent's main script (whose unguarded top-level code is about to start a
    pool); otherwise return."""
    import multiprocessing

    # the flag multiprocessing itself checks before refusing to start a process ("... before the
    # current process has finished its bootstrapping phase"): the process is doomed either way,
    # and exiting now spares the work before the pool (ground truths) and a traceback per worker.
    # os._exit: the worker's output (the script's prints, run again) is the user's noise, not news
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        os._exit(UNGUARDED_EXIT)


def spawn_pool(workers: int, initializer, initargs: tuple) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes, each set up by ``initializer(*initargs)``. Called
    in a worker still importing its parent's main script, this ends that worker instead
    (``exit_if_bootstrapping``)."""
    import multiprocessing

    exit_if_bootstrapping()
    return ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"), initializer=initializer, initargs=initargs
    )


def unguarded_message() -> str:
    """The one line that tells the user to guard the main script (``UnguardedMainError``)."""
    script = getattr(sys.modules.get("__main__"), "__file__", None)
    where = f"{os.path.basename(script)}: " if script else ""
    return (
        f"{where}the process pool's workers import the main script again, and its top-level code starts "
        f'the pool again: put that code under `if __name__ == "__main__":`'
    )


def stop_broken_pool(pool: ProcessPoolExecutor) -> None:
    """Shut down ``pool``, which has broken (``BrokenProcessPool``), without waiting for it; raise
    ``UnguardedMainError`` if one of its workers ended with ``UNGUARDED_EXIT``."""
    from multiprocessing.connection import wait

    workers = list((getattr(pool, "_processes", None) or {}).values())  # before shutdown drops them
    # the pool broke because a worker ended, so its sentinel is ready already; the timeout only
    # bounds the case where none did (a result that could not be unpickled)
    ended = set(wait([p.sentinel for p in workers], timeout=1.0)) if workers else set()
    pool.shutdown(wait=False, cancel_futures=True)
    _settle(pool)
    deadline = time.monotonic() + 5.0
    for p in workers:
        if p.sentinel not in ended:
            continue
        # the pool's thread may be reaping this worker right now: its status is set a moment later
        while p.exitcode is None and time.monotonic() < deadline:
            time.sleep(0.005)
        if p.exitcode == UNGUARDED_EXIT:
            raise UnguardedMainError(unguarded_message()) from None  # the broken pool is not news


def _settle(pool: ProcessPoolExecutor, seconds: float = 5.0) -> None:
    """Let a broken pool's manager thread end, and forget it. At exit, ``concurrent.futures``
    wakes every manager thread it still knows through a pipe; one still closing that pipe at
    that moment races it, and Python prints "Exception ignored ... OSError: [Errno 9] Bad file
    descriptor" under the user's one-line error (once in the whole suite's run on an idle
    machine; not reproduced in 30 runs of the script alone). A thread that has ended and is
    forgotten is not woken. Both names are ``concurrent.futures``' own, looked up defensively."""
    import concurrent.futures.process as cfp

    thread = getattr(pool, "_executor_manager_thread", None)
    if thread is None:
        return
    thread.join(seconds)
    if not thread.is_alive():
        getattr(cfp, "_threads_wakeups", {}).pop(thread, None)

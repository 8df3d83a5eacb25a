"""``LocalExecutor`` when its pool breaks between two calls: a worker killed after the driver's
last ``results`` leaves ``submit`` facing a broken pool. The cells in flight are settled (a cell
finished before the break keeps its rows, the others are charged an attempt), the new cell runs
on a new pool, and nothing is lost or raised (it once ended the study with a BrokenProcessPool
traceback, found by repeating the killed-worker test ten times under load)."""

from __future__ import annotations

from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

import pytest

from seqform.study import executors
from seqform.study.executors import LocalExecutor, WorkerDied


class _Pool:
    """A pool's ``submit`` only: broken, or taking every cell as a pending future."""

    def __init__(self, broken: bool):
        self.broken, self.sent = broken, []

    def submit(self, fn, cell, time_limit):
        if self.broken:
            raise BrokenProcessPool("a child process terminated abruptly")
        self.sent.append(cell)
        return Future()


@pytest.mark.runtime  # the pool's breaking, replayed without processes
def test_a_pool_broken_before_submit_settles_its_cells_and_the_cell_runs_on_a_new_pool(monkeypatch):
    stopped, pools = [], [_Pool(broken=True), _Pool(broken=False)]
    ex = LocalExecutor(2, {}, None)
    monkeypatch.setattr(ex, "_new_pool", lambda: setattr(ex, "_pool", pools.pop(0)) or ex._pool)
    monkeypatch.setattr(executors, "stop_broken_pool", stopped.append)
    ex._pool = ex._new_pool()
    finished, lost = Future(), Future()
    finished.set_result(["rows of a"])
    ex._running = {finished: "a", lost: "b"}

    ex.submit("c")

    assert len(stopped) == 1 and stopped[0].broken  # the broken pool, stopped once
    assert ex._pool.sent == ["c"] and list(ex._running.values()) == ["c"]
    got = ex.results(timeout=0)
    assert got[0] == ("a", ["rows of a"], None)
    assert got[1][0] == "b" and got[1][1] is None and isinstance(got[1][2], WorkerDied)
    assert len(got) == 2 and ex.results(timeout=0) == []  # reported once; "c" still running

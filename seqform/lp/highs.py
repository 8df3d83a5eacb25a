"""The one door to HiGHS (highspy): a sparse LP given as arrays (``solve_highs``: the Nash LP of
``seqform.lp.zerosumlp``, the perturbed LPs of ``refinements``, the LPs of ``efce`` and ``lossless``) or a
mixed-integer program (``solve_highs_mip``: the MAP pricing of ``efce``), with their options, their
status handling, their log and Ctrl-C.

    optimise  cost^T w   subject to  row_lower <= K w <= row_upper,  col_lower <= w <= col_upper
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp

from seqform.errors import SolverError, TimeLimitError
from seqform.silence import silenced_fds

INF = highspy.kHighsInf
METHODS = ("simplex", "ipm", "choose", "pdlp")
BASIC = 1  # HiGHS basis status code of a basic column or row
# kHighsInterrupt (a user interrupt) is new in highspy 1.12; earlier ones report kInterrupt only
_INTERRUPTED = tuple(
    getattr(highspy.HighsModelStatus, name)
    for name in ("kInterrupt", "kHighsInterrupt")
    if hasattr(highspy.HighsModelStatus, name)
)

#: Where HiGHS's log goes: None (nowhere, the default) or a callable taking one line of text.
#: Set it for a block with ``log_to``; the command line points it at its progress messages.
_log_sink: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar("highs_log", default=None)
#: A solve's log reaches the sink only once the solve has run this long, so small LPs stay quiet
#: and a long one shows HiGHS's iteration lines as they come.
LOG_AFTER_SECONDS = 2.0

_banner_lock = threading.Lock()
_banner_done = False


@contextlib.contextmanager
def log_to(sink: Callable[[str], None] | None) -> Iterator[None]:
    """Within the block, send the log lines of HiGHS solves that run longer than
    ``LOG_AFTER_SECONDS`` to ``sink`` (one stripped line per call), never to the terminal."""
    token = _log_sink.set(sink)
    try:
        yield
    finally:
        _log_sink.reset(token)


def set_log_sink(sink: Callable[[str], None] | None) -> None:
    """Send HiGHS's log to ``sink`` from now on in this context (see ``log_to``)."""
    _log_sink.set(sink)


def new_highs() -> highspy.Highs:
    """A ``highspy.Highs`` with its console output off.

    highspy 1.16 prints a copyright banner on the process's standard output when the first
    ``Highs`` object is made, before any option can be set. That would corrupt a ``--json`` object
    or a user's own output, so the first construction in a process runs inside
    ``seqform.silence.silenced_fds``.
    Later constructions print nothing (HiGHS shows the banner once per process).
    """
    global _banner_done
    if not _banner_done:
        with _banner_lock:
            if not _banner_done:
                h = _construct_silently()
                _banner_done = True
                h.setOptionValue("output_flag", False)
                return h
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


def _construct_silently() -> highspy.Highs:
    with silenced_fds():
        return highspy.Highs()


class _LogForwarder:
    """HiGHS's logging callback: lines that arrive ``LOG_AFTER_SECONDS`` or more after the solve
    started go to ``sink`` as ``HiGHS: <line>``."""

    def __init__(self, sink: Callable[[str], None]):
        self.sink = sink
        self.t0 = time.perf_counter()

    def __call__(self, event) -> None:
        if time.perf_counter() - self.t0 < LOG_AFTER_SECONDS:
            return
        for line in str(getattr(event, "message", "")).splitlines():
            if line.strip():
                self.sink(f"HiGHS: {line.strip()}")


def _attach_log(h: highspy.Highs, verbose: bool) -> _LogForwarder | None:
    """Route HiGHS's log: to the console only when the caller asked (``verbose``), else to the
    context's sink through the logging callback (highspy >= 1.8 has ``cbLogging``), else nowhere."""
    if verbose:
        h.setOptionValue("output_flag", True)
        return None
    sink = _log_sink.get()
    if sink is None or not hasattr(h, "cbLogging"):
        return None
    fwd = _LogForwarder(sink)
    h.setOptionValue("output_flag", True)
    # HiGHS up to 1.13 calls the logging callback only while log_to_console is on, and then
    # writes to the callback instead of the console; from 1.14 it calls it either way and writes
    # to the console as well unless log_to_console is off (measured on 1.11 to 1.16)
    h.setOptionValue("log_to_console", (h.versionMajor(), h.versionMinor()) < (1, 14))
    h.cbLogging.subscribe(fwd)
    return fwd


@dataclass
class HighsResult:
    """HiGHS's optimum: ``objective``, ``col_value`` (n,), ``row_dual`` (m,) (HiGHS's sign
    convention), basis status codes ``col_status`` / ``row_status`` (0 lower, 1 basic, 2 upper,
    3 zero, 4 nonbasic; None without a basis), ``seconds`` and simplex+IPM ``iterations``."""

    objective: float
    col_value: np.ndarray
    row_dual: np.ndarray
    col_status: np.ndarray | None
    row_status: np.ndarray | None
    seconds: float
    iterations: int


def solve_highs(
    K: sp.csc_matrix,
    cost: np.ndarray,
    col_lower: np.ndarray,
    col_upper: np.ndarray,
    row_lower: np.ndarray,
    row_upper: np.ndarray,
    *,
    maximize: bool,
    method: str = "simplex",
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict | None = None,
    basis: tuple | None = None,
) -> HighsResult:
    """Solve the LP above. ``method``: "simplex" (dual simplex), "ipm" (with crossover, so a basis
    is returned), "choose", "pdlp"; ``options``: further HiGHS options by name; ``basis``: a
    starting basis ``(col_status, row_status)`` (codes as in ``HighsResult``). Raises
    ``SolverError`` naming HiGHS's status unless the optimum is reached (``TimeLimitError``, with
    where it stood, at ``time_limit``), ``KeyboardInterrupt`` when the user interrupts the solve."""
    if method not in METHODS:
        raise SolverError(f"unknown LP method {method!r}; choose one of {', '.join(METHODS)}")
    m, n = K.shape
    own = {"solver": method, **({"run_crossover": "on"} if method == "ipm" else {})}
    h, t0 = _started(verbose, time_limit, {**own, **(options or {})})
    _pass_model(h, K, cost, col_lower, col_upper, row_lower, row_upper, maximize, np.zeros(n, dtype=np.int32))
    if basis is not None:
        hb = highspy.HighsBasis()
        hb.col_status = [highspy.HighsBasisStatus(int(v)) for v in basis[0]]
        hb.row_status = [highspy.HighsBasisStatus(int(v)) for v in basis[1]]
        hb.valid = True
        if h.setBasis(hb) == highspy.HighsStatus.kError:
            raise SolverError("HiGHS rejected the starting basis")
    _run_interruptibly(h)
    secs = time.perf_counter() - t0
    ms = h.getModelStatus()
    if ms in _INTERRUPTED:
        raise KeyboardInterrupt("HiGHS solve interrupted")
    if ms == highspy.HighsModelStatus.kTimeLimit:
        sol = h.getSolution()
        where = (
            (np.asarray(sol.col_value), np.asarray(sol.row_dual))
            if sol.value_valid and sol.dual_valid
            else (None, None)
        )
        raise TimeLimitError(f"HiGHS reached its time limit of {time_limit:g} s before an optimum", *where)
    if ms != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS stopped without an optimal solution: {h.modelStatusToString(ms)}")
    sol = h.getSolution()
    final = h.getBasis()
    cs = rs = None
    if final.valid:
        cs = np.fromiter(map(int, final.col_status), dtype=np.int8, count=n)
        rs = np.fromiter(map(int, final.row_status), dtype=np.int8, count=m)
    info = h.getInfo()
    iters = int(info.simplex_iteration_count) + int(info.ipm_iteration_count)
    return HighsResult(
        float(info.objective_function_value), np.asarray(sol.col_value), np.asarray(sol.row_dual), cs, rs, secs, iters
    )


def _started(verbose: bool, time_limit: float | None, options: dict) -> tuple[highspy.Highs, float]:
    """A silent ``Highs`` with its log routed (``_attach_log``), its clock (``time_limit``
    seconds, at least 0) and ``options`` set, and the time its solve counts from."""
    h = new_highs()
    fwd = _attach_log(h, verbose)
    if time_limit is not None:
        h.setOptionValue("time_limit", max(float(time_limit), 0.0))
    for name, value in options.items():
        if h.setOptionValue(name, value) != highspy.HighsStatus.kOk:
            raise SolverError(f"HiGHS does not accept option {name}={value!r}")
    t0 = time.perf_counter()
    if fwd is not None:
        fwd.t0 = t0
    return h, t0


def _pass_model(
    h: highspy.Highs,
    K: sp.csc_matrix,
    cost,
    col_lower,
    col_upper,
    row_lower,
    row_upper,
    maximize: bool,
    integrality: np.ndarray,
) -> None:
    """Give HiGHS the model as plain arrays (numpy straight into HiGHS: filling a HighsLp field
    by field converts every element through Python, about 4 ms on Leduc with 5 ranks);
    ``integrality``: 0 continuous, 1 integer, per column. ``SolverError`` saying what HiGHS
    cannot take when it rejects the model."""
    m, n = K.shape
    sense = highspy.ObjSense.kMaximize if maximize else highspy.ObjSense.kMinimize
    f64 = np.float64
    st = h.passModel(
        n,
        m,
        K.nnz,
        int(highspy.MatrixFormat.kColwise),
        int(sense),
        0.0,
        np.asarray(cost, dtype=f64),
        np.asarray(col_lower, dtype=f64),
        np.asarray(col_upper, dtype=f64),
        np.asarray(row_lower, dtype=f64),
        np.asarray(row_upper, dtype=f64),
        K.indptr.astype(np.int32),
        K.indices.astype(np.int32),
        K.data.astype(f64),
        np.asarray(integrality, dtype=np.int32),
    )
    if st == highspy.HighsStatus.kError:
        raise SolverError(
            f"HiGHS rejected the {'MIP' if np.any(integrality) else 'LP'} model ({m:,} rows, "
            f"{n:,} columns): {_why_rejected(K, cost, col_lower, col_upper, row_lower, row_upper)}"
        )


@dataclass
class MipResult:
    """HiGHS's answer to a mixed-integer program: ``col_value`` (n,) of the best solution found
    (None when it found none), its ``objective`` (nan without one), ``bound``: the proved bound
    on the optimum (HiGHS's dual bound: above the optimum when maximising; +-inf when none is
    known), ``optimal`` (the gap tolerance is met), ``stopped``: why it stopped before that
    ("" when optimal), ``seconds`` and branch-and-bound ``nodes``."""

    col_value: np.ndarray | None
    objective: float
    bound: float
    optimal: bool
    stopped: str
    seconds: float
    nodes: int


def solve_highs_mip(
    K: sp.csc_matrix,
    cost: np.ndarray,
    col_lower: np.ndarray,
    col_upper: np.ndarray,
    row_lower: np.ndarray,
    row_upper: np.ndarray,
    integrality: np.ndarray,
    *,
    maximize: bool,
    time_limit: float | None = None,
    gap: float | None = None,
    verbose: bool = False,
    options: dict | None = None,
) -> MipResult:
    """Solve the LP above with the columns where ``integrality`` is 1 integer, by HiGHS's branch
    and cut. ``gap``: the relative gap at which the incumbent counts as optimal (HiGHS's
    ``mip_rel_gap``). A solve stopped by ``time_limit`` is not an error: the result says so
    (``stopped``) and carries the incumbent, if any, and the bound proved so far. Raises
    ``SolverError`` naming HiGHS's status when the program is infeasible, unbounded or HiGHS
    fails, ``KeyboardInterrupt`` when the user interrupts the solve."""
    own = {} if gap is None else {"mip_rel_gap": float(gap)}
    h, t0 = _started(verbose, time_limit, {**own, **(options or {})})
    _pass_model(h, K, cost, col_lower, col_upper, row_lower, row_upper, maximize, integrality)
    _run_interruptibly(h)
    secs = time.perf_counter() - t0
    ms = h.getModelStatus()
    if ms in _INTERRUPTED:
        raise KeyboardInterrupt("HiGHS solve interrupted")
    info = h.getInfo()
    stopped = ""
    if ms == highspy.HighsModelStatus.kTimeLimit:
        stopped = f"HiGHS reached its time limit of {time_limit:g} s"
    elif ms != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS stopped without a solution of the integer program: {h.modelStatusToString(ms)}")
    sol = h.getSolution()
    # primal_solution_status 2: a feasible incumbent exists
    found = sol.value_valid and int(info.primal_solution_status) == 2
    x = np.asarray(sol.col_value) if found else None
    bound = float(info.mip_dual_bound)
    if not np.any(integrality) and not stopped:
        bound = float(info.objective_function_value)  # an LP (a relaxation): its optimum is the bound
    elif not np.isfinite(bound) or abs(bound) >= INF:
        bound = math.inf if maximize else -math.inf
    return MipResult(
        x,
        float(info.objective_function_value) if found else math.nan,
        bound,
        not stopped,
        stopped,
        secs,
        int(info.mip_node_count),
    )


#: HiGHS's defaults: matrix entries above LARGE_MATRIX_VALUE are an error, bounds and costs at or
#: beyond INFINITE_BOUND count as infinite
LARGE_MATRIX_VALUE = 1e15
INFINITE_BOUND = 1e20


def _why_rejected(K, cost, col_lower, col_upper, row_lower, row_upper) -> str:
    """What in the model HiGHS cannot take, in words (the first problem found)."""
    data = np.asarray(K.data, dtype=float)
    if not np.all(np.isfinite(data)):
        return f"{int(np.sum(~np.isfinite(data))):,} matrix entries are infinite or NaN"
    big = np.abs(data) > LARGE_MATRIX_VALUE
    if big.any():
        return (
            f"{int(big.sum()):,} matrix entries exceed {LARGE_MATRIX_VALUE:g} in magnitude (largest "
            f"{np.abs(data).max():.3g}), HiGHS's limit"
        )
    for name, v in (
        ("objective", cost),
        ("column lower bound", col_lower),
        ("column upper bound", col_upper),
        ("row lower bound", row_lower),
        ("row upper bound", row_upper),
    ):
        v = np.asarray(v, dtype=float)
        if np.isnan(v).any():
            return f"a {name} is NaN"
    lo, hi = np.asarray(col_lower, dtype=float), np.asarray(col_upper, dtype=float)
    if (lo > hi).any():
        return f"column {int(np.flatnonzero(lo > hi)[0])}'s lower bound exceeds its upper bound"
    lo, hi = np.asarray(row_lower, dtype=float), np.asarray(row_upper, dtype=float)
    if (lo > hi).any():
        return f"row {int(np.flatnonzero(lo > hi)[0])}'s lower bound exceeds its upper bound"
    if (np.abs(np.asarray(cost, dtype=float)) >= INFINITE_BOUND).any():
        return f"an objective coefficient reaches {INFINITE_BOUND:g}, which HiGHS takes as infinite"
    return "HiGHS gave no reason (passModel returned an error)"


def _run_interruptibly(h: highspy.Highs) -> None:
    """Run HiGHS in a thread, so that Ctrl-C cancels the solve cleanly instead of waiting for it.

    HiGHS's interrupt callback is subscribed only once Ctrl-C is pressed (highspy's own
    ``HandleKeyboardInterrupt`` subscribes it for the whole solve): HiGHS calls it at every simplex
    iteration, a few microseconds in Python each time, 7% of Leduc's solve.
    """
    h.startSolve()
    try:
        while not h.wait(0.1)[0]:
            pass
    except KeyboardInterrupt:
        h.HandleUserInterrupt = True  # from now on HiGHS asks at every iteration, and is told to stop
        h.cancelSolve()
        while not h.wait(0.1)[0]:
            pass
        # re-raised whatever status HiGHS ended with: a solve that finished before it saw the
        # cancellation would otherwise swallow the user's Ctrl-C (seen with double oracle)
        raise

"""CFR+ in vector form over a GameShrink abstraction: the payoff matrix is never formed.

CFR+ (Tammelin 2014, "Solving Large Imperfect Information Games Using CFR+"; Tammelin, Burch,
Johanson & Bowling 2015, "Solving Heads-up Limit Texas Hold'em", IJCAI) with alternating updates,
regret matching+ and the linearly weighted average strategy, walked as the vector-form best
response walks (``lossless.vectorbestresponse``, after Johanson et al. 2011): one backward pass
over the betting tree per player and iteration, carrying at each betting node a vector of
counterfactual values over the updating player's classes. Leaves cost one sparse product with
their round's card matrix (``lossless.cardmatrices``), so an iteration costs about two
best-response passes: about half a second on the full Rhode Island Hold'em abstraction here.

Every ``bracket_every`` iterations the average profile gets a certified bracket of the game value
(``lossless.vectorbestresponse.bracket``: both best responses with rigorous floating-point error bounds).

Counterfactual values are kept in the card matrices' world-count scale: regret matching is
invariant to a positive factor.

References:

- Tammelin (2014), "Solving Large Imperfect Information Games Using CFR+", arXiv:1407.5042.
- Tammelin, Burch, Johanson & Bowling (2015), "Solving Heads-up Limit Texas Hold'em", IJCAI.
- Johanson, Waugh, Bowling & Zinkevich (2011), "Accelerating Best Response Calculation in Large
  Extensive Games", IJCAI.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from seqform.errors import CheckpointError
from seqform.result import Result

from .betting import DECIDE, NEXT
from .cardmatrices import CardMatrices, card_matrices
from .errors import AbstractionError
from .sequencelayout import SequenceLayout
from .vectorbestresponse import (
    Bracket,
    behaviour_from_plan,
    bracket,
    leaf_values,
    normalised_behaviour,
    plan_from_behaviour,
)


@dataclass(kw_only=True)
class VectorCFRResult(Result):
    """CFR+'s average profile and its best certified bracket ``lower <= value <= upper`` (exact
    Fractions of rigorous float bounds). ``behaviours``: the average profile per player over the
    layout's sequences; ``history``: per bracket, (iteration, seconds, lower, upper) as floats;
    ``exploitability``: (upper - lower) / 2 of the last bracket, an upper bound on the average
    profile's exploitability (NashConv / 2)."""

    iterations: int
    lower: Fraction
    upper: Fraction
    exploitability: float
    behaviours: list = field(repr=False)
    history: list = field(repr=False)
    stopped: str = ""
    method: str = "vector-cfr+"

    def __post_init__(self) -> None:
        # the common field this result derives: the bracket's midpoint
        self.value_float = float(self.lower + self.upper) / 2

    @property
    def width(self) -> float:
        return float(self.upper - self.lower)

    def json_fields(self) -> dict:
        return {
            "iterations": self.iterations,
            "width": self.width,
            "stopped": self.stopped,
            "lower_float": float(self.lower),
            "upper_float": float(self.upper),
            "history": [list(h) for h in self.history],
        }


def _update(
    layout: SequenceLayout, cards: CardMatrices, p: int, behaviour: np.ndarray, q: np.ndarray, y: np.ndarray
) -> None:
    """One CFR+ regret update of player p in place (``q``), against the opponent's plan ``y``,
    with p playing ``behaviour``: a backward pass of counterfactual values (module docstring)."""
    bet = layout.abstraction.game.betting
    val: dict = {v: vm[0] for v, vm in leaf_values(layout, cards, p, y, magnitudes=False).items()}
    for v in range(bet.num_nodes - 1, -1, -1):
        r, kind = bet.round[v], bet.kind[v]
        if kind == DECIDE:
            kids = bet.children[v]
            vs = np.stack([val.pop(c) for c in kids])
            if bet.player[v] == p:
                k, n = vs.shape
                s = layout.base[v, 0]
                cur = behaviour[s : s + k * n].reshape(k, n)
                here = (cur * vs).sum(axis=0)
                block = q[s : s + k * n].reshape(k, n)
                np.maximum(block + vs - here, 0.0, out=block)
                val[v] = here
            else:
                val[v] = vs.sum(axis=0)
        elif kind == NEXT:
            c = bet.children[v][0]
            val[v] = np.bincount(layout.anc[p][r + 1][r], weights=val.pop(c), minlength=layout.ncls[p][r])


#: the format name of ``cfr_plus``'s checkpoints (``seqform.iterative.checkpoint`` files)
CHECKPOINT_FORMAT = "seqform-vector-cfr-checkpoint-1"


@dataclass
class CFRCheckpoint:
    """Where ``cfr_plus`` saves its state (``path``) and how often: at the end of the first
    iteration at least ``every`` seconds after the last save (0: every iteration), and when it
    stops. The file is written atomically (``seqform.study.verifycheckpoint.write_atomic``)."""

    path: str | Path
    every: float = 60.0


@dataclass
class _Run:
    """CFR+'s state between iterations: per player the regrets ``q``, current behaviour ``beh``
    and plan ``plans``, the weighted average plan ``avg``; the iteration ``t``, the bracket
    ``history`` and its narrowest row ``best``, the seconds ``elapsed`` and why it ``stopped``."""

    q: list
    beh: list
    plans: list
    avg: list
    t: int = 0
    history: list = field(default_factory=list)
    best: tuple | None = None
    elapsed: float = 0.0
    stopped: str = ""

    @classmethod
    def start(cls, layout: SequenceLayout) -> _Run:
        q = [np.zeros(layout.num_sequences[p]) for p in range(2)]
        # regret matching+: the behaviour proportional to the (nonnegative) cumulative regrets per
        # information set, uniform where they are all zero
        beh = [normalised_behaviour(layout, p, q[p]) for p in range(2)]
        plans = [plan_from_behaviour(layout, p, beh[p])[0] for p in range(2)]
        return cls(q, beh, plans, [np.zeros(layout.num_sequences[p]) for p in range(2)])

    def save(self, ck: CFRCheckpoint, fingerprint: dict) -> None:
        from seqform.study.verifycheckpoint import write_atomic

        meta = {
            "format": CHECKPOINT_FORMAT,
            "fingerprint": fingerprint,
            "t": self.t,
            "history": [list(h) for h in self.history],
            "best": None if self.best is None else list(self.best),
            "elapsed": self.elapsed,
            "stopped": self.stopped,
        }
        arrays = {f"{k}{p}": getattr(self, k)[p] for k in ("q", "beh", "plans", "avg") for p in range(2)}
        write_atomic(ck.path, meta, arrays)

    @classmethod
    def load(cls, ck: CFRCheckpoint, fingerprint: dict) -> _Run:
        """The run saved at ``ck.path``; ``CheckpointError`` for a damaged file or another run's."""
        import seqform.iterative.checkpoint as checkpoint
        from seqform.study.verifycheckpoint import fingerprint_mismatch

        meta, arrays = checkpoint.read(ck.path, CHECKPOINT_FORMAT, "vector CFR+")
        fingerprint_mismatch(ck.path, meta["fingerprint"], fingerprint)
        n = fingerprint["num_sequences"]
        q, beh, plans, avg = ([arrays[f"{k}{p}"] for p in range(2)] for k in ("q", "beh", "plans", "avg"))
        run = cls(q, beh, plans, avg)
        if any(a.shape != (n[p],) for k in (run.q, run.beh, run.plans, run.avg) for p, a in enumerate(k)):
            raise CheckpointError(f"{ck.path}: not a seqform vector CFR+ checkpoint (its arrays do not fit the game)")
        try:
            run.t, run.elapsed, run.stopped = int(meta["t"]), float(meta["elapsed"]), str(meta["stopped"])
            run.history = [(int(h[0]), float(h[1]), float(h[2]), float(h[3])) for h in meta["history"]]
            run.best = None if meta["best"] is None else tuple(meta["best"])
        except (TypeError, ValueError, IndexError):
            raise CheckpointError(
                f"{ck.path}: not a seqform vector CFR+ checkpoint (its record is malformed)"
            ) from None
        if run.stopped and not run.history:
            raise CheckpointError(f"{ck.path}: not a seqform vector CFR+ checkpoint (a finished run without a bracket)")
        return run

    def iterate(self, layout: SequenceLayout, cards: CardMatrices) -> None:
        """One CFR+ iteration (``cfr_plus``'s conventions)."""
        self.t += 1
        t, q, beh, plans, avg = self.t, self.q, self.beh, self.plans, self.avg
        for p in (0, 1):  # alternating updates: player 1 answers player 0's new strategy
            avg[p] += t * plans[p]  # linear averaging of the strategies played at iteration t
            _update(layout, cards, p, beh[p], q[p], plans[1 - p])
            beh[p] = normalised_behaviour(layout, p, q[p])
            plans[p] = plan_from_behaviour(layout, p, beh[p])[0]


def check_checkpoint(path: str | Path, stops: dict) -> int | None:
    """The iteration the checkpoint at ``path`` reached (None when there is no file), checked
    before the abstraction is built: ``CheckpointError`` for a file that is damaged, not a vector
    CFR+ checkpoint, or of a run with other ``stops`` (``cfr_plus``'s iterations, seconds,
    target_width and bracket_every)."""
    import seqform.iterative.checkpoint as checkpoint
    from seqform.study.verifycheckpoint import check_path, fingerprint_mismatch

    check_path(path)
    if not Path(path).exists():
        return None
    meta, _ = checkpoint.read(path, CHECKPOINT_FORMAT, "vector CFR+")
    saved = meta["fingerprint"]
    fingerprint_mismatch(path, {k: saved.get(k) for k in stops} if isinstance(saved, dict) else saved, stops)
    return int(meta["t"])


def _fingerprint(layout: SequenceLayout, cards: CardMatrices, stops: dict) -> dict:
    """What makes two runs of ``cfr_plus`` the same run: the game (its name, sequence counts and
    a digest of its card matrices) and the stops and bracketing (``stops``)."""
    from seqform.study.verifycheckpoint import digest

    mats = [m for r in range(len(cards.total)) for m in (cards.total[r], *cards.by_outcome[r])]
    return {
        "game": layout.abstraction.game.name,
        "num_sequences": [int(n) for n in layout.num_sequences],
        "cards": digest(*(a for m in mats for a in (m.data, m.indices, m.indptr))),
        **stops,
    }


def cfr_plus(
    layout: SequenceLayout,
    iterations: int | None = None,
    seconds: float | None = None,
    cards: CardMatrices | None = None,
    bracket_every: int = 100,
    target_width: float | None = None,
    progress: Callable[[dict], None] | None = None,
    tick: Callable[[int, float], None] | None = None,
    checkpoint: CFRCheckpoint | None = None,
) -> VectorCFRResult:
    """Run CFR+ in vector form (module docstring) until ``iterations``, ``seconds`` or a bracket
    narrower than ``target_width``, whichever comes first (at least one must be given); bracket
    the average profile every ``bracket_every`` iterations and at the end. ``progress(row)`` is
    told each bracket: iteration, seconds, lower, upper, width; ``tick(iteration, seconds)``
    each iteration. Ctrl-C (``KeyboardInterrupt``) stops the run cleanly: the average so far is
    bracketed and returned with ``stopped`` "interrupted".

    ``checkpoint`` (``CFRCheckpoint``): save the state between iterations to its file, and when
    the file holds this run (the same game, stops and ``bracket_every``; another run's is a
    ``CheckpointError``), resume it: the iterates and brackets are those of the uninterrupted
    run, and ``seconds`` counts the time of every part of the run. A finished run's file gives
    its result again.

    The conventions are ``seqform.iterative.cfr``'s "cfr+" (OpenSpiel's ``CFRPlusSolver``):
    alternating updates, player 0 first; the average weights iteration t's strategy by t.

    Arrays: per player, regrets, current behaviour and the average plan, each
    (num_sequences[p],) float64 over the layout's sequences."""
    if iterations is None and seconds is None and target_width is None:
        raise AbstractionError("cfr_plus needs iterations, seconds or target_width")
    if bracket_every < 1:
        raise AbstractionError(f"bracket_every must be at least 1, not {bracket_every}")
    t0 = time.perf_counter()
    cards = cards if cards is not None else card_matrices(layout)
    secs = {"setup": time.perf_counter() - t0}
    stops = {"iterations": iterations, "seconds": seconds, "target_width": target_width, "bracket_every": bracket_every}
    fp = _fingerprint(layout, cards, stops) if checkpoint is not None else {}
    if checkpoint is not None:
        from seqform.study.verifycheckpoint import check_path

        check_path(checkpoint.path)
    resumed = checkpoint is not None and Path(checkpoint.path).exists()
    run = _Run.load(checkpoint, fp) if checkpoint is not None and resumed else _Run.start(layout)
    _iterate(run, layout, cards, stops, progress, tick, checkpoint, fp)
    secs["iterations"] = run.elapsed
    secs["total"] = time.perf_counter() - t0
    behaviours = [behaviour_from_plan(layout, p, run.avg[p]) for p in range(2)]
    best, last = run.best, run.history[-1]
    assert best is not None  # (``_iterate`` brackets at least once or raises)
    notes = (f"best bracket at iteration {best[0]}; last at {last[0]}: [{last[2]:.9g}, {last[3]:.9g}]",)
    return VectorCFRResult(
        game=layout.abstraction.game.name,
        iterations=run.t,
        lower=Fraction(best[2]),
        upper=Fraction(best[3]),
        exploitability=(last[3] - last[2]) / 2,
        behaviours=behaviours,
        history=run.history,
        seconds=secs,
        notes=notes,
        stopped=run.stopped,
    )


def _iterate(run: _Run, layout, cards, stops: dict, progress, tick, ck: CFRCheckpoint | None, fp: dict) -> None:
    """``cfr_plus``'s loop: iterate ``run`` until a stop in ``stops``, bracketing and saving."""
    iterations, seconds, target_width = stops["iterations"], stops["seconds"], stops["target_width"]
    t_start = time.perf_counter() - run.elapsed
    last_save = time.perf_counter()

    def measure() -> Bracket:
        avg = run.avg
        b = bracket(layout, behaviour_from_plan(layout, 0, avg[0]), behaviour_from_plan(layout, 1, avg[1]), cards)
        row = (run.t, time.perf_counter() - t_start, b.lower, b.upper)
        run.history.append(row)
        if progress:
            progress({"iteration": run.t, "seconds": row[1], "lower": b.lower, "upper": b.upper, "width": b.width})
        if run.best is None or b.width < run.best[3] - run.best[2]:
            run.best = row
        return b

    try:
        while not run.stopped:
            run.iterate(layout, cards)
            t = run.t
            elapsed = time.perf_counter() - t_start
            if tick:
                tick(t, elapsed)
            done = (iterations is not None and t >= iterations) or (seconds is not None and elapsed >= seconds)
            if t % stops["bracket_every"] == 0 or done:
                b = measure()
                if target_width is not None and b.width <= target_width:
                    run.stopped = f"bracket width {b.width:.3g} <= {target_width:g}"
            if done and not run.stopped:
                run.stopped = f"{t} iterations" if iterations is not None and t >= iterations else f"{seconds:g} s"
            run.elapsed = time.perf_counter() - t_start
            if ck is not None and (run.stopped or time.perf_counter() - last_save >= ck.every):
                run.save(ck, fp)
                last_save = time.perf_counter()
    except KeyboardInterrupt:
        run.stopped = "interrupted"
        run.elapsed = time.perf_counter() - t_start
        if run.avg[0].any() and run.avg[1].any():  # both players have played at least once
            measure()
    if run.best is None:
        raise KeyboardInterrupt  # interrupted before anything could be bracketed


__all__ = ["VectorCFRResult", "CFRCheckpoint", "cfr_plus", "check_checkpoint", "CHECKPOINT_FORMAT"]

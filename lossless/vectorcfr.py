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

import numpy as np

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


def cfr_plus(
    layout: SequenceLayout,
    iterations: int | None = None,
    seconds: float | None = None,
    cards: CardMatrices | None = None,
    bracket_every: int = 100,
    target_width: float | None = None,
    progress: Callable[[dict], None] | None = None,
    tick: Callable[[int, float], None] | None = None,
) -> VectorCFRResult:
    """Run CFR+ in vector form (module docstring) until ``iterations``, ``seconds`` or a bracket
    narrower than ``target_width``, whichever comes first (at least one must be given); bracket
    the average profile every ``bracket_every`` iterations and at the end. ``progress(row)`` is
    told each bracket: iteration, seconds, lower, upper, width; ``tick(iteration, seconds)``
    each iteration. Ctrl-C (``KeyboardInterrupt``) stops the run cleanly: the average so far is
    bracketed and returned with ``stopped`` "interrupted".

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
    q = [np.zeros(layout.num_sequences[p]) for p in range(2)]
    # regret matching+: the behaviour proportional to the (nonnegative) cumulative regrets per
    # information set, uniform where they are all zero
    beh = [normalised_behaviour(layout, p, q[p]) for p in range(2)]
    plans = [plan_from_behaviour(layout, p, beh[p])[0] for p in range(2)]
    avg = [np.zeros(layout.num_sequences[p]) for p in range(2)]
    history: list = []
    best: tuple | None = None  # the narrowest bracket's history row
    stopped = ""
    t = 0
    t_start = time.perf_counter()

    def measure() -> Bracket:
        nonlocal best
        b = bracket(layout, behaviour_from_plan(layout, 0, avg[0]), behaviour_from_plan(layout, 1, avg[1]), cards)
        row = (t, time.perf_counter() - t_start, b.lower, b.upper)
        history.append(row)
        if progress:
            progress({"iteration": t, "seconds": row[1], "lower": b.lower, "upper": b.upper, "width": b.width})
        if best is None or b.width < best[3] - best[2]:
            best = row
        return b

    try:
        while True:
            t += 1
            for p in (0, 1):  # alternating updates: player 1 answers player 0's new strategy
                avg[p] += t * plans[p]  # linear averaging of the strategies played at iteration t
                _update(layout, cards, p, beh[p], q[p], plans[1 - p])
                beh[p] = normalised_behaviour(layout, p, q[p])
                plans[p] = plan_from_behaviour(layout, p, beh[p])[0]
            elapsed = time.perf_counter() - t_start
            if tick:
                tick(t, elapsed)
            done = (iterations is not None and t >= iterations) or (seconds is not None and elapsed >= seconds)
            if t % bracket_every == 0 or done:
                b = measure()
                if target_width is not None and b.width <= target_width:
                    stopped = f"bracket width {b.width:.3g} <= {target_width:g}"
                    break
            if done:
                stopped = f"{t} iterations" if iterations is not None and t >= iterations else f"{seconds:g} s"
                break
    except KeyboardInterrupt:
        stopped = "interrupted"
        if avg[0].any() and avg[1].any():  # both players have played at least once
            measure()
    if best is None:
        raise KeyboardInterrupt  # interrupted before anything could be bracketed
    secs["iterations"] = time.perf_counter() - t_start
    secs["total"] = time.perf_counter() - t0
    behaviours = [behaviour_from_plan(layout, p, avg[p]) for p in range(2)]
    last = history[-1]
    notes = (f"best bracket at iteration {best[0]}; last at {last[0]}: [{last[2]:.9g}, {last[3]:.9g}]",)
    return VectorCFRResult(
        game=layout.abstraction.game.name,
        iterations=t,
        lower=Fraction(best[2]),
        upper=Fraction(best[3]),
        exploitability=(last[3] - last[2]) / 2,
        behaviours=behaviours,
        history=history,
        seconds=secs,
        notes=notes,
        stopped=stopped,
    )


__all__ = ["VectorCFRResult", "cfr_plus"]

"""The abstract game's LP solved without its game tree, and its optimal basis solved exactly.

``lossless.abstractlp`` builds the abstraction's sequence form straight from GameShrink's classes
(floats: chance mass times payoff). Here its payoff entries are computed again in exact
arithmetic (integer counts of worlds for a uniform deck, the worlds' exact probabilities for a
weighted one), HiGHS solves the float LP, and the optimal basis HiGHS returns is solved in
rationals (``seqform.exact.certificate.basis_solution``). The result is a pair of exact abstract
plans, in ``lossless.sequencelayout``'s numbering, and the exact behavioural strategies they
imply. Nothing here claims they are optimal: the caller certifies them in the original game
(``seqform.solve`` for a game that declares ordered signals, ``lossless.solve`` otherwise).

References:

- Koller, Megiddo & von Stengel (1996), "Efficient Computation of Equilibria for Extensive Two-Person Games", Games and
  Economic Behavior.
- Gilpin & Sandholm (2007), "Lossless Abstraction of Imperfect Information Games", Journal of the ACM.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np

from seqform.errors import CertificateError
from seqform.exact.certificate import DEFAULT_EXACT_LIMIT, ExactSequenceForm, basis_solution
from seqform.exact.sparselu import TooLarge
from seqform.lp.sequenceform import SequenceForm
from seqform.lp.zerosumlp import LPResult, solve_lp

from .abstractlp import abstract_sequence_form
from .betting import FOLD, SHOWDOWN
from .gameshrink import Abstraction, compact
from .sequencelayout import SequenceLayout, sequence_layout


@dataclass
class ExactAbstractPlans:
    """The abstract LP's optimal basis solved exactly: ``plans`` (per player, fmpq over the
    layout's sequences), ``behaviour`` (per player, fmpq: each sequence's probability given its
    parent, uniform where the parent has probability 0), ``layout``, the float ``lp`` and
    ``seconds`` (build, solve, basis)."""

    layout: SequenceLayout
    lp: LPResult
    plans: list
    behaviour: list
    seconds: dict = field(default_factory=dict)


def exact_payoff_entries(lay: SequenceLayout) -> tuple[np.ndarray, np.ndarray, list]:
    """The abstract payoff matrix's nonzeros exactly, ``(rows, cols, values)`` with values int or
    Fraction: as ``lossless.abstractlp.payoff_entries`` (chance mass of each pair of classes
    times player 0's payoff, summed over the round's leaves), in exact arithmetic."""
    ab = lay.abstraction
    st, bet = ab.signals, ab.game.betting
    nout = len(st.outcomes)
    denominator = st.num_worlds if st.prob is None else 1
    rows, cols, vals = [], [], []
    for r in range(bet.num_rounds):
        leaves = bet.nodes_of_round(r, FOLD, SHOWDOWN)
        if not leaves:
            continue
        pair = compact([lay.cls[0][r], lay.cls[1][r]])
        npairs = int(pair.max()) + 1
        first = np.unique(pair, return_index=True)[1]
        c0, c1 = lay.cls[0][r][first], lay.cls[1][r][first]
        mass = _mass(pair * nout + st.outcome.astype(np.int64), st.prob, npairs * nout).reshape(npairs, nout)
        total = mass.sum(axis=1)
        for v in leaves:
            if bet.kind[v] == FOLD:
                val = total * _exact(bet.payoff[v][0])
            else:
                val = mass @ np.array([_exact(bet.payoff[v][o][0]) for o in st.outcomes], dtype=object)
            keep = np.flatnonzero(val != 0)
            own = lay.parent_of[v]
            rows.append(lay.seq_of(0, own[0], r, c0[keep]))
            cols.append(lay.seq_of(1, own[1], r, c1[keep]))
            vals.append(val[keep])
    return _summed(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), denominator)


def _mass(key: np.ndarray, prob, size: int) -> np.ndarray:
    """(size,) object array: the number of worlds (uniform deck) or their exact probability mass
    per ``key``."""
    if prob is None:
        return np.bincount(key, minlength=size).astype(np.int64).astype(object)
    out = np.zeros(size, dtype=object)
    np.add.at(out, key, np.array([Fraction(p) for p in prob], dtype=object))
    return out


def _exact(v):
    """A payoff as an int where whole, else a Fraction."""
    v = Fraction(v)
    return v.numerator if v.denominator == 1 else v


def _summed(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, denominator: int) -> tuple:
    """Duplicates (the same pair of sequences from several leaves) summed, zeros dropped, values
    over ``denominator``."""
    if len(vals) == 0:
        return rows.astype(np.int64), cols.astype(np.int64), []
    key = rows.astype(np.int64) * (int(cols.max()) + 1) + cols
    order = np.argsort(key, kind="stable")
    key, vals = key[order], vals[order]
    start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    sums = np.add.reduceat(vals, start)
    keep = np.flatnonzero(sums != 0)
    rows_out, cols_out = rows[order][start][keep], cols[order][start][keep]
    out = [Fraction(v, denominator) if denominator != 1 else v for v in sums[keep].tolist()]
    return rows_out.astype(np.int64), cols_out.astype(np.int64), [_exact(v) for v in out]


def exact_sequence_form(
    ab: Abstraction, progress=None, memory_limit_bytes: int | None = None, layout: SequenceLayout | None = None
) -> SequenceForm:
    """``lossless.abstractlp.abstract_sequence_form`` with its exact payoffs attached
    (``A_exact``, as a game tree's sequence form has them), for the exact basis solve.
    ``layout``: ``sequence_layout(ab)`` when the caller has it."""
    sf = abstract_sequence_form(ab, progress=progress, memory_limit_bytes=memory_limit_bytes)
    return dataclasses.replace(sf, exact_entries=exact_payoff_entries(layout or sequence_layout(ab)))


def solve_exactly(
    ab: Abstraction,
    *,
    method: str = "auto",
    time_limit: float | None = None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    memory_limit_bytes: int | None = None,
    progress=None,
    exact: bool = True,
) -> ExactAbstractPlans | None:
    """The abstract LP of ``ab`` solved by HiGHS and its optimal basis in rationals; None when the
    basis cannot be solved exactly (too large for ``exact_limit``, singular, or the LP stopped).
    ``exact=False``: the float LP alone (``plans`` and ``behaviour`` empty)."""
    say = progress or (lambda msg: None)
    t0 = time.perf_counter()
    lay = sequence_layout(ab)
    sf = exact_sequence_form(ab, progress=say, memory_limit_bytes=memory_limit_bytes, layout=lay)
    secs = {"build": time.perf_counter() - t0}
    rows, cols = sf.E.shape[0] + sf.F.shape[1], sf.E.shape[1] + sf.F.shape[0]
    say(f"solving LP ({cols:,} columns, {rows:,} rows: the lossless abstraction's)")
    lp = solve_lp(sf, method=method, time_limit=time_limit)
    secs["solve"] = lp.seconds
    if lp.stopped:
        return None
    if not exact:
        return ExactAbstractPlans(lay, lp, [], [], secs)
    say("solving its basis in exact arithmetic")
    t = time.perf_counter()
    try:
        x, y, _ = basis_solution(sf, ExactSequenceForm(sf), lp, exact_limit)
    except (TooLarge, CertificateError):
        return None
    secs["basis"] = time.perf_counter() - t
    plans = [x, y]
    behaviour = [behaviour_of_plan(lay, i, plans[i]) for i in range(2)]
    return ExactAbstractPlans(lay, lp, plans, behaviour, secs)


def behaviour_of_plan(lay: SequenceLayout, i: int, x: list) -> list:
    """Player i's exact behavioural strategy (fmpq per layout sequence) of its exact plan ``x``:
    ``x[s] / x[parent]``, uniform at information sets whose parent sequence has weight 0."""
    bet = lay.abstraction.game.betting
    b = [flint.fmpq(1)] * lay.num_sequences[i]
    for v in lay.decision_nodes(i):
        k = len(bet.actions[v])
        parents = lay.parent_sequences(i, v).tolist()
        for a in range(k):
            start = lay.base[v, a]
            for c, par in enumerate(parents):
                w = x[par]
                b[start + c] = x[start + c] / w if w else flint.fmpq(1, k)
    return b


__all__ = ["ExactAbstractPlans", "exact_payoff_entries", "exact_sequence_form", "solve_exactly", "behaviour_of_plan"]

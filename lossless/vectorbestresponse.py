"""Best response in vector form for two-player zero-sum games with ordered signals, over the
classes of a GameShrink abstraction, with a rigorous floating-point error bound.

Johanson, Waugh, Bowling & Zinkevich (2011, "Accelerating Best Response Calculation in Large
Extensive Games", IJCAI) walk the *public* tree once, carrying for each node a vector over the
responder's private states instead of visiting every card deal. In a game with ordered signals the
betting tree is the public tree and the responder's states during round r are its classes, so one
backward pass over the betting tree computes, for every betting node v and class c of the
responder during round(v), the value of its best continuation:

* at a leaf z of round r: ``M_z @ y_z``, with ``M_z`` the card matrix of the leaf
  (``lossless.cardmatrices``: chance mass of each class pair, times the fold payoff or the
  showdown payoff per outcome) and ``y_z`` the opponent's realization weights of the sequences
  leading to z, one per opponent class;
* at the responder's decision: the maximum over its actions, class by class;
* at the opponent's decision: the sum over its actions;
* at a round's end: the sum over the classes of round r+1 that refine each class of round r.

The sum over the root's classes, over the number of worlds, is the best-response value. The cost
is one sparse matrix-vector product per leaf (the card matrices' nonzeros per round), never the
game tree.

**The error bound.** The strategy analysed is the behavioural strategy given, normalised exactly
at each information set (``b / sum(b)``, rationals). Its realization weights are computed in
float64 with relative error at most ``delta = gamma(d (k + 2))`` (d own actions on the way, k
actions per set; ``gamma(n) = n u / (1 - n u)``, u = 2**-53, Higham 2002, "Accuracy and Stability of
Numerical Algorithms", section 3.1). Each operation's error is bounded from the computed
magnitudes and carried with the values: a nonnegative dot product of n terms errs by at most
``gamma(n)`` times its value, a sum of n values by ``gamma(n - 1)`` times the sum of their
magnitudes, and a maximum by the largest error among its arguments. So ``|value - exact| <=
error`` holds for the exact best-response value of the normalised strategy, and the game value
is bracketed by ``bracket``.

References:

- Johanson, Waugh, Bowling & Zinkevich (2011), "Accelerating Best Response Calculation in Large
  Extensive Games", IJCAI.
- Higham (2002), "Accuracy and Stability of Numerical Algorithms", SIAM, 2nd edition.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .betting import DECIDE, FOLD, NEXT, SHOWDOWN
from .cardmatrices import CardMatrices, card_matrices
from .errors import AbstractionError
from .sequencelayout import SequenceLayout

U = 2.0**-53
#: a relative margin on every bound, covering second-order terms (each bound is ~1e-12 or less)
_MARGIN = 1.0 + 1e-6


def gamma(n: int | np.ndarray):
    """Higham's gamma_n = n u / (1 - n u): the relative error bound of n floating-point operations."""
    return n * U / (1.0 - n * U)


def normalised_behaviour(layout: SequenceLayout, i: int, behaviour: np.ndarray) -> np.ndarray:
    """(num_sequences[i],) player i's behaviour normalised at every information set (entry 0 is
    1); a set whose weights are all zero (or not finite) gets the uniform strategy."""
    bet = layout.abstraction.game.betting
    b = np.asarray(behaviour, dtype=np.float64)
    if b.shape != (layout.num_sequences[i],):
        raise AbstractionError(
            f"player {i}'s behaviour has shape {b.shape}; the abstraction has {layout.num_sequences[i]} sequences"
        )
    if np.any(b < 0) or not np.all(np.isfinite(b)):
        raise AbstractionError(f"player {i}'s behaviour has negative or non-finite entries")
    out = np.empty_like(b)
    out[0] = 1.0
    for v in layout.decision_nodes(i):
        k, n = len(bet.actions[v]), layout.ncls[i][bet.round[v]]
        s = layout.base[v, 0]
        block = b[s : s + k * n].reshape(k, n)  # actions' blocks are consecutive (sequencelayout)
        tot = block.sum(axis=0)
        zero = tot <= 0
        out[s : s + k * n] = np.where(zero, 1.0 / k, block / np.where(zero, 1.0, tot)).ravel()
    return out


def plan_from_behaviour(layout: SequenceLayout, i: int, behaviour: np.ndarray) -> tuple:
    """Player i's realization plan (num_sequences[i],) of a normalised behaviour, and the bound
    ``delta`` on its entries' relative error (module docstring)."""
    bet = layout.abstraction.game.betting
    x = np.empty(layout.num_sequences[i])
    x[0] = 1.0
    depth: dict[tuple[int, int], int] = {}
    kmax = 1
    for v in layout.decision_nodes(i):  # parents first: ids grow along every path
        n = layout.ncls[i][bet.round[v]]
        own = layout.parent_of[v][i]
        par = layout.parent_sequences(i, v)
        d = 1 + (depth[own] if own is not None else 0)
        kmax = max(kmax, len(bet.actions[v]))
        for a in range(len(bet.actions[v])):
            s = layout.base[v, a]
            x[s : s + n] = behaviour[s : s + n] * x[par]
            depth[v, a] = d
    dmax = max(depth.values(), default=0)
    return x, float(gamma(dmax * (kmax + 2)))


def behaviour_from_plan(layout: SequenceLayout, i: int, x: np.ndarray) -> np.ndarray:
    """Player i's behaviour (num_sequences[i],) from a realization plan: ``x[s] / x[parent]``,
    uniform where the parent's weight is zero (e.g. an LP solution, lifted to behaviour)."""
    # within a block the children's weights sum to the parent's, so normalising them divides by it
    return normalised_behaviour(layout, i, np.maximum(np.asarray(x, dtype=np.float64), 0.0))


def leaf_values(layout: SequenceLayout, cards: CardMatrices, p: int, y: np.ndarray, magnitudes: bool = True) -> dict:
    """Player p's values at every leaf v (fold or showdown) of round r, per class during r:
    ``v -> (M_v @ y_v, |M_v| @ y_v)`` (module docstring; world-count scale), the second for error
    bounds (None without ``magnitudes``). ``y``: the opponent's realization plan over its
    sequences. One sparse-times-dense product per round and card matrix, the leaves' opponent
    weights stacked as columns."""
    bet = layout.abstraction.game.betting
    o = 1 - p
    out: dict = {}
    for r in range(bet.num_rounds):
        for kind in (FOLD, SHOWDOWN):
            leaves, idx = layout.leaf_sequences(o, r, kind)
            if not leaves:
                continue
            Y = y[idx]
            pays = layout.leaf_payoffs(p, r, kind)
            if kind == FOLD:
                pay = pays[0]
                t = (cards.total[r] if p == 0 else cards.total_t[r]) @ Y
                val, mag = t * pay, (t * np.abs(pay) if magnitudes else None)
            else:
                mats = cards.by_outcome[r] if p == 0 else cards.by_outcome_t[r]
                val = np.zeros((layout.ncls[p][r], len(leaves)))
                mag = np.zeros_like(val) if magnitudes else None
                for oi, pay in enumerate(pays):
                    if np.any(pay != 0):
                        t = mats[oi] @ Y
                        val += t * pay
                        if magnitudes:
                            mag += t * np.abs(pay)
            for j, v in enumerate(leaves):
                out[v] = (val[:, j], mag[:, j] if mag is not None else None)
    return out


@dataclass
class VectorBestResponse:
    """Player ``player``'s best response to the opponent's (normalised) behaviour: ``value`` its
    expected payoff (float), ``error`` a rigorous bound on ``|value - exact|`` (module docstring),
    ``behaviour`` the pure best response (num_sequences[player],) and ``seconds``."""

    player: int
    value: float
    error: float
    behaviour: np.ndarray = field(repr=False)
    seconds: float = 0.0


def best_response(
    layout: SequenceLayout, player: int, opponent_behaviour: np.ndarray, cards: CardMatrices | None = None
) -> VectorBestResponse:
    """The best response of ``player`` to the opponent's behaviour (num_sequences[1 - player],
    normalised exactly first), by one backward pass over the betting tree with a vector per node
    over ``player``'s classes (module docstring, Johanson et al. 2011)."""
    t0 = time.perf_counter()
    ab = layout.abstraction
    bet = ab.game.betting
    cards = cards if cards is not None else card_matrices(layout)
    p, o = player, 1 - player
    y, delta = plan_from_behaviour(layout, o, normalised_behaviour(layout, o, opponent_behaviour))
    leaves = leaf_values(layout, cards, p, y)
    val: dict = {}
    err: dict = {}
    choice: dict = {}
    for v in range(bet.num_nodes - 1, -1, -1):
        r, kind = bet.round[v], bet.kind[v]
        if kind in (FOLD, SHOWDOWN):
            val[v], mag = leaves.pop(v)
            # a dot product of at most k terms, then up to (outcomes) products summed per entry
            extra = 1 if kind == FOLD else len(cards.outcomes) + 1
            err[v] = (gamma(cards.max_row_nnz[r][p]) + delta + gamma(extra)) * mag * _MARGIN
        elif kind == NEXT:
            c = bet.children[v][0]
            grp = layout.anc[p][r + 1][r]
            n = layout.ncls[p][r]
            size = np.bincount(grp, minlength=n)
            val[v] = np.bincount(grp, weights=val[c], minlength=n)
            err[v] = (
                np.bincount(grp, weights=err[c], minlength=n)
                + gamma(np.maximum(size - 1, 0)) * np.bincount(grp, weights=np.abs(val[c]), minlength=n)
            ) * _MARGIN
            del val[c], err[c]
        elif kind == DECIDE:
            kids = bet.children[v]
            vs = np.stack([val[c] for c in kids])
            es = np.stack([err[c] for c in kids])
            if bet.player[v] == p:
                best = np.argmax(vs, axis=0)
                choice[v] = best
                val[v] = vs[best, np.arange(vs.shape[1])]
                err[v] = es.max(axis=0)
            else:
                val[v] = vs.sum(axis=0)
                err[v] = (es.sum(axis=0) + gamma(len(kids) - 1) * np.abs(vs).sum(axis=0)) * _MARGIN
            for c in kids:
                del val[c], err[c]
        else:
            raise AbstractionError(f"betting node {v}: unknown kind {kind!r}")
    n0 = len(val[0])
    total = float(val[0].sum())
    total_err = (float(err[0].sum()) + float(gamma(max(n0 - 1, 1))) * float(np.abs(val[0]).sum())) * _MARGIN
    value = total / cards.scale
    error = (total_err / cards.scale + abs(value) * gamma(2 if cards.exact else 3)) * _MARGIN
    beh = np.zeros(layout.num_sequences[p])
    beh[0] = 1.0
    for v, best in choice.items():
        n = len(best)
        for a in range(len(bet.actions[v])):
            beh[layout.base[v, a] : layout.base[v, a] + n] = best == a
    return VectorBestResponse(p, value, error, beh, time.perf_counter() - t0)


@dataclass
class Bracket:
    """A certified bracket ``lower <= value <= upper`` of a zero-sum game's value from one
    profile: ``lower`` is what player 0's strategy guarantees (minus player 1's best-response
    payoff, minus its error bound), ``upper`` what player 1's strategy concedes (player 0's
    best-response payoff plus its error bound). ``width`` = upper - lower (>= the profile's
    exploitability gap, NashConv). ``responses``: the two ``VectorBestResponse``."""

    lower: float
    upper: float
    responses: tuple = field(repr=False)
    seconds: float = 0.0

    @property
    def width(self) -> float:
        return self.upper - self.lower


def _check_zero_sum(layout: SequenceLayout) -> None:
    bet = layout.abstraction.game.betting
    for v in range(bet.num_nodes):
        if bet.kind[v] == FOLD:
            rows = [bet.payoff[v]]
        elif bet.kind[v] == SHOWDOWN:
            rows = list(bet.payoff[v].values())
        else:
            continue
        if any(sum(u) != 0 for u in rows):
            raise AbstractionError(
                f"betting node {v} ({bet.history[v]}): payoffs do not sum to zero; a bracket "
                "of the game value needs a zero-sum game"
            )


def bracket(
    layout: SequenceLayout, behaviour0: np.ndarray, behaviour1: np.ndarray, cards: CardMatrices | None = None
) -> Bracket:
    """A certified bracket of the game value (``Bracket``) from a profile of behaviours over the
    layout's sequences (each normalised exactly first): both best responses in vector form."""
    t0 = time.perf_counter()
    _check_zero_sum(layout)
    cards = cards if cards is not None else card_matrices(layout)
    br0 = best_response(layout, 0, behaviour1, cards)
    br1 = best_response(layout, 1, behaviour0, cards)
    lower = -br1.value - br1.error
    upper = br0.value + br0.error
    return Bracket(lower, upper, (br0, br1), time.perf_counter() - t0)


__all__ = [
    "VectorBestResponse",
    "Bracket",
    "best_response",
    "bracket",
    "normalised_behaviour",
    "plan_from_behaviour",
    "behaviour_from_plan",
    "leaf_values",
    "gamma",
]

"""Exact certificates for sequence-form LP solutions (python-flint rationals).

From the optimal basis HiGHS returns, the basic solution is solved in exact rational arithmetic
(``seqform.exact.sparselu.SparseLU``, one factorization for both): the primal system
``K[N_rows, B_cols] z = bounds`` gives player 0's plan x (and q), the dual system
``K[N_rows, B_cols]^T w = c`` gives player 1's plan
``y = -w[A rows]`` (see ``seqform.lp.zerosumlp`` for the LP). The solution is then *verified*, independently of
how it was found:

1. x and y are valid realization plans, exactly (``E x = e``, ``F y = f``, nonnegative);
2. ``lower = min_y' x^T A y'`` and ``upper = max_x' x'^T A y`` are computed exactly by backward
   induction over the information sets (exact best responses);
3. the profile is an equilibrium and ``lower`` is the game value iff ``lower == upper``.

When the basis solve is impossible or too large (its sparse elimination would store more than
``exact_limit`` nonzeros, default 2,000,000; Leduc needs ~8,000, Leduc with 5 ranks ~23,000) or the solution fails
verification, the float strategies are rounded to exact behavioural strategies (each probability to a rational with
denominator at most 2^20, renormalised exactly) and steps 1-3 give an exact, rigorous bracket
``lower <= value <= upper``: the returned profile's exploitability is exactly
``(upper - lower) / 2``, and is reported as such (``certified`` stays False unless the bracket
closes).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from seqform.errors import CertificateError, Remedy
from seqform.exact.exactbestresponse import exact_best_response_value
from seqform.exact.exactsimplex import ExactLP, exact_simplex
from seqform.exact.rationals import fmpq_of, fraction_of, nearest_rational
from seqform.exact.sparselu import SparseLU, TooLarge
from seqform.lp.sequenceform import SequenceForm
from seqform.lp.zerosumlp import LPResult
from seqform.model.strategy import behaviour_from_realization, realization_plan_exact
from seqform.model.tree import Tree

DEFAULT_EXACT_LIMIT = 2_000_000
_BASIC = 1
_UPPER = 2


@dataclass
class Certificate:
    """Outcome of exact verification.

    ``certified``: x and y are exactly valid and their exact best-response values meet, so
    ``value`` is the exact game value (player 0's). ``lower``/``upper``: exact values player 0
    guarantees with x and player 1 holds it to with y; ``exploitability`` = (upper - lower) / 2,
    exact (0 when certified). ``x``, ``y``: the exact plans (Fractions) that were verified.
    ``basis_size``: unknowns of the exact basis system. ``method``: "basis" (exact basic solution) or "rounded" (float
    strategies rounded to rationals). ``note`` says why a basis solve was not used, if it was not.
    """

    certified: bool
    value: Fraction | None
    lower: Fraction
    upper: Fraction
    exploitability: Fraction
    x: list[Fraction]
    y: list[Fraction]
    method: str
    basis_size: int = 0
    seconds: float = 0.0
    note: str = ""
    #: the LP's optimal basis was solved in rationals and failed (singular, or its plans not an
    #: equilibrium): the LP's floats are wrong, not too large to check
    basis_failed: bool = False


class ExactSequenceForm:
    """The sequence form's matrices in exact arithmetic (fmpq), for certificates."""

    def __init__(self, sf: SequenceForm):
        self.sf = sf
        rows, cols, vals = sf.A_exact
        self.A_rows, self.A_cols = rows.tolist(), cols.tolist()
        self.A_vals = [fmpq_of(v) for v in vals]

    def player1_payoffs(self, x: list) -> list:
        """``A^T x`` (player 0's payoff per sequence of player 1), exactly."""
        g = [flint.fmpq(0)] * self.sf.F.shape[1]
        for r, c, a in zip(self.A_rows, self.A_cols, self.A_vals):
            xr = x[r]
            if xr:
                g[c] += a * xr
        return g

    def player0_payoffs(self, y: list) -> list:
        """``A y``, exactly."""
        g = [flint.fmpq(0)] * self.sf.E.shape[1]
        for r, c, a in zip(self.A_rows, self.A_cols, self.A_vals):
            yc = y[c]
            if yc:
                g[r] += a * yc
        return g


def check_plan(tree: Tree, p: int, x: list) -> str:
    """Empty string if x is exactly a realization plan of player p; otherwise what is wrong."""
    if x[0] != 1:
        return f"player {p}'s plan has x[empty] = {x[0]}, not 1"
    for s, v in enumerate(x):
        if v < 0:
            return f"player {p}'s plan is negative ({v}) at sequence {s}"
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    for i in tree.player_infosets[p].tolist():
        f = int(first[i])
        if sum(x[f : f + int(nact[i])], flint.fmpq(0)) != x[int(pseq[i])]:
            return f"player {p}'s plan does not conserve flow at {tree.infoset_label(i)}"
    return ""


def exact_bracket(tree: Tree, ex: ExactSequenceForm, x: list, y: list) -> tuple[str, flint.fmpq, flint.fmpq]:
    """Check plans exactly and return (problem or "", lower, upper)."""
    for p, plan in ((0, x), (1, y)):
        bad = check_plan(tree, p, plan)
        if bad:
            return bad, flint.fmpq(0), flint.fmpq(0)
    lower = -exact_best_response_value(tree, 1, [-v for v in ex.player1_payoffs(x)])
    upper = exact_best_response_value(tree, 0, ex.player0_payoffs(y))
    return "", lower, upper


def _exact_K_rows(sf: SequenceForm, ex: ExactSequenceForm) -> list:
    """Rows of the LP matrix K = [[E, 0], [A^T, -F^T]] as dicts {column: fmpq}."""
    n1 = sf.E.shape[1]
    m1 = sf.E.shape[0]
    rows: list = []
    E = sf.E.tocsr()
    # E and F hold only 1 and -1: share two fmpq objects (immutable) instead of one per entry
    unit = {1.0: flint.fmpq(1), -1.0: flint.fmpq(-1)}
    for r in range(m1):
        sl = slice(E.indptr[r], E.indptr[r + 1])
        rows.append({c: unit[v] for c, v in zip(E.indices[sl].tolist(), E.data[sl].tolist())})
    rows.extend({} for _ in range(sf.F.shape[1]))
    for r, c, a in zip(ex.A_rows, ex.A_cols, ex.A_vals):
        rows[m1 + c][r] = a
    Ft = sf.F.tocsc()
    for s2 in range(sf.F.shape[1]):
        sl = slice(Ft.indptr[s2], Ft.indptr[s2 + 1])
        row = rows[m1 + s2]
        for j, v in zip(Ft.indices[sl].tolist(), Ft.data[sl].tolist()):
            row[n1 + j] = unit[-v]
    return rows


def basis_solution(sf: SequenceForm, ex: ExactSequenceForm, lp: LPResult, exact_limit: int) -> tuple[list, list, int]:
    """Exact (x, y) of the LP's optimal basis; raises CoreTooLarge / CertificateError."""
    if lp.col_status is None or lp.row_status is None:
        raise CertificateError("the LP solve returned no basis (use simplex, or IPM with crossover)")
    n1 = sf.E.shape[1]
    m1 = sf.E.shape[0]
    K = _exact_K_rows(sf, ex)
    bcols = np.flatnonzero(lp.col_status == _BASIC).tolist()
    nrows = np.flatnonzero(lp.row_status != _BASIC).tolist()
    if len(bcols) != len(nrows):
        raise CertificateError(f"HiGHS's basis is not square ({len(bcols)} basic columns, {len(nrows)} nonbasic rows)")
    pos = {c: k for k, c in enumerate(bcols)}
    prim = [{pos[c]: a for c, a in K[r].items() if c in pos} for r in nrows]
    bound = [flint.fmpq(1) if r == 0 else flint.fmpq(0) for r in nrows]
    lu = SparseLU(prim, len(bcols), exact_limit)
    z = lu.solve(bound)
    x = [flint.fmpq(0)] * n1
    for c, v in zip(bcols, z):
        if c < n1:
            x[c] = v
    # the dual system is the transpose, solved with the same factors
    cost = [flint.fmpq(1) if c == n1 else flint.fmpq(0) for c in bcols]
    w = lu.solve_transpose(cost)
    y = [flint.fmpq(0)] * sf.F.shape[1]
    for r, v in zip(nrows, w):
        if r >= m1:
            y[r - m1] = -v
    return x, y, len(bcols)


def rounded_plan(tree: Tree, p: int, x: np.ndarray, max_den: int = 1 << 20) -> list:
    """An exact realization plan close to float plan x: behavioural probabilities rounded to
    rationals (denominator <= max_den) and renormalised exactly at each information set."""
    b = behaviour_from_realization(tree, p, x)
    bq = [flint.fmpq(1)] + [fmpq_of(nearest_rational(v, max_den)) for v in b[1:]]
    first, nact = tree.infoset_first_seq, tree.infoset_num_actions
    for i in tree.player_infosets[p].tolist():
        f, k = int(first[i]), int(nact[i])
        tot = sum(bq[f : f + k], flint.fmpq(0))
        if tot == 0:
            bq[f : f + k] = [flint.fmpq(1, k)] * k
        else:
            bq[f : f + k] = [v / tot for v in bq[f : f + k]]
    return realization_plan_exact(tree, p, bq)


def certify_plans(
    sf: SequenceForm,
    x: list,
    y: list,
    method: str,
    *,
    seconds: float = 0.0,
    note: str = "",
    ex: ExactSequenceForm | None = None,
) -> Certificate:
    """Verify exact plans found by any method (``x``, ``y``: rationals over each player's
    sequences) as the module docstring's steps 1-3 do: ``certified`` when both are realization
    plans and their exact best responses meet. ``ex``: the exact sequence form, when the caller
    has it already. ``CertificateError`` when a plan is not a realization plan (the method that
    found it is wrong)."""
    t0 = time.perf_counter()
    xq, yq = [fmpq_of(v) for v in x], [fmpq_of(v) for v in y]
    bad, lower, upper = exact_bracket(sf.game_tree(), ex or ExactSequenceForm(sf), xq, yq)
    if bad:
        raise CertificateError(f"{method}: {bad}")
    lo, up = fraction_of(lower), fraction_of(upper)
    return Certificate(
        lo == up,
        lo if lo == up else None,
        lo,
        up,
        (up - lo) / 2,
        [fraction_of(v) for v in xq],
        [fraction_of(v) for v in yq],
        method,
        seconds=seconds + time.perf_counter() - t0,
        note=note,
    )


def certify(sf: SequenceForm, lp: LPResult, exact_limit: int = DEFAULT_EXACT_LIMIT) -> Certificate:
    """Certify an LP solution exactly (see the module docstring)."""
    t0 = time.perf_counter()
    tree = sf.game_tree()
    ex = ExactSequenceForm(sf)
    note = ""
    size = 0
    failed = False
    try:
        if lp.stopped:
            raise CertificateError(f"{lp.stopped}: the strategies where it stopped, rounded, bracket the value")
        x, y, size = basis_solution(sf, ex, lp, exact_limit)
        bad, lower, upper = exact_bracket(tree, ex, x, y)
        if not bad and lower == upper:
            return Certificate(
                True,
                fraction_of(lower),
                fraction_of(lower),
                fraction_of(upper),
                Fraction(0),
                [fraction_of(v) for v in x],
                [fraction_of(v) for v in y],
                "basis",
                size,
                time.perf_counter() - t0,
            )
        note = bad or f"the basic solution's exact best responses do not meet ({lower} < {upper})"
        failed = True
    except TooLarge as e:
        note = f"exact basis solve skipped: {e} ({Remedy('exact_limit', purpose='to try')})"
    except CertificateError as e:
        note = str(e) if lp.stopped else f"exact basis solve failed: {e}"
        failed = not lp.stopped
    # certify_plans raises on a plan that is not a realization plan, which cannot happen for
    # plans built by rounded_plan: never report an unchecked bound
    out = certify_plans(sf, rounded_plan(tree, 0, lp.x), rounded_plan(tree, 1, lp.y), "rounded", ex=ex, note=note)
    return dataclasses.replace(out, basis_size=size, seconds=time.perf_counter() - t0, basis_failed=failed)


def exact_lp(sf: SequenceForm, ex: ExactSequenceForm) -> ExactLP:
    """The sequence-form LP of ``seqform.lp.zerosumlp`` in rationals (unscaled payoffs):
    maximise q[empty] subject to E x = e, A^T x - F^T q >= 0, x >= 0, q free."""
    n1 = sf.E.shape[1]
    n2, m2 = sf.F.shape[1], sf.F.shape[0]
    zero = flint.fmpq(0)
    cost = [zero] * (n1 + m2)
    cost[n1] = flint.fmpq(1)
    e = [fmpq_of(v) for v in sf.e]
    return ExactLP(
        _exact_K_rows(sf, ex), cost, [zero] * n1 + [None] * m2, [None] * (n1 + m2), e + [zero] * n2, e + [None] * n2
    )


def repair_basis(
    sf: SequenceForm,
    lp: LPResult,
    *,
    max_pivots: int,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    ex: ExactSequenceForm | None = None,
    progress=None,
) -> tuple[list, list, int]:
    """Exact optimal plans (x, y) reached by the exact simplex (``seqform.exact.exactsimplex``)
    from the float LP's basis, and the pivots it took. Raises ``PivotLimit``, ``TooLarge`` or
    ``CertificateError`` (no basis, singular basis) as ``exact_simplex`` does."""
    if lp.col_status is None or lp.row_status is None:
        raise CertificateError("the LP solve returned no basis to start the exact simplex from")
    ex = ex or ExactSequenceForm(sf)
    n1, m1 = sf.E.shape[1], sf.E.shape[0]
    n = len(lp.col_status)
    basis = np.flatnonzero(lp.col_status == _BASIC).tolist() + (n + np.flatnonzero(lp.row_status == _BASIC)).tolist()
    upper = np.flatnonzero(lp.col_status == _UPPER).tolist() + (n + np.flatnonzero(lp.row_status == _UPPER)).tolist()
    res = exact_simplex(
        exact_lp(sf, ex), basis, set(upper), max_pivots=max_pivots, exact_limit=exact_limit, progress=progress
    )
    y = [-v for v in res.duals[m1:]]
    return res.w[:n1], y, res.pivots

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

Steps 1 and 2 run in integers, vectorised (``seqform.exact.integerplans``): each plan's entries
over their common denominator (a basic solution's share the basis determinant), ``A``'s over
the leaves' (``seqform.lp.sequenceform.integer_payoff_entries``), and the backward passes one numpy
step per level of information sets: on Leduc with 5 ranks a few hundredths of a second, where
rationals one by one took a few tenths.

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
from functools import cached_property

import flint
import numpy as np

from seqform.errors import CertificateError, Remedy
from seqform.exact.exactbestresponse import scaled_best_response_value
from seqform.exact.exactsimplex import ExactLP, exact_simplex
from seqform.exact.integerplans import Scaled, ScaledMatrix, plan_problem, scaled_value, scaled_vector
from seqform.exact.rationals import fmpq_of, fraction_of, nearest_rational
from seqform.exact.sparselu import SparseLU, TooLarge
from seqform.lp.sequenceform import IntegerEntries, SequenceForm
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
    """The sequence form's payoff matrix in exact arithmetic, for certificates: ``A``'s entries as
    integers over one common denominator (``SequenceForm.A_integer``, products with plans by
    ``seqform.exact.integerplans.ScaledMatrix``), and as fmpq (``A_vals``) for the exact basis
    system, built when first asked for."""

    def __init__(self, sf: SequenceForm):
        self.sf = sf
        ent = sf.A_integer
        if ent is None:
            # the leaves' denominators were too diverse, or a sequence form without a game tree
            # gave only A_exact: its values over their lcm (fmpq over 1 if that is too long)
            rows, cols, vals = sf.A_exact
            v = scaled_vector(vals)
            ent = IntegerEntries(np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64), v.nums, v.den)
        self.A = ScaledMatrix(ent, (sf.E.shape[1], sf.F.shape[1]))

    @cached_property
    def A_rows(self) -> list:
        return self.A.entries.rows.tolist()

    @cached_property
    def A_cols(self) -> list:
        return self.A.entries.cols.tolist()

    @cached_property
    def A_vals(self) -> list:
        """``A``'s nonzeros as fmpq, in the order of ``A_rows``/``A_cols`` (one fmpq per distinct value)."""
        e = self.A.entries
        if not len(e.nums):
            return []
        uniq, inv = np.unique(e.nums, return_inverse=True)
        table = np.empty(len(uniq), dtype=object)
        table[:] = [scaled_value(v, e.den) for v in uniq.tolist()]
        return table[inv.reshape(-1)].tolist()

    def player1_payoffs(self, x: list) -> list:
        """``A^T x`` (player 0's payoff per sequence of player 1), exactly, as fmpq."""
        return self.A.transpose_times(scaled_vector(x)).fmpqs()

    def player0_payoffs(self, y: list) -> list:
        """``A y``, exactly, as fmpq."""
        return self.A.times(scaled_vector(y)).fmpqs()


def check_plan(tree: Tree, p: int, x: list) -> str:
    """Empty string if x (exact rationals over player p's sequences) is exactly a realization plan
    of player p; otherwise what is wrong (``seqform.exact.integerplans.plan_problem``)."""
    return plan_problem(tree, p, scaled_vector(x))


def exact_bracket(tree: Tree, ex: ExactSequenceForm, x: list, y: list) -> tuple[str, flint.fmpq, flint.fmpq]:
    """Check plans exactly and return (problem or "", lower, upper): ``lower = min_y' x^T A y'``,
    ``upper = max_x' x'^T A y``. In integers over common denominators
    (``seqform.exact.integerplans``): the plans' checks, ``A^T x`` and ``A y``, and the two best
    responses (``seqform.exact.exactbestresponse.scaled_best_response_value``)."""
    return _scaled_bracket(tree, ex, scaled_vector(x), scaled_vector(y))


def _scaled_bracket(tree: Tree, ex: ExactSequenceForm, xs: Scaled, ys: Scaled) -> tuple[str, flint.fmpq, flint.fmpq]:
    """``exact_bracket`` of plans already in integer form."""
    for p, plan in ((0, xs), (1, ys)):
        bad = plan_problem(tree, p, plan)
        if bad:
            return bad, flint.fmpq(0), flint.fmpq(0)
    g1 = ex.A.transpose_times(xs)
    lower = -scaled_value(scaled_best_response_value(tree, 1, -g1.nums), g1.den)
    g0 = ex.A.times(ys)
    upper = scaled_value(scaled_best_response_value(tree, 0, g0.nums), g0.den)
    return "", lower, upper


def _exact_K_entries(sf: SequenceForm, ex: ExactSequenceForm) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nonzeros of the LP matrix K = [[E, 0], [A^T, -F^T]]: (rows, cols, values), the values
    an object array of fmpq."""
    n1, m1 = sf.E.shape[1], sf.E.shape[0]
    E, F = sf.E.tocoo(), sf.F.tocoo()
    # E and F hold only 1 and -1: share two fmpq objects (immutable) instead of one per entry
    unit = np.empty(2, dtype=object)
    unit[:] = [flint.fmpq(-1), flint.fmpq(1)]
    rows = np.concatenate((E.row, m1 + ex.A.entries.cols, m1 + F.col)).astype(np.int64)
    cols = np.concatenate((E.col, ex.A.entries.rows, n1 + F.row)).astype(np.int64)
    vals = np.empty(len(rows), dtype=object)
    vals[: E.nnz] = unit[(E.data > 0).astype(np.int64)]
    vals[E.nnz : len(rows) - F.nnz] = ex.A_vals
    vals[len(rows) - F.nnz :] = unit[(F.data < 0).astype(np.int64)]
    return rows, cols, vals


def _dict_rows(n: int, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray) -> list:
    """``n`` rows as dicts {column: value} from a sparse matrix's nonzeros."""
    out: list = [{} for _ in range(n)]
    for r, c, v in zip(rows.tolist(), cols.tolist(), vals.tolist()):
        out[r][c] = v
    return out


def _exact_K_rows(sf: SequenceForm, ex: ExactSequenceForm) -> list:
    """Rows of the LP matrix K = [[E, 0], [A^T, -F^T]] as dicts {column: fmpq}."""
    return _dict_rows(sf.E.shape[0] + sf.F.shape[1], *_exact_K_entries(sf, ex))


def basis_solution(sf: SequenceForm, ex: ExactSequenceForm, lp: LPResult, exact_limit: int) -> tuple[list, list, int]:
    """Exact (x, y) of the LP's optimal basis; raises CoreTooLarge / CertificateError."""
    if lp.col_status is None or lp.row_status is None:
        raise CertificateError("the LP solve returned no basis (use simplex, or IPM with crossover)")
    n1 = sf.E.shape[1]
    m1 = sf.E.shape[0]
    bcols = np.flatnonzero(lp.col_status == _BASIC)
    nrows = np.flatnonzero(lp.row_status != _BASIC)
    if len(bcols) != len(nrows):
        raise CertificateError(f"HiGHS's basis is not square ({len(bcols)} basic columns, {len(nrows)} nonbasic rows)")
    # K restricted to the nonbasic rows and basic columns, renumbered
    rows, cols, vals = _exact_K_entries(sf, ex)
    rpos = np.full(len(lp.row_status), -1, dtype=np.int64)
    rpos[nrows] = np.arange(len(nrows))
    cpos = np.full(len(lp.col_status), -1, dtype=np.int64)
    cpos[bcols] = np.arange(len(bcols))
    keep = np.flatnonzero((rpos[rows] >= 0) & (cpos[cols] >= 0))
    prim = _dict_rows(len(nrows), rpos[rows[keep]], cpos[cols[keep]], vals[keep])
    zero, one = flint.fmpq(0), flint.fmpq(1)
    bcols_l, nrows_l = bcols.tolist(), nrows.tolist()
    bound = [one if r == 0 else zero for r in nrows_l]
    lu = SparseLU(prim, len(bcols), exact_limit)
    z = lu.solve(bound)
    x = [zero] * n1
    for c, v in zip(bcols_l, z):
        if c < n1:
            x[c] = v
    # the dual system is the transpose, solved with the same factors
    cost = [one if c == n1 else zero for c in bcols_l]
    w = lu.solve_transpose(cost)
    y = [zero] * sf.F.shape[1]
    for r, v in zip(nrows_l, w):
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
    xs, ys = scaled_vector(x), scaled_vector(y)
    bad, lower, upper = _scaled_bracket(sf.game_tree(), ex or ExactSequenceForm(sf), xs, ys)
    if bad:
        raise CertificateError(f"{method}: {bad}")
    lo, up = fraction_of(lower), fraction_of(upper)
    return Certificate(
        lo == up,
        lo if lo == up else None,
        lo,
        up,
        (up - lo) / 2,
        _fractions(x, xs),
        _fractions(y, ys),
        method,
        seconds=seconds + time.perf_counter() - t0,
        note=note,
    )


def _fractions(values, scaled: Scaled) -> list:
    """The plan ``values`` (``scaled``, the same numbers) as Fractions: kept when they are
    Fractions already (immutable), else from the integer form (``Scaled.fractions``)."""
    if all(type(v) is Fraction for v in values):
        return list(values)
    return scaled.fractions()


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
        xs, ys = scaled_vector(x), scaled_vector(y)
        bad, lower, upper = _scaled_bracket(tree, ex, xs, ys)
        if not bad and lower == upper:
            return Certificate(
                True,
                fraction_of(lower),
                fraction_of(lower),
                fraction_of(upper),
                Fraction(0),
                xs.fractions(),
                ys.fractions(),
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

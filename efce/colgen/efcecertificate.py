"""The exact certificate of column generation's EFCE (``efce.colgen``): the restricted LP's
optimal basis solved again in rationals, and the distribution verified by the causal-deviation
dynamic program in rationals.

The profiles' statistics are made exact first: every entry of G, B and U is a sum of chance x
payoff products, all multiples of 1/D for a known common denominator D (``statistics_denominator``),
so a float entry x is exactly round(x D) / D (``seqform.exact.rationals.exact_numerator``, which
refuses a float that is not). HiGHS's basis (von Stengel & Forges 2008's EFCE LP over the pool,
``efce.colgen.restrictedlp``) is then solved by exact sparse LU (``seqform.exact.sparselu``);
when it cannot be (not square, singular or too large in rationals, D unknown), the LP's float
distribution is rounded (``rounded_distribution``) and verified all the same. The verification
is independent of the LP: the distribution sums to exactly 1, and no causal deviation gains more
than eps, by the dynamic program of ``efce.deviationdp`` over the exact sequence payoffs
(Dudik & Gordon 2009, section 3.2's deviation tree).

References:

- von Stengel & Forges (2008), "Extensive-Form Correlated Equilibrium: Definition and Computational Complexity",
  Mathematics of Operations Research.
- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import flint
import numpy as np

from seqform.errors import SeqformError, SolverError
from seqform.exact.rationals import (
    decimal_rational,
    exact_numerator,
    fmpq_of,
    fraction_of,
    rounded_distribution,
    to_fraction,
)
from seqform.exact.sparselu import SparseLU
from seqform.model.game import Game

from ..family import DeclaresPayoffDenominator, Model
from .colgenresult import ColumnGenerationResult
from .restrictedlp import BASIC, RegretRows, RestrictedLP

#: nonzeros the exact LU of a basis may store before it gives up (``seqform.exact.sparselu.TooLarge``)
EXACT_LIMIT = 2_000_000


def statistics_denominator(game: Game, model: Model) -> int:
    """A common denominator of every entry of the model's statistics: the model's own
    (``payoff_denominator``), else the one the game declares (``DeclaresPayoffDenominator``),
    else 0 (unknown: the basis is then not solved in rationals)."""
    d = model.payoff_denominator()
    if d:
        return d
    return int(game.payoff_denominator) if isinstance(game, DeclaresPayoffDenominator) else 0


def _exact(x: float, D: int) -> Fraction:
    """The statistic x, exactly: a multiple of 1/D, or at its binary value when D is unknown (0)."""
    return Fraction(exact_numerator(x, D), D) if D else to_fraction(x)


def certify(
    game: Game,
    lp: RestrictedLP,
    model: Model,
    D: int,
    res,
    w: np.ndarray,
    eps: Fraction,
    bound: float,
    iterations: int,
    say: Callable[[str], None],
) -> ColumnGenerationResult:
    """Solve the restricted LP's optimal basis ``res`` (a second-phase HiGHS result over the pool
    of ``lp``) in rationals, with the statistics' common denominator ``D``, then verify the
    distribution exactly: it sums to 1, and no causal deviation gains more than ``eps``
    (``exact_regret``). ``w`` (N,): the weights, ``bound`` and ``iterations``: recorded in the
    result, whose ``seconds`` the caller sets (``dataclasses.replace``)."""
    rows = lp.rows
    p = None
    if res.col_status is not None:
        try:
            p = basis_solution(lp, res, D, eps)
        except SeqformError as e:
            # say why, for the log (the basis may be singular in rationals, or too large to solve)
            say(
                f"the optimal basis was not solved in rationals ({type(e).__name__}: {e}); "
                "verifying the rounded floats instead"
            )
            p = None
    if p is None:  # no usable basis: the floats, rounded (verified all the same)
        p = rounded_distribution(np.maximum(np.asarray(res.col_value)[rows.nv + 1 :], 0.0))
    support = [k for k, v in enumerate(p) if v]
    Gx = exact_columns(lp, support, D)
    regret, worst = exact_regret(model, rows, p, support, Gx)
    U = {k: [_exact(u, D) for u in lp.U[k]] for k in support}
    payoffs = [sum((p[k] * U[k][n] for k in support), Fraction(0)) for n in range(game.num_players)]
    objective = sum((decimal_rational(wn) * pn for wn, pn in zip(w.tolist(), payoffs)), Fraction(0))
    certified = all(v >= 0 for v in p) and sum(p) == 1 and regret <= eps
    return ColumnGenerationResult(
        game=game.name,
        weights=w.tolist(),
        payoffs=payoffs,
        objective=objective,
        max_regret=regret,
        columns=lp.S.copy(),
        p_exact=p,
        bound=bound,
        iterations=iterations,
        certified=certified,
        worst_deviation=worst,
        eps=eps,
    )


def basis_solution(lp: RestrictedLP, res, D: int, eps: Fraction = Fraction(0)) -> list:
    """The optimal basis's primal solution in rationals: the p part, (K,) Fractions. The eps
    column, fixed at ``eps`` in the second phase, moves to the trigger rows' right-hand side
    when it is nonbasic. ``SolverError`` when D is unknown or the basis is not square, and
    ``seqform.exact.sparselu``'s errors (``CertificateError``: singular; ``TooLarge``) when it cannot be solved."""
    if not D:
        raise SolverError("no common denominator for the statistics")
    nv = lp.rows.nv
    ncols = nv + 1 + lp.Gt.shape[1]
    bcols = np.flatnonzero(res.col_status == BASIC).tolist()
    nrows_nb = np.flatnonzero(res.row_status != BASIC).tolist()
    if len(bcols) != len(nrows_nb):
        raise SolverError("basis not square")
    pos = {c: k for k, c in enumerate(bcols)}
    Vc, Gr = lp.rows.V.tocsr(), lp.Gt.tocsr()
    system, rhs = [], []
    for r in nrows_nb:
        if r < lp.rows.nrows:
            d, b = _regret_row(lp.rows, Vc, Gr, r, pos, D, eps)
        else:  # the convexity row
            d, b = {pos[cc]: flint.fmpq(1) for cc in range(nv + 1, ncols) if cc in pos}, flint.fmpq(1)
        system.append(d)
        rhs.append(b)
    z = SparseLU(system, len(bcols), EXACT_LIMIT).solve(rhs)
    p = [Fraction(0)] * (ncols - nv - 1)
    for c, v in zip(bcols, z):
        if c > nv:
            p[c - nv - 1] = fraction_of(v)
    return p


def _regret_row(rows: RegretRows, Vc, Gr, r: int, pos: dict, D: int, eps: Fraction) -> tuple:
    """Regret row r of the basis system, exactly: ({basic position: coefficient}, right-hand
    side). ``Vc``, ``Gr``: the v and profile columns' coefficients (CSR)."""
    nv = rows.nv
    d = {}
    a, b = Vc.indptr[r], Vc.indptr[r + 1]
    for c, v in zip(Vc.indices[a:b].tolist(), Vc.data[a:b].tolist()):
        if c in pos:
            d[pos[c]] = flint.fmpq(int(v))
    trigger_row = r >= rows.npair_rows
    if nv in pos and trigger_row:
        d[pos[nv]] = flint.fmpq(-1)
    a, b = Gr.indptr[r], Gr.indptr[r + 1]
    for c, v in zip(Gr.indices[a:b].tolist(), Gr.data[a:b].tolist()):
        cc = nv + 1 + c
        if cc in pos:
            d[pos[cc]] = flint.fmpq(exact_numerator(v, D), D)
    return d, (fmpq_of(eps) if trigger_row and nv not in pos else flint.fmpq(0))


def exact_columns(lp: RestrictedLP, support: list, D: int) -> dict:
    """The support profiles' columns in the regret rows, exactly: {profile: {row: Fraction}}."""
    out = {}
    for k in support:
        col = lp.Gt[:, k]
        out[k] = {int(r): _exact(v, D) for r, v in zip(col.indices.tolist(), col.data.tolist())}
    return out


def exact_regret(model: Model, rows: RegretRows, p: list, support: list, Gx: dict) -> tuple:
    """The largest causal-deviation gain of the distribution ``p`` on the support profiles'
    exact columns ``Gx``, and a label for its trigger ("trigger k", k counting the rows'
    triggers): the sequence payoffs p . G and baselines p . B in rationals, and every trigger's
    best deviation by the dynamic program ``model.dp`` (``efce.deviationdp``) over them."""
    P = rows.npair_rows
    total = [Fraction(0)] * rows.nrows
    for k in support:
        for r, v in Gx[k].items():
            total[r] += p[k] * v
    g = np.empty(model.npairs + 1, dtype=object)
    g[:] = Fraction(0)
    for k, r in enumerate(rows.pair_rows.tolist()):
        g[r] = total[k]
    _, dv = model.dp.solve(g)
    best_regret, label = None, ""
    for k, t in enumerate(rows.trig_rows.tolist()):
        gain = dv[t] + total[P + k]  # the trigger row holds -B
        if best_regret is None or gain > best_regret:
            best_regret, label = gain, f"trigger {k}"
    return (best_regret if best_regret is not None else Fraction(0)), label

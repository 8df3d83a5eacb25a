"""An exact primal simplex over the rationals (python-flint ``fmpq``), warm-started from the basis
a floating-point LP solver returned.

A float LP solver cannot resolve payoffs whose magnitudes span more than its precision (10^16
beside single digits: HiGHS drops matrix entries below 1e-9 of the largest and judges optimality
to 1e-7), so the basis it calls optimal may not be optimal, or even feasible, in rationals. Its
basis is still nearly right (the large payoffs decide most of it), so the simplex method run in
exact arithmetic from there needs few pivots, and ends at a basis that is optimal exactly. This
is the exact-LP scheme of Applegate, Cook, Dash & Espinoza (2007), "Exact solutions to linear
programming problems" (QSopt_ex): a float solve, then exact pivots from its basis.

The LP, in the form ``seqform.lp.highs`` solves::

    maximise c^T w   subject to   K w - s = 0,   row_lower <= s <= row_upper,   col_lower <= w <= col_upper

over the variables ``z = (w, s)`` (the row activities ``s`` are the slacks). Each iteration
factorises the basis exactly (``seqform.exact.sparselu.SparseLU``) and takes one textbook bounded-variable
primal simplex step (Chvatal 1983, "Linear Programming", chapter 8): phase 1 maximises the sum of
infeasibilities' negatives (costs recomputed at each basis, every step stopping at the first
breakpoint, so the infeasibility never grows), phase 2 the objective. The entering variable is
the one with the largest reduced cost (Dantzig), and Bland's smallest-index rule after a run of
degenerate steps, which cannot cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import flint

from seqform.errors import CertificateError
from seqform.exact.sparselu import SparseLU

#: consecutive steps of length 0 after which the entering and leaving variables are chosen by
#: Bland's rule (smallest index), which terminates; Dantzig's rule is faster but may cycle
BLAND_AFTER_DEGENERATE = 20
PROGRESS_EVERY = 100
#: pivots between fresh factorisations; in between, each pivot adds an eta to the product form.
#: Etas save the factorisation but their rationals grow: on Leduc with 2 ranks and payoffs up to
#: 10^16 (2,162 pivots) 1, 4 and 8 took 56, 40 and 47 s; on Liar's Dice 1x3 with payoffs up to
#: 10^300 (556 pivots) 24, 35 and 46 s (bench/bench_wide_payoffs.py's games, 2 cores, one busy)
REFACTOR_EVERY = 4


@dataclass
class ExactLP:
    """The LP above in rationals: ``rows`` (m dicts ``{column: fmpq}``, the rows of K), ``cost``
    (n fmpq), bounds as fmpq or None (infinite): ``col_lower``, ``col_upper`` (n each),
    ``row_lower``, ``row_upper`` (m each)."""

    rows: list
    cost: list
    col_lower: list
    col_upper: list
    row_lower: list
    row_upper: list

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.cost)


@dataclass
class SimplexResult:
    """An exact optimal basic solution: ``w`` (n fmpq), ``duals`` (m fmpq: ``y`` with
    ``K^T y`` pricing the columns, so ``c - K^T y`` are the reduced costs), ``objective``,
    ``basis`` (the m basic variables: j < n a column, n + i row i's slack), ``pivots``."""

    w: list
    duals: list
    objective: flint.fmpq
    basis: list
    pivots: int


class PivotLimit(Exception):
    """The simplex took more pivots than allowed."""


class _Simplex:
    """The state of one exact solve: the basis, the nonbasic values, the factorisation."""

    def __init__(self, lp: ExactLP, basis: list, at_upper: set, limit: int):
        self.lp, self.limit = lp, limit
        self.m, self.n = lp.shape
        self.lower = list(lp.col_lower) + list(lp.row_lower)
        self.upper = list(lp.col_upper) + list(lp.row_upper)
        # the columns of [K, -I]: column j of K as {row: value}; slack n + i is -e_i
        self.cols: list = [{} for _ in range(self.n)]
        for i, r in enumerate(lp.rows):
            for j, v in r.items():
                self.cols[j][i] = v
        minus1 = flint.fmpq(-1)
        self.cols.extend({i: minus1} for i in range(self.m))
        if len(basis) != self.m or len(set(basis)) != self.m:
            raise CertificateError(f"the starting basis has {len(set(basis))} distinct variables, not {self.m}")
        self.basis = list(basis)
        self.solved_values = False
        self.value = [self._rest(j, j in at_upper) for j in range(self.n + self.m)]

    def _rest(self, j: int, at_upper: bool) -> flint.fmpq:
        """Where nonbasic variable j sits: the bound it was at (lower first), 0 when free."""
        lo, up = self.lower[j], self.upper[j]
        if at_upper and up is not None:
            return up
        if lo is not None:
            return lo
        return up if up is not None else flint.fmpq(0)

    def factorise(self) -> None:
        """Factorise the basis afresh (dropping the eta file); the first time, also solve for
        the basic variables' values (later steps update them, exactly)."""
        self.etas: list = []
        pos = {j: k for k, j in enumerate(self.basis)}
        rows: list = [{} for _ in range(self.m)]
        for j in self.basis:
            for i, v in self.cols[j].items():
                rows[i][pos[j]] = v
        try:
            self.lu = SparseLU(rows, self.m, self.limit)
        except CertificateError as e:
            raise CertificateError(f"exact simplex: the basis is singular ({e})") from None
        if self.solved_values:
            return
        self.solved_values = True
        # the basic values: B z_B = -(sum over nonbasic j of column_j z_j)
        inb = set(self.basis)
        rhs = [flint.fmpq(0)] * self.m
        for j, v in enumerate(self.value):
            if v and j not in inb:
                for i, a in self.cols[j].items():
                    rhs[i] -= a * v
        for j, v in zip(self.basis, self.lu.solve(rhs)):
            self.value[j] = v

    def solve(self, rhs: list) -> list:
        """B^{-1} rhs for the current basis: the factors, then each eta's inverse in order
        (product form: B_t = B_0 E_1 ... E_t, E_k the identity with column k the entering
        column's B_{k-1}^{-1} a_j; Dantzig & Orchard-Hays 1954)."""
        z = self.lu.solve(rhs)
        for k, alpha in self.etas:
            zk = z[k] / alpha[k]
            if zk:
                for i, a in alpha.items():
                    z[i] -= a * zk
            z[k] = zk
        return z

    def solve_transpose(self, rhs: list) -> list:
        """B^{-T} rhs: the etas' transposed inverses in reverse order, then the factors."""
        v = list(rhs)
        for k, alpha in reversed(self.etas):
            v[k] = (v[k] - sum((a * v[i] for i, a in alpha.items() if i != k and v[i]), flint.fmpq(0))) / alpha[k]
        return self.lu.solve_transpose(v)

    def infeasibility_costs(self) -> dict:
        """Phase 1's costs: +1 on basic variables below their lower bound, -1 above their upper."""
        out = {}
        for j in self.basis:
            v, lo, up = self.value[j], self.lower[j], self.upper[j]
            if lo is not None and v < lo:
                out[j] = 1
            elif up is not None and v > up:
                out[j] = -1
        return out

    def reduced_costs(self, cost: dict) -> tuple[list, dict]:
        """The duals y (B^T y = c_B) and the reduced costs c_j - column_j^T y of the nonbasic
        variables that may move in the improving direction."""
        y = self.solve_transpose([flint.fmpq(cost.get(j, 0)) for j in self.basis])
        inb = set(self.basis)
        d = {}
        for j, col in enumerate(self.cols):
            if j in inb:
                continue
            dj = flint.fmpq(cost.get(j, 0)) - sum((a * y[i] for i, a in col.items() if y[i]), flint.fmpq(0))
            if (dj > 0 and (self.upper[j] is None or self.value[j] < self.upper[j])) or (
                dj < 0 and (self.lower[j] is None or self.value[j] > self.lower[j])
            ):
                d[j] = dj
        return y, d

    def step(self, j: int, up: bool) -> flint.fmpq:
        """Move nonbasic j (up or down) until a basic variable meets a bound (it leaves, at that
        bound) or j meets its other bound; returns the step's length. A basic variable outside
        its bounds (phase 1) blocks where it meets the bound it violates: the first breakpoint
        of the infeasibility, so that it never grows."""
        rhs = [flint.fmpq(0)] * self.m
        for i, a in self.cols[j].items():
            rhs[i] = -a if up else a
        delta = self.solve(rhs)  # the change of z_B per unit of movement
        lo, hi = self.lower[j], self.upper[j]
        best: tuple = (hi - lo if hi is not None and lo is not None else None, -1, None)
        for k, (b, dz) in enumerate(zip(self.basis, delta)):
            if not dz:
                continue
            hit = self._blocks(b, dz)
            if hit is None:
                continue
            t, bound = hit
            if best[0] is None or t < best[0] or (t == best[0] and best[1] >= 0 and b < self.basis[best[1]]):
                best = (t, k, bound)
        t, k, bound = best
        if t is None:
            raise CertificateError("exact simplex: the LP is unbounded from the starting basis")
        for b, dz in zip(self.basis, delta):
            if dz:
                self.value[b] += dz * t
        self.value[j] += t if up else -t
        if k >= 0:
            self.value[self.basis[k]] = bound  # where it is exactly already
            self.basis[k] = j
            # the entering column in the old basis, B^{-1} a_j = -delta when moving up
            self.etas.append((k, {i: (-v if up else v) for i, v in enumerate(delta) if v}))
        return t

    def _blocks(self, b: int, dz: flint.fmpq) -> tuple | None:
        """(step, bound) at which basic b, changing by dz per unit, meets its next bound."""
        v, lo, up = self.value[b], self.lower[b], self.upper[b]
        if dz < 0:
            if up is not None and v > up:
                return (v - up) / -dz, up
            return ((v - lo) / -dz, lo) if lo is not None and v >= lo else None
        if lo is not None and v < lo:
            return (lo - v) / dz, lo
        return ((up - v) / dz, up) if up is not None and v <= up else None


def exact_simplex(
    lp: ExactLP,
    basis: list,
    at_upper: set[int] | frozenset[int] = frozenset(),
    *,
    max_pivots: int = 10_000,
    exact_limit: int = 2_000_000,
    progress: Callable[[int], None] | None = None,
) -> SimplexResult:
    """Maximise ``lp`` exactly from the starting ``basis`` (m variable indices as in
    ``SimplexResult``; ``at_upper``: nonbasic variables that start at their upper bound).
    ``progress(pivots)`` is called every ``PROGRESS_EVERY`` pivots.
    Raises ``PivotLimit`` past ``max_pivots``, ``seqform.exact.sparselu.TooLarge`` when a factorisation would
    store more than ``exact_limit`` nonzeros, ``CertificateError`` when the basis is singular or
    the LP infeasible or unbounded."""
    s = _Simplex(lp, basis, set(at_upper), exact_limit)
    cost = {j: c for j, c in enumerate(lp.cost) if c}
    pivots = degenerate = 0
    while True:
        if pivots % REFACTOR_EVERY == 0:
            s.factorise()
        infeasible = s.infeasibility_costs()
        phase1 = bool(infeasible)
        y, d = s.reduced_costs(infeasible if phase1 else cost)
        if not d:
            if phase1:
                raise CertificateError("exact simplex: the LP is infeasible")
            obj = sum((c * s.value[j] for j, c in cost.items()), flint.fmpq(0))
            return SimplexResult(s.value[: s.n], y, obj, list(s.basis), pivots)
        if pivots >= max_pivots:
            raise PivotLimit(f"exact simplex: no optimal basis after {max_pivots:,} pivots")
        # Bland's rule (smallest index) after a run of degenerate steps; ties in the leaving
        # variable always go to the smallest index
        j = min(d) if degenerate >= BLAND_AFTER_DEGENERATE else max(d, key=lambda k: abs(d[k]))
        t = s.step(j, d[j] > 0)
        degenerate = degenerate + 1 if t == 0 else 0
        pivots += 1
        if progress is not None and pivots % PROGRESS_EVERY == 0:
            progress(pivots)

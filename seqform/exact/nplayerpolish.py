"""Polish a near-equilibrium of a game of any number of players into an exact rational Nash
equilibrium, certified by exact best responses.

A profile is a Nash equilibrium when every player's realization plan r_p (Koller, Megiddo & von
Stengel 1996) is a best response to the others': by LP duality, when there are values v_I, one per
information set I the player's own plan reaches, with

    v_I = g_p[s] + sum over information sets J below s of v_J     for every sequence s = (I, a) played,
    g_p[s] = sum over leaves z with seq_p(z) = s of chance(z) u_p(z) prod_{q != p} r_q[seq_q(z)],

and no better unplayed sequence: polynomial (multilinear in the others' plans) equations on a guessed
support and inequalities off it. ``polish`` takes a float profile (an iterative solver's average), and per try:

1. guesses each player's support: the sequences whose every behavioural probability on the way is
   above a threshold; unknowns are the plans on the support and the values v; equations the plans'
   flow constraints (E_p r_p = e_p) and the equalities above;
2. runs Gauss-Newton (least-squares steps, minimum norm) in floats onto the solution set, which is
   a manifold where equilibria come in families (three-player Kuhn poker: Szafron, Gibson &
   Sturtevant 2013) or where the others never reach an information set;
3. pins the free directions there: a column-pivoted QR of the Jacobian (Businger & Golub 1965)
   keeps a set of independent columns, and every other unknown is fixed to the simplest rational
   near its float value (denominators 2, 4, 12, 24, ... in turn);
4. solves the rest by Newton in float64 to a residual below 1e-13, then rounds each unknown to the
   simplest rational within a growing denominator bound (continued fractions, the one rounding
   policy of ``seqform.exact.rationals``) until the residual, evaluated exactly in rationals
   (python-flint ``fmpq``), is zero and the plans are nonnegative;
5. certifies: the exact NashConv (exact best responses, ``seqform.exact.exactbestresponse``) is 0.

A try that fails moves on (another denominator, then another threshold); the number of tries and
the time are bounded, and a stop says what was found. Dense linear algebra: for small games
(``MAX_UNKNOWNS``). An equilibrium that is irrational for every choice of pins is not found.

References:

- Businger & Golub (1965), "Linear least squares solutions by Householder transformations", Numerische Mathematik.
- Koller, Megiddo & von Stengel (1996), "Efficient Computation of Equilibria for Extensive Two-Person Games", Games and
  Economic Behavior.
- Szafron, Gibson & Sturtevant (2013), "A Parameterized Family of Equilibrium Profiles for Three-Player Kuhn Poker",
  AAMAS.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

import flint
import numpy as np
import scipy.linalg

from seqform.exact.exactbestresponse import exact_backward_pass
from seqform.exact.nplayeralgebraic import AlgebraicEquilibrium
from seqform.exact.rationals import fmpq_of, fraction_of, nearest_rational
from seqform.exact.sequencepayoffs import SequencePayoffs
from seqform.model.strategy import (
    Profile,
    behaviour_from_realization,
    behaviour_from_realization_exact,
    check_shape,
    realization_plan,
)
from seqform.model.tree import Tree

#: support thresholds tried in turn (a behavioural probability above it is played)
THRESHOLDS = (1e-2, 1e-3, 5e-2, 1e-4)
#: denominator bounds of the pinned coordinates, tried in turn
PIN_DENOMINATORS = (2, 4, 12, 24, 48, 120, 1000)
#: denominator bounds of the rational reconstruction from float64 (a rational p/q is recovered from
#: a float within 1/(2 q^2) of it, so q up to about 10^7 at double precision)
RECONSTRUCTION_DENOMINATORS = (10**2, 10**4, 10**6, 10**7)
#: the dense Jacobian's bound on unknowns
MAX_UNKNOWNS = 3000


@dataclass
class PolishResult:
    """What ``polish`` found. ``profile``: the certified equilibrium, behavioural strategies of
    Fractions (uniform where a player's own plan never reaches), or None. ``status``: "certified",
    "failed" or "time_limit"; ``reason`` says why in one sentence. ``nash_conv``: exact (0) when
    certified. ``tries``: supports times pin sets tried; ``pinned``: coordinates pinned;
    ``max_denominator``: the largest denominator of a behavioural probability. What was found when
    nothing was certified: ``residual``, the smallest float residual of a support's equations, and
    ``approximate``, the last float solution (behavioural, nonnegative, residual below 1e-10);
    ``log``, one line per try."""

    profile: Profile | None
    status: str
    reason: str
    tries: int = 0
    nash_conv: Fraction | None = None
    pinned: int = 0
    max_denominator: int = 0
    residual: float = float("inf")
    approximate: Profile | None = None
    seconds: float = 0.0
    log: list = field(default_factory=list)
    #: an equilibrium whose probabilities are irrational (``seqform.exact.nplayeralgebraic``),
    #: certified in its number field; ``profile`` is then None
    algebraic: AlgebraicEquilibrium | None = None


class SupportSystem:
    """The equations of one support guess: unknowns z (plans on the support, then values), rows
    (flow constraints, then one equality per played sequence). F(z) = L z + c - (g on played rows)."""

    def __init__(self, tree: Tree, support: list):
        N = tree.num_players
        self.tree, self.N, self.support = tree, N, support
        self.last_residual = float("inf")  # of the last Gauss-Newton run on this support
        self.payoffs = SequencePayoffs(tree)
        self.S, self.w = self.payoffs.S, self.payoffs.w
        col, n = [], 0
        for p in range(N):  # plan unknowns: the played non-empty sequences
            c = np.full(tree.num_sequences[p], -1)
            played = np.flatnonzero(support[p])[1:]
            c[played] = np.arange(n, n + len(played))
            col.append(c)
            n += len(played)
        self.seq_col = col
        self.num_plan = n
        vcol: dict[int, int] = {}
        for p in range(N):
            for i in tree.player_infosets[p].tolist():
                if support[p][tree.infoset_parent_seq[i]]:
                    vcol[i] = n
                    n += 1
        self.vcol, self.n = vcol, n
        if n > MAX_UNKNOWNS:  # too large for dense linear algebra: nothing more is built
            return
        L: list[dict[int, float]] = []
        const: list[int] = []
        grow: list[tuple[int, int]] = []  # per row: (player, played sequence), or (player, -1) for flow
        first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
        for i in vcol:  # flow: sum of the played actions = the parent's weight
            p = int(tree.infoset_player[i])
            row = {int(col[p][s]): 1.0 for s in range(first[i], first[i] + nact[i]) if support[p][s]}
            ps = int(pseq[i])
            if ps:
                row[int(col[p][ps])] = -1.0
            L.append(row)
            const.append(0 if ps else -1)
            grow.append((p, -1))
        children: dict[tuple[int, int], list[int]] = {}
        for i in vcol:
            children.setdefault((int(tree.infoset_player[i]), int(pseq[i])), []).append(i)
        for p in range(N):
            for s in np.flatnonzero(col[p] >= 0).tolist():
                row = {vcol[int(tree.seq_infoset[p][s])]: 1.0}
                for j in children.get((p, s), []):
                    row[vcol[j]] = -1.0
                L.append(row)
                const.append(0)
                grow.append((p, s))
        self.m = len(L)
        self.L = np.zeros((self.m, n))
        for k, row in enumerate(L):
            for j, a in row.items():
                self.L[k, j] += a
        self.c = np.array(const, dtype=float)
        self.L_int = self.L.astype(np.int64).astype(object)
        self.c_int = np.array([flint.fmpq(x) for x in const], dtype=object)
        self.g_rows = [np.array([k for k, (q, s) in enumerate(grow) if q == p and s >= 0], dtype=int) for p in range(N)]
        self.g_seqs = [np.array([s for q, s in grow if q == p and s >= 0], dtype=int) for p in range(N)]

    @property
    def w_exact(self) -> list:
        """Per player and leaf, chance times the player's payoff (fmpq)."""
        return self.payoffs.w_exact

    def plans(self, z) -> list:
        """Full realization plans (zero off the support) from z: floats, or fmpq for an object array."""
        out = []
        for p in range(self.N):
            r = np.zeros(self.tree.num_sequences[p], dtype=z.dtype)
            if z.dtype == object:
                r[:] = flint.fmpq(0)
            r[0] = 1 if z.dtype != object else flint.fmpq(1)
            on = self.seq_col[p] >= 0
            r[on] = z[self.seq_col[p][on]]
            out.append(r)
        return out

    def g_float(self, r: list, p: int) -> np.ndarray:
        return self.payoffs.g_float(r, p)

    def g_exact(self, r: list, p: int) -> list:
        """Player p's exact sequence payoffs for exact plans r (``SequencePayoffs.g_exact``)."""
        return self.payoffs.g_exact(r, p)

    def residual(self, z) -> np.ndarray:
        """F(z): floats for a float z, exact fmpq for an object array of fmpq."""
        exact = z.dtype == object
        r = self.plans(z)
        # L and c are integers (flow and value coefficients are 0, 1, -1): exact as Python ints
        F = self.L_int @ z + self.c_int if exact else self.L @ z + self.c
        for p in range(self.N):
            g = np.array(self.g_exact(r, p), dtype=object) if exact else self.g_float(r, p)
            F[self.g_rows[p]] -= g[self.g_seqs[p]]
        return F

    def jacobian(self, z: np.ndarray) -> np.ndarray:
        """dF/dz at a float z: the multilinear g differentiated in each other player's plan."""
        r = self.plans(z)
        J = self.L.copy()
        for p in range(self.N):
            rows = np.full(self.tree.num_sequences[p], -1)
            rows[self.g_seqs[p]] = self.g_rows[p]
            for q in range(self.N):
                if q == p:
                    continue
                prod = self.w[p].copy()
                for k in range(self.N):
                    if k not in (p, q):
                        prod *= r[k][self.S[k]]
                rr, cc = rows[self.S[p]], self.seq_col[q][self.S[q]]
                keep = (rr >= 0) & (cc >= 0)
                np.add.at(J, (rr[keep], cc[keep]), -prod[keep])
        return J


def _thresholded(tree: Tree, behaviour: list, tau: float) -> list:
    """Per player, ``behaviour`` with every probability at most ``tau`` set to 0 (an information set
    keeps its likeliest action when none is above): its realization plan's positive entries are the
    guessed support."""
    out = []
    for p, b in enumerate(behaviour):
        b = np.asarray(b, dtype=float)
        bt = np.where(b > tau, b, 0.0)
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            if not bt[f : f + k].any():
                bt[f + int(np.argmax(b[f : f + k]))] = 1.0
        out.append(bt)
    return out


class Equations(Protocol):
    """What ``gauss_newton`` and ``free_directions`` need of a system of equations: ``n`` unknowns
    (the first ``num_plan`` of them plans, the rest values), ``residual(z)`` of shape (m,) and
    ``jacobian(z)`` of shape (m, n) at a float z."""

    n: int
    num_plan: int

    def residual(self, z) -> np.ndarray: ...

    def jacobian(self, z: np.ndarray) -> np.ndarray: ...


def gauss_newton(system: Equations, z: np.ndarray, free: np.ndarray, deadline: float) -> tuple:
    """Least-squares Newton (minimum-norm steps) on the free unknowns, to a residual below 1e-13.
    Returns (z, the residual's largest entry), inf when it diverges."""
    for _ in range(40):
        F = system.residual(z)
        res = float(np.abs(F).max()) if len(F) else 0.0
        if not res < 1e3:
            return z, float("inf")
        if res < 1e-13 or time.monotonic() > deadline:
            return z, res
        z = z.copy()
        z[free] -= np.linalg.lstsq(system.jacobian(z)[:, free], F, rcond=1e-10)[0]
    return z, float(np.abs(system.residual(z)).max())


def free_directions(system: Equations, z: np.ndarray) -> np.ndarray:
    """The unknowns to pin: those outside a maximal set of independent Jacobian columns (pivoted QR;
    the values' columns weighted up so that they stay free: they are determined by the plans)."""
    J = system.jacobian(z)
    sv = np.linalg.svd(J, compute_uv=False)
    rank = int((sv > 1e-8 * max(sv[0], 1.0)).sum()) if len(sv) else 0
    scale = np.ones(system.n)
    scale[system.num_plan :] = 10.0
    _, _, perm = scipy.linalg.qr(J * scale, pivoting=True, mode="economic")
    pinned = np.zeros(system.n, dtype=bool)
    pinned[perm[rank:]] = True
    return pinned


def _rational(system: SupportSystem, z: np.ndarray, pinned: np.ndarray, pins: np.ndarray) -> np.ndarray | None:
    """The simplest rationals near the float z (``seqform.exact.rationals.nearest_rational``, growing
    denominator bounds; the pinned unknowns exactly ``pins``) with exact residual zero and a
    nonnegative plan, or None."""
    for D in RECONSTRUCTION_DENOMINATORS:
        zr = np.array([fmpq_of(nearest_rational(v, D)) for v in z], dtype=object)
        zr[pinned] = pins
        if any(v < 0 for v in zr[: system.num_plan]):
            continue
        if all(v == 0 for v in system.residual(zr)):
            return zr
    return None


def _certify(system: SupportSystem, zr: np.ndarray) -> tuple:
    """(exact behavioural profile of Fractions, exact NashConv) of the rational solution zr."""
    tree = system.tree
    r = system.plans(zr)
    nash_conv = flint.fmpq(0)
    behaviour = []
    for p in range(system.N):
        b = behaviour_from_realization_exact(tree, p, [fraction_of(v) for v in r[p]])
        ep = exact_backward_pass(tree, p, system.g_exact(r, p), [fmpq_of(v) for v in b])
        nash_conv += ep.value_best - ep.value_current
        behaviour.append(b)
    return Profile(behaviour), fraction_of(nash_conv)


def _solve_support(tree: Tree, behaviour: list, tau: float, deadline: float, prunes: int = 3) -> tuple:
    """The support at threshold ``tau``, and a float solution of its equations by Gauss-Newton from
    the thresholded profile; sequences the solution plays with negative weight leave the support
    (at most ``prunes`` times). (system, z, why not: "" on success)."""
    behaviour = [np.asarray(b, dtype=float).copy() for b in behaviour]
    for _ in range(prunes + 1):
        plans = [realization_plan(tree, p, bt) for p, bt in enumerate(_thresholded(tree, behaviour, tau))]
        system = SupportSystem(tree, [x > 0 for x in plans])
        if system.n > MAX_UNKNOWNS:
            return system, None, f"{system.n} unknowns at threshold {tau:g}: more than {MAX_UNKNOWNS}"
        z0 = np.zeros(system.n)
        for p, x in enumerate(plans):
            on = system.seq_col[p] >= 0
            z0[system.seq_col[p][on]] = x[on]
        z, res = gauss_newton(system, z0, np.ones(system.n, dtype=bool), deadline)
        system.last_residual = res
        if res > 1e-10:
            return system, None, f"Gauss-Newton did not converge on the support (residual {res:.1e})"
        negative = np.flatnonzero(z[: system.num_plan] < -1e-9)
        if not len(negative):
            return system, z, ""
        for p in range(system.N):  # drop the sequences played negatively, then guess again
            behaviour[p][np.isin(system.seq_col[p], negative)] = 0.0
    return system, None, f"the support's solution still plays a sequence negatively after {prunes} prunings"


def _try_pins(system: SupportSystem, z: np.ndarray, pinned: np.ndarray, D: int, deadline: float) -> tuple:
    """One try: pin the unknowns ``pinned`` to the simplest rationals with denominator at most D near
    z, solve for the others in floats and round. (rational z or None, why not)."""
    pins = np.array([fmpq_of(nearest_rational(v, D)) for v in z[pinned]], dtype=object)
    zf = z.copy()
    zf[pinned] = [float(v) for v in pins]
    zf, res = gauss_newton(system, zf, ~pinned, deadline)
    if res > 1e-10:
        return None, f"Newton did not converge with the pins (residual {res:.1e})"
    if (zf[: system.num_plan] < -1e-9).any():
        return None, "the pinned solution has a negative probability"
    zr = _rational(system, zf, pinned, pins)
    if zr is None:
        D = RECONSTRUCTION_DENOMINATORS[-1]
        return None, f"no rational solution with denominators up to {D:.0e} near the solution"
    return zr, ""


def polish(
    tree: Tree,
    profile: Profile | list,
    *,
    time_limit: float = 60.0,
    thresholds: tuple = THRESHOLDS,
    denominators: tuple = PIN_DENOMINATORS,
) -> PolishResult:
    """An exact rational Nash equilibrium of ``tree`` (any number of players) near the float
    behavioural ``profile`` (per player an array of shape (num_sequences[p],)), certified by exact
    best responses (NashConv exactly 0), or a clear stop: see the module docstring. At most
    ``len(thresholds) * len(denominators)`` tries, and none starts after ``time_limit`` seconds."""
    start = time.monotonic()
    deadline = start + time_limit
    behaviour = profile.behaviour if isinstance(profile, Profile) else list(profile)
    check_shape(tree, behaviour)  # StrategyError naming the player whose strategy does not fit
    out = PolishResult(None, "failed", "")
    seen: list[list] = []

    def stop(status: str, reason: str) -> PolishResult:
        if status == "time_limit":
            reason = f"time limit of {time_limit:.3g} s reached after {out.tries} tries; {_found(out)}"
        out.status, out.reason, out.seconds = status, reason, time.monotonic() - start
        return out

    for tau in thresholds:
        if time.monotonic() > deadline:
            return stop("time_limit", "")
        system, z, why = _solve_support(tree, behaviour, tau, deadline)
        out.residual = min(out.residual, system.last_residual)
        if system.n > MAX_UNKNOWNS:
            return stop("failed", why)
        if any(all((a == b).all() for a, b in zip(system.support, s)) for s in seen):
            continue  # another threshold, the same support: nothing new to try
        if why:
            out.log.append(f"threshold {tau:g}: {why}")
            continue
        seen.append(system.support)
        if certify_on_support(system, z, out, f"threshold {tau:g}", denominators, deadline):
            return stop("certified", out.reason)
        if time.monotonic() > deadline:
            return stop("time_limit", "")
    return stop("failed", f"no certified equilibrium after {out.tries} tries; {_found(out)}")


def certify_on_support(
    system: SupportSystem, z: np.ndarray, out: PolishResult, label: str, denominators: tuple, deadline: float
) -> bool:
    """Steps 3 to 5 of the module docstring on one support: ``z`` is a float solution of
    ``system``'s equations (nonnegative plans). Pins the free directions at each denominator bound of
    ``denominators`` in turn, rounds, certifies. True when certified: ``out.profile``,
    ``nash_conv``, ``pinned``, ``max_denominator`` and ``reason`` are set. Otherwise ``out.tries``,
    ``approximate`` and ``log`` (lines starting with ``label``) record what was tried."""
    tree = system.tree
    plans = system.plans(z)
    out.approximate = Profile([behaviour_from_realization(tree, p, x) for p, x in enumerate(plans)])
    out.residual = min(out.residual, float(np.abs(system.residual(z)).max()) if system.m else 0.0)
    pinned = free_directions(system, z)
    for D in denominators if pinned.any() else denominators[:1]:
        if time.monotonic() > deadline:
            return False
        out.tries += 1
        zr, why = _try_pins(system, z, pinned, D, deadline)
        if zr is not None:
            prof, nash_conv = _certify(system, zr)
            if nash_conv == 0:
                out.profile, out.nash_conv, out.pinned = prof, nash_conv, int(pinned.sum())
                out.max_denominator = max(Fraction(v).denominator for b in prof.behaviour for v in b)
                out.reason = f"certified at {label}, pins with denominators <= {D}"
                return True
            why = f"the support's equations solved exactly, but NashConv {nash_conv}: an unplayed action is better"
        elif not pinned.any():
            why += " (nothing to pin: an isolated solution, irrational or of larger denominators)"
        out.log.append(f"{label}, pins <= 1/{D}: {why}")
    return _algebraic(system, z, pinned, out, label, denominators[0], deadline)


def _algebraic(
    system: SupportSystem, z: np.ndarray, pinned: np.ndarray, out: PolishResult, label: str, D: int, deadline: float
) -> bool:
    """The support's solution (pins at denominators up to ``D``) as real algebraic numbers, certified
    in their field (``seqform.exact.nplayeralgebraic``): True when certified (``out.algebraic``)."""
    from seqform.exact.nplayeralgebraic import certify_algebraic

    if time.monotonic() > deadline:
        return False
    pins = np.array([fmpq_of(nearest_rational(v, D)) for v in z[pinned]], dtype=object)
    zf = z.copy()
    zf[pinned] = [float(v) for v in pins]
    zf, res = gauss_newton(system, zf, ~pinned, deadline)
    if res > 1e-10:
        return False
    out.tries += 1
    eq, why = certify_algebraic(system, zf, pinned, pins, deadline)
    if eq is None:
        out.log.append(f"{label}, as algebraic numbers: {why}")
        return False
    out.algebraic, out.nash_conv, out.pinned = eq, Fraction(0), int(pinned.sum())
    out.reason = f"certified at {label} in Q(alpha), alpha a root of {eq.field.minpoly} (degree {eq.field.degree})"
    return True


def _found(out: PolishResult) -> str:
    last = out.log[-1] if out.log else "nothing tried"
    return f"smallest residual {out.residual:.1e}; last: {last}"

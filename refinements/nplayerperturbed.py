"""The exact equilibrium of an eps-perturbed game of any number of players, at a rational eps: the
ground truth for solvers of the perturbed game.

For the EFPE perturbation (every action's behavioural probability at least eps: Selten 1975) or the
QPE one (``x[s] >= eps^|s|``: Miltersen & Sorensen 2010), built for every player by
``refinements.nplayerperturbation``:

1. a near-equilibrium: CFR+ inside the perturbed polytopes (``refinements.nplayercfr``; with more
   than two players a guess, not a guaranteed approximation);
2. the support guess: which sequences sit at their lower bound (relative excess over the bound at
   most a threshold; each information set keeps the action furthest above);
3. Gauss-Newton in floats on the support's equations (``refinements.nplayersystem``), moving a
   sequence that falls to its bound onto it and an at-bound sequence whose slope beats its
   information set's off it, a few times; free directions pinned to simple rationals (the column
   pivoting of ``seqform.exact.nplayerpolish``, whose ``gauss_newton`` solves in floats);
4. exact rationals: mixed-precision iterative refinement (Wilkinson 1963, "Rounding Errors in
   Algebraic Processes"): the residual evaluated exactly (python-flint ``fmpq``), the correction
   solved in floats, so that each round adds some 40 bits, then the simplest rational within a
   denominator bound matching the precision (continued fractions) until the residual is exactly
   zero;
5. the certificate, independent of the equations: every player's plan meets its bounds, and its
   payoff equals its trembling best response's (``refinements.tremblingbestresponse``, dynamic
   programming over the perturbed polytope) against the others' exact plans (sequence payoffs as
   ``refinements.nplayersystem.SequencePayoffs`` computes them, as ``seqform.exact.nplayerpolish`` does).

A perturbed equilibrium that is irrational at the eps tried is not found exactly: the stop says so
and keeps the float solution.

References:

- Selten (1975), "Reexamination of the perfectness concept for equilibrium points in extensive games", International
  Journal of Game Theory.
- Miltersen & Sorensen (2010), "Computing a Quasi-Perfect Equilibrium of a Two-Player Game", Economic Theory.
- Farina, Kroer & Sandholm (2017), "Regret Minimization in Behaviorally-Constrained Zero-Sum Games", ICML.
- Wilkinson (1963), "Rounding Errors in Algebraic Processes", Prentice-Hall.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from seqform.exact.algebraic import FieldElement, RealField
from seqform.exact.nplayeralgebraic import exact_behaviour, field_of
from seqform.exact.nplayerpolish import free_directions, gauss_newton
from seqform.exact.rationals import fmpq_of, fraction_of, nearest_rational
from seqform.model.strategy import (
    Profile,
    behaviour_from_realization,
    behaviour_from_realization_exact,
    realization_plan,
)
from seqform.model.tree import Tree

from . import nplayerperturbation as _np
from .errors import RefinementError
from .nplayercfr import NPlayerPerturbedCFRPlus
from .nplayernewton import MAX_BITS, exact_solution
from .nplayersystem import PerturbedSystem
from .perturbation import Perturbation
from .tremblingbestresponse import trembling_best_response

#: relative excess over the bound below which a sequence is guessed at its bound, tried in turn
THRESHOLDS = (0.1, 0.5, 0.02, 2.0)
#: denominator bounds of pinned unknowns, tried in turn
PIN_DENOMINATORS = (2, 12, 120, 1000)
#: CFR+ iterations before each round of support guesses (totals)
ITERATIONS = (500, 2000, 8000, 32000)


@dataclass
class PerturbedEquilibrium:
    """An equilibrium of the ``concept`` perturbed game at ``eps`` (module docstring).

    ``certified``: exact, every trembling best response met. Then ``plans`` (per player, exact
    realization plans, Fractions), ``behaviour`` (a ``Profile`` of Fractions), ``values`` (each
    player's exact expected payoff), ``z`` (the support system's exact unknowns, fmpq). Always:
    ``at_bound`` (per player, bool per sequence: the support), ``approximate`` (the float
    behavioural profile of the last Gauss-Newton solve, else CFR+'s average or the start given),
    ``pinned`` (a bool mask of the unknowns pinned, with ``pins`` their values), ``reason`` (one
    sentence), ``log`` (one line per try)."""

    concept: str
    eps: Fraction
    certified: bool
    reason: str
    plans: list | None = None
    behaviour: Profile | None = None
    values: list | None = None
    z: np.ndarray | None = field(default=None, repr=False)
    at_bound: list | None = None
    approximate: Profile | None = None
    pinned: np.ndarray | None = field(default=None, repr=False)
    pins: np.ndarray | None = field(default=None, repr=False)
    system: PerturbedSystem | None = field(default=None, repr=False)
    log: list = field(default_factory=list)
    seconds: float = 0.0
    #: Q(alpha) when the equilibrium is irrational at this eps: ``plans``, ``behaviour``,
    #: ``values`` and ``z`` then hold its elements (``seqform.exact.algebraic.FieldElement``)
    number_field: RealField | None = None
    #: the last failure on a support whose equations were solved in floats
    deepest: str = field(default="", repr=False)


def near_equilibrium(tree: Tree, concept: str, eps: Fraction, iterations: int = 2000) -> Profile:
    """CFR+'s average in the perturbed game (``iterations`` iterations): a float behavioural profile."""
    s = NPlayerPerturbedCFRPlus(tree, concept, float(eps))
    s.step(iterations)
    return s.average_profile()


def guess_at_bound(tree: Tree, pert: Perturbation, eps: Fraction, plans: list, tau: float) -> list:
    """Per player, the sequences whose relative excess over their bound at ``eps`` is at most
    ``tau`` (float plans); every information set keeps its action of largest excess off the bound."""
    out = []
    for p, x in enumerate(plans):
        beta, lam = (np.array([float(v) for v in b]) for b in pert.bounds(tree, p, eps))
        bound = beta * x[tree.seq_parent[p]] + lam
        bound[0] = 1.0
        excess = (x - bound) / np.maximum(bound, 1e-300)
        at = excess <= tau
        at[0] = False
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            if at[f : f + k].all():
                at[f + int(np.argmax(excess[f : f + k]))] = False
        out.append(at)
    return out


def start_point(system: PerturbedSystem, eps: Fraction, plans: list) -> np.ndarray:
    """Unknowns from float plans: the plans, the at-bound ones snapped to their bound, and the
    slopes of the trembling best responses to them."""
    tree, pert = system.tree, system.pert
    z = np.zeros(system.n)
    snapped = []
    for p, x in enumerate(plans):
        x = np.array(x, dtype=float)
        beta, lam = (np.array([float(v) for v in b]) for b in pert.bounds(tree, p, eps))
        for s in range(1, len(x)):  # parents come first
            if system.at_bound[p][s]:
                x[s] = beta[s] * x[tree.seq_parent[p][s]] + lam[s]
        snapped.append(x)
        z[system.xcol[p][1:]] = x[1:]
    for p in range(system.N):
        beta, lam = (np.array([float(v) for v in b]) for b in pert.bounds(tree, p, eps))
        g = system.base.g_float(snapped, p)
        br = trembling_best_response(tree, p, g.tolist(), beta.tolist(), lam.tolist())
        C = g.copy()
        for i, c in br.slope.items():
            C[int(tree.infoset_parent_seq[i])] += c
        z[system.ccol[p][1:]] = C[1:]
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            z[system.wcol[i]] = C[f : f + k].max()
    return z


def _violations(system: PerturbedSystem, z: np.ndarray, eps: Fraction) -> list:
    """Per player, the sequences to move: above-bound ones at or below their bound, at-bound ones
    whose slope beats their information set's best (bool masks), or [] when there are none."""
    tree, moved, any_move = system.tree, [], False
    x = system.plans(z)
    for p in range(system.N):
        beta, lam = (np.array([float(v) for v in b]) for b in system.pert.bounds(tree, p, eps))
        bound = beta * x[p][tree.seq_parent[p]] + lam
        scale = np.maximum(bound, 1e-300)
        C = np.zeros(tree.num_sequences[p])
        C[1:] = z[system.ccol[p][1:]]
        w = np.zeros(tree.num_sequences[p])
        w[1:] = [z[system.wcol[int(tree.seq_infoset[p][s])]] for s in range(1, len(w))]
        at = system.at_bound[p]
        m = np.zeros(len(at), dtype=bool)
        m[1:] = (~at[1:] & ((x[p][1:] - bound[1:]) / scale[1:] < 1e-9)) | (at[1:] & (C[1:] - w[1:] > 1e-9))
        any_move |= bool(m.any())
        moved.append(m)
    return moved if any_move else []


def solve_support(
    tree: Tree, pert: Perturbation, eps: Fraction, plans: list, tau: float, deadline: float, moves: int = 4
) -> tuple:
    """Steps 2 and 3 of the module docstring: (system, float z or None, why not)."""
    at = guess_at_bound(tree, pert, eps, plans, tau)
    system = None
    for _ in range(moves + 1):
        system = PerturbedSystem(tree, pert, at)
        z0 = start_point(system, eps, plans)
        z, res = gauss_newton(_AtEps(system, eps), z0, np.ones(system.n, dtype=bool), deadline)
        if res > 1e-10:
            return system, None, f"Gauss-Newton did not converge on the support (residual {res:.1e})"
        moved = _violations(system, z, eps)
        if not moved:
            return system, z, ""
        at = [a ^ m for a, m in zip(system.at_bound, moved)]
        plans = [np.maximum(x, 0.0) for x in system.plans(z)]
    return system, None, f"the support kept changing after {moves} moves"


class _AtEps:
    """``system`` with eps fixed: the interface ``refinements.nplayernewton`` calls."""

    def __init__(self, system: PerturbedSystem, eps: Fraction):
        self.system, self.eps = system, eps
        self.n, self.num_plan, self.m = system.n, system.num_plan, system.m

    def residual(self, z):
        return self.system.residual(z, self.eps if z.dtype == object else float(self.eps))

    def jacobian(self, z):
        return self.system.jacobian(z, float(self.eps))


def _exact(v):
    """An exact number as ``certify`` computes with it: fmpq as a Fraction, a number field's
    element as it is (its arithmetic and comparisons are exact too)."""
    return v if isinstance(v, FieldElement) else fraction_of(v)


def _algebraic(at: _AtEps, approx: tuple, pinned: np.ndarray, pins: np.ndarray) -> np.ndarray | None:
    """The unknowns as elements of their number field, from iterative refinement's last iterate
    ``approx`` = (fmpq array, bits) (``seqform.exact.nplayeralgebraic.field_of``: a guess by LLL),
    kept only when every equation holds exactly in that field; else None."""
    zq, bits = approx
    free = np.flatnonzero(~pinned)
    found = field_of([zq[j] for j in free.tolist()], bits)
    if found is None:
        return None
    K, elems = found
    zK = np.array([K([v]) for v in zq], dtype=object)
    zK[pinned] = [K([v]) for v in pins]
    for j, e in zip(free.tolist(), elems):
        zK[j] = e
    if any(v != 0 for v in at.residual(zK)):
        return None
    return zK


def certify(system: PerturbedSystem, eps: Fraction, zr: np.ndarray) -> tuple:
    """Step 5: (True, exact plans (Fractions), values, "") when every player's exact plan meets its
    bounds at ``eps`` and pays what its trembling best response pays; else (False, ..., why)."""
    tree, pert = system.tree, system.pert
    r = system.plans(zr)
    plans = [[_exact(v) for v in x] for x in r]
    values: list = []
    for p in range(system.N):
        beta, lam = pert.bounds(tree, p, eps)
        x, par = plans[p], tree.seq_parent[p].tolist()
        low = [s for s in range(1, len(x)) if x[s] < beta[s] * x[par[s]] + lam[s]]
        if low:
            return False, plans, values, f"player {p}'s plan misses the bound of sequence {low[0]}"
        g = [_exact(v) for v in system.base.g_exact(list(r), p)]
        value = sum((a * b for a, b in zip(g, x)), Fraction(0))
        br = trembling_best_response(tree, p, g, list(beta), list(lam))
        if br.value != value:
            return False, plans, values, f"player {p}'s trembling best response gains {br.value - value}"
        values.append(value)
    return True, plans, values, ""


def on_support(
    system: PerturbedSystem,
    eps: Fraction,
    z: np.ndarray,
    deadline: float,
    fixed: tuple | None = None,
    algebraic: bool = True,
) -> tuple:
    """Steps 3 (pins) to 5 on one support, ``z`` a float solution at ``eps``. ``fixed``: (pinned
    mask, pins) to reuse (the limit keeps the same pins at every eps). Returns (zr or None,
    pinned, pins, plans, values, log lines)."""
    at = _AtEps(system, eps)
    log = []
    if fixed is not None:
        choices = [fixed]
    else:
        pinned = free_directions(at, z)
        dens = PIN_DENOMINATORS if pinned.any() else PIN_DENOMINATORS[:1]
        choices = [(pinned, np.array([fmpq_of(nearest_rational(v, D)) for v in z[pinned]], dtype=object)) for D in dens]
    for pinned, pins in choices:
        if time.monotonic() > deadline:
            log.append("time limit")
            break
        zf = z.copy()
        zf[pinned] = [float(v) for v in pins]
        zf, res = gauss_newton(at, zf, ~pinned, deadline)
        if res > 1e-10:
            log.append(f"{int(pinned.sum())} pins: Newton did not converge (residual {res:.1e})")
            continue
        keep: list = []
        zr = exact_solution(at, zf, pinned, pins, keep=keep)
        if zr is None and keep and algebraic:  # irrational at this eps? its number field, checked exactly
            zr = _algebraic(at, keep[-1], pinned, pins)
        if zr is None:
            field = ", and no number field of degree at most 8" if algebraic else ""
            why = f"no rational solution within {MAX_BITS} bits{field} (irrational at this eps?)"
            log.append(f"{int(pinned.sum())} pins: {why}")
            continue
        ok, plans, values, why = certify(system, eps, zr)
        if ok:
            return zr, pinned, pins, plans, values, log
        log.append(f"{int(pinned.sum())} pins: exact solution of the support, but {why}")
    return None, None, None, None, None, log


def _float_behaviour(tree: Tree, plans: list) -> Profile:
    return Profile([behaviour_from_realization(tree, p, np.maximum(x, 0.0)) for p, x in enumerate(plans)])


def solve_perturbed(
    tree: Tree,
    concept: str,
    eps: Fraction,
    *,
    profile: Profile | None = None,
    iterations: tuple = ITERATIONS,
    time_limit: float = 300.0,
    thresholds: tuple = THRESHOLDS,
    fixed: tuple | None = None,
    at_bound: list | None = None,
    algebraic: bool = True,
) -> PerturbedEquilibrium:
    """The exact equilibrium of ``tree``'s ``concept`` ("efpe" or "qpe") perturbed game at the
    rational ``eps``, any number of players (module docstring), or a clear stop.

    ``profile``: a float behavioural start; default: CFR+ in the perturbed game, run to each
    total of ``iterations`` in turn until a support guess from its average is certified.
    ``at_bound``: a support to try first (per player, bool per sequence); ``fixed``: the pins to
    use on it. ``algebraic``: certify an irrational solution in its number field (else only
    rationals count; the limit wants rational solutions). Raises ``PerturbationError`` for an eps
    that leaves a player no plan."""
    start = time.monotonic()
    deadline = start + time_limit
    eps = Fraction(eps)
    pert = _np.perturbation(tree, concept)
    _np.check(tree, pert, eps)
    out = PerturbedEquilibrium(concept, eps, False, "")
    tries: list = [("given support", None)] if at_bound is not None else []
    tries += [(f"threshold {tau:g}", tau) for tau in thresholds]
    seen: list = []
    if profile is not None:
        out.approximate = profile
        _attempt(tree, pert, eps, profile, tries, out, seen, deadline, fixed, at_bound, algebraic=algebraic)
    else:
        cfr = NPlayerPerturbedCFRPlus(tree, concept, float(eps))
        for total in iterations:
            if time.monotonic() > deadline:
                break
            cfr.step(total - cfr.iteration)
            if out.system is None:  # no support solved yet: CFR+'s average is the best float guess
                out.approximate = cfr.average_profile()
            if _attempt(
                tree, pert, eps, cfr.average_profile(), tries, out, seen, deadline, fixed, at_bound, total, algebraic
            ):
                break
            if "no rational solution" in out.deepest:  # a float perturbed equilibrium, not in rationals
                break
    if not out.certified:
        # a support whose equations were solved says more than a guess that did not converge
        last = out.deepest or (out.log[-1] if out.log else "time limit reached")
        out.reason = f"no exact equilibrium of the {concept}-perturbed game found at eps={eps}: {last}"
    out.seconds = time.monotonic() - start
    return out


def _attempt(
    tree, pert, eps, profile, tries, out, seen, deadline, fixed, at_bound, iterations=None, algebraic=True
) -> bool:
    """Every support guess of ``tries`` from the float ``profile``; True (and ``out`` filled) once
    one is certified."""
    plans = [realization_plan(tree, p, np.asarray(b, dtype=float)) for p, b in enumerate(profile.behaviour)]
    where = f"CFR+ {iterations} iterations, " if iterations else ""
    for label, tau in tries:
        if time.monotonic() > deadline:
            out.log.append("time limit reached")
            return False
        if tau is None:
            system = PerturbedSystem(tree, pert, at_bound)
            z, res = gauss_newton(
                _AtEps(system, eps), start_point(system, eps, plans), np.ones(system.n, bool), deadline
            )
            why = "" if res <= 1e-10 and not _violations(system, z, eps) else "the given support does not solve"
        else:
            system, z, why = solve_support(tree, pert, eps, plans, tau, deadline)
        if why:
            out.log.append(f"{where}{label}: {why}")
            continue
        key = [a.tobytes() for a in system.at_bound]
        if key in seen:
            continue
        seen.append(key)
        out.at_bound, out.system = system.at_bound, system
        out.approximate = _float_behaviour(tree, system.plans(z))
        zr, pinned, pins, exact_plans, values, log = on_support(
            system, eps, z, deadline, fixed if tau is None else None, algebraic
        )
        out.log += [f"{where}{label}: {line}" for line in log]
        out.deepest = out.log[-1] if log else out.deepest
        if zr is not None:
            out.certified, out.z, out.pinned, out.pins, out.plans, out.values = (
                True,
                zr,
                pinned,
                pins,
                exact_plans,
                values,
            )
            K = next((v.field for v in zr if isinstance(v, FieldElement)), None)
            out.number_field = K
            if K is None:
                out.behaviour = Profile(
                    [behaviour_from_realization_exact(tree, p, x) for p, x in enumerate(exact_plans)]
                )
            else:
                out.behaviour = Profile([exact_behaviour(tree, p, x) for p, x in enumerate(exact_plans)])
            irrational = "" if K is None else f", irrational: exact in Q(alpha), alpha a root of {K.minpoly}"
            out.reason = (
                f"exact equilibrium of the {out.concept}-perturbed game at eps={eps} ({where}{label}; "
                f"{int(pinned.sum())} unknowns pinned{irrational}): every trembling best response met exactly"
            )
            return True
    return False


__all__ = ["PerturbedEquilibrium", "solve_perturbed", "RefinementError"]

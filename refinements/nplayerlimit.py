"""The limit eps -> 0 of a game's perturbed equilibria, any number of players, certified where the
perturbed equilibria on one support are rational functions of eps.

Selten (1975), "Reexamination of the perfectness concept for equilibrium points in extensive
games": a perfect equilibrium (of the agent form; extensive-form perfect) is a limit of
equilibria of perturbed games whose trembles vanish; the EFPE perturbation (every action at least
eps) is one such sequence. Miltersen & Sorensen (2010), "Computing a Quasi-Perfect Equilibrium of a
Two-Player Game", show that limits of equilibria of the games perturbed by ``x[s] >= eps^|s|`` are
quasi-perfect (van Damme 1984, "A relation between perfect equilibria in extensive form games and
proper equilibria in normal form games"). Here:

1. the perturbed game's exact equilibrium at several rational eps (``refinements.nplayerperturbed``),
   all on one support with the same pinned unknowns (the first eps's);
2. each unknown (plans, slopes, values) reconstructed as a rational function of eps by rational
   interpolation in fmpq (``refinements.ratfunc.interpolate``; points beyond the fit check it);
3. the proof: the support's equations (``refinements.nplayersystem``) hold identically in Q(eps)
   (python-flint ``fmpq_poly`` arithmetic), every plan above the bound stays strictly above it and
   every at-bound sequence's slope at most its information set's best, for all eps in (0, eps0], an
   explicit rational eps0 from the lowest-order coefficients (``refinements.ratfunc.sign_radius``).
   So the family is an exact equilibrium of the eps-perturbed game for every eps in (0, eps0], and
   its value at eps = 0 (no pole there) is the limit the concept's definition asks for: an EFPE
   by Selten's definition; for QPE a limit of Miltersen & Sorensen's perturbed equilibria, which
   they prove quasi-perfect for two players, so ``refinements.nplayerrefine`` also tests van
   Damme's definition with the family as witness (``refinements.nplayerdefinition``).

Where this does not work (an irrational perturbed equilibrium, a support that changes between the
eps tried, no rational function of small degree through the points) the stop says what was found;
the exact perturbed equilibrium at the smallest eps solved stays ground truth.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from seqform.exact.exactbestresponse import exact_backward_pass
from seqform.exact.rationals import fmpq_of
from seqform.model.strategy import Profile
from seqform.model.tree import Tree

from .nplayerperturbed import PerturbedEquilibrium, solve_perturbed
from .ratfunc import RatFunc, interpolate, sign_radius

#: the eps at which the perturbed games are solved, in turn (close together: exact arithmetic
#: does not mind, and small eps keep the support of the limit)
EPS_POINTS = tuple(Fraction(1, 100 + 7 * k) for k in range(42))
#: how many points each reconstruction uses, in turn (a rational function of degrees at most
#: (d, d) needs 2 d + 1, plus one to check)
POINT_COUNTS = (6, 10, 16, 24, 32, 42)


@dataclass
class NPlayerLimit:
    """What ``limit`` found. ``certified``: the family is proved an equilibrium of the perturbed
    game for every eps in (0, ``eps0``]; then ``behaviour`` (limit behavioural strategies,
    Fractions, defined at every information set), ``plans`` (limit realization plans),
    ``values`` (each player's limit payoff), ``family`` (per player, its plan as rational functions
    of eps; ``unknowns``: every unknown), ``nash_conv`` (the limit's exact NashConv, 0).
    ``perturbed``: the exact perturbed equilibria solved (the last, at the smallest eps, is ground
    truth even when the limit fails).
    ``reason``: one sentence."""

    concept: str
    certified: bool
    reason: str
    eps0: Fraction | None = None
    behaviour: Profile | None = None
    plans: list | None = None
    values: list | None = None
    nash_conv: Fraction | None = None
    degree: int = 0
    family: list | None = field(default=None, repr=False)
    #: every unknown of the support's system (``refinements.nplayersystem``) as a rational function
    unknowns: list | None = field(default=None, repr=False)
    perturbed: list = field(default_factory=list, repr=False)
    #: the first perturbed solve, certified or not (its ``approximate`` profile when not)
    first_try: PerturbedEquilibrium | None = field(default=None, repr=False)
    seconds: float = 0.0


def _float_profile(eq: PerturbedEquilibrium) -> Profile:
    assert eq.behaviour is not None  # a certified perturbed equilibrium has its exact behaviour
    return Profile([np.array([float(v) for v in b]) for b in eq.behaviour.behaviour])


def _solve_points(tree: Tree, concept: str, count: int, out: NPlayerLimit, deadline: float) -> str:
    """Extend ``out.perturbed`` to ``count`` exact perturbed equilibria on the first's support."""
    while len(out.perturbed) < count:
        k = len(out.perturbed)
        if time.monotonic() > deadline:
            return "time limit reached"
        if k == 0:
            # rational solutions only: an irrational one would end the search for a rational family
            eq = solve_perturbed(
                tree, concept, EPS_POINTS[0], time_limit=max(deadline - time.monotonic(), 1.0), algebraic=False
            )
            out.first_try = eq
            if not eq.certified:
                return eq.reason
        else:
            first = out.perturbed[0]
            eq = solve_perturbed(
                tree,
                concept,
                EPS_POINTS[k],
                profile=_float_profile(out.perturbed[-1]),
                thresholds=(),
                at_bound=first.at_bound,
                fixed=(first.pinned, first.pins),
                time_limit=max(deadline - time.monotonic(), 1.0),
                algebraic=False,
            )
            if not eq.certified:
                return (
                    f"at eps={EPS_POINTS[k]} the perturbed equilibrium is not found exactly on the support of "
                    f"eps={EPS_POINTS[0]} with the same pins ({eq.reason})"
                )
        out.perturbed.append(eq)
    return ""


def _family(out: NPlayerLimit) -> tuple:
    """Each unknown as a rational function of eps through the exact solutions, or (None, why)."""
    pts = [eq.eps for eq in out.perturbed]
    zs = np.array([eq.z for eq in out.perturbed], dtype=object)
    fam = []
    for j in range(zs.shape[1]):
        f = interpolate(pts, list(zs[:, j]), len(pts))
        if f is None:
            d = (len(pts) - 2) // 2
            return None, f"unknown {j} is no rational function of degrees <= ({d}, {d}) through {len(pts)} points"
        fam.append(f)
    return fam, ""


def verify_family(system, fam: list) -> tuple:
    """Step 3: (eps0, "") when the support's equations hold identically in Q(eps) and every
    inequality holds for all eps in (0, eps0]; else (None, why)."""
    tree = system.tree
    z = np.array(fam, dtype=object)
    r = system.plans(z)
    gs = [system.base.g_exact(list(r), p) for p in range(system.N)]
    g_of = {row: gs[p][s] for p, s, row in system.grow}
    for k, (coef, const) in enumerate(system.rows):
        lhs = RatFunc(const)
        for j, poly in coef.items():
            lhs = lhs + RatFunc(poly) * z[j]
        if k in g_of:
            lhs = lhs - g_of[k]
        if not lhs.is_zero():
            return None, f"equation {k} of the support does not hold identically in eps (residual {lhs})"
    polys = [f.den for f in fam]
    for p in range(system.N):
        par = tree.seq_parent[p].tolist()
        for s in range(1, tree.num_sequences[p]):
            i = int(tree.seq_infoset[p][s])
            if system.at_bound[p][s]:
                d = z[system.wcol[i]] - z[system.ccol[p][s]]
                if d.sign() < 0:
                    return None, f"player {p}'s at-bound sequence {s} beats its information set for small eps"
            else:
                d = r[p][s] - (RatFunc(system.beta[p][s]) * r[p][par[s]] + RatFunc(system.lam[p][s]))
                if d.sign() <= 0:
                    return None, f"player {p}'s sequence {s} does not stay above its bound for small eps"
            polys += [d.num, d.den]
    widest = max(int(k) for k in tree.infoset_num_actions) if len(tree.infoset_num_actions) else 1
    # below 1/widest every bound of both perturbations leaves each information set free mass
    eps0 = min([sign_radius(q) for q in polys if q != 0] + [Fraction(1, widest + 1)])
    return eps0, ""


def limit(tree: Tree, concept: str, *, time_limit: float = 600.0) -> NPlayerLimit:
    """The certified limit eps -> 0 of ``tree``'s ``concept`` ("efpe" or "qpe") perturbed
    equilibria (module docstring), any number of players, or a clear stop."""
    start = time.monotonic()
    deadline = start + time_limit
    out = NPlayerLimit(concept, False, "")
    why, fam = "", None
    for count in POINT_COUNTS:
        why = _solve_points(tree, concept, count, out, deadline)
        if why:
            break
        fam, why = _family(out)
        if fam is not None:
            break
    if fam is None:
        out.reason = f"no certified limit: {why}" + _ground_truth(out)
        out.seconds = time.monotonic() - start
        return out
    system = out.perturbed[0].system
    eps0, why = verify_family(system, fam)
    if eps0 is None:
        out.reason = f"no certified limit: {why}" + _ground_truth(out)
        out.seconds = time.monotonic() - start
        return out
    _finish(out, system, fam, eps0)
    out.seconds = time.monotonic() - start
    return out


def _ground_truth(out: NPlayerLimit) -> str:
    if not out.perturbed:
        return ""
    return f"; the perturbed game's exact equilibrium at eps={out.perturbed[-1].eps} stands"


def _finish(out: NPlayerLimit, system, fam: list, eps0: Fraction) -> None:
    """The limit plans, behaviour and values at eps = 0, and its exact NashConv (a perfect or a
    quasi-perfect equilibrium is a Nash equilibrium: a check of the whole chain)."""
    tree = system.tree
    z = np.array(fam, dtype=object)
    r = system.plans(z)
    out.family = [list(x) for x in r]
    out.unknowns = list(fam)
    out.plans = [[RatFunc.of(v).at_zero() for v in x] for x in r]
    beh = []
    for p in range(system.N):
        par = tree.seq_parent[p].tolist()
        beh.append([Fraction(1)] + [(RatFunc.of(r[p][s]) / r[p][par[s]]).at_zero() for s in range(1, len(r[p]))])
    out.behaviour = Profile(beh)
    plans_q = [[fmpq_of(v) for v in x] for x in out.plans]
    nash_conv, values = Fraction(0), []
    for p in range(system.N):
        g = system.base.g_exact(plans_q, p)
        ep = exact_backward_pass(tree, p, g, [fmpq_of(v) for v in beh[p]])
        nash_conv += Fraction(int((ep.value_best - ep.value_current).p), int((ep.value_best - ep.value_current).q))
        values.append(Fraction(int(ep.value_current.p), int(ep.value_current.q)))
    out.values, out.nash_conv, out.eps0 = values, nash_conv, eps0
    out.degree = max(max(f.num.degree(), f.den.degree()) for f in fam)
    what = (
        "an extensive-form perfect equilibrium (Selten 1975)"
        if out.concept == "efpe"
        # Miltersen & Sorensen prove such limits quasi-perfect for two players; with more, the
        # definition's test (refinements.nplayerdefinition) is what certifies quasi-perfection
        else "a limit of equilibria of Miltersen & Sorensen (2010)'s quasi-perfect perturbation"
    )
    out.certified = nash_conv == 0
    out.reason = (
        f"the perturbed games' equilibria on one support are rational functions of eps (degree <= {out.degree}), "
        f"proved exact equilibria of the {out.concept}-perturbed game for every eps in (0, {eps0}]; their limit at "
        f"eps = 0 is {what}"
        if out.certified
        else f"the family is proved but its limit has NashConv {nash_conv}: a bug, please report it"
    )

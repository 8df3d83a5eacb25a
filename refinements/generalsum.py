"""Refined equilibria of two-player general-sum games: the perturbed sequence-form LCP.

The same perturbations as in the zero-sum case (``refinements.perturbation``) bound the plans from
below, ``x[s] = beta_s x[parent(s)] + l_s + x'_s`` with ``x' >= 0``, and Lemke's algorithm solves
the LCP of the perturbed game (``seqform.exact.sequenceformlcp``):

* **quasi-perfect** (Miltersen & Sorensen 2010, ``l_s = eps^|s|``): only the right-hand side
  depends on eps, so the LCP is solved for every small enough eps at once by comparing the
  right-hand side's powers of eps lexicographically (floating-point path, exact final basis);
* **extensive-form perfect** (Farina & Gatti 2017, ``beta_s = eps``): the matrix depends on eps;
  Lemke pivots over the integer polynomials ``Z[eps]`` (exact, small games);
* at a fixed rational eps either is an ordinary LCP in rationals.

The result is checked three ways, none of them the solver's own bookkeeping: the limit's exact
best responses gain nothing (a Nash equilibrium, ``seqform.verify.evaluate``); the perturbed
family returned with it is a witness for the concept's definition, tested exactly
(``refinements.definitioncertificate``: the requested concept must pass; the other is reported);
at a fixed eps, both players' trembling best responses inside the perturbed polytopes gain
nothing (``refinements.tremblingbestresponse``).

References:

- Koller, Megiddo & von Stengel (1996), "Efficient computation of equilibria for extensive two-person games", Games and
  Economic Behavior.
- Miltersen & Sorensen (2010), "Computing a Quasi-Perfect Equilibrium of a Two-Player Game", Economic Theory.
- Farina & Gatti (2017), "Extensive-Form Perfect Equilibrium Computation in Two-Player Games", AAAI.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from seqform.exact.rationals import fraction_of
from seqform.exact.sequenceformlcp import solve_lcp
from seqform.model.strategy import Profile, behaviour_from_realization_exact
from seqform.model.tree import Tree
from seqform.verify.evaluate import evaluate

from .definitioncertificate import certify_efpe, certify_qpe, limit_behaviour_of
from .perturbation import Perturbation
from .refinedsolution import RefinedSolution
from .tremblingbestresponse import perturbed_measures


def refine_general_sum(
    tree: Tree, pert: Perturbation, eps: float | None, *, seed: int = 0, progress: Callable[[str], None] | None = None
):
    """A refined equilibrium of a two-player game that need not be zero-sum (module docstring):
    the exact limit eps -> 0 (``eps`` None) or the perturbed game's equilibrium at ``eps``.

    Returns a ``refinements.refine.RefinedSolution`` with ``values`` (both players' exact
    payoffs) and ``certificates`` (the definition tests, limit only); ``value`` is player 0's."""
    say = progress or (lambda m: None)
    t0 = time.perf_counter()
    secs: dict = {}
    bounds = [(pert.behavioural[p] or None, pert.realization[p] or None) for p in range(2)]
    q = None
    if eps is not None:
        pert.check(tree, float(eps))
        q = Fraction(str(eps))
    say(f"solving the perturbed sequence-form LCP ({pert.name}, eps={'symbolic' if q is None else q})")
    eq = solve_lcp(tree, bounds=bounds, eps=q, seed=seed, progress=say)
    secs["solve"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    limit = limit_behaviour_of(tree, eq.series) if q is None and eq.series is not None else None
    # the limit's behaviour where its plan is zero comes from the perturbed family (Selten's
    # Figure 2: the plan never reaches player 0's second move, the limit plays l there)
    exact_profile = Profile(
        limit if limit is not None else [behaviour_from_realization_exact(tree, p, x) for p, x in enumerate(eq.plans)]
    )
    ev = evaluate(tree, exact_profile, exact=True)
    values = [fraction_of(v) for v in ev.values]
    profile = Profile([np.array([float(v) for v in b]) for b in exact_profile.behaviour])
    notes = [f"Lemke on the perturbed LCP: {eq.pivots:,} pivots ({eq.path}), prior seed {eq.seed}"]
    certificates = None
    if q is None:
        assert eq.series is not None  # Lemke over EpsPoly (a symbolic eps) gives the series
        certificates = {"efpe": certify_efpe(tree, eq.series), "qpe": certify_qpe(tree, eq.series)}
        nash = all(g == 0 for g in ev.gains)
        own = certificates.get(pert.name)
        certified = nash and (own is None or own.holds)
        notes.append(
            "the limit is a Nash equilibrium (exact best responses gain nothing)"
            if nash
            else f"the limit is NOT a Nash equilibrium: best responses gain {[str(g) for g in ev.gains]}"
        )
        for name, c in certificates.items():
            notes.append(
                f"{name} by definition, with the perturbed family as witness: "
                + (
                    "holds"
                    if c.holds
                    else "fails: " + (c.reason or "at {}, {} does worse than {}".format(*c.failures[0]))
                )
            )
        max_regret: Fraction | float = Fraction(0)
        tremble = None
    else:
        m = perturbed_measures(tree, pert, q, exact_profile)
        certified = m.exploitability == 0 and m.tremble_violation <= 0
        notes.append(
            "certified: both trembling best responses gain nothing"
            if certified
            else f"not certified: perturbed NashConv/2 {m.exploitability}, tremble shortfall {m.tremble_violation}"
        )
        max_regret, tremble = m.max_infoset_regret, float(m.tremble_violation)
    secs["certify"] = time.perf_counter() - t1
    secs["total"] = time.perf_counter() - t0
    regrets = (
        [float(r) if r is not None else float("nan") for r in ev.infoset_regret]
        if getattr(ev, "infoset_regret", None) is not None
        else []
    )
    return RefinedSolution(
        game=tree.name,
        concept=pert.name,
        eps=eps,
        value=values[0],
        value_float=float(values[0]),
        certified=certified,
        nash_value=None,
        exploitability=float(ev.nash_conv),
        max_infoset_regret=max_regret,
        positive_regret_infosets=0,
        infoset_regret=regrets,
        profile=profile,
        exact_profile=exact_profile,
        exact_realization=[[fraction_of(v) for v in x] for x in eq.plans],
        sizes=tree.sizes(),
        seconds=secs,
        basis_eps=None,
        tremble_violation=tremble,
        notes=notes,
        tree=tree,
        lp=None,
        basis=None,
        values=values,
        certificates=certificates,
        series=eq.series,
    )


__all__ = ["refine_general_sum"]

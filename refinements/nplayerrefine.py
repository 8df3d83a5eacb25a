"""``refinements.refine`` for games of more than two players: the exact limit eps -> 0 of the
perturbed games' equilibria where it stays exact (``refinements.nplayerlimit``), or the
perturbed game's exact equilibrium at one eps (``refinements.nplayerperturbed``), as a
``RefinedSolution``.

The result keeps the two-player fields and JSON keys where they mean the same (``value`` and
``values``: player 0's and every player's exact payoff; ``exact_profile``; ``certificates``: the
concepts tested by their definitions, ``refinements.nplayerdefinition``; ``max_infoset_regret``,
``exploitability``: exact, in the unperturbed game) and adds ``eps0`` (the family is proved an
exact perturbed equilibrium for every eps in (0, eps0]), ``limit_degree`` and ``perturbed_eps``
(the eps of the exact perturbed equilibrium kept when the limit is not certified). There is no
game value: ``lower`` and ``upper`` are None.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

import numpy as np

from seqform.exact.algebraic import FieldElement
from seqform.model.strategy import Profile
from seqform.model.tree import Tree
from seqform.result import format_sizes, number, seconds_text, table
from seqform.verify.evaluate import evaluate

from .errors import RefinementError
from .nplayerdefinition import CERTIFY
from .nplayerlimit import limit
from .nplayerperturbed import solve_perturbed
from .refinedsolution import RefinedSolution

_WHAT = {"efpe": "extensive-form perfect", "qpe": "quasi-perfect"}


@dataclass(kw_only=True)
class NPlayerRefinedSolution(RefinedSolution):
    """A ``RefinedSolution`` of a game of more than two players (module docstring). ``method``:
    "rational-limit" (eps None) or "perturbed-exact" (a fixed eps)."""

    eps0: Fraction | None = None
    limit_degree: int | None = None
    perturbed_eps: Fraction | None = None
    nash_conv: Fraction | None = None

    def __post_init__(self) -> None:
        self.method = "rational-limit" if self.eps is None else "perturbed-exact"
        self.lower = self.upper = None  # no game value with more than two players

    def measure(self, profile: Profile) -> dict:
        raise RefinementError("measure is for two-player zero-sum perturbed games")

    def summary(self, rationals: bool = False) -> str:
        rows = [("game", self.game), ("sizes", format_sizes(self.sizes))]
        what = _WHAT.get(self.concept, self.concept)
        if self.eps is None:
            rows.append(
                ("refinement", f"{self.concept}: {what} equilibrium, limit eps -> 0 of exact perturbed equilibria")
            )
        else:
            rows.append(("refinement", f"{self.concept} perturbed game at eps={self.eps:g} (exact at that eps)"))
        if self.values is not None:
            rows.append(("values", ", ".join(number(v, rationals, f"player {p}") for p, v in enumerate(self.values))))
        rows.append(("certificate", ("exact: " if self.certified else "FAILED: ") + "; ".join(self.notes)))
        exact = self.nash_conv is not None
        if exact:
            rows.append(("NashConv", f"{number(self.nash_conv, rationals, digits=3)}  (exact, unperturbed game)"))
        elif self.exploitability is not None:
            # certified but irrational: the exact equilibrium, measured in floats
            what = "floats" + ("" if self.certified else ": the best float guess") + "; unperturbed game"
            rows.append(("exploitability", f"{self.exploitability:.3g}  ({what})"))
        rows.append(
            (
                "max infoset regret",
                f"{number(self.max_infoset_regret, rationals, digits=3)}  ({self.positive_regret_infosets} information "
                f"sets positive; {'' if exact else 'floats, '}unperturbed game)",
            )
        )
        rows.append(("seconds", seconds_text(self.seconds)))
        return table(rows)

    def json_fields(self) -> dict:
        out = super().json_fields()
        out["players"] = len(self.values) if self.values is not None else None
        if self.nash_conv is not None:
            out["nash_conv"] = self.nash_conv
        if self.eps0 is not None:
            out["eps0"] = self.eps0
            out["limit_degree"] = self.limit_degree
        if self.perturbed_eps is not None:
            out["perturbed_eps"] = self.perturbed_eps
        return out


def _measured(tree: Tree, exact: Profile | None, approximate: Profile | None) -> dict:
    """NashConv and information-set regrets in the unperturbed game: exact for ``exact``, else in
    floats for ``approximate`` (``nc``, the exact NashConv, then None)."""
    if exact is None and approximate is None:
        return {"max_infoset_regret": 0.0, "positive_regret_infosets": 0, "infoset_regret": [], "nc": None, "x": None}
    prof = exact if exact is not None else approximate
    assert prof is not None
    ev = evaluate(tree, prof, exact=exact is not None)
    regrets = [r for r in ev.infoset_regret if r is not None and r == r]
    tol = 0 if exact is not None else 1e-9
    return {
        "max_infoset_regret": ev.max_regret,
        "positive_regret_infosets": sum(r > tol for r in regrets),
        "infoset_regret": list(ev.infoset_regret),
        "nc": ev.nash_conv if exact is not None else None,
        "x": ev.exploitability,
    }


def _optional(x: float | None) -> float:
    # None when nothing was found: ``Result``'s fields are optional, ``RefinedSolution`` declares floats
    return cast(float, x)


def _number(v):
    """An exact number for the result: a number field's element as an ``AlgebraicNumber`` (or a
    Fraction when rational), anything else as it is."""
    return v.number() if isinstance(v, FieldElement) else v


def _floats(profile: Profile) -> Profile:
    return Profile([np.array([float(v) for v in b]) for b in profile.behaviour])


def _solution(
    tree: Tree, concept: str, values: list | None, exact, guess, t0: float, **fields
) -> NPlayerRefinedSolution:
    """The result's fields every N-player refinement fills the same way: the values (None when
    nothing is certified), the measures of ``exact`` (else of the float ``guess``), the profile."""
    m = _measured(tree, exact, guess)
    return NPlayerRefinedSolution(
        game=tree.name,
        concept=concept,
        value=values[0] if values else None,
        values=values or None,
        value_float=_optional(float(values[0]) if values else None),
        nash_value=None,
        exploitability=_optional(float(m["x"]) if m["x"] is not None else None),
        nash_conv=m["nc"],
        max_infoset_regret=m["max_infoset_regret"],
        positive_regret_infosets=m["positive_regret_infosets"],
        infoset_regret=m["infoset_regret"],
        # a failed solve may have no profile at all (``Result.profile`` is optional)
        profile=cast(Profile, _floats(exact) if exact is not None else guess),
        sizes=tree.sizes(),
        seconds={"total": time.perf_counter() - t0},
        tree=tree,
        **fields,
    )


def refine_nplayer(
    tree: Tree, concept: str, eps: float | None = None, *, time_limit: float = 600.0, progress: Callable | None = None
) -> NPlayerRefinedSolution:
    """The ``concept`` ("efpe" or "qpe") refined equilibrium of ``tree`` (three or more players):
    the certified limit when ``eps`` is None, else the perturbed game's exact equilibrium at the
    rational ``eps`` (``Fraction(str(eps))``). Raises ``PerturbationError`` for an eps too large."""
    say = progress or (lambda m: None)
    t0 = time.perf_counter()
    if eps is not None:
        say(f"solving the {concept}-perturbed game exactly at eps={eps:g}")
        eq = solve_perturbed(tree, concept, Fraction(str(eps)), time_limit=time_limit)
        exact, plans = (eq.behaviour, eq.plans) if eq.certified else (None, None)
        vals = eq.values if eq.certified and eq.values is not None else None
        if eq.number_field is not None and exact is not None and plans is not None and vals is not None:
            # irrational at this eps: the numbers as users see them (algebraic), measured in floats
            return _solution(
                tree,
                concept,
                [_number(v) for v in vals],
                None,
                _floats(exact),
                t0,
                eps=float(eps),
                certified=True,
                exact_profile=None,
                exact_realization=[[_number(v) for v in x] for x in plans],
                tremble_violation=0.0,
                notes=[eq.reason],
            )
        return _solution(
            tree,
            concept,
            vals,
            exact,
            eq.approximate,
            t0,
            eps=float(eps),
            certified=eq.certified,
            exact_profile=exact,
            exact_realization=plans,
            tremble_violation=0.0 if eq.certified else None,
            notes=[eq.reason],
        )
    say(f"solving the {concept}-perturbed games exactly at several eps, then the rational limit")
    lim = limit(tree, concept, time_limit=time_limit)
    certificates = {c: f(tree, lim.family) for c, f in CERTIFY.items()} if lim.family is not None else None
    notes = [lim.reason]
    if certificates is not None:
        for c, cert in certificates.items():
            notes.append(
                f"{c} by its definition, with the family as witness: "
                + (
                    "holds"
                    if cert.holds
                    else "fails: " + (cert.reason or "at {}, {} does worse than {}".format(*cert.failures[0]))
                )
            )
    certified = lim.certified and certificates is not None and certificates[concept].holds
    last = lim.perturbed[-1] if lim.perturbed else None
    exact = lim.behaviour if lim.certified else (last.behaviour if last is not None else None)
    guess = lim.first_try.approximate if lim.first_try is not None else None
    # a failed limit reports no payoffs: the perturbed equilibrium it keeps is not the refined one
    return _solution(
        tree,
        concept,
        lim.values if lim.certified else None,
        exact,
        guess,
        t0,
        eps=None,
        certified=certified,
        exact_profile=lim.behaviour if lim.certified else None,
        exact_realization=lim.plans if lim.certified else (last.plans if last is not None else None),
        notes=notes,
        certificates=certificates,
        eps0=lim.eps0,
        limit_degree=lim.degree if lim.certified else None,
        perturbed_eps=None if lim.certified or last is None else last.eps,
    )

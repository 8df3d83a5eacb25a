"""The one result type of ``refinements``: a refined equilibrium, exact in the limit or at a fixed
eps, of a zero-sum game (the perturbed LP) or a general-sum one (the perturbed LCP)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from seqform.exact.rationals import fraction_of
from seqform.model.strategy import Profile
from seqform.model.tree import Tree
from seqform.result import Result, format_sizes, number, seconds_text, table

from .errors import RefinementError
from .tremblingbestresponse import perturbed_measures

if TYPE_CHECKING:
    from .perturbedlp import PolyLP


@dataclass(kw_only=True)
class RefinedSolution(Result):
    """A refined equilibrium. Values are player 0's.

    ``concept``: "efpe", "qpe" or "custom". ``eps``: None for the exact limit, else the tremble
    of a fixed-eps solve. Limit: ``value`` (Fraction, the game value: the limit's exact best
    responses meet) and, with ``cross_check``, ``nash_value`` (the plain LP's certified value,
    computed separately); ``certified`` when the limit profile is an exact Nash equilibrium (and
    its value the cross-check's) and every information-set regret is exactly zero;
    ``exact_profile`` (behavioural, Fractions, defined at every information set) and
    ``exact_realization`` [x, y]; ``basis_eps``: the eps at which the basis was found (and made exactly optimal)
    that was then proved optimal for all sufficiently small eps > 0.
    Fixed eps: ``value_float`` is the perturbed game's value, ``profile`` the perturbed
    equilibrium (fully mixed), ``tremble_violation`` the largest amount by which it misses a
    tremble bound (should be ~0). Both: ``max_infoset_regret``, ``positive_regret_infosets``,
    ``infoset_regret`` (per global information set), ``exploitability`` (in the unperturbed
    game), ``sizes``, ``seconds``, ``notes``.
    """

    game: str
    concept: str
    eps: float | None
    value: Fraction | None
    value_float: float
    certified: bool
    nash_value: Fraction | None
    exploitability: float
    max_infoset_regret: Fraction | float
    positive_regret_infosets: int
    infoset_regret: list
    profile: Profile
    exact_profile: Profile | None
    exact_realization: list | None
    sizes: dict
    seconds: dict
    basis_eps: Fraction | None = None
    tremble_violation: float | None = None
    notes: list = field(default_factory=list)
    tree: Tree | None = field(default=None, repr=False)
    #: the perturbed LP and, for the limit, the basis proved optimal for all small enough eps > 0
    lp: PolyLP | None = field(default=None, repr=False)
    basis: tuple | None = field(default=None, repr=False)
    #: general-sum games: both players' exact payoffs (``value`` is player 0's)
    values: list | None = None
    #: the limit's tests of each concept by its definition (``refinements.definitioncertificate``)
    certificates: dict | None = None
    #: the witness: each player's perturbed plan, coefficients of eps^k (``series[p][k][s]``)
    series: list | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # the common fields this result derives: ``method``, "trembling-lp" (the exact limit eps -> 0)
        # or "perturbed-lp" (one fixed eps), for a general-sum game "trembling-lcp" or
        # "perturbed-lcp"; ``lower`` and ``upper``, the exact value when certified (the bounds
        # meet), else None
        kind = "lcp" if self.values is not None else "lp"
        self.method = f"trembling-{kind}" if self.eps is None else f"perturbed-{kind}"
        self.lower = self.upper = self.value if self.certified else None

    def measure(self, profile: Profile) -> dict:
        """At a fixed eps: ``profile`` measured in this perturbed game against its exact value
        (``refinements.tremblingbestresponse.perturbed_measures``), as JSON-ready floats:
        ``perturbed_exploitability``, ``perturbed_value_gap``, ``perturbed_max_infoset_regret``,
        ``tremble_violation``."""
        if self.eps is None or self.lp is None or self.tree is None:
            raise RefinementError("measure needs the perturbed game at a fixed eps (refine(..., eps=E))")
        exact = all(isinstance(v, (int, Fraction)) for b in profile.behaviour for v in b)
        q = Fraction(str(self.eps))
        return perturbed_measures(
            self.tree, self.lp.pert, q if exact else self.eps, profile, fraction_of(self.value)
        ).to_json()

    def summary(self, rationals: bool = False) -> str:
        rows = [("game", self.game), ("sizes", format_sizes(self.sizes))]
        what = "extensive-form perfect" if self.concept == "efpe" else "quasi-perfect"
        if self.values is not None:  # a general-sum game: the perturbed LCP
            limit = (
                "exact limit eps -> 0"
                if self.eps is None
                else f"perturbed game at eps={self.eps:g} (exact at that eps)"
            )
            rows.append(("refinement", f"{self.concept}: {what} equilibrium, {limit} (perturbed sequence-form LCP)"))
            rows.append(("values", ", ".join(number(v, rationals, f"player {p}") for p, v in enumerate(self.values))))
            rows.append(("certificate", f"{'exact' if self.certified else 'FAILED'}: " + "; ".join(self.notes[1:])))
            rows.append(("NashConv", f"{self.exploitability:.3g}  (unperturbed game)"))
            rows.append(("seconds", seconds_text(self.seconds)))
            return table(rows)
        if self.eps is None:
            rows.append(("refinement", f"{self.concept}: {what} equilibrium, exact limit eps -> 0 (trembling LP)"))
            rows.append(("value", number(self.value, rationals, "player 0")))
            rows.append(
                (
                    "certificate",
                    "exact: Nash"
                    + (" at the value the plain LP certifies separately" if self.nash_value is not None else "")
                    + ", every information set's regret exactly zero under the limit beliefs, and "
                    f"{self.concept} by its definition"
                    if self.certified
                    else f"FAILED: {'; '.join(self.notes)}",
                )
            )
            rows.append(
                (
                    "max infoset regret",
                    f"{number(self.max_infoset_regret, rationals, digits=3)}  ({self.positive_regret_infosets} "
                    f"information sets positive)",
                )
            )
        else:
            rows.append(("refinement", f"{self.concept} perturbed game at eps={self.eps:g} (exact at that eps)"))
            # the exact value's numerator and denominator run to hundreds of digits at small eps
            rows.append(("value", number(self.value, rationals, "perturbed game, player 0")))
            rows.append(
                (
                    "certificate",
                    "exact: both trembling best responses (inside the perturbed polytopes) meet at the value"
                    if self.certified
                    else "FAILED: " + "; ".join(self.notes),
                )
            )
            rows.append(("trembles", f"every bound holds (largest shortfall {self.tremble_violation:.3g})"))
            rows.append(
                (
                    "max infoset regret",
                    f"{float(self.max_infoset_regret):.3g} in the unperturbed game "
                    f"({self.positive_regret_infosets} information sets above 1e-9)",
                )
            )
        if self.certified and self.eps is None:
            # the certificate proves an exact Nash equilibrium: its exploitability is exactly 0
            # (the float best responses' measure is rounding)
            rows.append(("exploitability", "0  (exact, unperturbed game)"))
        else:
            rows.append(("exploitability", f"{self.exploitability:.3g}  (unperturbed game)"))
        rows.append(("seconds", seconds_text(self.seconds)))
        return table(rows)

    def json_fields(self) -> dict:
        out: dict = {
            "refine": self.concept,
            "eps": self.eps,
            "nash_value": self.nash_value,
            "max_infoset_regret": self.max_infoset_regret,
            "positive_regret_infosets": self.positive_regret_infosets,
        }
        if self.basis_eps is not None:
            out["basis_eps"] = self.basis_eps
        if self.tremble_violation is not None:
            out["tremble_violation"] = self.tremble_violation
        if self.values is not None:
            out["values"] = list(self.values)
            out["values_float"] = [float(v) for v in self.values]
        if self.certificates is not None:
            out["certificates"] = {k: c.to_json() for k, c in self.certificates.items()}
        return out


__all__ = ["RefinedSolution"]

"""What column generation for the EFCE LP returns (``efce.colgen``): an exact, verified EFCE
(``ColumnGenerationResult``), or, when its clock runs out, the stop with the bounds known then
(``ColumnGenerationStopped``).

References:

- von Stengel & Forges (2008), "Extensive-Form Correlated Equilibrium: Definition and Computational Complexity",
  Mathematics of Operations Research.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from seqform.errors import SolverError
from seqform.result import Result


class ColumnGenerationStopped(SolverError):
    """Column generation reached its time limit. What was known then: ``lp_value``, the
    restricted LP's value (float; in the second phase a feasible EFCE's objective, else None);
    ``feasible``, that EFCE solved again in rationals and verified (a ``ColumnGenerationResult``
    with ``proved_optimal`` False; its exact ``objective`` is a lower bound on the optimum when
    it is ``certified``; None in the first phase); and ``upper_bound``, weak duality's least
    bound (float; from the exact pricings, or from the pricing's LP relaxation when none ran in
    the second phase): the optimum lies between them."""

    def __init__(
        self,
        message: str,
        lp_value: float | None = None,
        upper_bound: float = math.inf,
        feasible: ColumnGenerationResult | None = None,
    ):
        super().__init__(message)
        self.lp_value = lp_value
        self.upper_bound = upper_bound
        self.feasible = feasible


@dataclass(kw_only=True)
class ColumnGenerationResult(Result):
    """An exact EFCE found by column generation: ``columns`` (the profiles, rows in the models'
    layout) and ``p_exact`` (Fractions, summing to 1, on them); ``payoffs`` (exact, per player);
    ``objective`` (exact, the weights times the payoffs); ``max_regret`` (exact: the largest
    gain of a causal deviation, by the dynamic program in rationals; 0 or below means an EFCE);
    ``bound``: the optimum is at most ``objective + bound`` (weak duality, the least bound over
    the exact pricings; floats); ``iterations`` (pricing rounds), ``certified`` (the exact basis solution was
    verified)."""

    weights: list
    payoffs: list
    objective: Fraction
    max_regret: Fraction
    columns: np.ndarray = field(repr=False)
    p_exact: list = field(repr=False)
    bound: float = 0.0
    iterations: int = 0
    #: False when a pricing integer program stopped at its time limit: the EFCE is exact, but
    #: its objective may be up to ``bound`` below the optimum
    proved_optimal: bool = True
    worst_deviation: str = ""
    #: the gain every trigger's best deviation was allowed (``solve``'s eps; 0: the EFCE polytope)
    eps: Fraction = Fraction(0)
    method: str = "column generation (exact EFCE LP)"

    @property
    def support(self) -> int:
        """The number of profiles with positive probability."""
        return sum(1 for v in self.p_exact if v)

    def json_fields(self) -> dict:
        return {
            "weights": self.weights,
            "payoffs": [float(x) for x in self.payoffs],
            "payoffs_exact": [str(x) for x in self.payoffs],
            "objective": str(self.objective),
            "max_regret": float(self.max_regret),
            "max_regret_exact": str(self.max_regret),
            "worst_deviation": self.worst_deviation,
            "profiles": int(len(self.columns)),
            "support": self.support,
            "pricing_bound": self.bound,
            "proved_optimal": self.proved_optimal,
            "iterations": self.iterations,
            "eps": float(self.eps),
            "eps_exact": str(self.eps),
        }

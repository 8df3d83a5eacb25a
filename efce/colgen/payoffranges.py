"""Each player's least and greatest payoff over the EFCE polytope, exactly (or over the eps-EFCE
polytope: the ranges an iterative method's payoffs must lie in when its largest regret is at most
eps): 2N LPs by column generation sharing one pool of profiles (``efce.colgen``), over von
Stengel & Forges (2008)'s EFCE LP.

References:

- von Stengel & Forges (2008), "Extensive-Form Correlated Equilibrium: Definition and Computational Complexity",
  Mathematics of Operations Research.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from seqform.model.game import Game
from seqform.result import RATIONAL_LIMIT, Result, number, table

from .efcecolgen import EFCEColumnGeneration


@dataclass(kw_only=True)
class PayoffRanges(Result):
    """Each player's least and greatest payoff over the EFCE polytope (the eps-EFCE polytope when
    ``eps`` > 0): ``ranges`` [(min, max)] per player (exact), from 2N LPs; ``max_regret`` the
    largest exact causal-deviation gain among their optimal distributions (at most eps: all
    are eps-EFCEs); ``proved_optimal`` as in ``ColumnGenerationResult``; ``profiles`` the
    profiles in the LP."""

    ranges: list
    max_regret: Fraction | float
    profiles: int
    proved_optimal: bool = True
    eps: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        # the common field this result derives: ``certified``, every range's end is an exact
        # eps-EFCE's (its largest gain at most eps)
        self.certified = self.max_regret <= self.eps

    def json_fields(self) -> dict:
        return {
            "ranges": [[float(lo), float(hi)] for lo, hi in self.ranges],
            "ranges_exact": [[str(lo), str(hi)] for lo, hi in self.ranges],
            "max_regret": float(self.max_regret),
            "max_regret_exact": str(self.max_regret),
            "proved_optimal": self.proved_optimal,
            "profiles": self.profiles,
            "eps": float(self.eps),
            "eps_exact": str(self.eps),
        }

    def summary(self, rationals: bool = False) -> str:
        eps = str(self.eps) if len(str(self.eps)) <= RATIONAL_LIMIT else f"{float(self.eps):g}"
        poly = "EFCE polytope" if not self.eps else f"{eps}-EFCE polytope"
        rows = [("game", self.game), ("method", self.method)]
        rows += [
            (f"player {n} payoff", f"from {number(lo, rationals)} to {number(hi, rationals)} over the {poly} (exact)")
            for n, (lo, hi) in enumerate(self.ranges)
        ]
        rows.append(
            (
                "max regret",
                f"{float(self.max_regret):.6g} (exact: the largest over the 2N extreme points"
                + (f"; at most eps = {eps})" if self.eps else ")"),
            )
        )
        rows.append(("profiles", f"{self.profiles:,} in the LP"))
        rows.append(("seconds", f"{self.seconds['total']:.3f}"))
        return table(rows, min_width=17)


def payoff_ranges(
    game: Game,
    *,
    eps=0,
    engine: str | None = None,
    progress: Callable[[str], None] | None = None,
    time_limit: float | None = None,
    warm_start: float = 0.0,
    seed: int = 0,
) -> list:
    """Compute each player's least and greatest payoff over the EFCE polytope, exactly.

    2N LPs over the EFCE polytope (maximise and minimise each player's expected payoff), by
    column generation sharing one pool of profiles (``efce_column_generation``; von Stengel &
    Forges 2008, "Extensive-Form Correlated Equilibrium: Definition and Computational
    Complexity").

    Parameters
    ----------
    game : Game
        As for ``efce_column_generation``.
    eps : Fraction, int or float, default 0
        Over the eps-EFCE polytope instead: no causal deviation gains more than eps (a float is
        taken exactly). The ranges an iterative method's payoffs must lie in when its largest
        regret is at most eps.
    engine, progress, time_limit, warm_start, seed
        As for ``efce_column_generation`` (``time_limit`` applies to each LP).

    Returns
    -------
    list of tuple
        Per player, (the result that minimises its payoff, the one that maximises it): each a
        ``ColumnGenerationResult``, whose ``payoffs[n]`` is the exact bound.

    Examples
    --------
    >>> import efce
    >>> lo, hi = efce.payoff_ranges(efce.job_market())[0]
    >>> str(lo.payoffs[0]), str(hi.payoffs[0]), lo.certified and hi.certified
    ('0', '9/2', True)
    """
    cg = EFCEColumnGeneration(game, engine, progress=progress, seed=seed)
    if warm_start > 0:
        cg.warm_start(warm_start)
    out = []
    for n in range(game.num_players):
        e = np.zeros(game.num_players)
        e[n] = 1.0
        hi = cg.solve(e, eps=eps, time_limit=time_limit)
        lo = cg.solve(-e, eps=eps, time_limit=time_limit)
        out.append((lo, hi))
    return out

"""The EFPE and QPE perturbations for games of any number of players, and each sequence's lower
bound as a polynomial in eps.

The same bounds as ``refinements.perturbation`` (which builds them for two players): Selten
(1975)'s perturbation, every action played with behavioural probability at least eps wherever its
information set is reached (``x[s] >= eps x[parent(s)]``, the extensive-form perfect one; Farina &
Gatti 2017 for two players), or Miltersen & Sorensen (2010)'s ``x[s] >= eps^|s|`` (``|s|`` the
number of the player's own actions in ``s``), here for every player of the game.

A sequence is *at its bound* when ``x[s] = beta_s(eps) x[parent(s)] + lambda_s(eps)`` (one of the
two terms is zero: one kind of bound per information set), a polynomial equation in eps and the
plan that ``refinements.nplayerperturbed`` fixes on the sequences its support guess puts there.

References:

- Selten (1975), "Reexamination of the perfectness concept for equilibrium points in extensive games", International
  Journal of Game Theory.
- Miltersen & Sorensen (2010), "Computing a Quasi-Perfect Equilibrium of a Two-Player Game", Economic Theory.
"""

from __future__ import annotations

from fractions import Fraction

import flint

from seqform.model.tree import Tree

from .errors import PerturbationError
from .perturbation import Perturbation, sequence_depths

#: the concepts this module perturbs for
CONCEPTS = ("efpe", "qpe")


def perturbation(tree: Tree, concept: str) -> Perturbation:
    """The ``concept`` ("efpe" or "qpe") perturbation of every player of ``tree``: a
    ``Perturbation`` whose ``behavioural`` and ``realization`` lists have one entry per player."""
    N = tree.num_players
    if concept == "efpe":
        beh = [{1: [Fraction(int(s > 0)) for s in range(tree.num_sequences[p])]} for p in range(N)]
        return Perturbation("efpe", beh, [{} for _ in range(N)])
    if concept == "qpe":
        real = []
        for p in range(N):
            d = sequence_depths(tree, p)
            top = int(d.max()) if len(d) else 0
            real.append({k: [Fraction(int(v == k)) for v in d] for k in range(1, top + 1)})
        return Perturbation("qpe", [{} for _ in range(N)], real)
    raise PerturbationError(f"unknown refinement {concept!r}; choose one of {', '.join(CONCEPTS)}")


def bound_polys(pert: Perturbation, p: int, n: int) -> tuple[list, list]:
    """Player p's bounds as polynomials in eps (``flint.fmpq_poly``, one per sequence of the
    ``n``): ``(beta, lam)``, so that ``s`` is at its bound when ``x[s] = beta[s] x[parent(s)] + lam[s]``."""

    def polys(poly: dict) -> list:
        out = []
        for s in range(n):
            top = max(poly, default=0)
            coeffs = [0] * (top + 1)
            for k, v in poly.items():
                coeffs[k] = v[s]
            out.append(flint.fmpq_poly([flint.fmpq(c.numerator, c.denominator) for c in map(Fraction, coeffs)]))
        return out

    return polys(pert.behavioural[p]), polys(pert.realization[p])


def check(tree: Tree, pert: Perturbation, eps: Fraction) -> None:
    """``PerturbationError`` unless ``0 < eps`` and every player has a plan meeting the bounds at
    ``eps`` with each sequence's realization bound at least the sum of those of the actions of each
    information set right after it (so that a sequence at its bound leaves its subtree a plan)."""
    if not eps > 0:
        raise PerturbationError(f"eps must be positive, got {eps}")
    for p in range(tree.num_players):
        beta, lam = (pert.bounds(tree, p, eps)[k] for k in (0, 1))
        for i in tree.player_infosets[p].tolist():
            f, k, ps = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i]), int(tree.infoset_parent_seq[i])
            b_sum, l_sum = sum(beta[f : f + k]), sum(lam[f : f + k])
            if b_sum and l_sum:
                raise PerturbationError(f"{tree.infoset_label(i)} has both behavioural and realization lower bounds")
            if b_sum >= 1:
                raise PerturbationError(
                    f"eps={eps} is too large: the behavioural lower bounds at {tree.infoset_label(i)} sum to "
                    f"{b_sum} >= 1 (with {k} actions, eps must be below 1/{k})"
                )
            top = lam[ps] if ps else Fraction(1)
            if l_sum and l_sum >= top:
                raise PerturbationError(
                    f"eps={eps} is too large: the realization bounds after {tree.infoset_label(i)} sum to "
                    f"{l_sum} >= {top}, the bound of the sequence before it"
                )

"""Nash equilibria of two-player general-sum games: the sequence-form LCP, solved exactly.

Koller, Megiddo & von Stengel (1996): ``x`` (player 0's realization plan, ``E x = e``) and ``y``
(player 1's, ``F y = f``) are an equilibrium exactly when, for some free ``p`` and ``q``,

    E^T p - A y >= 0  complementary to  x >= 0,
    F^T q - B^T y >= 0 complementary to  y >= 0,

with ``A`` (``B``) player 0's (1's) sequence-form payoff matrix: ``A[s, t]`` sums chance(z) u_0(z)
over the leaves z whose sequences are (s, t). Every payoff is first lowered by a constant so
that the largest is -1 (a constant shift changes no best response: every pair of plans reaches
the leaves with total probability 1), which makes ``A`` and ``B`` nonpositive.

Covering vector (von Stengel, van den Elzen & Talman 2002, "Computing normal form perfect
equilibria for extensive two-person games", Econometrica): a completely mixed prior ``(xbar,
ybar)`` (random rational behaviour strategies, ``seed``) and the artificial ``z0`` enter as

    E^T p - A (y + z0 ybar) >= 0 _|_ x,    F^T q - B^T (x + z0 xbar) >= 0 _|_ y,

so that for large ``z0`` each player best-responds to the other's prior: the starting basis is
the pure best responses to the priors (``x`` and ``y`` basic on the chosen sequences, at every
information set, reached or not, which keeps the basis nonsingular), the slacks of the other
sequences, and the free ``p``, ``q``. Lemke's algorithm (``seqform.exact.lemke``) then lowers
``z0`` to 0 along a unique path. Should the start not be feasible (a best response to the prior
that is not unique), another prior is drawn.

The equilibrium is exact: rational realization plans read off the final basis; ``solve`` then
certifies it by exact best responses (``seqform.verify.evaluate``), which must gain exactly 0
for both players.

References:

- Koller, Megiddo & von Stengel (1996), "Efficient computation of equilibria for extensive two-person games", Games and Economic Behavior.
- von Stengel (1996), "Efficient computation of behavior strategies", Games and Economic Behavior.
- von Stengel, van den Elzen & Talman (2002), "Computing normal form perfect equilibria for extensive two-person games", Econometrica.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np

from seqform.errors import SolverError, UnsupportedGameError
from seqform.exact.exactbestresponse import exact_backward_pass
from seqform.exact.lemke import lemke
from seqform.exact.rationals import fmpq_of
from seqform.lp.sequenceform import constraint_matrix, exact_payoff_entries
from seqform.model.limits import check_lcp, memory_limit
from seqform.model.strategy import realization_plan_exact
from seqform.model.tree import Tree


@dataclass
class LCPEquilibrium:
    """``plans``: the two exact realization plans (lists of Fractions); ``pivots``: Lemke's
    complementary pivots; ``setup_pivots``; ``size``: (rows, variables) of the LCP; ``seed``:
    the prior's."""

    plans: list
    pivots: int
    setup_pivots: int
    size: tuple
    seed: int


def _lowered_payoffs(tree: Tree, p: int) -> dict:
    """Player ``p``'s sequence-form payoff matrix (``seqform.lp.sequenceform.exact_payoff_entries``)
    with every payoff lowered so that the largest is -1."""
    return exact_payoff_entries(tree, p, max(Fraction(v[p]) for v in tree.payoff_exact) + 1)


def _prior(tree: Tree, p: int, rng: random.Random) -> list:
    """A completely mixed behaviour strategy with random small-integer weights, as a realization plan."""
    b = [1] * tree.num_sequences[p]
    for I in tree.player_infosets[p]:
        f, k = int(tree.infoset_first_seq[I]), int(tree.infoset_num_actions[I])
        w = [rng.randint(1, 9) for _ in range(k)]
        b[f:f + k] = [Fraction(v, sum(w)) for v in w]
    return realization_plan_exact(tree, p, b)


def _pure_best_response(tree: Tree, p: int, c: list) -> list:
    """Player ``p``'s pure best response to sequence payoffs ``c`` (per sequence): the empty
    sequence and the chosen sequence at every information set, reached or not (ties: the first
    action; ``seqform.exact.exactbestresponse``)."""
    choice = exact_backward_pass(tree, p, [fmpq_of(v) for v in c]).choice
    return [0] + [choice[int(I)] for I in tree.player_infosets[p]]


def _lcm_denominator(values) -> int:
    den = 1
    for v in values:
        den = math.lcm(den, Fraction(v).denominator)
    return den


def solve_lcp(tree: Tree, *, seed: int = 0, attempts: int = 5, memory_limit_bytes: int | None = None,
              progress: Callable[[str], None] | None = None) -> LCPEquilibrium:
    """An exact Nash equilibrium of a two-player game (module docstring).

    Parameters
    ----------
    tree : Tree
        A two-player game with perfect recall (chance allowed).
    seed : int
        The random prior's seed; ``attempts`` priors are tried should a start be infeasible.
    memory_limit_bytes : int, optional
        Refuse (``TooLargeError``) an LCP whose dense tableau would need more
        (default: ``seqform.model.limits.memory_limit()``).

    Returns
    -------
    LCPEquilibrium
    """
    say = progress or (lambda msg: None)
    if tree.num_players != 2:
        raise UnsupportedGameError(f"{tree.name!r} has {tree.num_players} players; the sequence-form LCP is for "
                                   f"two-player games")
    n0, n1 = tree.num_sequences
    (E, _), (F, _) = constraint_matrix(tree, 0), constraint_matrix(tree, 1)
    m0, m1 = E.shape[0], F.shape[0]
    A, B = _lowered_payoffs(tree, 0), _lowered_payoffs(tree, 1)
    # variables: w_x, w_y, x, y, p, q, z0
    WX, WY, X, Y, P, Q = 0, n0, n0 + n1, 2 * n0 + n1, 2 * n0 + 2 * n1, 2 * n0 + 2 * n1 + m0
    Z0 = Q + m1
    V, N = Z0 + 1, n0 + n1 + m0 + m1
    check_lcp(tree.name, N, V, memory_limit_bytes if memory_limit_bytes is not None else memory_limit())
    # the equations in integers, all but the covering column (the prior's):
    #   x rows  w_x - E^T p + A y + (A ybar) z0 = 0;   y rows  w_y - F^T q + B^T x + (B^T xbar) z0 = 0;
    #   E x = e;   F y = f.
    # The slacks' and the constraints' coefficients stay 1 and +-1, so that the start is reached by
    # +-1 pivots; each player's payoffs are multiplied by one common denominator (a positive scale
    # changes no best response)
    G = np.zeros((N, V), dtype=object)
    hv = np.zeros(N, dtype=object)
    G[np.arange(n0 + n1), np.arange(n0 + n1)] = 1
    # per player: its constraint matrix, the first row of its constraints, of its slack rows, its
    # plan's first column and its dual variables' first column
    for C, con, slack, plan, dual in ((E.tocoo(), n0 + n1, 0, X, P), (F.tocoo(), n0 + n1 + m0, n0, Y, Q)):
        for j, s, coef in zip(C.row.tolist(), C.col.tolist(), C.data.tolist()):
            G[con + j, plan + s] = int(coef)        # E x = e
            G[slack + s, dual + j] = -int(coef)     # -E^T p in the slack rows
    hv[n0 + n1] = hv[n0 + n1 + m0] = 1
    da, db = _lcm_denominator(A.values()), _lcm_denominator(B.values())
    for (s, t), a in A.items():
        G[s, Y + t] = int(a * da)
    for (s, t), b in B.items():
        G[n0 + t, X + s] = int(b * db)
    complement = {}
    for s in range(n0):
        complement[X + s], complement[WX + s] = WX + s, X + s
    for t in range(n1):
        complement[Y + t], complement[WY + t] = WY + t, Y + t
    free = set(range(P, Z0))
    last_error = None
    for attempt in range(attempts):
        rng = random.Random(seed + attempt)
        xbar, ybar = _prior(tree, 0, rng), _prior(tree, 1, rng)
        cov_x, cov_y = [Fraction(0)] * n0, [Fraction(0)] * n1
        for (s, t), a in A.items():
            cov_x[s] += a * ybar[t]
        for (s, t), b in B.items():
            cov_y[t] += b * xbar[s]
        # the covering column times its own common denominator (z0 is only a path parameter)
        dz = _lcm_denominator(cov_x + cov_y)
        G[:n0 + n1, Z0] = [int(v * dz) for v in cov_x + cov_y]
        # the start: pure best responses to the priors, at every information set
        bx = _pure_best_response(tree, 0, cov_x)
        by = _pure_best_response(tree, 1, cov_y)
        sx, sy = set(bx), set(by)
        # slacks first (unit columns, in their own rows: no arithmetic), then the plans, then p, q
        start = [WX + s for s in range(n0) if s not in sx] + [WY + t for t in range(n1) if t not in sy]
        start += [X + s for s in bx] + [Y + t for t in by]
        start += [P + j for j in range(m0)] + [Q + k for k in range(m1)]
        say(f"Lemke on the sequence-form LCP: {N:,} equations, {V:,} variables (prior seed {seed + attempt})")
        try:
            res = lemke(G, hv, complement, free, Z0, start, progress=say)
        except SolverError as e:
            if "starting basis" not in str(e):
                raise
            last_error = e
            continue
        x = res.values[X:X + n0]
        y = res.values[Y:Y + n1]
        return LCPEquilibrium([x, y], res.pivots, res.setup_pivots, (N, V), seed + attempt)
    raise SolverError(f"the sequence-form LCP of {tree.name!r}: no feasible start in {attempts} priors "
                      f"({last_error})")


__all__ = ["solve_lcp", "LCPEquilibrium"]

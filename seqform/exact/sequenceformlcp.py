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
from seqform.exact.lemke import lemke
from seqform.model.limits import check_lcp, memory_limit
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


def _constraints(tree: Tree, p: int) -> list:
    """Rows of E (player ``p``): row 0 is x[0] = 1; row 1 + k is, for the k-th information set
    I of p, sum_a x[first(I) + a] - x[parent(I)] = 0. Each row a list of (sequence, coefficient)."""
    rows = [[(0, 1)]]
    for I in tree.player_infosets[p]:
        f, k = int(tree.infoset_first_seq[I]), int(tree.infoset_num_actions[I])
        rows.append([(f + a, 1) for a in range(k)] + [(int(tree.infoset_parent_seq[I]), -1)])
    return rows


def _payoff_matrices(tree: Tree) -> tuple:
    """Sequence-form payoff matrices (dicts (s, t) -> Fraction) of both players, each payoff
    lowered so that the largest is -1."""
    t = tree.terminals
    pay = [[Fraction(v[i]) for v in tree.payoff_exact] for i in (0, 1)]
    shift = [max(pay[i]) + 1 for i in (0, 1)]
    mats = [{}, {}]
    for j, node in enumerate(t):
        key = (int(tree.node_seq[0, node]), int(tree.node_seq[1, node]))
        c = Fraction(tree.terminal_chance_exact[j])
        for i in (0, 1):
            mats[i][key] = mats[i].get(key, Fraction(0)) + c * (pay[i][j] - shift[i])
    return mats


def _prior(tree: Tree, p: int, rng: random.Random) -> list:
    """A completely mixed behaviour strategy with random small-integer weights, as a realization plan."""
    x = [Fraction(0)] * tree.num_sequences[p]
    x[0] = Fraction(1)
    b = [Fraction(0)] * tree.num_sequences[p]
    for I in tree.player_infosets[p]:
        f, k = int(tree.infoset_first_seq[I]), int(tree.infoset_num_actions[I])
        w = [rng.randint(1, 9) for _ in range(k)]
        for a in range(k):
            b[f + a] = Fraction(w[a], sum(w))
    for I in sorted(tree.player_infosets[p], key=lambda J: int(tree.infoset_first_seq[J])):
        f, k = int(tree.infoset_first_seq[I]), int(tree.infoset_num_actions[I])
        par = int(tree.infoset_parent_seq[I])
        for a in range(k):
            x[f + a] = x[par] * b[f + a]
    return x


def _pure_best_response(tree: Tree, p: int, c: list) -> list:
    """Player ``p``'s pure best response to sequence payoffs ``c`` (Fractions, per sequence): the
    chosen sequence at every information set, reached or not, highest value first (ties: the
    first action)."""
    infos = list(tree.player_infosets[p])
    seq_infoset = tree.seq_infoset[p]
    depth = {}

    def d(I):
        if I not in depth:
            par = int(tree.infoset_parent_seq[I])
            depth[I] = 0 if par == 0 else d(int(seq_infoset[par])) + 1
        return depth[I]
    for I in infos:
        d(I)
    value = list(c)
    chosen = {}
    for I in sorted(infos, key=lambda J: -depth[J]):
        f, k = int(tree.infoset_first_seq[I]), int(tree.infoset_num_actions[I])
        best = max(range(k), key=lambda a: (value[f + a], -a))
        chosen[I] = f + best
        value[int(tree.infoset_parent_seq[I])] += value[f + best]
    return [0] + [chosen[I] for I in infos]


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
    E, F = _constraints(tree, 0), _constraints(tree, 1)
    m0, m1 = len(E), len(F)
    A, B = _payoff_matrices(tree)
    # variables: w_x, w_y, x, y, p, q, z0
    WX, WY, X, Y, P, Q = 0, n0, n0 + n1, 2 * n0 + n1, 2 * n0 + 2 * n1, 2 * n0 + 2 * n1 + m0
    Z0 = Q + m1
    V, N = Z0 + 1, n0 + n1 + m0 + m1
    check_lcp(tree.name, N, V, memory_limit_bytes if memory_limit_bytes is not None else memory_limit())
    last_error = None
    for attempt in range(attempts):
        rng = random.Random(seed + attempt)
        xbar, ybar = _prior(tree, 0, rng), _prior(tree, 1, rng)
        rows = [dict() for _ in range(N)]
        h = [Fraction(0)] * N
        for s in range(n0):
            rows[s][WX + s] = Fraction(1)
        for t in range(n1):
            rows[n0 + t][WY + t] = Fraction(1)
        for j, row in enumerate(E):  # E x = e, and -E^T p in the x rows
            for s, coef in row:
                rows[n0 + n1 + j][X + s] = rows[n0 + n1 + j].get(X + s, 0) + coef
                rows[s][P + j] = rows[s].get(P + j, 0) - coef
        h[n0 + n1] = Fraction(1)
        for k, row in enumerate(F):
            for t, coef in row:
                rows[n0 + n1 + m0 + k][Y + t] = rows[n0 + n1 + m0 + k].get(Y + t, 0) + coef
                rows[n0 + t][Q + k] = rows[n0 + t].get(Q + k, 0) - coef
        h[n0 + n1 + m0] = Fraction(1)
        cov_x, cov_y = [Fraction(0)] * n0, [Fraction(0)] * n1
        for (s, t), a in A.items():  # + A y + (A ybar) z0 in x's rows
            rows[s][Y + t] = rows[s].get(Y + t, 0) + a
            cov_x[s] += a * ybar[t]
        for (s, t), b in B.items():  # + B^T x + (B^T xbar) z0 in y's rows
            rows[n0 + t][X + s] = rows[n0 + t].get(X + s, 0) + b
            cov_y[t] += b * xbar[s]
        for s in range(n0):
            if cov_x[s]:
                rows[s][Z0] = cov_x[s]
        for t in range(n1):
            if cov_y[t]:
                rows[n0 + t][Z0] = cov_y[t]
        # integers, keeping the slacks' and the constraints' coefficients 1 and +-1 (so that the
        # start is reached by +-1 pivots): each player's payoffs times one common denominator (a
        # positive scale changes no best response), the covering column times its own (z0 is
        # only a path parameter)
        G = np.zeros((N, V), dtype=object)
        hv = np.zeros(N, dtype=object)
        scale = {}
        for name, cols in (("A", range(Y, Y + n1)), ("B", range(X, X + n0))):
            den = 1
            rng_rows = range(n0) if name == "A" else range(n0, n0 + n1)
            for i in rng_rows:
                for col in cols:
                    v = rows[i].get(col)
                    if v is not None:
                        den = math.lcm(den, Fraction(v).denominator)
            scale[name] = den
        zden = 1
        for i in range(N):
            v = rows[i].get(Z0)
            if v is not None:
                zden = math.lcm(zden, Fraction(v).denominator)
        for i, row in enumerate(rows):
            for col, v in row.items():
                if col == Z0:
                    f = zden
                elif i < n0 and Y <= col < Y + n1:
                    f = scale["A"]
                elif n0 <= i < n0 + n1 and X <= col < X + n0:
                    f = scale["B"]
                else:
                    f = 1
                G[i, col] = int(Fraction(v) * f)
            hv[i] = int(h[i])
        # the start: pure best responses to the priors, at every information set
        bx = _pure_best_response(tree, 0, cov_x)
        by = _pure_best_response(tree, 1, cov_y)
        sx, sy = set(bx), set(by)
        # slacks first (unit columns, in their own rows: no arithmetic), then the plans, then p, q
        start = [WX + s for s in range(n0) if s not in sx] + [WY + t for t in range(n1) if t not in sy]
        start += [X + s for s in bx] + [Y + t for t in by]
        start += [P + j for j in range(m0)] + [Q + k for k in range(m1)]
        complement = {}
        for s in range(n0):
            complement[X + s], complement[WX + s] = WX + s, X + s
        for t in range(n1):
            complement[Y + t], complement[WY + t] = WY + t, Y + t
        free = set(range(P, Z0))
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

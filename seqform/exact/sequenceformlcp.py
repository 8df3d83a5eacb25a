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

The path is followed in floating point (``seqform.exact.lemkepath``) and its final basis solved
in exact rationals (``seqform.exact.sparselu``), every sign checked; should rounding lead it
astray, another prior is tried, and a final basis that fails its check is redone by integer
pivoting (``seqform.exact.lemke``). The equilibrium is exact either way: rational realization
plans read off the final basis; ``seqform.solve`` then certifies it by exact best responses
(``seqform.verify.evaluate``), which must gain exactly 0 for both players.

Perturbed games (``bounds``): lower bounds ``x[s] >= beta_s x[parent(s)]`` (behavioural) and
``x[s] >= l_s`` (realization) are written ``x = M (l + x')`` with ``x' >= 0`` (``M`` lower
triangular, the products of the betas along the path), and the LCP is the same in ``x'`` with
``A~ = M0^T A M1``, ``E~ = E M0`` and a right-hand side carrying ``l``. With a symbolic eps,
realization bounds put eps only in the right-hand side (one column per power, compared
lexicographically: the path for every small eps at once); behavioural bounds put it in the
matrix, pivoted over ``Z[eps]`` (``seqform.exact.epspoly``).

References:

- Koller, Megiddo & von Stengel (1996), "Efficient computation of equilibria for extensive two-person games", Games and
  Economic Behavior.
- von Stengel (1996), "Efficient computation of behavior strategies", Games and Economic Behavior.
- von Stengel, van den Elzen & Talman (2002), "Computing normal form perfect equilibria for extensive two-person games",
  Econometrica.
- Miltersen & Sorensen (2010), "Computing a Quasi-Perfect Equilibrium of a Two-Player Game", Economic Theory.
- Farina & Gatti (2017), "Extensive-Form Perfect Equilibrium Computation in Two-Player Games", AAAI.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import scipy.sparse as sp

from seqform.errors import CertificateError, SolverError, UnsupportedGameError
from seqform.exact.epspoly import EpsPoly
from seqform.exact.exactbestresponse import exact_backward_pass
from seqform.exact.lemke import lemke
from seqform.exact.lemkepath import lemke_path
from seqform.exact.rationals import fmpq_of, fraction_of
from seqform.exact.sparselu import SparseLU, TooLarge
from seqform.lp.sequenceform import constraint_matrix, exact_payoff_entries
from seqform.model.limits import TooLargeError, check_lcp, memory_limit
from seqform.model.strategy import realization_plan_exact
from seqform.model.tree import Tree

#: the most entries a tableau over Z[eps] may have (symbolic behavioural trembles): its pivots are
#: Python-level polynomial arithmetic, about a million entry updates a second
POLYNOMIAL_TABLEAU_LIMIT = 400_000


@dataclass
class LCPEquilibrium:
    """``plans``: the two exact realization plans (lists of Fractions): the equilibrium, or with
    symbolic lower bounds its limit as eps -> 0; ``series``: with symbolic lower bounds, each
    player's plan as a polynomial in eps, ``series[p][k]`` the coefficients of ``eps^k`` (an exact
    equilibrium of the perturbed game for every small enough eps > 0), else None; ``pivots``:
    Lemke's complementary pivots; ``setup_pivots``; ``size``: (rows, variables) of the LCP;
    ``seed``: the prior's; ``path``: "floating point" (the path followed in floats, its final
    basis solved and checked exactly) or "exact" (integer pivoting all along)."""

    plans: list
    pivots: int
    setup_pivots: int
    size: tuple
    seed: int
    path: str = "exact"
    series: list | None = None


@dataclass
class _LCP:
    """The sequence-form LCP ``G v = H`` without its covering column: ``entries`` ``{(row, col):
    int or EpsPoly}``; ``H[k]`` the right-hand side's column k (already multiplied by
    ``hscale[k]``); the layout of the variables (``seqform.exact.lemke``'s conventions); ``M``:
    each player's plan in terms of the LCP's variables (``x = M (l + x')``, ``M[s] = {t: coef}``);
    ``low``: each player's realization lower bounds ``l``; ``cover``: per player, the coefficients
    of the covering vector's terms (``{s': [(s, t, coef)]}``)."""

    N: int
    V: int
    entries: dict
    H: list
    hscale: list
    complement: dict
    free: set
    n: tuple
    m: tuple
    X: int
    Y: int
    P: int
    Q: int
    Z0: int
    A: dict
    B: dict
    M: list
    low: list
    beta: list
    symbolic: bool

    @property
    def polynomial(self) -> bool:
        """Whether the matrix itself depends on a symbolic eps (behavioural bounds)."""
        return self.symbolic and any(b is not None for b in self.beta)


def _lowered_payoffs(tree: Tree, p: int) -> dict:
    """Player ``p``'s sequence-form payoff matrix (``seqform.lp.sequenceform.exact_payoff_entries``)
    with every payoff lowered so that the largest is -1."""
    return exact_payoff_entries(tree, p, max(Fraction(v[p]) for v in tree.payoff_exact) + 1)


def _prior(tree: Tree, p: int, rng: random.Random) -> list:
    """A completely mixed behaviour strategy with random small-integer weights, as a realization plan."""
    b: list[int | Fraction] = [1] * tree.num_sequences[p]
    for I in tree.player_infosets[p]:
        f, k = int(tree.infoset_first_seq[I]), int(tree.infoset_num_actions[I])
        w = [rng.randint(1, 9) for _ in range(k)]
        b[f : f + k] = [Fraction(v, sum(w)) for v in w]
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


def _sign(v) -> int:
    """The sign of a Fraction, or of a polynomial in eps (``fmpq_poly``) for small eps > 0."""
    if isinstance(v, Fraction):
        return (v > 0) - (v < 0)
    for c in v.coeffs():
        if c:
            return 1 if c > 0 else -1
    return 0


def _poly_values(poly: dict | None, n: int, eps):
    """A bound ``{power: [Fraction] * n}`` as one value per sequence: Fractions at a rational ``eps``,
    ``fmpq_poly`` for a symbolic one (``eps`` None); None for no bound."""
    if not poly:
        return None
    if eps is not None:
        return [sum((Fraction(c[s]) * eps**k for k, c in poly.items()), Fraction(0)) for s in range(n)]
    top = max(poly)
    return [flint.fmpq_poly([fmpq_of(poly[k][s]) if k in poly else 0 for k in range(top + 1)]) for s in range(n)]


def _parents(tree: Tree, p: int) -> list:
    """Each of player p's sequences' parent sequence (-1 for the empty sequence)."""
    par = [-1] * tree.num_sequences[p]
    for I in tree.player_infosets[p].tolist():
        f, k, ps = int(tree.infoset_first_seq[I]), int(tree.infoset_num_actions[I]), int(tree.infoset_parent_seq[I])
        par[f : f + k] = [ps] * k
    return par


def _expansion(tree: Tree, p: int, beta, one) -> list:
    """``x = M (l + x')`` for behavioural bounds ``x[s] = beta_s x[parent(s)] + l_s + x'_s``:
    ``M[s] = {t: coef}`` over ``s``'s ancestors ``t`` (and ``s``), ``coef`` the product of the
    betas from ``t`` (exclusive) down to ``s``. Without behavioural bounds ``M`` is the identity."""
    n = tree.num_sequences[p]
    if beta is None:
        return [{s: one} for s in range(n)]
    par = _parents(tree, p)
    M: list = [None] * n
    for s in range(n):
        M[s] = {s: one}
        if par[s] >= 0 and _sign(beta[s]):
            assert par[s] < s  # discovery order numbers a sequence after its parent
            for t, c in M[par[s]].items():
                M[s][t] = c * beta[s]
    return M


def _expanded(P: dict, M0: list, M1: list, zero) -> dict:
    """``M0^T P M1`` for a sparse ``P`` ``{(s, t): Fraction}``."""
    out: dict = {}
    for (s, t), a in P.items():
        for s2, c0 in M0[s].items():
            ca = c0 * a
            for t2, c1 in M1[t].items():
                out[s2, t2] = out.get((s2, t2), zero) + ca * c1
    return {k: v for k, v in out.items() if _sign(v)}


def _integers(values: list, polynomial: bool) -> tuple:
    """Values (Fractions or ``fmpq_poly``) times their least common denominator: (ints or
    ``EpsPoly``, the multiplier)."""
    if not polynomial:
        c = _lcm_denominator(values)
        return [int(v * c) for v in values], c
    c = 1
    for v in values:
        for q in v.coeffs():
            c = math.lcm(c, int(q.q))
    return [EpsPoly(flint.fmpz_poly([int((q * c).p) for q in v.coeffs()])) for v in values], c


def _build(tree: Tree, bounds: list | None, eps) -> _LCP:
    """The sequence-form LCP in integers (module docstring). ``bounds``: per player ``(behavioural,
    realization)``, each ``{power: [Fraction] * n_p}`` or None: the plans are ``x[s] = beta_s
    x[parent(s)] + l_s + x'_s`` with ``x' >= 0`` (Farina & Gatti 2017's behavioural trembles,
    Miltersen & Sorensen 2010's realization ones) and the LCP is in ``x'``. ``eps``: a rational
    tremble, or None for a symbolic one."""
    n0, n1 = tree.num_sequences
    (E, _), (F, _) = constraint_matrix(tree, 0), constraint_matrix(tree, 1)
    m0, m1 = E.shape[0], F.shape[0]
    A, B = _lowered_payoffs(tree, 0), _lowered_payoffs(tree, 1)
    symbolic = eps is None and bounds is not None
    eps = None if eps is None else Fraction(eps)
    bounds = bounds or [(None, None), (None, None)]
    beta = [_poly_values(bounds[p][0], tree.num_sequences[p], eps) for p in range(2)]
    lam = [_poly_values(bounds[p][1], tree.num_sequences[p], eps) for p in range(2)]
    polynomial = symbolic and any(b is not None for b in beta)
    # matrix entries: Fractions, or fmpq_poly when behavioural bounds are symbolic; right-hand
    # sides: fmpq_poly whenever eps is symbolic
    one = flint.fmpq_poly([1]) if polynomial else Fraction(1)
    zero = flint.fmpq_poly([]) if polynomial else Fraction(0)
    hz = flint.fmpq_poly([]) if symbolic else Fraction(0)
    q = fmpq_of if symbolic else (lambda v: v)  # Fractions meet polynomials as fmpq
    if polynomial:
        A, B = {k: fmpq_of(v) for k, v in A.items()}, {k: fmpq_of(v) for k, v in B.items()}
    M = [_expansion(tree, p, beta[p], one) for p in range(2)]
    At, Bt = _expanded(A, M[0], M[1], zero), _expanded(B, M[0], M[1], zero)
    # variables: w_x, w_y, x', y', p, q, z0
    WX, WY, X, Y, P, Q = 0, n0, n0 + n1, 2 * n0 + n1, 2 * n0 + 2 * n1, 2 * n0 + 2 * n1 + m0
    Z0 = Q + m1
    V, N = Z0 + 1, n0 + n1 + m0 + m1
    # the equations, all but the covering column (the prior's):
    #   x rows  w_x - E~^T p + A~ y' + (cover) z0 = -A~ l_y;   y rows  likewise;
    #   E~ x' = e - E M0 l_x  (E~ = E M0);   F~ y' = f - F M1 l_y.
    # The slacks' coefficients stay 1 and the unperturbed constraints' +-1, so that the start is
    # reached by +-1 pivots; each player's payoffs are multiplied by one common multiplier (a
    # positive scale changes no best response), each constraint row by its own (the same row in
    # the duals' columns: the dual variable absorbs it)
    entries: dict = {}
    for i in range(n0 + n1):
        entries[i, i] = 1
    h: list = [hz] * N
    for C, con, slack, plan, dual, Mp, lp_, e_rows in (
        (E.tocoo(), n0 + n1, 0, X, P, M[0], lam[0], m0),
        (F.tocoo(), n0 + n1 + m0, n0, Y, Q, M[1], lam[1], m1),
    ):
        rows: list = [dict() for _ in range(e_rows)]
        rhs = [hz] * e_rows
        rhs[0] = hz + 1
        for j, s_, coef in zip(C.row.tolist(), C.col.tolist(), C.data.tolist()):
            for t, c in Mp[s_].items():
                rows[j][t] = rows[j].get(t, zero) + int(coef) * c
                if lp_ is not None:
                    rhs[j] -= int(coef) * q(c) * lp_[t]
        for j in range(e_rows):
            keys = [t for t, v in rows[j].items() if _sign(v)]
            ints, c = _integers([rows[j][t] for t in keys], polynomial)
            for t, v in zip(keys, ints):
                entries[con + j, plan + t] = v  # E~ x' = e~
                entries[slack + t, dual + j] = -v  # -E~^T p in the slack rows
            h[con + j] = rhs[j] * c
    for Pt, rows_at, cols_at, lam_other, transpose in ((At, 0, Y, lam[1], False), (Bt, n0, X, lam[0], True)):
        keys = list(Pt)
        ints, c = _integers([Pt[k] for k in keys], polynomial)
        for (s_, t), v, val in zip(keys, ints, (Pt[k] for k in keys)):
            row, col = (rows_at + t, cols_at + s_) if transpose else (rows_at + s_, cols_at + t)
            entries[row, col] = v
            if lam_other is not None:
                h[row] -= q(val * c) * lam_other[s_ if transpose else t]
    # the right-hand side in integers: one column per power of a symbolic eps when only it
    # depends on eps, a single column otherwise
    if polynomial:
        col, c = _integers(h, True)
        H, hscale = [col], [c]
    elif symbolic:
        top = max(max(v.degree() for v in h), 0)
        H, hscale = [], []
        for k in range(top + 1):
            colk = [fraction_of(v[k]) if k <= v.degree() else Fraction(0) for v in h]
            ints, c = _integers(colk, False)
            H.append(ints)
            hscale.append(c)
    else:
        ints, c = _integers(h, False)
        H, hscale = [ints], [c]
    complement = {}
    for s_ in range(n0):
        complement[X + s_], complement[WX + s_] = WX + s_, X + s_
    for t in range(n1):
        complement[Y + t], complement[WY + t] = WY + t, Y + t
    return _LCP(
        N,
        V,
        entries,
        H,
        hscale,
        complement,
        set(range(P, Z0)),
        (n0, n1),
        (m0, m1),
        X,
        Y,
        P,
        Q,
        Z0,
        A,
        B,
        M,
        lam,
        beta,
        symbolic,
    )


def _perturbed_best_response(tree: Tree, p: int, a: list, beta) -> list:
    """Player p's pure best response in ``x'`` (module docstring) to direct payoffs ``a`` per
    sequence (the leaves right below it, against the opponent's prior; not expanded by ``M``).
    A unit of ``x'_s`` is a unit of ``x_s``, worth

        W(s) = a[s] + sum_J [ sum_b beta[Jb] W(Jb) + (1 - sum_b beta[Jb]) max_b W(Jb) ]

    over the information sets J right below s: the trembles' forced share of each action of J,
    and the free rest on J's best action. The forced share carries its own free mass further
    down, so W(Jb) and not the expanded payoff ``(M^T a)[Jb]`` is its worth. Chosen: the first
    best action at every information set (values compared for small eps when symbolic)."""
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    below = [None] * tree.num_sequences[p]
    choice = {}
    for i in reversed(tree.player_infosets[p].tolist()):
        f, k = int(first[i]), int(nact[i])
        vals = [a[s_] + below[s_] if below[s_] is not None else a[s_] for s_ in range(f, f + k)]
        best = 0
        for b in range(1, k):
            if _sign(vals[b] - vals[best]) > 0:
                best = b
        choice[i] = f + best
        if beta is not None:
            forced = sum((beta[f + b] * vals[b] for b in range(k)), 0 * vals[0])
            free = 1 - sum((beta[s_] for s_ in range(f, f + k)), 0 * vals[0])
            add = forced + free * vals[best]
        else:
            add = vals[best]
        ps = int(pseq[i])
        below[ps] = add if below[ps] is None else below[ps] + add
    return [0] + [choice[int(I)] for I in tree.player_infosets[p]]


def _covering(tree: Tree, lcp: _LCP, rng: random.Random) -> tuple:
    """The covering column from random completely mixed priors (module docstring) and the
    starting basis: ``({row: int or EpsPoly}, start)``."""
    n0, n1 = lcp.n
    xbar, ybar = _prior(tree, 0, rng), _prior(tree, 1, rng)
    zero = flint.fmpq_poly([]) if lcp.polynomial else Fraction(0)
    if lcp.polynomial:
        xbar, ybar = [fmpq_of(v) for v in xbar], [fmpq_of(v) for v in ybar]
    cov_x, cov_y = [zero] * n0, [zero] * n1
    direct_x, direct_y = [zero] * n0, [zero] * n1
    # the payoff of each x' sequence against the opponent's prior: (M0^T A ybar); and of its
    # own leaves only (A ybar), from which the perturbed best response values the trembles
    for (s_, t), a in lcp.A.items():
        direct_x[s_] += a * ybar[t]
        for s2, c0 in lcp.M[0][s_].items():
            cov_x[s2] += c0 * a * ybar[t]
    for (s_, t), b in lcp.B.items():
        direct_y[t] += b * xbar[s_]
        for t2, c1 in lcp.M[1][t].items():
            cov_y[t2] += c1 * b * xbar[s_]
    ints, _ = _integers(cov_x + cov_y, lcp.polynomial)
    column = {i: v for i, v in enumerate(ints) if v}
    # the start: pure best responses to the priors, at every information set
    if lcp.beta[0] is None and lcp.beta[1] is None:
        bx, by = _pure_best_response(tree, 0, cov_x), _pure_best_response(tree, 1, cov_y)
    else:
        bx = _perturbed_best_response(tree, 0, direct_x, lcp.beta[0])
        by = _perturbed_best_response(tree, 1, direct_y, lcp.beta[1])
    sx, sy = set(bx), set(by)
    # slacks first (unit columns, in their own rows: no arithmetic), then the plans, then p, q
    WX, WY = 0, n0
    start = [WX + s_ for s_ in range(n0) if s_ not in sx] + [WY + t for t in range(n1) if t not in sy]
    start += [lcp.X + s_ for s_ in bx] + [lcp.Y + t for t in by]
    start += list(range(lcp.P, lcp.Z0))
    return column, start


def _exact_tableau(lcp: _LCP, column: dict) -> tuple:
    G = np.zeros((lcp.N, lcp.V), dtype=object)
    if lcp.polynomial:
        G[:] = [[EpsPoly(0) for _ in range(lcp.V)] for _ in range(lcp.N)]
    for (i, j), v in lcp.entries.items():
        G[i, j] = v
    for i, v in column.items():
        G[i, lcp.Z0] = v
    H = np.empty((lcp.N, len(lcp.H)), dtype=object)
    for k, col in enumerate(lcp.H):
        H[:, k] = col
    return G, H


def _float_system(lcp: _LCP, column: dict) -> tuple:
    rows = [i for i, _ in lcp.entries] + list(column)
    cols = [j for _, j in lcp.entries] + [lcp.Z0] * len(column)
    vals = [float(v) for v in lcp.entries.values()] + [float(v) for v in column.values()]
    G = sp.csc_matrix((vals, (rows, cols)), shape=(lcp.N, lcp.V))
    return G, np.array(lcp.H, dtype=float).T.reshape(lcp.N, -1)


def _solve_basis(lcp: _LCP, column: dict, basis: list, limit: int) -> list | None:
    """The basic solution of ``basis`` in exact arithmetic, one value list (length V, Fractions)
    per right-hand-side column, or None when a sign-constrained basic variable is lexicographically
    negative (the float path went astray)."""
    pos = {v: k for k, v in enumerate(basis)}
    rows: list = [dict() for _ in range(lcp.N)]
    for (i, j), v in lcp.entries.items():
        if j in pos:
            rows[i][pos[j]] = fmpq_of(v)
    if lcp.Z0 in pos:
        return None
    try:
        lu = SparseLU(rows, lcp.N, limit)
    except (CertificateError, TooLarge):
        return None
    sols = [lu.solve([fmpq_of(h) for h in col]) for col in lcp.H]
    undecided = [v not in lcp.free for v in basis]
    for sol in sols:
        for k, v in enumerate(sol):
            if undecided[k] and v != 0:
                if v < 0:
                    return None
                undecided[k] = False
    out = []
    for sol, c in zip(sols, lcp.hscale):
        vals = [Fraction(0)] * lcp.V
        for k, v in enumerate(sol):
            vals[basis[k]] = fraction_of(v) / c
        out.append(vals)
    return out


def solve_lcp(
    tree: Tree,
    *,
    bounds: list | None = None,
    eps=None,
    seed: int = 0,
    attempts: int = 5,
    method: str = "auto",
    memory_limit_bytes: int | None = None,
    exact_limit: int = 20_000_000,
    progress: Callable[[str], None] | None = None,
) -> LCPEquilibrium:
    """An exact Nash equilibrium of a two-player game, or of its perturbed game (module docstring).

    Parameters
    ----------
    tree : Tree
        A two-player game with perfect recall (chance allowed).
    bounds : list of two pairs, optional
        Per player ``(behavioural, realization)`` lower bounds, each None or ``{power: [Fraction] *
        n_p}`` (a polynomial in eps without constant term): ``x[s] >= beta_s(eps) x[parent(s)]``
        (Farina & Gatti 2017's EFPE trembles: ``beta = eps``) and ``x[s] >= l_s(eps)``
        (Miltersen & Sorensen 2010's QPE trembles: ``l_s = eps^|s|``), both at once as
        ``x[s] = beta_s x[parent(s)] + l_s + x'_s``, ``x' >= 0``. With ``eps`` None the perturbed
        LCP is solved for every small enough ``eps > 0`` at once, and ``plans`` is the limit
        eps -> 0: realization bounds make the right-hand side polynomial (its powers compared
        lexicographically; any method), behavioural ones the matrix (integer pivoting over
        ``Z[eps]``, ``seqform.exact.epspoly``; exact method only).
    eps : rational, optional
        Solve the game perturbed by ``bounds`` at this tremble.
    seed : int
        The random prior's seed; ``attempts`` priors are tried should a start be infeasible or the
        floating-point path fail.
    method : str
        "auto" (the path in floating point, its final basis solved and checked exactly; exact
        pivoting should that fail and the dense tableau fit), "float-path" (no fallback), or
        "exact" (integer pivoting).
    memory_limit_bytes : int, optional
        Refuse (``TooLargeError``) exact pivoting whose dense tableau would need more
        (default: ``seqform.model.limits.memory_limit()``).
    exact_limit : int
        Most nonzeros the exact solve of the final basis may store.

    Returns
    -------
    LCPEquilibrium
    """
    say = progress or (lambda msg: None)
    if tree.num_players != 2:
        raise UnsupportedGameError(
            f"{tree.name!r} has {tree.num_players} players; the sequence-form LCP is for two-player games"
        )
    if method not in ("auto", "float-path", "exact"):
        raise ValueError(f"unknown LCP method {method!r}")
    lcp = _build(tree, bounds, eps)
    budget = memory_limit_bytes if memory_limit_bytes is not None else memory_limit()
    if lcp.polynomial:
        method = "exact"  # a matrix polynomial in eps has no floating-point path
        if lcp.N * lcp.V > POLYNOMIAL_TABLEAU_LIMIT:
            raise TooLargeError(
                f"the perturbed LCP of {tree.name!r} ({lcp.N:,} equations, {lcp.V:,} variables) is too "
                f"large for pivoting over polynomials in a symbolic eps (at most "
                f"{POLYNOMIAL_TABLEAU_LIMIT:,} tableau entries); solve it at a fixed eps instead"
            )
    if method == "exact":
        check_lcp(tree.name, lcp.N, lcp.V, budget)
    last_error = None
    for attempt in range(attempts):
        rng = random.Random(seed + attempt)
        column, start = _covering(tree, lcp, rng)
        say(f"Lemke on the sequence-form LCP: {lcp.N:,} equations, {lcp.V:,} variables (prior seed {seed + attempt})")
        try:
            if method != "exact":
                G, H = _float_system(lcp, column)
                try:
                    path = lemke_path(G, H, lcp.complement, lcp.free, lcp.Z0, start, progress=say)
                except SolverError as e:
                    if "starting basis" in str(e) or method == "float-path":
                        raise
                    say(f"Lemke (floating point) failed ({e}); trying another prior")
                    last_error = e
                    continue
                say(f"Lemke: {path.pivots:,} pivots in floating point; solving the final basis exactly")
                cols = _solve_basis(lcp, column, path.basis, exact_limit)
                if cols is not None:
                    return _equilibrium(lcp, cols, path.pivots, 0, seed + attempt, "floating point", eps)
                if method == "float-path":
                    raise SolverError(
                        "the floating-point Lemke path ended on a basis that is not feasible in exact arithmetic"
                    )
                say("Lemke: the floating-point basis failed its exact check; pivoting exactly instead")
                check_lcp(tree.name, lcp.N, lcp.V, budget)
            G, H = _exact_tableau(lcp, column)
            res = lemke(G, H, lcp.complement, lcp.free, lcp.Z0, start, progress=say)
        except SolverError as e:
            if "starting basis" not in str(e):
                raise
            last_error = e
            continue
        if res.raw is not None:
            return _poly_equilibrium(lcp, res, seed + attempt)
        assert res.columns is not None  # an exact (non-EpsPoly) tableau reports its columns
        cols = [[v / c for v in col] for col, c in zip(res.columns, lcp.hscale)]
        return _equilibrium(lcp, cols, res.pivots, res.setup_pivots, seed + attempt, "exact", eps)
    if method == "auto" and last_error is not None and "starting basis" not in str(last_error):
        raise SolverError(
            f"the sequence-form LCP of {tree.name!r}: the floating-point path failed for "
            f"{attempts} priors ({last_error})"
        )
    raise SolverError(f"the sequence-form LCP of {tree.name!r}: no feasible start in {attempts} priors ({last_error})")


def _apply(M: list, v: list) -> list:
    """``M v`` for an expansion ``M`` (``_expansion``)."""
    return [sum((c * v[t] for t, c in row.items()), 0 * v[0]) for row in M]


def _equilibrium(lcp: _LCP, cols: list, pivots: int, setup: int, seed: int, path: str, eps) -> LCPEquilibrium:
    """The plans ``x = M (l + x')`` from the basic solution's columns (``cols[k]``: of ``eps^k``
    when symbolic, else the single solution)."""
    n0, n1 = lcp.n
    parts = [[col[lcp.X : lcp.X + n0] for col in cols], [col[lcp.Y : lcp.Y + n1] for col in cols]]
    if lcp.symbolic:  # realization bounds only: x(eps) = l(eps) + sum_k x'_k eps^k, a polynomial
        series = []
        for p, n in ((0, n0), (1, n1)):
            lam = lcp.low[p]
            K = max(len(parts[p]), 1 + max((v.degree() for v in lam), default=0) if lam else 1)
            terms = []
            for k in range(K):
                xk = parts[p][k] if k < len(parts[p]) else [Fraction(0)] * n
                if lam is not None:
                    xk = [a + (fraction_of(b[k]) if k <= b.degree() else 0) for a, b in zip(xk, lam)]
                terms.append(xk)
            series.append(terms)
        return LCPEquilibrium([series[0][0], series[1][0]], pivots, setup, (lcp.N, lcp.V), seed, path, series)
    plans = []
    for p in range(2):
        xp = parts[p][0]
        if lcp.low[p] is not None:
            xp = [a + b for a, b in zip(xp, lcp.low[p])]
        plans.append(_apply(lcp.M[p], xp) if lcp.beta[p] is not None else xp)
    return LCPEquilibrium(plans, pivots, setup, (lcp.N, lcp.V), seed, path)


def _limit(num, den) -> Fraction:
    """``lim num(eps) / den(eps)`` as eps -> 0+ (``fmpq_poly``; the limit must be finite)."""
    a = next((k for k, c in enumerate(num.coeffs()) if c), -1)
    b = next(k for k, c in enumerate(den.coeffs()) if c)
    if a < 0 or a > b:
        return Fraction(0)
    if a < b:
        raise SolverError("a perturbed plan has no finite limit as eps -> 0")
    return fraction_of(num.coeffs()[a] / den.coeffs()[b])


def _poly_equilibrium(lcp: _LCP, res, seed: int) -> LCPEquilibrium:
    """From a tableau over ``Z[eps]``: each ``x'_s = num_s / (d c)`` (``c`` the right-hand side's
    multiplier); the plans ``x = M (l + x')`` times the positive ``d c`` are polynomials
    (``series``, coefficients by power: a positive factor common to both players changes no
    comparison of payoffs), and the limit plans are their ratios to ``d c`` as eps -> 0."""
    nums, d = res.raw
    n0, n1 = lcp.n
    dc = flint.fmpq_poly(d.p) * lcp.hscale[0]
    series, plans = [], []
    for p, off, n in ((0, lcp.X, n0), (1, lcp.Y, n1)):
        xs = [
            flint.fmpq_poly(v.p) if isinstance(v, EpsPoly) else flint.fmpq_poly([int(v)]) for v in nums[off : off + n]
        ]
        low = lcp.low[p]
        scaled = [xv + lv * dc for xv, lv in zip(xs, low)] if low is not None else xs
        fam = _apply(lcp.M[p], scaled)
        top = max((v.degree() for v in fam), default=0)
        series.append([[fraction_of(v[k]) if k <= v.degree() else Fraction(0) for v in fam] for k in range(top + 1)])
        plans.append([_limit(v, dc) for v in fam])
    return LCPEquilibrium(plans, res.pivots, res.setup_pivots, (lcp.N, lcp.V), seed, "exact", series)


__all__ = ["solve_lcp", "LCPEquilibrium"]

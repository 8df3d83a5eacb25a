"""A brute-force reference solver for small two-player zero-sum games, independent of seqform.

It uses nothing from seqform but the interface constants of ``seqform.model.game`` (``CHANCE``,
``TERMINAL``): it walks a ``Game`` through its succinct queries (root / player / infoset /
actions / next / chance / utility), checks the game itself (perfect recall, chance
probabilities, zero- or constant-sum), enumerates each player's *reduced* pure strategies, builds
the exact expected payoff matrix of player 0 with ``fractions.Fraction`` and solves that matrix
game, in floating point with scipy's HiGHS (``linprog``) and exactly with a Fraction simplex
(Bland's rule) whose answer is then certified exactly (the optimal mixed strategies of both
players are checked to guarantee the value against every pure strategy of the opponent).

Conventions: the value is player 0's (the maximiser's) expected utility ``u_0``. Constant-sum games
(``u_0 + u_1 = c`` at every leaf) are accepted; the value is still the value of ``u_0``.

A reduced pure strategy of player p chooses one action at each of p's information sets that p's
own earlier choices do not exclude; it is represented as a ``dict`` {information-set key: action
index}. Under perfect recall the information sets of p form a forest (parent = the last own
(information set, action) pair before it); reduced strategies are enumerated over that forest.

Typical use in a test::

    sol = brute_force_solve(g)            # one enumeration, both values
    assert abs(seqform_value_float - sol.value_float) <= 1e-9
    assert seqform_value == sol.value     # Fraction

or simply ``brute_force_value(g)`` (float) and ``brute_force_value_exact(g)`` (Fraction).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

import numpy as np
from scipy.optimize import linprog

from seqform.model.game import CHANCE, TERMINAL

#: default bound on (number of row strategies) x (number of column strategies)
MAX_PAIRS = 5000
#: default bound on the number of game-tree nodes walked
MAX_NODES = 200_000

_ZERO = Fraction(0)
_ONE = Fraction(1)


class OracleError(Exception):
    """The oracle refuses the game: not a valid two-player zero-sum perfect-recall game."""


class OracleTooLarge(OracleError):
    """The game (tree or normal form) is larger than the bound given."""


# ----------------------------------------------------------------------------------------------
# walking the game
# ----------------------------------------------------------------------------------------------


def _number(x: Any, what: str) -> Fraction:
    """An exact rational for an int, Fraction or float (a float is taken at its binary value)."""
    if isinstance(x, bool):
        raise OracleError(f"{what} is a bool ({x!r}), not a number")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    if isinstance(x, (float, np.floating)):
        if not math.isfinite(float(x)):
            raise OracleError(f"{what} is {x!r}, not a finite number")
        return Fraction(float(x))
    try:
        return Fraction(x)
    except (TypeError, ValueError):
        raise OracleError(f"{what} is {x!r}, not a number") from None


def _path(labels: Sequence[str]) -> str:
    return "/".join(labels) if labels else "(root)"


@dataclass
class WalkedGame:
    """The game tree materialised by the oracle's own walk.

    Nodes are tuples: ``(TERMINAL, u0)``, ``(CHANCE, ((prob, child), ...))`` and
    ``(player, key, (child, ...))``. ``infosets[p]`` maps each information-set key of player p
    (in discovery order) to ``(own_history, num_actions)``, the own history being the tuple of
    p's (key, action index) pairs from the root. ``forest_roots[p]`` are p's keys with an empty
    own history and ``forest_children[p][(key, a)]`` the keys whose own history ends in (key, a).
    """

    root: tuple
    infosets: list
    forest_roots: list
    forest_children: list
    constant_sum: Fraction
    num_nodes: int
    num_leaves: int


def walk_game(game, *, max_nodes: int = MAX_NODES) -> WalkedGame:
    """Walk ``game`` through its succinct interface and check it; raise ``OracleError`` if invalid."""
    if int(getattr(game, "num_players", 2)) != 2:
        raise OracleError(f"the oracle handles two-player games; {game!r} has {game.num_players} players")
    infosets: list = [dict(), dict()]
    sums: set = set()
    counts = [0, 0]  # nodes, leaves
    old_limit = sys.getrecursionlimit()

    def rec(h, own: tuple, path: list):
        counts[0] += 1
        if counts[0] > max_nodes:
            raise OracleTooLarge(f"{game!r} has more than {max_nodes} nodes")
        pl = game.player(h)
        if pl == TERMINAL:
            u = list(game.utility(h))
            if len(u) != 2:
                raise OracleError(f"leaf {_path(path)} has {len(u)} utilities, expected 2")
            u0 = _number(u[0], f"utility at {_path(path)}")
            u1 = _number(u[1], f"utility at {_path(path)}")
            sums.add(u0 + u1)
            counts[1] += 1
            return (TERMINAL, u0)
        acts = [str(a) for a in game.actions(h)]
        if not acts:
            raise OracleError(f"non-terminal node {_path(path)} has no actions")
        if pl == CHANCE:
            probs = [_number(p, f"chance probability at {_path(path)}") for p in game.chance(h)]
            if len(probs) != len(acts):
                raise OracleError(f"chance node {_path(path)}: {len(probs)} probabilities for {len(acts)} outcomes")
            if any(p < 0 for p in probs):
                raise OracleError(f"chance node {_path(path)}: negative probability {min(probs)}")
            if sum(probs) != 1:
                raise OracleError(f"chance node {_path(path)}: probabilities sum to {sum(probs)}, not 1")
            return (CHANCE, tuple((p, rec(game.next(h, i), own, path + [acts[i]])) for i, p in enumerate(probs)))
        if pl not in (0, 1):
            raise OracleError(f"node {_path(path)} has player {pl!r}")
        key = game.infoset(h)
        known = infosets[pl].get(key)
        if known is None:
            infosets[pl][key] = (own[pl], len(acts))
        else:
            if known[0] != own[pl]:
                raise OracleError(
                    f"imperfect recall: player {pl} information set {key!r} is reached after "
                    f"own histories {known[0]!r} and {own[pl]!r} (at {_path(path)})"
                )
            if known[1] != len(acts):
                raise OracleError(
                    f"player {pl} information set {key!r} has {known[1]} actions at one node "
                    f"and {len(acts)} at {_path(path)}"
                )
        children = []
        for i in range(len(acts)):
            nown = (own[0] + ((key, i),), own[1]) if pl == 0 else (own[0], own[1] + ((key, i),))
            children.append(rec(game.next(h, i), nown, path + [acts[i]]))
        return (pl, key, tuple(children))

    try:
        sys.setrecursionlimit(max(old_limit, 10_000))
        root = rec(game.root(), ((), ()), [])
    finally:
        sys.setrecursionlimit(old_limit)
    if len(sums) != 1:
        raise OracleError(f"{game!r} is not zero-sum (u0 + u1 takes the values {sorted(sums)[:5]}...)")
    roots: list = [[], []]
    children: list = [dict(), dict()]
    for p in (0, 1):
        for key, (own, _n) in infosets[p].items():
            if own:
                children[p].setdefault(own[-1], []).append(key)
            else:
                roots[p].append(key)
    return WalkedGame(root, infosets, roots, children, next(iter(sums)), counts[0], counts[1])


# ----------------------------------------------------------------------------------------------
# pure strategies
# ----------------------------------------------------------------------------------------------


def _count_reduced(w: WalkedGame, p: int) -> int:
    memo: dict = {}

    def count_infoset(key) -> int:
        if key not in memo:
            n = w.infosets[p][key][1]
            memo[key] = sum(count_set(w.forest_children[p].get((key, a), ())) for a in range(n))
        return memo[key]

    def count_set(keys) -> int:
        out = 1
        for k in keys:
            out *= count_infoset(k)
        return out

    return count_set(w.forest_roots[p])


def _enumerate_reduced(w: WalkedGame, p: int) -> list:
    memo: dict = {}

    def for_infoset(key) -> list:
        if key not in memo:
            out = []
            for a in range(w.infosets[p][key][1]):
                for sub in for_set(w.forest_children[p].get((key, a), ())):
                    out.append(((key, a),) + sub)
            memo[key] = out
        return memo[key]

    def for_set(keys) -> list:
        partial = [()]
        for k in keys:
            opts = for_infoset(k)
            partial = [x + y for x in partial for y in opts]
        return partial

    return [dict(s) for s in for_set(w.forest_roots[p])]


def _count_full(w: WalkedGame, p: int) -> int:
    return math.prod(n for (_, n) in w.infosets[p].values())


def _enumerate_full(w: WalkedGame, p: int) -> list:
    keys = list(w.infosets[p])
    return [dict(zip(keys, choice)) for choice in product(*(range(w.infosets[p][k][1]) for k in keys))]


def num_pure_strategies(game, *, reduced: bool = True, max_nodes: int = MAX_NODES) -> tuple:
    """(number of player 0's, number of player 1's) reduced (or full) pure strategies."""
    w = walk_game(game, max_nodes=max_nodes)
    f = _count_reduced if reduced else _count_full
    return f(w, 0), f(w, 1)


def pure_strategies(
    game, player: int, *, reduced: bool = True, max_count: int = MAX_PAIRS, max_nodes: int = MAX_NODES
) -> list:
    """The pure strategies of ``player``, each a dict {information-set key: action index}."""
    w = walk_game(game, max_nodes=max_nodes)
    n = (_count_reduced if reduced else _count_full)(w, player)
    if n > max_count:
        raise OracleTooLarge(f"player {player} has {n} pure strategies (> {max_count})")
    return (_enumerate_reduced if reduced else _enumerate_full)(w, player)


def _pure_payoff(node: tuple, s0: Mapping, s1: Mapping) -> Fraction:
    kind = node[0]
    if kind == TERMINAL:
        return node[1]
    if kind == CHANCE:
        return sum((p * _pure_payoff(c, s0, s1) for p, c in node[1] if p), _ZERO)
    s = s0 if kind == 0 else s1
    return _pure_payoff(node[2][s[node[1]]], s0, s1)


def pure_strategy_payoff_matrix(game, *, reduced: bool = True, max_pairs: int = MAX_PAIRS, max_nodes: int = MAX_NODES):
    """The exact normal form: ``(A, S0, S1)``.

    ``A[i][j]`` (a ``Fraction``) is player 0's expected utility (chance weighted) when player 0
    plays ``S0[i]`` and player 1 plays ``S1[j]``; ``S0``, ``S1`` are lists of pure strategies
    (dicts {information-set key: action index}), reduced by default. Raises ``OracleTooLarge`` if
    ``len(S0) * len(S1) > max_pairs`` (checked by counting, before enumerating).
    """
    w = walk_game(game, max_nodes=max_nodes)
    return _matrix(w, reduced, max_pairs, game)


def _matrix(w: WalkedGame, reduced: bool, max_pairs: int, game) -> tuple:
    count = _count_reduced if reduced else _count_full
    n0, n1 = count(w, 0), count(w, 1)
    if n0 * n1 > max_pairs:
        raise OracleTooLarge(f"{game!r} has {n0} x {n1} = {n0 * n1} pure-strategy pairs (> max_pairs={max_pairs})")
    enum = _enumerate_reduced if reduced else _enumerate_full
    S0, S1 = enum(w, 0), enum(w, 1)
    assert (len(S0), len(S1)) == (n0, n1)
    A = [[Fraction(_pure_payoff(w.root, s0, s1)) for s1 in S1] for s0 in S0]
    return A, S0, S1


# ----------------------------------------------------------------------------------------------
# matrix games
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatrixSolution:
    """Exact solution of a matrix game: the value and optimal mixed strategies of both players."""

    value: Fraction
    row_mix: tuple
    col_mix: tuple


def _simplex_max_sum(B: list) -> tuple:
    """Maximise sum(y) subject to B y <= 1, y >= 0, for a matrix B with positive entries.

    Exact tableau simplex over Fractions with Bland's rule (no cycling). The slack basis is
    feasible at the start, and B > 0 makes the problem bounded. Returns (y, x, objective) where x
    are the optimal duals (min sum(x) s.t. B^T x >= 1, x >= 0).
    """
    m, n = len(B), len(B[0])
    W = n + m
    T = [list(B[i]) + [(_ONE if j == i else _ZERO) for j in range(m)] + [_ONE] for i in range(m)]
    obj = [-_ONE] * n + [_ZERO] * m + [_ZERO]
    basis = [n + i for i in range(m)]
    while True:
        enter = next((j for j in range(W) if obj[j] < 0), None)
        if enter is None:
            break
        leave, best = None, None
        for i in range(m):
            a = T[i][enter]
            if a > 0:
                r = T[i][W] / a
                if leave is None or r < best or (r == best and basis[i] < basis[leave]):
                    leave, best = i, r
        if leave is None:  # cannot happen for B > 0
            raise OracleError("exact simplex: unbounded LP (internal error)")
        row = T[leave]
        piv = row[enter]
        if piv != 1:
            row = [v / piv for v in row]
            T[leave] = row
        nz = [j for j in range(W + 1) if row[j]]
        for i in range(m):
            if i != leave:
                f = T[i][enter]
                if f:
                    Ti = T[i]
                    for j in nz:
                        Ti[j] -= f * row[j]
        f = obj[enter]
        for j in nz:
            obj[j] -= f * row[j]
        basis[leave] = enter
    y = [_ZERO] * n
    for i, b in enumerate(basis):
        if b < n:
            y[b] = T[i][W]
    x = [obj[n + i] for i in range(m)]
    return y, x, obj[W]


def _certified_value(A: list, x: Sequence, y: Sequence) -> Fraction | None:
    """The exact value if the mixtures ``x`` (rows) and ``y`` (columns) are optimal, else None.

    ``x`` guarantees the row player ``min_j (x^T A)_j`` and ``y`` holds her to ``max_i (A y)_i``;
    by weak duality both equal the value when they are equal.
    """
    m, n = len(A), len(A[0])
    if len(x) != m or len(y) != n or sum(x) != 1 or sum(y) != 1 or min(x) < 0 or min(y) < 0:
        return None
    lo = min(sum((x[i] * A[i][j] for i in range(m) if x[i]), _ZERO) for j in range(n))
    hi = max(sum((y[j] * A[i][j] for j in range(n) if y[j]), _ZERO) for i in range(m))
    return lo if lo == hi else None


def _solve_linear_exact(rows: list, nvars: int) -> list | None:
    """The unique solution of the augmented system ``rows`` (Gauss-Jordan over Fractions), else None."""
    M = [list(r) for r in rows]
    piv_cols, r = [], 0
    for c in range(nvars):
        p = next((i for i in range(r, len(M)) if M[i][c] != 0), None)
        if p is None:
            return None  # not unique
        M[r], M[p] = M[p], M[r]
        pr = M[r]
        inv = 1 / pr[c]
        pr[:] = [v * inv for v in pr]
        for i in range(len(M)):
            if i != r and M[i][c] != 0:
                f = M[i][c]
                Mi = M[i]
                for j in range(c, nvars + 1):
                    if pr[j]:
                        Mi[j] -= f * pr[j]
        piv_cols.append(c)
        r += 1
    if any(M[i][nvars] != 0 for i in range(r, len(M))):
        return None  # inconsistent
    return [M[i][nvars] for i in range(nvars)]


def _float_mixture(M: np.ndarray, method: str = "highs-ds", options: dict | None = None) -> tuple:
    """Row player's optimal mixture, value and the columns' slacks for the float matrix ``M``
    (default HiGHS dual simplex, so the mixture is a vertex)."""
    m, n = M.shape
    # variables (x_1..x_m, v): maximise v s.t. v <= (x^T M)_j for all j, sum x = 1, x >= 0
    c = np.zeros(m + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-M.T, np.ones((n, 1))])
    A_eq = np.concatenate([np.ones(m), [0.0]])[None, :]
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(n),
        A_eq=A_eq,
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method=method,
        options=options,
    )
    if res.status != 0:
        raise OracleError(f"linprog failed: {res.message}")
    return res.x[:m], float(res.x[-1]), res.slack


def _mixture_from_support(A: list, M: np.ndarray) -> list | None:
    """The row player's exact optimal mixture, guessed from a float solution: solve exactly for
    the mixture on its float support that equalises the columns tight in the float solution."""
    m, n = M.shape
    xf, vf, slack = _float_mixture(M)
    scale = max(1.0, float(np.abs(M).max()))
    S = [i for i in range(m) if xf[i] > 1e-9]
    J = [j for j in range(n) if slack[j] <= 1e-7 * scale]
    if not S or not J:
        return None
    # unknowns: x_i (i in S), v.  sum_i A_ij x_i - v = 0 (j in J); sum_i x_i = 1
    rows = [[A[i][j] for i in S] + [-_ONE, _ZERO] for j in J]
    rows.append([_ONE] * len(S) + [_ZERO, _ONE])
    sol = _solve_linear_exact(rows, len(S) + 1)
    if sol is None:
        return None
    x = [_ZERO] * m
    for k, i in enumerate(S):
        x[i] = sol[k]
    return x


def solve_matrix_game_exact(A: Sequence[Sequence], *, method: str = "auto") -> MatrixSolution:
    """Exact value (for the row player, who maximises) and optimal mixed strategies of ``A``.

    ``method="simplex"``: an exact simplex over Fractions (Bland's rule) on ``A`` with duplicate
    rows and columns merged. ``"auto"`` (default) first guesses both players' supports from a
    HiGHS float solution and solves for the mixtures exactly on them (fast), falling back to the
    exact simplex when that guess does not certify. Either way the answer is certified before it
    is returned: ``min_j (x^T A)_j == value == max_i (A y)_i`` exactly (else ``AssertionError``).
    """
    if method not in ("auto", "simplex"):
        raise ValueError(f"method must be 'auto' or 'simplex', not {method!r}")
    A = [[_number(v, "matrix entry") for v in row] for row in A]
    m = len(A)
    if m == 0 or len(A[0]) == 0 or any(len(r) != len(A[0]) for r in A):
        raise OracleError("matrix must be non-empty and rectangular")
    n = len(A[0])
    if method == "auto":
        M = np.array([[float(v) for v in row] for row in A], dtype=np.float64)
        x = _mixture_from_support(A, M)
        if x is not None:
            AT = [[-A[i][j] for i in range(m)] for j in range(n)]
            y = _mixture_from_support(AT, -M.T)
            if y is not None:
                value = _certified_value(A, x, y)
                if value is not None:
                    return MatrixSolution(value, tuple(x), tuple(y))
    rows, seen = [], set()
    for i in range(m):
        t = tuple(A[i])
        if t not in seen:
            seen.add(t)
            rows.append(i)
    cols, seen = [], set()
    for j in range(n):
        t = tuple(A[i][j] for i in range(m))
        if t not in seen:
            seen.add(t)
            cols.append(j)
    lo = min(min(r) for r in A)
    shift = _ONE - lo  # B = A + shift >= 1
    B = [[A[i][j] + shift for j in cols] for i in rows]
    y, x, total = _simplex_max_sum(B)
    value = 1 / total - shift
    row_mix = [_ZERO] * m
    for k, i in enumerate(rows):
        row_mix[i] = x[k] / total
    col_mix = [_ZERO] * n
    for k, j in enumerate(cols):
        col_mix[j] = y[k] / total
    # certificate: each mixed strategy guarantees the value against every pure reply
    certified = _certified_value(A, row_mix, col_mix)
    assert certified == value, ("exact simplex failed to certify", certified, value)
    return MatrixSolution(value, tuple(row_mix), tuple(col_mix))


def solve_matrix_game_float(A: Sequence[Sequence]) -> float:
    """Value of the matrix game ``A`` (row player maximises) by scipy ``linprog`` (HiGHS).

    Both players' LPs are solved; they must agree to 1e-9 (relative to the payoff scale).
    """
    M = np.array([[float(v) for v in row] for row in A], dtype=np.float64)
    m, n = M.shape
    opts = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}

    def row_value(M):
        return _float_mixture(M, "highs", opts)[1]

    v_row = row_value(M)
    v_col = -row_value(-M.T)
    scale = max(1.0, float(np.abs(M).max()))
    if abs(v_row - v_col) > 1e-9 * scale:
        raise OracleError(f"linprog: row LP gives {v_row!r}, column LP gives {v_col!r}")
    return 0.5 * (v_row + v_col)


# ----------------------------------------------------------------------------------------------
# games
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BruteForceSolution:
    """The oracle's answer for a game.

    ``value`` (Fraction, exact) and ``value_float`` (HiGHS on the float matrix) are player 0's;
    ``matrix[i][j]`` is player 0's payoff for ``strategies[0][i]`` vs ``strategies[1][j]``;
    ``row_mix``/``col_mix`` are optimal mixtures over those pure strategies (``None`` if
    ``exact=False``).
    """

    value: Fraction | None
    value_float: float
    matrix: list
    strategies: tuple
    row_mix: tuple | None
    col_mix: tuple | None


def brute_force_solve(
    game, *, exact: bool = True, max_pairs: int = MAX_PAIRS, max_nodes: int = MAX_NODES
) -> BruteForceSolution:
    """Solve ``game`` through its reduced normal form: exact value, float value, mixtures."""
    w = walk_game(game, max_nodes=max_nodes)
    A, S0, S1 = _matrix(w, True, max_pairs, game)
    vf = solve_matrix_game_float(A)
    if exact:
        sol = solve_matrix_game_exact(A)
        return BruteForceSolution(sol.value, vf, A, (S0, S1), sol.row_mix, sol.col_mix)
    return BruteForceSolution(None, vf, A, (S0, S1), None, None)


def brute_force_value(game, *, max_pairs: int = MAX_PAIRS, max_nodes: int = MAX_NODES) -> float:
    """Player 0's game value (float), from the reduced normal form solved by HiGHS."""
    A, _, _ = pure_strategy_payoff_matrix(game, max_pairs=max_pairs, max_nodes=max_nodes)
    return solve_matrix_game_float(A)


def brute_force_value_exact(game, *, max_pairs: int = MAX_PAIRS, max_nodes: int = MAX_NODES) -> Fraction:
    """Player 0's game value as an exact Fraction (exact simplex, certified)."""
    A, _, _ = pure_strategy_payoff_matrix(game, max_pairs=max_pairs, max_nodes=max_nodes)
    return solve_matrix_game_exact(A).value


# ----------------------------------------------------------------------------------------------
# behaviour strategies (for checking a solver's strategies, not only its value)
# ----------------------------------------------------------------------------------------------


def _lookup(b, player: int):
    if callable(b) and not isinstance(b, Mapping):
        return b

    def get(key):
        try:
            return b[key]
        except KeyError:
            raise OracleError(
                f"behaviour strategy of player {player} has no entry for information set "
                f"{key!r}, which it reaches with positive probability"
            ) from None

    return get


def _behavior_payoff(node: tuple, get0, get1):
    kind = node[0]
    if kind == TERMINAL:
        return node[1]
    if kind == CHANCE:
        return sum((p * _behavior_payoff(c, get0, get1) for p, c in node[1] if p), _ZERO)
    probs = (get0 if kind == 0 else get1)(node[1])
    if isinstance(probs, (int, np.integer)) and not isinstance(probs, bool):  # a pure choice
        return _behavior_payoff(node[2][int(probs)], get0, get1)
    probs = list(probs)
    if len(probs) != len(node[2]):
        raise OracleError(
            f"behaviour strategy of player {kind} gives {len(probs)} probabilities at information "
            f"set {node[1]!r}, which has {len(node[2])} actions"
        )
    return sum((q * _behavior_payoff(c, get0, get1) for q, c in zip(probs, node[2]) if q), _ZERO)


def behavior_payoff(game, b0, b1, *, max_nodes: int = MAX_NODES):
    """Player 0's expected utility when the players play behaviour strategies ``b0`` and ``b1``.

    A behaviour strategy maps an information-set key (as ``game.infoset`` returns it) to either
    the probabilities of its actions or an action index (a pure choice); it is a Mapping or a
    callable ``key -> ...``. A pure strategy dict from ``pure_strategies`` is therefore accepted
    as it is. Information sets reached with probability zero need no entry. The result is exact
    if all probabilities are ints/Fractions.
    """
    w = walk_game(game, max_nodes=max_nodes)
    return _behavior_payoff(w.root, _lookup(b0, 0), _lookup(b1, 1))


def guaranteed_value(game, player: int, behavior, *, max_pairs: int = MAX_PAIRS, max_nodes: int = MAX_NODES):
    """What ``player``'s behaviour strategy guarantees, in player 0's utility.

    For player 0: the min over player 1's reduced pure strategies of the expected utility; for
    player 1: the max over player 0's. A strategy is optimal iff this equals the game value.
    """
    w = walk_game(game, max_nodes=max_nodes)
    opp = 1 - player
    n = _count_reduced(w, opp)
    if n > max_pairs:
        raise OracleTooLarge(f"player {opp} has {n} reduced pure strategies (> {max_pairs})")
    mine = _lookup(behavior, player)
    vals = []
    for s in _enumerate_reduced(w, opp):
        other = _lookup(s, opp)
        vals.append(_behavior_payoff(w.root, mine, other) if player == 0 else _behavior_payoff(w.root, other, mine))
    return min(vals) if player == 0 else max(vals)


__all__ = [
    "MAX_PAIRS",
    "MAX_NODES",
    "OracleError",
    "OracleTooLarge",
    "WalkedGame",
    "walk_game",
    "num_pure_strategies",
    "pure_strategies",
    "pure_strategy_payoff_matrix",
    "MatrixSolution",
    "solve_matrix_game_exact",
    "solve_matrix_game_float",
    "BruteForceSolution",
    "brute_force_solve",
    "brute_force_value",
    "brute_force_value_exact",
    "behavior_payoff",
    "guaranteed_value",
]

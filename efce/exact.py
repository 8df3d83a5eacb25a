"""Exact ground truth for small games: the EFCE polytope over reduced strategy profiles (Dudik & Gordon 2009,
eq. 1; Forges & von Stengel 2002), as linear constraints with one dualised best-deviation block
per trigger, solved by HiGHS (feasibility, best social welfare) or by cvxpy (maximum entropy,
eq. 2, with the exponential cone).

For trigger t = (player n, information set I, action a) the best deviation is a best response
over n's sub-treeplex rooted at I against sequence payoffs g_t(p) that are linear in p
(``efce.causalregret``). Its LP dual: max {g^T y : y in the sub-treeplex} = min {v_I : v_J - sum_{K below
(J, b)} v_K >= g_(J, b) for every sequence (J, b) at or below I}. So "no deviation for trigger t
gains" becomes v_I <= baseline_t(p) with those dual constraints: linear in (p, v). Adding p >= 0
and sum p = 1 gives the EFCE polytope.

``solve_lp`` maximises a linear objective over it (``objective="welfare"``: the sum of expected
payoffs; or a weight vector; or 0 for feasibility). ``max_entropy`` maximises H(p) + w . E_p[u]
(eq. 2). Entropy is over *full* pure strategy profiles by default, as in Dudik & Gordon 2009 (its q_0 is
uniform over S): a reduced profile standing for m full ones then counts p log m extra
(``base="full"``); ``base="reduced"`` uses the reduced profiles themselves. Both return the
distribution, the expected payoffs and the largest causal-deviation regret recomputed by the
independent dynamic program of ``efce.causalregret`` (exactly, on the solution rounded to rationals).

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
- Forges & von Stengel (2002), "Computationally Efficient Coordination in Game Trees", THEMA working paper.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from seqform.errors import SeqformError, SolverError
from seqform.exact.rationals import nearest_rational
from seqform.result import Result

from .causalregret import TriggerRegret, max_regret, player_structure
from .strategies import Profiles

#: Clarabel tolerances for the maximum-entropy EFCE (its defaults are 1e-8)
_TIGHT = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}


@dataclass
class Trigger:
    """One block of the polytope: ``player``, ``infoset``, ``action``; ``seqs`` (n's sequences at
    or below the information set), ``G`` (profiles x len(seqs)) and ``B`` (profiles): g_t(p) = p @ G,
    baseline_t(p) = p @ B; ``rows`` (for each sequence, its information set's position and the
    positions of the information sets right below it, among ``infosets``)."""

    player: int
    infoset: int
    action: int
    seqs: list
    infosets: list
    G: np.ndarray
    B: np.ndarray
    rows: list = field(default_factory=list)


def triggers(prof: Profiles) -> list:
    """Every trigger's block (module docstring), in floats."""
    tree = prof.tree
    N = tree.num_players
    t = tree.terminals
    seqs = [tree.node_seq[n, t] for n in range(N)]
    pay = tree.payoff
    chance = tree.terminal_chance
    K = prof.count
    out = []
    idx = np.array([prof.profile(k) for k in range(K)], dtype=np.int64).reshape(K, N)
    for n in range(N):
        kids, under = player_structure(tree, n)
        # reach[k, z]: chance times every other player's plan reaching leaf z
        reach = np.tile(chance, (K, 1))
        for m in range(N):
            if m != n:
                reach *= prof.X[m][idx[:, m]][:, seqs[m]]
        own = prof.X[n][idx[:, n]]  # (K, sequences of n)
        own_leaf = own[:, seqs[n]]  # does n's own plan reach leaf z
        for m in tree.player_infosets[n].tolist():
            sub = sorted(under[m])
            pos = {s: i for i, s in enumerate(sub)}
            leaf = np.isin(seqs[n], sub)
            infos = sorted({int(tree.seq_infoset[n][s]) for s in sub})
            ipos = {j: i for i, j in enumerate(infos)}
            rows = [(ipos[int(tree.seq_infoset[n][s])], [ipos[j] for j in kids.get(s, ())]) for s in sub]
            f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
            for a in range(k):
                trig = own[:, f + a]
                w = reach[:, leaf] * trig[:, None] * pay[leaf, n][None, :]
                G = np.zeros((K, len(sub)))
                cols = np.array([pos[s] for s in seqs[n][leaf]], dtype=np.int64)
                for c in range(len(sub)):
                    G[:, c] = w[:, cols == c].sum(axis=1)
                B = (w * own_leaf[:, leaf]).sum(axis=1)
                out.append(Trigger(n, m, a, sub, infos, G, B, rows))
    return out


def _constraints(prof: Profiles, trigs: list, eps: float = 0.0) -> tuple:
    """A_ub x <= b_ub and A_eq x = b_eq over x = (p, v_1, v_2, ...): the EFCE polytope (with
    ``eps`` > 0, the eps-EFCE polytope: each trigger's best deviation gains at most eps)."""
    K = prof.count
    nv = sum(len(t.infosets) for t in trigs)
    rows, b_ub = [], []
    off = K
    for t in trigs:
        for c, (own, below) in enumerate(t.rows):
            # g_c(p) - v_own + sum v_below <= 0
            r = np.zeros(K + nv)
            r[:K] = t.G[:, c]
            r[off + own] -= 1.0
            for j in below:
                r[off + j] += 1.0
            rows.append(r)
            b_ub.append(0.0)
        # v_I - baseline(p) <= 0: the best deviation gains nothing over the recommendations
        r = np.zeros(K + nv)
        r[off + t.infosets.index(t.infoset)] = 1.0
        r[:K] -= t.B
        rows.append(r)
        b_ub.append(eps)
        off += len(t.infosets)
    A_ub = sp.csr_matrix(np.array(rows)) if rows else sp.csr_matrix((0, K + nv))
    A_eq = sp.csr_matrix(np.r_[np.ones(K), np.zeros(nv)][None, :])
    return A_ub, np.array(b_ub), A_eq, np.array([1.0]), nv


@dataclass(kw_only=True)
class EFCEResult(Result):
    """``p`` (floats, one per reduced profile) and ``p_exact`` (rounded to rationals, summing to 1);
    ``payoffs`` per player; ``max_regret`` (exact, from ``efce.causalregret``, on ``p_exact``) and the
    ``worst`` deviation (a ``efce.causalregret.TriggerRegret``); ``objective``; ``method``."""

    p: np.ndarray
    p_exact: list
    payoffs: list
    max_regret: Fraction | float
    worst: TriggerRegret
    objective: float
    profiles: int = 0
    weights: list | None = None

    def json_fields(self) -> dict:
        return {
            "weights": self.weights,
            "payoffs": [float(x) for x in self.payoffs],
            "max_regret": float(self.max_regret),
            "worst_deviation": self.worst.label,
            "profiles": self.profiles,
        }

    def summary(self, rationals: bool = False) -> str:  # its numbers are floats: rationals is moot
        return "\n".join(
            [
                f"game             {self.game}",
                f"method           {self.method}" + (f", weights {self.weights}" if self.weights else ""),
                "payoffs          " + ", ".join(f"player {n}: {float(v):.6g}" for n, v in enumerate(self.payoffs)),
                f"max regret       {float(self.max_regret):.6g} (exact, best causal deviation)",
                f"seconds          {self.seconds['total']:.3f}",
            ]
        )


def _finish(
    prof: Profiles, p: np.ndarray, objective: float, method: str, max_denominator: int, t0: float
) -> EFCEResult:
    p = np.maximum(p, 0.0)
    p = p / p.sum()
    q = [nearest_rational(v, max_denominator) for v in p]
    total = sum(q)
    q = [v / total for v in q]
    worst = max_regret(prof, q)
    payoffs = [
        sum((qk * prof.utility_exact[k][n] for k, qk in enumerate(q) if qk), Fraction(0))
        for n in range(prof.tree.num_players)
    ]
    return EFCEResult(
        p=p,
        p_exact=q,
        payoffs=payoffs,
        max_regret=worst.regret,
        worst=worst,
        objective=objective,
        method=method,
        game=prof.tree.name,
        seconds={"total": time.perf_counter() - t0},
        profiles=prof.count,
    )


def solve_lp(
    prof: Profiles, objective="welfare", *, max_denominator: int = 10**6, trigs: list | None = None, eps: float = 0.0
) -> EFCEResult:
    """Maximise a linear objective over the EFCE polytope with HiGHS.

    The polytope of extensive-form correlated equilibria over reduced strategy profiles (von
    Stengel & Forges 2008, "Extensive-Form Correlated Equilibrium: Definition and Computational
    Complexity"), written as linear constraints with one dualised best-deviation block per trigger
    (the ``efce.exact`` module docstring). The optimal distribution is rounded to rationals and its
    largest causal-deviation regret recomputed exactly by an independent dynamic program.

    Parameters
    ----------
    prof : Profiles
        The game's reduced strategy profiles (``efce.profiles(tree)``).
    objective : str or array_like, default "welfare"
        "welfare" (the sum of expected payoffs), a weight vector (one per player),
        "feasibility", or any vector over the reduced profiles.
    max_denominator : int, default ``10**6``
        The distribution is rounded to rationals with this denominator bound (then renormalised)
        before its exact regret is computed.
    trigs : list of Trigger, optional
        The causal deviations' blocks (default: all of them, ``efce.exact.triggers(prof)``).
    eps : float, default 0.0
        Over the eps-EFCE polytope instead: every causal deviation may gain up to eps.

    Returns
    -------
    EFCEResult
        ``p`` (floats), ``p_exact`` (rationals summing to 1), ``payoffs`` (exact, per player),
        ``max_regret`` (exact), ``worst`` deviation, ``objective`` (the LP's optimum), ``method``
        ("lp").

    Raises
    ------
    SolverError
        HiGHS fails (the polytope is never empty: every game has an EFCE).
    SeqformError
        An unknown objective, or a vector of the wrong size.

    Examples
    --------
    >>> import seqform, efce
    >>> prof = efce.strategies.profiles(seqform.compile_tree(efce.job_market()))
    >>> res = efce.solve_lp(prof, "welfare")
    >>> res.max_regret == 0, sum(res.payoffs)
    (True, Fraction(9, 1))
    """
    t0 = time.perf_counter()
    from seqform.lp.highs import INF, solve_highs

    trigs = triggers(prof) if trigs is None else trigs
    A_ub, b_ub, A_eq, b_eq, nv = _constraints(prof, trigs, float(eps))
    K = prof.count
    N = prof.tree.num_players
    if isinstance(objective, str):
        if objective == "welfare":
            c = prof.utility.sum(axis=1)
        elif objective == "feasibility":
            c = np.zeros(K)
        else:
            raise SeqformError(f"unknown objective {objective!r}; use 'welfare', 'feasibility' or a vector")
    else:
        w = np.asarray(objective, dtype=float)
        c = prof.utility @ w if w.shape == (N,) else w
        if c.shape != (K,):
            raise SeqformError(f"objective: give {N} player weights or {K} profile weights, not {w.shape}")
    A = sp.vstack([A_ub, A_eq]).tocsc()
    row_lower = np.r_[np.full(len(b_ub), -INF), b_eq]
    col_lower = np.r_[np.zeros(K), np.full(nv, -INF)]
    try:
        res = solve_highs(
            A, np.r_[c, np.zeros(nv)], col_lower, np.full(K + nv, INF), row_lower, np.r_[b_ub, b_eq], maximize=True
        )
    except SolverError as e:
        raise SolverError(f"HiGHS could not solve the EFCE LP of {prof.tree.name!r}: {e}") from None
    return _finish(prof, res.col_value[:K], float(res.objective), "lp", max_denominator, t0)


def max_entropy(
    prof: Profiles, weights=None, *, base: str = "full", max_denominator: int = 10**6, trigs: list | None = None
) -> EFCEResult:
    """Compute the EFCE that maximises entropy plus weighted expected payoffs, with cvxpy.

    Maximises H(p) + w . E_p[u] over the EFCE polytope (Dudik & Gordon 2009, "A Sampling-Based
    Approach to Computing Equilibria in Succinct Extensive-Form Games", eq. 2) with cvxpy
    (exponential cone; Clarabel, else SCS): the exact ground truth the sampling algorithm
    (``efce.sample_efce``) approximates. The distribution is rounded to rationals and its largest
    causal-deviation regret recomputed exactly, as in ``solve_lp``.

    Parameters
    ----------
    prof : Profiles
        The game's reduced strategy profiles (``efce.profiles(tree)``).
    weights : sequence of float, optional
        w, one per player (None: 0, the maximum-entropy EFCE).
    base : str, default "full"
        "full" or "reduced": entropy over full pure strategy profiles (as in Dudik & Gordon 2009,
        whose q_0 is uniform over all of them: a reduced profile standing for m full ones counts
        p log m extra) or over the reduced profiles themselves (the ``efce.exact`` module
        docstring).
    max_denominator : int, default ``10**6``
        Rounding bound for the exact regret check (as ``solve_lp``).
    trigs : list of Trigger, optional
        The causal deviations' blocks (default: all of them, ``efce.exact.triggers(prof)``).

    Returns
    -------
    EFCEResult
        ``p`` (floats), ``p_exact`` (rationals summing to 1), ``payoffs`` (exact, per player),
        ``max_regret`` (exact), ``worst`` deviation, ``objective`` (the optimal value), ``method``
        ("max_entropy").

    Raises
    ------
    SolverError
        cvxpy finds no solution.
    SeqformError
        ``weights`` or ``base`` is invalid.

    Examples
    --------
    >>> import seqform, efce
    >>> prof = efce.strategies.profiles(seqform.compile_tree(efce.job_market()))
    >>> res = efce.max_entropy(prof)
    >>> res.method, sum(res.p_exact), res.max_regret <= 1e-5
    ('max_entropy', Fraction(1, 1), True)
    """
    t0 = time.perf_counter()
    import cvxpy as cp

    trigs = triggers(prof) if trigs is None else trigs
    A_ub, b_ub, A_eq, b_eq, nv = _constraints(prof, trigs)
    K = prof.count
    N = prof.tree.num_players
    w = np.zeros(N) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (N,):
        raise SeqformError(f"weights: give one per player ({N}), not {len(w)}")
    if base not in ("full", "reduced"):
        raise SeqformError(f"base must be 'full' or 'reduced', not {base!r}")
    p = cp.Variable(K, nonneg=True)
    v = cp.Variable(nv) if nv else None
    x = cp.hstack([p, v]) if nv else p
    lin = prof.utility @ w + (prof.log_base if base == "full" else 0.0)
    obj = cp.Maximize(cp.sum(cp.entr(p)) + lin @ p)
    cons = [cp.sum(p) == 1]
    if A_ub.shape[0]:
        cons.append(A_ub @ x <= b_ub)
    prob = cp.Problem(obj, cons)
    for solver in ("CLARABEL", "SCS"):
        if solver in cp.installed_solvers():
            try:
                # tight tolerances: the entropy is flat near its maximum, and at the defaults the
                # payoffs of the job market game come out 1e-4 from the optimum (boosting with exact
                # expectations finds higher entropy there)
                with warnings.catch_warnings():  # "may be inaccurate": the exact regret check below decides
                    warnings.simplefilter("ignore", UserWarning)
                    prob.solve(solver=solver, **(_TIGHT if solver == "CLARABEL" else {}))
            except cp.error.SolverError:
                continue
            if prob.status in ("optimal", "optimal_inaccurate"):
                break
    if p.value is None:
        raise SolverError(f"cvxpy found no maximum-entropy EFCE of {prof.tree.name!r} (status {prob.status})")
    return _finish(prof, np.asarray(p.value), float(prob.value), "max_entropy", max_denominator, t0)

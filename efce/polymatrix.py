"""Dudik & Gordon (2009)'s exponential family q_lambda for a *polymatrix* game: one simultaneous move per
player, and each player's payoff a sum of two-player games with its neighbours,
u_i(s) = sum_{j in nb(i)} M_ij[s_i, s_j]. The grid game (Dudik & Gordon 2009, section 2.1; Vickrey & Koller
2002) is one. Its tree has 3^(L^2) leaves, so the tree engine (``efce.treemodel``) stops at 3 x 3;
this engine works on the graph, with the same deviations, statistics and interface.

With one information set per player, a causal deviation is a trigger (i, a) and one action b
(the correlated-equilibrium deviations): r_phi(s) = [s_i = a] (v_i(s)[b] - v_i(s)[a]), where
v_i(s)[b] = sum_j M_ij[b, s_j] is what i would earn playing b. The energy is

    sum_i  w_i v_i[s_i] + Lam[i, s_i] v_i[s_i] - sum_b L[(i, s_i), b] v_i[b]

(lambda aggregated per trigger, ``efce.family``). Each term is linear in v_i, a sum over i's
neighbours, so the energy is a sum over the graph's edges {i, j} of a table Phi_ij[s_i, s_j]
(``edge_tables``): q_lambda is a pairwise Markov random field on the game's own graph. Player k's
conditional is softmax over a of sum_j Phi_kj[a, s_j], and players that are not neighbours have
independent conditionals: a Gibbs sweep redraws one colour class of the graph at a time (greedy
colouring; two classes on a grid), in every chain at once (section 3.3's MCMC with every move
accepted, as in ``efce.treemodel``).

Best deviation (section 3.2): for trigger (i, a), g[b] = sum_s om_s [s_i = a] v_i(s)[b]; the best
deviation is argmax_b g[b], its regret (max_b g[b] - g[a]) / sum om: the causal-deviation dynamic
program of ``efce.deviationdp`` on sub-treeplexes of one information set each. g is linear in the weighted
sample's joint action counts on the edges, P_ij[a, c] = sum_s om_s [s_i = a, s_j = c]: a round
reads one number per edge and profile (``weighted``), and after a round's step only the profiles
where the step's trigger fires change weight, so the counts are carried over by adding theirs
(``reweight``). Late in a 20 x 20 grid run those are about a tenth of the sample.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
- Vickrey & Koller (2002), "Multi-Agent Algorithms for Solving Graphical Games", AAAI.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from seqform.errors import SeqformError

from .deviationdp import CausalDeviationDP, TreeplexItem
from .family import Deviation, DeviationFamily, SampleStats, gumbel_draw, scaled_reweight

# A few ulps: the relative rounding of a sum of positive terms as carried by ``reweight``
_ROUNDING = 4 * np.finfo(float).eps


@dataclass
class Polymatrix:
    """``num_actions`` (N,), ``neighbours`` (tuple per player), ``matrices[i][j]`` (A_i, A_j):
    player i's payoffs in its game with neighbour j, floats. ``keys``: each player's
    information-set key in the game's tree (for reporting deviations)."""

    num_actions: tuple
    neighbours: tuple
    matrices: list
    keys: tuple


class PolymatrixModel(DeviationFamily):
    """q_lambda over the profiles of the polymatrix game ``pm`` with utility weights ``w``."""

    REFRESH = 256  # carried updates of the weighted edge counts between full products (``reweight``)
    CARRY_RTOL = 1e-12  # largest carried rounding bound, relative to each count, before a full product
    kind = "polymatrix"

    def __init__(self, pm: Polymatrix, w: np.ndarray):
        N = self.N = len(pm.num_actions)
        self.pm = pm
        self.w = np.asarray(w, dtype=float)
        if self.w.shape != (N,):
            raise SeqformError(f"weights: give one per player ({N}), not {len(self.w)}")
        self.M = N  # one information set per player
        self.A = np.asarray(pm.num_actions, dtype=np.int64)
        A = self.Amax = int(self.A.max())
        dmax = max(1, max(len(nb) for nb in pm.neighbours))
        self.nbr = np.full((N, dmax), N, dtype=np.int64)  # N: a padding player, always action 0
        self.Mst = np.zeros((N, dmax, A, A))
        for i, nb in enumerate(pm.neighbours):
            for d, j in enumerate(nb):
                m = np.asarray(pm.matrices[i][j], dtype=float)
                if m.shape != (self.A[i], self.A[j]):
                    raise SeqformError(
                        f"polymatrix: player {i}'s matrix against {j} has shape {m.shape}, "
                        f"expected ({self.A[i]}, {self.A[j]})"
                    )
                self.nbr[i, d] = j
                self.Mst[i, d, : m.shape[0], : m.shape[1]] = m
        # where k sits in each neighbour's list: rev[k, d] = position of k in nbr[nbr[k, d]]
        self.rev = np.zeros((N, dmax), dtype=np.int64)
        for k in range(N):
            for d, j in enumerate(pm.neighbours[k]):
                if k not in pm.neighbours[j]:
                    raise SeqformError(f"polymatrix: {k} lists {j} as a neighbour but {j} does not list {k}")
                self.rev[k, d] = pm.neighbours[j].index(k)
        self.range = np.array(
            [sum(float(np.ptp(np.asarray(pm.matrices[i][j], dtype=float))) for j in pm.neighbours[i]) for i in range(N)]
        )
        # the graph's edges, each once (i < j): j is i's edi-th neighbour
        first = (self.nbr < N) & (np.arange(N)[:, None] < self.nbr)
        self.ei, self.edi = np.nonzero(first)
        self.ej = self.nbr[self.ei, self.edi]
        self.ntrig = N * A
        self.pbase = np.arange(self.ntrig + 1, dtype=np.int64) * A
        self._family_setup()
        # the causal-deviation dynamic program: each trigger (i, a), a < A_i, is one information
        # set with i's own A_i actions, so one level; triggers a >= A_i have none (value 0)
        self.dp = CausalDeviationDP(
            [
                TreeplexItem(0, int(self.pbase[i * A + a]), int(self.A[i]), -1, i * A + a, i)
                for i in range(N)
                for a in range(int(self.A[i]))
            ],
            self.ntrig,
        )
        self.W = self._counts_to_pairs()
        self.classes = _colouring(pm.neighbours)

    def set_weights(self, w: np.ndarray) -> None:
        """Make ``w`` (N,) the utility weights of the energy (every table reads ``self.w``)."""
        self.w = np.asarray(w, dtype=float)

    def objective_is_constant(self, w: np.ndarray) -> bool:
        """Whether w . u(s) is known to be the same on every profile: this model does not test
        it (edge tables can cancel each other's variation), and answers False."""
        return False

    def payoff_denominator(self) -> int:
        """0: the polymatrix game's matrices are floats, their common denominator unknown here
        (a game may declare it, ``efce.family.DeclaresPayoffDenominator``)."""
        return 0

    def _v(self, S: np.ndarray, players: np.ndarray) -> np.ndarray:
        """v_i(s)[b] for the players (any shape P): (C, *P, A)."""
        opp = S[:, self.nbr[players]]  # (C, *P, dmax)
        return self.Mst[players[None, ..., None], np.arange(self.nbr.shape[1]), :, opp].sum(-2)

    def _term(self, i: np.ndarray, si: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Player i's energy term with action si and payoff vector v (shapes (...), (...), (..., A))."""
        t = i * self.Amax + si
        vs = np.take_along_axis(v, si[..., None], -1)[..., 0]
        Lrow = self.L[(t * self.Amax)[..., None] + np.arange(self.Amax)]
        return (self.w[i] + self.Lam[t]) * vs - (Lrow * v).sum(-1)

    def energy(self, S: np.ndarray) -> np.ndarray:
        """w . u(s) - lambda . r(s) for every row of S (profiles x (players + 1)): (C,)."""
        P = np.arange(self.N)
        v = self._v(S, P)
        return self._term(P[None, :], S[:, : self.N], v).sum(1)

    def edge_tables(self) -> np.ndarray:
        """Phi (N, dmax, A, A): Phi[k, d, a, c] is the energy of the edge between k and its d-th
        neighbour j when s_k = a and s_j = c: player k's term's share from j, (w_k + Lam[k, a])
        M_kj[a, c] - sum_b L[(k, a), b] M_kj[b, c], plus j's share from k. The energy of a
        profile is the sum over edges (each once); padding neighbours' tables are 0."""
        N, A = self.N, self.Amax
        L3 = self.L[: N * A * A].reshape(N, A, A)  # (k, a, b)
        lam = self.w[:, None] + self.Lam[: N * A].reshape(N, A)  # (k, a)
        phi = lam[:, None, :, None] * self.Mst - np.einsum("kab,kdbc->kdac", L3, self.Mst)
        live = self.nbr < N
        J = np.minimum(self.nbr, N - 1)
        back = phi[J, self.rev].transpose(0, 1, 3, 2)  # j's share, as (a, c)
        return phi + np.where(live[:, :, None, None], back, 0.0)

    def sweep(self, S: np.ndarray, rng: np.random.Generator, chunk: int = 2048) -> None:
        """One Gibbs sweep over every colour class, in every row of S (in place)."""
        A = self.Amax
        dmax = self.nbr.shape[1]
        # row (k, d, c) of T: the energies over s_k of k's edge with its d-th neighbour playing c
        T = self.edge_tables().transpose(0, 1, 3, 2).reshape(-1, A)
        for K in self.classes:
            base = (K[:, None] * dmax + np.arange(dmax)) * A  # (K, dmax)
            nbK = self.nbr[K]
            for lo in range(0, len(S), chunk):
                Sc = S[lo : lo + chunk]
                E = T[base[None, :, 0] + Sc[:, nbK[:, 0]]]
                for d in range(1, dmax):
                    E += T[base[None, :, d] + Sc[:, nbK[:, d]]]
                Sc[:, K] = gumbel_draw(E, self.A[K], rng)

    def statistics(self, S: np.ndarray) -> SampleStats:
        """G (C, pairs + 1): v_i(s)[b] at pair ((i, s_i), b); B (C, triggers + 1): v_i(s)[s_i]
        at trigger (i, s_i); U (C, N)."""
        C, N, A = len(S), self.N, self.Amax
        v = self._v(S, np.arange(N))  # (C, N, A)
        s = S[:, :N]
        t = np.arange(N) * A + s  # (C, N)
        rows = np.repeat(np.arange(C), N * A)
        cols = ((t * A)[..., None] + np.arange(A)).ravel()
        G = sp.csr_matrix((v.ravel(), (rows, cols)), shape=(C, self.npairs + 1))
        u = np.take_along_axis(v, s[..., None], -1)[..., 0]
        B = sp.csr_matrix((u.ravel(), (np.repeat(np.arange(C), N), t.ravel())), shape=(C, self.ntrig + 1))
        return SampleStats(G, B, u, S.astype(np.min_scalar_type(A)))

    def _edge_indicators(self, st: SampleStats) -> tuple:
        """(X (E A A, C), keys (C, E)), built once per sample: keys[s, e] = (e, s_i, s_j) as a
        row of X, for each edge e = {i, j} (i < j), and X[keys[s, e], s] = 1. X om are the
        weighted sample's joint action counts on the edges."""
        if st.aux is None:
            S, A, E = st.S, self.Amax, len(self.ei)
            assert S is not None  # this model's statistics keep the profiles
            keys = np.ascontiguousarray(
                np.arange(E) * (A * A) + S[:, self.ei].astype(np.int64) * A + S[:, self.ej], dtype=np.int32
            )
            C = len(S)
            rows = sp.csr_matrix((np.ones(C * E), keys.ravel(), np.arange(C + 1) * E), shape=(C, E * A * A))
            st.aux = (rows.T.tocsr(), keys)
        return st.aux

    def _counts_to_pairs(self) -> sp.csr_matrix:
        """W (pairs + 1, E A A): om G = W P for the weighted joint action counts P on the edges,
        g[(i, a), b] = sum over i's neighbours j and their actions c of M_ij[b, c] P_ij[a, c].
        Count (e, a, c) of edge e = {i, j} (i < j) enters g[(i, a), b] with M_ij[b, c] and
        g[(j, c), b] with M_ji[b, a]."""
        A, E = self.Amax, len(self.ei)
        e, a, c, b = np.meshgrid(np.arange(E), np.arange(A), np.arange(A), np.arange(A), indexing="ij")
        col = (e * A + a) * A + c
        di, dj = self.edi, self.rev[self.ei, self.edi]  # j's place among i's neighbours, i's among j's
        i, j = self.ei[e], self.ej[e]
        rows = np.concatenate([((i * A + a) * A + b).ravel(), ((j * A + c) * A + b).ravel()])
        vals = np.concatenate([self.Mst[i, di[e], b, c].ravel(), self.Mst[j, dj[e], b, a].ravel()])
        return sp.csr_matrix(
            (vals, (rows, np.concatenate([col.ravel(), col.ravel()]))), shape=(self.npairs + 1, E * A * A)
        )

    def _from_counts(self, P: np.ndarray, total: float) -> tuple:
        """(om G, om B, sum om) from the weighted joint action counts P (E A A,) on the edges
        (``_counts_to_pairs``); om B at (i, a) is g[(i, a), a]."""
        gp = self.W @ P
        base = np.zeros(self.ntrig + 1)
        base[: self.ntrig] = gp[self.pbase[:-1] + np.arange(self.ntrig) % self.Amax]
        return gp, base, total

    def weighted(self, st: SampleStats, om: np.ndarray) -> tuple:
        """(om G, om B, sum om), as ``DeviationFamily.weighted``, from the weighted joint action
        counts on the graph's edges (``_from_counts``). An edge is counted once for both ends, so
        a round reads |edges| numbers per profile where om G reads players x actions (760
        against 1,200 on the 20 x 20 grid, and om B another 400)."""
        if st.cache is None or st.cache[0] is not om:  # keyed as in DeviationFamily.weighted
            P = self._edge_indicators(st)[0] @ om
            st.cache = (om, self._from_counts(P, float(om.sum())), P, 0, _ROUNDING * P)
        return st.cache[1]

    def reweight(self, st: SampleStats, om: np.ndarray, step: float, rs: np.ndarray) -> np.ndarray:
        """``DeviationFamily.reweight``, and the edge counts carried over to the new weights when
        om's are cached: only the profiles where phi's trigger fires (rs != 0) change weight
        beyond the common scale kappa, so P' = kappa P + X[:, R] (om'_R - kappa om_R). Late in a
        20 x 20 grid run R is about a tenth of the sample. The full product is redone when R is
        over a quarter of it (then it is cheaper), after ``REFRESH`` carried updates, and when the
        carried rounding bound exceeds ``CARRY_RTOL`` of any count: the subtraction cancels when
        the fired profiles' weights fall by orders of magnitude, and each bit lost compounds."""
        new, kappa = scaled_reweight(om, step, rs)
        c = st.cache
        if c is None or c[0] is not om or c[3] >= self.REFRESH:
            return new
        R = np.flatnonzero(rs)
        if 4 * len(R) > len(om):
            return new
        X, keys = self._edge_indicators(st)
        n, E = len(R), keys.shape[1]
        XR = sp.csc_matrix(
            (X.data[: n * E], keys[R].ravel(), np.arange(n + 1, dtype=np.int32) * E), shape=(X.shape[0], n)
        )
        P = kappa * c[2] + XR @ (new[R] - kappa * om[R])
        # |rounding| of each count, carried: the old bound scaled, plus a few ulps of every term
        err = kappa * c[4] + _ROUNDING * (kappa * c[2] + XR @ (new[R] + kappa * om[R]))
        if np.any(err > self.CARRY_RTOL * P):
            return new  # the cache keyed by om goes stale; weighted() redoes the full product
        st.cache = (new, self._from_counts(P, float(new.sum())), P, c[3] + 1, err)
        return new

    def deviation_regrets(self, st: SampleStats, dev: Deviation) -> np.ndarray:
        """r_phi(s) = [s_i = a] (v_i(s)[b] - v_i(s)[a]) for every sampled profile: (C,)."""
        i, a, b = dev.player, dev.action, dev.plan[0]
        S = st.S
        assert S is not None  # this model's statistics keep the profiles
        R = np.flatnonzero(S[:, i] == a)
        D = self.Mst[i, :, b, :] - self.Mst[i, :, a, :]  # (dmax, A) by the neighbour's action
        r = np.zeros(len(S))
        r[R] = D[np.arange(len(D)), S[np.ix_(R, self.nbr[i])]].sum(1)
        return r

    def best_deviation(self, st: SampleStats, om: np.ndarray) -> tuple:
        """(largest regret, its Deviation, every trigger's regret (triggers,)) on the sample
        weighted by om (C,), by the causal-deviation dynamic program (``efce.deviationdp``): for
        trigger (i, a), max_b g[(i, a), b] - g[(i, a), a]. Every regret of a trigger (i, a) with
        a < A_i is at least 0 (b = a is a deviation), so the largest is one of theirs."""
        A = self.Amax
        g, base, total = self.weighted(st, om)
        val, dv = self.dp.solve(g)
        reg = (dv - base[: self.ntrig]) / total
        t = int(np.argmax(reg))
        i, a = t // A, t % A
        b = self.dp.strategy(t, val)[0][i]
        key = self.pm.keys[i]
        return float(reg[t]), Deviation(i, key, a, {key: b}, t, (b,)), reg

    def bound(self, dev: Deviation, rmax: float) -> float:
        """|r_phi(s)| is at most the range of the deviating player's payoff."""
        return float(min(rmax, self.range[dev.player])) if self.range[dev.player] > 0 else float(rmax)


def _colouring(neighbours: tuple) -> list:
    """Greedy colouring of the game's graph: arrays of players, no two neighbours in one."""
    N = len(neighbours)
    colour = [-1] * N
    for k in range(N):
        used = {colour[j] for j in neighbours[k] if colour[j] >= 0}
        colour[k] = next(c for c in range(N + 1) if c not in used)
    return [np.array([k for k in range(N) if colour[k] == c], dtype=np.int64) for c in range(max(colour) + 1)]

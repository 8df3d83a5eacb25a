"""The sparsified sequence-form LP of a game with ordered signals, built from GameShrink's classes.

The payoff matrix of the abstract game (``lossless.abstractlp``) repeats, at every leaf of round r,
that round's *card matrix* (``lossless.cardmatrices``: the chance mass of each pair of classes,
split by showdown outcome) times the leaf's payoff. Zhang & Sandholm (2020, "Sparsified Linear
Programming for Zero-Sum Equilibrium Finding", ICML) and Farina & Sandholm (2022, "Fast Payoff
Matrix Sparsification Techniques for Structured Extensive-Form Games", AAAI) replace such a matrix
by a product of much sparser ones, introducing auxiliary variables for the intermediate vectors.
The factorisation used here, found and verified exactly round by round (a round where it does not
hold keeps its explicit entries):

* **blocks**: the connected components of the class pairs some world reaches (in poker, one per
  class of public board);
* **rank one plus a sparse correction**: within a block, the total mass is ``W = a b^T - E``
  (poker: every pair of private hands, less the pairs that share a card, ``E``);
* **sorted showdowns**: in the last round each class holds one complete hand, of rank ``rho``, so
  the mass where player 0 is ahead is ``[rho0[c0] > rho1[c1]] * W``, and likewise for ties and
  for player 1 ahead.

Then the block of a leaf z in the LP's row of player 1's class c1 is

    b[c1] (pay_ahead S_> + pay_tie S_= + pay_behind S_<) - sum_c0 E[c0, c1] pay(c0, c1) x[c0],

with S the sums of ``a[c0] x[c0]`` over the block's player-0 classes ranked above, level with and
below c1: three prefix sums over the block's rank levels. The prefix sums are auxiliary variables,
one chain per (player 0's last sequence before the leaves, block): ``u_k - u_{k-1} - sum_{c0 at
level k} a[c0] x[c0] = 0``. A leaf costs about three nonzeros per class instead of the block's
size, and the chains are shared by the leaves after the same sequence of player 0.

The LP is otherwise ``seqform.lp.zerosumlp``'s: maximise q_0 subject to ``E x = e``, ``x >= 0`` and
``A^T x - F^T q >= 0`` (one row per sequence of player 1; its duals are player 1's plan), with
``A^T x`` written as above.

References:

- Zhang & Sandholm (2020), "Sparsified Linear Programming for Zero-Sum Equilibrium Finding", ICML.
- Farina & Sandholm (2022), "Fast Payoff Matrix Sparsification Techniques for Structured
  Extensive-Form Games", AAAI.
- Koller, Megiddo & von Stengel (1996), "Efficient Computation of Equilibria for Extensive
  Two-Person Games", Games and Economic Behavior.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from seqform.lp.highs import INF, solve_highs

from .abstractlp import check_abstract_lp, constraint_matrices, payoff_entries
from .betting import FOLD, SHOWDOWN
from .cardmatrices import CardMatrices, card_matrices
from .errors import AbstractionError
from .gameshrink import Abstraction
from .sequencelayout import SequenceLayout, sequence_layout

#: a round is factorised only if its correction E has at most this share of its blocks' pairs
MAX_CORRECTION_SHARE = 0.25


@dataclass
class RoundFactor:
    """The factorisation of round r's card matrices (module docstring), over player 0's n0 and
    player 1's n1 classes: ``block0`` (n0,), ``block1`` (n1,) block ids; ``a`` (n0,), ``b``
    (n1,) with ``W = a b^T - E`` inside blocks (``b`` in probability units); ``E`` (COO, n0 x n1,
    probability units); ``level0`` (n0,) rank level of each class of player 0 within its block,
    from 1; ``nlevels``, ``level_offset`` per block; ``le1``, ``lt1`` (n1,): player 0's levels in
    c1's block ranked at or below, and strictly below, c1; ``e_sign``: sign(rho0 - rho1) at E's
    entries (0 when the round has no showdown)."""

    r: int
    block0: np.ndarray
    block1: np.ndarray
    a: np.ndarray
    b: np.ndarray
    E: sp.coo_matrix
    level0: np.ndarray
    nlevels: np.ndarray
    level_offset: np.ndarray
    le1: np.ndarray
    lt1: np.ndarray
    e_sign: np.ndarray

    @property
    def num_levels(self) -> int:
        return int(self.nlevels.sum())


def factor_round(
    layout: SequenceLayout,
    cards: CardMatrices,
    r: int,
    showdown: bool,
    max_correction_share: float = MAX_CORRECTION_SHARE,
) -> RoundFactor | None:
    """Round r's factorisation, or None where it does not hold exactly (weighted decks, a class
    without a single hand rank) or does not pay (a correction E above ``max_correction_share`` of
    the blocks' pairs)."""
    ab = layout.abstraction
    st = ab.signals
    if not cards.exact:
        return None
    T = cards.total[r].tocsr()
    n0, n1 = T.shape
    if T.nnz == 0:
        return None
    Ti = np.rint(T.data).astype(np.int64)
    if not np.array_equal(Ti.astype(np.float64), T.data):
        return None
    T = sp.csr_matrix((Ti, T.indices, T.indptr), shape=T.shape)
    nc, lab = connected_components(sp.bmat([[None, T], [T.T, None]]).tocsr(), directed=False)
    block0, block1 = lab[:n0].astype(np.int64), lab[n0:].astype(np.int64)
    ahat = np.asarray(T.max(axis=1).todense()).ravel().astype(np.int64)
    bhat = np.asarray(T.max(axis=0).todense()).ravel().astype(np.int64)
    mxb = np.zeros(nc, dtype=np.int64)
    np.maximum.at(mxb, block0, ahat)
    # every pair of classes of the same block
    n1b = np.bincount(block1, minlength=nc)
    order1 = np.argsort(block1, kind="stable")
    start1 = np.concatenate([[0], np.cumsum(n1b)[:-1]])
    seg = n1b[block0]
    rows = np.repeat(np.arange(n0), seg)
    offs = np.arange(len(rows)) - np.repeat(np.cumsum(seg) - seg, seg)
    cols = order1[start1[block0[rows]] + offs]
    prod = ahat[rows] * bhat[cols]
    den = mxb[block0[rows]]
    if np.any(prod % den):
        return None
    P = sp.csr_matrix(((prod // den), (rows, cols)), shape=T.shape)
    E = (P - T).tocoo()
    E.eliminate_zeros()
    if E.nnz > max_correction_share * len(rows):
        return None
    scale = cards.scale
    a = ahat / mxb[block0]
    b = bhat / scale
    e_sign = np.zeros(E.nnz, dtype=np.int64)
    if showdown:
        assert st.hand_rank is not None  # build_signal_tree always ranks the hands
        rho = []
        for i, n in ((0, n0), (1, n1)):
            hr, cl = st.hand_rank[i].astype(np.int64), layout.cls[i][r]
            lo = np.full(n, np.iinfo(np.int64).max)
            hi = np.full(n, np.iinfo(np.int64).min)
            np.minimum.at(lo, cl, hr)
            np.maximum.at(hi, cl, hr)
            if not np.array_equal(lo, hi):
                return None  # a class holds hands of different ranks
            rho.append(lo)
        rho0, rho1 = rho
        # the outcome matrices must be the total split by the sign of rho0 - rho1
        Tc = T.tocoo()
        s = np.sign(rho0[Tc.row] - rho1[Tc.col])
        for o, out in enumerate(cards.outcomes):
            want = {(0, 1): 1, (0, 0): 0, (1, 0): -1}.get(tuple(out))
            if want is None:
                return None
            M = sp.csr_matrix((Tc.data * (s == want), (Tc.row, Tc.col)), shape=T.shape)
            D = (cards.by_outcome[r][o] - M).tocsr()
            D.eliminate_zeros()
            if D.nnz:
                return None
        span = int(max(rho0.max(), rho1.max())) + 2
        keys = block0 * span + rho0
        uniq = np.unique(keys)
        level_block = uniq // span
        nlevels = np.bincount(level_block, minlength=nc)
        level_offset = np.concatenate([[0], np.cumsum(nlevels)[:-1]])
        level0 = np.searchsorted(uniq, keys) - level_offset[block0] + 1
        k1 = block1 * span + rho1
        le1 = np.searchsorted(uniq, k1, side="right") - level_offset[block1]
        lt1 = np.searchsorted(uniq, k1, side="left") - level_offset[block1]
        e_sign = np.sign(rho0[E.row] - rho1[E.col])
    else:
        nlevels = np.ones(nc, dtype=np.int64)
        level_offset = np.arange(nc, dtype=np.int64)
        level0 = np.ones(n0, dtype=np.int64)
        le1 = np.ones(n1, dtype=np.int64)
        lt1 = np.zeros(n1, dtype=np.int64)
    Ef = sp.coo_matrix((E.data / scale, (E.row, E.col)), shape=E.shape)
    return RoundFactor(
        r,
        block0,
        block1,
        a,
        b,
        Ef,
        level0.astype(np.int64),
        nlevels,
        level_offset,
        le1.astype(np.int64),
        lt1.astype(np.int64),
        e_sign,
    )


@dataclass
class SparsifiedLP:
    """The sparsified LP (module docstring): constraint matrix ``K`` (CSC) over the columns
    [x (n_x), q (n_q), auxiliaries (n_aux)] and rows [E (m_e), player 1's sequences (n_y),
    chains (n_aux)]; ``factored`` rounds and ``explicit`` ones; sizes and nonzeros."""

    K: sp.csc_matrix
    n_x: int
    n_q: int
    n_aux: int
    m_e: int
    n_y: int
    e: np.ndarray
    factored: list
    explicit: list
    seconds: float = 0.0
    layout: SequenceLayout | None = field(default=None, repr=False)

    @property
    def rows(self) -> int:
        return self.K.shape[0]

    @property
    def columns(self) -> int:
        return self.K.shape[1]

    @property
    def nonzeros(self) -> int:
        return self.K.nnz


def sparsified_lp(
    ab: Abstraction,
    layout: SequenceLayout | None = None,
    cards: CardMatrices | None = None,
    progress=None,
    max_correction_share: float = MAX_CORRECTION_SHARE,
    memory_limit_bytes: int | None = None,
) -> SparsifiedLP:
    """Build the sparsified LP of ``ab``'s abstract game (module docstring), round by round:
    factorised where the structure holds exactly (and pays: ``factor_round``), explicit entries
    elsewhere. ``TooLargeError`` before the card matrices are built when even the LP's constraints
    alone would not fit in ``memory_limit_bytes`` (default ``seqform.model.limits.memory_limit()``;
    its payoff part's size is known only once factorised: ``lossless.abstractlp.check_abstract_lp``)."""
    say = progress or (lambda msg: None)
    t0 = time.perf_counter()
    if ab.game.num_players != 2:
        raise AbstractionError("the sequence-form LP is for two players")
    lay = layout if layout is not None else sequence_layout(ab)
    check_abstract_lp(lay, memory_limit_bytes, count_payoffs=False, what="the sparsified LP")
    cards = cards if cards is not None else card_matrices(lay)
    bet = ab.game.betting
    (E, e), (F, f) = constraint_matrices(lay)
    m_e, n_x = E.shape
    n_q, n_y = F.shape
    R, C, V = [], [], []  # K's entries; auxiliary columns and chain rows are numbered from 0, shifted at the end
    AR, AC, AV = [], [], []  # auxiliary columns (row, aux index, value) in payoff rows
    CR, CC, CV = [], [], []  # chain rows: (chain index, column, value), column < 0: aux -(col + 1)
    Ec = E.tocoo()
    R.append(Ec.row)
    C.append(Ec.col)
    V.append(Ec.data)
    Fc = F.tocoo()
    R.append(m_e + Fc.col)
    C.append(n_x + Fc.row)
    V.append(-Fc.data)
    n_aux = 0
    factored, explicit = [], []
    for r in range(bet.num_rounds):
        leaves = bet.nodes_of_round(r, FOLD, SHOWDOWN)
        if not leaves:
            continue
        has_showdown = any(bet.kind[v] == SHOWDOWN for v in leaves)
        fac = factor_round(lay, cards, r, has_showdown, max_correction_share)
        if fac is None:
            say(f"round {r + 1}: explicit payoff entries ({len(leaves)} leaves)")
            ar, ac, av = payoff_entries(lay, [r])
            for a_, c_, v_ in zip(ar, ac, av):
                R.append(m_e + c_.astype(np.int64))
                C.append(a_.astype(np.int64))
                V.append(v_)
            explicit.append(r)
            continue
        factored.append(r)
        n0, n1 = len(fac.a), len(fac.b)
        L = fac.num_levels
        say(
            f"round {r + 1}: factorised ({len(fac.nlevels):,} blocks, {L:,} rank levels, correction "
            f"{fac.E.nnz:,} entries, {len(leaves)} leaves)"
        )
        c0 = np.arange(n0)
        c1 = np.arange(n1)
        lev_col0 = fac.level_offset[fac.block0] + fac.level0 - 1  # level index of each class of player 0
        prev = np.ones(L, dtype=bool)
        prev[fac.level_offset] = False  # the first level of each block has no predecessor
        groups: dict = {}
        for v in leaves:
            own0 = lay.parent_of[v][0]
            xcol = lay.seq_of(0, own0, r, c0)
            if own0 not in groups:
                base = n_aux
                n_aux += L
                groups[own0] = base
                k = np.arange(L)
                CR += [base + k, base + k[prev], base + lev_col0]
                CC += [-(base + k) - 1, -(base + k[prev] - 1) - 1, xcol]
                CV += [np.ones(L), -np.ones(int(prev.sum())), -fac.a]
            base = groups[own0]
            yrow = m_e + lay.seq_of(1, lay.parent_of[v][1], r, c1)
            last = base + fac.level_offset[fac.block1] + fac.nlevels[fac.block1] - 1
            if bet.kind[v] == FOLD:
                pay = float(bet.payoff[v][0])
                AR.append(yrow)
                AC.append(last)
                AV.append(fac.b * pay)
                epay = np.full(fac.E.nnz, pay)
            else:
                table = bet.payoff[v]
                pw, pt, pl = (float(table[o][0]) for o in ((0, 1), (0, 0), (1, 0)))
                AR.append(yrow)
                AC.append(last)
                AV.append(fac.b * pw)
                for lev, coef in ((fac.le1, pt - pw), (fac.lt1, pl - pt)):
                    ok = lev >= 1
                    if coef != 0 and ok.any():
                        AR.append(yrow[ok])
                        AC.append(base + fac.level_offset[fac.block1[ok]] + lev[ok] - 1)
                        AV.append(fac.b[ok] * coef)
                epay = np.select([fac.e_sign > 0, fac.e_sign == 0], [pw, pt], pl)
            if fac.E.nnz:
                R.append(yrow[fac.E.col])
                C.append(xcol[fac.E.row])
                V.append(-fac.E.data * epay)
    say("assembling the sparsified LP")
    n_cols = n_x + n_q + n_aux
    n_rows = m_e + n_y + n_aux
    aux0 = n_x + n_q
    if AR:
        R.append(np.concatenate(AR))
        C.append(aux0 + np.concatenate(AC))
        V.append(np.concatenate(AV))
    if CR:
        cc = np.concatenate(CC)
        R.append(m_e + n_y + np.concatenate(CR))
        C.append(np.where(cc < 0, aux0 + (-cc - 1), cc))
        V.append(np.concatenate(CV))
    K = sp.csc_matrix(
        (np.concatenate(V), (np.concatenate(R).astype(np.int64), np.concatenate(C).astype(np.int64))),
        shape=(n_rows, n_cols),
    )
    K.sum_duplicates()
    K.eliminate_zeros()
    K.sort_indices()
    return SparsifiedLP(K, n_x, n_q, n_aux, m_e, n_y, e, factored, explicit, time.perf_counter() - t0, lay)


@dataclass
class SparsifiedSolution:
    """HiGHS on the sparsified LP: ``value`` (player 0's, float), plans ``x`` (player 0's, the
    primal) and ``y`` (player 1's, the duals of its rows), the LP's sizes and HiGHS's ``seconds``,
    ``iterations`` and ``method``."""

    value: float
    x: np.ndarray
    y: np.ndarray
    lp: SparsifiedLP
    seconds: float
    iterations: int
    method: str


def solve_sparsified(
    lp: SparsifiedLP,
    method: str = "ipm",
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict | None = None,
) -> SparsifiedSolution:
    """Solve the sparsified LP with HiGHS (``seqform.lp.highs.solve_highs``; ``method`` and
    ``options`` as there). Raises ``SolverError`` when HiGHS does not reach an optimum."""
    n_cols = lp.columns
    cost = np.zeros(n_cols)
    cost[lp.n_x] = 1.0
    lower = np.concatenate([np.zeros(lp.n_x), np.full(lp.n_q + lp.n_aux, -INF)])
    upper = np.full(n_cols, INF)
    rlo = np.concatenate([lp.e, np.zeros(lp.n_y), np.zeros(lp.n_aux)])
    rhi = np.concatenate([lp.e, np.full(lp.n_y, INF), np.zeros(lp.n_aux)])
    res = solve_highs(
        lp.K,
        cost,
        lower,
        upper,
        rlo,
        rhi,
        maximize=True,
        method=method,
        time_limit=time_limit,
        verbose=verbose,
        options=options,
    )
    x = np.clip(res.col_value[: lp.n_x], 0.0, None)
    y = -res.row_dual[lp.m_e : lp.m_e + lp.n_y]
    if y[0] < 0:  # HiGHS's dual sign convention for maximisation
        y = -y
    return SparsifiedSolution(res.objective, x, np.clip(y, 0.0, None), lp, res.seconds, res.iterations, method)


__all__ = ["RoundFactor", "SparsifiedLP", "SparsifiedSolution", "factor_round", "solve_sparsified", "sparsified_lp"]

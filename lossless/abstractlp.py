"""The sequence form of an abstraction, built straight from GameShrink's classes, without the
game tree (for games such as full Rhode Island Hold'em, whose abstract game tree has billions of
nodes while its sequence form has a few million rows).

The sequences and information sets are numbered by ``lossless.sequencelayout``: player i's
information sets are the pairs (class c during round r, betting node v of round r where i acts),
its sequences the triples (c, v, action). A leaf z of round r contributes, for every pair of classes (c0, c1)
during round r that some world reaches, chance(c0, c1) x payoff to A[seq_0(c0, z), seq_1(c1, z)];
at a showdown, the payoff is summed over the outcomes of the pair's worlds. This is the matrix
``seqform.sequence_form`` builds from the compiled abstract game (tests compare the LP values),
with the same E, F, A layout (``seqform.lp.sequenceform``), so ``seqform.lp.zerosumlp.solve_lp`` solves it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from seqform.lp.sequenceform import SequenceForm
from seqform.model.limits import check_lp, check_tables, memory_limit

from .betting import FOLD, SHOWDOWN
from .errors import AbstractionError
from .gameshrink import Abstraction, compact
from .sequencelayout import SequenceLayout, sequence_layout


def abstract_sequence_form(ab: Abstraction, progress=None, memory_limit_bytes: int | None = None) -> SequenceForm:
    """E, e, F, f, A (``seqform.lp.sequenceform.SequenceForm`` with ``tree=None``) of the abstract
    game of ``ab``, a two-player zero-sum game with ordered signals (module docstring).
    ``TooLargeError`` before any matrix is built when HiGHS could not hold the LP within
    ``memory_limit_bytes`` (default ``seqform.model.limits.memory_limit()``; ``check_abstract_lp``)."""
    say = progress or (lambda msg: None)
    if ab.game.num_players != 2:
        raise AbstractionError("the sequence-form LP is for two players")
    lay = sequence_layout(ab)
    check_abstract_lp(lay, memory_limit_bytes, count_payoffs=True)
    (E, e), (F, f) = constraint_matrices(lay)
    ar, ac, av = payoff_entries(lay, range(ab.game.betting.num_rounds), say)
    say("assembling A")
    A = sp.csr_matrix(
        (np.concatenate(av), (np.concatenate(ar), np.concatenate(ac))),
        shape=(lay.num_sequences[0], lay.num_sequences[1]),
    )
    A.sum_duplicates()
    A.eliminate_zeros()
    return SequenceForm(None, E, e, F, f, A)


def constraint_matrices(lay: SequenceLayout) -> list:
    """``[(E, e), (F, f)]``: each player's sequence-form constraints (one row per information set
    and the root row), as ``seqform.lp.sequenceform`` lays them out."""
    bet = lay.abstraction.game.betting
    mats = []
    for i in range(2):
        rows, cols, vals = [np.array([0])], [np.array([0])], [np.array([1.0])]
        for v in sorted(lay.ibase):
            if bet.player[v] != i:
                continue
            r = bet.round[v]
            c = np.arange(lay.ncls[i][r])
            row = 1 + lay.ibase[v] + c
            rows.append(row)
            cols.append(lay.seq_of(i, lay.parent_of[v][i], r, c))
            vals.append(-np.ones(len(c)))
            for a in range(len(bet.actions[v])):
                rows.append(row)
                cols.append(lay.base[v, a] + c)
                vals.append(np.ones(len(c)))
        M = sp.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(1 + lay.num_infosets[i], lay.num_sequences[i]),
        )
        vec = np.zeros(1 + lay.num_infosets[i])
        vec[0] = 1.0
        mats.append((M, vec))
    return mats


def payoff_entries(lay: SequenceLayout, rounds, say=None) -> tuple:
    """The payoff matrix's entries ``(rows, cols, values)`` (lists of arrays, duplicates to be
    summed) from the leaves of the given rounds, over the pairs of classes the worlds reach:
    chance mass times payoff, player 0's."""
    say = say or (lambda msg: None)
    ab = lay.abstraction
    st, bet = ab.signals, ab.game.betting
    cls = lay.cls
    prob = None if st.prob is None else np.array([float(p) for p in st.prob])
    nout = len(st.outcomes)
    ar, ac, av = [], [], []
    for r in rounds:
        leaves = bet.nodes_of_round(r, FOLD, SHOWDOWN)
        if not leaves:
            continue
        say(f"payoffs of round {r + 1}: {len(leaves)} leaves")
        pair = compact([cls[0][r], cls[1][r]])
        npairs = int(pair.max()) + 1
        first = np.unique(pair, return_index=True)[1]
        c0, c1 = cls[0][r][first], cls[1][r][first]
        weight = np.bincount(pair, weights=prob, minlength=npairs) / (st.num_worlds if prob is None else 1.0)
        omass: np.ndarray | None = None
        for v in leaves:
            if bet.kind[v] == FOLD:
                val = weight * float(bet.payoff[v][0])
            else:
                if omass is None:
                    omass = np.bincount(
                        pair * nout + st.outcome.astype(np.int64), weights=prob, minlength=npairs * nout
                    ).reshape(npairs, nout)
                    omass = omass / (st.num_worlds if prob is None else 1.0)
                val = omass @ np.array([float(bet.payoff[v][o][0]) for o in st.outcomes])
            keep = val != 0
            own = lay.parent_of[v]
            ar.append(lay.seq_of(0, own[0], r, c0[keep]).astype(np.int32))
            ac.append(lay.seq_of(1, own[1], r, c1[keep]).astype(np.int32))
            av.append(val[keep])
    return ar, ac, av


def lp_shape(lay: SequenceLayout) -> tuple[int, int, int]:
    """Rows, columns and the nonzeros of E and F of the abstract LP (as ``seqform.solve`` counts
    them: rows 1 + |I_0| + |Sigma_1|, columns |Sigma_0| + 1 + |I_1|; E has one entry per sequence and
    one per information set, and so has F)."""
    s0, s1 = lay.num_sequences
    i0, i1 = lay.num_infosets
    return 1 + i0 + s1, s0 + 1 + i1, s0 + i0 + s1 + i1


def check_abstract_lp(
    lay: SequenceLayout,
    memory_limit_bytes: int | None = None,
    count_payoffs: bool = True,
    what: str = "the abstract LP",
) -> None:
    """``TooLargeError`` (``seqform.model.limits.check_lp``, the one check every LP passes) when
    the abstract LP of ``lay`` would not fit: first on E and F alone (a lower bound, no counting),
    then with ``count_payoffs`` on A's exact nonzeros (``lossless.sizes.payoff_nonzeros``: one
    pass over the worlds per round, far less memory than the entries themselves)."""
    from .sizes import payoff_nonzeros

    ab = lay.abstraction
    limit = memory_limit() if memory_limit_bytes is None else memory_limit_bytes
    rows, cols, ef = lp_shape(lay)
    check_lp(ab.game.name, rows, cols, ef, limit, what=f"{what} (its constraints alone, A not counted)")
    if count_payoffs:
        check_lp(ab.game.name, rows, cols, ef + payoff_nonzeros(ab, abstract=True), limit, what=what)


#: CFR+ in vector form (``lossless.vectorcfr``), per sequence of either player: its regret-matched
#: behaviour, regrets, realization plan, average and the leaf values' temporaries
VECTOR_CFR_BYTES_PER_SEQUENCE = 96
#: per entry of a card matrix: a CSR entry (value and index) and its transpose's, while built
VECTOR_CFR_BYTES_PER_CARD_ENTRY = 48


def check_vector_cfr(lay: SequenceLayout, memory_limit_bytes: int | None = None) -> None:
    """``TooLargeError`` before CFR+ in vector form allocates its tables on ``lay`` when they
    would not fit in ``memory_limit_bytes`` (default ``seqform.model.limits.memory_limit()``): the
    per-sequence arrays, and per round the card matrices (total and one per showdown outcome), of
    at most min(worlds, classes x classes) entries each."""
    ab = lay.abstraction
    st = ab.signals
    per_seq = VECTOR_CFR_BYTES_PER_SEQUENCE * sum(lay.num_sequences)
    entries = sum(
        min(st.num_worlds, lay.ncls[0][r] * lay.ncls[1][r]) * (1 + len(st.outcomes))
        for r in range(ab.game.betting.num_rounds)
    )
    check_tables(
        ab.game.name, "CFR+ in vector form", per_seq + entries * VECTOR_CFR_BYTES_PER_CARD_ENTRY, memory_limit_bytes
    )

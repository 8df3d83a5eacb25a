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

from .betting import FOLD, SHOWDOWN
from .errors import AbstractionError
from .gameshrink import Abstraction, compact
from .sequencelayout import sequence_layout


def abstract_sequence_form(ab: Abstraction, progress=None) -> SequenceForm:
    """E, e, F, f, A (``seqform.lp.sequenceform.SequenceForm`` with ``tree=None``) of the abstract
    game of ``ab``, a two-player zero-sum game with ordered signals (module docstring)."""
    say = progress or (lambda msg: None)
    game, st, bet = ab.game, ab.signals, ab.game.betting
    if game.num_players != 2:
        raise AbstractionError("the sequence-form LP is for two players")
    nr = bet.num_rounds
    lay = sequence_layout(ab)
    cls, ncls, base, ibase, parent_of = lay.cls, lay.ncls, lay.base, lay.ibase, lay.parent_of
    nseq, ninf = lay.num_sequences, lay.num_infosets
    seq_of = lay.seq_of

    mats = []
    for i in range(2):
        rows, cols, vals = [np.array([0])], [np.array([0])], [np.array([1.0])]
        for v in sorted(ibase):
            if bet.player[v] != i:
                continue
            r = bet.round[v]
            c = np.arange(ncls[i][r])
            row = 1 + ibase[v] + c
            rows.append(row)
            cols.append(seq_of(i, parent_of[v][i], r, c))
            vals.append(-np.ones(len(c)))
            for a in range(len(bet.actions[v])):
                rows.append(row)
                cols.append(base[v, a] + c)
                vals.append(np.ones(len(c)))
        M = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(1 + ninf[i], nseq[i]))
        vec = np.zeros(1 + ninf[i])
        vec[0] = 1.0
        mats.append((M, vec))
    # the payoff matrix, round by round, over the pairs of classes the worlds reach
    prob = None if st.prob is None else np.array([float(p) for p in st.prob])
    nout = len(st.outcomes)
    ar, ac, av = [], [], []
    for r in range(nr):
        leaves = bet.nodes_of_round(r, FOLD, SHOWDOWN)
        if not leaves:
            continue
        say(f"payoffs of round {r + 1}: {len(leaves)} leaves")
        pair = compact([cls[0][r], cls[1][r]])
        npairs = int(pair.max()) + 1
        first = np.unique(pair, return_index=True)[1]
        c0, c1 = cls[0][r][first], cls[1][r][first]
        weight = np.bincount(pair, weights=prob, minlength=npairs) / (st.num_worlds if prob is None else 1.0)
        omass = None
        for v in leaves:
            if bet.kind[v] == FOLD:
                val = weight * float(bet.payoff[v][0])
            else:
                if omass is None:
                    omass = np.bincount(pair * nout + st.outcome.astype(np.int64), weights=prob,
                                        minlength=npairs * nout).reshape(npairs, nout)
                    omass = omass / (st.num_worlds if prob is None else 1.0)
                val = omass @ np.array([float(bet.payoff[v][o][0]) for o in st.outcomes])
            keep = val != 0
            own = parent_of[v]
            ar.append(seq_of(0, own[0], r, c0[keep]).astype(np.int32))
            ac.append(seq_of(1, own[1], r, c1[keep]).astype(np.int32))
            av.append(val[keep])
    say("assembling A")
    A = sp.csr_matrix((np.concatenate(av), (np.concatenate(ar), np.concatenate(ac))), shape=(nseq[0], nseq[1]))
    A.sum_duplicates()
    A.eliminate_zeros()
    (E, e), (F, f) = mats
    return SequenceForm(None, E, e, F, f, A)

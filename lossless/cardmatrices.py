"""The card part of a game with ordered signals: who holds what, and who wins a showdown.

The payoff matrix of a two-player game with ordered signals is a sum of Kronecker-like products of
a betting part (a leaf's payoff) and a card part: for round r, the chance mass of every pair
(class of player 0, class of player 1) during round r's betting, in total (``total[r]``, for the
leaves whose payoff does not depend on the cards: folds) and split by showdown outcome
(``by_outcome[r][o]``). A leaf z of round r contributes ``payoff(z) * total[r]`` (fold) or
``sum_o payoff(z, o) * by_outcome[r][o]`` (showdown) to the block of the sequences that lead to it.

The matrices count worlds (complete deals) for a uniform deck, so their entries are integers,
exact in float64 below 2**53; divide by ``scale`` (the number of worlds) for probabilities. For a
weighted deck the entries are the worlds' probabilities, rounded to float64 (``exact`` False).

References:

- Gilpin & Sandholm (2007), "Lossless Abstraction of Imperfect Information Games", Journal of the ACM.
- Johanson, Waugh, Bowling & Zinkevich (2011), "Accelerating Best Response Calculation in Large
  Extensive Games", IJCAI (the betting part and the card part kept apart).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .gameshrink import compact
from .sequencelayout import SequenceLayout


@dataclass
class CardMatrices:
    """Per round r: ``total[r]`` and ``by_outcome[r][o]`` (CSR, ncls[0][r] x ncls[1][r], module
    docstring), their transposes ``total_t``, ``by_outcome_t`` (CSR), ``outcomes`` (the showdown
    outcomes, as ``lossless.betting.outcomes``), ``scale`` (divide by it for probabilities),
    ``exact`` (entries are exact integers) and ``max_row_nnz`` per round and side (0: rows of
    ``total``, 1: its columns), for error bounds."""

    total: list
    by_outcome: list
    total_t: list
    by_outcome_t: list
    outcomes: list
    scale: float
    exact: bool
    max_row_nnz: list

    @property
    def nnz(self) -> int:
        return sum(m.nnz for m in self.total) + sum(m.nnz for per in self.by_outcome for m in per)


def card_matrices(layout: SequenceLayout) -> CardMatrices:
    """The card matrices of ``layout``'s abstraction (module docstring), built from its worlds in
    one pass per round (vectorised over the worlds)."""
    ab = layout.abstraction
    st = ab.signals
    nr = ab.game.betting.num_rounds
    prob = None if st.prob is None else np.array([float(p) for p in st.prob])
    nout = len(st.outcomes)
    total, by_out, total_t, by_out_t, rownnz = [], [], [], [], []
    for r in range(nr):
        c0, c1 = layout.cls[0][r], layout.cls[1][r]
        n0, n1 = layout.ncls[0][r], layout.ncls[1][r]
        pair = compact([c0, c1])
        first = np.unique(pair, return_index=True)[1]
        p0, p1 = c0[first], c1[first]
        npairs = len(first)
        w = np.bincount(pair, weights=prob, minlength=npairs)
        om = np.bincount(pair * nout + st.outcome.astype(np.int64), weights=prob, minlength=npairs * nout).reshape(
            npairs, nout
        )
        t = sp.csr_matrix((w, (p0, p1)), shape=(n0, n1))
        total.append(t)
        total_t.append(t.T.tocsr())
        per, per_t = [], []
        for o in range(nout):
            keep = om[:, o] != 0
            m = sp.csr_matrix((om[keep, o], (p0[keep], p1[keep])), shape=(n0, n1))
            per.append(m)
            per_t.append(m.T.tocsr())
        by_out.append(per)
        by_out_t.append(per_t)
        rownnz.append((int(np.diff(t.indptr).max(initial=0)), int(np.diff(total_t[-1].indptr).max(initial=0))))
    scale = 1.0 if prob is not None else float(st.num_worlds)
    return CardMatrices(total, by_out, total_t, by_out_t, list(st.outcomes), scale, prob is None, rownnz)


__all__ = ["CardMatrices", "card_matrices"]

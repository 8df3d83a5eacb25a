"""Exact best responses over a compiled tree, in rational arithmetic (python-flint ``fmpq``).

The exact twin of ``seqform.verify.exploitability.backward_pass``: for player p's sequence payoffs ``g`` (the
others' exact reach times chance times p's utility, summed per sequence), one pass over p's
information sets, deepest first, gives the best-response value ``max_a (g[(I,a)] + value below)``
and, for a behavioural strategy ``b``, the strategy's own value. Used by the certificate (is the
LP solution an exact equilibrium?) and by ``seqform.evaluate`` (exploitability and per-information-set
regret of any rational profile). ``scaled_best_response_value`` is the certificate's fast form of
the best-response value: the payoffs as integer numerators over one common denominator, one numpy
step per level of the player's information sets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import flint
import numpy as np

from seqform.model.tree import Tree


@dataclass
class ExactPass:
    """One player's exact backward pass (``fmpq``): ``best`` and ``current`` unnormalised values
    per information set of the player (dict global id -> value); ``value_best`` (best-response
    value) and ``value_current`` (the player's value under the profile); ``choice``: per
    information set, the sequence a pure best response takes there (the first action among ties),
    whether or not the player's own plan reaches the set."""

    best: dict
    current: dict
    value_best: flint.fmpq
    value_current: flint.fmpq
    choice: dict = field(default_factory=dict)


def exact_backward_pass(tree: Tree, p: int, g: list, b: list | None = None) -> ExactPass:
    """Player ``p``'s exact best (and, given behaviour ``b``, current) values at each of its
    information sets for sequence payoffs ``g`` (fmpq lists), bottom-up: discovery order numbers an
    information set after the one above it, so reverse global-id order is bottom-up."""
    n = tree.num_sequences[p]
    best_below = [flint.fmpq(0)] * n
    cur_below = [flint.fmpq(0)] * n
    best, cur, choice = {}, {}, {}
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    for i in reversed(tree.player_infosets[p].tolist()):
        f, k = int(first[i]), int(nact[i])
        vb = None
        vc = flint.fmpq(0)
        for s in range(f, f + k):
            gs = g[s]
            v = gs + best_below[s]
            if vb is None or v > vb:
                vb = v
                choice[i] = s
            if b is not None and b[s]:
                vc += b[s] * (gs + cur_below[s])
        assert vb is not None  # an information set has at least one action
        best[i], cur[i] = vb, vc
        ps = int(pseq[i])
        best_below[ps] += vb
        cur_below[ps] += vc
    return ExactPass(best, cur, g[0] + best_below[0], g[0] + cur_below[0], choice)


def exact_best_response_value(tree: Tree, p: int, g: list) -> flint.fmpq:
    """Player ``p``'s exact best-response value (maximising) for exact sequence payoffs ``g``."""
    return exact_backward_pass(tree, p, g).value_best


def scaled_best_response_value(tree: Tree, p: int, g: np.ndarray):
    """Player ``p``'s exact best-response value (maximising) for sequence payoffs ``g / D``, given
    the numerators ``g`` over one positive common denominator D: shape (num_sequences[p],), an
    int64 array, or an object array of Python ints or fmpq. Returns the value's numerator over
    the same D (a positive scale commutes with the maxima and sums of the backward pass), a
    Python int or an fmpq. One ``np.maximum.reduceat`` and one ``np.add.at`` per level of
    ``tree.levels``; on a deep narrow tree (``Tree.is_narrow``) one scalar loop instead."""
    if g.dtype != object and float(np.abs(g.astype(np.float64)).sum()) >= 2.0**61:
        # every value of the pass is a sum of distinct entries of g (those one pure strategy
        # reaches below), so at most sum |g|: int64 would not overflow below 2^61 (the float
        # sum's relative error is far below the margin left)
        g = g.astype(object)
    if tree.is_narrow(p):
        return _scaled_value_scalar(tree, p, g.tolist())
    below = np.zeros(len(g), dtype=g.dtype)
    for _lvl, seqs, starts, parents in tree.levels[p]:
        vb = np.maximum.reduceat(g[seqs] + below[seqs], starts)
        np.add.at(below, parents, vb)
    v = g[0] + below[0]
    return v if isinstance(v, flint.fmpq) else int(v)


def _scaled_value_scalar(tree: Tree, p: int, g: list):
    """``scaled_best_response_value`` by one loop over the information sets, deepest first."""
    order = tree.level_order[p][0]
    below = [0] * len(g)
    for f, k, par in zip(
        tree.infoset_first_seq[order].tolist(),
        tree.infoset_num_actions[order].tolist(),
        tree.infoset_parent_seq[order].tolist(),
    ):
        below[par] += max(g[s] + below[s] for s in range(f, f + k))
    return g[0] + below[0]

"""The sequence form of a two-player game (Koller, Megiddo & von Stengel 1996; Bosansky 2019).

Player 1 (our player 0) chooses a realization plan ``x >= 0`` with ``E x = e``, player 2 a plan
``y >= 0`` with ``F y = f``; player 0's expected payoff is ``x^T A y`` with chance folded into
``A``: ``A[s1, s2] = sum over leaves z with sequences (s1, s2) of chance(z) * u_0(z)``.

Rows of ``E`` (shape ``(1 + |I_1|, |Sigma_1|)``): row 0 is ``x[empty] = 1``; row ``1 + i`` is
``sum_a x[(I_i, a)] - x[parent(I_i)] = 0`` for the player's i-th information set. Likewise F.

References:

- Bosansky (2019), "Solving Extensive-Form Games", lecture, Multiagent Systems, Czech Technical University in Prague.
- Koller, Megiddo & von Stengel (1996), "Efficient Computation of Equilibria for Extensive Two-Person Games", Games and
  Economic Behavior.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from seqform.errors import UnsupportedGameError
from seqform.model.tree import Tree


def constraint_matrix(tree: Tree, p: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """``(E, e)`` for player ``p``: shape ``(1 + |I_p|, |Sigma_p|)`` and ``(1 + |I_p|,)``."""
    ids = tree.player_infosets[p]
    nact = tree.infoset_num_actions[ids]
    local = np.arange(1, len(ids) + 1)
    rows = np.concatenate(([0], local, np.repeat(local, nact)))
    first = np.repeat(tree.infoset_first_seq[ids], nact)
    offs = np.arange(nact.sum()) - np.repeat(np.cumsum(nact) - nact, nact)
    cols = np.concatenate(([0], tree.infoset_parent_seq[ids], first + offs))
    vals = np.concatenate(([1.0], -np.ones(len(ids)), np.ones(nact.sum())))
    E = sp.csr_matrix((vals, (rows, cols)), shape=(len(ids) + 1, tree.num_sequences[p]))
    e = np.zeros(len(ids) + 1)
    e[0] = 1.0
    return E, e


@dataclass(eq=False)
class SequenceForm:
    """Sparse sequence form of a two-player constant-sum game. See the module docstring.

    ``A`` is player 0's payoff; player 1's is ``constant_sum - x^T A y``.
    """

    tree: Tree | None  # None for an LP built without a game tree (lossless.abstractlp)
    E: sp.csr_matrix
    e: np.ndarray
    F: sp.csr_matrix
    f: np.ndarray
    A: sp.csr_matrix
    constant_sum: Fraction = field(default=Fraction(0))

    def game_tree(self) -> Tree:
        """``tree``, for the steps that need the game (``UnsupportedGameError`` when this sequence
        form was built without one, as ``lossless.abstractlp`` builds it)."""
        if self.tree is None:
            raise UnsupportedGameError("this sequence form was built without its game tree")
        return self.tree

    @cached_property
    def A_exact(self) -> tuple[np.ndarray, np.ndarray, list]:
        """``A``'s nonzeros exactly: ``(rows, cols, values)``, values int or Fraction (ints stay
        ints: a Fraction per entry cost a second on a 100,000-leaf chain)."""
        acc = exact_payoff_entries(self.game_tree(), 0)
        rows = np.asarray([k[0] for k in acc], dtype=np.int64)
        cols = np.asarray([k[1] for k in acc], dtype=np.int64)
        return rows, cols, list(acc.values())

    def payoff(self, x: np.ndarray, y: np.ndarray) -> float:
        """Player 0's expected payoff ``x^T A y``."""
        return float(x @ (self.A @ y))


def exact_payoff_entries(tree: Tree, p: int, shift=0) -> dict:
    """Player ``p``'s sequence-form payoff matrix exactly, as its nonzeros: ``(s0, s1) -> sum over
    the leaves z with sequences (s0, s1) of chance(z) (u_p(z) - shift)`` (int or Fraction)."""
    acc: dict = {}
    s1 = tree.node_seq[0, tree.terminals].tolist()
    s2 = tree.node_seq[1, tree.terminals].tolist()
    for i, key in enumerate(zip(s1, s2)):
        v = tree.terminal_chance_exact[i] * (tree.payoff_exact[i][p] - shift)
        if v:
            acc[key] = acc.get(key, 0) + v
    return {k: v for k, v in acc.items() if v != 0}


def sequence_form(tree: Tree) -> SequenceForm:
    """Build ``E, e, F, f, A`` for a two-player constant-sum tree (``UnsupportedGameError`` otherwise)."""
    if tree.num_players != 2:
        raise UnsupportedGameError(
            f"{tree.name!r} has {tree.num_players} players; the sequence-form LP solves two-player zero-sum games"
        )
    if tree.constant_sum is None:
        raise UnsupportedGameError(
            f"{tree.name!r} is not zero-sum (nor constant-sum): the payoffs of its "
            f"leaves do not add up to one constant; the zero-sum LP does not apply"
        )
    E, e = constraint_matrix(tree, 0)
    F, f = constraint_matrix(tree, 1)
    t = tree.terminals
    w = tree.terminal_chance * tree.payoff[:, 0]
    A = sp.csr_matrix(
        (w, (tree.node_seq[0, t], tree.node_seq[1, t])), shape=(tree.num_sequences[0], tree.num_sequences[1])
    )
    A.sum_duplicates()
    A.eliminate_zeros()
    return SequenceForm(tree, E, e, F, f, A, tree.constant_sum)

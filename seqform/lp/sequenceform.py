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

import math
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
    #: ``A``'s nonzeros exactly, ``(rows, cols, values)`` as ``A_exact`` gives them, for a sequence
    #: form built without a game tree (``lossless.exactabstractlp``); None: from the tree
    exact_entries: tuple | None = None

    def game_tree(self) -> Tree:
        """``tree``, for the steps that need the game (``UnsupportedGameError`` when this sequence
        form was built without one, as ``lossless.abstractlp`` builds it)."""
        if self.tree is None:
            raise UnsupportedGameError("this sequence form was built without its game tree")
        return self.tree

    @cached_property
    def A_exact(self) -> tuple[np.ndarray, np.ndarray, list]:
        """``A``'s nonzeros exactly: ``(rows, cols, values)``, values int or Fraction (an integral
        value is an int), in the order of the first leaf of each entry."""
        if self.exact_entries is not None:
            return self.exact_entries
        ent = self.A_integer
        if ent is None:
            acc = _payoff_entries_by_leaf(self.game_tree(), 0, 0)
            rows = np.asarray([k[0] for k in acc], dtype=np.int64)
            cols = np.asarray([k[1] for k in acc], dtype=np.int64)
            return rows, cols, list(acc.values())
        return ent.rows, ent.cols, ent.values()

    @cached_property
    def A_integer(self) -> IntegerEntries | None:
        """``A``'s nonzeros as integers over one common denominator (``integer_payoff_entries``):
        what exact certificates compute with. None when the leaves' denominators are too diverse,
        or when the sequence form carries its ``exact_entries`` instead of a tree."""
        if self.exact_entries is not None:
            return None
        return integer_payoff_entries(self.game_tree(), 0)

    def payoff(self, x: np.ndarray, y: np.ndarray) -> float:
        """Player 0's expected payoff ``x^T A y``."""
        return float(x @ (self.A @ y))


#: ``integer_payoff_entries`` gives up past a common denominator this long (every numerator would be
#: about as long): unrelated rational payoffs; ``exact_payoff_entries`` then adds Fractions leaf by leaf
MAX_DENOMINATOR_BITS = 1024

#: numbers below this stay in int64: a product of two of them, or a sum of many, is checked against 2^63
_INT64_SAFE = 1 << 62


@dataclass(frozen=True, eq=False)
class IntegerEntries:
    """A sparse matrix's nonzeros as integers over one common denominator:
    ``M[rows[k], cols[k]] = nums[k] / den`` (``den > 0``; a fraction not necessarily in lowest
    terms). ``rows``, ``cols``: int64 arrays; ``nums``: an int64 array when every entry fits with
    room to spare (below 2^62), else an object array of Python ints."""

    rows: np.ndarray
    cols: np.ndarray
    nums: np.ndarray
    den: int

    def values(self) -> list:
        """The entries as exact numbers: an int when integral, else a Fraction. Equal entries
        share one object: the Fractions are built once per distinct value."""
        if not len(self.nums):
            return []
        uniq, inv = np.unique(self.nums, return_inverse=True)
        d = self.den
        vals = [int(v) // d if int(v) % d == 0 else Fraction(int(v), d) for v in uniq.tolist()]
        table = np.empty(len(vals), dtype=object)
        table[:] = vals
        return table[inv.reshape(-1)].tolist()


def _int_array(values: list) -> np.ndarray:
    """Python ints as an int64 array when all lie below 2^62 in magnitude, else an object array."""
    if values and max(max(values), -min(values)) < _INT64_SAFE:
        return np.array(values, dtype=np.int64)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _magnitude(a: np.ndarray) -> int:
    """The largest ``|a[k]|`` as a Python int (0 when empty)."""
    return int(np.abs(a).max()) if len(a) else 0


def _times(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise exact product of integer arrays: int64 when it cannot overflow, else Python ints."""
    if a.dtype == object or b.dtype == object or _magnitude(a) * _magnitude(b) >= _INT64_SAFE:
        return a.astype(object) * b.astype(object)
    return a * b


def _distinct(values: list) -> tuple[list, np.ndarray]:
    """The distinct objects among ``values`` and, per entry, its object's position. The compiler
    shares one object among the leaves with the same chance probability or payoffs (Leduc with 5
    ranks: 460 chance objects for 32,760 leaves), so each distinct *object* is read once (``id``
    is sound: the list keeps them all alive)."""
    ids = np.fromiter(map(id, values), dtype=np.uint64, count=len(values))
    _, first, inv = np.unique(ids, return_index=True, return_inverse=True)
    return [values[i] for i in first.tolist()], inv.reshape(-1)


def _over_lcm(values: list, max_bits: int, shift: Fraction = Fraction(0)) -> tuple[np.ndarray, int] | None:
    """Exact rationals (ints and Fractions) minus ``shift``, as integers over the lcm L of their
    denominators and shift's: ``(array, L)``; None when L has more than ``max_bits`` bits."""
    dens = [v.denominator for v in values]
    L = 1
    for q in set(dens) | {shift.denominator}:
        L = math.lcm(L, q)
        if L.bit_length() > max_bits:
            return None
    s = shift.numerator * (L // shift.denominator)
    return _int_array([v.numerator * (L // q) - s for v, q in zip(values, dens)]), L


def integer_payoff_entries(tree: Tree, p: int, shift=0) -> IntegerEntries | None:
    """Player ``p``'s sequence-form payoff matrix exactly, as integers over one common
    denominator D: the nonzeros ``(s0, s1) -> sum over the leaves z with sequences (s0, s1) of
    chance(z) (u_p(z) - shift)``, each times D, in the order of each entry's first leaf. D is the
    lcm of the chance probabilities' denominators times that of the payoffs' (and ``shift``'s);
    None when D would exceed ``MAX_DENOMINATOR_BITS`` bits. One numpy sort groups the leaves by
    entry: no Fraction is built."""
    chance, chance_of = _distinct(tree.terminal_chance_exact)
    mine, mine_of = _distinct([v[p] for v in tree.payoff_exact])
    c = _over_lcm(chance, MAX_DENOMINATOR_BITS)
    u = _over_lcm(mine, MAX_DENOMINATOR_BITS, Fraction(shift))
    if c is None or u is None or (c[1] * u[1]).bit_length() > MAX_DENOMINATOR_BITS:
        return None
    v = _times(c[0][chance_of], u[0][mine_of])
    t = tree.terminals
    keep = np.flatnonzero(v != 0)
    rows = tree.node_seq[0, t[keep]].astype(np.int64)
    cols = tree.node_seq[1, t[keep]].astype(np.int64)
    n1 = int(tree.num_sequences[1])
    key = rows * n1 + cols
    v = v[keep]
    if not len(key):
        empty = np.zeros(0, dtype=np.int64)
        return IntegerEntries(empty, empty, empty, c[1] * u[1])
    if v.dtype != object and _magnitude(v) * len(v) >= _INT64_SAFE:
        v = v.astype(object)  # the sums below could overflow
    order = np.argsort(key, kind="stable")
    ks = key[order]
    starts = np.flatnonzero(np.concatenate(([True], ks[1:] != ks[:-1])))
    sums = np.add.reduceat(v[order], starts)
    # back to first-leaf order (the stable sort puts each entry's first leaf at its start)
    by_first = np.argsort(order[starts], kind="stable")
    ks, sums = ks[starts][by_first], sums[by_first]
    nz = np.flatnonzero(sums != 0)
    ks, sums = ks[nz], sums[nz]
    return IntegerEntries(ks // n1, ks % n1, sums, c[1] * u[1])


def exact_payoff_entries(tree: Tree, p: int, shift=0) -> dict:
    """Player ``p``'s sequence-form payoff matrix exactly, as its nonzeros: ``(s0, s1) -> sum over
    the leaves z with sequences (s0, s1) of chance(z) (u_p(z) - shift)`` (int or Fraction), in the
    order of each entry's first leaf."""
    ent = integer_payoff_entries(tree, p, shift)
    if ent is None:
        return _payoff_entries_by_leaf(tree, p, shift)
    return dict(zip(zip(ent.rows.tolist(), ent.cols.tolist()), ent.values()))


def _payoff_entries_by_leaf(tree: Tree, p: int, shift) -> dict:
    """``exact_payoff_entries`` by adding Fractions leaf by leaf (unrelated rational payoffs)."""
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

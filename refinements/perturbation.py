"""Perturbed sequence-form polytopes: lower bounds on realization plans, polynomial in eps.

A perturbation gives every sequence ``s`` of player p (other than the empty one) two kinds of lower
bound, each a polynomial in the tremble size eps with rational coefficients:

* **behavioural**: ``x[s] >= beta_s(eps) * x[parent(s)]``: the action ending ``s`` is played with
  probability at least ``beta_s(eps)`` wherever its information set is reached. Farina & Gatti
  (2017)'s extensive-form perfect (EFPE) perturbation is ``beta_s = eps`` (Kroer, Farina & Sandholm 2017, section 2.1:
  the uniform perturbation ``eta(a) = eps``);
* **realization**: ``x[s] >= lambda_s(eps)``. Miltersen & Sorensen (2010)'s quasi-perfect (QPE)
  perturbation is ``lambda_s = eps^|s|``, ``|s|`` the number of the player's own actions in ``s``.
  The exponent matters: a uniform bound ``x[s] >= eps`` is *not* a QPE perturbation (deep
  sequences would be forced to tremble as much as shallow ones, distorting the limit), and is
  deliberately not offered as one.

Polynomials are stored as ``{power: coefficients}`` with one coefficient array (Fractions, one per
sequence) per power ``>= 1``: a perturbation vanishes at eps = 0, so the unperturbed game is its
limit.

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
- Miltersen & Sorensen (2010), "Computing a Quasi-Perfect Equilibrium of a Two-Player Game", Economic Theory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from seqform.model.tree import Tree

from .errors import PerturbationError

Poly = dict  # power (int >= 1) -> list of Fractions, one per sequence


@dataclass
class Perturbation:
    """Lower bounds on both players' realization plans (see the module docstring).

    ``behavioural[p]`` and ``realization[p]``: polynomials ``{power: [Fraction] * n_p}``;
    ``name``: "efpe", "qpe" or "custom". Build with ``efpe``, ``qpe`` or ``custom``.
    """

    name: str
    behavioural: list
    realization: list
    _floats: dict = field(default_factory=dict, repr=False)

    def beta(self, p: int, eps: float) -> np.ndarray:
        """Player p's behavioural lower bounds at ``eps``, shape (n_p,)."""
        return self._at(self.behavioural[p], p, eps, "b")

    def lam(self, p: int, eps: float) -> np.ndarray:
        """Player p's realization lower bounds at ``eps``, shape (n_p,)."""
        return self._at(self.realization[p], p, eps, "l")

    def beta_exact(self, p: int, eps: Fraction) -> list:
        """Player p's behavioural lower bounds at a rational ``eps``, exactly (Fractions)."""
        return self._exact(self.behavioural[p], p, eps)

    def lam_exact(self, p: int, eps: Fraction) -> list:
        """Player p's realization lower bounds at a rational ``eps``, exactly (Fractions)."""
        return self._exact(self.realization[p], p, eps)

    def bounds(self, tree: Tree, p: int, eps) -> tuple:
        """Player p's ``(behavioural, realization)`` lower bounds at ``eps``, one per sequence,
        zeros where the perturbation has none: Fractions for a Fraction ``eps``, else float arrays."""
        n = tree.num_sequences[p]
        if isinstance(eps, Fraction):
            return (self.beta_exact(p, eps) or [Fraction(0)] * n, self.lam_exact(p, eps) or [Fraction(0)] * n)
        return (
            self.beta(p, eps) if self.behavioural[p] else np.zeros(n),
            self.lam(p, eps) if self.realization[p] else np.zeros(n),
        )

    def mass_needed(self, tree: Tree, p: int, eps: float) -> np.ndarray:
        """The least mass each of player p's sequences must carry for the realization bounds at
        ``eps`` below it to be met: ``need(s) = max(lambda_s, sum of need over the actions of each
        information set after s)``, bottom-up; floats, shape (n_p,)."""
        need = self.bounds(tree, p, float(eps))[1].copy()
        for _lvl, seqs, starts, parents in tree.levels[p]:
            np.maximum.at(need, parents, np.add.reduceat(need[seqs], starts))
        return need

    def _exact(self, poly: Poly, p: int, eps: Fraction) -> list:
        n = len(next(iter(poly.values()))) if poly else 0
        out = [Fraction(0)] * n
        for k, v in poly.items():
            f = Fraction(eps) ** k
            out = [a + c * f for a, c in zip(out, v)]
        return out

    def _at(self, poly: Poly, p: int, eps: float, kind: str) -> np.ndarray:
        key = (kind, p)
        if key not in self._floats:
            self._floats[key] = {k: np.array([float(c) for c in v]) for k, v in poly.items()}
        n = len(next(iter(poly.values()))) if poly else 0
        out = np.zeros(n)
        for k, v in self._floats[key].items():
            out += v * eps**k
        return out

    def max_power(self) -> int:
        """The highest power of eps in any bound."""
        return max([k for polys in (self.behavioural, self.realization) for poly in polys for k in poly], default=1)

    def order_bound(self, tree: Tree) -> int | None:
        """The largest power of eps at which any sequence's lower bound starts: with bounds on
        every sequence, each realization ``x[s](eps)`` has a nonzero term at or below this order.
        None if some sequence has no bound (a custom perturbation)."""
        worst = 0
        for p in range(2):
            n = tree.num_sequences[p]
            big = 1 << 30
            lo_l = np.full(n, big)
            for k in sorted(self.realization[p], reverse=True):
                lo_l[np.array([bool(c) for c in self.realization[p][k]])] = k
            lo_b = np.full(n, big)
            for k in sorted(self.behavioural[p], reverse=True):
                lo_b[np.array([bool(c) for c in self.behavioural[p][k]])] = k
            order = np.zeros(n, dtype=np.int64)
            for lvl, seqs, _starts, parents in reversed(tree.levels[p]):
                via_parent = lo_b[seqs] + np.repeat(order[parents], tree.infoset_num_actions[lvl])
                order[seqs] = np.minimum(lo_l[seqs], via_parent)
            if n > 1:
                if order[1:].max() >= big:
                    return None
                worst = max(worst, int(order[1:].max()))
        return worst

    def check(self, tree: Tree, eps: float) -> None:
        """``PerturbationError``, naming the information set, if the bounds at ``eps`` leave a
        player no strategy: behavioural bounds at an information set summing above one, or
        realization bounds that no plan meets (``need(s) = max(lambda_s, sum of the bounds of the
        actions at each information set after s)`` exceeds one at the root)."""
        if not eps > 0:
            raise PerturbationError(f"eps must be positive, got {eps}")
        for p in range(2):
            beta, lam = self.bounds(tree, p, float(eps))
            if (beta < 0).any() or (lam < 0).any():
                raise PerturbationError(f"player {p}'s perturbation has a negative lower bound at eps={eps}")
            for lvl, seqs, starts, _parents in tree.levels[p]:
                nact = tree.infoset_num_actions[lvl]
                tot = np.add.reduceat(beta[seqs], starts)
                bad = np.flatnonzero(tot > 1 + 1e-12)
                if len(bad):
                    i = int(lvl[bad[0]])
                    raise PerturbationError(
                        f"eps={eps} is too large: the behavioural lower bounds at {tree.infoset_label(i)} sum to "
                        f"{tot[bad[0]]:.4g} > 1 (with {int(nact[bad[0]])} actions, eps must be below "
                        f"1/{int(nact[bad[0]])} for the EFPE perturbation)"
                    )
            need = self.mass_needed(tree, p, eps)
            if need[0] > 1 + 1e-12:
                raise PerturbationError(
                    f"eps={eps} is too large: player {p}'s realization lower bounds need "
                    f"mass {need[0]:.4g} > 1 at the root"
                )

    def suggested_eps(self, tree: Tree) -> Fraction:
        """A starting tremble for the trembling-LP search: 1/(1000 n) for the widest information
        set's n actions. Small, because the optimal basis usually settles only at small eps (Leduc:
        below 1e-4); iterative refinement makes the LP exact there, so small costs no accuracy."""
        nmax = int(tree.infoset_num_actions.max()) if len(tree.infoset_num_actions) else 2
        return Fraction(1, 1000 * nmax)


def sequence_depths(tree: Tree, p: int) -> np.ndarray:
    """``|s|``: the number of player p's own actions in each of its sequences."""
    d = np.zeros(tree.num_sequences[p], dtype=np.int64)
    inf = tree.seq_infoset[p]
    d[1:] = tree.infoset_depth[inf[1:]] + 1
    return d


def efpe(tree: Tree) -> Perturbation:
    """Farina & Gatti (2017): every action at least eps times its parent sequence, both players."""
    beh = []
    for p in range(2):
        coef = [Fraction(1)] * tree.num_sequences[p]
        coef[0] = Fraction(0)
        beh.append({1: coef})
    return Perturbation("efpe", beh, [{}, {}])


def qpe(tree: Tree) -> Perturbation:
    """Miltersen & Sorensen (2010): ``x[s] >= eps^|s|``, both players."""
    real = []
    for p in range(2):
        d = sequence_depths(tree, p)
        poly = {}
        for k in range(1, int(d.max()) + 1 if len(d) else 1):
            poly[k] = [Fraction(int(v == k)) for v in d]
        real.append(poly)
    return Perturbation("qpe", [{}, {}], real)


def custom(tree: Tree, behavioural: list | None = None, realization: list | None = None) -> Perturbation:
    """User-given lower bounds, per player. Each entry of ``behavioural`` / ``realization`` is
    None, an array of coefficients (one per sequence of that player, the bound being coefficient
    times eps), or a dict ``{power: array}`` for a polynomial in eps. Coefficients are made exact
    (Fractions of the given numbers); the empty sequence's must be zero."""

    def norm(spec, p, what):
        n = tree.num_sequences[p]
        if spec is None:
            return {}
        if not isinstance(spec, dict):
            spec = {1: spec}
        out = {}
        for k, v in spec.items():
            if int(k) != k or k < 1:
                raise PerturbationError(f"{what} bounds of player {p}: powers of eps must be integers >= 1, got {k}")
            v = list(v)
            if len(v) != n:
                raise PerturbationError(f"{what} bounds of player {p}: {len(v)} coefficients for {n} sequences")
            try:
                fv = [Fraction(c) for c in v]
            except (TypeError, ValueError) as e:
                raise PerturbationError(f"{what} bounds of player {p}: not numbers ({e})") from None
            if any(c < 0 for c in fv):
                raise PerturbationError(f"{what} bounds of player {p}: coefficients must be nonnegative")
            if fv[0] != 0:
                raise PerturbationError(f"{what} bounds of player {p}: the empty sequence cannot be perturbed")
            if any(fv):
                out[int(k)] = fv
        return out

    behavioural = behavioural or [None, None]
    realization = realization or [None, None]
    if len(behavioural) != 2 or len(realization) != 2:
        raise PerturbationError("give one entry per player (two) for behavioural and realization bounds")
    return Perturbation(
        "custom",
        [norm(behavioural[p], p, "behavioural") for p in range(2)],
        [norm(realization[p], p, "realization") for p in range(2)],
    )

"""Certificates of extensive-form perfection and of quasi-perfection by their definitions.

Both concepts are limits of completely mixed profiles ``sigma(eps)``, eps -> 0; they differ in
whose trembles a player must be rational against:

* **Extensive-form perfect** (Selten 1975; the agent form): at every information set I, each
  action the limit plays with positive probability is a best *local* reply to ``sigma(eps)`` for
  all small eps: everyone's trembles count, the player's own later trembles included.
  With realization plans ``x(eps)`` (own) and ``y(eps)`` (others and chance in the leaves'
  weights), action a at I (own sequence ``s a``) is worth ``S(s a) / x(s a)`` up to a factor
  common to I's actions, where ``S(t) = sum over leaves z below t of chance(z) u(z) x(own z)
  y(other z)``; so the test is ``S(s a) x(s b) >= S(s b) x(s a)`` for every other action b.
* **Quasi-perfect** (van Damme 1984): at every information set I the limit's continuation from I
  is a best reply to the *others'* ``y(eps)`` for all small eps, the player assuming its own later
  play rational (no own trembles): ``L(s a) >= max_b B(s b)`` for each action a the limit plays
  at I, with ``B(t) = g(t) + sum over information sets J right after t of max_c B(J c)`` (the best
  own continuation), ``L`` the same with the limit's own continuation in place of the max, and
  ``g(t)`` the leaves ending exactly at own sequence ``t``, weighted by ``chance y(other)``.

The witness ``sigma(eps)`` is given as realization plans that are polynomials in eps (what the
perturbed LCP returns for every small eps at once: ``seqform.exact.sequenceformlcp``), possibly all
multiplied by one positive polynomial (it changes no comparison above). Every comparison is of
polynomials, decided exactly by the sign of the lowest-order nonzero coefficient of their
difference: "for all small enough eps > 0". A certificate proves membership given its witness;
a failure shows only that this witness does not work. In Mertens' voting game the two sets are
disjoint, so the quasi-perfect equilibrium fails the perfection test with any witness and vice
versa (``seqform.games.mertens_voting``).

References:

- Selten (1975), "Reexamination of the perfectness concept for equilibrium points in extensive games", International
  Journal of Game Theory.
- van Damme (1984), "A relation between perfect equilibria in extensive form games and proper equilibria in normal form
  games", International Journal of Game Theory.
- Mertens (1995), "Two examples of strategic equilibrium", Games and Economic Behavior.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import flint

from seqform.exact.rationals import fmpq_of, fraction_of
from seqform.model.tree import Tree

_MAX_REPORTED = 10


@dataclass
class DefinitionCertificate:
    """``concept``: "efpe" or "qpe"; ``holds``: whether every test passed; ``checked``: how many
    (information set, action) tests were made; ``failures``: up to ten, each ``(information set
    label, action played, better action)``; ``reason``: why the witness was refused outright
    (e.g. not completely mixed), else None; ``order``: for a truncated series witness, the order
    through which its coefficients are exact (comparisons judged on those only), else None;
    ``ties_to_order``: comparisons whose difference vanished through ``order`` and counted as
    ties (the trembling LP's own convention for quantities that vanish to the computed order)."""

    concept: str
    holds: bool
    checked: int
    failures: list = field(default_factory=list)
    reason: str | None = None
    order: int | None = None
    ties_to_order: int = 0

    def __bool__(self) -> bool:
        return self.holds

    def to_json(self) -> dict:
        return {
            "concept": self.concept,
            "holds": self.holds,
            "checked": self.checked,
            "failures": [list(f) for f in self.failures],
            "reason": self.reason,
            "order": self.order,
            "ties_to_order": self.ties_to_order,
        }


def _label(tree: Tree, i: int, a: int) -> str:
    return str(tree.infoset_actions[i][a])


def _sign(p: flint.fmpq_poly, order: int | None = None) -> int:
    """The sign of ``p(eps)`` for small eps > 0, judged on the coefficients through ``order``
    (all when None; 0 when those all vanish)."""
    for k, c in enumerate(p.coeffs()):
        if order is not None and k > order:
            break
        if c:
            return 1 if c > 0 else -1
    return 0


def _order(p: flint.fmpq_poly) -> int:
    return next((k for k, c in enumerate(p.coeffs()) if c), -1)


def _polys(series: list) -> list:
    """``series[k][s]`` (coefficient of eps^k of sequence s) -> one ``fmpq_poly`` per sequence."""
    n = len(series[0])
    return [flint.fmpq_poly([fmpq_of(series[k][s]) for k in range(len(series))]) for s in range(n)]


def _limit_behaviour(tree: Tree, p: int, x: list) -> list:
    """Player p's limit behaviour ``lim x_s / x_parent(s)`` (Fractions, per sequence) of a
    completely mixed polynomial plan ``x``."""
    b = [Fraction(1)] + [Fraction(0)] * (tree.num_sequences[p] - 1)
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    for i in tree.player_infosets[p].tolist():
        f, k, ps = int(first[i]), int(nact[i]), int(pseq[i])
        op = _order(x[ps])
        lead = x[ps].coeffs()[op]
        for s in range(f, f + k):
            b[s] = fraction_of(x[s].coeffs()[op] / lead) if _order(x[s]) == op else Fraction(0)
    return b


def _leaf_weights(tree: Tree, p: int, other: list) -> list:
    """``g(t)``: per own sequence t, the sum over leaves ending at t of chance(z) u_p(z) y(other z)."""
    o = 1 - p
    g = [flint.fmpq_poly([])] * tree.num_sequences[p]
    own = tree.node_seq[p, tree.terminals].tolist()
    oth = tree.node_seq[o, tree.terminals].tolist()
    for z, (t, r) in enumerate(zip(own, oth)):
        w = fmpq_of(tree.terminal_chance_exact[z] * tree.payoff_exact[z][p])
        if w:
            g[t] = g[t] + other[r] * w
    return g


def _witness(tree: Tree, family: list, concept: str, order: int | None) -> tuple:
    """The witness as polynomials and None, or None and the certificate that refuses it."""

    def refuse(why):
        return None, DefinitionCertificate(concept, False, 0, [], why, order)

    if tree.num_players != 2:
        return refuse(f"{tree.name!r} has {tree.num_players} players; these certificates are for two")
    plans = [_polys(family[p]) for p in range(2)]
    for p in range(2):
        for s, v in enumerate(plans[p]):
            if _sign(v) <= 0:
                return refuse(f"the witness is not completely mixed: player {p}'s sequence {s} has plan {v}")
    return plans, None


def limit_behaviour_of(tree: Tree, family: list) -> list | None:
    """Both players' limit behavioural strategies ``lim x_s(eps) / x_parent(s)(eps)`` (Fractions,
    per sequence) of a completely mixed witness family (coefficient lists ``family[p][k][s]``):
    defined at every information set, unreached ones included, which is where a refined
    equilibrium differs from a Nash equilibrium. None if the family is not completely mixed."""
    plans, refused = _witness(tree, family, "efpe", None)
    if refused is not None:
        return None
    return [_limit_behaviour(tree, p, plans[p]) for p in range(2)]


def _per_player(tree: Tree, plans: list):
    """Per player: its plan, its limit behaviour and its leaf weights ``g`` (module docstring)."""
    for p in range(2):
        yield p, plans[p], _limit_behaviour(tree, p, plans[p]), _leaf_weights(tree, p, plans[1 - p])


def certify_efpe(tree: Tree, family: list, order: int | None = None) -> DefinitionCertificate:
    """Test the definition of extensive-form perfection (module docstring) on the limit of the
    witness ``family``: per player, realization plans as coefficient lists ``family[p][k][s]``
    (of eps^k); ``order``: for a truncated power series, the order through which it is exact
    (every product below is exact through the same order)."""
    plans, refused = _witness(tree, family, "efpe", order)
    if refused is not None:
        return refused
    checked, failures, ties = 0, [], 0
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    for p, x, b0, g in _per_player(tree, plans):
        S = [g[t] * x[t] for t in range(len(x))]
        for i in reversed(tree.player_infosets[p].tolist()):  # bottom-up
            f, k = int(first[i]), int(nact[i])
            for a in range(f, f + k):
                if b0[a] == 0:
                    continue
                for b in range(f, f + k):
                    if b == a:
                        continue
                    checked += 1
                    d = S[a] * x[b] - S[b] * x[a]
                    sg = _sign(d, order)
                    ties += sg == 0 and order is not None and _sign(d) != 0
                    if sg < 0:
                        failures.append((tree.infoset_label(i), _label(tree, i, a - f), _label(tree, i, b - f)))
            ps = int(pseq[i])
            S[ps] = S[ps] + sum((S[a] for a in range(f, f + k)), flint.fmpq_poly([]))
    return DefinitionCertificate("efpe", not failures, checked, failures[:_MAX_REPORTED], None, order, ties)


def certify_qpe(tree: Tree, family: list, order: int | None = None) -> DefinitionCertificate:
    """Test the definition of quasi-perfection (module docstring) on the limit of the witness
    ``family`` (as for ``certify_efpe``)."""
    plans, refused = _witness(tree, family, "qpe", order)
    if refused is not None:
        return refused
    checked, failures, ties = 0, [], 0
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    for p, _, b0, g in _per_player(tree, plans):
        best, lim = list(g), list(g)
        for i in reversed(tree.player_infosets[p].tolist()):
            f, k = int(first[i]), int(nact[i])
            acts = range(f, f + k)
            top = best[f]
            for a in acts:
                if _sign(best[a] - top, order) > 0:
                    top = best[a]
            for a in acts:
                if b0[a] == 0:
                    continue
                checked += 1
                d = lim[a] - top
                sg = _sign(d, order)
                ties += sg == 0 and order is not None and _sign(d) != 0
                if sg < 0:
                    better = next(b for b in acts if _sign(best[b] - top, order) == 0)
                    failures.append((tree.infoset_label(i), _label(tree, i, a - f), _label(tree, i, better - f)))
            ps = int(pseq[i])
            best[ps] = best[ps] + top
            lim[ps] = lim[ps] + sum((lim[a] * fmpq_of(b0[a]) for a in acts), flint.fmpq_poly([]))
    return DefinitionCertificate("qpe", not failures, checked, failures[:_MAX_REPORTED], None, order, ties)


__all__ = ["DefinitionCertificate", "certify_efpe", "certify_qpe"]

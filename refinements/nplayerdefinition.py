"""Extensive-form perfection and quasi-perfection tested by their definitions, any number of
players, with a witness family of completely mixed plans that are rational functions of eps.

The tests of ``refinements.definitioncertificate`` (which takes two players and polynomial plans),
with every other player's plan in the leaves' weights:

* **extensive-form perfect** (Selten 1975): at every information set I of player p, each action a
  the limit plays is a best local reply to the whole family for all small eps:
  ``S(s a) x(s b) >= S(s b) x(s a)`` for every other action b, where ``S(t)`` sums, over the leaves
  below own sequence t, chance times ``u_p`` times every player's plan (p's own included);
* **quasi-perfect** (van Damme 1984): at every information set the limit's continuation is a best
  reply to the *others'* family, the player assuming its own later play rational:
  ``L(s a) >= max_b B(s b)`` with ``B`` the best own continuation and ``L`` the limit's.

Every comparison is of rational functions of eps, decided exactly by the signs of the lowest-order
coefficients: "for all small enough eps > 0". A certificate proves membership given its witness.

References:

- Selten (1975), "Reexamination of the perfectness concept for equilibrium points in extensive games", International
  Journal of Game Theory.
- van Damme (1984), "A relation between perfect equilibria in extensive form games and proper equilibria in normal form
  games", International Journal of Game Theory.
"""

from __future__ import annotations

from fractions import Fraction

from seqform.model.tree import Tree

from .definitioncertificate import DefinitionCertificate
from .ratfunc import RatFunc

_ZERO = RatFunc(0)
_MAX_REPORTED = 10


def _label(tree: Tree, i: int, a: int) -> str:
    return str(tree.infoset_actions[i][a])


def _leaf_weights(tree: Tree, p: int, plans: list) -> list:
    """``g(t)``: per own sequence t of p, the sum over leaves ending at t of chance u_p times the
    other players' plans (rational functions)."""
    g = [_ZERO] * tree.num_sequences[p]
    seqs = [tree.node_seq[q, tree.terminals].tolist() for q in range(tree.num_players)]
    for z in range(len(tree.terminals)):
        w = Fraction(tree.terminal_chance_exact[z]) * Fraction(tree.payoff_exact[z][p])
        if not w:
            continue
        term = RatFunc(w)
        for q in range(tree.num_players):
            if q != p:
                term = term * plans[q][seqs[q][z]]
        g[seqs[p][z]] = g[seqs[p][z]] + term
    return g


def _limit_behaviour(tree: Tree, p: int, x: list) -> list:
    par = tree.seq_parent[p].tolist()
    return [Fraction(1)] + [(x[s] / x[par[s]]).at_zero() for s in range(1, tree.num_sequences[p])]


def _refuse(tree: Tree, plans: list, concept: str) -> DefinitionCertificate | None:
    for p in range(tree.num_players):
        for s, v in enumerate(plans[p]):
            if RatFunc.of(v).sign() <= 0:
                why = f"the witness is not completely mixed: player {p}'s sequence {s} has plan {v}"
                return DefinitionCertificate(concept, False, 0, [], why)
    return None


def certify_efpe(tree: Tree, plans: list) -> DefinitionCertificate:
    """Extensive-form perfection of the limit of ``plans`` (per player, one ``RatFunc`` per
    sequence), by the definition (module docstring)."""
    plans = [[RatFunc.of(v) for v in x] for x in plans]
    refused = _refuse(tree, plans, "efpe")
    if refused is not None:
        return refused
    checked, failures = 0, []
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    for p in range(tree.num_players):
        x, b0, g = plans[p], _limit_behaviour(tree, p, plans[p]), _leaf_weights(tree, p, plans)
        S = [g[t] * x[t] for t in range(len(x))]
        for i in reversed(tree.player_infosets[p].tolist()):  # bottom-up
            f, k = int(first[i]), int(nact[i])
            for a in range(f, f + k):
                for b in range(f, f + k) if b0[a] else ():
                    if b != a:
                        checked += 1
                        if (S[a] * x[b] - S[b] * x[a]).sign() < 0:
                            failures.append((tree.infoset_label(i), _label(tree, i, a - f), _label(tree, i, b - f)))
            ps = int(pseq[i])
            for a in range(f, f + k):
                S[ps] = S[ps] + S[a]
    return DefinitionCertificate("efpe", not failures, checked, failures[:_MAX_REPORTED])


def certify_qpe(tree: Tree, plans: list) -> DefinitionCertificate:
    """Quasi-perfection of the limit of ``plans`` (as for ``certify_efpe``)."""
    plans = [[RatFunc.of(v) for v in x] for x in plans]
    refused = _refuse(tree, plans, "qpe")
    if refused is not None:
        return refused
    checked, failures = 0, []
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    for p in range(tree.num_players):
        b0, g = _limit_behaviour(tree, p, plans[p]), _leaf_weights(tree, p, plans)
        best, lim = list(g), list(g)
        for i in reversed(tree.player_infosets[p].tolist()):
            f, k = int(first[i]), int(nact[i])
            acts = range(f, f + k)
            top = best[f]
            for a in acts:
                if (best[a] - top).sign() > 0:
                    top = best[a]
            for a in acts:
                if b0[a] == 0:
                    continue
                checked += 1
                if (lim[a] - top).sign() < 0:
                    better = next(b for b in acts if (best[b] - top).sign() == 0)
                    failures.append((tree.infoset_label(i), _label(tree, i, a - f), _label(tree, i, better - f)))
            ps = int(pseq[i])
            best[ps] = best[ps] + top
            for a in acts:
                if b0[a]:
                    lim[ps] = lim[ps] + lim[a] * b0[a]
    return DefinitionCertificate("qpe", not failures, checked, failures[:_MAX_REPORTED])


CERTIFY = {"efpe": certify_efpe, "qpe": certify_qpe}

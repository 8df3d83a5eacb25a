"""Exact certificates for a refined equilibrium (the trembling LP's limit).

1. **Nash.** The limit plans are valid realization plans and their exact best-response values meet
   (``seqform.exact.certificate.exact_bracket``); ``refinements.refine`` also checks that this value equals the
   game value certified by the plain Nash LP, computed independently.
2. **Sequential rationality.** At every information set I, reached or not, Kroer, Farina & Sandholm (2017)'s regret
   (``seqform.verify.infosetregret``): I taken as reached, its nodes weighted by Bayes' rule, the gain from
   best-responding at I and below. Where the limit profile reaches I with probability zero, Bayes'
   rule needs the *tremble-completed* opponent: the perturbed opponent plan ``y(eps)`` as eps -> 0.
   Its leading terms ``c_s eps^{o_s}`` (from the trembling LP's series) give the limit beliefs:
   only nodes whose opponent sequence has the least order ``m_I`` among I's nodes keep weight,
   in proportion to ``chance * c_s``. Terminals below I weigh in the same way (orders only grow
   along a path), and the owner's continuation is its limit behavioural strategy. Everything is
   exact; for EFPE and QPE every regret must be exactly zero.

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from seqform.exact.exactbestresponse import exact_backward_pass
from seqform.exact.rationals import fmpq_of, fraction_of
from seqform.model.tree import Tree

ZERO = flint.fmpq(0)


def leading_terms(series, n: int) -> tuple[np.ndarray, list]:
    """Per sequence, the order of the first nonzero term of a realization series (-1 if none was
    found: zero to the computed order) and its coefficient."""
    order = np.full(n, -1, dtype=np.int64)
    coef = [ZERO] * n
    for s in range(n):
        o, c = series.leading(s)
        order[s], coef[s] = o, c
    return order, coef


def limit_behaviour(tree: Tree, p: int, order: np.ndarray, coef: list) -> list:
    """Player p's limit behavioural strategy (fmpq per sequence): ``lim x_s(eps) / x_parent(eps)``,
    the ratio of leading coefficients where the orders agree and 0 where the child's order is
    higher; uniform where the parent's plan is zero to every computed order."""
    b = [flint.fmpq(1)] + [ZERO] * (tree.num_sequences[p] - 1)
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    for i in tree.player_infosets[p].tolist():
        f, k, ps = int(first[i]), int(nact[i]), int(pseq[i])
        if order[ps] < 0:
            for s in range(f, f + k):
                b[s] = flint.fmpq(1, k)
            continue
        for s in range(f, f + k):
            b[s] = coef[s] / coef[ps] if order[s] == order[ps] else ZERO
    return b


def exact_chance_reach(tree: Tree) -> list:
    """Chance's exact reach probability of every node (fmpq), top-down in preorder."""
    reach = [flint.fmpq(1)] * tree.num_nodes
    cidx = tree.chance_index
    parent, action = tree.parent.tolist(), tree.action.tolist()
    probs = [[fmpq_of(v) for v in pr] for pr in tree.chance_probs]
    for h in range(1, tree.num_nodes):
        par = parent[h]
        i = cidx.get(par)
        reach[h] = reach[par] * probs[i][action[h]] if i is not None else reach[par]
    return reach


def limit_regrets(tree: Tree, behaviour: list, leads: list) -> list:
    """Exact regret at every information set (global id -> Fraction, None where chance never
    reaches it) of the limit profile ``behaviour`` (fmpq per sequence, per player), with beliefs
    from the opponents' leading terms ``leads[p] = (order, coef)`` (module docstring, point 2)."""
    M = len(tree.infoset_player)
    out: list = [None] * M
    chance = exact_chance_reach(tree)
    term = tree.terminals.tolist()
    tchance = [fmpq_of(v) for v in tree.terminal_chance_exact]
    dec = np.flatnonzero(tree.infoset >= 0)
    for p in range(2):
        o = 1 - p
        order, coef = leads[o]
        nodes = dec[tree.player[dec] == p]
        oseq = tree.node_seq[o, nodes]
        nord = order[oseq]
        inf = tree.infoset[nodes]
        # least order among each information set's nodes that chance reaches
        big = np.iinfo(np.int64).max
        valid = (nord >= 0) & np.array([chance[h] != 0 for h in nodes.tolist()], dtype=bool)
        m_I = np.full(M, big)
        np.minimum.at(m_I, inf[valid], nord[valid])
        pay = [fmpq_of(u[p]) for u in tree.payoff_exact]
        tp = tree.node_seq[p, tree.terminals].tolist()
        to = tree.node_seq[o, tree.terminals].tolist()
        mine = tree.player_infosets[p]
        for m in sorted(set(m_I[mine].tolist()) - {big}):
            g = [ZERO] * tree.num_sequences[p]
            for z in range(len(term)):
                s_o = to[z]
                if order[s_o] == m:
                    g[tp[z]] += tchance[z] * coef[s_o] * pay[z]
            bp = exact_backward_pass(tree, p, g, behaviour[p])
            W: dict = {}
            for h, i, s_o in zip(nodes.tolist(), inf.tolist(), oseq.tolist()):
                if m_I[i] == m and order[s_o] == m:
                    W[i] = W.get(i, ZERO) + chance[h] * coef[s_o]
            for i in mine.tolist():
                if m_I[i] == m:
                    out[i] = fraction_of((bp.best[i] - bp.current[i]) / W[i])
    return out


def max_regret(regrets: list) -> tuple[Fraction, int, int]:
    """(max regret, its information set or -1, how many information sets have positive regret)."""
    best, arg, pos = Fraction(0), -1, 0
    for i, r in enumerate(regrets):
        if r is None:
            continue
        if r > 0:
            pos += 1
        if arg < 0 or r > best:
            best, arg = r, i
    return best, arg, pos

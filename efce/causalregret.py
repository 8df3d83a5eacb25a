"""Causal deviations and EFCE regret of an explicit distribution over reduced strategy profiles
(Dudik & Gordon 2009, sections 2.2 and 3.2; Gordon, Greenwald & Marks 2008): **an independent
check** of the causal-deviation dynamic program that production code runs
(``efce.deviationdp``: the sampler's models and column generation's certificate).
``efce.exact`` verifies its LP's distributions with it, and the tests are its other users: they
compare the models' best deviations (``tests/efce/test_efce_models.py``) and column generation's
certified regrets (``tests/efce/test_efce_columngeneration.py``) with it. It shares no code with
``efce.deviationdp`` but the player's sequence tree (``player_structure``, which it re-exports):
it walks the game tree leaf by leaf over the distribution's own profiles, where the production
program reads sample statistics.

A causal deviation of player n is a trigger (information set I, action a) and a deviation
strategy: n follows its recommended strategy s_n until it is recommended a at I, and from then on
plays the deviation strategy at I and at every one of its information sets below I. Its regret
is the expected gain E_p[u_n(s_-n, phi(s_n)) - u_n(s)] (eq. 1); p is an EFCE when no regret is
positive.

The best deviation strategy for a trigger is a dynamic program over n's information sets below
I (the deviation game of section 3.2, here on an explicit distribution): every leaf z below I
gets the weight W(z) = sum over profiles s recommending a at I of p(s) chance(z) prod_{m != n}
[s_m reaches z], n's sequence payoffs are g(sigma) = sum over leaves z with n's sequence sigma
of W(z) u_n(z), and the best deviation is a best response over the sub-treeplex rooted at I,
by recursion (``_best``): best(J) = max_b g(J, b) + sum of best(K) over the information sets K
right below (J, b). The baseline is what the recommendations themselves earn on the same leaves.
Exact (Fractions) when p is.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
- Gordon, Greenwald & Marks (2008), "No-Regret Learning in Convex Games", ICML.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from seqform.model.tree import Tree

from .deviationdp import player_structure
from .strategies import Profiles

__all__ = ["TriggerRegret", "causal_regrets", "max_regret", "player_structure"]


@dataclass
class TriggerRegret:
    """The best causal deviation for one trigger: ``player``, ``infoset`` (global id),
    ``action`` (index), ``regret`` (its expected gain; positive means p is not an EFCE),
    ``strategy`` ({information set id: action} below and at the trigger), ``label``."""

    player: int
    infoset: int
    action: int
    regret: Fraction | float
    strategy: dict
    label: str


def causal_regrets(prof: Profiles, p) -> list:
    """The best causal deviation of every player for every trigger (information set, action),
    for the distribution ``p`` (one probability per reduced profile, ``Profiles`` order; exact
    numbers give exact regrets). Triggers whose action p never recommends have regret 0."""
    tree = prof.tree
    N = tree.num_players
    t = tree.terminals
    T = len(t)
    seqs = [tree.node_seq[n, t].tolist() for n in range(N)]
    chance = tree.terminal_chance_exact
    pay = tree.payoff_exact
    exact = all(isinstance(v, (int, Fraction)) for v in p)
    zero = Fraction(0) if exact else 0.0
    support = [(k, v) for k, v in enumerate(p) if v]
    out = []
    for n in range(N):
        kids, under = player_structure(tree, n)
        infoset_of = {s: int(tree.seq_infoset[n][s]) for s in range(1, tree.num_sequences[n])}
        leaves_under = {m: [z for z in range(T) if seqs[n][z] in under[m]] for m in under}
        W: dict = {}  # trigger sequence -> {leaf: weight}
        base: dict = {}  # trigger sequence -> the recommendations' own payoff on those leaves
        for k, pk in support:
            s = prof.profile(k)
            own = prof.plans[n][s[n]]
            reach = [
                chance[z] if all(seqs[m][z] in prof.plans[m][s[m]] for m in range(N) if m != n) else 0 for z in range(T)
            ]
            for sig in own:
                if sig == 0:
                    continue
                m = infoset_of[sig]
                w = W.setdefault(sig, {})
                b = base.get(sig, zero)
                for z in leaves_under[m]:
                    if reach[z]:
                        w[z] = w.get(z, zero) + pk * reach[z]
                        if seqs[n][z] in own:
                            b += pk * reach[z] * pay[z][n]
                base[sig] = b
        for m in tree.player_infosets[n].tolist():
            f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
            for a in range(k):
                sig = f + a
                label = f"player {n}, {tree.infoset_key[m]!r}, {tree.infoset_actions[m][a]!r}"
                if sig not in W:
                    out.append(TriggerRegret(n, m, a, zero, {}, label))
                    continue
                g: dict = {}
                for z, wz in W[sig].items():
                    g[seqs[n][z]] = g.get(seqs[n][z], zero) + wz * pay[z][n]
                strategy: dict = {}
                best = _best(tree, n, m, g, kids, strategy, zero)
                out.append(TriggerRegret(n, m, a, best - base[sig], strategy, label))
    return out


def _best(tree: Tree, n: int, m: int, g: dict, kids: dict, strategy: dict, zero):
    """max over n's pure plans below information set m of the payoff g; records the choices."""
    f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
    best, arg = None, 0
    for a in range(k):
        v = g.get(f + a, zero) + sum((_best(tree, n, j, g, kids, strategy, zero) for j in kids.get(f + a, ())), zero)
        if best is None or v > best:
            best, arg = v, a
    strategy[m] = arg
    return best


def max_regret(prof: Profiles, p) -> TriggerRegret:
    """The causal deviation with the largest regret (ties: the first found); a game where no
    player moves has none, and gets a zero-regret placeholder (player -1)."""
    devs = causal_regrets(prof, p)
    if not devs:
        zero = Fraction(0) if all(isinstance(v, (int, Fraction)) for v in p) else 0.0
        return TriggerRegret(-1, -1, -1, zero, {}, "none: no player ever moves")
    return max(devs, key=lambda d: d.regret)

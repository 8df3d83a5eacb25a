"""Worst-case bounds on the exploitability of regret minimisers' average strategies, from their
papers' regret bounds, for plotting beside measured curves (``seqform verify``).

Two-player zero-sum, average strategies after ``T`` iterations. If each player's average overall
regret is at most ``r_i``, the average profile's NashConv is at most ``r_0 + r_1`` (Zinkevich et
al. 2007, Theorem 2), so its exploitability (NashConv / 2, OpenSpiel's convention) is at most
``(r_0 + r_1) / 2``. With ``D_i`` the range of player i's payoffs, ``|I_i|`` its number of
information sets and ``|A_i|`` its most actions at one:

* **CFR** with regret matching (Zinkevich et al. 2007, Theorems 3 and 4):
  ``r_i <= D_i |I_i| sqrt(|A_i|) / sqrt(T)``. The theorem is stated for simultaneous updates
  (``"cfr-simultaneous"``); Burch, Moravcik & Schmid (2019) show the same bound for alternating
  updates (``"cfr"``).
* **External-sampling MCCFR** (Lanctot et al. 2009): with probability at least ``1 - p`` per
  player, ``r_i <= (1 + sqrt(2) / sqrt(p)) D_i M_i sqrt(|A_i|) / sqrt(T)``, with ``M_i <= |I_i|``;
  we use ``|I_i|`` (a looser, valid bound) and ``p = 0.1`` per player, so both players' bounds
  hold together with probability at least 0.8.

Other solvers get no bound here: CFR+, DCFR, LCFR and predictive CFR+ weight their averages
(their papers' bounds are of other forms); Lanctot et al. (2009)'s general MCCFR bound, which
would cover outcome and chance sampling, carries a factor for the least likely sampled block that
this module does not compute.

References:

- Zinkevich, Johanson, Bowling & Piccione (2007), "Regret Minimization in Games with Incomplete Information", NIPS.
- Lanctot, Waugh, Zinkevich & Bowling (2009), "Monte Carlo Sampling for Regret Minimization in Extensive Games", NIPS.
- Burch, Moravcik & Schmid (2019), "Revisiting CFR+ and Alternating Updates", JAIR 64.
"""

from __future__ import annotations

import math

from seqform.model.tree import Tree

#: per-player failure probability of the sampled bounds
SAMPLED_P = 0.1

#: what each bounded solver's curve is labelled with in plots
BOUND_LABELS = {
    "cfr": "CFR bound (Zinkevich et al. 2007, Thm 2-4)",
    "cfr-simultaneous": "CFR bound (Zinkevich et al. 2007, Thm 2-4)",
    "es-mccfr": "ES bound, prob. >= 0.8 (Lanctot et al. 2009)",
}


def _player_constants(tree: Tree) -> list:
    """Per player: D_i |I_i| sqrt(|A_i|) (module docstring)."""
    out = []
    for p in range(2):
        pay = tree.payoff[:, p]
        rng = float(pay.max() - pay.min()) if len(pay) else 0.0
        ids = tree.player_infosets[p]
        amax = int(tree.infoset_num_actions[ids].max()) if len(ids) else 1
        out.append(rng * len(ids) * math.sqrt(amax))
    return out


def exploitability_bound(tree: Tree, solver: str, iterations: int) -> float | None:
    """The bound on the exploitability of ``solver``'s average profile after ``iterations``
    iterations (module docstring), or None when this module has none for that solver."""
    if solver not in BOUND_LABELS or iterations < 1 or tree.num_players != 2:
        return None
    c = sum(_player_constants(tree)) / (2.0 * math.sqrt(iterations))
    if solver == "es-mccfr":
        c *= 1.0 + math.sqrt(2.0) / math.sqrt(SAMPLED_P)
    return c

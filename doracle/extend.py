"""Extended strategies (Bosansky et al. 2014): a restricted game's strategy completed by the
default pure strategy (the first action) at every information set it does not mention, as a
behavioural ``seqform.Profile`` of the full game's compiled tree. Only for games small enough to
compile; the double-oracle loop itself never needs it.

References:

- Bosansky, Kiekintveld, Lisy & Pechoucek (2014), "An Exact Double-Oracle Algorithm for Zero-Sum Extensive-Form Games
  with Imperfect Information", JAIR.
"""

from __future__ import annotations

from fractions import Fraction

from seqform.errors import StrategyError
from seqform.model.strategy import Profile
from seqform.model.tree import Tree


def extended_profile(tree: Tree, strategies: list) -> Profile:
    """``strategies[p]``: {information-set key: probabilities over the full game's actions there}
    (``DoubleOracleResult.profile``). Returns the exact behavioural profile on ``tree`` (one
    array of Fractions per player, shape (num_sequences[p],)) that plays them, and the first
    action at every other information set."""
    out = []
    for p, strat in enumerate(strategies):
        b = [Fraction(1)] + [Fraction(0)] * (int(tree.num_sequences[p]) - 1)
        for m in tree.player_infosets[p].tolist():
            f, n = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
            probs = strat.get(tree.infoset_key[m])
            if probs is None:
                probs = [Fraction(1)] + [Fraction(0)] * (n - 1)
            elif len(probs) != n:
                raise StrategyError(
                    f"player {p}'s strategy gives {len(probs)} probabilities at information set "
                    f"{tree.infoset_key[m]!r}, which has {n} actions in {tree.name!r}"
                )
            b[f : f + n] = [Fraction(x) for x in probs]
        out.append(b)
    return Profile(out)

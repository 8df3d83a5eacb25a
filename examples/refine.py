"""Refined equilibria: where a Nash equilibrium gives up value after the opponent's mistake, an
extensive-form perfect or quasi-perfect equilibrium does not. Computed exactly, certified.

Run: python examples/refine.py
"""

import refinements
import seqform

# Kroer, Farina & Sandholm 2017, Figure 1 (zero-sum): player 1 can win 5 after player 0's mistake y.
game = seqform.games.threat_zero_sum()
nash = seqform.solve(game)
efpe = refinements.efpe(game)
tree = nash.tree
i = tree.player_infosets[1][0]
print(
    "plain Nash LP, player 1 after y:",
    dict(zip(tree.infoset_actions[i], map(str, nash.exact_profile.action_probabilities(tree, i)))),
)
print(
    "EFPE,          player 1 after y:",
    dict(zip(tree.infoset_actions[i], map(str, efpe.exact_profile.action_probabilities(tree, i)))),
)

# Leduc: the quasi-perfect equilibrium, exactly in the limit eps -> 0.
leduc = seqform.games.leduc()
plain = seqform.solve(leduc)
reg = seqform.infoset_regret(plain.tree, plain.profile)
qpe = refinements.qpe(leduc)
print(f"Leduc QPE value {qpe.value} equals the Nash value: {qpe.value == plain.value}; certified: {qpe.certified}")
print(
    f"information sets with positive regret: plain LP {reg.count_positive()} (max {reg.max_regret:.3g}), "
    f"QPE {qpe.positive_regret_infosets} (max {qpe.max_infoset_regret}, exact)"
)

# At a chosen tremble: the perturbed game's equilibrium (exact at that eps), fully mixed.
at = refinements.qpe(leduc, eps=1e-3)
print(f"QPE-perturbed Leduc at eps=1e-3: value {at.value_float:.8f}, exploitability {at.exploitability:.2e}")

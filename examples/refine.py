"""Refined equilibria: where a Nash equilibrium gives up value after the opponent's mistake, an
extensive-form perfect or quasi-perfect equilibrium does not. Computed exactly, certified.

Run: python examples/refine.py
"""

from fractions import Fraction

import refinements
import seqform

# Kroer, Farina & Sandholm 2017, Figure 1 (zero-sum): player 0 ends the game at 0 (x) or plays y,
# after which player 1 wins 5 (x) or 0 (y). Behavioural strategies per player, indexed by sequence:
# [empty sequence, x, y].
game = seqform.games.threat_zero_sum()
tree = seqform.compile_tree(game)
one, zero, eps = Fraction(1), Fraction(0), Fraction(1, 100)
threat = seqform.Profile([[one, one, zero], [one, zero, one]])  # 0 plays x; 1 would answer y with y
print("threat profile, exact exploitability:", seqform.evaluate(tree, threat).exploitability, "(a Nash equilibrium)")
# Player 0 trembles to y one time in a hundred: player 1's information set is reached, and y gives up 5.
trembled = seqform.Profile([[one, 1 - eps, eps], [one, zero, one]])
i = tree.player_infosets[1][0]  # player 1's one information set, after y
print("after player 0's tremble, player 1's regret after y:", seqform.evaluate(tree, trembled).infoset_regret[i])
efpe = refinements.efpe(game)
answer = dict(zip(tree.infoset_actions[i], map(str, efpe.exact_profile.action_probabilities(tree, i))))
print(f"EFPE: player 1 answers y with {answer}; positive-regret information sets: {efpe.positive_regret_infosets}")
ev = seqform.evaluate(tree, seqform.Profile([trembled.behaviour[0], efpe.exact_profile.behaviour[1]]))
print("EFPE after the same tremble, player 1's regret after y:", ev.infoset_regret[i])

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

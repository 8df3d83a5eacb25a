"""Solve Leduc hold'em exactly and inspect the certified equilibrium.

Run: python examples/solve_exactly.py
"""

import seqform

sol = seqform.solve(seqform.games.leduc())
print(f"value of Leduc for player 0: {sol.value} (~{float(sol.value):.10f}), certified: {sol.certified}")

# The certificate: both exact best responses meet at the value.
cert = sol.certificate
print(f"exact best-response values: lower {float(cert.lower):.10f}, upper {float(cert.upper):.10f}")

# Player 0's strategy at the first information set with a king (card 4 or 5) in round 1.
tree = sol.tree
for i in tree.player_infosets[0]:
    card, public, history = tree.infoset_key[i]
    if card == 4 and history == ("",):
        probs = sol.profile.action_probabilities(tree, i)
        print(
            "player 0 holding card 4, opening:", {a: round(float(q), 4) for a, q in zip(tree.infoset_actions[i], probs)}
        )

# How much does each information set leave on the table? (Kroer, Farina & Sandholm (2017)'s refinement measure)
reg = seqform.infoset_regret(tree, sol.profile)
print(
    f"max information-set regret of the plain LP solution: {reg.max_regret:.4f} "
    f"({reg.count_positive()} information sets above 1e-9)"
)

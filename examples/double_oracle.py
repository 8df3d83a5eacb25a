"""Double oracle: solve a game exactly without its full LP, then check the answer independently.

Run: python examples/double_oracle.py
"""

import doracle
import seqform
from doracle import extended_profile
from seqform import compile_tree, evaluate

# Flip-It with 4 rounds (495,205 nodes): the restricted games stay near a thousand nodes.
game = seqform.games.flipit(depth=4)
res = doracle.solve(game, progress=lambda msg: None)
last = res.history[-1]
print(
    f"{game.name}: value {res.value} (= {float(res.value):.6f}), {res.iterations} iterations, "
    f"last restricted game {last['restricted_nodes']:,} nodes"
)

# The double oracle's strategies, completed by the first action wherever they say nothing, are an
# equilibrium of the FULL game: checked here by exact best responses in the compiled tree.
tree = compile_tree(game)
ev = evaluate(tree, extended_profile(tree, res.profile), exact=True)
print(f"in the full game: exact exploitability {ev.exploitability}, best responses {ev.best_response_values}")
assert ev.exploitability == 0

# Where the full LP does not fit, double oracle still gives the exact value and certified bounds:
#   seqform solve 'flipit(depth=6)' --method doracle      # 583 million nodes, about a minute

"""Verify iterative solvers against the certified ground truth: ours (CFR+, EGT) and your own.

Run: python examples/verify_solver.py
"""

import seqform
from seqform import Profile, behaviour_from_realization, best_response, compile_tree, realization_plan, uniform
from seqform.study import verify

tree = compile_tree(seqform.games.kuhn())

# Built-in solvers by name; the ground truth is the certified LP value (-1/18 for Kuhn poker).
for name in ("cfr+", "egt"):
    last = verify(name, tree, 500).points[-1]
    print(
        f"{name:5s} after {last.iteration} iterations ({last.traversals} tree traversals): exploitability "
        f"{last.exploitability:.2e}, value gap {last.value_gap:+.2e}, max information-set regret "
        f"{last.max_infoset_regret:.2e}"
    )


# Your own solver: any callable that takes the compiled tree and yields one profile per iteration.
# Here, fictitious play in the sequence form: each player averages its best responses (as
# realization plans) to the other's average so far.
def fictitious_play(tree):
    avg = [realization_plan(tree, p, b) for p, b in enumerate(uniform(tree).behaviour)]
    t = 1
    while True:
        current = Profile([behaviour_from_realization(tree, p, avg[p]) for p in (0, 1)])
        yield current
        for p in (0, 1):
            _, br = best_response(tree, p, current)
            avg[p] = (t * avg[p] + realization_plan(tree, p, br)) / (t + 1)
        t += 1


rep = verify(fictitious_play, tree, 500)
last = rep.points[-1]
print(
    f"fictitious play after {last.iteration} iterations: exploitability {last.exploitability:.2e} "
    f"(game value {rep.game_value})"
)
# rep.plot("fictitious_play.png") draws every measure against iterations (log-log; needs matplotlib)

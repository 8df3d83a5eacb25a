"""Extensive-form correlated equilibria of Dudik & Gordon (2009)'s job market game: exact ground truth, and the
sampling algorithm checked against it.

Run: python examples/efce_job_market.py
"""

from efce import (
    SamplerOptions,
    exact_distribution,
    job_market,
    max_entropy,
    max_regret,
    profiles,
    sample_efce,
    solve_lp,
)
from seqform import compile_tree

game = job_market()
prof = profiles(compile_tree(game))  # 4 x 4 reduced strategy profiles

best = solve_lp(prof, "welfare")  # HiGHS over the EFCE polytope
print(f"best-welfare EFCE: payoffs {[float(x) for x in best.payoffs]} (the student studies and is hired)")
me = max_entropy(prof)  # cvxpy, Dudik & Gordon 2009 eq. 2 with w = 0
print(
    f"maximum-entropy EFCE: payoffs {[round(float(x), 4) for x in me.payoffs]}, "
    f"largest causal-deviation regret {float(me.max_regret):.1e}"
)

# The sampling algorithm sees only the simulator; its distribution is then evaluated exactly. On a
# game this small the default takes exact expectations; MCMC is what larger games need.
res = sample_efce(game, None, max_rounds=20, seed=0, options=SamplerOptions(expectations="mcmc", sample_size=300))
q, _ = exact_distribution(game, res, prof.tree)
print(
    f"sampling, {res.rounds} rounds: payoffs {[round(float(x), 3) for x in q @ prof.utility]}, "
    f"exact largest regret {float(max_regret(prof, list(q)).regret):.3f} (r_max 10)"
)

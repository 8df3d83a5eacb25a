#!/usr/bin/env python3
"""How far MCMC's noise moves Dudik & Gordon (2009)'s sampling algorithm from the maximum-entropy
EFCE it approximates, as a function of the sample size (issue 26, item 1).

For each sample size M and seed, ``efce.sample_efce`` runs with a fixed sample size (no growth),
the library's reuse rule (at most 10 rounds a sample) and target 1e-3 r_max, up to 2,000 rounds.
The final q_lambda is then evaluated exactly, over every full pure profile
(``efce.sampling.exact_distribution``), and compared with the ground truth: the maximum-entropy
EFCE from cvxpy (``efce.max_entropy``), which the same boosting with exact expectations reaches
(checked here too). Reported per sample size, over the seeds: the largest distance of the
*reported* payoffs (the sample estimate) from the truth, of the *exact* payoffs of q_lambda, the
total-variation distance of q_lambda from the truth over reduced profiles, and q_lambda's exact
largest causal-deviation regret.

Usage (from the repository root)::

    python bench/bench_efce_noise.py                      # job_market, M = 100 ... 10,000, seeds 0-9
    python bench/bench_efce_noise.py --sizes 100,1000 --seeds 3 --no-write

Writes ``bench/results/efce-noise-YYYY-MM-DD.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.report import finish, start  # noqa: E402


def measure(spec: str, sizes: list, seeds: int, max_rounds: int) -> dict:
    """Every run's distances from the ground truth (module docstring)."""
    import efce  # noqa: F401 (registers the games)
    import seqform
    from efce.causalregret import max_regret
    from efce.exact import max_entropy
    from efce.sampling import SamplerOptions, exact_distribution, sample_efce
    from efce.strategies import profiles

    game = seqform.games.load(spec)
    tree = seqform.compile_tree(game)
    prof = profiles(tree)
    truth = max_entropy(prof)
    true_pay = np.array([float(x) for x in truth.payoffs])
    ex = sample_efce(
        game, None, target=1e-7, max_rounds=500, options=SamplerOptions(expectations="exact", corrective=True)
    )
    ex_q, _ = exact_distribution(game, ex, tree)
    rows = []
    for m in sizes:
        for seed in range(seeds):
            t0 = time.perf_counter()
            res = sample_efce(
                game,
                None,
                seed=seed,
                max_rounds=max_rounds,
                options=SamplerOptions(expectations="mcmc", sample_size=m, growth=0.0),
            )
            q, _ = exact_distribution(game, res, tree)
            rows.append(
                {
                    "sample_size": m,
                    "seed": seed,
                    "rounds": res.rounds,
                    "stopped_by": res.stopped_by,
                    "reported_error": float(np.abs(np.asarray(res.payoffs) - true_pay).max()),
                    "exact_error": float(np.abs(q @ prof.utility - true_pay).max()),
                    "tv": float(np.abs(q - truth.p).sum() / 2),
                    "exact_regret": float(max_regret(prof, list(q)).regret),
                    "seconds": time.perf_counter() - t0,
                }
            )
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return {
        "game": game.name,
        "truth": true_pay.tolist(),
        "truth_regret": float(truth.max_regret),
        "exact_boosting_error": float(np.abs(np.asarray(ex.payoffs) - true_pay).max()),
        "exact_boosting_tv": float(np.abs(ex_q - truth.p).sum() / 2),
        "exact_boosting_rounds": ex.rounds,
        "rows": rows,
    }


def report(out: dict) -> list:
    """The results as markdown lines: one line per sample size, the worst and the median over seeds."""
    rows = out["rows"]
    lines = [
        "",
        f"Ground truth: the maximum-entropy EFCE from cvxpy, payoffs "
        f"({', '.join(f'{x:.6f}' for x in out['truth'])}). Boosting with exact expectations (totally "
        f"corrective, {out['exact_boosting_rounds']} rounds) reaches it to "
        f"{out['exact_boosting_error']:.1e} in payoffs, {out['exact_boosting_tv']:.1e} in total variation.",
        "",
        "Each MCMC run: fixed sample size M (growth 0), at most 10 rounds a sample, target 1e-3 r_max, at "
        "most 2,000 rounds. *reported*: the run's own payoff estimate; *exact*: the payoffs of its final "
        "q_lambda, computed over every full pure profile; *TV*: total variation from the truth; *regret*: "
        "q_lambda's exact largest causal-deviation regret. Worst and median over the seeds.",
        "",
        "| M | seeds | reached target | reported payoff error, worst (median) | exact payoff error, worst "
        "(median) | TV, worst (median) | exact regret, worst (median) | seconds per run (median) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in sorted({r["sample_size"] for r in rows}):
        rs = [r for r in rows if r["sample_size"] == m]

        def wm(key):
            v = np.array([r[key] for r in rs])
            return f"{v.max():.3f} ({np.median(v):.3f})"

        lines.append(
            f"| {m:,} | {len(rs)} | {sum(r['stopped_by'] == 'target' for r in rs)} | {wm('reported_error')} | "
            f"{wm('exact_error')} | {wm('tv')} | {wm('exact_regret')} | "
            f"{np.median([r['seconds'] for r in rs]):.2f} |"
        )
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="job_market")
    ap.add_argument("--sizes", default="100,300,1000,3000,10000", help="sample sizes M")
    ap.add_argument("--seeds", type=int, default=10, help="MCMC seeds per sample size")
    ap.add_argument("--max-rounds", type=int, default=2000)
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    out = measure(args.game, [int(x) for x in args.sizes.split(",") if x], args.seeds, args.max_rounds)
    day, folder, head = start(args.out_dir, f"MCMC noise in the sampling EFCE algorithm, {out['game']}")
    lines = head + report(out)
    if args.no_write:
        print("\n".join(lines))
    else:
        finish(folder, f"efce-noise-{day}", lines, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Exact EFCE beyond enumeration (``efce.colgen``): the welfare-optimal
EFCE and each player's exact payoff range over the EFCE polytope, on grids and Indian poker, each
game in its own fresh process with a time cap (``bench/isolated.py``).

Usage (from the repository root)::

    python bench/bench_efce_exact.py                                  # grids 3-5, poker 3 and 4
    python bench/bench_efce_exact.py --games "grid_game(size=6)" --ranges --cap 1800

Writes ``bench/results/efce-exact-YYYY-MM-DD.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.isolated import TAG, run_isolated  # noqa: E402
from bench.report import finish, start  # noqa: E402


def child(
    spec: str,
    ranges: bool,
    sampler: float,
    budget: float = float("inf"),
    warm: float = 0.0,
    smoothing: float = 0.8,
    lp_cap: float = float("inf"),
    pool_cap: float | None = None,
    max_idle: int = 50,
    pricing_cap: float | None = None,
    objectives: str = "",
) -> dict:
    import numpy as np

    import efce  # noqa: F401  (registers the games)
    import seqform
    from efce.colgen import EFCEColumnGeneration
    from seqform.errors import SolverError

    game = seqform.games.load(spec)
    t0 = time.perf_counter()
    cg = EFCEColumnGeneration(
        game,
        progress=lambda m: print(m, file=sys.stderr, flush=True),
        smoothing=smoothing,
        pool_cap=pool_cap,
        max_idle=max_idle,
    )
    if warm > 0:
        cg.warm_start(warm)
    N = game.num_players
    runs = [("welfare", np.ones(N))]
    if ranges:
        runs += [(f"{'max' if s > 0 else 'min'} u{n}", s * np.eye(N)[n]) for n in range(N) for s in (1, -1)]
    if objectives:
        wanted = [x.strip() for x in objectives.split(",")]
        runs = [r for r in runs if r[0] in wanted]

    def solve_all(runs, eps=0) -> list:
        out = []
        for name, w in runs:
            t = time.perf_counter()
            left = budget - (t - t0)
            if left <= 0:
                out.append({"objective": name, "unfinished": "no time left in the budget"})
                continue
            try:
                r = cg.solve(w, eps=eps, time_limit=min(left, lp_cap), pricing_time_limit=pricing_cap)
            except SolverError as e:  # one objective's time limit: the others' results stand
                f = getattr(e, "feasible", None)  # the stopped LP's EFCE, exact: a lower bound when certified
                out.append(
                    {
                        "objective": name,
                        "unfinished": str(e),
                        "seconds": time.perf_counter() - t,
                        "lp_value": getattr(e, "lp_value", None),
                        "upper_bound": getattr(e, "upper_bound", None),
                        "feasible_value": str(f.objective) if f is not None and f.certified else None,
                    }
                )
                continue
            out.append(
                {
                    "objective": name,
                    "value": str(r.objective),
                    "value_float": float(r.objective),
                    "payoffs": [str(x) for x in r.payoffs],
                    "certified": bool(r.certified),
                    "max_regret": str(r.max_regret),
                    "proved_optimal": bool(r.proved_optimal),
                    "pricing_bound": r.bound,
                    "iterations": r.iterations,
                    "support": r.support,
                    "seconds": time.perf_counter() - t,
                    "eps": str(eps),
                }
            )
        return out

    out = solve_all(runs)
    row = {"game": game.name, "runs": out}
    if ranges and sampler > 0 and not objectives and not any("unfinished" in x for x in out):
        row["sampler"] = _sampler_in_ranges(game, sampler, out, lambda eps: solve_all(runs[1:], eps))  # not welfare
    # the pool's counters after everything this game solved (the sampler's eps LPs included)
    row.update(
        profiles=int(len(cg.S)), retired=cg.retired, tight_resolves=cg.tight_resolves, seconds=time.perf_counter() - t0
    )
    return row


def _ranges(out: list) -> dict:
    """{player: (least, greatest)} from the range LPs' results (exact)."""
    from fractions import Fraction

    lo = {int(x["objective"][5:]): -Fraction(x["value"]) for x in out if x["objective"].startswith("min")}
    hi = {int(x["objective"][5:]): Fraction(x["value"]) for x in out if x["objective"].startswith("max")}
    return {n: (lo[n], hi[n]) for n in lo}


def _sampler_in_ranges(game, seconds: float, out: list, ranges_at) -> dict:
    """The sampling algorithm's maximum-entropy run (MCMC, seed 0, ``seconds``) against the exact
    ranges. Its distribution is not an EFCE but an eps-EFCE for eps its largest regret, so its
    payoffs must lie in the ranges over the eps-EFCE polytope (``ranges_at(eps)``, the 2N LPs
    again). eps is an upper estimate of that regret from fresh samples: the larger of the
    largest regret on one (biased up) and the validated regret plus two standard errors. Its
    payoffs are estimated on the validation's second fresh sample, with standard errors."""
    import math
    from fractions import Fraction

    from efce.sampling import SamplerOptions, sample_efce, validated_regret

    res = sample_efce(
        game, None, seed=0, time_limit=seconds, max_rounds=None, options=SamplerOptions(expectations="mcmc")
    )
    val = validated_regret(game, res, samples=1000, burn_in=100)
    up = max(val.found, val.validated + 2 * val.stderr)
    eps = Fraction(math.ceil(up * 10**6), 10**6)  # rounded up, to keep the ranges a superset

    def outside(rng: dict, slack: float) -> float:
        return max(
            max(0.0, float(rng[n][0]) - (p + slack * se), (p - slack * se) - float(rng[n][1]))
            for n, (p, se) in enumerate(zip(val.payoffs, val.payoffs_stderr))
        )

    relaxed = ranges_at(eps)
    done = not any("unfinished" in x for x in relaxed)
    return {
        "seconds": seconds,
        "rounds": res.rounds,
        "payoffs": val.payoffs,
        "payoffs_stderr": val.payoffs_stderr,
        "run_payoffs": [float(x) for x in res.payoffs],
        "largest_distance_outside": outside(_ranges(out), 0),
        "validated_regret": val.validated,
        "validated_stderr": val.stderr,
        "fresh_max_regret": val.found,
        "in_sample_regret": res.max_regret,
        "drift": val.energy_drift,
        "eps": str(eps),
        "eps_runs": relaxed,
        "eps_ranges": {n: [str(a), str(b)] for n, (a, b) in _ranges(relaxed).items()} if done else None,
        "outside_eps_ranges": outside(_ranges(relaxed), 2) if done else None,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", nargs=2, default=None, help=argparse.SUPPRESS)  # game, child()'s keywords (JSON)
    ap.add_argument(
        "--games",
        default="grid_game(size=3);grid_game(size=4);grid_game(size=5);indian_poker(cards=3);indian_poker(cards=4)",
        help="games, separated by ;",
    )
    ap.add_argument("--ranges", action="store_true", help="also each player's least and greatest payoff")
    ap.add_argument("--cap", type=float, default=1800, help="seconds per game")
    ap.add_argument(
        "--sampler",
        type=float,
        default=0.0,
        help="with --ranges: also run the sampling algorithm this many seconds and check that its "
        "payoffs lie in the exact ranges",
    )
    ap.add_argument(
        "--warm-start",
        type=float,
        default=0.0,
        metavar="S",
        help="seconds of the sampling algorithm whose profiles seed the pool (the CLI's --warm-start; "
        "default 0: column generation alone)",
    )
    ap.add_argument(
        "--lp-cap",
        type=float,
        default=float("inf"),
        metavar="S",
        help="seconds per LP (default: whatever is left of --cap), so that one slow LP does not "
        "leave the others unstarted",
    )
    ap.add_argument(
        "--smoothing",
        type=float,
        default=0.8,
        metavar="A",
        help="Wentges smoothing of the duals the cheap pricing looks at (EFCEColumnGeneration's smoothing; 0: none)",
    )
    ap.add_argument(
        "--pool-cap",
        type=float,
        default=None,
        metavar="K",
        help="profiles the pool may hold before idle ones are dropped (EFCEColumnGeneration's "
        "pool_cap; default 4 x (rows + 1); inf: never)",
    )
    ap.add_argument(
        "--max-idle",
        type=int,
        default=50,
        metavar="R",
        help="restricted LPs in a row a profile may stay nonbasic before it is dropped",
    )
    ap.add_argument(
        "--pricing-cap",
        type=float,
        default=None,
        metavar="S",
        help="seconds per pricing integer program (default: none); one stopped early leaves its LP "
        "not proved optimal but bounded (the table's pricing bound)",
    )
    ap.add_argument(
        "--objectives",
        default="",
        metavar="LIST",
        help="only these LPs, by name, separated by commas (welfare, max u0, min u0, ...; default: all)",
    )
    ap.add_argument("--name", default="efce-exact", help="results file stem: NAME-YYYY-MM-DD.{md,json}")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if args.child:
        print(TAG + json.dumps(child(args.child[0], **json.loads(args.child[1]))))
        return 0
    rows = []
    for spec in [g for g in args.games.split(";") if g]:
        print(f"{spec}: column generation, cap {args.cap:g} s", file=sys.stderr, flush=True)
        kw = {
            "ranges": args.ranges,
            "sampler": args.sampler,
            "budget": 0.95 * args.cap,
            "warm": args.warm_start,
            "smoothing": args.smoothing,
            "lp_cap": args.lp_cap,
            "pool_cap": args.pool_cap,
            "max_idle": args.max_idle,
            "pricing_cap": args.pricing_cap,
            "objectives": args.objectives,
        }
        r = run_isolated([str(Path(__file__).resolve()), "--child", spec, json.dumps(kw)], cap=args.cap, echo=True)
        r.setdefault("game", spec)
        rows.append(r)
    day, folder, head = start(args.out_dir, "Exact EFCE by column generation")
    lines = head + [
        "",
        "Each game in a fresh process (one core of two), cap per game as in the command. *certified*: the "
        "final basis solved in rationals and the distribution verified by the causal-deviation dynamic "
        "program in rationals (largest gain <= 0; on the *, eps* rows, <= eps). *proved optimal*: the last "
        "pricing integer program proved that no profile improves the LP (HiGHS MIP, gap 1e-9). "
        "*profiles in the LP*: the pool at the game's "
        f"end, and how many profiles were dropped from it along the way (nonbasic in {args.max_idle} LPs in a "
        "row once it held over its cap, EFCEColumnGeneration's pool_cap: "
        f"{'4 x (rows + 1)' if args.pool_cap is None else f'{args.pool_cap:g}'}). *optimum at most*: weak "
        "duality with the exact pricings (the LP's value plus the least largest reduced cost, floats); for an "
        "LP stopped at its time limit, the restricted LP's value (a feasible EFCE's, float) and that bound. "
        "Objectives are maximised: *min u0* is the maximum of -u0.",
        "",
        "| game | objective | exact value | float | certified | proved optimal | pricing rounds | support | "
        "profiles in the LP | optimum at most | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "runs" not in r:
            lines.append(
                f"| {r['game']} | | not finished: {str(r.get('status', r.get('error', '')))[:80]} | | | | | | "
                f"| | {r.get('wall_seconds', float('nan')):.0f} |"
            )
            continue
        samp = r.get("sampler") or {}
        for x in r["runs"] + [
            dict(x, objective=f"{x['objective']}, eps {samp['eps']}") for x in samp.get("eps_runs", [])
        ]:
            if "unfinished" in x:
                ub, lp = x.get("upper_bound"), x.get("lp_value")
                fv = x.get("feasible_value")
                lines.append(
                    f"| {r['game']} | {x['objective']} | not finished"
                    + (f" (a certified EFCE reaches {fv})" if fv else "")
                    + f": {x['unfinished'][:200]} | "
                    f"{'' if lp is None else f'{lp:.6g}'} | {'yes' if fv else ''} | no | | | | "
                    f"{'' if ub is None or ub == float('inf') else f'{ub:.6g}'} | {x.get('seconds', 0):.0f} |"
                )
                continue
            val = x["value"] if len(x["value"]) <= 30 else x["value"][:27] + "..."
            lines.append(
                f"| {r['game']} | {x['objective']} | {val} | {x['value_float']:.6g} | "
                f"{'yes' if x['certified'] else 'no'} | {'yes' if x['proved_optimal'] else 'no'} | "
                f"{x['iterations']} | {x['support']} | {r['profiles']:,} ({r.get('retired', 0):,} dropped) | "
                f"{x['value_float'] + x['pricing_bound']:.6g} | {x['seconds']:.1f} |"
            )
    tight = [f"{r['game']}: {r['tight_resolves']}" for r in rows if r.get("tight_resolves")]
    if tight:
        lines += [
            "",
            "LPs whose optimal basis failed exact verification and were solved again from it with "
            "HiGHS's tolerances at 1e-10 (EFCEColumnGeneration.certify): " + "; ".join(tight) + ".",
        ]
    samp = [r for r in rows if "sampler" in r]
    if samp:
        lines += [
            "",
            "The sampling algorithm (maximum entropy, MCMC, seed 0) against the exact ranges. Its "
            "regret and payoffs are estimated on fresh samples (two of 1,000 profiles after 100 Gibbs "
            "sweeps): *fresh max*, the largest regret on the first (biased up); *validated*, that "
            "deviation's on the second, +- one standard error. Its distribution is an eps-EFCE for eps its "
            "largest regret, so its payoffs lie in the ranges over the eps-EFCE polytope (the rows "
            "*, eps* above); *eps* is an upper estimate of that regret, the larger of fresh max and "
            "validated + 2 standard errors, rounded up. *Outside the EFCE ranges*: how far the farthest "
            "payoff estimate lies outside its player's exact range (0: all inside). *Outside the eps "
            "ranges*: the same with each estimate widened by two standard errors, against the eps "
            "ranges (0: consistent).",
            "",
            "| game | seconds | rounds | in-sample regret | fresh max | validated | drift | eps | "
            "outside the EFCE ranges | outside the eps ranges |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in samp:
            x = r["sampler"]
            far = x["outside_eps_ranges"]
            lines.append(
                f"| {r['game']} | {x['seconds']:g} | {x['rounds']:,} | {x['in_sample_regret']:.3g} | "
                f"{x['fresh_max_regret']:.3g} | {x['validated_regret']:.3g} +- {x['validated_stderr']:.2g} | "
                f"{x['drift']:+.1f} | {x['eps']} | {x['largest_distance_outside']:.3g} | "
                f"{'not finished' if far is None else f'{far:.3g}'} |"
            )
    if args.no_write:
        print("\n".join(lines))
    else:
        finish(folder, f"{args.name}-{day}", lines, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

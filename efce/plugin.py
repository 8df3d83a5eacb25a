"""What ``efce`` adds to seqform (``seqform.registry``): Dudik & Gordon's games (``job_market``,
``indian_poker``, ``grid_game``) and the ``seqform efce`` command. Found through the
``seqform.extensions`` entry point."""
from __future__ import annotations

import json
import time

from seqform.cli.common import Progress, at_least, build_tree, common_options, load_game_arg, positive
from seqform.errors import SeqformError

#: ``seqform efce``'s round limit when neither --rounds nor --time-limit is given
DEFAULT_EFCE_ROUNDS = 1000


def add_parser(sub) -> None:
    ep = sub.add_parser("efce", help="an extensive-form correlated equilibrium (Dudik & Gordon 2009)")
    ep.add_argument("game", help="a built-in game, e.g. job_market, 'indian_poker(cards=4)', 'grid_game(size=3)'")
    ep.add_argument("--weights", default=None, metavar="W1,W2,...",
                    help="bias towards sum_n w_n E[u_n] (Dudik & Gordon 2009, eq. 2); default 0: the "
                         "maximum-entropy EFCE")
    ep.add_argument("--exact", action="store_true",
                    help="exact ground truth for small games: maximum entropy over the EFCE polytope (cvxpy)")
    ep.add_argument("--welfare", action="store_true",
                    help="exact: the EFCE of best social welfare (or of best weighted payoff with --weights), HiGHS")
    ep.add_argument("--ranges", action="store_true",
                    help="exact: each player's least and greatest payoff over the EFCE polytope (LPs)")
    ep.add_argument("--eps", default="0", metavar="X",
                    help="with --welfare or --ranges: over the eps-EFCE polytope instead, where every causal "
                         "deviation may gain up to X (exact: 0.01 or 1/100); the ranges an iterative method's "
                         "payoffs lie in when its largest regret is at most X (default 0)")
    ep.add_argument("--warm-start", type=float, default=0.0, metavar="S",
                    help="with --welfare or --ranges on games too large to enumerate (column generation): "
                         "seconds of the sampling algorithm whose profiles seed the LP (default 0: none, so "
                         "the result depends on the seed alone, not on the machine's speed)")
    ep.add_argument("--pricing-time-limit", type=float, default=None, metavar="S",
                    help="column generation: seconds for each pricing integer program (default: none); one "
                         "that stops early leaves the optimum unproved, and the output says so")
    ep.add_argument("--base", choices=["full", "reduced"], default=None,
                    help="with --exact: entropy over full (Dudik & Gordon's choice, the default) or reduced pure "
                         "strategy profiles")
    ep.add_argument("--target", type=float, default=1e-3, metavar="X",
                    help="sampling: stop once the largest estimated causal-deviation regret is at most X times "
                         "r_max, the largest range of one player's payoff over the leaves (default 1e-3)")
    ep.add_argument("--rounds", type=int, default=None, metavar="N",
                    help=f"sampling: stop after N boosting rounds (default: no round limit when --time-limit "
                         f"is given, else {DEFAULT_EFCE_ROUNDS:,})")
    ep.add_argument("--sample-size", type=int, default=100, metavar="N",
                    help="sampling: profiles per sample at round 0 (default 100)")
    ep.add_argument("--seed", type=int, default=0, help="sampling: the random seed (default 0)")
    ep.add_argument("--time-limit", type=float, default=None, metavar="S",
                    help="sampling: stop after S seconds")
    ep.add_argument("--max-reuse", type=int, default=10, metavar="N",
                    help="sampling: most rounds one sample serves (0: no cap, Dudik & Gordon's rule: while its "
                         "effective size lasts)")
    ep.add_argument("--expectations", choices=["auto", "mcmc", "exact"], default="auto",
                    help="sampling: expectations from MCMC samples (Dudik & Gordon's algorithm) or exact, over "
                         "every full pure profile (totally corrective; at most 65,536 profiles); auto, the "
                         "default: exact when the game is that small")
    ep.add_argument("--validate", type=int, default=0, metavar="N",
                    help="sampling: afterwards, re-estimate the regret on two fresh samples of N profiles")
    ep.add_argument("--burn-in", type=int, default=30, metavar="N",
                    help="with --validate: Gibbs sweeps from uniform profiles before the fresh samples are read")
    ep.add_argument("--workers", type=int, default=1, metavar="N",
                    help="sampling: processes that draw the MCMC samples, the run's and --validate's (default 1)")
    common_options(ep)
    ep.set_defaults(func=cmd_efce)


def check(args) -> None:
    positive("--target", args.target)
    at_least("--rounds", args.rounds, 1)
    at_least("--sample-size", args.sample_size, 1)
    at_least("--validate", args.validate, 0)
    at_least("--burn-in", args.burn_in, 0)
    at_least("--workers", args.workers, 1)
    at_least("--max-reuse", args.max_reuse, 0)
    at_least("--warm-start", args.warm_start, 0)
    if args.pricing_time_limit is not None:
        positive("--pricing-time-limit", args.pricing_time_limit)
    if sum((args.exact, args.welfare, args.ranges)) > 1:
        raise SeqformError("--exact, --welfare and --ranges are different exact computations: give one")
    exact = args.exact or args.welfare or args.ranges
    if args.base is not None and not args.exact:
        raise SeqformError("--base applies to --exact only")
    args.eps = _rational("--eps", args.eps)
    if args.eps and not (args.welfare or args.ranges):
        raise SeqformError("--eps applies to --welfare and --ranges only")
    sampling = {"--rounds": args.rounds is not None, "--time-limit": args.time_limit is not None,
                "--validate": args.validate > 0, "--expectations": args.expectations != "auto",
                "--workers": args.workers > 1}
    if exact and any(sampling.values()):
        flags = ", ".join(f for f, given in sampling.items() if given)
        raise SeqformError(f"{flags} applies to the sampling algorithm, not to --exact or --welfare")
    args.base = args.base or "full"


def _rational(flag: str, text: str):
    """A non-negative exact number from the command line (0.01 is 1/100, not the nearest float)."""
    from fractions import Fraction
    try:
        x = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise SeqformError(f"{flag}: expected a number such as 0.01 or 1/100, got {text!r}") from None
    if x < 0:
        raise SeqformError(f"{flag}: must be at least 0, got {text!r}")
    return x


def cmd_efce(args) -> int:
    """``efce GAME``: an extensive-form correlated equilibrium (package ``efce``; Dudik & Gordon 2009,
    "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games")."""
    prog = Progress(args.quiet)
    game = load_game_arg(args.game, args)
    w = None
    if args.weights:
        try:
            w = [float(x) for x in args.weights.split(",")]
        except ValueError:
            raise SeqformError(f"--weights: expected numbers separated by commas, got {args.weights!r}") from None
        if len(w) != game.num_players:
            raise SeqformError(f"--weights: {game.name!r} has {game.num_players} players, got {len(w)} weights")
    if args.welfare or args.ranges:
        out = _exact_lp(game, w, args, prog)
    elif args.exact:
        from efce.exact import max_entropy
        from efce.strategies import profiles
        tree = build_tree(game, args, prog)
        t0 = time.perf_counter()
        prof = profiles(tree)
        prog(f"{prof.count:,} reduced strategy profiles ({' x '.join(map(str, prof.shape))})")
        res = max_entropy(prof, w, base=args.base)
        res.game, res.profiles, res.weights = game.name, prof.count, w
        res.method = f"maximum entropy (cvxpy, base {args.base})"
        res.seconds = {"total": time.perf_counter() - t0}
        out = res.to_json()
    else:
        from efce.sampling import MAX_EXACT_PROFILES, count_full_profiles, make_model, sample_efce, validated_regret
        # no hidden stopping rule: a round limit applies when asked for, or by default (said in
        # --help and in the output) when no time limit is given either
        rounds = args.rounds if args.rounds is not None or args.time_limit is not None else DEFAULT_EFCE_ROUNDS
        expectations = args.expectations
        if expectations == "auto":  # decided here, so that exact runs get the corrective refit
            full = count_full_profiles(make_model(game, [0.0] * game.num_players))
            expectations = "exact" if full <= MAX_EXACT_PROFILES else "mcmc"
        if args.workers > 1 and expectations == "exact" and not args.validate:
            raise SeqformError(f"--workers: nothing to draw; {game.name!r} runs with exact expectations "
                               "(add --expectations mcmc, or --validate)")
        res = sample_efce(game, w, target=args.target, max_rounds=rounds, seed=args.seed,
                          sample_size=args.sample_size, progress=prog, time_limit=args.time_limit,
                          max_reuse=args.max_reuse if args.max_reuse > 0 else 10**9, expectations=expectations,
                          corrective=expectations == "exact", workers=args.workers if expectations == "mcmc" else 1)
        out = res.to_json()
        out.update({"weights": w, "round_limit": rounds,
                    "round_limit_is_default": args.rounds is None and rounds is not None})
        if args.validate > 0:
            prog(f"validating on two fresh samples of {args.validate:,} profiles")
            v = validated_regret(game, res, samples=args.validate, seed=args.seed + 1, burn_in=args.burn_in,
                                workers=args.workers)
            out.update({"fresh_max_regret": v.found, "validated_regret": v.validated,
                        "validated_stderr": v.stderr, "validation_burn_in": v.burn_in,
                        "validation_energy_drift": v.energy_drift, "validation_settled": v.settled})
    status = 130 if out.get("interrupted") else 0  # Ctrl-C: the distribution so far, and the shell is told
    if args.json:
        print(json.dumps(out))
        return status
    print(f"game             {out['game']}")
    print(f"method           {out['method']}" + (f", weights {w}" if w else ""))
    if not out.get("proved_optimal", True):
        print("optimality       NOT proved: a pricing integer program stopped at --pricing-time-limit")
    if "ranges" in out:
        poly = "EFCE polytope" if not args.eps else f"{args.eps}-EFCE polytope"
        for n, (lo, hi) in enumerate(out["ranges_exact"]):
            print(f"player {n} payoff   from {lo} to {hi} over the {poly} (exact)")
        print(f"max regret       {out['max_regret']:.6g} (exact: the largest over the 2N extreme points"
              + (f"; at most eps = {args.eps})" if args.eps else ")"))
        print(f"profiles         {out['profiles']:,} in the LP")
        print(f"seconds          {out['seconds']:.3f}")
        return status
    print("payoffs          " + ", ".join(f"player {n}: {v:.6g}" for n, v in enumerate(out["payoffs"])))
    print(f"max regret       {out['max_regret']:.6g}" + (" (exact, best causal deviation)" if "profiles" in out
                                                         else " (largest causal-deviation regret, exact expectations "
                                                              "in floats)" if out.get("expectations") == "exact"
                                                         else " (largest estimated causal-deviation regret)"))
    if "rounds" in out:
        print(f"rounds           {out['rounds']:,} ({'converged' if out['converged'] else 'not converged'}); "
              f"initial regret {out['initial_regret']:.6g}")
        print(f"stopped by       {_stop_reason(out, args)}")
        if out["expectations"] == "exact":
            print(f"expectations     exact: every one of the {out['samples']:,} full pure profiles, weighted by "
                  f"q_lambda (totally corrective)")
        else:
            print(f"samples          {out['samples']:,} profiles drawn (MCMC)")
        if "validated_regret" in out:
            print(f"fresh sample     largest regret {out['fresh_max_regret']:.6g}; that deviation on a second "
                  f"sample: {out['validated_regret']:.6g} +- {out['validated_stderr']:.2g}")
            drift = out["validation_energy_drift"]
            print(f"mixing           mean energy moved {drift:+.1f} standard errors over the last half of "
                  f"{out['validation_burn_in']} sweeps" + ("" if out["validation_settled"] else ": not mixed, raise --burn-in"))
        print(f"memory           {out['peak_memory_bytes'] / 2**20:.1f} MiB peak (tracemalloc)")
    print(f"seconds          {out['seconds']:.3f}")
    return status


def _exact_lp(game, w, args, prog) -> dict:
    """--welfare and --ranges: the EFCE LP over every reduced profile when there are at most
    ``efce.strategies.MAX_PROFILES`` of them and --eps is 0, else by column generation
    (``efce.columngeneration``)."""
    import math

    import numpy as np

    from efce.strategies import MAX_PROFILES, count_reduced
    tree = build_tree(game, args, prog)
    t0 = time.perf_counter()
    N = game.num_players
    count = math.prod(count_reduced(tree, n) for n in range(N))
    weights = [np.eye(N)[n] * sgn for n in range(N) for sgn in (-1, 1)] if args.ranges else \
        [np.ones(N) if w is None else np.asarray(w, dtype=float)]
    results = []
    # eps > 0: column generation, whose optimal basis is solved in rationals; the full LP's floats,
    # rounded to denominators of at most 10^6, land on the exact vertex at eps = 0 but not beyond
    if count <= MAX_PROFILES and not args.eps:
        from efce.exact import solve_lp
        from efce.strategies import profiles
        prof = profiles(tree)
        prog(f"{prof.count:,} reduced strategy profiles ({' x '.join(map(str, prof.shape))}): the full LP")
        for wt in weights:
            results.append(solve_lp(prof, wt))
        method, size = "lp over every reduced profile (HiGHS)", prof.count
        proved = True
    else:
        from efce.columngeneration import EFCEColumnGeneration
        prog(f"{'~10^' + str(len(str(count)) - 1) if count >= 10**6 else f'{count:,}'} reduced strategy profiles: "
             f"column generation")
        cg = EFCEColumnGeneration(game, progress=prog, seed=args.seed)
        if args.warm_start > 0:
            cg.warm_start(args.warm_start)
        for wt in weights:
            results.append(cg.solve(wt, eps=args.eps, pricing_time_limit=args.pricing_time_limit))
        method, size = "column generation (exact EFCE LP, HiGHS)", len(cg.S)
        proved = all(r.proved_optimal for r in results)
    worst = max(r.max_regret for r in results)
    seconds = {"total": time.perf_counter() - t0}
    if args.ranges:
        from efce.columngeneration import PayoffRanges
        rng = [(results[2 * n].payoffs[n], results[2 * n + 1].payoffs[n]) for n in range(N)]
        return PayoffRanges(game.name, rng, worst, size, proved, method, seconds, eps=args.eps).to_json()
    r = results[0]
    r.game, r.seconds = game.name, seconds
    if hasattr(r, "profiles"):
        r.profiles = size
    out = r.to_json()
    out.update({"payoffs_exact": [str(x) for x in r.payoffs], "welfare_exact": str(sum(r.payoffs)), "weights": w,
                "max_regret_exact": str(worst), "certified": bool(worst <= args.eps), "proved_optimal": proved,
                "eps": float(args.eps), "eps_exact": str(args.eps),
                "profiles": size,
                "method": ("best welfare: " if w is None else "best weighted payoff: ") + method})
    return out


def _stop_reason(out: dict, args) -> str:
    """Which rule ended a sampling run, in words."""
    why = out["stopped_by"]
    if why == "target":
        return f"the target (largest regret <= {args.target:g} x r_max)"
    if why == "rounds":
        return f"the round limit of {out['round_limit']:,}" + (" (the default without --rounds or --time-limit)"
                                                              if out["round_limit_is_default"] else "")
    if why == "time_limit":
        return f"the time limit of {args.time_limit:g} s"
    if why == "interrupted":
        return "Ctrl-C (the distribution so far)"
    return "nothing to do: every distribution is an EFCE (all payoffs equal)"


def register(registry) -> None:
    from efce.games import grid_game, indian_poker, job_market
    for name, factory in (("job_market", job_market), ("indian_poker", indian_poker), ("grid_game", grid_game)):
        registry.add_game(name, factory)
    registry.add_command("efce", add_parser, check)

"""What ``efce`` adds to seqform (``seqform.registry``): Dudik & Gordon's games (``job_market``,
``indian_poker``, ``grid_game``) and the ``seqform efce`` command, four subcommands on one GAME:

- ``sample``: the sampling algorithm (``efce.sample_efce``, with ``efce.SamplerOptions``' defaults;
  any of them through ``--option NAME=VALUE``), optionally validated on fresh samples;
- ``maxent``: the exact maximum-entropy EFCE over the enumerated reduced profiles (cvxpy);
- ``welfare``: the EFCE of best social (or weighted) welfare, exactly: the LP over every reduced
  profile, or column generation beyond enumeration;
- ``ranges``: each player's least and greatest payoff over the EFCE polytope, exactly.

The form before subcommands (``seqform efce GAME [--exact | --welfare | --ranges] [--eps X]``) is
refused in one line naming the command that replaces it. Found through the
``seqform.extensions`` entry point."""
from __future__ import annotations

import argparse
import difflib
import json
import shlex
import sys
import time
import typing

from seqform.cli.common import (GAME_HELP, Progress, at_least, build_tree, common_options, load_game_arg,
                                positive)
from seqform.errors import SeqformError

SUBCOMMANDS = ("sample", "maxent", "welfare", "ranges")

#: ``seqform efce sample --validate N``'s Gibbs sweeps from uniform profiles, unless N,SWEEPS says
VALIDATION_BURN_IN = 30

#: the flags of the form before subcommands, and where each went
MOVED = {"--exact": "is now a subcommand: seqform efce maxent GAME",
         "--welfare": "is now a subcommand: seqform efce welfare GAME",
         "--ranges": "is now a subcommand: seqform efce ranges GAME",
         "--eps": "is now --allowance, of welfare and ranges: seqform efce ranges GAME --allowance X",
         "--expectations": "is now a sampler option: seqform efce sample GAME --option expectations=mcmc",
         "--sample-size": "is now a sampler option: seqform efce sample GAME --option sample_size=N",
         "--max-reuse": "is now a sampler option: seqform efce sample GAME --option max_reuse=N (none: no cap)",
         "--burn-in": "is now part of --validate: seqform efce sample GAME --validate N,SWEEPS"}

WEIGHTS_HELP = ("bias towards sum_n w_n E[u_n] (Dudik & Gordon 2009, eq. 2); default 0: the maximum-entropy "
                "EFCE")
ALLOWANCE_HELP = ("over the eps-EFCE polytope instead, where every causal deviation may gain up to X (exact: "
                  "0.01 or 1/100); the ranges an iterative method's payoffs lie in when its largest regret is "
                  "at most X (default 0)")


class _Subcommands(argparse._SubParsersAction):
    """argparse's subcommands, except that a first word naming none of them is taken for the form
    before subcommands (``seqform efce GAME --welfare``) and refused in one line that names the
    command replacing it (argparse's own check would only list the subcommands)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.choices = None   # checked in __call__

    def __call__(self, parser, namespace, values, option_string=None):
        if values[0] not in self._name_parser_map:
            parser.exit(2, f"seqform efce: {_moved_form(values)}\n")
        super().__call__(parser, namespace, values, option_string)


class _Moved(argparse.Action):
    """A flag of the form before subcommands (``MOVED``), hidden from --help and refused in one
    line naming what replaced it."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, argparse.SUPPRESS, nargs="?", help=argparse.SUPPRESS)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.exit(2, f"seqform efce: {option_string} {MOVED[option_string]}\n")


def _moved_form(words: list) -> str:
    """What replaced ``seqform efce WORDS``, whose first word is no subcommand: the subcommand its
    flags asked for, with its GAME."""
    game = shlex.quote(words[0])
    given = {w.split("=")[0] for w in words[1:]}
    for flag, command in (("--exact", "maxent"), ("--welfare", "welfare"), ("--ranges", "ranges")):
        if flag in given:
            eps = " (and --eps is now --allowance)" if "--eps" in given else ""
            return f"{flag} is now a subcommand: seqform efce {command} {game}{eps}"
    if "--eps" in given:
        return f"--eps {MOVED['--eps'].replace('GAME', game)}"
    near = difflib.get_close_matches(words[0], SUBCOMMANDS, n=1)
    if near:
        return f"no subcommand {words[0]!r} (did you mean {near[0]}?): seqform efce {'|'.join(SUBCOMMANDS)} GAME"
    return (f"the computation is now a subcommand before the game: seqform efce sample {game} "
            f"(or maxent, welfare, ranges)")


def _refuse(parser, *flags: str) -> None:
    for flag in flags:
        parser.add_argument(flag, action=_Moved)


def add_parser(sub) -> None:
    ep = sub.add_parser("efce", help="an extensive-form correlated equilibrium (Dudik & Gordon 2009)",
                        description="Extensive-form correlated equilibria (Dudik & Gordon 2009): "
                                    "seqform efce sample|maxent|welfare|ranges GAME (each with --help).")
    _refuse(ep, "--exact", "--welfare", "--ranges", "--eps")
    commands = ep.add_subparsers(dest="efce_command", required=True, action=_Subcommands,
                                 metavar="{" + ",".join(SUBCOMMANDS) + "}",
                                 help="sample (the sampling algorithm), maxent, welfare or ranges (exact)")
    sp = commands.add_parser("sample", help="the sampling algorithm: any number of players, games given as "
                                            "simulators (efce.sample_efce)")
    _add_sample_options(sp)
    mp = commands.add_parser("maxent", help="exact ground truth for small games: the maximum-entropy EFCE over the "
                                            "EFCE polytope (cvxpy)")
    mp.add_argument("game", help=GAME_HELP)
    mp.add_argument("--weights", default=None, metavar="W1,W2,...", help=WEIGHTS_HELP)
    mp.add_argument("--base", choices=["full", "reduced"], default="full",
                    help="entropy over full (Dudik & Gordon's choice, the default) or reduced pure strategy "
                         "profiles")
    _finish(mp, cmd_maxent)
    wp = commands.add_parser("welfare", help="exact: the EFCE of best social welfare (or of best weighted payoff "
                                             "with --weights), HiGHS; column generation beyond enumeration")
    wp.add_argument("game", help=GAME_HELP)
    wp.add_argument("--weights", default=None, metavar="W1,W2,...",
                    help="maximise sum_n w_n E[u_n] instead of the welfare, sum_n E[u_n]")
    _add_lp_options(wp)
    _finish(wp, cmd_welfare)
    rp = commands.add_parser("ranges", help="exact: each player's least and greatest payoff over the EFCE "
                                            "polytope (2N LPs)")
    rp.add_argument("game", help=GAME_HELP)
    _add_lp_options(rp)
    _finish(rp, cmd_ranges)


def _add_sample_options(sp) -> None:
    sp.add_argument("game", help=GAME_HELP)
    sp.add_argument("--weights", default=None, metavar="W1,W2,...", help=WEIGHTS_HELP)
    sp.add_argument("--target", type=float, default=1e-3, metavar="X",
                    help="stop once the largest estimated causal-deviation regret is at most X times r_max, the "
                         "largest range of one player's payoff over the leaves (default 1e-3)")
    sp.add_argument("--rounds", type=int, default=None, metavar="N",
                    help="stop after N boosting rounds (default: no round limit when --time-limit is given, "
                         "else 1,000)")
    sp.add_argument("--time-limit", type=float, default=None, metavar="S", help="stop after S seconds")
    sp.add_argument("--seed", type=int, default=0, help="the random seed (default 0)")
    sp.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="set one of efce.SamplerOptions (repeatable), e.g. expectations=mcmc (default auto: "
                         "exact expectations over every full pure profile when there are at most 65,536, "
                         "else MCMC), sample_size=300, max_reuse=none, thin=5, step_cap=100, "
                         "measure_memory=true; `python -c 'import efce; help(efce.SamplerOptions)'` lists them")
    sp.add_argument("--validate", default=None, metavar="N[,SWEEPS]",
                    help="afterwards, re-estimate the regret on two fresh samples of N profiles, read after "
                         f"SWEEPS Gibbs sweeps from uniform profiles (default {VALIDATION_BURN_IN})")
    sp.add_argument("--workers", type=int, default=1, metavar="N",
                    help="processes that draw the MCMC samples, the run's and --validate's (default 1)")
    _finish(sp, cmd_sample, *MOVED)


def _add_lp_options(p) -> None:
    p.add_argument("--allowance", default="0", metavar="X", help=ALLOWANCE_HELP)
    p.add_argument("--warm-start", type=float, default=0.0, metavar="S",
                   help="on games too large to enumerate (column generation): seconds of the sampling algorithm "
                        "whose profiles seed the LP (default 0: none, so the result depends on the seed alone, "
                        "not on the machine's speed)")
    p.add_argument("--pricing-time-limit", type=float, default=None, metavar="S",
                   help="column generation: seconds for each pricing integer program (default: none); one that "
                        "stops early leaves the optimum unproved, and the output says so")
    p.add_argument("--seed", type=int, default=0, help="column generation's random seed (default 0)")


def _finish(p, func, *refused: str) -> None:
    _refuse(p, *(refused or ("--exact", "--welfare", "--ranges", "--eps")))
    common_options(p)
    p.set_defaults(func=func)


def check(args) -> None:
    """Refuse bad options of ``seqform efce`` (``SeqformError``, one line); parse --option,
    --validate and --allowance into ``args``."""
    if args.efce_command == "sample":
        positive("--target", args.target)
        at_least("--rounds", args.rounds, 1)
        at_least("--workers", args.workers, 1)
        args.validate, args.burn_in = _validation(args.validate)
        args.options = _sampler_options(args.option)
    elif args.efce_command in ("welfare", "ranges"):
        at_least("--warm-start", args.warm_start, 0)
        positive("--pricing-time-limit", args.pricing_time_limit)
        args.allowance = _rational("--allowance", args.allowance)


def _validation(text: str | None) -> tuple:
    """--validate N[,SWEEPS] as (N, SWEEPS); (0, default) without it."""
    if text is None:
        return 0, VALIDATION_BURN_IN
    parts = text.split(",")
    try:
        n, sweeps = int(parts[0]), int(parts[1]) if len(parts) == 2 else VALIDATION_BURN_IN
    except (ValueError, IndexError):
        n = sweeps = -1
    if len(parts) > 2 or n < 0 or sweeps < 0:
        raise SeqformError(f"--validate: expected N or N,SWEEPS, whole numbers at least 0 (N 0: no validation), "
                           f"got {text!r}")
    return n, sweeps


def _sampler_options(pairs: list):
    """--option NAME=VALUE pairs as ``efce.SamplerOptions`` (--workers is its own flag)."""
    from efce.sampling import SamplerOptions
    hints = typing.get_type_hints(SamplerOptions)
    names = [n for n in hints if n != "workers"]
    given = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in names:
            raise SeqformError(f"--option: expected NAME=VALUE with NAME one of {', '.join(names)}; got {pair!r}")
        given[name] = _option_value(name, hints[name], text.strip())
    try:
        return SamplerOptions(**given)
    except SeqformError as e:
        raise SeqformError(f"--option {e}") from None


def _option_value(name: str, hint, text: str):
    """``text`` as a value of type ``hint`` (bool, int, float or str, or None for "none" where
    the option allows it)."""
    kinds = typing.get_args(hint) or (hint,)
    if type(None) in kinds and text.lower() == "none":
        return None
    kind = next(k for k in (bool, int, float, str) if k in kinds)
    try:
        if kind is bool:
            return {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}[text.lower()]
        return kind(text)
    except (KeyError, ValueError):
        what = "true or false" if kind is bool else f"{'a whole number' if kind is int else 'a number'}"
        what += " or none" if type(None) in kinds else ""
        raise SeqformError(f"--option {name}: expected {what}, got {text!r}") from None


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


def _weights(text: str | None, game) -> list | None:
    """--weights as floats, one per player (None when not given)."""
    if not text:
        return None
    try:
        w = [float(x) for x in text.split(",")]
    except ValueError:
        raise SeqformError(f"--weights: expected numbers separated by commas, got {text!r}") from None
    if len(w) != game.num_players:
        raise SeqformError(f"--weights: {game.name!r} has {game.num_players} players, got {len(w)} weights")
    return w


def cmd_sample(args) -> int:
    """``efce sample GAME``: the sampling algorithm of Dudik & Gordon 2009, "A Sampling-Based
    Approach to Computing Equilibria in Succinct Extensive-Form Games" (``efce.sample_efce``, with
    the library's defaults), and with --validate its regret measured on fresh samples."""
    from dataclasses import replace

    from efce.sampling import chosen_expectations, sample_efce, validated_regret
    prog = Progress(args.quiet)
    game = load_game_arg(args.game, args)
    w = _weights(args.weights, game)
    options = args.options
    if args.workers > 1:   # the run's draws, if it makes any; --validate's always
        if chosen_expectations(game, options) == "exact":
            if not args.validate:
                raise SeqformError(f"--workers: nothing to draw; {game.name!r} runs with exact expectations "
                                   "(add --option expectations=mcmc, or --validate)")
        else:
            options = replace(options, workers=args.workers)
    limit = {} if args.rounds is None else {"max_rounds": args.rounds}
    res = sample_efce(game, w, target=args.target, time_limit=args.time_limit, seed=args.seed, options=options,
                      progress=prog, **limit)
    out = res.to_json()
    out.update({"weights": w, "round_limit_is_default": args.rounds is None and res.round_limit is not None,
                "peak_resident_bytes": _peak_resident()})
    if args.validate:
        prog(f"validating on two fresh samples of {args.validate:,} profiles")
        v = validated_regret(game, res, samples=args.validate, seed=args.seed + 1, burn_in=args.burn_in,
                             engine=res.options.engine, workers=args.workers)
        out.update({"fresh_max_regret": v.found, "validated_regret": v.validated,
                    "validated_stderr": v.stderr, "validation_burn_in": v.burn_in,
                    "validation_energy_drift": v.energy_drift, "validation_settled": v.settled})
    status = 130 if out["interrupted"] else 0  # Ctrl-C: the distribution so far, and the shell is told
    if args.json:
        print(json.dumps(out))
    else:
        _print_sample(out, args, res.options.corrective)
    return status


def _print_sample(out: dict, args, corrective: bool) -> None:
    _print_head(out, out["weights"])
    exact = out["expectations"] == "exact"
    print(f"max regret       {out['max_regret']:.6g}" + (" (largest causal-deviation regret, exact expectations "
                                                         "in floats)" if exact else
                                                         " (largest estimated causal-deviation regret)"))
    print(f"rounds           {out['rounds']:,} ({'converged' if out['converged'] else 'not converged'}); "
          f"initial regret {out['initial_regret']:.6g}")
    print(f"stopped by       {_stop_reason(out, args)}")
    if exact:
        print(f"expectations     exact: every one of the {out['samples']:,} full pure profiles, weighted by "
              f"q_lambda" + (" (totally corrective)" if corrective else ""))
    else:
        print(f"samples          {out['samples']:,} profiles drawn (MCMC)")
    if "validated_regret" in out:
        print(f"fresh sample     largest regret {out['fresh_max_regret']:.6g}; that deviation on a second "
              f"sample: {out['validated_regret']:.6g} +- {out['validated_stderr']:.2g}")
        drift = out["validation_energy_drift"]
        print(f"mixing           mean energy moved {drift:+.1f} standard errors over the last half of "
              f"{out['validation_burn_in']} sweeps" + ("" if out["validation_settled"] else
                                                      ": not mixed, raise SWEEPS in --validate N,SWEEPS"))
    if out["peak_memory_bytes"] is not None:
        print(f"memory           {out['peak_memory_bytes'] / 2**20:.1f} MiB peak (tracemalloc)")
    elif out["peak_resident_bytes"] is not None:
        print(f"memory           {out['peak_resident_bytes'] / 2**20:.1f} MiB peak resident (the whole process)")
    print(f"seconds          {out['seconds']:.3f}")


def _peak_resident() -> int | None:
    """This process's peak resident memory in bytes, from the operating system (None where
    ``resource`` is missing)."""
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)   # bytes on macOS, KiB elsewhere


def cmd_maxent(args) -> int:
    """``efce maxent GAME``: the maximum-entropy EFCE (Dudik & Gordon 2009, eq. 2) over the
    enumerated reduced profiles, with cvxpy (``efce.max_entropy``)."""
    from efce.exact import max_entropy
    from efce.strategies import profiles
    prog = Progress(args.quiet)
    game = load_game_arg(args.game, args)
    w = _weights(args.weights, game)
    tree = build_tree(game, args, prog)
    t0 = time.perf_counter()
    prof = profiles(tree)
    prog(f"{prof.count:,} reduced strategy profiles ({' x '.join(map(str, prof.shape))})")
    res = max_entropy(prof, w, base=args.base)
    res.game, res.profiles, res.weights = game.name, prof.count, w
    res.method = f"maximum entropy (cvxpy, base {args.base})"
    res.seconds = {"total": time.perf_counter() - t0}
    return _print_exact(res.to_json(), w, args)


def cmd_welfare(args) -> int:
    """``efce welfare GAME``: the EFCE of best welfare (or weighted payoff), exactly
    (``_exact_lp``)."""
    prog = Progress(args.quiet)
    game = load_game_arg(args.game, args)
    w = _weights(args.weights, game)
    return _print_exact(_exact_lp(game, w, args, prog, ranges=False), w, args)


def _print_exact(out: dict, w: list | None, args) -> int:
    if args.json:
        print(json.dumps(out))
        return 0
    _print_head(out, w, proved=out.get("proved_optimal", True))
    print(f"max regret       {out['max_regret']:.6g} (exact, best causal deviation)")
    print(f"seconds          {out['seconds']:.3f}")
    return 0


def _print_head(out: dict, w: list | None, proved: bool = True) -> None:
    print(f"game             {out['game']}")
    print(f"method           {out['method']}" + (f", weights {w}" if w else ""))
    if not proved:
        print("optimality       NOT proved: a pricing integer program stopped at --pricing-time-limit")
    print("payoffs          " + ", ".join(f"player {n}: {v:.6g}" for n, v in enumerate(out["payoffs"])))


def cmd_ranges(args) -> int:
    """``efce ranges GAME``: each player's least and greatest payoff over the EFCE polytope (the
    eps-EFCE polytope with --allowance), exactly (``_exact_lp``)."""
    prog = Progress(args.quiet)
    game = load_game_arg(args.game, args)
    out = _exact_lp(game, None, args, prog, ranges=True)
    if args.json:
        print(json.dumps(out))
        return 0
    eps = args.allowance
    poly = "EFCE polytope" if not eps else f"{eps}-EFCE polytope"
    print(f"game             {out['game']}")
    print(f"method           {out['method']}")
    for n, (lo, hi) in enumerate(out["ranges_exact"]):
        print(f"player {n} payoff   from {lo} to {hi} over the {poly} (exact)")
    print(f"max regret       {out['max_regret']:.6g} (exact: the largest over the 2N extreme points"
          + (f"; at most eps = {eps})" if eps else ")"))
    print(f"profiles         {out['profiles']:,} in the LP")
    print(f"seconds          {out['seconds']:.3f}")
    return 0


def _exact_lp(game, w, args, prog, ranges: bool) -> dict:
    """welfare and ranges: the EFCE LP over every reduced profile when there are at most
    ``efce.strategies.MAX_PROFILES`` of them and the allowance is 0, else by column generation
    (``efce.colgen``)."""
    import math

    import numpy as np

    from efce.strategies import MAX_PROFILES, count_reduced
    tree = build_tree(game, args, prog)
    t0 = time.perf_counter()
    N = game.num_players
    eps = args.allowance
    count = math.prod(count_reduced(tree, n) for n in range(N))
    weights = [np.eye(N)[n] * sgn for n in range(N) for sgn in (-1, 1)] if ranges else \
        [np.ones(N) if w is None else np.asarray(w, dtype=float)]
    # eps > 0: column generation, whose optimal basis is solved in rationals; the full LP's floats,
    # rounded to denominators of at most 10^6, land on the exact vertex at eps = 0 but not beyond
    if count <= MAX_PROFILES and not eps:
        from efce.exact import solve_lp
        from efce.strategies import profiles
        prof = profiles(tree)
        prog(f"{prof.count:,} reduced strategy profiles ({' x '.join(map(str, prof.shape))}): the full LP")
        results = [solve_lp(prof, wt) for wt in weights]
        method, size, proved = "lp over every reduced profile (HiGHS)", prof.count, True
    else:
        from efce.colgen import EFCEColumnGeneration
        prog(f"{'~10^' + str(len(str(count)) - 1) if count >= 10**6 else f'{count:,}'} reduced strategy profiles: "
             f"column generation")
        cg = EFCEColumnGeneration(game, progress=prog, seed=args.seed)
        if args.warm_start > 0:
            cg.warm_start(args.warm_start)
        results = [cg.solve(wt, eps=eps, pricing_time_limit=args.pricing_time_limit) for wt in weights]
        method, size = "column generation (exact EFCE LP, HiGHS)", len(cg.S)
        proved = all(r.proved_optimal for r in results)
    worst = max(r.max_regret for r in results)
    seconds = {"total": time.perf_counter() - t0}
    if ranges:
        from efce.colgen import PayoffRanges
        rng = [(results[2 * n].payoffs[n], results[2 * n + 1].payoffs[n]) for n in range(N)]
        return PayoffRanges(game.name, rng, worst, size, proved, method, seconds, eps=eps).to_json()
    r = results[0]
    out = r.to_json()
    out.update({"game": game.name, "seconds": seconds, "payoffs_exact": [str(x) for x in r.payoffs], "welfare_exact": str(sum(r.payoffs)), "weights": w,
                "max_regret_exact": str(worst), "certified": bool(worst <= eps), "proved_optimal": proved,
                "eps": float(eps), "eps_exact": str(eps), "profiles": size,
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

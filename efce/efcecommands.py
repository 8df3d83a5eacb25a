"""The handlers of ``seqform efce``'s four subcommands (``efce.plugin`` builds their parser):
each runs its computation and prints its text or its one JSON object.

- ``cmd_sample``: the sampling algorithm (``efce.sample_efce``), optionally validated;
- ``cmd_maxent``: the exact maximum-entropy EFCE (``efce.max_entropy``);
- ``cmd_welfare`` and ``cmd_ranges``: the EFCE LP, over every reduced profile or by column
  generation (``efce.colgen``).

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import json
import sys
import time
import typing
from dataclasses import replace

from seqform.cli.common import Progress, build_tree, load_game_arg
from seqform.errors import SeqformError
from seqform.result import table

if typing.TYPE_CHECKING:
    from efce.colgen import ColumnGenerationResult
    from efce.exact import EFCEResult


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
    from efce.sampling import chosen_expectations, sample_efce, validated_regret

    prog = Progress(args.quiet)
    game = load_game_arg(args.game, args)
    w = _weights(args.weights, game)
    options = args.options
    if args.workers > 1:  # the run's draws, if it makes any; --validate's always
        if chosen_expectations(game, options) == "exact":
            if not args.validate:
                raise SeqformError(
                    f"--workers: nothing to draw; {game.name!r} runs with exact expectations "
                    "(add --option expectations=mcmc, or --validate)"
                )
        else:
            options = replace(options, workers=args.workers)
    limit = {} if args.rounds is None else {"max_rounds": args.rounds}
    res = sample_efce(
        game, w, target=args.target, time_limit=args.time_limit, seed=args.seed, options=options, progress=prog, **limit
    )
    assert res.options is not None  # sample_efce records the options it ran with
    out = res.to_json()
    out.update(
        {
            "weights": w,
            "round_limit_is_default": args.rounds is None and res.round_limit is not None,
            "peak_resident_bytes": _peak_resident(),
        }
    )
    if args.validate:
        prog(f"validating on two fresh samples of {args.validate:,} profiles")
        v = validated_regret(
            game,
            res,
            samples=args.validate,
            seed=args.seed + 1,
            burn_in=args.burn_in,
            engine=res.options.engine,
            workers=args.workers,
        )
        out.update(
            {
                "fresh_max_regret": v.found,
                "validated_regret": v.validated,
                "validated_stderr": v.stderr,
                "validation_burn_in": v.burn_in,
                "validation_energy_drift": v.energy_drift,
                "validation_settled": v.settled,
            }
        )
    status = 130 if out["interrupted"] else 0  # Ctrl-C: the distribution so far, and the shell is told
    if args.json:
        print(json.dumps(out))
    else:
        _print_sample(out, args, res.options.corrective)
    return status


def _print_sample(out: dict, args, corrective: bool | None) -> None:
    rows = _head_rows(out, out["weights"])
    exact = out["expectations"] == "exact"
    rows.append(
        (
            "max regret",
            f"{out['max_regret']:.6g}"
            + (
                " (largest causal-deviation regret, exact expectations in floats)"
                if exact
                else " (largest estimated causal-deviation regret)"
            ),
        )
    )
    rows.append(
        (
            "rounds",
            f"{out['rounds']:,} ({'converged' if out['converged'] else 'not converged'}); "
            f"initial regret {out['initial_regret']:.6g}",
        )
    )
    rows.append(("stopped by", _stop_reason(out, args)))
    if exact:
        rows.append(
            (
                "expectations",
                f"exact: every one of the {out['samples']:,} full pure profiles, weighted by q_lambda"
                + (" (totally corrective)" if corrective else ""),
            )
        )
    else:
        rows.append(("samples", f"{out['samples']:,} profiles drawn (MCMC)"))
    if "validated_regret" in out:
        rows.append(
            (
                "fresh sample",
                f"largest regret {out['fresh_max_regret']:.6g}; that deviation on a second "
                f"sample: {out['validated_regret']:.6g} +- {out['validated_stderr']:.2g}",
            )
        )
        drift = out["validation_energy_drift"]
        rows.append(
            (
                "mixing",
                f"mean energy moved {drift:+.1f} standard errors over the last half of "
                f"{out['validation_burn_in']} sweeps"
                + ("" if out["validation_settled"] else ": not mixed, raise SWEEPS in --validate N,SWEEPS"),
            )
        )
    if out["peak_memory_bytes"] is not None:
        rows.append(("memory", f"{out['peak_memory_bytes'] / 2**20:.1f} MiB peak (tracemalloc)"))
    elif out["peak_resident_bytes"] is not None:
        rows.append(("memory", f"{out['peak_resident_bytes'] / 2**20:.1f} MiB peak resident (the whole process)"))
    rows.append(("seconds", f"{out['seconds']['total']:.3f}"))
    print(table(rows, min_width=TEXT_COLUMN))


def _peak_resident() -> int | None:
    """This process's peak resident memory in bytes, from the operating system (None where
    ``resource`` is missing)."""
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)  # bytes on macOS, KiB elsewhere


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
    # what the command knows beyond the solver: a new result with it (the solver's is not changed)
    res = replace(
        res,
        game=game.name,
        profiles=prof.count,
        weights=w,
        method=f"maximum entropy (cvxpy, base {args.base})",
        seconds={"total": time.perf_counter() - t0},
    )
    if args.json:
        print(json.dumps(res.to_json()))
    else:
        print(res.summary())
    return 0


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
    rows = _head_rows(out, w, proved=out.get("proved_optimal", True))
    rows.append(("max regret", f"{out['max_regret']:.6g} (exact, best causal deviation)"))
    rows.append(("seconds", f"{out['seconds']['total']:.3f}"))
    print(table(rows, min_width=TEXT_COLUMN))
    return 0


#: where the text of every ``seqform efce`` command's lines starts
TEXT_COLUMN = 17


def _head_rows(out: dict, w: list | None, proved: bool = True) -> list:
    rows = [("game", out["game"]), ("method", out["method"] + (f", weights {w}" if w else ""))]
    if not proved:
        rows.append(("optimality", "NOT proved: a pricing integer program stopped at --pricing-time-limit"))
    rows.append(("payoffs", ", ".join(f"player {n}: {v:.6g}" for n, v in enumerate(out["payoffs"]))))
    return rows


def cmd_ranges(args) -> int:
    """``efce ranges GAME``: each player's least and greatest payoff over the EFCE polytope (the
    eps-EFCE polytope with --allowance), exactly (``_exact_lp``)."""
    prog = Progress(args.quiet)
    game = load_game_arg(args.game, args)
    res = _exact_lp(game, None, args, prog, ranges=True)
    if args.json:
        print(json.dumps(res.to_json()))
    else:
        print(res.summary(rationals=args.rationals))
    return 0


def _exact_lp(game, w, args, prog, ranges: bool):
    """welfare and ranges: the EFCE LP over every reduced profile when there are at most
    ``efce.strategies.MAX_PROFILES`` of them and the allowance is 0, else by column generation
    (``efce.colgen``). Returns welfare's JSON (a dict), or the ranges (an ``efce.colgen.PayoffRanges``)."""
    import math

    import numpy as np

    from efce.strategies import MAX_PROFILES, count_reduced

    tree = build_tree(game, args, prog)
    t0 = time.perf_counter()
    N = game.num_players
    eps = args.allowance
    count = math.prod(count_reduced(tree, n) for n in range(N))
    weights = (
        [np.eye(N)[n] * sgn for n in range(N) for sgn in (-1, 1)]
        if ranges
        else [np.ones(N) if w is None else np.asarray(w, dtype=float)]
    )
    # eps > 0: column generation, whose optimal basis is solved in rationals; the full LP's floats,
    # rounded to denominators of at most 10^6, land on the exact vertex at eps = 0 but not beyond
    if count <= MAX_PROFILES and not eps:
        from efce.exact import solve_lp
        from efce.strategies import profiles

        prof = profiles(tree)
        prog(f"{prof.count:,} reduced strategy profiles ({' x '.join(map(str, prof.shape))}): the full LP")
        results: list[EFCEResult] | list[ColumnGenerationResult] = [solve_lp(prof, wt) for wt in weights]
        method, size, proved = "lp over every reduced profile (HiGHS)", prof.count, True
    else:
        from efce.colgen import EFCEColumnGeneration

        prog(
            f"{'~10^' + str(len(str(count)) - 1) if count >= 10**6 else f'{count:,}'} reduced strategy profiles: "
            f"column generation"
        )
        cg = EFCEColumnGeneration(game, progress=prog, seed=args.seed)
        if args.warm_start > 0:
            cg.warm_start(args.warm_start)
        cg_results = [cg.solve(wt, eps=eps, pricing_time_limit=args.pricing_time_limit) for wt in weights]
        results = cg_results
        method, size = "column generation (exact EFCE LP, HiGHS)", len(cg.S)
        proved = all(r.proved_optimal for r in cg_results)
    worst = max(r.max_regret for r in results)
    seconds = {"total": time.perf_counter() - t0}
    if ranges:
        from efce.colgen import PayoffRanges

        rng = [(results[2 * n].payoffs[n], results[2 * n + 1].payoffs[n]) for n in range(N)]
        return PayoffRanges(
            game=game.name,
            ranges=rng,
            max_regret=worst,
            profiles=size,
            proved_optimal=proved,
            method=method,
            seconds=seconds,
            eps=eps,
        )
    r = results[0]
    out = r.to_json()
    out.update(
        {
            "game": game.name,
            "seconds": seconds,
            "payoffs_exact": [str(x) for x in r.payoffs],
            "welfare_exact": str(sum(r.payoffs)),
            "weights": w,
            "max_regret_exact": str(worst),
            "certified": bool(worst <= eps),
            "proved_optimal": proved,
            "eps": float(eps),
            "eps_exact": str(eps),
            "profiles": size,
            "method": ("best welfare: " if w is None else "best weighted payoff: ") + method,
        }
    )
    return out


def _stop_reason(out: dict, args) -> str:
    """Which rule ended a sampling run, in words."""
    why = out["stopped_by"]
    if why == "target":
        return f"the target (largest regret <= {args.target:g} x r_max)"
    if why == "rounds":
        return f"the round limit of {out['round_limit']:,}" + (
            " (the default without --rounds or --time-limit)" if out["round_limit_is_default"] else ""
        )
    if why == "time_limit":
        return f"the time limit of {args.time_limit:g} s"
    if why == "interrupted":
        return "Ctrl-C (the distribution so far)"
    return "nothing to do: every distribution is an EFCE (all payoffs equal)"

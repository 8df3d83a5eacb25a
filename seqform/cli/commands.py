"""The core's commands: ``seqform solve``, ``seqform info``, ``seqform evaluate``, ``seqform convert``,
``seqform verify``, ``seqform games``. Extensions add theirs, and options of ``seqform solve``,
through ``seqform.registry``."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from fractions import Fraction

from seqform.cli.common import Progress, build_tree, load_game_arg, print_strategy
from seqform.errors import SeqformError
from seqform.registry import registry
from seqform.result import format_sizes


def cmd_info(args) -> int:
    prog = Progress(args.quiet)
    game = load_game_arg(args.game, args)
    t0 = time.perf_counter()
    tree = build_tree(game, args, prog)
    secs = time.perf_counter() - t0
    sizes = tree.sizes()
    zs = (
        "zero-sum"
        if tree.constant_sum == 0
        else (f"constant-sum ({tree.constant_sum})" if tree.constant_sum is not None else "general-sum")
    )
    if args.json:
        print(
            json.dumps(
                {
                    "game": tree.name,
                    "players": tree.num_players,
                    "sizes": sizes,
                    "constant_sum": str(tree.constant_sum) if tree.constant_sum is not None else None,
                    "seconds": {"build": secs},
                }
            )
        )
    else:
        print(f"game        {tree.name}")
        print(f"players     {tree.num_players}, {zs}")
        print(f"histories   {sizes['histories']:,}")
        print(f"terminals   {sizes['terminals']:,}")
        for p in range(tree.num_players):
            print(f"player {p}    {sizes['infosets'][p]:,} information sets, {sizes['sequences'][p]:,} sequences")
        print(f"built in    {secs:.3f} s")
    return 0


def cmd_solve(args) -> int:
    from seqform.solve import solve

    prog = Progress(args.quiet)
    t_read = time.perf_counter()
    game = load_game_arg(args.game, args)
    read = time.perf_counter() - t_read
    # an extension's option (--refine, --method doracle) hands the game to its solver
    for option in registry().solve_options.values():
        if option.applies(args):
            return option.run(args, game, prog)
    sol = solve(
        game,
        method=args.method,
        certify_exact=not args.no_certify,
        exact_limit=args.exact_limit,
        time_limit=args.time_limit,
        memory_limit_gib=args.memory_limit,
        progress=prog,
    )
    # reading the game (parsing a file) is part of what the user waited for: the result printed
    # counts it (a new result; the solver's is not changed)
    sol = replace(sol, seconds={"read": read, **sol.seconds, "total": sol.seconds["total"] + read})
    if args.json:
        print(json.dumps(sol.to_json(strategy=args.strategy)))
        return 0
    print(sol.summary())
    if args.strategy:
        print_strategy(sol.tree, sol.strategy_profile())
    return 0


def cmd_evaluate(args) -> int:
    from seqform.io.strategyjson import read_profile
    from seqform.verify.evaluate import evaluate

    prog = Progress(args.quiet)
    game = load_game_arg(args.game, args)
    tree = build_tree(game, args, prog)
    profile = read_profile(tree, args.strategy, missing="uniform" if args.missing_uniform else "error")
    exact = True if args.exact else (False if args.float else None)
    prog("evaluating" + (" in exact arithmetic" if exact is not False else ""))
    ev = evaluate(tree, profile, exact=exact)
    if args.json:
        print(json.dumps(ev.to_json(per_infoset=args.per_infoset)))
        return 0
    kind = "exact" if ev.exact else "float"
    print(f"game                 {tree.name}")
    print(f"arithmetic           {kind}")
    for p in range(tree.num_players):
        print(f"player {p}             value {ev.values[p]}, best response {ev.best_response_values[p]}")
    print(f"NashConv             {ev.nash_conv}")
    print(f"exploitability       {ev.exploitability}  (NashConv / {tree.num_players})")
    print(f"max infoset regret   {ev.max_regret}  at {ev.describe_max_regret()}")
    if ev.renormalised:
        print(
            f"note                 {len(ev.renormalised)} information sets renormalised exactly "
            f"(their float probabilities did not sum to exactly 1)"
        )
    return 0


def cmd_convert(args) -> int:
    from seqform.io.efgwrite import write_efg

    prog = Progress(args.quiet)
    if not args.out.lower().endswith(".efg"):
        raise SeqformError(f"cannot write {args.out!r}: seqform writes Gambit .efg files (name ending in .efg)")
    game = load_game_arg(args.game, args)
    tree = build_tree(game, args, prog)
    try:
        write_efg(tree, args.out)
    except OSError as e:
        raise SeqformError(f"cannot write {args.out}: {e.strerror or e}") from None
    prog(f"wrote {args.out}")
    if args.json:
        print(json.dumps({"game": tree.name, "out": args.out, "sizes": tree.sizes()}))
    elif not args.quiet:
        print(f"{tree.name} -> {args.out}: {format_sizes(tree.sizes())}")
    return 0


def cmd_verify(args) -> int:
    """``verify SOLVER GAME --iterations N``: track an iterative solver against the certified value."""
    from seqform.study.verifyharness import verify

    prog = Progress(args.quiet)
    if args.iterations < 1:
        raise SeqformError(f"--iterations must be at least 1, got {args.iterations}")
    if args.plot:  # checked before the run, not after it
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            raise SeqformError('--plot needs matplotlib: pip install "seqform[plot]" (or pip install matplotlib)')
    game = load_game_arg(args.game, args)
    tree = build_tree(game, args, prog)
    refined = [c for c in (args.refined or "").split(",") if c]
    rep = verify(
        args.solver,
        tree,
        args.iterations,
        refined=refined,
        eps=args.eps,
        seed=args.seed,
        seeds=args.seeds,
        progress=prog,
        points=list(range(args.every, args.iterations + 1, args.every)) if args.every else None,
    )
    if args.plot:
        rep.plot(args.plot)
        prog(f"wrote {args.plot}")
    if args.json:
        print(json.dumps(rep.to_json()))
        return 130 if rep.interrupted else 0
    last = rep.points[-1] if rep.points else None
    print(f"game                     {rep.game}")
    print(f"solver                   {rep.solver}")
    print(f"game value               {rep.game_value}  (= {float(rep.game_value):.12g}, certified LP)")
    if last is not None:
        trav = f", {last.traversals:,} tree traversals" if last.traversals is not None else ""
        work = f", {last.nodes_touched:,} nodes touched" if last.nodes_touched is not None else ""
        runs = f" (median of {last.seeds} seeds; 10-90% band in brackets)" if last.seeds > 1 else ""
        print(
            f"after                    {last.iteration:,} iterations{trav}{work}, {rep.solver_seconds:.3f} s in "
            f"the solver{runs}"
        )

        def band(attr: str, fmt: str) -> str:
            if last.seeds == 1:
                return ""
            return f"  [{getattr(last, attr + '_q10'):{fmt}} .. {getattr(last, attr + '_q90'):{fmt}}]"

        print(f"exploitability           {last.exploitability:.6e}{band('exploitability', '.3e')}")
        if last.current_exploitability is not None:
            print(f"  of the current iterate {last.current_exploitability:.6e}")
        print(f"value gap                {last.value_gap:+.6e}{band('value_gap', '+.3e')}")
        print(f"max infoset regret       {last.max_infoset_regret:.6e}{band('max_infoset_regret', '.3e')}")
        for c in ("efpe", "qpe"):
            d = getattr(last, f"{c}_distance")
            if d is not None:
                print(
                    f"distance to exact {c.upper()}   {d:.6e}  (to the limit eps -> 0; telling only where it is unique)"
                )
        if rep.perturbed is not None:
            pg = rep.perturbed
            print(
                f"in the {pg['concept'].upper()}-perturbed game at eps={pg['eps']:g} (exact value "
                f"{float(Fraction(pg['value'])):.12g}; the fraction is in --json):"
            )
            print(f"  exploitability         {last.perturbed_exploitability:.6e}")
            print(f"  value gap              {last.perturbed_value_gap:+.6e}")
            print(f"  max infoset regret     {last.perturbed_max_infoset_regret:.6e}")
            print(f"  tremble violation      {last.tremble_violation:.3e}")
    if rep.interrupted:
        print("interrupted              (measurements up to the interruption)")
    return 130 if rep.interrupted else 0


def cmd_games(args) -> int:
    """``seqform games``: the built-in games (``seqform.games.available()``: the core's and the extensions'),
    their parameters with defaults, and their sizes at the defaults, counted without building them."""
    import inspect

    from seqform import games

    available = games.available()
    rows = []
    for name in sorted(available):
        factory = available[name]
        params = {
            p.name: (None if p.default is inspect.Parameter.empty else p.default)
            for p in inspect.signature(factory).parameters.values()
        }
        try:
            nodes = factory().num_nodes_hint()
        except Exception:  # a game whose defaults cannot be built or counted: size unknown
            nodes = None
        doc = (inspect.getdoc(factory) or "").split("\n\n")[0].replace("\n", " ")
        rows.append({"name": name, "parameters": params, "nodes": nodes, "description": doc})
    if args.json:
        print(json.dumps({"games": rows}, default=str))
        return 0
    for r in rows:
        ps = ", ".join(f"{k}={v!r}" for k, v in r["parameters"].items())
        size = f"{r['nodes']:,} nodes" if r["nodes"] is not None else "size unknown"
        print(f"{r['name']}({ps})  [{size}]")
        if r["description"]:
            print(f"    {r['description']}")
    return 0

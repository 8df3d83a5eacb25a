"""The core's commands: ``seqform solve``, ``seqform info``, ``seqform evaluate``, ``seqform convert``,
``seqform verify``, ``seqform games``. Extensions add theirs, and options of ``seqform solve``,
through ``seqform.registry``."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from fractions import Fraction

from seqform.cli.common import Progress, build_tree, load_game_arg, print_strategy
from seqform.errors import CheckpointError, SeqformError
from seqform.registry import registry
from seqform.result import format_sizes, number, table


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
        abstraction=False if args.no_abstraction else "auto",
    )
    # reading the game (parsing a file) is part of what the user waited for: the result printed
    # counts it (a new result; the solver's is not changed)
    sol = replace(sol, seconds={"read": read, **sol.seconds, "total": sol.seconds["total"] + read})
    if args.json:
        print(json.dumps(sol.to_json(strategy=args.strategy)))
        return 0
    print(sol.summary(rationals=args.rationals))
    if args.strategy:
        eq = getattr(sol, "algebraic", None)  # irrational: print the exact numbers beside the floats
        exact = [eq.numbers(b) for b in eq.behaviour] if eq is not None else None
        print_strategy(sol.tree, sol.strategy_profile(), args.rationals, exact=exact)
    return 0


def cmd_evaluate(args) -> int:
    from seqform.io.strategyjson import read_profile
    from seqform.verify.evaluate import evaluate, is_exact_profile

    prog = Progress(args.quiet)
    game = load_game_arg(args.game, args)
    tree = build_tree(game, args, prog)
    profile = read_profile(
        tree, args.strategy, missing="uniform" if args.missing_uniform else "error", check_game=not args.no_check_game
    )
    exact = True if args.exact else (False if args.float else is_exact_profile(profile))
    prog("evaluating in " + ("exact" if exact else "float") + " arithmetic")
    ev = evaluate(tree, profile, exact=exact)
    if args.json:
        print(json.dumps(ev.to_json(per_infoset=args.per_infoset)))
        return 0
    print(evaluation_text(tree, ev, args.rationals))
    return 0


def evaluation_text(tree, ev, rationals: bool = False) -> str:
    """What ``seqform evaluate`` prints for the evaluation ``ev`` of a profile on ``tree``."""
    digits = 12 if ev.exact else 6  # a float evaluation is good to about 1e-12 relative: fewer digits say so
    rows = [("game", tree.name), ("arithmetic", "exact" if ev.exact else "float")]
    for p in range(tree.num_players):
        rows.append(
            (
                f"player {p}",
                f"value {number(ev.values[p], rationals, digits=digits)}, best response "
                f"{number(ev.best_response_values[p], rationals, digits=digits)}",
            )
        )
    rows.append(("NashConv", number(ev.nash_conv, rationals, digits=3)))
    rows.append(("exploitability", number(ev.exploitability, rationals, f"NashConv / {tree.num_players}", digits=3)))
    rows.append(("max infoset regret", f"{number(ev.max_regret, rationals, digits=3)}  at {ev.describe_max_regret()}"))
    if ev.renormalised:
        rows.append(
            (
                "note",
                f"{len(ev.renormalised)} information sets renormalised exactly "
                f"(their float probabilities did not sum to exactly 1)",
            )
        )
    return table(rows)


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
    """``verify SOLVER[,SOLVER...] GAME --iterations N``: track iterative solvers against the certified
    value, computed once; several solvers share one figure and one JSON object ({"game", ..., "runs": [...]})."""
    from seqform.study.verifyharness import DETERMINISTIC, ground_truth, no_value_line, solver_refusal, verify

    prog = Progress(args.quiet)
    if args.iterations < 1:
        raise SeqformError(f"--iterations must be at least 1, got {args.iterations}")
    if args.plot:  # checked before the run, not after it
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            from seqform.installation import install_command

            raise SeqformError(f"--plot needs matplotlib: {install_command('plot')} (or pip install matplotlib)")
    names = getattr(args, "solvers", None) or args.solver.split(",")
    game = load_game_arg(args.game, args)
    tree = build_tree(game, args, prog)
    refined = [c for c in (args.refined or "").split(",") if c]
    points = list(range(args.every, args.iterations + 1, args.every)) if args.every else None
    ck = _verify_checkpoint(args, tree, names, points, refined) if args.checkpoint else None
    for name in names:  # a solver that refuses the game (two-player only), before any work
        why = solver_refusal(name, tree, args.eps)
        if why is not None:
            raise SeqformError(why)
    truth = ground_truth(tree, refined, args.eps, prog)
    reps = []
    for name in names:
        if len(names) > 1:
            prog(f"running {name}")
        try:
            rep = verify(
                name,
                tree,
                args.iterations,
                truth=truth,
                eps=args.eps,
                seed=args.seed,
                # compared with sampled solvers, a deterministic one runs once: its seeds would repeat it
                seeds=1 if len(names) > 1 and name in DETERMINISTIC else args.seeds,
                progress=prog,
                points=points,
                checkpoint=ck,
            )
        except CheckpointError as e:
            raise SeqformError(f"--checkpoint {e}") from None
        reps.append(rep)
        if rep.interrupted:
            break
    if args.plot:
        info = reps[0].plot(args.plot, x=args.x, bound=args.bound, others=reps[1:])
        for note in info.notes:
            prog(note)
        prog(f"wrote {args.plot} (x axis: {info.x})")
    interrupted = any(r.interrupted for r in reps)
    if args.json:
        if len(names) == 1:
            print(json.dumps(reps[0].to_json()))
        else:
            g = reps[0]
            one = g.to_json()
            out = {k: one[k] for k in ("game", "players", "game_value", "game_value_float")}
            print(json.dumps({**out, "interrupted": interrupted, "runs": [r.to_json() for r in reps]}))
        return 130 if interrupted else 0
    print(f"game                     {reps[0].game}")
    if len(names) == 1:
        print(f"solver                   {reps[0].solver}")
    if reps[0].has_value:
        print(f"game value               {number(reps[0].game_value, args.rationals, 'certified LP')}")
    else:
        print(f"game value               {no_value_line(reps[0])}")
    for rep in reps:
        if len(names) > 1:
            print(f"\nsolver                   {rep.solver}")
        _print_verify_run(rep, args.rationals)
    if interrupted:
        print("interrupted              (measurements up to the interruption)")
    return 130 if interrupted else 0


def _verify_checkpoint(args, tree, names: list, points: list | None, refined: list):
    """``--checkpoint FILE``: the verify checkpoint of this command, refused (one line) for a
    solver that cannot be saved and for a file of another run or a damaged one."""
    from seqform.study.verifycheckpoint import DEFAULT_EVERY, VerifyCheckpoint
    from seqform.study.verifyharness import checkpoint_refusal, checkpoints, fingerprint

    marks = sorted(set(points)) if points is not None else checkpoints(args.iterations)
    try:
        for name in names:
            why = checkpoint_refusal(name, tree, args.eps)
            if why is not None:
                raise CheckpointError(why)
        opts = {"eps": args.eps, "seed": args.seed, "seeds": args.seeds, "params": None, "refined": refined}
        fp = fingerprint(tree, names, args.iterations, marks, **opts)
        every = DEFAULT_EVERY if args.checkpoint_every is None else args.checkpoint_every
        return VerifyCheckpoint.open(args.checkpoint, fp, every)
    except CheckpointError as e:
        raise SeqformError(f"--checkpoint {e}") from None


def _print_verify_run(rep, rationals: bool = False) -> None:
    """The lines of one verify run after its header: its last point's measures."""
    from seqform.study.verifyharness import nash_conv_lines

    last = rep.points[-1] if rep.points else None
    if last is not None:
        trav = f", {last.traversals:,} tree traversals" if last.traversals is not None else ""
        work = f", {last.nodes_touched:,} nodes touched" if last.nodes_touched is not None else ""
        runs = f" (median of {last.seeds} seeds; 10-90% band in brackets)" if last.seeds > 1 else ""
        print(
            f"after                    {last.iteration:,} iterations{trav}{work}, {rep.solver_seconds:.3f} s in "
            f"the solver{runs}"
        )
        if not rep.has_value:  # measured by NashConv: no value, no value gap
            print("\n".join(nash_conv_lines(rep, rationals)))
            return

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
                label = f"distance to exact {c.upper()}"
                print(f"{label:<25}{d:.6e}  (to the limit eps -> 0; telling only where it is unique)")
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
    # columns: the size at the defaults (right-aligned), then the game as a GAME argument with
    # every parameter at its default (copied as is, it loads that game), its description below
    sizes = [f"{r['nodes']:,} nodes" if r["nodes"] is not None else "size unknown" for r in rows]
    width = max(map(len, sizes))
    for r, size in zip(rows, sizes):
        ps = ", ".join(f"{k}={v!r}" for k, v in r["parameters"].items())
        print(f"{size:>{width}}  {r['name']}({ps})")
        if r["description"]:
            print(f"{'':>{width}}    {r['description']}")
    return 0

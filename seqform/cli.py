"""The ``seqform`` command line: ``solve``, ``info``, ``evaluate``, ``convert``, ``shrink``.

GAME is a built-in game with parameters (``kuhn``, ``leduc(ranks=5)``, ``liars_dice(1, 3)``), a
Gambit ``.efg`` file, or ``openspiel:NAME`` (see ``seqform.gamespec``).
Progress goes to standard error (``--quiet`` silences it), results to standard output. Errors are
one line on standard error and exit status 2; Ctrl-C stops cleanly with status 130.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from .gamespec import load_game
from .errors import SeqformError
from .limits import memory_limit
from .tree import compile_tree


class Progress:
    """Timestamped one-line progress messages on standard error."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.t0 = time.perf_counter()
        if not quiet:  # a long LP solve shows HiGHS's iteration log as progress
            from .highs import set_log_sink
            set_log_sink(self)

    def __call__(self, msg: str) -> None:
        if not self.quiet:
            print(f"[{time.perf_counter() - self.t0:7.2f}s] {msg}", file=sys.stderr, flush=True)


def _register_extension_games() -> None:
    import efce  # registers Dudik & Gordon's games (job_market, indian_poker, grid_game)
    import lossless  # registers the games with ordered signals (rhode_island, ...)
    del lossless, efce


def _load(spec: str, args=None):
    _register_extension_games()
    if os.path.isdir(spec):
        raise SeqformError(f"{spec}: is a directory, not a game")
    try:
        return load_game(spec, getattr(args, "memory_limit", None))
    except FileNotFoundError as e:
        raise SeqformError(f"no such file: {e.filename}") from None
    except OSError as e:
        raise SeqformError(f"cannot read {spec}: {e.strerror or e}") from None


def _build(game, args, prog: Progress):
    """Compile ``game`` with progress and the memory limit of ``args``."""
    return compile_tree(game, progress=lambda n: prog(f"building: {n:,} nodes"),
                        memory_limit_bytes=memory_limit(args.memory_limit))


def _fmt_sizes(sizes: dict) -> str:
    return (f"{sizes['histories']:,} histories, {sizes['terminals']:,} terminals, "
            f"information sets {sizes['infosets'][0]:,} / {sizes['infosets'][1]:,}, "
            f"sequences {sizes['sequences'][0]:,} / {sizes['sequences'][1]:,}")


def cmd_info(args) -> int:
    prog = Progress(args.quiet)
    game = _load(args.game, args)
    t0 = time.perf_counter()
    tree = _build(game, args, prog)
    secs = time.perf_counter() - t0
    sizes = tree.sizes()
    zs = "zero-sum" if tree.constant_sum == 0 else (
        f"constant-sum ({tree.constant_sum})" if tree.constant_sum is not None else "general-sum")
    if args.json:
        print(json.dumps({"game": tree.name, "players": tree.num_players, "sizes": sizes,
                          "constant_sum": str(tree.constant_sum) if tree.constant_sum is not None else None,
                          "seconds": {"build": secs}}))
    else:
        print(f"game        {tree.name}")
        print(f"players     {tree.num_players}, {zs}")
        print(f"histories   {sizes['histories']:,}")
        print(f"terminals   {sizes['terminals']:,}")
        for p in range(tree.num_players):
            print(f"player {p}    {sizes['infosets'][p]:,} information sets, {sizes['sequences'][p]:,} sequences")
        print(f"built in    {secs:.3f} s")
    return 0


def _print_strategy(tree, profile) -> None:
    from .strategyio import profile_to_json
    obj = profile_to_json(tree, profile)
    for p, player in enumerate(obj["strategies"]):
        print(f"player {p} strategy:")
        for e in player["infosets"]:
            acts = ", ".join(f"{a}: {pr}" for a, pr in e["actions"].items())
            print(f"  {e['infoset']}  {acts}")


def cmd_refine(args, game, prog: Progress) -> int:
    """``solve --refine efpe|qpe [--eps X]``: a refined equilibrium (package ``refinements``)."""
    from refinements import refine
    if args.eps is not None and not args.eps > 0:
        raise SeqformError(f"--eps must be positive, got {args.eps}")
    tree = _build(game, args, prog)
    # the command line always cross-checks the value against the plain Nash LP (one more solve)
    sol = refine(tree, args.refine, args.eps, cross_check=True, progress=prog)
    if args.json:
        print(json.dumps(sol.to_json(strategy=args.strategy)))
        return 0
    print(f"game            {sol.game}")
    print(f"sizes           {_fmt_sizes(sol.sizes)}")
    if sol.eps is None:
        what = "extensive-form perfect" if sol.concept == "efpe" else "quasi-perfect"
        print(f"refinement      {sol.concept}: {what} equilibrium, exact limit eps -> 0 (trembling LP)")
        print(f"value           {sol.value}  (= {sol.value_float:.12g}, player 0)")
        print(f"certificate     {'exact' if sol.certified else 'FAILED'}: Nash with the certified value "
              f"{sol.nash_value}, every information set's regret exactly zero under the limit beliefs"
              if sol.certified else f"certificate     FAILED: {'; '.join(sol.notes)}")
        print(f"max infoset regret {sol.max_infoset_regret} ({sol.positive_regret_infosets} information sets positive)")
    else:
        print(f"refinement      {sol.concept} perturbed game at eps={sol.eps:g} (exact at that eps)")
        print(f"value           {sol.value_float:.12g}  (perturbed game, player 0)")
        print(f"trembles        every bound holds (largest shortfall {sol.tremble_violation:.3g})")
        print(f"max infoset regret {float(sol.max_infoset_regret):.3g} ({sol.positive_regret_infosets} information sets "
              f"above 1e-9)")
    print(f"exploitability  {sol.exploitability:.3g}  (unperturbed game)")
    print("seconds         " + ", ".join(f"{k} {v:.3f}" for k, v in sol.seconds.items()))
    if args.strategy:
        _print_strategy(sol.tree, sol.exact_profile or sol.profile)
    return 0


def cmd_doracle(args, game, prog: Progress) -> int:
    """``solve GAME --method doracle``: double oracle (package ``doracle``), exact when it converges."""
    from doracle import double_oracle
    res = double_oracle(game, mode=args.do_mode, time_limit=args.time_limit, progress=prog)
    last = res.history[-1] if res.history else {}
    out = {"game": res.game, "method": "doracle", "value": str(res.value) if res.value is not None else None,
           "value_float": float(res.value) if res.value is not None else None, "certified": res.value is not None,
           "lower": str(res.lower) if res.lower is not None else None,
           "upper": str(res.upper) if res.upper is not None else None, "iterations": res.iterations,
           "restricted_nodes": last.get("restricted_nodes"), "seconds": {"total": res.seconds},
           "interrupted": res.interrupted}
    if args.strategy:
        out["strategies"] = [{repr(k): dict(zip(res.action_labels[p][k], map(str, probs)))
                              for k, probs in res.profile[p].items()} for p in (0, 1)]
    status = 130 if res.interrupted else 0  # Ctrl-C: the bounds so far, and the shell is told
    if args.json:
        print(json.dumps(out))
        return status
    print(f"game            {res.game}")
    print(f"method          double oracle, {res.iterations} iterations; last restricted game "
          f"{last.get('restricted_nodes', 0):,} nodes")
    if res.value is not None:
        print(f"value           {res.value}  (= {float(res.value):.12g}, player 0)")
        print("certificate     exact: both players' exact best responses in the full game meet at the value")
    else:
        lo = "?" if res.lower is None else f"{float(res.lower):.12g}"
        hi = "?" if res.upper is None else f"{float(res.upper):.12g}"
        print(f"value           not converged: {lo} <= value <= {hi}")
    print(f"seconds         total {res.seconds:.3f}")
    if res.interrupted:
        print("interrupted     (the bounds found before Ctrl-C)")
    if args.strategy:
        for p, strat in enumerate(out["strategies"]):
            print(f"player {p} strategy (the first action at every information set not listed):")
            for k, acts in strat.items():
                print(f"  {k}  " + ", ".join(f"{a}: {pr}" for a, pr in acts.items()))
    return status


def cmd_solve(args) -> int:
    from .solve import solve
    prog = Progress(args.quiet)
    t_read = time.perf_counter()
    game = _load(args.game, args)
    read = time.perf_counter() - t_read
    if args.refine:
        return cmd_refine(args, game, prog)
    if args.eps is not None:
        raise SeqformError("--eps needs --refine efpe|qpe")
    if args.method == "doracle":
        return cmd_doracle(args, game, prog)
    sol = solve(game, method=args.method, certify_exact=not args.no_certify, exact_limit=args.exact_limit,
                time_limit=args.time_limit, memory_limit_gib=args.memory_limit, progress=prog)
    # reading the game (parsing a file) is part of what the user waited for
    sol.seconds = {"read": read, **sol.seconds, "total": sol.seconds["total"] + read}
    if args.json:
        print(json.dumps(sol.to_json(strategy=args.strategy)))
        return 0
    cert = sol.certificate
    print(f"game            {sol.game}")
    print(f"sizes           {_fmt_sizes(sol.sizes)}")
    if sol.certified:
        print(f"value           {sol.value}  (= {sol.value_float:.12g}, player 0)")
        print(f"certificate     exact: both strategies verified, exact best responses meet at the value "
              f"(basis of {cert.basis_size:,} unknowns)")
    else:
        print(f"value           {sol.value_float:.12g}  (float, player 0; not certified)")
        if cert is not None:
            print(f"certificate     none: {cert.note}")
            print(f"                exact bracket {float(cert.lower):.12g} <= value <= {float(cert.upper):.12g}; "
                  f"exploitability of the returned strategies <= {float(cert.exploitability):.3g} (exact bound)")
    print(f"exploitability  {sol.exploitability:.3g}")
    s = sol.seconds
    print("seconds         " + ", ".join(f"{k} {v:.3f}" for k, v in s.items()))
    if args.strategy:
        _print_strategy(sol.tree, sol.exact_profile or sol.profile)
    return 0


def cmd_evaluate(args) -> int:
    from .evaluate import evaluate
    from .strategyio import read_profile
    prog = Progress(args.quiet)
    game = _load(args.game, args)
    tree = _build(game, args, prog)
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
        print(f"note                 {len(ev.renormalised)} information sets renormalised exactly "
              f"(their float probabilities did not sum to exactly 1)")
    return 0


def cmd_convert(args) -> int:
    from .efg import write_efg
    prog = Progress(args.quiet)
    if not args.out.lower().endswith(".efg"):
        raise SeqformError(f"cannot write {args.out!r}: seqform writes Gambit .efg files (name ending in .efg)")
    game = _load(args.game, args)
    tree = _build(game, args, prog)
    try:
        write_efg(tree, args.out)
    except OSError as e:
        raise SeqformError(f"cannot write {args.out}: {e.strerror or e}") from None
    prog(f"wrote {args.out}")
    if args.json:
        print(json.dumps({"game": tree.name, "out": args.out, "sizes": tree.sizes()}))
    elif not args.quiet:
        print(f"{tree.name} -> {args.out}: {_fmt_sizes(tree.sizes())}")
    return 0


def _fmt_lp(part: dict) -> list:
    lines = [f"  information sets  {part['infosets'][0]:,} / {part['infosets'][1]:,}",
             f"  sequences         {part['sequences'][0]:,} / {part['sequences'][1]:,}"]
    if "lp_rows" in part:
        lines.append(f"  LP rows           {part['lp_rows']:,}  (|Sigma_0| + |I_1| + 1; columns {part['lp_columns']:,})")
    if "payoff_nonzeros" in part:
        lines.append(f"  nonzeros          {part['payoff_nonzeros']:,} in A, {part['lp_nonzeros']:,} in the LP")
    per = " / ".join("-".join(f"{c:,}" for c in row) for row in part["per_round"])
    lines.append(f"  per round         {per}  (observations or classes, player 0 / player 1)")
    return lines


def cmd_shrink(args) -> int:
    """``shrink GAME``: GameShrink on a game with ordered signals (package ``lossless``)."""
    from lossless import OrderedSignalGame, shrink
    from lossless import solve as shrunk_solve
    prog = Progress(args.quiet)
    if args.out is not None and not args.out.lower().endswith(".efg"):
        raise SeqformError(f"cannot write {args.out!r}: the abstract game is written as a Gambit .efg file")
    game = _load(args.game, args)
    if not isinstance(game, OrderedSignalGame):
        raise SeqformError(f"{args.game}: GameShrink needs a game with ordered signals (rhode_island, leduc_os, "
                           f"four_card, or a lossless.OrderedSignalGame); {getattr(game, 'name', args.game)} is not one")
    if args.solve:
        if args.own_view:
            raise SeqformError("--solve needs the lossless abstraction; drop --own-view")
        res = shrunk_solve(game, method=args.method, progress=prog)
        sh = res.shrunk
    else:
        sh = shrink(game, lossless=not args.own_view, nonzeros=not args.no_nonzeros,
                    build_abstract=args.out is not None, progress=prog)
        res = None
    if args.out is not None:
        from .efg import write_efg
        if sh.abstract is None:
            raise SeqformError(f"the abstract game of {game.name} has {sh.sizes['after']['signal_tree_nodes']:,} "
                               f"signal nodes, too many to write as a game tree")
        tree = _build(sh.abstract, args, prog)
        try:
            write_efg(tree, args.out)
        except OSError as e:
            raise SeqformError(f"cannot write {args.out}: {e.strerror or e}") from None
        prog(f"wrote {args.out}")
    out = dict(sh.sizes)
    out["seconds"] = dict(sh.seconds)
    if res is not None:
        out["seconds"].update(res.seconds)
        out["value"] = str(res.value) if res.value is not None else None
        out["certified"] = res.certified
        out["exploitability"] = str(res.exploitability) if res.exploitability is not None else None
    if args.json:
        print(json.dumps(out))
        return 0
    kind = "lossless" if sh.abstraction.respect_opponents else "own-view (the paper's counts; NOT lossless in general)"
    print(f"game              {game.name}")
    print(f"abstraction       {kind}, {sh.abstraction.iterations} refinement passes")
    print(f"game tree         {out['before']['game_tree_nodes']:,} nodes -> {out['after']['game_tree_nodes']:,}")
    print(f"signal tree       {out['signal_tree_nodes']:,} nodes -> {out['after']['signal_tree_nodes']:,}")
    print("before")
    print("\n".join(_fmt_lp(out["before"])))
    print("after")
    print("\n".join(_fmt_lp(out["after"])))
    if res is not None:
        if res.certified:
            print(f"value             {res.value}  (= {float(res.value):.12g}, player 0): the abstract game's certified "
                  f"value; the lifted strategies' exact exploitability in the original game is 0")
        else:
            print(f"value             not certified (abstract certificate: "
                  f"{res.abstract_solution.certificate.note if res.abstract_solution.certificate else 'none'}; "
                  f"lifted exploitability {res.exploitability})")
    print("seconds           " + ", ".join(f"{k} {v:.3f}" for k, v in out["seconds"].items()))
    return 0


def cmd_verify(args) -> int:
    """``verify SOLVER GAME --iterations N``: track an iterative solver against the certified value."""
    from .verify import verify
    prog = Progress(args.quiet)
    if args.iterations < 1:
        raise SeqformError(f"--iterations must be at least 1, got {args.iterations}")
    if args.plot:  # checked before the run, not after it
        import importlib.util
        if importlib.util.find_spec("matplotlib") is None:
            raise SeqformError('--plot needs matplotlib: pip install "seqform[plot]" (or pip install matplotlib)')
    game = _load(args.game, args)
    tree = _build(game, args, prog)
    refined = [c for c in (args.refined or "").split(",") if c]
    rep = verify(args.solver, tree, args.iterations, refined=refined, eps=args.eps, progress=prog,
                 points=list(range(args.every, args.iterations + 1, args.every)) if args.every else None)
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
        print(f"after                    {last.iteration:,} iterations{trav}, {rep.solver_seconds:.3f} s in the solver")
        print(f"exploitability           {last.exploitability:.6e}")
        print(f"value gap                {last.value_gap:+.6e}")
        print(f"max infoset regret       {last.max_infoset_regret:.6e}")
        for c in ("efpe", "qpe"):
            d = getattr(last, f"{c}_distance")
            if d is not None:
                print(f"distance to exact {c.upper()}   {d:.6e}")
    if rep.interrupted:
        print("interrupted              (measurements up to the interruption)")
    return 130 if rep.interrupted else 0


def cmd_efce(args) -> int:
    """``efce GAME``: an extensive-form correlated equilibrium (package ``efce``; Dudik & Gordon 2009,
    "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games")."""
    prog = Progress(args.quiet)
    game = _load(args.game, args)
    w = None
    if args.weights:
        try:
            w = [float(x) for x in args.weights.split(",")]
        except ValueError:
            raise SeqformError(f"--weights: expected numbers separated by commas, got {args.weights!r}") from None
        if len(w) != game.num_players:
            raise SeqformError(f"--weights: {game.name!r} has {game.num_players} players, got {len(w)} weights")
    out = {"game": game.name, "weights": w}
    if args.exact or args.welfare:
        from efce.exact import max_entropy, solve_lp
        from efce.strategies import profiles
        tree = _build(game, args, prog)
        t0 = time.perf_counter()
        prof = profiles(tree)
        prog(f"{prof.count:,} reduced strategy profiles ({' x '.join(map(str, prof.shape))})")
        res = solve_lp(prof, "welfare" if w is None else w) if args.welfare else max_entropy(prof, w, base=args.base)
        out.update({"method": "lp (best welfare)" if args.welfare else f"maximum entropy (cvxpy, base {args.base})",
                    "payoffs": [float(x) for x in res.payoffs], "max_regret": float(res.max_regret),
                    "worst_deviation": res.worst.label, "profiles": prof.count,
                    "seconds": time.perf_counter() - t0})
    else:
        from efce.sampling import sample_efce, validated_regret
        # no hidden stopping rule: a round limit applies when asked for, or by default (said in
        # --help and in the output) when no time limit is given either
        rounds = args.rounds if args.rounds is not None or args.time_limit is not None else DEFAULT_EFCE_ROUNDS
        res = sample_efce(game, w, target=args.target, max_rounds=rounds, seed=args.seed,
                          sample_size=args.sample_size, progress=prog, time_limit=args.time_limit,
                          max_reuse=args.max_reuse if args.max_reuse > 0 else 10**9)
        out.update({"method": "sampling (Dudik & Gordon 2009)", "payoffs": [float(x) for x in res.payoffs],
                    "max_regret": float(res.max_regret), "initial_regret": float(res.initial_regret),
                    "rounds": res.rounds, "samples": res.samples, "seconds": res.seconds,
                    "peak_memory_bytes": res.peak_memory, "converged": res.converged,
                    "deviations": len(res.deviations), "stopped_by": res.stopped_by,
                    "round_limit": rounds, "round_limit_is_default": args.rounds is None and rounds is not None,
                    "interrupted": res.stopped_by == "interrupted"})
        if args.validate > 0:
            prog(f"validating on two fresh samples of {args.validate:,} profiles")
            v = validated_regret(game, res, samples=args.validate, seed=args.seed + 1, burn_in=args.burn_in)
            out.update({"fresh_max_regret": v.found, "validated_regret": v.validated,
                        "validated_stderr": v.stderr, "validation_burn_in": v.burn_in,
                        "validation_energy_drift": v.energy_drift, "validation_settled": v.settled})
    status = 130 if out.get("interrupted") else 0  # Ctrl-C: the distribution so far, and the shell is told
    if args.json:
        print(json.dumps(out))
        return status
    print(f"game             {out['game']}")
    print(f"method           {out['method']}" + (f", weights {w}" if w else ""))
    print("payoffs          " + ", ".join(f"player {n}: {v:.6g}" for n, v in enumerate(out["payoffs"])))
    print(f"max regret       {out['max_regret']:.6g}" + (" (exact, best causal deviation)" if "profiles" in out
                                                         else " (largest estimated causal-deviation regret)"))
    if "rounds" in out:
        print(f"rounds           {out['rounds']:,} ({'converged' if out['converged'] else 'not converged'}); "
              f"initial regret {out['initial_regret']:.6g}")
        print(f"stopped by       {_stop_reason(out, args)}")
        print(f"samples          {out['samples']:,} profiles drawn")
        if "validated_regret" in out:
            print(f"fresh sample     largest regret {out['fresh_max_regret']:.6g}; that deviation on a second "
                  f"sample: {out['validated_regret']:.6g} +- {out['validated_stderr']:.2g}")
            drift = out["validation_energy_drift"]
            print(f"mixing           mean energy moved {drift:+.1f} standard errors over the last half of "
                  f"{out['validation_burn_in']} sweeps" + ("" if out["validation_settled"] else ": not mixed, raise --burn-in"))
        print(f"memory           {out['peak_memory_bytes'] / 2**20:.1f} MiB peak (tracemalloc)")
    print(f"seconds          {out['seconds']:.3f}")
    return status


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


GAME_HELP = ("a built-in game with parameters (kuhn, 'leduc(ranks=5)', 'liars_dice(1,3)'; `seqform games` lists "
             "them), a Gambit .efg file, or openspiel:NAME")
MEMORY_HELP = ("refuse games whose tree or LP would need more than this many GiB (default: SEQFORM_MEMORY_LIMIT, "
               "else 75%% of available memory)")
QUIET_HELP = "no progress messages on standard error"
JSON_HELP = "print exactly one JSON object on standard output"
#: ``seqform efce``'s round limit when neither --rounds nor --time-limit is given
DEFAULT_EFCE_ROUNDS = 1000


class _Parser(argparse.ArgumentParser):
    """argparse with our error form: one line on standard error, exit status 2."""

    def error(self, message: str):  # noqa: D102 (argparse's hook)
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _one_line(msg: str) -> str:
    """``msg`` as one printable line: what a game file put in a label (a line break, an escape
    sequence) is shown escaped, as ``repr`` shows it, never sent to the terminal."""
    return msg if msg.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in msg)


def _version() -> str:
    from importlib import metadata
    try:
        return metadata.version("seqform")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _common(p: argparse.ArgumentParser, json_flag: bool = True) -> None:
    if json_flag:
        p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.add_argument("--memory-limit", type=float, default=None, metavar="GIB", help=MEMORY_HELP)
    p.add_argument("--quiet", action="store_true", help=QUIET_HELP)


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="seqform", description="Exact solving of extensive-form games.")
    ap.add_argument("--version", action="version", version=f"seqform {_version()}",
                    help="print seqform's version and exit")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND", help="what to do (COMMAND --help for more)")
    sp = sub.add_parser("solve", help="solve a two-player zero-sum game exactly")
    sp.add_argument("game", help=GAME_HELP)
    sp.add_argument("--strategy", action="store_true", help="also print the equilibrium strategies")
    sp.add_argument("--method", default="auto", choices=["auto", "simplex", "ipm", "choose", "doracle"],
                    help="HiGHS LP algorithm: auto (interior point for dense LPs, else dual simplex), simplex, "
                         "ipm (with crossover, to get a basis), choose (HiGHS decides); or doracle: double "
                         "oracle (restricted games grown by best responses, exact when it converges)")
    sp.add_argument("--do-mode", choices=["both", "alternating"], default=None,
                    help="with --method doracle: add both players' best responses each iteration (both, the "
                         "default), or one player's in turn (alternating)")
    sp.add_argument("--no-certify", action="store_true", help="skip the exact certificate")
    sp.add_argument("--exact-limit", type=int, default=2_000_000, metavar="N",
                    help="most nonzeros the exact basis solve may store (default 2,000,000)")
    sp.add_argument("--time-limit", type=float, default=None, metavar="S",
                    help="HiGHS time limit in seconds (with --method doracle: the whole loop's; it then "
                         "returns the bounds so far)")
    sp.add_argument("--refine", choices=["efpe", "qpe"], default=None,
                    help="a refined equilibrium: extensive-form perfect (efpe) or quasi-perfect (qpe), exactly "
                         "in the limit eps -> 0 unless --eps is given")
    sp.add_argument("--eps", type=float, default=None, metavar="X",
                    help="with --refine: solve the perturbed game at this tremble, 0 < X < 1")
    _common(sp)
    sp.set_defaults(func=cmd_solve)
    ev = sub.add_parser("evaluate", help="exploitability and information-set regret of a strategy profile")
    ev.add_argument("game", help=GAME_HELP)
    ev.add_argument("strategy", help="a strategy profile in seqform's JSON form (what `seqform solve --json "
                                     "--strategy` prints under \"strategy\"; see seqform.strategyio)")
    group = ev.add_mutually_exclusive_group()
    group.add_argument("--exact", action="store_true", help="exact arithmetic, floats taken at their binary value")
    group.add_argument("--float", action="store_true", help="float arithmetic even for rational strategies")
    ev.add_argument("--missing-uniform", action="store_true",
                    help="information sets missing from the file play uniformly (default: an error)")
    ev.add_argument("--per-infoset", action="store_true", help="with --json, list every information set's regret")
    _common(ev)
    ev.set_defaults(func=cmd_evaluate)
    cp = sub.add_parser("convert", help="write a game (built-in, OpenSpiel or .efg) as a Gambit .efg file")
    cp.add_argument("game", help=GAME_HELP)
    cp.add_argument("out", help="the .efg file to write")
    _common(cp)
    cp.set_defaults(func=cmd_convert)
    sh = sub.add_parser("shrink", help="GameShrink: lossless abstraction of a game with ordered signals")
    sh.add_argument("game", help="a game with ordered signals: rhode_island, 'rhode_island(ranks=4,suits=2)', "
                                 "leduc_os, four_card")
    sh.add_argument("--out", default=None, metavar="ABSTRACT.efg", help="write the abstract game as a Gambit .efg file")
    sh.add_argument("--solve", action="store_true",
                    help="also solve the abstract game, lift the equilibrium and certify it in the original game")
    sh.add_argument("--method", default=None, choices=["auto", "simplex", "ipm", "choose"],
                    help="with --solve: HiGHS LP algorithm (default auto)")
    sh.add_argument("--own-view", action="store_true",
                    help="the variant of Gilpin & Sandholm's paper that ignores what the opponent knows: "
                         "reproduces the survey's Rhode Island sizes but is not lossless in general")
    sh.add_argument("--no-nonzeros", action="store_true", help="skip counting the LPs' nonzeros")
    _common(sh)
    sh.set_defaults(func=cmd_shrink)
    vp = sub.add_parser("verify", help="run an iterative solver and track it against the certified ground truth")
    from .verify import SOLVERS
    vp.add_argument("solver", choices=SOLVERS, help="the solver to run: " + ", ".join(SOLVERS))
    vp.add_argument("game", help=GAME_HELP)
    vp.add_argument("--iterations", type=int, required=True, metavar="N", help="iterations to run (at least 1)")
    vp.add_argument("--every", type=int, default=None, metavar="K",
                    help="measure every K iterations (default: about 40 log-spaced points)")
    vp.add_argument("--refined", default=None, metavar="efpe,qpe",
                    help="also track the distance to these exact refined equilibria")
    vp.add_argument("--eps", type=float, default=None, metavar="X",
                    help="the tremble of egt-perturbed, 0 < X < 1 (default 1e-3)")
    vp.add_argument("--plot", default=None, metavar="OUT.png", help="write a log-log plot (matplotlib)")
    _common(vp)
    vp.set_defaults(func=cmd_verify)
    ep = sub.add_parser("efce", help="an extensive-form correlated equilibrium (Dudik & Gordon 2009)")
    ep.add_argument("game", help="a built-in game, e.g. job_market, 'indian_poker(cards=4)', 'grid_game(size=3)'")
    ep.add_argument("--weights", default=None, metavar="W1,W2,...",
                    help="bias towards sum_n w_n E[u_n] (Dudik & Gordon 2009, eq. 2); default 0: the "
                         "maximum-entropy EFCE")
    ep.add_argument("--exact", action="store_true",
                    help="exact ground truth for small games: maximum entropy over the EFCE polytope (cvxpy)")
    ep.add_argument("--welfare", action="store_true",
                    help="exact: the EFCE of best social welfare (or of best weighted payoff with --weights), HiGHS")
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
    ep.add_argument("--validate", type=int, default=0, metavar="N",
                    help="sampling: afterwards, re-estimate the regret on two fresh samples of N profiles")
    ep.add_argument("--burn-in", type=int, default=30, metavar="N",
                    help="with --validate: Gibbs sweeps from uniform profiles before the fresh samples are read")
    _common(ep)
    ep.set_defaults(func=cmd_efce)
    ip = sub.add_parser("info", help="print a game's sizes")
    ip.add_argument("game", help=GAME_HELP)
    _common(ip)
    ip.set_defaults(func=cmd_info)
    gp = sub.add_parser("games", help="list the built-in games with their parameters and sizes")
    gp.add_argument("--json", action="store_true", help=JSON_HELP)
    gp.set_defaults(func=cmd_games)
    return ap


def _check_options(args) -> None:
    """Refuse contradictory or invalid options, naming the flags (``SeqformError``)."""
    def positive(flag: str, value) -> None:
        if value is not None and not value > 0:
            raise SeqformError(f"{flag} must be positive, got {value:g}")

    def at_least(flag: str, value, low: int) -> None:
        if value is not None and value < low:
            raise SeqformError(f"{flag} must be at least {low}, got {value}")

    def tremble(flag: str, value) -> None:
        if value is not None and not 0 < value < 1:
            raise SeqformError(f"{flag} must lie strictly between 0 and 1, got {value:g}")

    positive("--memory-limit", getattr(args, "memory_limit", None))
    positive("--time-limit", getattr(args, "time_limit", None))
    cmd = args.command
    if cmd == "solve":
        at_least("--exact-limit", args.exact_limit, 0)
        tremble("--eps", args.eps)
        if args.eps is not None and not args.refine:
            raise SeqformError("--eps needs --refine efpe|qpe")
        if args.method == "doracle" and args.refine:
            raise SeqformError("--method doracle cannot be combined with --refine (double oracle finds a Nash "
                               "equilibrium, not a refined one)")
        if args.do_mode is not None and args.method != "doracle":
            raise SeqformError("--do-mode needs --method doracle")
        if args.no_certify and args.refine:
            raise SeqformError("--no-certify does not apply to --refine: refined equilibria are always certified")
        if args.refine and args.method not in ("auto",):
            raise SeqformError("--method does not apply to --refine (the perturbed LPs use HiGHS's dual simplex)")
        args.do_mode = args.do_mode or "both"
    elif cmd == "verify":
        at_least("--iterations", args.iterations, 1)
        at_least("--every", args.every, 1)
        tremble("--eps", args.eps)
        if args.eps is not None and args.solver != "egt-perturbed":
            raise SeqformError(f"--eps applies to egt-perturbed only, not {args.solver}")
        bad = [c for c in (args.refined or "").split(",") if c and c not in ("efpe", "qpe")]
        if bad:
            raise SeqformError(f"--refined takes efpe and/or qpe, comma-separated, not {','.join(bad)}")
    elif cmd == "efce":
        positive("--target", args.target)
        at_least("--rounds", args.rounds, 1)
        at_least("--sample-size", args.sample_size, 1)
        at_least("--validate", args.validate, 0)
        at_least("--burn-in", args.burn_in, 0)
        at_least("--max-reuse", args.max_reuse, 0)
        if args.exact and args.welfare:
            raise SeqformError("--exact and --welfare are two different exact EFCEs: give one")
        exact = args.exact or args.welfare
        if args.base is not None and not args.exact:
            raise SeqformError("--base applies to --exact only")
        sampling = {"--rounds": args.rounds is not None, "--time-limit": args.time_limit is not None,
                    "--validate": args.validate > 0}
        if exact and any(sampling.values()):
            flags = ", ".join(f for f, given in sampling.items() if given)
            raise SeqformError(f"{flags} applies to the sampling algorithm, not to --exact or --welfare")
        args.base = args.base or "full"
    elif cmd == "shrink":
        if args.method is not None and not args.solve:
            raise SeqformError("--method needs --solve")
        args.method = args.method or "auto"
        if args.solve and args.own_view:
            raise SeqformError("--solve needs the lossless abstraction; drop --own-view")


def cmd_games(args) -> int:
    """``games``: the built-in games (``seqform.games.REGISTRY`` and what the extensions register),
    their parameters with defaults, and their sizes at the defaults, counted without building them."""
    import inspect
    from . import games
    _register_extension_games()
    rows = []
    for name in sorted(games.REGISTRY):
        factory = games.REGISTRY[name]
        params = {p.name: (None if p.default is inspect.Parameter.empty else p.default)
                  for p in inspect.signature(factory).parameters.values()}
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


def main(argv: list | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        _check_options(args)
        return args.func(args)
    except SeqformError as e:
        print(f"seqform: error: {_one_line(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("seqform: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

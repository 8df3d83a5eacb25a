"""The ``seqform`` command line: the core's commands (``seqform.cli.commands``) and every command
and ``seqform solve`` option the installed extensions register (``seqform.registry``).

GAME is a built-in game with parameters (``kuhn``, ``leduc(ranks=5)``, ``liars_dice(1, 3)``), a
Gambit ``.efg`` file, or ``openspiel:NAME`` (see ``seqform.io.gamespec``).
Progress goes to standard error (``--quiet`` silences it), results to standard output. Errors are
one line on standard error and exit status 2; Ctrl-C stops cleanly with status 130.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from seqform.cli.commands import cmd_convert, cmd_evaluate, cmd_games, cmd_info, cmd_solve, cmd_verify
from seqform.cli.common import (
    FLAG_NAMES,
    GAME_HELP,
    JSON_HELP,
    Parser,
    at_least,
    common_options,
    one_line,
    positive,
    rationals_option,
    tremble,
)
from seqform.errors import SeqformError, flags_for_parameters
from seqform.registry import registry


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("seqform")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser: the core's commands, then each extension's (``seqform.registry``)."""
    ap = Parser(prog="seqform", description="Exact solving of extensive-form games.")
    ap.add_argument(
        "--version", action="version", version=f"seqform {_version()}", help="print seqform's version and exit"
    )
    sub = ap.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="what to do (COMMAND --help for more)"
    )
    _add_solve(sub)
    _add_evaluate(sub)
    _add_convert(sub)
    _add_verify(sub)
    ip = sub.add_parser("info", help="print a game's sizes")
    ip.add_argument("game", help=GAME_HELP)
    common_options(ip)
    ip.set_defaults(func=cmd_info)
    from seqform.cli.studycommand import add_parser as add_study_parser

    add_study_parser(sub)
    from seqform.cli.drawcommand import add_parser as add_draw_parser

    add_draw_parser(sub)
    gp = sub.add_parser("games", help="list the built-in games with their parameters and sizes")
    gp.add_argument("--json", action="store_true", help=JSON_HELP)
    gp.set_defaults(func=cmd_games)
    for command in registry().commands.values():  # shrink, efce, ...: from extensions
        command.add_parser(sub)
    return ap


def _add_solve(sub) -> None:
    """``seqform solve``."""
    sp = sub.add_parser(
        "solve",
        help="solve a game exactly (two-player zero-sum: the LP; general-sum: the LCP; "
        "more players: CFR+ polished into an exact equilibrium)",
    )
    sp.add_argument("game", help=GAME_HELP)
    sp.add_argument("--strategy", action="store_true", help="also print the equilibrium strategies")
    methods = registry().solve_methods
    sp.add_argument(
        "--method",
        default="auto",
        choices=[
            "auto",
            "lcp",
            "backward-induction",
            "simplex",
            "ipm",
            "choose",
            "cfr+-polish",
            "support-enumeration",
            *methods,
        ],
        help="auto (the exact sequence-form LCP for a general-sum game; backward induction for "
        "a game of perfect information; else the HiGHS LP: "
        "interior point for dense LPs, dual simplex for the others), backward-induction "
        "(perfect information only; exact, no LP), or the HiGHS LP algorithm: simplex, "
        "ipm (with crossover, to get a basis), choose (HiGHS decides); lcp (Lemke's "
        "algorithm on the sequence-form LCP, exact, for any two-player game); cfr+-polish (the "
        "default for a small game of imperfect information with more than two players: CFR+'s "
        "average polished on its support into an exact equilibrium, with support enumeration when "
        "the first polish fails); support-enumeration (small supports first, each support's "
        "equations solved exactly)" + "".join(f"; or {m}: {h}" for m, h in methods.items()),
    )
    sp.add_argument("--no-certify", action="store_true", help="skip the exact certificate")
    sp.add_argument(
        "--no-abstraction",
        action="store_true",
        help="solve the game's own LP even when it declares ordered signals (Leduc), whose lossless "
        "abstraction's LP is solved by default and its strategies certified in the game",
    )
    sp.add_argument(
        "--exact-limit",
        type=int,
        default=2_000_000,
        metavar="N",
        help="most nonzeros the exact basis solve may store (default 2,000,000)",
    )
    sp.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="S",
        help="HiGHS time limit in seconds (with --method doracle: the whole loop's; it then returns the bounds so far)",
    )
    for option in registry().solve_options.values():  # --refine, --do-mode, ...: from extensions
        option.add_arguments(sp)
    rationals_option(sp)
    common_options(sp)
    sp.set_defaults(func=cmd_solve)


def _add_evaluate(sub) -> None:
    """``seqform evaluate``."""
    ev = sub.add_parser("evaluate", help="exploitability and information-set regret of a strategy profile")
    ev.add_argument("game", help=GAME_HELP)
    ev.add_argument(
        "strategy",
        help="a strategy profile in seqform's JSON form (what `seqform solve --json "
        '--strategy` prints under "strategy"; see seqform.io.strategyjson)',
    )
    group = ev.add_mutually_exclusive_group()
    group.add_argument("--exact", action="store_true", help="exact arithmetic, floats taken at their binary value")
    group.add_argument("--float", action="store_true", help="float arithmetic even for rational strategies")
    ev.add_argument(
        "--missing-uniform",
        action="store_true",
        help="information sets missing from the file play uniformly (default: an error)",
    )
    ev.add_argument(
        "--no-check-game",
        action="store_true",
        help='read the file even if its "game" names another game than GAME',
    )
    ev.add_argument("--per-infoset", action="store_true", help="with --json, list every information set's regret")
    rationals_option(ev)
    common_options(ev)
    ev.set_defaults(func=cmd_evaluate)


def _add_convert(sub) -> None:
    """``seqform convert``."""
    cp = sub.add_parser("convert", help="write a game (built-in, OpenSpiel or .efg) as a Gambit .efg file")
    cp.add_argument("game", help=GAME_HELP)
    cp.add_argument("out", help="the .efg file to write")
    common_options(cp)
    cp.set_defaults(func=cmd_convert)


def _add_verify(sub) -> None:
    """``seqform verify``."""
    vp = sub.add_parser("verify", help="run an iterative solver and track it against the certified ground truth")
    from seqform.study.verifyharness import all_solvers

    solvers = all_solvers()
    vp.add_argument(
        "solver",
        metavar="SOLVER[,SOLVER...]",
        help="the solver to run, or several, comma-separated, drawn on one figure: " + ", ".join(solvers),
    )
    vp.add_argument("game", help=GAME_HELP)
    vp.add_argument("--iterations", type=int, required=True, metavar="N", help="iterations to run (at least 1)")
    vp.add_argument(
        "--every",
        type=int,
        default=None,
        metavar="K",
        help="measure every K iterations (default: about 40 log-spaced points)",
    )
    vp.add_argument(
        "--refined", default=None, metavar="efpe,qpe", help="also track the distance to these exact refined equilibria"
    )
    vp.add_argument(
        "--eps", type=float, default=None, metavar="X", help="the tremble of egt-perturbed, 0 < X < 1 (default 1e-3)"
    )
    _add_verify_figure_options(vp)
    rationals_option(vp)
    vp.add_argument("--seed", type=int, default=0, help="the random seed of the sampling solvers (MCCFR; default 0)")
    vp.add_argument(
        "--seeds",
        type=int,
        default=1,
        metavar="K",
        help="run K seeded runs (seeds --seed .. --seed+K-1) and report, at each point, the median "
        "and the 10-90%% band of exploitability, value gap and largest information-set regret",
    )
    _add_checkpoint_options(vp)
    common_options(vp)
    vp.set_defaults(func=cmd_verify)


def _add_verify_figure_options(vp) -> None:
    """``seqform verify``'s figure: ``--plot``, ``--x``, ``--bound``."""
    vp.add_argument(
        "--plot",
        default=None,
        metavar="OUT.png",
        help="write a log-log figure (matplotlib); the extension picks the format: .png, .pdf, .svg or .eps",
    )
    vp.add_argument(
        "--x",
        default=None,
        choices=("nodes", "traversals", "iterations", "seconds"),
        help="the figure's x axis, the same for every solver: nodes touched (the default: work comparable "
        "across full-tree and sampled solvers; iterations when a solver does not count nodes), tree "
        "traversals, iterations, or seconds inside the solver",
    )
    vp.add_argument(
        "--bound",
        action="store_true",
        help="also draw the papers' worst-case exploitability bounds where known (clipped to the data's range)",
    )


def _add_checkpoint_options(vp) -> None:
    """``seqform verify``'s ``--checkpoint`` and ``--checkpoint-every``."""
    vp.add_argument(
        "--checkpoint",
        default=None,
        metavar="FILE",
        help="save the run in FILE at measuring points (atomically); when FILE holds this same run, resume "
        "it: a run killed at any moment, started again, reports what the uninterrupted run would have",
    )
    vp.add_argument(
        "--checkpoint-every",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --checkpoint: save at the first measuring point SECONDS after the last save "
        "(default 60; 0: at every measuring point)",
    )


def _check_options(args) -> None:
    """Refuse contradictory or invalid options, naming the flags (``SeqformError``); each
    extension checks its own options and commands."""
    positive("--memory-limit", getattr(args, "memory_limit", None))
    positive("--time-limit", getattr(args, "time_limit", None))
    cmd = args.command
    reg = registry()
    if cmd == "solve":
        at_least("--exact-limit", args.exact_limit, 0)
        for option in reg.solve_options.values():
            if option.check is not None:
                option.check(args)
    elif cmd == "verify":
        at_least("--iterations", args.iterations, 1)
        at_least("--every", args.every, 1)
        at_least("--seeds", args.seeds, 1)
        tremble("--eps", args.eps)
        if args.checkpoint_every is not None:
            if not args.checkpoint:
                raise SeqformError("--checkpoint-every needs --checkpoint FILE")
            if not args.checkpoint_every >= 0:
                raise SeqformError(f"--checkpoint-every must be at least 0 seconds, got {args.checkpoint_every:g}")
        from seqform.study.verifyharness import all_solvers, takes_eps

        args.solvers = args.solver.split(",")
        for name in args.solvers:
            if name not in all_solvers():
                raise SeqformError(f"verify: unknown solver {name!r}; choose from {', '.join(all_solvers())}")
            if args.solvers.count(name) > 1:
                raise SeqformError(f"verify: solver {name!r} is named twice")
        if args.eps is not None and not any(takes_eps(s) for s in args.solvers):
            raise SeqformError(
                f"--eps applies to the perturbed solvers only "
                f"({', '.join(s for s in all_solvers() if takes_eps(s))}), not {args.solver}"
            )
        if (args.x is not None or args.bound) and not args.plot:
            flag = "--x" if args.x is not None else "--bound"
            raise SeqformError(f"{flag} applies to the figure: add --plot OUT.png")
        if args.plot:
            from seqform.study.verifyplot import check_path

            check_path(args.plot, "--plot")
        bad = [c for c in (args.refined or "").split(",") if c and c not in ("efpe", "qpe")]
        if bad:
            raise SeqformError(f"--refined takes efpe and/or qpe, comma-separated, not {','.join(bad)}")
    elif cmd == "study":
        from seqform.cli.studycommand import check as check_study

        check_study(args)
    elif cmd in reg.commands and reg.commands[cmd].check is not None:
        reg.commands[cmd].check(args)


@contextlib.contextmanager
def _memory_limit_everywhere(gib: float | None):
    """``--memory-limit`` as ``SEQFORM_MEMORY_LIMIT`` while the command runs, so that every check
    that takes the default limit (``seqform.model.limits.memory_limit()``: the iterative solvers'
    tables, a ground truth's LP, an extension's LP, worker processes, which inherit the
    environment) holds the one the user gave; restored afterwards (tests run commands in-process)."""
    if gib is None:
        yield
        return
    before = os.environ.get("SEQFORM_MEMORY_LIMIT")
    os.environ["SEQFORM_MEMORY_LIMIT"] = repr(float(gib))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("SEQFORM_MEMORY_LIMIT", None)
        else:
            os.environ["SEQFORM_MEMORY_LIMIT"] = before


def main(argv: list | None = None) -> int:
    # exact values can have more digits than Python's default limit on printing an int (4,300)
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    args = build_parser().parse_args(argv)
    # a message that advises changing a parameter names its flag here (seqform.errors.Remedy)
    with flags_for_parameters(FLAG_NAMES):
        return _run(args)


def _run(args) -> int:
    try:
        _check_options(args)
        with _memory_limit_everywhere(getattr(args, "memory_limit", None)):
            return args.func(args)
    except SeqformError as e:
        print(f"seqform: error: {one_line(str(e))}", file=sys.stderr)
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

"""What ``lossless`` adds to seqform (``seqform.registry``): the games with ordered signals
(``rhode_island``, ``leduc_os``, ``four_card``) and the ``seqform shrink`` command. Found through
the ``seqform.extensions`` entry point."""

from __future__ import annotations

import json
import os

from seqform.cli.common import Progress, build_tree, common_options, load_game_arg, rationals_option
from seqform.errors import SeqformError
from seqform.result import number, seconds_text, table


def add_parser(sub) -> None:
    sh = sub.add_parser("shrink", help="GameShrink: lossless abstraction of a game with ordered signals")
    sh.add_argument(
        "game", help="a game with ordered signals: rhode_island, 'rhode_island(ranks=4,suits=2)', leduc_os, four_card"
    )
    sh.add_argument("--out", default=None, metavar="ABSTRACT.efg", help="write the abstract game as a Gambit .efg file")
    sh.add_argument(
        "--solve",
        action="store_true",
        help="also solve the abstract game, lift the equilibrium and certify it in the original game",
    )
    sh.add_argument(
        "--method",
        default=None,
        choices=["auto", "simplex", "ipm", "choose"],
        help="with --solve: HiGHS LP algorithm (default auto)",
    )
    sh.add_argument(
        "--own-view",
        action="store_true",
        help="the variant of Gilpin & Sandholm's paper that ignores what the opponent knows: "
        "reproduces the survey's Rhode Island sizes but is not lossless in general",
    )
    sh.add_argument("--no-nonzeros", action="store_true", help="skip counting the LPs' nonzeros")
    sh.add_argument(
        "--cfr",
        type=float,
        default=None,
        metavar="SECONDS",
        help="then run CFR+ in vector form on the abstraction for up to SECONDS and print a certified "
        "bracket lower <= value <= upper of the game value (no game tree, no payoff matrix)",
    )
    sh.add_argument(
        "--target-width",
        type=float,
        default=None,
        metavar="W",
        help="with --cfr: stop as soon as the bracket is at most W wide",
    )
    sh.add_argument(
        "--bracket-every",
        type=int,
        default=200,
        metavar="N",
        help="with --cfr: bracket the average profile every N iterations (default 200)",
    )
    sh.add_argument(
        "--cfr-iterations",
        type=int,
        default=None,
        metavar="N",
        help="with --cfr: also stop after N iterations (whichever of SECONDS and N comes first)",
    )
    sh.add_argument(
        "--checkpoint",
        default=None,
        metavar="FILE",
        help="with --cfr: save CFR+'s state in FILE (atomically); when FILE holds this same run, resume it: "
        "the same iterates and brackets as the uninterrupted run, SECONDS counting every part of it",
    )
    sh.add_argument(
        "--checkpoint-every",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --checkpoint: save after the first iteration SECONDS after the last save "
        "(default 60; 0: after every iteration)",
    )
    rationals_option(sh)
    common_options(sh)
    sh.set_defaults(func=cmd_shrink)


def check(args) -> None:
    if args.method is not None and not args.solve:
        raise SeqformError("--method needs --solve")
    if args.cfr is not None:
        if not args.cfr > 0:
            raise SeqformError(f"--cfr needs a positive number of seconds, not {args.cfr:g}")
        if args.solve or args.own_view:
            raise SeqformError(
                "--cfr brackets the value through the lossless abstraction; drop "
                + ("--solve" if args.solve else "--own-view")
            )
        if args.target_width is not None and not args.target_width > 0:
            raise SeqformError(f"--target-width must be positive, not {args.target_width:g}")
        if args.bracket_every < 1:
            raise SeqformError(f"--bracket-every must be at least 1, not {args.bracket_every}")
        _check_cfr_run(args)
    elif args.target_width is not None or args.bracket_every != 200:
        raise SeqformError("--target-width and --bracket-every need --cfr")
    else:
        for flag in ("cfr_iterations", "checkpoint", "checkpoint_every"):
            if getattr(args, flag) is not None:
                raise SeqformError(f"--{flag.replace('_', '-')} needs --cfr")
    args.method = args.method or "auto"
    if args.solve and args.own_view:
        raise SeqformError("--solve needs the lossless abstraction; drop --own-view")


def _cfr_stops(args) -> dict:
    """The stops and bracketing of ``--cfr`` (``lossless.vectorcfr.cfr_plus``'s, as its checkpoints record them)."""
    return {
        "iterations": args.cfr_iterations,
        "seconds": args.cfr,
        "target_width": args.target_width,
        "bracket_every": args.bracket_every,
    }


def _check_cfr_run(args) -> None:
    """``--cfr-iterations``, ``--checkpoint``, ``--checkpoint-every``; a checkpoint file that is
    damaged or holds another run is refused now, before the abstraction is computed."""
    if args.cfr_iterations is not None and args.cfr_iterations < 1:
        raise SeqformError(f"--cfr-iterations must be at least 1, not {args.cfr_iterations}")
    if args.checkpoint_every is not None:
        if args.checkpoint is None:
            raise SeqformError("--checkpoint-every needs --checkpoint FILE")
        if not args.checkpoint_every >= 0:
            raise SeqformError(f"--checkpoint-every must be at least 0 seconds, not {args.checkpoint_every:g}")
    if args.checkpoint is not None:
        from lossless.vectorcfr import check_checkpoint
        from seqform.errors import CheckpointError

        try:
            check_checkpoint(args.checkpoint, _cfr_stops(args))
        except CheckpointError as e:
            raise SeqformError(f"--checkpoint {e}") from None


def _fmt_lp(part: dict) -> list:
    """The rows (label, text) of one side's sizes, labels indented under "before" / "after"."""
    rows = [
        ("  information sets", f"{part['infosets'][0]:,} / {part['infosets'][1]:,}"),
        ("  sequences", f"{part['sequences'][0]:,} / {part['sequences'][1]:,}"),
    ]
    if "lp_rows" in part:
        rows.append(("  LP rows", f"{part['lp_rows']:,}  (|Sigma_0| + |I_1| + 1; columns {part['lp_columns']:,})"))
    if "payoff_nonzeros" in part:
        rows.append(("  nonzeros", f"{part['payoff_nonzeros']:,} in A, {part['lp_nonzeros']:,} in the LP"))
    per = " / ".join("-".join(f"{c:,}" for c in row) for row in part["per_round"])
    rows.append(("  per round", f"{per}  (observations or classes, player 0 / player 1)"))
    return rows


def cmd_shrink(args) -> int:
    """``shrink GAME``: GameShrink on a game with ordered signals (package ``lossless``)."""
    from lossless.orderedsignals import OrderedSignalGame
    from lossless.shrink import shrink
    from lossless.shrink import solve as shrunk_solve

    prog = Progress(args.quiet)
    if args.out is not None and not args.out.lower().endswith(".efg"):
        raise SeqformError(f"cannot write {args.out!r}: the abstract game is written as a Gambit .efg file")
    game = load_game_arg(args.game, args)
    if not isinstance(game, OrderedSignalGame):
        raise SeqformError(
            f"{args.game}: GameShrink needs a game with ordered signals (rhode_island, leduc_os, "
            f"four_card, or a lossless.OrderedSignalGame); {getattr(game, 'name', args.game)} is not one"
        )
    if args.solve:
        if args.own_view:
            raise SeqformError("--solve needs the lossless abstraction; drop --own-view")
        _check_original_fits(game, args)
        res = shrunk_solve(game, method=args.method, progress=prog)
        sh = res.shrunk
    else:
        sh = shrink(
            game,
            lossless=not args.own_view,
            nonzeros=not args.no_nonzeros,
            build_abstract=args.out is not None,
            progress=prog,
        )
        res = None
    if args.out is not None:
        from seqform.io.efgwrite import write_efg

        if sh.abstract is None:
            raise SeqformError(
                f"the abstract game of {game.name} has {sh.sizes['after']['signal_tree_nodes']:,} "
                f"signal nodes, too many to write as a game tree"
            )
        tree = build_tree(sh.abstract, args, prog)
        try:
            write_efg(tree, args.out)
        except OSError as e:
            raise SeqformError(f"cannot write {args.out}: {e.strerror or e}") from None
        prog(f"wrote {args.out}")
    cfr = _run_cfr(sh, args, prog) if args.cfr is not None else None
    out = dict(sh.sizes)
    out["seconds"] = dict(sh.seconds)
    if cfr is not None:
        ran = cfr.to_json()
        ran["seconds"] = {**out["seconds"], **{f"cfr_{k}": v for k, v in cfr.seconds.items()}}
        out.update(ran)
    if res is not None:
        solved = res.to_json()
        solved["seconds"] = {**out["seconds"], **res.seconds}
        out.update(solved)
    status = 0
    if cfr is not None and cfr.stopped == "interrupted":
        import sys

        print(
            f"seqform: interrupted; the bracket is the average profile's after {cfr.iterations:,} iterations",
            file=sys.stderr,
        )
        status = 130
    if args.json:
        print(json.dumps(out))
        return status
    print(_shrink_text(game, sh, out, res, cfr, args.rationals))
    return status


#: GameShrink's peak memory per complete deal: full Rhode Island (6,497,400 deals) peaked at
#: 1.3 GiB, about 210 bytes a deal (bench/results/rhode-island-2026-11-25.md's set-up)
GAMESHRINK_BYTES_PER_WORLD = 256


def _check_original_fits(game, args) -> None:
    """``--solve`` certifies the lifted strategies in the original game: over its public tree
    when each player gets one private card (``lossless.publicbestresponse``, no game tree), else
    on its game tree, and then it refuses at once, before GameShrink runs, when that tree cannot
    fit in the memory limit."""
    from lossless.publicbestresponse import unsupported_reason
    from lossless.signaltree import num_worlds
    from seqform.model.limits import GIB, RAISE_LIMIT, TooLargeError, memory_limit, node_limit, too_many_nodes

    limit = memory_limit(args.memory_limit)
    if unsupported_reason(game) is None:
        # no game tree: GameShrink's tables over the complete deals come first
        worlds = num_worlds(game)
        if worlds * GAMESHRINK_BYTES_PER_WORLD > limit:
            raise TooLargeError(
                f"--solve runs GameShrink over the {worlds:,} complete deals of {game.name!r}: about "
                f"{worlds * GAMESHRINK_BYTES_PER_WORLD / GIB:.2f} GiB (~{GAMESHRINK_BYTES_PER_WORLD} bytes a "
                f"deal), over the memory limit of {limit / GIB:.2f} GiB; {RAISE_LIMIT}"
            )
        return
    known = game.num_nodes_hint()
    if known is not None and known > node_limit(limit):
        err = too_many_nodes(game.name, node_limit(limit), limit)
        raise type(err)(f"--solve certifies the solution in the original game, and {err} (it has {known:,} nodes)")


def _shrink_text(game, sh, out: dict, res, cfr, rationals: bool) -> str:
    """What ``seqform shrink`` prints: the abstraction's sizes before and after, and the value
    the solve or the CFR+ bracket found."""
    kind = "lossless" if sh.abstraction.respect_opponents else "own-view (the paper's counts; NOT lossless in general)"
    rows = [
        ("game", game.name),
        ("abstraction", f"{kind}, {sh.abstraction.iterations} refinement passes"),
        ("game tree", f"{out['before']['game_tree_nodes']:,} nodes -> {out['after']['game_tree_nodes']:,}"),
        ("signal tree", f"{out['signal_tree_nodes']:,} nodes -> {out['after']['signal_tree_nodes']:,}"),
        ("before", ""),
        *_fmt_lp(out["before"]),
        ("after", ""),
        *_fmt_lp(out["after"]),
    ]
    if res is not None:
        if res.certified and res.value is not None:  # (a certified solution has its value)
            rows.append(("value", number(res.value, rationals, "player 0")))
            rows.append(
                (
                    "",
                    "the abstract game's certified value; the lifted strategies' exact exploitability in the "
                    "original game is 0",
                )
            )
        else:
            cert = res.abstract_solution.certificate
            rows.append(
                (
                    "value",
                    f"not certified (abstract certificate: {cert.note if cert else 'none'}; lifted exploitability "
                    f"{number(res.exploitability, rationals, digits=3)})",
                )
            )
    if cfr is not None:
        rows.append(
            (
                "value bracket",
                f"{float(cfr.lower):.9f} <= value <= {float(cfr.upper):.9f}  (width {cfr.width:.3g}; CFR+ in vector "
                f"form, {cfr.iterations:,} iterations, stopped: {cfr.stopped}; best responses with rigorous float "
                f"error bounds)",
            )
        )
    # the text's line has the parts only, as it always had (--json also has the solve's "total")
    parts = {k: v for k, v in out["seconds"].items() if not (k == "total" and res is not None)}
    rows.append(("seconds", seconds_text(parts)))
    return table(rows)


def _run_cfr(sh, args, prog):
    """``--cfr``: CFR+ in vector form on the abstraction (``lossless.vectorcfr``), a progress bar over
    the time allowed (tqdm, standard error) showing the latest bracket's width."""
    import sys

    from tqdm import tqdm

    from lossless.abstractlp import check_vector_cfr
    from lossless.sequencelayout import sequence_layout
    from lossless.vectorcfr import cfr_plus
    from seqform.model.limits import memory_limit

    prog("numbering the abstract sequences")
    layout = sequence_layout(sh.abstraction)
    check_vector_cfr(layout, memory_limit(args.memory_limit))
    prog(
        f"CFR+ in vector form for up to {args.cfr:g} s ({layout.num_sequences[0]:,} / "
        f"{layout.num_sequences[1]:,} sequences)"
    )
    bar = tqdm(
        total=round(args.cfr),
        unit="s",
        desc="CFR+",
        file=sys.stderr,
        disable=args.quiet,
        dynamic_ncols=True,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s [{remaining} left{postfix}]",
    )

    state = {"width": "", "shown": 0.0}

    def tick(t, elapsed):
        if elapsed - state["shown"] >= 0.5 or elapsed >= args.cfr:  # a refresh per half second, not per iteration
            state["shown"] = elapsed
            bar.n = min(elapsed, bar.total)
            bar.set_postfix_str(f"iteration {t:,}{state['width']}", refresh=False)
            bar.refresh()

    def bracketed(row):
        state["width"] = f", width {row['width']:.3g}"

    from lossless.vectorcfr import CFRCheckpoint
    from seqform.errors import CheckpointError

    ck = None
    if args.checkpoint is not None:
        ck = CFRCheckpoint(args.checkpoint, 60.0 if args.checkpoint_every is None else args.checkpoint_every)
        if os.path.exists(args.checkpoint):
            prog(f"resuming from {args.checkpoint}")
    try:
        return cfr_plus(
            layout,
            iterations=args.cfr_iterations,
            seconds=args.cfr,
            bracket_every=args.bracket_every,
            target_width=args.target_width,
            progress=bracketed,
            tick=tick,
            checkpoint=ck,
        )
    except CheckpointError as e:
        raise SeqformError(f"--checkpoint {e}") from None
    finally:
        bar.close()


def register(registry) -> None:
    from lossless.poker import four_card, leduc_os, rhode_island

    for name, factory in (("rhode_island", rhode_island), ("leduc_os", leduc_os), ("four_card", four_card)):
        registry.add_game(name, factory)
    registry.add_command("shrink", add_parser, check)
    registry.add_abstraction("lossless", _solve_declared)


def _solve_declared(game, tree, **options):
    """``lossless.abstractsolve.solve_declared``, imported when a game first declares ordered
    signals (the command line loads every plugin)."""
    from lossless.abstractsolve import solve_declared

    return solve_declared(game, tree, **options)

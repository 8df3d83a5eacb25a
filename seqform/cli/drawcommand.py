"""``seqform draw GAME --out FILE``: a picture of a small game's tree (``seqform.io.treedraw``),
with a profile's probabilities on the players' branches and its path in bold: the profile of
``--strategy S.json``, or else an equilibrium ``seqform.solve`` computes (two players, or
perfect information); ``--no-strategy`` draws the tree alone."""

from __future__ import annotations

import importlib.util
import sys

from seqform.cli.common import GAME_HELP, Progress, at_least, common_options, load_game_arg, one_line
from seqform.errors import SeqformError, TooLargeError
from seqform.io.treedraw import DEFAULT_MAX_LEAVES, FORMATS, check_drawable, draw_tree, matplotlib_hint, output_format
from seqform.model.limits import memory_limit, node_limit
from seqform.model.tree import compile_tree


def add_parser(sub) -> None:
    dp = sub.add_parser(
        "draw",
        help="draw a small game's tree (svg, pdf or png) with an equilibrium's or a given profile's probabilities",
        description="seqform draw GAME --out FILE.svg|.pdf|.png [--strategy S.json | --no-strategy]: the game "
        "tree as textbooks draw it: players' nodes in their colours, chance's open, information sets joined "
        "by dashed lines, payoffs at the leaves, a profile's probabilities on the branches and the path it "
        "plays in bold. Without --strategy the profile is an equilibrium computed by `seqform solve`.",
    )
    dp.add_argument("game", help=GAME_HELP)
    dp.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help=f"the picture to write; its extension picks the format ({', '.join(FORMATS)})",
    )
    group = dp.add_mutually_exclusive_group()
    group.add_argument(
        "--strategy",
        default=None,
        metavar="S.json",
        help="draw this profile (seqform's strategy JSON, what `seqform solve --json --strategy` prints) "
        "instead of an equilibrium",
    )
    group.add_argument("--no-strategy", action="store_true", help="draw the tree without a profile")
    dp.add_argument(
        "--max-leaves",
        type=int,
        default=DEFAULT_MAX_LEAVES,
        metavar="N",
        help=f"refuse a tree with more leaves or levels than this (default {DEFAULT_MAX_LEAVES}: more is unreadable)",
    )
    common_options(dp, json_flag=False)
    dp.set_defaults(func=cmd_draw)


def _build(game, args, prog: Progress):
    """The game's tree, its walk stopped early when the game cannot be drawable: a tree of at
    most N leaves and N levels has at most N * N + 1 nodes."""
    cap = args.max_leaves * args.max_leaves + 1
    budget = memory_limit(args.memory_limit)
    try:
        return compile_tree(
            game, max_nodes=min(cap, node_limit(budget)), progress=lambda n: prog(f"building: {n:,} nodes")
        )
    except TooLargeError:
        if node_limit(budget) < cap:  # the memory limit spoke, not the size of a picture
            raise
        raise TooLargeError(
            f"{game.name} has more than {cap:,} nodes, so more than {args.max_leaves:,} leaves or levels: "
            f"too large to draw readably (raise the limit with --max-leaves N)"
        ) from None


def _profile(tree, args, prog: Progress) -> tuple:
    """``(profile or None, what it is)``: the file's, an equilibrium, or none (with a note on
    standard error when no equilibrium can be computed)."""
    if args.no_strategy:
        return None, "no profile"
    if args.strategy is not None:
        from seqform.io.strategyjson import read_profile

        return read_profile(tree, args.strategy), f"the profile of {args.strategy}"
    from seqform.solve import solve

    prog("computing an equilibrium")
    try:
        sol = solve(tree, memory_limit_gib=args.memory_limit)
    except SeqformError as e:
        print(
            f"seqform: note: drawing {tree.name} without probabilities, no equilibrium computed: "
            f"{one_line(str(e))} (--strategy S.json draws a profile of yours; --no-strategy silences this)",
            file=sys.stderr,
        )
        return None, "no profile"
    return sol.strategy_profile(), f"an equilibrium ({sol.method})"


def cmd_draw(args) -> int:
    output_format(args.out)  # a bad name, before any work
    at_least("--max-leaves", args.max_leaves, 1)
    if importlib.util.find_spec("matplotlib") is None:
        raise SeqformError(matplotlib_hint())
    prog = Progress(args.quiet)
    game = load_game_arg(args.game, args)
    tree = _build(game, args, prog)
    check_drawable(tree, args.max_leaves)  # before an equilibrium is computed for nothing
    profile, what = _profile(tree, args, prog)
    prog(f"drawing {tree.num_terminals} leaves")
    draw_tree(tree, profile, args.out, max_leaves=args.max_leaves)
    if not args.quiet:
        print(f"{tree.name} -> {args.out}: {tree.num_terminals} leaves, {what}")
    return 0

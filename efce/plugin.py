"""What ``efce`` adds to seqform (``seqform.registry``): Dudik & Gordon's games (``job_market``,
``indian_poker``, ``grid_game``) and the ``seqform efce`` command, four subcommands on one GAME:

- ``sample``: the sampling algorithm (``efce.sample_efce``, with ``efce.SamplerOptions``' defaults;
  any of them through ``--option NAME=VALUE``), optionally validated on fresh samples;
- ``maxent``: the exact maximum-entropy EFCE over the enumerated reduced profiles (cvxpy);
- ``welfare``: the EFCE of best social (or weighted) welfare, exactly: the LP over every reduced
  profile, or column generation beyond enumeration;
- ``ranges``: each player's least and greatest payoff over the EFCE polytope, exactly.

The form before subcommands (``seqform efce GAME [--exact | --welfare | --ranges] [--eps X]``) is
refused in one line naming the command that replaces it. The handlers are ``efce.efcecommands``. Found through the
``seqform.extensions`` entry point."""

from __future__ import annotations

import argparse
import difflib
import shlex
import typing

from efce.efcecommands import cmd_maxent, cmd_ranges, cmd_sample, cmd_welfare
from seqform.cli.common import GAME_HELP, at_least, common_options, positive, rationals_option
from seqform.errors import SeqformError

if typing.TYPE_CHECKING:
    pass

SUBCOMMANDS = ("sample", "maxent", "welfare", "ranges")

#: ``seqform efce sample --validate N``'s Gibbs sweeps from uniform profiles, unless N,SWEEPS says
VALIDATION_BURN_IN = 30

#: the flags of the form before subcommands, and where each went
MOVED = {
    "--exact": "is now a subcommand: seqform efce maxent GAME",
    "--welfare": "is now a subcommand: seqform efce welfare GAME",
    "--ranges": "is now a subcommand: seqform efce ranges GAME",
    "--eps": "is now --allowance, of welfare and ranges: seqform efce ranges GAME --allowance X",
    "--expectations": "is now a sampler option: seqform efce sample GAME --option expectations=mcmc",
    "--sample-size": "is now a sampler option: seqform efce sample GAME --option sample_size=N",
    "--max-reuse": "is now a sampler option: seqform efce sample GAME --option max_reuse=N (none: no cap)",
    "--burn-in": "is now part of --validate: seqform efce sample GAME --validate N,SWEEPS",
}

WEIGHTS_HELP = "bias towards sum_n w_n E[u_n] (Dudik & Gordon 2009, eq. 2); default 0: the maximum-entropy EFCE"
ALLOWANCE_HELP = (
    "over the eps-EFCE polytope instead, where every causal deviation may gain up to X (exact: "
    "0.01 or 1/100); the ranges an iterative method's payoffs lie in when its largest regret is "
    "at most X (default 0)"
)


class _Subcommands(argparse._SubParsersAction):
    """argparse's subcommands, except that a first word naming none of them is taken for the form
    before subcommands (``seqform efce GAME --welfare``) and refused in one line that names the
    command replacing it (argparse's own check would only list the subcommands)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # checked in __call__; None turns argparse's own check off (typeshed types this subclass's
        # choices as a dict only, hence the ignore)
        self.choices = None  # type: ignore[assignment]

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
    return (
        f"the computation is now a subcommand before the game: seqform efce sample {game} (or maxent, welfare, ranges)"
    )


def _refuse(parser, *flags: str) -> None:
    for flag in flags:
        parser.add_argument(flag, action=_Moved)


def add_parser(sub) -> None:
    ep = sub.add_parser(
        "efce",
        help="an extensive-form correlated equilibrium (Dudik & Gordon 2009)",
        description="Extensive-form correlated equilibria (Dudik & Gordon 2009): "
        "seqform efce sample|maxent|welfare|ranges GAME (each with --help).",
    )
    _refuse(ep, "--exact", "--welfare", "--ranges", "--eps")
    commands = ep.add_subparsers(
        dest="efce_command",
        required=True,
        action=_Subcommands,
        metavar="{" + ",".join(SUBCOMMANDS) + "}",
        help="sample (the sampling algorithm), maxent, welfare or ranges (exact)",
    )
    sp = commands.add_parser(
        "sample", help="the sampling algorithm: any number of players, games given as simulators (efce.sample_efce)"
    )
    _add_sample_options(sp)
    mp = commands.add_parser(
        "maxent", help="exact ground truth for small games: the maximum-entropy EFCE over the EFCE polytope (cvxpy)"
    )
    mp.add_argument("game", help=GAME_HELP)
    mp.add_argument("--weights", default=None, metavar="W1,W2,...", help=WEIGHTS_HELP)
    mp.add_argument(
        "--base",
        choices=["full", "reduced"],
        default="full",
        help="entropy over full (Dudik & Gordon's choice, the default) or reduced pure strategy profiles",
    )
    _finish(mp, cmd_maxent)
    wp = commands.add_parser(
        "welfare",
        help="exact: the EFCE of best social welfare (or of best weighted payoff "
        "with --weights), HiGHS; column generation beyond enumeration",
    )
    wp.add_argument("game", help=GAME_HELP)
    wp.add_argument(
        "--weights",
        default=None,
        metavar="W1,W2,...",
        help="maximise sum_n w_n E[u_n] instead of the welfare, sum_n E[u_n]",
    )
    _add_lp_options(wp)
    _finish(wp, cmd_welfare)
    rp = commands.add_parser(
        "ranges", help="exact: each player's least and greatest payoff over the EFCE polytope (2N LPs)"
    )
    rp.add_argument("game", help=GAME_HELP)
    _add_lp_options(rp)
    rationals_option(rp)
    _finish(rp, cmd_ranges)


def _add_sample_options(sp) -> None:
    sp.add_argument("game", help=GAME_HELP)
    sp.add_argument("--weights", default=None, metavar="W1,W2,...", help=WEIGHTS_HELP)
    sp.add_argument(
        "--target",
        type=float,
        default=1e-3,
        metavar="X",
        help="stop once the largest estimated causal-deviation regret is at most X times r_max, the "
        "largest range of one player's payoff over the leaves (default 1e-3)",
    )
    sp.add_argument(
        "--rounds",
        type=int,
        default=None,
        metavar="N",
        help="stop after N boosting rounds (default: no round limit when --time-limit is given, else 1,000)",
    )
    sp.add_argument("--time-limit", type=float, default=None, metavar="S", help="stop after S seconds")
    sp.add_argument("--seed", type=int, default=0, help="the random seed (default 0)")
    sp.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set one of efce.SamplerOptions (repeatable), e.g. expectations=mcmc (default auto: "
        "exact expectations over every full pure profile when there are at most 65,536, "
        "else MCMC), sample_size=300, max_reuse=none, thin=5, step_cap=100, "
        "measure_memory=true; `python -c 'import efce; help(efce.SamplerOptions)'` lists them",
    )
    sp.add_argument(
        "--validate",
        default=None,
        metavar="N[,SWEEPS]",
        help="afterwards, re-estimate the regret on two fresh samples of N profiles, read after "
        f"SWEEPS Gibbs sweeps from uniform profiles (default {VALIDATION_BURN_IN})",
    )
    sp.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="processes that draw the MCMC samples, the run's and --validate's (default 1)",
    )
    _finish(sp, cmd_sample, *MOVED)


def _add_lp_options(p) -> None:
    p.add_argument("--allowance", default="0", metavar="X", help=ALLOWANCE_HELP)
    p.add_argument(
        "--warm-start",
        type=float,
        default=0.0,
        metavar="S",
        help="on games too large to enumerate (column generation): seconds of the sampling algorithm "
        "whose profiles seed the LP (default 0: none, so the result depends on the seed alone, "
        "not on the machine's speed)",
    )
    p.add_argument(
        "--pricing-time-limit",
        type=float,
        default=None,
        metavar="S",
        help="column generation: seconds for each pricing integer program (default: none); one that "
        "stops early leaves the optimum unproved, and the output says so",
    )
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
        raise SeqformError(
            f"--validate: expected N or N,SWEEPS, whole numbers at least 0 (N 0: no validation), got {text!r}"
        )
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


def register(registry) -> None:
    from efce.games import grid_game, indian_poker, job_market

    for name, factory in (("job_market", job_market), ("indian_poker", indian_poker), ("grid_game", grid_game)):
        registry.add_game(name, factory)
    registry.add_command("efce", add_parser, check)

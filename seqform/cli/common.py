"""What every ``seqform`` command shares, the core's and the extensions': progress messages,
loading a GAME argument, building its tree under the memory limit, the common options, and the
one-line error form."""

from __future__ import annotations

import argparse
import os
import sys
import time

from seqform.errors import SeqformError
from seqform.io.gamespec import load_game
from seqform.model.limits import memory_limit
from seqform.model.tree import compile_tree

GAME_HELP = (
    "a built-in game with parameters (kuhn, 'leduc(ranks=5)', 'liars_dice(1,3)'; `seqform games` lists "
    "them), a Gambit .efg file, or openspiel:NAME"
)


MEMORY_HELP = (
    "refuse games whose tree or LP would need more than this many GiB (default: SEQFORM_MEMORY_LIMIT, "
    "else 75%% of available memory)"
)


QUIET_HELP = "no progress messages on standard error"


JSON_HELP = "print exactly one JSON object on standard output"


class Progress:
    """Timestamped one-line progress messages on standard error."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.t0 = time.perf_counter()
        if not quiet:  # a long LP solve shows HiGHS's iteration log as progress
            from seqform.lp.highs import set_log_sink

            set_log_sink(self)

    def __call__(self, msg: str) -> None:
        if not self.quiet:
            print(f"[{time.perf_counter() - self.t0:7.2f}s] {msg}", file=sys.stderr, flush=True)


def load_game_arg(spec: str, args=None):
    if os.path.isdir(spec):
        raise SeqformError(f"{spec}: is a directory, not a game")
    try:
        return load_game(spec, getattr(args, "memory_limit", None))
    except FileNotFoundError as e:
        raise SeqformError(f"no such file: {e.filename}") from None
    except OSError as e:
        raise SeqformError(f"cannot read {spec}: {e.strerror or e}") from None


def build_tree(game, args, prog: Progress):
    """Compile ``game`` with progress and the memory limit of ``args``."""
    return compile_tree(
        game, progress=lambda n: prog(f"building: {n:,} nodes"), memory_limit_bytes=memory_limit(args.memory_limit)
    )


def print_strategy(tree, profile) -> None:
    from seqform.io.strategyjson import profile_to_json

    obj = profile_to_json(tree, profile)
    for p, player in enumerate(obj["strategies"]):
        print(f"player {p} strategy:")
        for e in player["infosets"]:
            acts = ", ".join(f"{a}: {pr}" for a, pr in e["actions"].items())
            print(f"  {e['infoset']}  {acts}")


class Parser(argparse.ArgumentParser):
    """argparse with our error form: one line on standard error, exit status 2."""

    def error(self, message: str):  # noqa: D102 (argparse's hook)
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def one_line(msg: str) -> str:
    """``msg`` as one printable line: what a game file put in a label (a line break, an escape
    sequence) is shown escaped, as ``repr`` shows it, never sent to the terminal."""
    return msg if msg.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in msg)


def common_options(p: argparse.ArgumentParser, json_flag: bool = True) -> None:
    if json_flag:
        p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.add_argument("--memory-limit", type=float, default=None, metavar="GIB", help=MEMORY_HELP)
    p.add_argument("--quiet", action="store_true", help=QUIET_HELP)


def positive(flag: str, value) -> None:
    """``SeqformError`` unless ``value`` (if given) is positive."""
    if value is not None and not value > 0:
        raise SeqformError(f"{flag} must be positive, got {value:g}")


def at_least(flag: str, value, low: int) -> None:
    """``SeqformError`` unless ``value`` (if given) is at least ``low``."""
    if value is not None and value < low:
        raise SeqformError(f"{flag} must be at least {low}, got {value}")


def tremble(flag: str, value) -> None:
    """``SeqformError`` unless ``value`` (if given) lies strictly between 0 and 1."""
    if value is not None and not 0 < value < 1:
        raise SeqformError(f"{flag} must lie strictly between 0 and 1, got {value:g}")

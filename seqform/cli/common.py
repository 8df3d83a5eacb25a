"""What every ``seqform`` command shares, the core's and the extensions': progress messages,
loading a GAME argument, building its tree under the memory limit, the common options, the
one-line error form with "did you mean" for a mistyped choice, and the flag of each library
parameter a message may name (``FLAG_NAMES``)."""

from __future__ import annotations

import argparse
import difflib
import os
import re
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


RATIONALS_HELP = "print exact rationals in full beside their decimals (default: only those of at most 15 characters)"


#: The flag of each library parameter a message may advise changing (``seqform.errors.Remedy``):
#: ``param=value`` for a flag that passes that value, ``param`` for a flag that takes one. The
#: command line runs every command inside ``seqform.errors.flags_for_parameters(FLAG_NAMES)``.
FLAG_NAMES = {
    "check_game=False": "--no-check-game",
    "missing=uniform": "--missing-uniform",
    "exact_limit": "--exact-limit",
    "rationals=True": "--rationals",
}


class Progress:
    """Timestamped one-line progress messages on standard error. A long LP solve shows as
    progress too, but not HiGHS's log itself: of its iteration lines, one every
    ``LP_EVERY_SECONDS``, as ``LP: HiGHS iteration N``."""

    LP_EVERY_SECONDS = 10.0

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.t0 = time.perf_counter()
        self._lp_shown = -float("inf")
        if not quiet:
            from seqform.lp.highs import set_log_sink

            set_log_sink(self._highs_line)

    def __call__(self, msg: str) -> None:
        if not self.quiet:
            print(f"[{time.perf_counter() - self.t0:7.2f}s] {msg}", file=sys.stderr, flush=True)

    def _highs_line(self, line: str) -> None:
        # HiGHS's log (presolve reports, column headers, iteration rows) is its developers'
        # view; the user wants to know the solve is alive and moving
        m = _HIGHS_ITERATION.match(line)
        now = time.perf_counter()
        if m and now - self._lp_shown >= self.LP_EVERY_SECONDS:
            self._lp_shown = now
            self(f"LP: HiGHS iteration {int(m.group(1)):,}")


# an iteration row of HiGHS's log, as the log forwarder passes it ("HiGHS: 24035  -3.30e+00 ...")
_HIGHS_ITERATION = re.compile(r"HiGHS:\s+(\d+)\s")


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


def print_strategy(tree, profile, rationals: bool = False, exact: list | None = None) -> None:
    """Each player's behavioural strategy, one information set a line. ``exact``: per player,
    exact numbers per sequence (Fractions or algebraic numbers) printed beside the floats."""
    from seqform.io.strategyjson import profile_to_json
    from seqform.result import probability

    obj = profile_to_json(tree, profile)
    if exact is not None:
        for p, player in enumerate(obj["strategies"]):
            for i, e in zip(tree.player_infosets[p].tolist(), player["infosets"]):
                f = int(tree.infoset_first_seq[i])
                e["actions"] = {a: exact[p][f + j] for j, a in enumerate(e["actions"])}
    names = tuple(getattr(tree.game, "player_names", ()) or ())
    for p, player in enumerate(obj["strategies"]):
        # a name says more than the number, unless it is a number too (Gambit's "Player 1")
        name = str(names[p]) if p < len(names) else ""
        named = name and name.lower() not in (f"player {p}", f"player {p + 1}")
        print(f"player {p} ({name}) strategy:" if named else f"player {p} strategy:")
        # labels hold spaces ("K | pb"): a column of them keeps each apart from its actions
        width = min(40, max((len(e["infoset"]) for e in player["infosets"]), default=0))
        for e in player["infosets"]:
            acts = ", ".join(f"{a}: {probability(pr, rationals)}" for a, pr in e["actions"].items())
            print(f"  {e['infoset']:<{width}}  {acts}")


class Parser(argparse.ArgumentParser):
    """argparse with our error form: one line on standard error, exit status 2; a value outside
    an argument's choices (a command, a subcommand, ``--method``) names the closest ones."""

    def error(self, message: str):  # noqa: D102 (argparse's hook)
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def _check_value(self, action, value):  # argparse's hook for choices (stable since 3.2)
        if action.choices is not None and value not in action.choices:
            choices = [str(c) for c in action.choices]
            close = difflib.get_close_matches(str(value), choices, n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise argparse.ArgumentError(action, f"invalid choice: {value!r}{hint} (choose from {', '.join(choices)})")
        return super()._check_value(action, value)


def one_line(msg: str) -> str:
    """``msg`` as one printable line: what a game file put in a label (a line break, an escape
    sequence) is shown escaped, as ``repr`` shows it, never sent to the terminal."""
    return msg if msg.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in msg)


def rationals_option(p: argparse.ArgumentParser) -> None:
    """``--rationals``, for a command whose text shows exact numbers."""
    p.add_argument("--rationals", action="store_true", help=RATIONALS_HELP)


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

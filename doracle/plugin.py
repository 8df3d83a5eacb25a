"""What ``doracle`` adds to seqform (``seqform.registry``): ``seqform solve --method doracle``
and its ``--do-mode``. Found through the ``seqform.extensions`` entry point."""

from __future__ import annotations

import json

from seqform.cli.common import Progress
from seqform.errors import SeqformError
from seqform.result import probability

HELP = "double oracle (restricted games grown by best responses, exact when it converges)"


def add_arguments(sp) -> None:
    sp.add_argument(
        "--do-mode",
        choices=["both", "alternating"],
        default=None,
        help="with --method doracle: add both players' best responses each iteration (both, the "
        "default), or one player's in turn (alternating)",
    )


def check(args) -> None:
    if args.do_mode is not None and args.method != "doracle":
        raise SeqformError("--do-mode needs --method doracle")
    args.do_mode = args.do_mode or "both"


def cmd_doracle(args, game, prog: Progress) -> int:
    """``solve GAME --method doracle``: double oracle (package ``doracle``), exact when it converges."""
    from doracle.loop import double_oracle

    res = double_oracle(game, mode=args.do_mode, time_limit=args.time_limit, progress=prog)
    status = 130 if res.interrupted else 0  # Ctrl-C: the bounds so far, and the shell is told
    if args.json:
        # "strategy": on the full tree, readable by evaluate
        print(json.dumps(res.to_json(strategy=args.strategy)))
        return status
    print(res.summary(rationals=args.rationals))
    if args.strategy:
        for p, strat in enumerate(res.restricted_strategies()):
            print(f"player {p} strategy (the first action at every information set not listed):")
            for k, acts in strat.items():
                print(f"  {k}  " + ", ".join(f"{a}: {probability(pr, args.rationals)}" for a, pr in acts.items()))
    return status


def register(registry) -> None:
    registry.add_solve_method("doracle", HELP)
    registry.add_solve_option("doracle", add_arguments, lambda args: args.method == "doracle", cmd_doracle, check)

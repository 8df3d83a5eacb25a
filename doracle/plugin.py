"""What ``doracle`` adds to seqform (``seqform.registry``): ``seqform solve --method doracle``
and its ``--do-mode``. Found through the ``seqform.extensions`` entry point."""
from __future__ import annotations

import json

from seqform.cli.common import Progress
from seqform.errors import SeqformError

HELP = "double oracle (restricted games grown by best responses, exact when it converges)"


def add_arguments(sp) -> None:
    sp.add_argument("--do-mode", choices=["both", "alternating"], default=None,
                    help="with --method doracle: add both players' best responses each iteration (both, the "
                         "default), or one player's in turn (alternating)")


def check(args) -> None:
    if args.do_mode is not None and args.method != "doracle":
        raise SeqformError("--do-mode needs --method doracle")
    args.do_mode = args.do_mode or "both"


def cmd_doracle(args, game, prog: Progress) -> int:
    """``solve GAME --method doracle``: double oracle (package ``doracle``), exact when it converges."""
    from doracle.loop import double_oracle
    res = double_oracle(game, mode=args.do_mode, time_limit=args.time_limit, progress=prog)
    last = res.history[-1] if res.history else {}
    restricted = [{repr(k): dict(zip(res.action_labels[p][k], map(str, probs))) for k, probs in res.profile[p].items()}
                  for p in (0, 1)]
    out = res.to_json(strategy=args.strategy)  # "strategy": on the full tree, readable by evaluate
    if args.strategy:
        out["strategies"] = restricted  # the restricted games' strategies, as before
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
    print(f"seconds         total {res.seconds['total']:.3f}")
    if res.interrupted:
        print("interrupted     (the bounds found before Ctrl-C)")
    if args.strategy:
        for p, strat in enumerate(restricted):
            print(f"player {p} strategy (the first action at every information set not listed):")
            for k, acts in strat.items():
                print(f"  {k}  " + ", ".join(f"{a}: {pr}" for a, pr in acts.items()))
    return status


def register(registry) -> None:
    registry.add_solve_method("doracle", HELP)
    registry.add_solve_option("doracle", add_arguments, lambda args: args.method == "doracle", cmd_doracle, check)

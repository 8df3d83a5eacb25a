"""What ``refinements`` adds to seqform (``seqform.registry``): the ``--refine efpe|qpe`` and
``--eps`` options of ``seqform solve``, and the exact refined equilibria ``seqform verify
--refined`` measures distances to. Found through the ``seqform.extensions`` entry point."""

from __future__ import annotations

import json

from seqform.cli.common import Progress, build_tree, print_strategy, tremble
from seqform.errors import SeqformError


def add_arguments(sp) -> None:
    sp.add_argument(
        "--refine",
        choices=["efpe", "qpe"],
        default=None,
        help="a refined equilibrium: extensive-form perfect (efpe) or quasi-perfect (qpe), exactly "
        "in the limit eps -> 0 unless --eps is given",
    )
    sp.add_argument(
        "--eps",
        type=float,
        default=None,
        metavar="X",
        help="with --refine: solve the perturbed game at this tremble, 0 < X < 1",
    )


def check(args) -> None:
    tremble("--eps", args.eps)
    if args.eps is not None and not args.refine:
        raise SeqformError("--eps needs --refine efpe|qpe")
    if args.method == "doracle" and args.refine:
        raise SeqformError(
            "--method doracle cannot be combined with --refine (double oracle finds a Nash "
            "equilibrium, not a refined one)"
        )
    if args.no_certify and args.refine:
        raise SeqformError("--no-certify does not apply to --refine: refined equilibria are always certified")
    if args.refine and args.method not in ("auto",):
        raise SeqformError("--method does not apply to --refine (the perturbed LPs use HiGHS's dual simplex)")


def cmd_refine(args, game, prog: Progress) -> int:
    """``solve --refine efpe|qpe [--eps X]``: a refined equilibrium (package ``refinements``)."""
    from refinements.refine import refine

    if args.eps is not None and not args.eps > 0:
        raise SeqformError(f"--eps must be positive, got {args.eps}")
    tree = build_tree(game, args, prog)
    # the command line always cross-checks the value against the plain Nash LP (one more solve)
    sol = refine(tree, args.refine, args.eps, cross_check=True, progress=prog)
    if args.json:
        print(json.dumps(sol.to_json(strategy=args.strategy)))
        return 0
    print(sol.summary(rationals=args.rationals))
    if args.strategy:
        print_strategy(sol.tree, sol.strategy_profile(), args.rationals)
    return 0


def _refined(tree, concept: str, eps: float | None = None):
    from refinements.refine import refine

    return refine(tree, concept, eps)


def _perturbed_cfr(tree, concept: str, eps: float | None):
    from refinements.perturbedcfr import PerturbedCFRPlus

    return PerturbedCFRPlus(tree, concept, 1e-3 if eps is None else eps)


def register(registry) -> None:
    registry.add_solve_option(
        "refine", add_arguments, lambda args: bool(getattr(args, "refine", None)), cmd_refine, check
    )
    registry.add_refiner("efpe", _refined)
    registry.add_refiner("qpe", _refined)
    for concept in ("efpe", "qpe"):
        registry.add_iterative_solver(
            f"cfr+-{concept}",
            lambda tree, eps, seed, c=concept: _perturbed_cfr(tree, c, eps),
            f"CFR+ in the {concept.upper()}-perturbed game at --eps (default 1e-3)",
            eps=True,
        )

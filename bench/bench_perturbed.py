#!/usr/bin/env python3
"""Solvers of the eps-perturbed game, measured in that game: perturbed EGT (EFPE perturbation,
``seqform.iterative.egt``) and CFR+ on the EFPE- and QPE-perturbed polytopes
(``refinements.perturbedcfr``), on Leduc at two trembles.

Each run iterates in chunks of ~10% more iterations; after each chunk the average profile is
measured in the perturbed game against its exact equilibrium (``RefinedSolution.measure``: best
responses inside the perturbed polytopes, computed exactly by dynamic programming). The table
gives the solver time and iterations until the perturbed exploitability first fell to the
target, and the measures at the end. Measuring is not timed.

    python bench/bench_perturbed.py                       # leduc, eps 1e-2 and 1e-3, target 1e-4
    python bench/bench_perturbed.py --game kuhn --cap 10 --out-dir /tmp/x

Writes ``bench/results/perturbed-YYYY-MM-DD.{md,json}``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import refinements  # noqa: E402
import seqform  # noqa: E402
from bench import report  # noqa: E402
from seqform.study.verifyharness import make_solver  # noqa: E402

SOLVERS = (("egt-perturbed", "efpe"), ("cfr+-efpe", "efpe"), ("cfr+-qpe", "qpe"))


def run(tree, name: str, truth, eps: float, target: float, cap: float) -> dict:
    solver = make_solver(name, tree, eps=eps)
    secs, it, nxt, hit, m = 0.0, 0, 10, None, None
    while secs < cap:
        t0 = time.perf_counter()
        solver.step(nxt - it)
        secs += time.perf_counter() - t0
        it = nxt
        m = truth.measure(solver.average_profile())
        if hit is None and m["perturbed_exploitability"] <= target:
            hit = (secs, it)
            break
        nxt = max(it + 1, int(it * 1.1))
    return {"solver": name, "eps": eps, "reached": hit, "iterations": it, "seconds": secs, "final": m}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="leduc")
    ap.add_argument("--eps", type=float, nargs="*", default=[1e-2, 1e-3])
    ap.add_argument("--target", type=float, default=1e-4, help="perturbed exploitability to reach (default 1e-4)")
    ap.add_argument("--cap", type=float, default=120.0, help="solver seconds per run (default 120)")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args()
    tree = seqform.compile_tree(seqform.games.load(args.game))
    rows = []
    for eps in args.eps:
        truths = {c: refinements.refine(tree, c, eps=eps) for c in ("efpe", "qpe")}
        for name, concept in SOLVERS:
            print(f"{args.game} eps={eps:g} {name} ...", file=sys.stderr, flush=True)
            assert truths[concept].certified
            rows.append({"concept": concept, **run(tree, name, truths[concept], eps, args.target, args.cap)})
    day, out, lines = report.start(args.out_dir, f"Perturbed solvers in their perturbed game, {args.game}")
    lines += [
        f"- target: perturbed exploitability (NashConv / 2 inside the perturbed polytopes, exact "
        f"trembling best responses) at most {args.target:g}; solver seconds only; cap {args.cap:g} s",
        "",
        "| solver | perturbation | eps | seconds to target | iterations to target | perturbed exploitability "
        "(at stop) | perturbed max infoset regret | tremble violation |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        hit = r["reached"]
        f = r["final"]
        lines.append(
            f"| {r['solver']} | {r['concept']} | {r['eps']:g} | "
            + (f"{hit[0]:.2f} | {hit[1]:,}" if hit else f"not in {r['seconds']:.0f} s | ({r['iterations']:,})")
            + f" | {f['perturbed_exploitability']:.2e} | {f['perturbed_max_infoset_regret']:.2e} | "
            f"{f['tremble_violation']:.1e} |"
        )
    report.finish(out, f"perturbed-{day}", lines, {"target": args.target, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())

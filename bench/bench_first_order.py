#!/usr/bin/env python3
"""First-order methods against CFR+ at an equal number of gradient computations: EGT
(``seqform.iterative.egt``: the excessive gap technique with the dilated entropy, certified by the
excessive gap condition at every step), optimistic multiplicative weights
(``seqform.iterative.optimistic``, average and last iterate), beside CFR+ and predictive CFR+.

A gradient computation is one product with the payoff matrix (``A y`` or ``A^T x``): one pass
over the leaves, the solvers' ``traversals``. CFR-style solvers make two an iteration, optimistic
MWU two, EGT four (three for the step, two for its check, one of them reused by the next step).
Each solver runs until its traversals first reach each budget; the exploitability (NashConv / 2,
exact best responses) of its average strategies is measured there.

    python bench/bench_first_order.py                      # leduc, 10^3 and 10^4 gradients
    python bench/bench_first_order.py --game kuhn --budgets 1000 --out-dir /tmp/x

Writes ``bench/results/first-order-YYYY-MM-DD.{md,json}``. Deterministic: no seeds, no timing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import seqform  # noqa: E402
from bench import report  # noqa: E402
from seqform.iterative.cfr import RegretMinimizer  # noqa: E402
from seqform.iterative.egt import ExcessiveGap  # noqa: E402
from seqform.iterative.optimistic import OptimisticMirrorDescent  # noqa: E402

SOLVERS = {
    "CFR+": lambda t: RegretMinimizer(t, "cfr+"),
    "predictive CFR+": lambda t: RegretMinimizer(t, "pcfr+"),
    "EGT (weights kroer, the default)": lambda t: ExcessiveGap(t, weights="kroer"),
    "EGT (weights kroer17)": lambda t: ExcessiveGap(t, weights="kroer17"),
    "EGT (weights farina21)": lambda t: ExcessiveGap(t, weights="farina21"),
    "EGT (weights one)": lambda t: ExcessiveGap(t, weights="one"),
    "EGT (Euclidean, weights farina21)": lambda t: ExcessiveGap(t, weights="farina21", distance="euclidean"),
    "optimistic MWU": lambda t: OptimisticMirrorDescent(t),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="leduc")
    ap.add_argument("--budgets", type=int, nargs="*", default=[1000, 10000])
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args()
    tree = seqform.compile_tree(seqform.games.load(args.game))
    budgets = sorted(args.budgets)
    rows = []
    for name, make in SOLVERS.items():
        s = make(tree)
        row = {"solver": name}
        for b in budgets:
            while s.traversals < b:
                s.step(1)
            row[str(b)] = {
                "exploitability": seqform.exploitability(tree, s.average_profile()).exploitability,
                "traversals": s.traversals,
                "iterations": s.iteration,
            }
            if name == "optimistic MWU":
                row[str(b)]["last_iterate"] = seqform.exploitability(tree, s.current_profile()).exploitability
        print(row, file=sys.stderr, flush=True)
        rows.append(row)
    day, out, lines = report.start(args.out_dir, f"First-order methods against CFR+ at equal gradients, {args.game}")
    lines += [
        "- exploitability (NashConv / 2, exact best responses) of the average strategies once the "
        "solver's gradient computations (products with A or A^T) first reach the budget; ratio = "
        "exploitability / CFR+'s",
        "",
        "| solver | " + " | ".join(f"{b:,} gradients: exploitability (ratio to CFR+)" for b in budgets) + " |",
        "|---|" + "---|" * len(budgets),
    ]
    base = rows[0]
    for row in rows:
        cells = []
        for b in budgets:
            r = row[str(b)]
            cell = f"{r['exploitability']:.2e} ({r['exploitability'] / base[str(b)]['exploitability']:.1f}x)"
            if "last_iterate" in r:
                cell += f"; last iterate {r['last_iterate']:.2e}"
            cells.append(cell)
        lines.append(f"| {row['solver']} | " + " | ".join(cells) + " |")
    report.finish(out, f"first-order-{day}", lines, {"budgets": budgets, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())

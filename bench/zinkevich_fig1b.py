#!/usr/bin/env python3
"""Zinkevich, Johanson, Bowling & Piccione (2007), "Regret Minimization in Games with Incomplete
Information", Figure 1(b), in miniature: iterations to reach a fixed exploitability against the
number of information sets, for CFR and chance-sampled CFR, on Leduc hold'em with growing decks
(``leduc(ranks=r)``, two suits) instead of poker abstractions of growing size.

The paper's claims checked here: CFR's iterations to a fixed exploitability grow about linearly
with the information sets (its regret bound is linear in them), and chance sampling needs more
iterations than CFR, but only by a factor that grows about linearly too, while an iteration costs
only the sampled part of the tree.

Each run measures the average strategy's exploitability (exact best responses on the whole tree)
after every ~10% more iterations and records the first iteration count at or below the level.
CFR is ``RegretMinimizer("cfr")`` (deterministic, one run); chance sampling is
``MonteCarloCFR("chance")``, median over ``--seeds`` seeds. "work" is nodes touched for chance
sampling and iterations x 2 x (tree nodes) for CFR (each iteration passes the tree once per player).

    python bench/zinkevich_fig1b.py                      # ranks 3..7, level 0.1, 3 seeds
    python bench/zinkevich_fig1b.py --ranks 3 4 --seeds 1 --out-dir /tmp/x
    python bench/zinkevich_fig1b.py --replot bench/results/zinkevich-fig1b-2026-11-24.json  # figure only

Writes ``bench/results/zinkevich-fig1b-YYYY-MM-DD.{md,json,png}``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import seqform  # noqa: E402
from bench import report  # noqa: E402
from seqform.iterative.cfr import RegretMinimizer  # noqa: E402
from seqform.iterative.mccfr import MonteCarloCFR  # noqa: E402


def iterations_to(tree, solver, level: float, cap: int) -> tuple:
    """(iterations, work) at which the average strategy's exploitability first falls to
    ``level``, measured after every ~10% more iterations; (None, None) if not by ``cap``."""
    it = 0
    nxt = 10
    while it < cap:
        solver.step(nxt - it)
        it = nxt
        if seqform.exploitability(tree, solver.average_profile(), validate=False).exploitability <= level:
            work = getattr(solver, "nodes_touched", None)
            return it, work if work is not None else it * 2 * tree.num_nodes
        nxt = max(it + 1, int(it * 1.1))
    return None, None


def draw(rows: list, level: float, seeds: int, path: Path) -> None:
    """The figure: iterations (left) and work (right) to exploitability ``level`` against
    information sets, log-log, as the paper's Figure 1(b) (which plots iterations); nothing when
    matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    from seqform.study.verifyplot import legend_outside, line_style

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.4), layout="constrained")
    xs = [row["infosets"] for row in rows]
    series = (("cfr", "CFR (deterministic)"), ("cs", f"chance-sampled CFR (median of {seeds} seeds)"))
    for k, (key, label) in enumerate(series):
        style = {**line_style(k), "markevery": None}  # a handful of points: mark each
        for ax, what in zip(axes, ("iterations", "work")):
            pts = [(x, row[f"{key}_{what}"]) for x, row in zip(xs, rows) if row[f"{key}_{what}"]]
            if pts:
                ax.loglog([p[0] for p in pts], [p[1] for p in pts], label=label, **style)
    for ax, what in zip(axes, ("iterations", "work: nodes visited")):
        ax.set_xlabel("information sets (both players)")
        ax.set_ylabel(f"{what} until exploitability\n<= {level:g} (payoff units: chips)")
        ax.grid(True, which="both", alpha=0.3)
    legend_outside(fig, *axes[0].get_legend_handles_labels())
    fig.suptitle("Zinkevich et al. (2007), Fig. 1(b) in miniature: Leduc hold'em with 2 x r cards, r = 3, 4, ...")
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranks", type=int, nargs="*", default=[3, 4, 5, 6, 7])
    ap.add_argument("--level", type=float, default=0.1)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--cap", type=int, default=400_000, help="most iterations per run")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--replot", metavar="FILE.json", help="redraw the figure beside an earlier run's JSON; no runs")
    args = ap.parse_args()
    if args.replot:
        saved = json.loads(Path(args.replot).read_text())
        seeds = max((len(r["cs_runs"]) for r in saved["rows"]), default=1)
        draw(saved["rows"], saved["level"], seeds, Path(args.replot).with_suffix(".png"))
        return 0
    rows = []
    for r in args.ranks:
        tree = seqform.compile_tree(seqform.games.load(f"leduc(ranks={r})"))
        infosets = sum(tree.num_infosets)
        print(f"ranks {r}: {infosets:,} information sets, {tree.num_nodes:,} nodes", file=sys.stderr, flush=True)
        cfr_it, cfr_work = iterations_to(tree, RegretMinimizer(tree, "cfr"), args.level, args.cap)
        cs = [
            iterations_to(tree, MonteCarloCFR(tree, "chance", seed=s), args.level, args.cap) for s in range(args.seeds)
        ]
        hit = [c for c in cs if c[0] is not None]
        rows.append(
            {
                "ranks": r,
                "infosets": infosets,
                "nodes": tree.num_nodes,
                "cfr_iterations": cfr_it,
                "cfr_work": cfr_work,
                "cs_iterations": statistics.median(c[0] for c in hit) if hit else None,
                "cs_work": statistics.median(c[1] for c in hit) if hit else None,
                "cs_runs": [c[0] for c in cs],
                "cs_reached": len(hit),
            }
        )
        print(rows[-1], file=sys.stderr, flush=True)
    day, out, lines = report.start(args.out_dir, "Zinkevich et al. (2007), Figure 1(b) in miniature")
    stem = out / f"zinkevich-fig1b-{day}"
    fmt = lambda v: "-" if v is None else f"{v:,.0f}"
    lines += [
        f"- iterations until the average strategy's exploitability is at most {args.level:g} (chance "
        f"sampling: median of {args.seeds} seeds); work: nodes visited (CFR: 2 x tree nodes per iteration)",
        "",
        "| leduc ranks | information sets | nodes | CFR iterations | chance-sampled iterations | "
        "ratio CS / CFR | CFR work | CS work |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratio = (
            f"{row['cs_iterations'] / row['cfr_iterations']:.0f}"
            if row["cs_iterations"] and row["cfr_iterations"]
            else "-"
        )
        lines.append(
            f"| {row['ranks']} | {row['infosets']:,} | {row['nodes']:,} | {fmt(row['cfr_iterations'])} | "
            f"{fmt(row['cs_iterations'])} ({row['cs_reached']}/{args.seeds}) | {ratio} | "
            f"{fmt(row['cfr_work'])} | {fmt(row['cs_work'])} |"
        )
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")
    stem.with_suffix(".json").write_text(json.dumps({"level": args.level, "rows": rows}, indent=1))
    draw(rows, args.level, args.seeds, stem.with_suffix(".png"))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

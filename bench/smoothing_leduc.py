#!/usr/bin/env python3
"""The experiments of Kroer, Farina & Sandholm (2017, "Smoothing method for approximate
extensive-form perfect equilibrium", section 4), reproduced on Leduc with a 10-card deck
(``seqform.games.leduc(ranks=5)``, the paper's "Leduc 5").

Solvers: CFR+ (``seqform.iterative.cfr``), EGT with the dilated entropy (``seqform.iterative.egt``, Kroer weights,
Sandholm (2010)'s heuristics) and EGT on the eps-perturbed treeplex (Kroer, Farina & Sandholm 2017) for several eps.
Measured against tree traversals (one pass over the leaves: 2 per CFR+ iteration; about 4 per EGT
iteration, counted exactly), at log-spaced points, with ``seqform.study.verifyharness``:

* Figure 2: the sum of the players' regrets in the unperturbed game (NashConv = 2 x exploitability);
* Figure 3: the largest regret at an information set (Bayes' rule at the information set,
  best-responding below it: ``seqform.verify.infosetregret``);
* for perturbed EGT, the same in the eps-perturbed game it solves, against that game's exact
  equilibrium (``refinements.tremblingbestresponse``; ``--perturbed-measures``, the default):
  perturbed exploitability and the largest information-set regret inside the perturbed polytope.

Usage (from the repository root)::

    python bench/smoothing_leduc.py                       # 100,000 traversals per solver
    python bench/smoothing_leduc.py --traversals 2000 --out-dir /tmp/x
    python bench/smoothing_leduc.py --replot bench/results/smoothing-leduc5-2026-11-24.json  # figures only

Writes ``bench/results/smoothing-leduc5-YYYY-MM-DD.{md,json}`` and the two plots ``...-nashconv.png``
and ``...-infoset-regret.png``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

EPS = (0.1, 0.05, 0.01, 0.001)


def run(traversals: int, eps_list, say, perturbed: bool = True, ranks: int = 5) -> tuple:
    import numpy as np

    import seqform
    from seqform.iterative.cfr import RegretMinimizer
    from seqform.iterative.egt import ExcessiveGap
    from seqform.model.tree import compile_tree
    from seqform.study.verifyharness import verify

    tree = compile_tree(seqform.games.leduc(ranks=ranks))
    runs = {"CFR+": lambda: RegretMinimizer(tree, "cfr+"), "EGT": lambda: ExcessiveGap(tree)}
    for e in eps_list:
        runs[f"EGT, eps={e:g}"] = lambda e=e: ExcessiveGap(tree, perturbation="efpe", eps=e)
    out = {}
    for name, make in runs.items():
        solver = make()
        per = 2.0 if name == "CFR+" else 4.1  # traversals per iteration, to size the run
        iters = max(2, int(traversals / per))
        marks = sorted(set(int(round(v)) for v in np.logspace(0, np.log10(iters), 30)) | {iters})
        t0 = time.perf_counter()
        eps = getattr(solver, "eps", 0.0)
        extra = {"refined": ["efpe"], "eps": eps} if perturbed and eps else {}
        rep = verify(solver, tree, iters, points=marks, **extra)
        say(
            f"{name}: {iters:,} iterations, {rep.points[-1].traversals:,} traversals, "
            f"{time.perf_counter() - t0:.1f} s; final NashConv {2 * rep.points[-1].exploitability:.3e}, "
            f"max information-set regret {rep.points[-1].max_infoset_regret:.3e}"
        )
        out[name] = rep
    return tree, out


def plot(reports: dict, key: str, ylabel: str, path: Path, title: str) -> None:
    """One log-log figure of ``key`` (NashConv for "exploitability") against tree traversals, one
    line per solver, in ``seqform.study.verifyplot``'s style (the legend below the axes)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from seqform.study.verifyplot import legend_outside, line_style

    fig, ax = plt.subplots(figsize=(7.5, 5), layout="constrained")
    for k, (name, rep) in enumerate(reports.items()):
        xs = [p.traversals for p in rep.points]
        ys = [getattr(p, key) for p in rep.points]
        if any(y is None for y in ys):
            continue
        ys = [2 * y if key == "exploitability" else y for y in ys]
        pts = [(x, y) for x, y in zip(xs, ys) if y > 0]
        ax.loglog([x for x, _ in pts], [y for _, y in pts], label=name, **line_style(k))
    ax.set_xlabel("tree traversals (passes over the tree)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    legend_outside(fig, *ax.get_legend_handles_labels())
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plots(reports: dict, stem: str, ranks: int) -> list:
    """The figures of a run (``reports``: solver name -> report, or its JSON as objects), beside ``stem``."""
    figs = [
        (
            "exploitability",
            "sum of the players' regrets (NashConv),\nunperturbed game (payoff units: chips)",
            f"{stem}-nashconv.png",
            f"Leduc {ranks}: convergence to Nash equilibrium\n(Kroer, Farina & Sandholm 2017, Figure 2)",
        ),
        (
            "max_infoset_regret",
            "largest information-set regret\n(payoff units: chips)",
            f"{stem}-infoset-regret.png",
            f"Leduc {ranks}: the refinement measure\n(Kroer, Farina & Sandholm 2017, Figure 3)",
        ),
    ]
    pert = {k: r for k, r in reports.items() if r.points[-1].perturbed_exploitability is not None}
    out = []
    for key, ylabel, path, title in figs:
        plot(reports, key, ylabel, Path(path), title)
        out.append(path)
    if pert:
        path = f"{stem}-perturbed.png"
        plot(
            pert,
            "perturbed_exploitability",
            "NashConv in its own eps-perturbed game\n(payoff units: chips)",
            Path(path),
            f"Leduc {ranks}: perturbed EGT measured in the game it solves",
        )
        out.append(path)
    return out


def replot(path: str, ranks: int) -> list:
    """Redraw the figures of an earlier run from its JSON (no runs)."""
    from types import SimpleNamespace

    saved = json.loads(Path(path).read_text())
    reports = {
        name: SimpleNamespace(points=[SimpleNamespace(**{"perturbed_exploitability": None, **p}) for p in r["points"]])
        for name, r in saved.items()
    }
    return plots(reports, str(Path(path).with_suffix("")), ranks)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traversals", type=int, default=100_000)
    ap.add_argument(
        "--ranks",
        type=int,
        default=5,
        help="Leduc's deck: 2 x RANKS cards (the paper's Leduc 5: 5; the tests' smoke run: 3)",
    )
    ap.add_argument("--eps", default=",".join(str(e) for e in EPS))
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument(
        "--no-perturbed-measures",
        action="store_true",
        help="skip measuring perturbed EGT in its perturbed game (each eps: one exact perturbed solve)",
    )
    ap.add_argument("--replot", metavar="FILE.json", help="redraw the figures of an earlier run's JSON; no runs")
    args = ap.parse_args(argv)
    if args.replot:
        print("wrote", ", ".join(replot(args.replot, args.ranks)), file=sys.stderr)
        return 0
    eps_list = [float(e) for e in args.eps.split(",") if e]
    tree, reports = run(
        args.traversals,
        eps_list,
        lambda m: print(m, file=sys.stderr, flush=True),
        perturbed=not args.no_perturbed_measures,
        ranks=args.ranks,
    )
    day = _dt.date.today().isoformat()
    rows = [
        "| solver | iterations | traversals | NashConv (sum of regrets) | max information-set regret | "
        "perturbed game: NashConv | perturbed game: max information-set regret |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, rep in reports.items():
        p = rep.points[-1]
        pert = (
            f"{2 * p.perturbed_exploitability:.3e} | {p.perturbed_max_infoset_regret:.3e}"
            if p.perturbed_exploitability is not None
            else "- | -"
        )
        rows.append(
            f"| {name} | {p.iteration:,} | {p.traversals:,} | {2 * p.exploitability:.3e} | "
            f"{p.max_infoset_regret:.3e} | {pert} |"
        )
    md = (
        f"# Kroer, Farina & Sandholm (2017)'s experiments on Leduc {args.ranks} ({day})\n\n"
        f"Game: `leduc(ranks={args.ranks})`, {tree.num_nodes:,} nodes, {tree.num_sequences[0]:,} sequences per player; "
        f"certified value {reports['CFR+'].game_value} (= {float(reports['CFR+'].game_value):.9f}).\n"
        f"Command: `python bench/smoothing_leduc.py {' '.join(argv if argv is not None else sys.argv[1:])}`.\n\n"
        + "\n".join(rows)
        + "\n"
    )
    print(md)
    if not args.no_write:
        out = Path(args.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        stem = out / f"smoothing-leduc{args.ranks}-{day}"
        plots(reports, str(stem), args.ranks)
        Path(f"{stem}.md").write_text(md)
        Path(f"{stem}.json").write_text(json.dumps({k: r.to_json() for k, r in reports.items()}, indent=1))
        print(f"wrote {stem}.md, .json, -nashconv.png, -infoset-regret.png", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

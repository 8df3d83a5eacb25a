#!/usr/bin/env python3
"""Monte Carlo CFR, time to a given exploitability: seqform's MCCFR against OpenSpiel's C++
solvers (``pyspiel.ExternalSamplingMCCFRSolver``, simple averaging, and
``pyspiel.OutcomeSamplingMCCFRSolver``, exploration 0.6) and its Python ones
(``external_sampling_mccfr``, ``outcome_sampling_mccfr``; fewer seeds and a shorter cap, as they
are about ten times slower), over several seeds.

Each run iterates in chunks; after each chunk the average strategy's exploitability is measured
(exact best responses on the whole tree: seqform's on its own profile, ``pyspiel.exploitability``
on OpenSpiel's) and the solver time so far is read. Measuring is not timed. A run stops at the
last level or at ``--cap`` seconds of solver time. The table gives, per level, the median over
seeds of the solver seconds (and iterations) at which the exploitability first fell to the level,
and how many seeds reached it; ratio = OpenSpiel's median / seqform's.

    python bench/bench_mccfr.py                         # Leduc, ES 0.05 and 0.02, OS 0.2; 10 seeds
    python bench/bench_mccfr.py --seeds 3 --cap 60 --out-dir /tmp/x
    python bench/bench_mccfr.py --game liars_dice --levels external=0.1,0.05 outcome=0.3

Writes ``bench/results/mccfr-YYYY-MM-DD.{md,json}``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import report  # noqa: E402

LEVELS = {"external": [0.05, 0.02], "outcome": [0.2]}
OPENSPIEL_NAMES = {"leduc": "leduc_poker", "kuhn": "kuhn_poker", "liars_dice": "liars_dice"}


def run_seqform(game: str, sampling: str, seed: int, levels: list, cap: float) -> dict:
    import seqform
    from seqform.iterative.mccfr import MonteCarloCFR

    tree = seqform.compile_tree(seqform.games.load(game))
    s = MonteCarloCFR(tree, sampling, seed=seed)
    return _drive(
        s.step, lambda: seqform.exploitability(tree, s.average_profile(), validate=False).exploitability, levels, cap
    )


def run_batched(game: str, sampling: str, seed: int, levels: list, cap: float, batch: int = 128) -> dict:
    import seqform
    from seqform.iterative.batchedmccfr import BatchedExternalSampling, BatchedOutcomeSampling

    tree = seqform.compile_tree(seqform.games.load(game))
    cls = BatchedExternalSampling if sampling == "external" else BatchedOutcomeSampling
    s = cls(tree, batch=batch, seed=seed)
    return _drive(
        s.step, lambda: seqform.exploitability(tree, s.average_profile(), validate=False).exploitability, levels, cap
    )


def run_openspiel(game: str, sampling: str, seed: int, levels: list, cap: float) -> dict:
    import pyspiel

    g = pyspiel.load_game(OPENSPIEL_NAMES.get(game, game))
    if sampling == "external":
        s = pyspiel.ExternalSamplingMCCFRSolver(g, seed, pyspiel.MCCFRAverageType.SIMPLE)
    else:
        s = pyspiel.OutcomeSamplingMCCFRSolver(g, 0.6, seed)

    def step(n: int) -> None:
        for _ in range(n):
            s.run_iteration()

    return _drive(step, lambda: pyspiel.exploitability(g, s.average_policy()), levels, cap)


def run_openspiel_python(game: str, sampling: str, seed: int, levels: list, cap: float) -> dict:
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import external_sampling_mccfr as es
    from open_spiel.python.algorithms import outcome_sampling_mccfr as os_

    g = pyspiel.load_game(OPENSPIEL_NAMES.get(game, game))
    np.random.seed(seed)  # OpenSpiel's Python MCCFR draws from numpy's global state
    s = es.ExternalSamplingSolver(g, es.AverageType.SIMPLE) if sampling == "external" else os_.OutcomeSamplingSolver(g)

    def step(n: int) -> None:
        for _ in range(n):
            s.iteration()

    from open_spiel.python.algorithms import exploitability as expl

    return _drive(step, lambda: expl.exploitability(g, s.average_policy()), levels, cap)


def _drive(step, measure, levels: list, cap: float) -> dict:
    """Iterate in growing chunks; record (seconds, iterations) when each level is first reached."""
    reached: dict = {}
    solver_s, it, chunk = 0.0, 0, 1000
    trace = []
    while solver_s < cap and len(reached) < len(levels):
        t0 = time.perf_counter()
        step(chunk)
        solver_s += time.perf_counter() - t0
        it += chunk
        e = float(measure())
        trace.append((it, solver_s, e))
        for lv in levels:
            if lv not in reached and e <= lv:
                reached[lv] = (solver_s, it)
        chunk = max(1000, int(it * 0.25))
    return {"reached": {str(k): v for k, v in reached.items()}, "trace": trace, "iterations": it, "seconds": solver_s}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="leduc")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--cap", type=float, default=120.0, help="solver seconds per run (default 120)")
    ap.add_argument("--python-seeds", type=int, default=3, help="seeds for OpenSpiel's Python MCCFR (default 3)")
    ap.add_argument("--python-cap", type=float, default=60.0, help="its solver seconds per run (default 60)")
    ap.add_argument(
        "--batch", type=int, default=128, help="episodes per batch, batched external sampling (default 128)"
    )
    ap.add_argument(
        "--os-batch", type=int, default=512, help="trajectories per batch, batched outcome sampling (default 512)"
    )
    ap.add_argument("--impls", nargs="*", help="run only these implementations (names as in the table)")
    ap.add_argument("--tag", default="", help="appended to the results' file name")
    ap.add_argument(
        "--levels",
        nargs="*",
        metavar="SAMPLING=L1,L2",
        help="exploitability levels per sampling (default external=0.05,0.02 outcome=0.2)",
    )
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args()
    levels_by = {} if args.levels else dict(LEVELS)  # given levels replace the defaults
    for spec in args.levels or []:
        k, v = spec.split("=")
        levels_by[k] = [float(x) for x in v.split(",")]
    rows, raw = [], {}
    batched = "seqform batched"
    impls = (
        ("seqform", lambda *a: run_seqform(*a), args.seeds, args.cap),
        (
            batched,
            lambda g, smp, *a: run_batched(g, smp, *a, batch=args.batch if smp == "external" else args.os_batch),
            args.seeds,
            args.cap,
        ),
        ("OpenSpiel C++", run_openspiel, args.seeds, args.cap),
        ("OpenSpiel Python", run_openspiel_python, args.python_seeds, args.python_cap),
    )
    impls = tuple(im for im in impls if not args.impls or im[0] in args.impls)
    for sampling, levels in levels_by.items():
        for impl, fn, seeds, cap in impls:
            runs = []
            for seed in range(seeds):
                print(f"{args.game} {sampling} {impl} seed {seed} ...", file=sys.stderr, flush=True)
                runs.append(fn(args.game, sampling, seed, levels, cap))
            raw[f"{sampling}/{impl}"] = runs
            for lv in levels:
                hits = [r["reached"][str(lv)] for r in runs if str(lv) in r["reached"]]
                med_s = statistics.median(h[0] for h in hits) if hits else None
                med_it = statistics.median(h[1] for h in hits) if hits else None
                rows.append(
                    {
                        "sampling": sampling,
                        "impl": impl,
                        "level": lv,
                        "reached": len(hits),
                        "seeds": len(runs),
                        "median_seconds": med_s,
                        "median_iterations": med_it,
                    }
                )
    day, out, lines = report.start(args.out_dir, f"Monte Carlo CFR: time to an exploitability level, {args.game}")
    names = [impl for impl, *_ in impls]
    lines += [
        "- seconds: solver time only (exploitability measurements excluded), median over the seeds "
        "that reached the level, with the median iterations; reached: seeds that did, of those run; "
        "x C++: OpenSpiel C++'s median over that implementation's (above 1: faster than OpenSpiel C++); "
        f"batched: {args.batch} episodes a batch for external sampling, {args.os_batch} trajectories for "
        "outcome sampling",
        "",
        "| sampling | level | " + " | ".join(names) + " | reached (" + " / ".join(names) + ") |",
        "|---|---|" + "---|" * (len(names) + 1),
    ]

    def cell(r, cpp):
        if r is None:
            return "-"
        if r["median_seconds"] is None:
            return "not reached"
        out_ = f"{r['median_seconds']:.2f} s ({int(r['median_iterations']):,})"
        if cpp and cpp["median_seconds"] and r["impl"] != "OpenSpiel C++":
            out_ += f", {cpp['median_seconds'] / r['median_seconds']:.2f} x C++"
        return out_

    for sampling, levels in levels_by.items():
        for lv in levels:
            got = {r["impl"]: r for r in rows if r["sampling"] == sampling and r["level"] == lv}
            cpp = got.get("OpenSpiel C++")
            lines.append(
                f"| {sampling} | {lv:g} | "
                + " | ".join(cell(got.get(nm), cpp) for nm in names)
                + " | "
                + " / ".join(f"{got[nm]['reached']}/{got[nm]['seeds']}" if nm in got else "-" for nm in names)
                + " |"
            )
    name = (f"mccfr-{args.game}-{day}" if args.game != "leduc" else f"mccfr-{day}") + (
        f"-{args.tag}" if args.tag else ""
    )
    report.finish(out, name, lines, {"rows": rows, "runs": raw})
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Dudik & Gordon (2009)'s experiments with the sampling EFCE algorithm (``efce.sampling``): Indian poker
(Figure 4, left: regret and memory against rounds) and grid games (Figure 3: time and memory
against sequence complexity), each run in its own fresh process (``bench/isolated.py``), with
peak memory from the operating system and from tracemalloc.

Usage (from the repository root)::

    python bench/bench_efce.py                       # Indian poker C=8, grids 5, 10, 15, 20
    python bench/bench_efce.py --poker 4 --grids 2,3 --time-limit 60 --reuse capped
    python bench/bench_efce.py --poker 8 --grids "" --time-limit 3550 --save-state /tmp/state
    python bench/bench_efce.py --revalidate /tmp/state/*.pkl --check 16000 --burn-in 400

Writes ``bench/results/efce-YYYY-MM-DD.{md,json}`` and the plots ``efce-...-poker.png`` and
``efce-...-grid.png``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.isolated import TAG, run_isolated  # noqa: E402


def child(
    spec: str,
    time_limit: float,
    stop_ratio: float,
    seed: int,
    reuse: str,
    check: int,
    step_cap: float,
    burn_in: int,
    thin: int,
    growth: float = 0.1,
    check_workers: int = 1,
    workers: int = 1,
    overlap: bool = False,
    state: str = "",
) -> dict:
    import efce  # registers the games
    import seqform

    del efce
    from efce.sampling import SamplerOptions, sample_efce, validated_regret

    game = seqform.games.load(spec)
    # "seed": keep a sample while its effective size lasts (section 3.4, no round cap);
    # "capped": our default, at most 10 rounds per sample; "balanced": no longer than the draw took.
    # MCMC always, even on a game small enough for exact expectations: this measures the sampler.
    options = SamplerOptions(
        expectations="mcmc",
        stop_ratio=stop_ratio,
        max_reuse=10 if reuse == "capped" else None,
        reuse_time=1.0 if reuse == "balanced" else None,
        step_cap=step_cap,
        thin=thin,
        growth=growth,
        every=30,
        workers=workers,
        overlap=overlap,
        measure_memory=True,
    )
    res = sample_efce(
        game,
        None,
        seed=seed,
        time_limit=time_limit,
        max_rounds=10**7,
        options=options,
        progress=lambda m: print(m, file=sys.stderr, flush=True),
    )
    if state:
        _save_state(state, spec, seed, res)
    val = validated_regret(game, res, samples=check, burn_in=burn_in, workers=check_workers)
    if hasattr(game, "polymatrix"):
        gamma = int(sum(game.polymatrix().num_actions))
    else:
        from seqform.model.tree import compile_tree

        gamma = int(sum(n - 1 for n in compile_tree(game).num_sequences))
    step = max(1, len(res.history) // 400)  # the plot needs a few hundred points, not every round
    hist = [h for k, h in enumerate(res.history) if k % step == 0 or k == len(res.history) - 1]
    return {
        "game": game.name,
        "gamma": gamma,
        "reuse": reuse,
        "step_cap": step_cap,
        "thin": thin,
        "growth": growth,
        "workers": workers,
        "overlap": overlap,
        "rounds": res.rounds,
        "initial_regret": res.initial_regret,
        "final_regret": res.max_regret,
        "ratio": res.max_regret / res.initial_regret if res.initial_regret else None,
        "converged": res.converged,
        "seconds": res.seconds["total"],
        "samples": res.samples,
        "tracemalloc_peak": res.peak_memory,
        "history": hist,
        "payoffs": [float(x) for x in res.payoffs],
        "found_regret": val.found,
        "validated_regret": val.validated,
        "validated_stderr": val.stderr,
        "check_samples": val.samples,
        "deviations": len(res.deviations),
        "validation_burn_in": val.burn_in,
        "energy_drift": val.energy_drift,
    }


def _state_path(folder: str | None, spec: str, seed: int) -> str:
    """Where --save-state puts a run's q_lambda ("" when it is not saved)."""
    if not folder:
        return ""
    slug = "".join(c if c.isalnum() else "-" for c in spec).strip("-")
    return str(Path(folder) / f"{slug}-seed{seed}.pkl")


def _save_state(path: str, spec: str, seed: int, res) -> None:
    """The run's final q_lambda (its deviations and lambdas), so that it can be validated again
    later (``--revalidate``) with more burn-in or larger samples, without another hour."""
    import dataclasses
    import pickle

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    # every field: the models locate a deviation by its trigger and plan, not by its strategy
    devs = [dataclasses.astuple(d) for d in res.deviations]
    Path(path).write_bytes(
        pickle.dumps(
            {
                "spec": spec,
                "seed": seed,
                "weights": list(res.weights),
                "deviations": devs,
                "lam": [float(x) for x in res.lam],
                "rounds": res.rounds,
                "initial_regret": res.initial_regret,
                "final_regret": res.max_regret,
                "seconds": res.seconds["total"],
            }
        )
    )


def revalidate(path: str, check: int, burn_in: int, workers: int) -> dict:
    """``validated_regret`` of a saved run's q_lambda (``_save_state``): a row for the table."""
    import pickle

    import efce  # registers the games
    import seqform

    del efce
    from efce.family import Deviation
    from efce.sampling import SamplingResult, validated_regret

    st = pickle.loads(Path(path).read_bytes())
    game = seqform.games.load(st["spec"])
    res = SamplingResult(
        game=game.name,
        payoffs=[],
        max_regret=st["final_regret"],
        initial_regret=st["initial_regret"],
        rounds=st["rounds"],
        samples=0,
        seconds={"total": st["seconds"]},
        peak_memory=0,
        deviations=[Deviation(*d) for d in st["deviations"]],
        lam=st["lam"],
        weights=tuple(st["weights"]),
    )
    val = validated_regret(game, res, samples=check, burn_in=burn_in, workers=workers)
    return {
        "state": str(path),
        "game": game.name,
        "seed": st["seed"],
        "rounds": st["rounds"],
        "initial_regret": st["initial_regret"],
        "final_regret": st["final_regret"],
        "check_samples": val.samples,
        "validation_burn_in": val.burn_in,
        "energy_drift": val.energy_drift,
        "found_regret": val.found,
        "validated_regret": val.validated,
        "validated_stderr": val.stderr,
    }


def _revalidation_report(rows: list) -> str:
    lines = [
        "| state | game | run seed | rounds | initial regret | in-sample / initial | check | burn-in | drift | "
        "fresh max | validated | validated / initial |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        i = r["initial_regret"]
        lines.append(
            f"| {Path(r['state']).name} | {r['game']} | {r['seed']} | {r['rounds']:,} | {i:.4g} | "
            f"{r['final_regret'] / i:.3g} | {r['check_samples']:,} | {r['validation_burn_in']} | "
            f"{r['energy_drift']:+.1f} | {r['found_regret']:.4g} | {r['validated_regret']:.4g} +- "
            f"{r['validated_stderr']:.2g} | {r['validated_regret'] / i:.3g} +- {r['validated_stderr'] / i:.2g} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=14, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--poker", default="8", help="Indian poker deck sizes")
    ap.add_argument("--grids", default="5,10,15,20", help="grid sizes L")
    ap.add_argument("--grid-seeds", default="0", help="random grid games per size")
    ap.add_argument("--time-limit", type=float, default=600, help="seconds per run")
    ap.add_argument("--poker-time-limit", type=float, default=None, help="seconds per poker run (default --time-limit)")
    ap.add_argument(
        "--reuse",
        default="seed",
        choices=["seed", "capped", "balanced"],
        help="sample reuse: the paper's (while the effective size lasts), ours (at most 10 rounds), or "
        "balanced (the paper's, and no longer than the sample took to draw)",
    )
    ap.add_argument(
        "--step-cap",
        type=float,
        default=10.0,
        help="the line search's cap, in eq. 7 steps (SamplerOptions.step_cap; its default is 10)",
    )
    ap.add_argument("--thin", type=int, default=1, help="Gibbs sweeps per fresh sample (SamplerOptions.thin)")
    ap.add_argument(
        "--growth",
        type=float,
        default=0.1,
        help="profiles added to a fresh sample per round (SamplerOptions.growth; the paper's 0.1)",
    )
    ap.add_argument("--check", type=int, default=1000, help="profiles per validation sample")
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes drawing the fresh samples (SamplerOptions.workers; the rounds stay in one)",
    )
    ap.add_argument(
        "--overlap",
        action="store_true",
        help="with --workers: draw the next sample while fitting on this one (SamplerOptions.overlap)",
    )
    ap.add_argument(
        "--check-workers",
        type=int,
        default=1,
        help="processes for the validation's burn-in (after the timed run, so it may use every core)",
    )
    ap.add_argument(
        "--burn-in",
        type=int,
        default=100,
        help="Gibbs sweeps from uniform profiles before the validation samples are read",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--save-state",
        default=None,
        metavar="DIR",
        help="save each run's final q_lambda to DIR/GAME-seedS.pkl, for --revalidate",
    )
    ap.add_argument(
        "--revalidate",
        nargs="+",
        default=None,
        metavar="FILE",
        help="run nothing: validate saved runs (--save-state) again with --check, --burn-in and --check-workers",
    )
    ap.add_argument(
        "--from-json",
        nargs="+",
        default=None,
        metavar="FILE",
        help="run nothing: report the rows of earlier runs' JSON files together",
    )
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--name", default="efce", help="results file stem: NAME-YYYY-MM-DD.{md,json}")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if args.child:
        spec, tl, ratio, seed, reuse, check, cap, burn, thin, growth, cw, wk, ov, state = args.child
        print(
            TAG
            + json.dumps(
                child(
                    spec,
                    float(tl),
                    float(ratio),
                    int(seed),
                    reuse,
                    int(check),
                    float(cap),
                    int(burn),
                    int(thin),
                    float(growth),
                    int(cw),
                    int(wk),
                    ov == "1",
                    state,
                )
            )
        )
        return 0
    if args.revalidate:
        rows = [revalidate(f, args.check, args.burn_in, args.check_workers) for f in args.revalidate]
        md = _revalidation_report(rows)
        print(md)
        if not args.no_write:
            stem = Path(args.out_dir) / f"{args.name}-{_dt.date.today().isoformat()}"
            Path(f"{stem}.md").write_text(
                f"# Sampling EFCE runs validated again ({_dt.date.today().isoformat()})\n\n" + md
            )
            Path(f"{stem}.json").write_text(json.dumps(rows, indent=1))
        return 0
    ptl = args.poker_time_limit or args.time_limit
    runs = [(f"indian_poker(cards={c})", 1e-4, ptl) for c in args.poker.split(",") if c] + [
        (f"grid_game(size={L},seed={gs})", 1e-3, args.time_limit)
        for L in args.grids.split(",")
        if L
        for gs in args.grid_seeds.split(",")
        if gs
    ]
    rows = []
    if args.from_json:
        runs = []
        for f in args.from_json:
            rows.extend(json.loads(Path(f).read_text()))
    for spec, ratio, tl in runs:
        print(f"{spec}: sampling, up to {tl:g} s", file=sys.stderr, flush=True)
        out = run_isolated(
            [
                str(Path(__file__).resolve()),
                "--child",
                spec,
                str(tl),
                str(ratio),
                str(args.seed),
                args.reuse,
                str(args.check),
                str(args.step_cap),
                str(args.burn_in),
                str(args.thin),
                str(args.growth),
                str(args.check_workers),
                str(args.workers),
                "1" if args.overlap else "0",
                _state_path(args.save_state, spec, args.seed),
            ],
            cap=tl + 3600,
            echo=True,
        )
        out["target_ratio"] = ratio
        out["time_limit"] = tl
        rows.append(out)
    day = _dt.date.today().isoformat()
    reuse = {
        "seed": "the paper's (section 3.4): a sample is kept while its effective size stays above half its size",
        "capped": "ours: a sample is kept at most 10 rounds, and while its effective size stays above half",
        "balanced": "ours: a sample is kept while its effective size stays above half its size, and its rounds "
        "take no longer than drawing it took (SamplerOptions(reuse_time=1))",
    }
    for r in rows:  # rows from JSON files written before the column existed
        r.setdefault("reuse", args.reuse)
        r.setdefault("step_cap", 10.0)  # the only cap before the column existed
        r.setdefault("validation_burn_in", 20)  # the bench's only burn-in before the column existed
        r.setdefault("thin", 1)
        r.setdefault("growth", 0.1)
        r.setdefault("workers", 1)
        r.setdefault("overlap", False)
    used = sorted({r["reuse"] for r in rows})
    lines = [
        f"# Dudik & Gordon (2009)'s experiments, sampling EFCE ({day})",
        "",
        f"Each run in a fresh process, MCMC seed {args.seed}, until the time limit in the table. A run stops "
        "early when the largest estimated causal-deviation regret falls to the target fraction of the first "
        "round's. Sample "
        "reuse: " + "; ".join(f"{reuse[u]}" for u in used) + ".",
        "",
        "* *final regret*: the last round's estimate, on the reweighted sample lambda was fitted to (the paper's "
        "measure).",
        "* *fresh max*: the largest regret on a fresh sample (*check* profiles) of the final q_lambda "
        "(biased up: a maximum over many noisy estimates).",
        "* *validated*: that deviation's regret re-estimated on a second independent sample of the same size, "
        "+- one standard error (unbiased for that deviation).",
        "* *burn-in*: Gibbs sweeps from uniform profiles before the validation samples were read; *drift*: how "
        "far the chains' mean energy moved over the second half of them, in standard errors (above 3: still "
        "moving, so the validation may be off too; blank: not measured).",
        "",
        "| game | reuse | cap | thin | growth | workers | sequence complexity | target | time limit (s) | "
        "rounds | initial regret | final regret | final / initial | reached | check | burn-in | drift | "
        "fresh max | validated | seconds | samples | "
        "peak MiB (OS) | peak MiB (tracemalloc) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r or "rounds" not in r:
            lines.append(
                f"| {r.get('spec', '?')} | | | | | | | | | | | | "
                f"failed: {str(r.get('error', r))[:200]} | | | | | | | | | | |"
            )
            continue
        lines.append(
            f"| {r['game']} | {r['reuse']} | {r['step_cap']:g} | {r['thin']} | {r['growth']:g} | "
            f"{r['workers']}{' overlapped' if r['overlap'] else ''} | {r['gamma']} | {r['target_ratio']:g} | "
            f"{r.get('time_limit', float('nan')):g} | "
            f"{r['rounds']:,} | {r['initial_regret']:.4g} | "
            f"{r['final_regret']:.4g} | {r['ratio']:.3g} | {'yes' if r['converged'] else 'no'} | "
            f"{r['check_samples']:,} | {r['validation_burn_in']} | "
            f"{'' if r.get('energy_drift') is None else format(r['energy_drift'], '+.1f')} | "
            f"{r['found_regret']:.4g} | {r['validated_regret']:.4g} +- {r['validated_stderr']:.2g} | "
            f"{r['seconds']:.1f} | {r['samples']:,} | {r.get('peak_rss_mib', float('nan')):.0f} | "
            f"{r['tracemalloc_peak'] / 2**20:.1f} |"
        )
    md = "\n".join(lines) + "\n"
    print(md)
    if not args.no_write:
        out = Path(args.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        stem = out / f"{args.name}-{day}"
        Path(f"{stem}.md").write_text(md)
        Path(f"{stem}.json").write_text(json.dumps(rows, indent=1, default=str))
        _plots(rows, stem)
        print(f"wrote {stem}.md, .json and plots", file=sys.stderr)
    return 0


def _plots(rows, stem) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pokers = [r for r in rows if "history" in r and r["game"].startswith("indian")]
    if pokers:
        _poker_plot(plt, pokers, stem)
    grids = [r for r in rows if "history" in r and r["game"].startswith("grid")]
    if grids:
        _grid_plot(plt, grids, stem)


def _poker_plot(plt, pokers, stem) -> None:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax2 = ax.twinx()
    for r in pokers:
        h = r["history"]
        x = [p["round"] for p in h]
        name = f"{r['game']}, {r['reuse']} reuse, cap {r['step_cap']:g}, thin {r['thin']}"
        ax.loglog(x, [max(p["regret"], 1e-12) / r["initial_regret"] for p in h], label=f"{name}: regret / initial")
        ax2.loglog(x, [p["memory"] / 2**20 for p in h], ls="--", label=f"{name}: memory (MiB, tracemalloc)")
        if r.get("validated_regret", 0) > 0:  # the end point as a fresh sample measures it
            ax.errorbar(
                [r["rounds"]],
                [r["validated_regret"] / r["initial_regret"]],
                yerr=[r["validated_stderr"] / r["initial_regret"]],
                marker="x",
                ms=9,
                capsize=4,
                color=ax.lines[-1].get_color(),
                ls="none",
                label=f"{name}: validated on fresh samples",
            )
    ax.set_xlabel("rounds")
    ax.set_ylabel("largest estimated regret / first round's")
    ax2.set_ylabel("memory in use (MiB)")
    ax.set_title("Indian poker (Dudik & Gordon 2009, Figure 4 left)")
    ax.grid(True, which="both", alpha=0.3)
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fig.savefig(f"{stem}-poker.png", dpi=120, bbox_inches="tight")
    plt.close(fig)


def _grid_plot(plt, grids, stem) -> None:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    by: dict = {}
    for r in grids:
        by.setdefault(r["gamma"], []).append(r)
    g = sorted(by)
    ax.loglog(g, [sum(r["seconds"] for r in by[k]) / len(by[k]) for k in g], marker="o", label="seconds (mean)")
    ax.loglog(
        g,
        [sum(r.get("peak_rss_mib", float("nan")) for r in by[k]) / len(by[k]) for k in g],
        marker="s",
        label="peak MiB (OS, mean)",
    )
    ax.loglog(
        g,
        [sum(r["tracemalloc_peak"] for r in by[k]) / len(by[k]) / 2**20 for k in g],
        marker="^",
        label="peak MiB (tracemalloc, mean)",
    )
    stopped = [k for k in g if not all(r["converged"] for r in by[k])]
    if stopped:  # a time is a lower bound where a run hit its limit before the target
        ax.loglog(
            stopped,
            [sum(r["seconds"] for r in by[k]) / len(by[k]) for k in stopped],
            ls="none",
            marker="o",
            ms=12,
            mfc="none",
            mec="k",
            label="stopped by the time limit",
        )
    ax.set_xlabel("sequence complexity (3 L^2)")
    ax.set_title("Grid games to 1e-3 of the first regret, in-sample (Dudik & Gordon 2009, Figure 3)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{stem}-grid.png", dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())

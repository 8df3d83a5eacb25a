#!/usr/bin/env python3
"""Benchmark the sparsified LP of a game with ordered signals (``lossless.sparsifiedlp``) against
today's abstract LP (``lossless.abstractlp``): rows, columns, nonzeros, build time, and HiGHS's
time and peak memory on each, side by side in one run.

Each measurement runs in a fresh process (``bench/isolated.py``: its own peak resident memory,
killed after ``--cap`` seconds), one at a time. Both LPs are solved by HiGHS's interior point
method with crossover (``--method``); their optimal values must agree, and the sparsified
solution's value is bracketed by vector-form best responses with rigorous error bounds
(``lossless.vectorbestresponse``). With ``--full SECONDS`` the full 52-card Rhode Island
Hold'em's sparsified LP is also built and given to HiGHS's interior point method (no crossover)
for up to SECONDS, under a 20 GB address-space limit.

Usage (from the repository root)::

    python bench/bench_sparsified_lp.py                      # the default small decks
    python bench/bench_sparsified_lp.py --full 3600          # and full Rhode Island for an hour
    python bench/bench_sparsified_lp.py --games --full 900 --tag full   # full Rhode Island only

Writes ``bench/results/sparsified-lp-YYYY-MM-DD[-TAG].md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_solve import machine_info  # noqa: E402
from bench.isolated import TAG, run_isolated  # noqa: E402

GAMES = ["rhode_island(ranks=3,suits=2)", "rhode_island(ranks=4,suits=3)", "rhode_island(ranks=5,suits=4)"]


def child(kind: str, spec: str, method: str, limit: float) -> dict:
    import lossless
    import seqform
    from lossless.abstractlp import abstract_sequence_form
    from lossless.sparsifiedlp import solve_sparsified, sparsified_lp
    from lossless.vectorbestresponse import behaviour_from_plan, bracket
    from seqform.lp.zerosumlp import lp_matrix, solve_lp

    game = seqform.games.load(spec)
    t0 = time.perf_counter()
    sh = lossless.shrink(game, nonzeros=False, build_abstract=False)
    out: dict = {"status": "ok", "shrink_s": time.perf_counter() - t0}
    t0 = time.perf_counter()
    if kind == "plain":
        sf = abstract_sequence_form(sh.abstraction)
        K = lp_matrix(sf)
        out.update(build_s=time.perf_counter() - t0, rows=K.shape[0], columns=K.shape[1], nnz=int(K.nnz))
        if limit > 0:
            t0 = time.perf_counter()
            try:
                lp = solve_lp(sf, method=method, time_limit=limit)
                if lp.stopped:  # the time limit: where HiGHS stood is no value
                    raise seqform.SolverError(lp.stopped)
                out.update(value=lp.value, solve_s=time.perf_counter() - t0, iterations=lp.iterations)
            except seqform.SolverError as e:
                out.update(status="stopped", error=str(e)[:300], solve_s=time.perf_counter() - t0)
        return out
    lp = sparsified_lp(sh.abstraction)
    out.update(
        build_s=time.perf_counter() - t0,
        rows=lp.rows,
        columns=lp.columns,
        nnz=lp.nonzeros,
        aux=lp.n_aux,
        factored=lp.factored,
        explicit=lp.explicit,
    )
    if limit > 0:
        t0 = time.perf_counter()
        try:
            full = method == "ipm-nocross"  # the full game: interior point only, no crossover
            sol = solve_sparsified(
                lp,
                method="ipm" if full else method,
                time_limit=limit,
                options={"run_crossover": "off"} if full else None,
            )
            out.update(value=sol.value, solve_s=time.perf_counter() - t0, iterations=sol.iterations)
            lay = lp.layout
            b = bracket(lay, behaviour_from_plan(lay, 0, sol.x), behaviour_from_plan(lay, 1, sol.y))
            out.update(lower=b.lower, upper=b.upper)
        except seqform.SolverError as e:
            out.update(status="stopped", error=str(e)[:300], solve_s=time.perf_counter() - t0)
    return out


def markdown(rep: dict) -> str:
    lines = [
        f"# The sparsified LP against the abstract LP ({rep['date']})",
        "",
        f"Command: `{rep['command']}`",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in rep["machine"].items()),
        "",
        "Each cell is a fresh process (peak MiB: its maximum resident memory, GameShrink included); "
        f"HiGHS method `{rep['method']}`. Bracket: vector-form best responses to the sparsified LP's solution, "
        "with rigorous error bounds.",
        "",
        "| game | LP | rows | nonzeros | build s | HiGHS s | peak MiB | value | bracket |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rep["rows"]:
        val = f"{r['value']:.10f}" if "value" in r else (r.get("error") or r.get("status", "-"))
        br = f"[{r['lower']:.10f}, {r['upper']:.10f}]" if "lower" in r else "-"
        lines.append(
            f"| {r['game']} | {r['kind']} | {r.get('rows', 0):,} | {r.get('nnz', 0):,} | "
            f"{r.get('build_s', float('nan')):.1f} | {r.get('solve_s', float('nan')):.1f} | "
            f"{r.get('peak_rss_mib', 0):.0f} | {val} | {br} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="*", default=GAMES, help="small games to run both LPs on (none: only --full)")
    ap.add_argument("--method", default="ipm", choices=["ipm", "simplex"])
    ap.add_argument("--cap", type=float, default=1800.0, help="seconds before a cell's process is killed")
    ap.add_argument(
        "--full",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="also full Rhode Island: sizes of both LPs, HiGHS's interior point on the sparsified one",
    )
    ap.add_argument("--tag", default="")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--child", nargs=4, metavar=("KIND", "GAME", "METHOD", "LIMIT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        kind, spec, method, limit = args.child
        print(TAG + json.dumps(child(kind, spec, method, float(limit))), flush=True)
        return 0
    command = (
        "python bench/bench_sparsified_lp.py"
        + ("" if args.games == GAMES else " --games " + " ".join(f'"{g}"' for g in args.games))
        + (f" --full {args.full:g}" if args.full else "")
        + (f" --tag {args.tag}" if args.tag else "")
    )
    stem = Path(args.out_dir) / f"sparsified-lp-{_dt.date.today().isoformat()}{'-' + args.tag if args.tag else ''}"
    rep = {
        "date": _dt.date.today().isoformat(),
        "command": command,
        "machine": machine_info(),
        "method": args.method,
        "rows": [],
    }

    def cell(kind, spec, method, limit, env=None):
        res = run_isolated(
            [str(Path(__file__).resolve()), "--child", kind, spec, method, str(limit)], args.cap, env_extra=env
        )
        res.update(game=spec, kind=kind)
        rep["rows"].append(res)
        print(
            f"{spec} {kind}: {json.dumps({k: v for k, v in res.items() if k not in ('game', 'kind')})}",
            file=sys.stderr,
            flush=True,
        )
        if not args.no_write:
            stem.parent.mkdir(parents=True, exist_ok=True)
            stem.with_suffix(".md").write_text(markdown(rep))
            stem.with_suffix(".json").write_text(json.dumps(rep, indent=1))

    for spec in args.games:
        for kind in ("plain", "sparsified"):
            cell(kind, spec, args.method, args.cap)
    if args.full:
        cell("plain", "rhode_island", args.method, 0)
        # as in bench_shrink.py: an out-of-memory HiGHS fails in its own process, not in the kernel's OOM killer
        resource_limit = 20_000_000_000
        cell(
            "sparsified", "rhode_island", "ipm-nocross", args.full, env={"SEQFORM_BENCH_AS_LIMIT": str(resource_limit)}
        )
    print(markdown(rep))
    return 0


if __name__ == "__main__":
    if "SEQFORM_BENCH_AS_LIMIT" in __import__("os").environ and "--child" in sys.argv:
        lim = int(__import__("os").environ["SEQFORM_BENCH_AS_LIMIT"])
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    sys.exit(main())

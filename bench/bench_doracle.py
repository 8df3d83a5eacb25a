#!/usr/bin/env python3
"""Benchmark double oracle (package ``doracle``) against the full sequence-form LP, side by side.

For each game, in fresh processes (peak memory is each run's own ``ru_maxrss``): the certified
full LP (``seqform.solve``: build + LP + exact certificate) and the exact double oracle
(``doracle.double_oracle``), with their values compared. Bosansky 2019 reports Flip-It at depth 4: LP
23 s against DO 9 s; at depth 5 (16.7 million nodes) LP impossible, DO 508 s.

Usage (from the repository root)::

    python bench/bench_doracle.py                                  # Flip-It depths 3, 4, 5, Leduc, Goofspiel 4
    python bench/bench_doracle.py --games "flipit(depth=3),leduc" --cap 600

Writes ``bench/results/doracle-YYYY-MM-DD.md`` and ``.json`` (``--out-dir``, ``--no-write``).
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

from bench.bench_solve import machine_info, split_games, write_results  # noqa: E402
from bench.isolated import TAG, run_isolated  # noqa: E402

GAMES = "flipit(depth=3),flipit(depth=4),flipit(depth=5),leduc,goofspiel(4)"


def child(job: str, spec: str) -> dict:
    import seqform

    game = seqform.games.load(spec)
    t0 = time.perf_counter()
    if job == "lp":
        sol = seqform.solve(game)
        return {
            "status": "ok",
            "seconds": time.perf_counter() - t0,
            "value": str(sol.value) if sol.certified else None,
            "certified": sol.certified,
            "nodes": sol.sizes["histories"],
            "detail": sol.seconds,
        }
    from doracle import double_oracle

    res = double_oracle(game)
    last = res.history[-1] if res.history else {}
    return {
        "status": "ok",
        "seconds": time.perf_counter() - t0,
        "value": str(res.value) if res.value is not None else None,
        "certified": res.value is not None,
        "iterations": res.iterations,
        "restricted_nodes": last.get("restricted_nodes"),
        "nodes": game.num_nodes_hint(),
    }


def run_child(job: str, spec: str, cap: float, mem_gib: float) -> dict:
    res = run_isolated(
        [str(Path(__file__).resolve()), "--child", job, "--games", spec], cap, {"SEQFORM_MEMORY_LIMIT": str(mem_gib)}
    )
    res.update(job=job, game=spec)
    return res


def report(info: dict, rows: list, mem_gib: float) -> str:
    pk = info.get("packages", {})
    lines = [
        f"# Double oracle against the full LP ({_dt.date.today().isoformat()})",
        "",
        f"Machine: {info.get('cpu')}, {info.get('cores')} cores, {info.get('ram_gib')} GiB; Python "
        f"{info.get('python')}, HiGHS {pk.get('highspy')}. Each run in a fresh process; memory limit "
        f"{mem_gib:g} GiB (SEQFORM_MEMORY_LIMIT); both exact (certified).",
        "",
        "| game | nodes | full LP s | LP peak MiB | DO s | DO peak MiB | DO iterations | restricted nodes | "
        "DO / LP time | values agree |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for lp, do in rows:

        def cell(r, key="seconds"):
            return f"{r[key]:.2f}" if r["status"] == "ok" else f"{r['status']}: {r.get('error', '')}"

        ratio = f"{do['seconds'] / lp['seconds']:.2f}" if lp["status"] == "ok" and do["status"] == "ok" else "-"
        agree = ("yes" if lp.get("value") == do.get("value") else "NO") if lp["status"] == "ok" else "(no LP)"
        nodes = do.get("nodes") or lp.get("nodes")
        lines.append(
            f"| {do['game']} | {nodes:,} | {cell(lp)} | "
            f"{lp['peak_rss_mib']:.0f} | {cell(do)} | {do['peak_rss_mib']:.0f} | {do.get('iterations', '-')} | "
            f"{do.get('restricted_nodes', '-')} | {ratio} | {agree} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--games", default=GAMES)
    ap.add_argument("--cap", type=float, default=1800, help="kill a run after this many seconds")
    ap.add_argument("--memory-gib", type=float, default=20, help="memory limit of each run (GiB)")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if args.child:
        try:
            res = child(args.child, args.games)
        except Exception as e:  # noqa: BLE001  (a refused or failed run is a result too)
            res = {"status": "failed", "error": f"{type(e).__name__}: {e}"[:300]}
        print(TAG + json.dumps(res, default=str), flush=True)
        return 0
    rows = []
    for spec in split_games(args.games):
        print(f"{spec}: full LP, then double oracle", file=sys.stderr, flush=True)
        rows.append(
            (run_child("lp", spec, args.cap, args.memory_gib), run_child("do", spec, args.cap, args.memory_gib))
        )
    text = report(machine_info(), rows, args.memory_gib)
    print(text)
    if not args.no_write:
        stem = write_results(args.out_dir, "doracle", text, {"machine": machine_info(), "rows": rows})
        print(f"wrote {stem}.md and {stem}.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

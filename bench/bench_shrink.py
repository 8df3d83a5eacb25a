#!/usr/bin/env python3
"""Benchmark GameShrink (package ``lossless``) and what it buys.

Every measurement runs in a fresh interpreter (this script re-invoked with ``--child``) so that
its peak memory (``ru_maxrss`` of the child, from ``os.wait4``) is its own.

1. ``shrink``: GameShrink on the full Rhode Island Hold'em signal tree (6,632,705 nodes), the
   lossless abstraction and the paper's own-view variant: time (signal tree, refinement, counting
   sizes and nonzeros), peak memory, sizes before and after (issue target: <= 60 s, 24 GiB).
2. ``lp``: building the shrunk Rhode Island LP's matrices (``lossless.abstractlp``): time and
   memory.
3. ``small``: games small enough to solve both ways: the certified solve of the original game
   against shrink + certified abstract solve (+ lifting and certifying in the original game,
   reported apart), as a ratio.
4. ``ipm`` (only with ``--solve-full SECONDS``): HiGHS's interior point on the shrunk Rhode Island
   LP with that time limit: how far it gets.

No peer implements GameShrink (OpenSpiel and Gambit have no abstraction), so there is no peer
column; the comparison is with solving the unabstracted game.

Usage (from the repository root)::

    python bench/bench_shrink.py                      # everything but the full solve
    python bench/bench_shrink.py --solve-full 3600    # also an hour of IPM on the full LP
    python bench/bench_shrink.py --only small --small "four_card,leduc_os"

Writes ``bench/results/shrink-YYYY-MM-DD.md`` and ``.json`` (``--out-dir``, ``--no-write``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_solve import machine_info, split_games, write_results  # noqa: E402
from bench.isolated import TAG, run_isolated  # noqa: E402

#: an iteration line of HiGHS's interior point (IPX) or PDLP log: a count, then numbers
ITERATION_LINE = re.compile(r"^\s*\d+\s+[-+]?\d\.\d+e[-+]\d+")
SMALL = "leduc_os(ranks=5,suits=2),rhode_island(ranks=2,suits=3),rhode_island(ranks=3,suits=2)"


# ---------------------------------------------------------------------------------------------
# children
# ---------------------------------------------------------------------------------------------


def child(job: str, game_spec: str, mode: str, limit: float, full_method: str = "ipm") -> dict:
    import lossless
    import seqform
    from lossless.abstractlp import abstract_sequence_form
    from lossless.gameshrink import gameshrink
    from lossless.signaltree import build_signal_tree
    from lossless.sizes import report

    game = seqform.games.load(game_spec)
    lossless_mode = mode == "lossless"
    out: dict = {"status": "ok"}
    if job == "shrink":
        t0 = time.perf_counter()
        st = build_signal_tree(game)
        t1 = time.perf_counter()
        ab = gameshrink(game, respect_opponents=lossless_mode, signals=st)
        t2 = time.perf_counter()
        rep = report(ab)
        t3 = time.perf_counter()
        out.update(seconds={"signal_tree": t1 - t0, "refine": t2 - t1, "sizes": t3 - t2, "shrink": t2 - t0}, sizes=rep)
    elif job == "lp":
        t0 = time.perf_counter()
        ab = gameshrink(game, respect_opponents=lossless_mode)
        t1 = time.perf_counter()
        sf = abstract_sequence_form(ab)
        t2 = time.perf_counter()
        from seqform.lp.zerosumlp import lp_matrix

        K = lp_matrix(sf)
        t3 = time.perf_counter()
        out.update(
            seconds={"shrink": t1 - t0, "matrices": t2 - t1, "lp_matrix": t3 - t2},
            shape=list(K.shape),
            nnz=int(K.nnz),
            A_nnz=int(sf.A.nnz),
        )
    elif job == "ipm":
        from seqform.lp.zerosumlp import solve_lp

        ab = gameshrink(game, respect_opponents=lossless_mode)
        sf = abstract_sequence_form(ab)
        log = Path(os.environ.get("SEQFORM_BENCH_LOG", "/tmp")) / "highs-ipm.log"
        t0 = time.perf_counter()
        try:
            opts = {"log_file": str(log), "log_to_console": False}
            if full_method == "ipm":
                opts["run_crossover"] = "off"
            lp = solve_lp(sf, method=full_method, time_limit=limit, verbose=True, options=opts)
            if lp.stopped:  # the time limit: where HiGHS stood is no objective
                raise seqform.SolverError(lp.stopped)
            out.update(objective=lp.value, iterations=lp.iterations)
        except seqform.SolverError as e:
            out.update(status="stopped", error=str(e)[:300])
        out["seconds"] = {"ipm": time.perf_counter() - t0}
        # how far it got: HiGHS's last interior-point iteration line (iteration, objectives, infeasibilities)
        lines = log.read_text(errors="replace").splitlines() if log.exists() else []
        its = [ln.strip() for ln in lines if ITERATION_LINE.match(ln)]
        out["last_log_lines"] = lines[-6:]
        out["last_iteration"] = its[-1] if its else None
    elif job == "original":
        t0 = time.perf_counter()
        sol = seqform.solve(game, method="simplex")
        out.update(
            seconds={"total": time.perf_counter() - t0, **sol.seconds},
            certified=sol.certified,
            value=str(sol.value) if sol.certified else None,
            value_float=sol.value_float,
            sizes=sol.sizes,
        )
    elif job == "shrunk":
        t0 = time.perf_counter()
        res = lossless.solve(game, method="simplex")
        total = time.perf_counter() - t0
        certify = res.seconds.get("certify_original", 0.0)
        out.update(
            seconds={"total": total, "without_original_check": total - certify, **res.seconds},
            certified=res.certified,
            value=str(res.value) if res.certified else None,
            value_float=res.abstract_solution.value_float,
            sizes=res.abstract_solution.sizes,
        )
    return out


# ---------------------------------------------------------------------------------------------
# parent
# ---------------------------------------------------------------------------------------------


def run_child(job: str, game: str, mode: str, cap: float, limit: float = 0.0, full_method: str = "ipm") -> dict:
    res = run_isolated(
        [
            str(Path(__file__).resolve()),
            "--child",
            job,
            "--game",
            game,
            "--mode",
            mode,
            "--limit",
            str(limit),
            "--full-method",
            full_method,
        ],
        cap,
    )
    res.update(job=job, game=game, mode=mode)
    return res


def fmt_s(x) -> str:
    return "-" if x is None else (f"{x:.2f}" if x < 100 else f"{x:.0f}")


def failed_row(r: dict, columns: int) -> str:
    """A table row for a measurement that did not finish: game, mode, then what happened."""
    return f"| {r['game']} | {r['mode']} | {r['status']}: {r.get('error', '')} |" + "|" * (columns - 3)


def report_text(info: dict, records: list) -> str:
    pk = info.get("packages", {})
    lines = [
        f"# GameShrink benchmark ({_dt.date.today().isoformat()})",
        "",
        f"Machine: {info.get('cpu')}, {info.get('cores')} cores, {info.get('ram_gib')} GiB, load "
        f"{info.get('loadavg_start')} at the start; Python {info.get('python')}, numpy {pk.get('numpy')}, "
        f"HiGHS (highspy) {pk.get('highspy')}. One measurement per fresh process; peak MiB is its maximum "
        f"resident memory.",
        "",
    ]

    def shrink_row(r):
        s, z = r["seconds"], r["sizes"]
        return (
            f"| {r['game']} | {r['mode']} | {fmt_s(s['signal_tree'])} | {fmt_s(s['refine'])} | "
            f"{fmt_s(s['shrink'])} | {fmt_s(s['sizes'])} | {r['peak_rss_mib']:.0f} | "
            f"{'-'.join(str(c) for c in z['after']['per_round'][0])} | {z['before']['lp_rows']:,} | "
            f"{z['after']['lp_rows']:,} | {z['after'].get('lp_nonzeros', 0):,} |"
        )

    def lp_row(r):
        s = r["seconds"]
        return (
            f"| {r['game']} | {r['mode']} | {fmt_s(s['shrink'])} | {fmt_s(s['matrices'])} | "
            f"{fmt_s(s['lp_matrix'])} | {r['shape'][0]:,} x {r['shape'][1]:,} | {r['nnz']:,} | "
            f"{r['peak_rss_mib']:.0f} |"
        )

    for job, title, header, row in (
        (
            "shrink",
            "GameShrink on the full signal tree",
            [
                "game",
                "abstraction",
                "signal tree s",
                "refine s",
                "shrink s (target <= 60)",
                "sizes+nnz s",
                "peak MiB",
                "classes per round",
                "LP rows before",
                "LP rows after",
                "LP nonzeros after",
            ],
            shrink_row,
        ),
        (
            "lp",
            "Building the shrunk LP's matrices",
            ["game", "abstraction", "shrink s", "E, F, A s", "LP matrix s", "rows x columns", "nonzeros", "peak MiB"],
            lp_row,
        ),
    ):
        rs = [r for r in records if r["job"] == job]
        if rs:
            lines += [f"## {title}", "", "| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
            lines += [row(r) if r["status"] == "ok" else failed_row(r, len(header)) for r in rs]
            lines.append("")
    ipm = [r for r in records if r["job"] == "ipm"]
    if ipm:
        lines += [
            "## HiGHS on the shrunk LP",
            "",
            "| game | method | status | objective | iterations | seconds | peak MiB | note |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in ipm:
            lines.append(
                f"| {r['game']} | {r.get('method', 'ipm')} | {r['status']} | {r.get('objective', '-')} | "
                f"{r.get('iterations', '-')} | "
                f"{fmt_s(r.get('seconds', {}).get('ipm', r['wall_seconds']))} | {r['peak_rss_mib']:.0f} | "
                f"{r.get('error', '')}; last HiGHS iteration line: `{r.get('last_iteration')}` |"
            )
        lines.append("")
    games = sorted({r["game"] for r in records if r["job"] in ("original", "shrunk")}, key=str)
    if games:
        lines += [
            "## Solving small games both ways (certified)",
            "",
            "| game | histories | abstract histories | original s | shrunk s (shrink + solve) | ratio | "
            "lift + certify in original s | values agree |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for g in games:
            o = next(r for r in records if r["job"] == "original" and r["game"] == g)
            s = next(r for r in records if r["job"] == "shrunk" and r["game"] == g)
            if s["status"] != "ok":
                lines.append(f"| {g} | shrunk: {s['status']} {s.get('error', '')} |||||||")
                continue
            ot = o["seconds"]["total"] if o["status"] == "ok" else None
            st = s["seconds"]["without_original_check"]
            agree = (
                ("yes" if o.get("value") == s.get("value") else "NO")
                if o.get("certified")
                else (
                    f"original not certified (float {o.get('value_float', float('nan')):.9g} vs "
                    f"{s.get('value_float', float('nan')):.9g})"
                    if o["status"] == "ok"
                    else o["status"]
                )
            )
            ratio = f"{ot / st:.0f}x" if ot else "-"
            lines.append(
                f"| {g} | {o.get('sizes', {}).get('histories', '-'):,} | {s['sizes']['histories']:,} | "
                f"{fmt_s(ot)} | {fmt_s(st)} | {ratio} | {fmt_s(s['seconds'].get('certify_original'))} | "
                f"{agree} |"
            )
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--game", default="rhode_island")
    ap.add_argument("--mode", default="lossless", choices=["lossless", "own-view"])
    ap.add_argument("--limit", type=float, default=0.0, help=argparse.SUPPRESS)
    ap.add_argument("--only", default="shrink,lp,small", help="which parts: shrink, lp, small (comma-separated)")
    ap.add_argument("--small", default=SMALL, help="games for the 'small' part")
    ap.add_argument(
        "--solve-full",
        type=float,
        default=None,
        metavar="SECONDS",
        help="also run HiGHS's interior point on the shrunk full LP for this long",
    )
    ap.add_argument(
        "--full-method",
        default="ipm",
        choices=["ipm", "pdlp"],
        help="with --solve-full: HiGHS's interior point (default) or its first-order PDLP",
    )
    ap.add_argument("--cap", type=float, default=1800, help="kill a measurement after this many seconds")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if args.child:
        try:
            res = child(args.child, args.game, args.mode, args.limit, args.full_method)
        except MemoryError:
            res = {"status": "out of memory"}
        print(TAG + json.dumps(res, default=str), flush=True)
        return 0
    parts = set(args.only.split(","))
    info = machine_info()
    records = []
    say = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    if "shrink" in parts:
        for mode in ("lossless", "own-view"):
            say(f"shrink {args.game} ({mode})")
            records.append(run_child("shrink", args.game, mode, args.cap))
    if "lp" in parts:
        for mode in ("lossless", "own-view"):
            say(f"LP matrices of {args.game} ({mode})")
            records.append(run_child("lp", args.game, mode, args.cap))
    if args.solve_full:
        say(f"{args.full_method} on {args.game} for {args.solve_full:g} s")
        rec = run_child("ipm", args.game, "lossless", args.solve_full + 900, args.solve_full, args.full_method)
        rec["method"] = args.full_method
        records.append(rec)
    if "small" in parts:
        for g in split_games(args.small):
            for job in ("original", "shrunk"):
                say(f"{job} {g}")
                records.append(run_child(job, g, "lossless", args.cap))
    text = report_text(info, records)
    print(text)
    if not args.no_write:
        stem = write_results(args.out_dir, "shrink", text, {"machine": info, "records": records})
        say(f"wrote {stem}.md and {stem}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())

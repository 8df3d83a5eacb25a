#!/usr/bin/env python3
"""Rhode Island Hold'em decks solved exactly and certified in the original game, deck by deck.

For each deck, ``lossless.solve`` in a fresh process (``bench/isolated.py``: its own peak
memory, killed at ``--cap`` seconds): GameShrink's lossless abstraction, the abstract LP built
from the classes without a game tree, HiGHS, the optimal basis solved in rationals, and the
lifted strategies certified in the ORIGINAL game by exact best responses over its public tree
(``lossless.publicbestresponse``), never building the original game tree. A deck counts as
certified only when both exact best responses meet.

Usage (from the repository root)::

    python bench/bench_exact_decks.py                              # (3,2), (4,3), (4,4)
    python bench/bench_exact_decks.py --decks 3x2,4x4,5x4 --cap 3600 --method ipm

Writes ``bench/results/exact-decks-DAY.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.isolated import TAG, run_isolated  # noqa: E402
from bench.report import finish, start  # noqa: E402


def child(ranks: int, suits: int, method: str) -> None:
    import lossless
    from lossless.shrink import solve

    t0 = time.perf_counter()
    game = lossless.rhode_island(ranks=ranks, suits=suits)
    res = solve(
        game, method=method, progress=lambda m: print(f"[{time.perf_counter() - t0:8.1f}s] {m}", file=sys.stderr)
    )
    sizes = res.shrunk.sizes
    out = {
        "status": "ok",
        "deck": f"{ranks}x{suits}",
        "certified": bool(res.certified),
        "value": None if res.value is None else str(res.value),
        "value_float": None if res.value is None else float(res.value),
        "seconds": {k: round(float(v), 3) for k, v in res.seconds.items()},
        "abstract_seconds": {k: round(float(v), 3) for k, v in res.abstract_solution.seconds.items()},
        "abstract_lp_method": res.abstract_solution.method,
        "total_seconds": time.perf_counter() - t0,
        "original_nodes": sizes["before"].get("game_tree_nodes"),
        "abstract_lp_rows": sizes["after"].get("lp_rows"),
        "method": res.method,
    }
    print(TAG + json.dumps(out))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--decks", default="3x2,4x3,4x4", help="comma-separated RANKSxSUITS")
    ap.add_argument("--cap", type=float, default=3600.0, help="seconds per deck")
    ap.add_argument("--method", default="auto", help="the abstract LP's HiGHS method (seqform.solve's)")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--child", nargs=3, metavar=("RANKS", "SUITS", "METHOD"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(int(args.child[0]), int(args.child[1]), args.child[2])
        return 0
    day, out, lines = start(args.out_dir, "Rhode Island decks solved exactly, certified in the original game")
    lines += [f"- load average at start: {', '.join(f'{v:.2f}' for v in os.getloadavg())}", ""]
    rows = []
    for deck in args.decks.split(","):
        r, s = (int(v) for v in deck.lower().split("x"))
        print(f"rhode_island({r},{s}) ...", file=sys.stderr)
        res = run_isolated(["bench/bench_exact_decks.py", "--child", str(r), str(s), args.method], args.cap, echo=True)
        res["deck"] = deck
        res["load_after"] = os.getloadavg()[0]
        rows.append(res)
    lines += [
        "Each deck in a fresh process; seconds are wall clock inside it (`total`), by step: "
        "the abstract game's tree built and its LP solved by HiGHS (`HiGHS s`, the method in brackets) "
        "and certified exactly (`abstract certificate s`: its basis in rationals and exact best "
        "responses), then the lifted strategies certified in the original game over its public tree "
        "(`original certificate s`). Peak: the process's RSS.",
        "",
        "| deck | original game nodes | abstract LP rows | certified | value (player 0) | total s | HiGHS s | "
        "abstract certificate s | original certificate s | peak MiB | load after |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        secs, abstract = r.get("seconds", {}), r.get("abstract_seconds", {})
        lines.append(
            f"| {r['deck']} | {r.get('original_nodes', 0):,} | {r.get('abstract_lp_rows', 0):,} | "
            f"{'yes' if r.get('certified') else r.get('status')} | {r.get('value_float', '-')} | "
            f"{r.get('total_seconds', r.get('wall_seconds', 0)):.1f} | {abstract.get('solve', '-')} "
            f"({r.get('abstract_lp_method', '-')}) | {abstract.get('certify', '-')} | "
            f"{secs.get('certify_original', '-')} | {r.get('peak_rss_mib', 0):.0f} | "
            f"{r['load_after']:.2f} |"
        )
    lines += ["", "Exact values:", ""] + [f"- {r['deck']}: `{r.get('value')}`" for r in rows if r.get("value")]
    finish(out, f"exact-decks-{day}", lines, {"rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Benchmark exact Nash equilibria of two-player general-sum games: seqform's sequence-form LCP
against pygambit's ``lcp_solve`` (the sequence form and Lemke too), rational and float, in one run.

For each game, one run each, one after the other (never two timed things at once):

* seqform: ``seqform.solve(game, method="lcp")`` end to end: compile, the LCP (path in floating
  point, final basis solved exactly), and the certificate by exact best responses;
* pygambit: the game written by seqform's ``.efg`` writer, then ``gbt.read_efg`` and
  ``gbt.nash.lcp_solve(game, rational=R, use_strategic=False)`` in a child process killed after
  ``--timeout`` seconds (reported as "> T s"); the time is measured inside the child, around
  ``read_efg`` + ``lcp_solve``.

Ratios are pygambit's time over seqform's (above 1: seqform faster). Issue 24's target: at
least 50x from 1,000 sequences per player up.

Usage (from the repository root)::

    python bench/bench_lcp.py                                # the default ladder, 300 s limit
    python bench/bench_lcp.py --games threat_general_sum "leduc(ranks=2,rake=5)" --timeout 60

Writes ``bench/results/lcp-YYYY-MM-DD.md`` and ``.json`` (``--out-dir``, ``--no-write``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_solve import machine_info  # noqa: E402

# leduc(ranks=5,rake=5) (3,221 sequences each) did not finish in 9 minutes on this machine (2026-11-25)
LADDER = ["threat_general_sum", "leduc(ranks=2,rake=5)", "leduc(rake=5)", "leduc(ranks=4,rake=5)"]

_CHILD = r"""
import json, sys, time
import pygambit as gbt
path, rational = sys.argv[1], sys.argv[2] == "1"
t0 = time.perf_counter()
game = gbt.read_efg(path)
t1 = time.perf_counter()
res = gbt.nash.lcp_solve(game, rational=rational, use_strategic=False)
t2 = time.perf_counter()
print(json.dumps({"read_s": t1 - t0, "solve_s": t2 - t1, "equilibria": len(res.equilibria)}))
"""


def pygambit_run(efg: Path, rational: bool, timeout: float) -> dict:
    try:
        r = subprocess.run(
            [sys.executable, "-c", _CHILD, str(efg), "1" if rational else "0"],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": None}
    if r.returncode != 0:
        return {"status": "error", "seconds": None, "error": (r.stderr.strip().splitlines() or ["?"])[-1][:200]}
    out = json.loads(r.stdout.strip().splitlines()[-1])
    return {"status": "ok", "seconds": out["read_s"] + out["solve_s"], **out}


def run(games: list, timeout: float, qpe: bool = False, pygambit: bool = True, on_row=None) -> list:
    import seqform
    from seqform.io.efgwrite import efg_string
    from seqform.io.gamespec import load_game  # built-in names, openspiel:NAME, FILE.efg

    rows = []
    seqform.solve(seqform.games.load("threat_general_sum"), method="lcp")  # imports and registry, untimed
    for spec in games:
        game = load_game(spec)
        tree = seqform.compile_tree(game)
        t0 = time.perf_counter()
        sol = seqform.solve(game, method="lcp")
        t_ours = time.perf_counter() - t0
        row = {
            "game": spec,
            "sequences": list(tree.num_sequences),
            "seqform_s": t_ours,
            "certified": sol.certified,
            "pivots": sol.pivots,
            "lcp_path": sol.lcp_path,
            "values": [str(v) for v in sol.values],
        }
        print(f"{spec}: seqform {t_ours:.2f} s ({sol.pivots:,} pivots, certified {sol.certified})", file=sys.stderr)
        if qpe:  # the exact quasi-perfect limit (perturbed LCP), certified by its definition
            import refinements

            t0 = time.perf_counter()
            ref = refinements.qpe(load_game(spec))
            row["qpe_s"], row["qpe_certified"] = time.perf_counter() - t0, ref.certified
            print(f"  qpe: {row['qpe_s']:.2f} s, certified {ref.certified}", file=sys.stderr)
        if not pygambit:
            rows.append(row)
            if on_row:
                on_row(rows)
            continue
        with tempfile.TemporaryDirectory() as d:
            efg = Path(d) / "game.efg"
            efg.write_text(efg_string(tree))
            for rational in (True, False):
                key = "pygambit_rational" if rational else "pygambit_float"
                row[key] = pygambit_run(efg, rational, timeout)
                print(f"  {key}: {row[key]}", file=sys.stderr)
        rows.append(row)
        if on_row:
            on_row(rows)
    return rows


def _cell(res: dict, ours: float, timeout: float) -> tuple:
    if res["status"] == "timeout":
        return f"> {timeout:.0f} s", f"> {timeout / ours:,.0f}x"
    if res["status"] == "error":
        return f"error: {res['error']}", "-"
    return f"{res['seconds']:.3g} s", f"{res['seconds'] / ours:,.3g}x"


def markdown(rows: list, timeout: float, command: str) -> str:
    info = machine_info()
    lines = [
        f"# Exact Nash equilibria of general-sum games: seqform's LCP vs pygambit's lcp_solve "
        f"({_dt.date.today().isoformat()})",
        "",
        f"Command: `{command}`",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in info.items()),
        "",
        'seqform: `seqform.solve(game, method="lcp")` end to end (compile, Lemke\'s path in floating point, '
        "the final basis solved exactly, exact best responses). pygambit: `read_efg` + "
        f"`lcp_solve(use_strategic=False)` on the game as our `.efg` writer writes it, in a child process "
        f"killed after {timeout:.0f} s. Ratio: pygambit's time over seqform's (above 1: seqform faster). "
        "One run each, sequentially.",
        "",
        "| game | sequences per player | seqform | pivots | certified | pygambit rational | ratio | "
        "pygambit float | ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    if "pygambit_rational" not in rows[0]:
        lines[-2:] = [
            "| game | sequences per player | seqform Nash | pivots | certified | seqform QPE | certified |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(
                f"| {r['game']} | {r['sequences'][0]:,} / {r['sequences'][1]:,} | {r['seqform_s']:.2f} s | "
                f"{r['pivots']:,} | {r['certified']} | "
                + (f"{r['qpe_s']:.2f} s | {r['qpe_certified']} |" if "qpe_s" in r else "- | - |")
            )
        return "\n".join(lines) + "\n"
    for r in rows:
        rat, rr = _cell(r["pygambit_rational"], r["seqform_s"], timeout)
        flo, fr = _cell(r["pygambit_float"], r["seqform_s"], timeout)
        lines.append(
            f"| {r['game']} | {r['sequences'][0]:,} / {r['sequences'][1]:,} | {r['seqform_s']:.2f} s | "
            f"{r['pivots']:,} | {r['certified']} | {rat} | {rr} | {flo} | {fr} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=LADDER)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds before a pygambit run is killed")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--qpe", action="store_true", help="also time the exact quasi-perfect limit (refinements.qpe)")
    ap.add_argument("--no-pygambit", action="store_true", help="seqform only")
    ap.add_argument("--tag", default="", help="a suffix for the result files' names")
    args = ap.parse_args(argv)
    command = (
        "python bench/bench_lcp.py"
        + ("" if args.games == LADDER else " --games " + " ".join(f'"{g}"' for g in args.games))
        + ("" if args.timeout == 300 else f" --timeout {args.timeout:g}")
        + (" --qpe" if args.qpe else "")
        + (" --no-pygambit" if args.no_pygambit else "")
        + (f" --tag {args.tag}" if args.tag else "")
    )
    stem = Path(args.out_dir) / f"lcp-{_dt.date.today().isoformat()}{'-' + args.tag if args.tag else ''}"

    def write(rows: list) -> None:  # after every game: a stopped run keeps what it measured
        if args.no_write:
            return
        stem.parent.mkdir(parents=True, exist_ok=True)
        done = (
            ""
            if len(rows) == len(args.games)
            else (f"\n(Partial: {len(rows)} of {len(args.games)} games measured so far.)\n")
        )
        stem.with_suffix(".md").write_text(markdown(rows, args.timeout, command) + done)
        stem.with_suffix(".json").write_text(
            json.dumps({"timeout": args.timeout, "command": command, "rows": rows}, indent=1)
        )

    rows = run(args.games, args.timeout, args.qpe, not args.no_pygambit, on_row=write)
    print(markdown(rows, args.timeout, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())

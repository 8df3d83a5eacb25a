#!/usr/bin/env python3
"""Benchmark exact refined equilibria (``refinements.efpe`` / ``qpe``) against the certified Nash LP.

For each game, in one process, best of ``--repeat`` runs each: the certified Nash solve
(``seqform.solve``, build + LP + exact certificate) and the exact EFPE and QPE limits (build +
trembling-LP search + exact certificate, default options: no ``cross_check``); the bench itself
compares the refined values with the Nash solve's. Ratios: refinement time / certified Nash time
(issue target: <= 10 on Leduc). A second table compares the plain LP solution's largest
information-set regret (Kroer, Farina & Sandholm (2017)'s measure, at the information sets it reaches) with the refined
ones' (exact, at every information set).

Usage (from the repository root)::

    python bench/bench_refine.py                         # leduc and leduc(ranks=5)
    python bench/bench_refine.py --games kuhn,leduc --repeat 3

Writes ``bench/results/refine-YYYY-MM-DD.md`` and ``.json`` (``--out-dir``, ``--no-write``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_solve import machine_info, split_games, write_results  # noqa: E402


def best_of(repeat: int, fn):
    best, out = None, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best, out


def run(games: list, repeat: int) -> list:
    import refinements
    import seqform

    rows = []
    for spec in games:
        tree = seqform.compile_tree(seqform.games.load(spec))
        t_nash, nash = best_of(repeat, lambda: seqform.solve(seqform.games.load(spec)))
        plain = seqform.infoset_regret(nash.tree, nash.profile)
        row = {
            "game": spec,
            "sizes": tree.sizes(),
            "nash_certified_s": t_nash,
            "value": str(nash.value),
            "plain_max_regret": plain.max_regret,
            "plain_positive": plain.count_positive(1e-9),
            "plain_reached": int(plain.reached.sum()),
            "infosets": int(len(tree.infoset_player)),
        }
        for concept in ("efpe", "qpe"):
            t, sol = best_of(repeat, lambda: refinements.refine(seqform.games.load(spec), concept))
            row[concept] = {
                "seconds": t,
                "certified": sol.certified,
                "value_matches": sol.value == nash.value,
                "max_regret": str(sol.max_infoset_regret),
                "positive": sol.positive_regret_infosets,
                "basis_eps": str(sol.basis_eps),
                "breakdown": sol.seconds,
            }
            print(f"{spec} {concept}: {t:.2f} s, certified={sol.certified}", file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def markdown(rows: list, info: dict, argv: list) -> str:
    out = [
        f"# refinements benchmark, {info['date']}",
        "",
        f"- machine: {info.get('cpu', '?')}, {info.get('cores', '?')} cores, {info.get('ram_gib', '?')} GiB RAM; "
        f"load average at start {', '.join(f'{x:.2f}' for x in info['loadavg_start'])}",
        f"- command: `bench_refine.py {' '.join(argv)}`",
        "- times: wall clock in one process, best of the repeats; a refinement's run (`refinements.efpe` / "
        "`qpe`, default options) includes building the game and its exact certificate (exact best responses "
        "meet, every information-set regret exactly zero); 'value = Nash' compares its value with the "
        "certified Nash solve's, computed apart",
        "",
        "| game | certified Nash s | EFPE exact s | EFPE / Nash | QPE exact s | "
        "QPE / Nash | both certified, value = Nash | basis eps (EFPE, QPE) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        e, q = r["efpe"], r["qpe"]
        ok = e["certified"] and q["certified"] and e["value_matches"] and q["value_matches"]
        out.append(
            f"| {r['game']} | {r['nash_certified_s']:.3f} | {e['seconds']:.2f} | "
            f"{e['seconds'] / r['nash_certified_s']:.1f}x | {q['seconds']:.2f} | "
            f"{q['seconds'] / r['nash_certified_s']:.1f}x | {ok} | "
            f"{e['basis_eps']}, {q['basis_eps']} |"
        )
    out += [
        "",
        "## Information-set regret: plain LP versus refined",
        "",
        "| game | information sets | plain LP: max regret | plain LP: infosets with regret > 1e-9 (of reached) | "
        "EFPE max regret (exact, all) | QPE max regret (exact, all) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['game']} | {r['infosets']} | {r['plain_max_regret']:.4g} | {r['plain_positive']} "
            f"(of {r['plain_reached']}) | {r['efpe']['max_regret']} | {r['qpe']['max_regret']} |"
        )
    out += ["", "## Where the refinement's time goes (seconds)", "", "| game | concept | breakdown |", "|---|---|---|"]
    for r in rows:
        for c in ("efpe", "qpe"):
            out.append(
                f"| {r['game']} | {c} | " + ", ".join(f"{k} {v:.2f}" for k, v in r[c]["breakdown"].items()) + " |"
            )
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="leduc,leduc(ranks=5)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    info = machine_info()
    info["date"] = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    rows = run(split_games(args.games), args.repeat)
    info["loadavg_end"] = list(os.getloadavg())
    md = markdown(rows, info, sys.argv[1:] if argv is None else argv)
    print(md)
    if not args.no_write:
        write_results(args.out_dir, "refine", md, {"machine": info, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Benchmark exact solves of zero-sum games whose payoffs span more magnitudes than a float LP
resolves: seqform (HiGHS, then the exact simplex from HiGHS's basis when that basis fails its
exact check) against pygambit's rational sequence-form LP (``lp_solve(rational=True)``), the
one peer that solves in exact arithmetic, in one run.

Each game is a built-in game with every outcome's payoffs multiplied by 10^k, k drawn (seeded)
from {0, 0, 1, 3, 8, 16, 50, 150, 300} up to ``--top``: single digits beside 10^16 or 10^300 in
one game.

* seqform: ``seqform.solve(game, method="simplex")`` end to end, in this process: the LP, its
  exact check, the repair and the certificate by exact best responses;
* pygambit: the same ``.efg`` file, ``gbt.read_efg`` + ``gbt.nash.lp_solve(game, rational=True)``
  in a child process killed after ``--timeout`` seconds; its value is compared with ours exactly.

Usage (from the repository root)::

    python bench/bench_wide_payoffs.py                       # the default ladder, 600 s limit
    python bench/bench_wide_payoffs.py --games kuhn --tops 16 --timeout 60

Writes ``bench/results/wide-payoffs-YYYY-MM-DD.md`` and ``.json`` (``--out-dir``, ``--no-write``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_solve import machine_info  # noqa: E402  (after the sys.path line above)

LADDER = ["kuhn", "liars_dice(1,2)", "liars_dice(1,3)", "leduc(ranks=2)", "leduc"]
EXPONENTS = (0, 0, 1, 3, 8, 16, 50, 150, 300)

_CHILD = r"""
import json, sys, time
import pygambit as gbt
t0 = time.perf_counter()
game = gbt.read_efg(sys.argv[1])
res = gbt.nash.lp_solve(game, rational=True)
t1 = time.perf_counter()
print(json.dumps({"seconds": t1 - t0, "value": str(res.equilibria[0].payoff(list(game.players)[0]))}))
"""


def widened_efg(spec: str, top: int, seed: int) -> str:
    """The ``.efg`` text of built-in game ``spec`` with each outcome's payoffs times 10^k, k drawn
    from ``EXPONENTS`` up to ``top`` (``random.Random(seed)``)."""
    from seqform.io.efgwrite import efg_string
    from seqform.io.gamespec import load_game

    rng = random.Random(seed)
    ks = [k for k in EXPONENTS if k <= top]

    def times(m: re.Match) -> str:
        scale = 10 ** rng.choice(ks)
        return m.group(1) + "{ " + ", ".join(str(Fraction(v) * scale) for v in m.group(2).split(",")) + " }"

    return re.sub(r'^(t "[^"]*" \d+ "[^"]*" )\{ ([^}]*) \}', times, efg_string(load_game(spec)), flags=re.MULTILINE)


def pygambit_run(efg: Path, timeout: float) -> dict:
    try:
        r = subprocess.run(
            [sys.executable, "-c", _CHILD, str(efg)], capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": None}
    if r.returncode != 0:
        return {"status": "error", "seconds": None, "error": (r.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return {"status": "ok", **json.loads(r.stdout.strip().splitlines()[-1])}


def run(games: list, tops: list, seed: int, timeout: float, pygambit: bool, tmp: Path) -> list:
    import seqform
    from seqform.io.efgread import parse_efg

    rows = []
    for spec in games:
        for top in tops:
            text = widened_efg(spec, top, seed)
            path = tmp / f"{re.sub(r'[^a-z0-9]+', '_', spec)}_{top}.efg"
            path.write_text(text)
            game = parse_efg(text, str(path))
            t0 = time.perf_counter()
            sol = seqform.solve(game, method="simplex")
            secs = time.perf_counter() - t0
            note = sol.certificate.note
            pivots = re.search(r"in ([\d,]+) pivots", note)
            row = {
                "game": spec,
                "top": top,
                "seed": seed,
                "sequences": int(sum(sol.sizes["sequences"])),
                "certified": sol.certified,
                "method": sol.method,
                "value": str(sol.value),
                "pivots": int(pivots.group(1).replace(",", "")) if pivots else 0,
                "seconds": secs,
                "lp_seconds": sol.seconds.get("solve"),
                "certify_seconds": sol.seconds.get("certify"),
            }
            if pygambit:
                g = pygambit_run(path, timeout)
                g["agrees"] = g.get("value") is not None and Fraction(g["value"]) == sol.value
                row["pygambit"] = g
            print(json.dumps(row), file=sys.stderr)
            rows.append(row)
    return rows


def markdown(rows: list, info: dict, args) -> str:
    out = [
        f"# Exact solves with payoffs from 1 to 10^top ({info['date']})",
        "",
        (
            f"`python bench/bench_wide_payoffs.py --games {' '.join(args.games)} --tops "
            f"{' '.join(map(str, args.tops))} --seed {args.seed} --timeout {args.timeout:g}` on {info['cpu']}, "
            f"{info['cores']} cores"
        ),
        "",
        (
            "| game | top | sequences | seqform | exact-simplex pivots | seqform s | pygambit rational s | "
            "pygambit / seqform | values agree |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        g = r.get("pygambit", {})
        gs = (
            f"{g['seconds']:.1f}"
            if g.get("seconds")
            else (f"> {args.timeout:g}" if g.get("status") == "timeout" else g.get("status", "not run"))
        )
        ratio = (
            f"{g['seconds'] / r['seconds']:.3g}x"
            if g.get("seconds")
            else (f">{args.timeout / r['seconds']:.2g}x" if g.get("status") == "timeout" else "")
        )
        how = ("certified" if r["certified"] else "bracket") + f" ({r['method']})"
        agree = "yes" if g.get("agrees") else ("no" if g.get("status") == "ok" else "")
        out.append(
            f"| {r['game']} | 10^{r['top']} | {r['sequences']:,} | {how} | {r['pivots']:,} | "
            f"{r['seconds']:.1f} | {gs} | {ratio} | {agree} |"
        )
    out += [
        "",
        "seqform's values are certified: its plans' exact best responses meet at the value. \"no\": "
        "pygambit's rational LP returned another value. Times are wall-clock seconds of one run each.",
    ]
    if args.note:
        out += ["", args.note]
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=LADDER)
    ap.add_argument("--tops", nargs="+", type=int, default=[16, 300])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds pygambit may take per game")
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--from-json", metavar="FILE", help="rewrite the table of a saved run instead of running")
    ap.add_argument("--note", default="", help="a line about the conditions of the run, printed under the table")
    args = ap.parse_args(argv)
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text())
        md = markdown(saved["rows"], saved["machine"], args)
        Path(args.from_json).with_suffix(".md").write_text(md)
        print(md)
        return 0
    info = machine_info()
    info["date"] = _dt.date.today().isoformat()
    with tempfile.TemporaryDirectory() as tmp:
        rows = run(args.games, args.tops, args.seed, args.timeout, not args.skip_peers, Path(tmp))
    md = markdown(rows, info, args)
    print(md)
    if not args.no_write:
        stem = Path(args.out_dir) / f"wide-payoffs-{info['date']}"
        stem.with_suffix(".json").write_text(json.dumps({"machine": info, "rows": rows}, indent=1))
        stem.with_suffix(".md").write_text(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())

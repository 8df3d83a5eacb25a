#!/usr/bin/env python3
"""Benchmark issue 25's target: a certified bracket of Rhode Island Hold'em's value through its
lossless GameShrink abstraction, by CFR+ in vector form (``lossless.vectorcfr``) with
vector-form best responses (``lossless.vectorbestresponse``), never forming the payoff matrix.

Steps, each timed, in one process: GameShrink (``lossless.shrink``, without building the abstract
game), the sequence numbering (``lossless.sequencelayout``), the card matrices
(``lossless.cardmatrices``: their nonzeros are the whole card part of the game), one bracket of
the uniform profile (two best responses), then CFR+ until ``--seconds`` or ``--target-width``,
bracketing the average profile every ``--bracket-every`` iterations. The files are rewritten
after every bracket, so a stopped run keeps what it measured. Peak memory is the process's
maximum resident set.

Issue 25's target: width at most 1e-3 chips within 2 hours on this machine.

Usage (from the repository root)::

    python bench/bench_rhode_island.py --seconds 7200                 # the target run
    python bench/bench_rhode_island.py --game "rhode_island(ranks=3,suits=2)" --seconds 60 --tag small

Writes ``bench/results/rhode-island-YYYY-MM-DD[-TAG].md`` and ``.json``.
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


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def markdown(rep: dict) -> str:
    s = rep["setup"]
    lines = [
        f"# {rep['game']}: a certified bracket of the value by CFR+ in vector form ({rep['date']})",
        "",
        f"Command: `{rep['command']}`",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in rep["machine"].items()),
        "",
        "## Set-up",
        "",
        "| step | seconds | note |",
        "|---|---|---|",
        f"| GameShrink (lossless) | {s['shrink_s']:.1f} | classes per round {s['classes']} |",
        f"| sequence numbering | {s['layout_s']:.1f} | sequences {s['sequences'][0]:,} / {s['sequences'][1]:,} |",
        f"| card matrices | {s['cards_s']:.1f} | {s['card_nnz']:,} nonzeros (today's LP: {s['lp_nnz_note']}) |",
        f"| bracket of the uniform profile | {s['uniform_bracket_s']:.2f} | [{s['uniform_lower']:.6f}, "
        f"{s['uniform_upper']:.6f}] |",
        "",
        f"## {rep['algorithm']}: the average profile's bracket",
        "",
        "| iteration | seconds | lower | upper | width |",
        "|---|---|---|---|---|",
    ]
    for it, sec, lo, up in rep["history"]:
        lines.append(f"| {it:,} | {sec:.0f} | {lo:.9f} | {up:.9f} | {up - lo:.3g} |")
    lines += [
        "",
        f"Peak resident memory: {rep['peak_mib']:.0f} MiB. Stopped: {rep['stopped'] or 'running'}.",
        "",
        "A bracket's bounds are rigorous: each best response is computed in float64 with a bound on "
        "its rounding error (`lossless.vectorbestresponse`), subtracted from the lower and added to the "
        "upper end, so `lower <= value <= upper` holds for the exact game value.",
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="rhode_island")
    ap.add_argument("--seconds", type=float, default=7200.0)
    ap.add_argument("--iterations", type=int, default=None)
    ap.add_argument("--bracket-every", type=int, default=200)
    ap.add_argument("--target-width", type=float, default=None)
    ap.add_argument("--tag", default="")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    import numpy as np

    import lossless
    from lossless.cardmatrices import card_matrices
    from lossless.sequencelayout import sequence_layout
    from lossless.vectorbestresponse import bracket
    from lossless.vectorcfr import cfr_plus
    from seqform.io.gamespec import load_game

    command = "python bench/bench_rhode_island.py" + " ".join(
        [""]
        + ([f'--game "{args.game}"'] if args.game != "rhode_island" else [])
        + [f"--seconds {args.seconds:g}"]
        + ([f"--iterations {args.iterations}"] if args.iterations else [])
        + ([f"--bracket-every {args.bracket_every}"] if args.bracket_every != 200 else [])
        + ([f"--target-width {args.target_width:g}"] if args.target_width else [])
        + ([f"--tag {args.tag}"] if args.tag else [])
    )
    stem = Path(args.out_dir) / f"rhode-island-{_dt.date.today().isoformat()}{'-' + args.tag if args.tag else ''}"
    rep = {
        "game": args.game,
        "date": _dt.date.today().isoformat(),
        "command": command,
        "machine": machine_info(),
        "algorithm": "CFR+",
        "history": [],
        "stopped": "",
        "peak_mib": 0.0,
    }

    def write() -> None:
        rep["peak_mib"] = peak_mib()
        if args.no_write:
            return
        stem.parent.mkdir(parents=True, exist_ok=True)
        stem.with_suffix(".md").write_text(markdown(rep))
        stem.with_suffix(".json").write_text(json.dumps(rep, indent=1))

    game = load_game(args.game)
    t = time.perf_counter()
    sh = lossless.shrink(game, nonzeros=False, build_abstract=False)
    shrink_s = time.perf_counter() - t
    t = time.perf_counter()
    lay = sequence_layout(sh.abstraction)
    layout_s = time.perf_counter() - t
    t = time.perf_counter()
    cards = card_matrices(lay)
    cards_s = time.perf_counter() - t
    t = time.perf_counter()
    b = bracket(lay, np.ones(lay.num_sequences[0]), np.ones(lay.num_sequences[1]), cards)
    rep["setup"] = {
        "shrink_s": shrink_s,
        "layout_s": layout_s,
        "cards_s": cards_s,
        "card_nnz": cards.nnz,
        "classes": "-".join(str(n) for n in lay.ncls[0]),
        "sequences": lay.num_sequences,
        "lp_nnz_note": "130,629,332 for full Rhode Island, bench/results/shrink-2026-11-22.md"
        if args.game == "rhode_island"
        else "see bench_shrink.py",
        "uniform_bracket_s": time.perf_counter() - t,
        "uniform_lower": b.lower,
        "uniform_upper": b.upper,
    }
    print(
        f"set-up: shrink {shrink_s:.1f} s, layout {layout_s:.1f} s, cards {cards_s:.1f} s "
        f"({cards.nnz:,} nonzeros), uniform bracket [{b.lower:.4f}, {b.upper:.4f}]",
        file=sys.stderr,
        flush=True,
    )
    write()

    def on_bracket(row: dict) -> None:
        rep["history"].append((row["iteration"], row["seconds"], row["lower"], row["upper"]))
        print(
            f"  iteration {row['iteration']:,}: {row['seconds']:.0f} s, [{row['lower']:.9f}, {row['upper']:.9f}] "
            f"width {row['width']:.3g}",
            file=sys.stderr,
            flush=True,
        )
        write()

    try:
        res = cfr_plus(
            lay,
            iterations=args.iterations,
            seconds=args.seconds,
            cards=cards,
            bracket_every=args.bracket_every,
            target_width=args.target_width,
            progress=on_bracket,
        )
        rep["stopped"] = res.stopped
    except KeyboardInterrupt:
        rep["stopped"] = "interrupted (Ctrl-C)"
        write()
        return 130
    write()
    print(markdown(rep))
    return 0


if __name__ == "__main__":
    sys.exit(main())

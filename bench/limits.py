"""How fast, and in how little memory, each memory-limit refusal comes: every source of a game
that would not fit, and every solver's tables, through the command line as a user runs it.

Each row runs ``seqform ...`` in a fresh process, alone, and records its wall time, its peak
resident memory (``ru_maxrss`` of that child), its exit status and the first words of its one
line on standard error. The large ``.efg`` files are generated into a temporary folder: a chance
tree whose chance nodes share one chance set and whose leaves share one outcome (the tersest text
per node, so the hardest for a size estimate).

    python bench/limits.py                      # the table on standard output
    python bench/limits.py --out bench/results/limits-DATE.md
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def chance_tree(path: Path, branching: int, depth: int) -> int:
    """Write the terse chance tree; return its number of nodes (sum of branching**k, k <= depth)."""
    probs = " ".join(f'"{k}" 1/{branching}' for k in range(branching))
    with open(path, "w") as f:
        f.write(f'EFG 2 R "wide" {{ "A" "B" }}\n""\nc "" 1 "" {{ {probs} }} 0\n')
        first = [True]

        def below(d: int) -> None:
            for _ in range(branching):
                if d == 1:
                    f.write('t "" 1 "" { 1, -1 }\n' if first[0] else 't "" 1\n')
                    first[0] = False
                else:
                    f.write('c "" 1 0\n')
                    below(d - 1)

        below(depth)
    return sum(branching**k for k in range(depth + 1))


def rows(folder: Path) -> list[tuple[str, list[str], dict]]:
    """(what is refused, the command's arguments, extra environment)."""
    big = folder / "wide7.efg"
    nodes = chance_tree(big, 10, 7)
    return [
        (
            f".efg file, {nodes:,} nodes ({big.stat().st_size / 2**20:.0f} MiB)",
            ["info", str(big), "--memory-limit", "1"],
            {},
        ),
        (
            "OpenSpiel, Liar's dice with 2 dice",
            ["info", "openspiel:liars_dice(numdice=2)", "--memory-limit", "0.1"],
            {},
        ),
        ("OpenSpiel, 3-player Leduc", ["info", "openspiel:leduc_poker(players=3)", "--memory-limit", "0.1"], {}),
        ("full Rhode Island, the LP", ["solve", "rhode_island"], {}),
        ("full Rhode Island, `shrink --solve`", ["shrink", "rhode_island", "--solve"], {}),
        ("a built-in game's set-up, `liars_dice(2,6)`", ["info", "liars_dice(2,6)"], {}),
        ("a 3^(10^6)-node grid game", ["solve", "grid_game(size=1000)"], {}),
        (
            "MCCFR's tables on Leduc-5",
            ["verify", "es-mccfr", "leduc(ranks=5)", "--iterations", "1000", "--memory-limit", "0.046"],
            {},
        ),
        (
            "vector-form CFR+ on Rhode Island (6,2)",
            ["shrink", "rhode_island(ranks=6,suits=2)", "--cfr", "5", "--memory-limit", "0.01"],
            {},
        ),
    ]


def measure(argv: list[str], env: dict) -> tuple[float, int, int, str]:
    """(wall seconds, peak RSS in bytes, exit status, stderr's first line) of ``seqform ARGV``,
    measured in a child that runs it (``RUSAGE_CHILDREN`` there is this one command's peak)."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "w = time.perf_counter() - t\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
        "line = (r.stderr.strip().splitlines() or [''])[-1]\n"
        "print(w, peak, r.returncode, line, sep='\\t')\n"
    )
    full = {k: v for k, v in os.environ.items() if k != "SEQFORM_MEMORY_LIMIT"} | env
    out = subprocess.run(
        [sys.executable, "-c", probe, sys.executable, "-m", "seqform", *argv, "--quiet"],
        capture_output=True,
        text=True,
        env=full,
        check=True,
    ).stdout
    wall, peak, status, line = out.rstrip("\n").split("\t", 3)
    return float(wall), int(peak), int(status), line


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the markdown table here too")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        table = [
            "| refused | command | wall | peak RSS | status | what it says |",
            "|---|---|---|---|---|---|",
        ]
        for what, argv, env in rows(Path(tmp)):
            wall, peak, status, line = measure(argv, env)
            shown = " ".join(a if not a.startswith(tmp) else "FILE.efg" for a in argv)
            said = line.removeprefix("seqform: error: ").replace(str(Path(tmp) / "wide7.efg"), "FILE.efg")
            said = said[:110] + ("..." if len(said) > 110 else "")
            table.append(f"| {what} | `seqform {shown}` | {wall:.1f} s | {peak / 2**20:.0f} MiB | {status} | {said} |")
            print(table[-1], file=sys.stderr)
    load = os.getloadavg()[0]
    head = (
        "# Memory-limit refusals\n\n"
        f"`python bench/limits.py` ({time.strftime('%Y-%m-%d')}, "
        f"{platform.machine()}, {os.cpu_count()} cores, load average {load:.1f} at the end).\n\n"
    )
    text = head + "\n".join(table) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()

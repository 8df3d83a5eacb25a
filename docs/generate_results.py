"""Generate the documentation's results pages from ``bench/results/``.

Every benchmark writes ``NAME-YYYY-MM-DD[-VARIANT].md`` (with its ``.json`` and, for some, ``.png``
plots) into ``bench/results/``; a study writes ``NAME-summary.md`` and ``NAME-*.png``. A
*benchmark* is the name with the date left out (``cfr``, ``mccfr-batched``, ``compare``). For each
benchmark this script takes its newest Markdown result, makes it a page (headings made
consecutive, its plots copied beside it and shown), and writes an index of all of them, with the
older runs named. ``docs/conf.py`` runs it at every build into ``docs/_generated/results/``, which
is git-ignored: the pages are never committed, the results files are their only source.

    python docs/generate_results.py [OUT_DIR]
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DEFAULT_OUT = Path(__file__).resolve().parent / "_generated" / "results"
DATED = re.compile(r"^(?P<name>.+?)-(?P<date>\d{4}-\d{2}-\d{2})(?:-(?P<variant>.+))?$")
HEADING = re.compile(r"^(#{1,6})\s")


def benchmark_of(stem: str) -> tuple[str, str]:
    """(benchmark, date) of a results file's stem; the date is "" for undated files."""
    m = DATED.match(stem)
    if m:
        name = m["name"] + (f"-{m['variant']}" if m["variant"] else "")
        return name, m["date"]
    if stem.endswith("-summary"):
        return stem[: -len("-summary")], ""
    return stem, ""


def plots_of(stem: str) -> list[Path]:
    prefix = stem[: -len("-summary")] if stem.endswith("-summary") else stem
    return sorted(
        p
        for p in RESULTS.glob("*.png")
        if p.stem == prefix or p.stem.startswith(prefix + "-") and benchmark_of(p.stem)[1] == benchmark_of(stem)[1]
    )


def consecutive_headings(text: str) -> str:
    """One title (level 1), and no heading more than one level below the one before it (so that
    Sphinx, building with -W, accepts any results file)."""
    out, prev, fenced = [], 0, False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else HEADING.match(line)
        if m:
            level = len(m[1])
            level = 1 if prev == 0 else max(2, min(level, prev + 1))
            line = "#" * level + line[len(m[1]) :]
            prev = level
        out.append(line)
    if prev == 0:
        out.insert(0, "# Results\n")
    return "\n".join(out) + "\n"


def generate(out: Path = DEFAULT_OUT) -> list[str]:
    """Write the pages into ``out`` (emptied first); return the benchmarks' names."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    runs: dict[str, list[tuple[str, Path]]] = {}
    for md in RESULTS.glob("*.md"):
        name, date = benchmark_of(md.stem)
        runs.setdefault(name, []).append((date, md))
    index = [
        "# Benchmark results",
        "",
        "Generated at build time by `docs/generate_results.py` from `bench/results/`: for each",
        "benchmark, its newest result file as a page, with its plots. How each benchmark runs:",
        "`bench/README.md`; what the results show: {doc}`/findings`.",
        "",
        "| benchmark | newest run | source file | older runs |",
        "|---|---|---|---|",
    ]
    for name in sorted(runs):
        dated = sorted(runs[name], key=lambda r: (r[0], r[1].name))
        date, md = dated[-1]
        older = ", ".join(f"`{p.name}`" for _, p in dated[:-1]) or "-"
        body = consecutive_headings(md.read_text())
        pictures = plots_of(md.stem)
        if pictures:
            body += "\n## Plots\n"
            for png in pictures:
                shutil.copy2(png, out / png.name)
                body += f"\n![{png.stem}]({png.name})\n"
        body += f"\n*Source: `bench/results/{md.name}`" + (f"; older runs: {older}" if dated[:-1] else "") + ".*\n"
        (out / f"{name}.md").write_text(body)
        index.append(f"| {{doc}}`{name}` | {date or '-'} | `{md.name}` | {older} |")
    index += ["", "```{toctree}", ":hidden:", ":glob:", "", "*", "```", ""]
    (out / "index.md").write_text("\n".join(index))
    return sorted(runs)


if __name__ == "__main__":
    names = generate(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)
    print(f"{len(names)} benchmarks")

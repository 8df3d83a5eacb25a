"""The report of a study table: plots per game and a markdown summary (``seqform study report``).

Per game, one figure: rows are the measures (exploitability, |value gap|, largest
information-set regret, in the game's payoff units), columns the x axes (iterations, work, solver
seconds); one line per solver and parameter setting, the median over its seeds, with the 10-90%
band of the measure (of |value gap| for the gap) across seeds shaded, the seed count in the
title and the legend below the panels (``seqform.study.verifyplot``'s conventions). Work is
nodes touched: the sampled solvers count the nodes their samples visit, a solver that walks the
whole tree counts every node per traversal.

The summary (``summary.md``), per game and line: seeds that finished and failed; the final
exploitability (median and 10-90% band) and value gap; and, for each exploitability level, the
median solver seconds and work to reach it, over the seeds that reached it (with how many did).

A game without a value (more than two players, or two-player general-sum; its rows have no
``game_value``) is measured by NashConv instead: its figure's rows are NashConv and the largest
information-set regret (no value gap, no exploitability, which ``seqform.exploitability``
defines as NashConv / N), its title and its summary say there is no game value, and its table
gives the final NashConv in floats and exactly (the last point's, computed in exact arithmetic
by the harness), and the time to each NashConv level.
A level is reached at the first measuring point at or below it. Then the scale (``scale``): the
cells per hour each logged run measured, and an estimate for N nodes of c cores from the cells'
own timings. Failures are listed with their errors.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from seqform.errors import SeqformError

MEASURES = (
    ("exploitability", "exploitability (payoff units)"),
    ("value_gap", "|value gap| (payoff units)"),
    ("max_infoset_regret", "largest inf.-set regret (payoff units)"),
)
#: the measures of a game without a value (more than two players, or two-player general-sum)
NASHCONV_MEASURES = (
    ("nash_conv", "NashConv (payoff units)"),
    ("max_infoset_regret", "largest inf.-set regret (payoff units)"),
)
AXES = (("iteration", "iterations"), ("work", "work (nodes touched)"), ("solver_seconds", "solver time (s)"))
DEFAULT_LEVELS = (1e-1, 1e-2, 1e-3)


def _label(solver: str, params: str) -> str:
    p = json.loads(params or "{}")
    return solver if not p else solver + " " + ", ".join(f"{k}={v}" for k, v in sorted(p.items()))


def _lines(rows: list) -> dict:
    """game -> label -> seed -> rows sorted by iteration (finished cells only)."""
    out: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in rows:
        if r["status"] == "ok" and r["iteration"] is not None:
            out[r["game"]][_label(r["solver"], r["params"])][r["seed"]].append(r)
    for g in out.values():
        for lab in g.values():
            for seq in lab.values():
                seq.sort(key=lambda r: r["iteration"])
    return out


def _band(seeds: dict, key: str, absolute: bool = False) -> tuple | None:
    """Per measuring point common to all seeds: (median, q10, q90) of ``key`` across seeds; None
    when no seed has a value."""
    n = min(len(s) for s in seeds.values())
    vals = np.array(
        [
            [np.nan if s[j].get(key) is None else (abs(s[j][key]) if absolute else s[j][key]) for j in range(n)]
            for s in seeds.values()
        ],
        dtype=float,
    )
    if np.isnan(vals).all():
        return None
    return np.nanmedian(vals, axis=0), np.nanquantile(vals, 0.1, axis=0), np.nanquantile(vals, 0.9, axis=0)


def has_value(rows: list) -> bool:
    """Whether the game of ``rows`` (one game's finished rows) has a value: some row carries its
    ``game_value``. Without one (more than two players, or two-player general-sum) the game is
    measured by NashConv."""
    done = [r for r in rows if r["status"] == "ok"]
    return not done or any(r.get("game_value") is not None for r in done)


def _players(rows: list) -> int | None:
    return next((r["players"] for r in rows if r.get("players") is not None), None)


def _no_value(rows: list) -> str:
    n = _players(rows)
    return f"{n} players" if n is not None and n != 2 else "general-sum"


def plot(rows: list, out: str | Path, study: str) -> list:
    """Write one PNG per game into ``out``; returns their paths. The figures follow
    ``seqform.study.verifyplot``'s conventions: a colour, dash and marker per line, the same in
    every panel; log axes with units; the legend below the panels; the seed count in the title."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        from seqform.installation import install_command

        raise SeqformError(f"the study report draws with matplotlib: {install_command('plot')}") from None
    from matplotlib.patches import Patch

    from seqform.study.verifyplot import legend_outside, line_style, log_limits

    paths = []
    for game, labels in _lines(rows).items():
        valued = has_value([r for r in rows if r["game"] == game])
        shown = MEASURES if valued else NASHCONV_MEASURES
        fig, axes = plt.subplots(
            len(shown), len(AXES), figsize=(15, 4 * len(shown)), squeeze=False, layout="constrained"
        )
        styles = {lab: line_style(k) for k, lab in enumerate(sorted(labels))}
        seeds = {lab: len(s) for lab, s in labels.items()}
        for i, (mkey, mname) in enumerate(shown):
            for j, (xkey, xname) in enumerate(AXES):
                ax = axes[i][j]
                drawn = []
                for lab, runs in sorted(labels.items()):
                    x = _band(runs, xkey)
                    y = _band(runs, mkey, absolute=True)
                    if x is None or y is None:
                        continue
                    xm = np.where(x[0] > 0, x[0], np.nan)
                    name = lab + (f" (median of {seeds[lab]} seeds)" if seeds[lab] > 1 else "")
                    ax.plot(xm, np.where(y[0] > 0, y[0], np.nan), label=name, **styles[lab])
                    drawn.append((xm, y, lab))
                lim = log_limits([a for _, y, lab in drawn for a in (y if seeds[lab] > 1 else y[:1])])
                for xm, y, lab in drawn:
                    if seeds[lab] > 1 and lim is not None:
                        lo = np.maximum(y[1], lim[0])
                        ax.fill_between(xm, lo, np.maximum(y[2], lo), color=styles[lab]["color"], alpha=0.18, lw=0)
                ax.set_xscale("log")
                ax.set_yscale("log")
                if lim is not None:
                    ax.set_ylim(*lim)
                ax.grid(True, which="major", alpha=0.3)
                ax.set_xlabel(xname)
                if j == 0:
                    ax.set_ylabel(mname)
        handles, names = axes[0][0].get_legend_handles_labels()
        most = max(seeds.values())
        if most > 1:
            handles.append(Patch(color="0.6", alpha=0.4, lw=0))
            names.append(f"shaded: 10-90% band over {most} seeds")
        legend_outside(fig, handles, names)
        band = f"\nmedian and 10-90% band over {most} seeds (sampled solvers)" if most > 1 else ""
        what = (
            ""
            if valued
            else f" ({_no_value([r for r in rows if r['game'] == game])}: no game value, measured by NashConv)"
        )
        fig.suptitle(f"{study}: {game}{what}{band}")
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in game)
        p = Path(out) / f"{study}-{safe}.png"
        fig.savefig(p, dpi=90)
        plt.close(fig)
        paths.append(p)
    return paths


def _fmt(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{digits}g}" if abs(x) < 1e5 else f"{x:,.0f}"


def scale(rows: list, runs: list, nodes=(1, 4, 16, 64), cores=(2, 32)) -> list:
    """Markdown lines: the cells per hour measured on this machine (``runs``: the logged runs) and
    what N nodes of c cores would give for the same cells, from the cells' own timings. A cell
    runs on one core; the ground truth is computed once, before any cell, by the driver. On N x c
    cores the study takes about ground truth + fixed cost + max(cell-seconds / (N c), longest
    cell), the fixed cost being what the measured run spent beyond the other two."""
    secs: dict[Any, float] = {}  # cell key -> its seconds
    for r in rows:
        if r["status"] == "ok" and r["cell_seconds"] is not None:
            secs[r["cell"]] = max(secs.get(r["cell"], 0.0), r["cell_seconds"])
    if not secs:
        return []
    total, longest = sum(secs.values()), max(secs.values())
    out = [
        "## Scale",
        "",
        f"{len(secs)} cells took {total:,.1f} cell-seconds in their workers (solver and measurements; one core "
        f"each), the longest {longest:,.1f} s.",
        "",
    ]
    truth, overhead = 0.0, 0.0
    for run in runs:
        ran = run.get("ok", 0) + run.get("failed", 0)
        if run.get("seconds") and ran:
            gt = run.get("ground_truth_seconds", 0.0)
            truth = max(truth, gt)
            out.append(
                f"- measured: {ran} cells in {run['seconds']:,.0f} s on {run['workers']} {run['executor']} "
                f"worker(s) ({gt:.1f} s of ground truth first): {3600 * ran / run['seconds']:,.0f} cells per hour"
            )
            if ran == len(secs):  # what the run spent beyond ground truth and cells: starting workers, writing
                overhead = max(0.0, run["seconds"] - gt - max(total / run["workers"], longest))
    out += [
        "",
        "Estimated for these cells on N nodes of c cores (ideal scheduling: ground truth, then the "
        "cell-seconds spread over every core, never below the longest cell, plus the fixed cost the measured "
        f"run spent beyond both, {overhead:.1f} s: starting workers, writing the table):",
        "",
        "| nodes | " + " | ".join(f"{c} cores each: hours, cells per hour" for c in cores) + " |",
        "|---|" + "---|" * len(cores),
    ]
    for n in nodes:
        cols = []
        for c in cores:
            wall = truth + overhead + max(total / (n * c), longest)
            cols.append(f"{wall / 3600:.3g} h, {3600 * len(secs) / wall:,.0f}")
        out.append(f"| {n} | " + " | ".join(cols) + " |")
    return out + [""]


def _final_exact(finals: list) -> str:
    """The exact NashConv of the last points (a game without a value), median over seeds, as a
    decimal of 12 digits; "-" when a run has none."""
    vals = [f.get("nash_conv_exact") for f in finals]
    if not vals or any(v is None for v in vals):
        return "-"
    q = sorted(Fraction(v) for v in vals)
    k = len(q) // 2
    return f"{float(q[k] if len(q) % 2 else (q[k - 1] + q[k]) / 2):.12g}"


def _section(game: str, labels: dict, status: dict, levels, rows: list) -> list:
    """The summary's lines of one game: its table, one line per solver setting. A game with a
    value: final exploitability and value gap, levels of exploitability; without one: final
    NashConv (and exactly), levels of NashConv."""
    valued = has_value(rows)
    key = "exploitability" if valued else "nash_conv"
    out = [f"## {game}", ""]
    if not valued:
        out += [
            f"No game value ({_no_value(rows)}): measured by NashConv, the sum over players of what a best response "
            "gains, 0 exactly at an equilibrium; the levels are NashConv levels. Exactly: the last point's NashConv "
            "in exact arithmetic (the strategies' floats at their binary value), median over seeds.",
            "",
        ]
    cols = "final exploitability | final value gap" if valued else "final NashConv | final NashConv, exactly"
    out += [
        f"| solver | seeds ok / failed | {cols} | " + " | ".join(f"to {lv:g}" for lv in levels) + " |",
        "|---|---|---|---|" + "---|" * len(levels),
    ]
    for lab in sorted({k[1] for k in status if k[0] == game}):
        ok, bad = status[(game, lab)]
        seeds = labels.get(lab, {})
        if not seeds:
            out.append(f"| {lab} | {ok} / {bad} | - | - | " + " | ".join("-" for _ in levels) + " |")
            continue
        finals = [s[-1] for s in seeds.values()]
        ex = np.array([np.nan if f.get(key) is None else f[key] for f in finals], dtype=float)
        final = f"{_fmt(np.median(ex))} [{_fmt(np.quantile(ex, 0.1))}, {_fmt(np.quantile(ex, 0.9))}]"
        second = _fmt(np.median([f["value_gap"] for f in finals])) if valued else _final_exact(finals)
        reached = []
        for lv in levels:
            firsts = [next((r for r in s if r.get(key) is not None and r[key] <= lv), None) for s in seeds.values()]
            hits = [h for h in firsts if h is not None]
            if not hits:
                reached.append(f"not reached (0/{len(seeds)})")
                continue
            secs = np.median([h["solver_seconds"] for h in hits])
            work = [h["work"] for h in hits if h["work"] is not None]
            reached.append(
                f"{_fmt(secs)} s / {_fmt(float(np.median(work))) if work else '-'} ({len(hits)}/{len(seeds)})"
            )
        out.append(f"| {lab} | {ok} / {bad} | {final} | {second} | " + " | ".join(reached) + " |")
    return out + [""]


def summary(rows: list, study: str, levels=DEFAULT_LEVELS, runs: list | None = None) -> str:
    """The markdown summary (module docstring); ``runs`` (``seqform.study.studytable.read_runs``) adds the
    measured and projected cells per hour (``scale``)."""
    lines_by_game = _lines(rows)
    games = list(dict.fromkeys(r["game"] for r in rows))
    cells = {r["cell"]: (r["game"], _label(r["solver"], r["params"]), r["status"]) for r in rows}
    status: dict = defaultdict(lambda: [0, 0])
    for game, lab, st in cells.values():
        status[(game, lab)][0 if st == "ok" else 1] += 1
    out = [
        f"# Study {study}: summary",
        "",
        "Final: the last measuring point, median over seeds [10%, 90%]. Levels: median solver seconds / work "
        "(nodes touched) to the first point at or below the exploitability level (NashConv level for a game "
        "without a value), over the seeds that reached it (reached/finished).",
        "",
    ]
    for game in games:
        out += _section(game, lines_by_game.get(game, {}), status, levels, [r for r in rows if r["game"] == game])
    out += scale(rows, runs or [])
    fails = [r for r in rows if r["status"] != "ok"]  # a failed cell has one row
    out += ["## Failures", ""]
    if not fails:
        out.append("None.")
    for r in fails:
        out.append(
            f"- {r['game']} {_label(r['solver'], r['params'])} seed {r['seed']} "
            f"(after {r['attempts']} attempts): {r['error']}"
        )
    return "\n".join(out) + "\n"


def report(table: str | Path, out: str | Path | None = None, levels=DEFAULT_LEVELS) -> dict:
    """Draw and summarise a study's table (module docstring).

    Parameters
    ----------
    table : str or Path
        A study's ``results.parquet`` (or ``.csv``), or its output directory.
    out : str or Path, optional
        Where the plots (``STUDY-GAME.png``) and ``STUDY-summary.md`` go (default: beside the table).
    levels : sequence of float
        The exploitability levels of the summary's time-to-level columns.

    Returns
    -------
    dict
        ``summary`` (the markdown file's path), ``plots`` (the PNGs' paths), ``rows``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from seqform.study import load_study, report, run_study
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "s.toml").write_text('[study]\\nname = "s"\\ngames = ["kuhn"]\\niterations = 100\\n'
    ...                               '[[solvers]]\\nname = "cfr+"\\n')
    >>> _ = run_study(load_study(d / "s.toml"), d / "out", workers=1, progress=False)
    >>> got = report(d / "out")
    >>> pathlib.Path(got["summary"]).name, [pathlib.Path(p).name for p in got["plots"]]
    ('s-summary.md', ['s-kuhn.png'])
    """
    from seqform.study.studytable import read_runs, read_table

    rows = read_table(table)
    if not rows:
        raise SeqformError(f"{table}: the study table is empty")
    study = rows[0]["study"]
    t = Path(table)
    out = Path(out) if out is not None else (t if t.is_dir() else t.parent)
    out.mkdir(parents=True, exist_ok=True)
    plots = plot(rows, out, study)
    md = out / f"{study}-summary.md"
    md.write_text(summary(rows, study, levels, read_runs(t if t.is_dir() else t.parent)))
    return {"summary": str(md), "plots": [str(p) for p in plots], "rows": len(rows)}


__all__ = ["report", "summary", "plot", "DEFAULT_LEVELS"]

"""Figures of verify runs: ``seqform verify --plot``, ``VerifyReport.plot`` and ``plot_reports``
(several solvers on one figure), and the conventions the study report and the benchmark scripts
share (``line_style``, ``log_limits``, ``legend_outside``).

What a figure shows, as in Zinkevich, Johanson, Bowling & Piccione (2007)'s Figure 1 (exploitability
against work, on log axes):

* **One x axis for every curve**, ``x``: ``"nodes"`` (work: the nodes touched; the sampled
  solvers count the nodes their samples visit, a solver that walks the whole tree is charged
  every node of the tree per traversal), ``"traversals"`` (passes over the tree; the sampled
  solvers make none), ``"iterations"`` or ``"seconds"`` (time inside the solver). The default is
  nodes touched: the one unit that charges a sampled iteration and a full-tree iteration for
  what they do, independent of the machine and the implementation's speed (an MCCFR iteration
  and a CFR iteration differ by orders of magnitude of work, so iterations do not compare, and
  sampled solvers make no traversals). When a run does not count nodes (a user's solver, an
  OpenSpiel MCCFR solver), the default falls back to iterations for every curve, and says so.
* **Log-log axes, with units**: exploitability (NashConv / 2, OpenSpiel's convention), the
  absolute value gap and the largest information-set regret are in the game's payoff units; the
  distances to the exact EFPE / QPE are the largest difference of an action probability (no
  unit), on a panel of their own.
* **Games without a value** (more than two players, or two-player general-sum): the y measures
  are NashConv (the sum over players of what a best response gains; 0 exactly at an
  equilibrium) and the largest information-set regret, in payoff units; there is no value gap,
  and no exploitability either (``seqform.exploitability`` defines it as NashConv / N for N
  players, a name that suggests a two-player game's meaning), and the title says so.
* **Seeds**: with several seeds a line is the median and the shaded band the 10% to 90%
  quantiles across seeds, said in the title (with the seed count) and in the legend. The band of
  the value gap is the signed gap's band in absolute value: where it contains 0 it reaches the
  bottom of the axes.
* **Regret bounds** (``bound=True``, off by default): the papers' worst-case exploitability
  bounds (``seqform.study.regretbounds``), dashed and clipped to the data's range, which they
  never set: the y limits come from the measured data alone.
* Legends sit outside the axes; every line has its own colour, dash pattern and hollow marker,
  the markers staggered, so curves that coincide stay distinguishable.
* The format follows the file name's extension: ``.png`` (150 dpi), or vector ``.pdf``,
  ``.svg``, ``.eps``.

References:

- Zinkevich, Johanson, Bowling & Piccione (2007), "Regret Minimization in Games with Incomplete Information", NIPS.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from seqform.errors import SeqformError
from seqform.study.regretbounds import BOUND_LABELS

#: the x axes a figure can use, with their labels
X_AXES = {
    "nodes": "work (nodes touched)",
    "traversals": "tree traversals (passes over the tree)",
    "iterations": "iterations",
    "seconds": "solver time (s)",
}
#: the file formats a figure can be written in, by extension
FORMATS = (".png", ".pdf", ".svg", ".eps")
PAYOFF = "payoff units"
#: the measures in payoff units: key, label in a legend, label on a y axis
MEASURES = (
    ("exploitability", "exploitability (NashConv / 2)", f"exploitability ({PAYOFF})"),
    ("value_gap", "|value gap|", f"|value gap| ({PAYOFF})"),
    ("max_infoset_regret", "largest information-set regret", f"largest inf.-set regret ({PAYOFF})"),
)
#: the measures of a game without a value (``seqform.study.verifyharness.GroundTruth``)
NASHCONV_MEASURES = (
    ("nash_conv", "NashConv (sum of best-response gains)", f"NashConv ({PAYOFF})"),
    ("max_infoset_regret", "largest information-set regret", f"largest inf.-set regret ({PAYOFF})"),
)
NO_VALUE_NOTE = "no game value: measured by NashConv"
DISTANCES = (
    ("efpe_distance", "distance to the exact EFPE", "distance to exact EFPE (max |Δ prob.|)"),
    ("qpe_distance", "distance to the exact QPE", "distance to exact QPE (max |Δ prob.|)"),
)
DISTANCE_YLABEL = "largest |difference| of an\naction probability (no unit)"
_DASHES: tuple[Any, ...] = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)))
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def line_style(k: int, rank: int | None = None) -> dict:
    """Matplotlib keyword arguments of the ``k``-th line of a figure: its own colour (tab10, then
    tab20's lighter shades), dash pattern and hollow marker, markers staggered along the line.
    ``rank``: its place among the lines of its axes (default ``k``): a later line is drawn
    narrower and on top, so that lines which coincide show as a stripe inside a wider one."""
    rank = k if rank is None else rank
    import matplotlib

    colour = matplotlib.colormaps["tab10"](k % 10) if k < 10 else matplotlib.colormaps["tab20"]((2 * k + 1) % 20)
    return {
        "color": colour,
        "ls": _DASHES[k % len(_DASHES)],
        "marker": _MARKERS[k % len(_MARKERS)],
        "mfc": "none",
        "ms": 5,
        "markevery": (0.015 * (k % 6), 0.09),
        "lw": max(1.2, 2.8 - 0.5 * rank),
        "zorder": 2 + rank,
    }


def log_limits(values: Sequence) -> tuple | None:
    """Y limits of a log axis from the data: the positive finite values' range, widened by a
    tenth of a decade each side (a bit more when it is flat); None when there is none."""
    v = np.concatenate([np.ravel(np.asarray(a, dtype=float)) for a in values]) if len(values) else np.array([])
    v = v[np.isfinite(v) & (v > 0)]
    if not len(v):
        return None
    lo, hi = float(v.min()), float(v.max())
    pad = 10 ** (0.1 + (0.4 if hi / lo < 10 else 0.0))
    return lo / pad, hi * pad


def legend_outside(fig, handles: list, labels: list) -> Any:
    """One legend for the whole figure, below every axes (the figure needs
    ``layout="constrained"``), so it covers no data."""
    ncol = 1 if len(labels) < 3 else 2 if max(len(t) for t in labels) > 40 else 3
    return fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=8, frameon=False)


def check_path(path: str | Path, what: str = "plot") -> None:
    """Refuse a figure path whose extension names no format we write (``FORMATS``); ``what``
    names the parameter in the message."""
    if Path(path).suffix.lower() not in FORMATS:
        raise SeqformError(
            f"{what}: name the figure's format by its extension ({', '.join(FORMATS)}), not {str(path)!r}"
        )


@dataclass
class PlotInfo:
    """What ``plot_reports`` drew: the ``path``, the ``x`` axis used, and ``notes`` for the user
    (the x axis's fallback, bounds that are unknown or above the plotted range)."""

    path: str
    x: str
    notes: list = field(default_factory=list)


def _nodes(report, p) -> float | None:
    if p.nodes_touched is not None:
        return p.nodes_touched
    n = getattr(report, "tree_nodes", None)
    return None if p.traversals is None or n is None else p.traversals * n


def x_values(report, x: str) -> np.ndarray | None:
    """The ``x`` coordinate (``X_AXES``) of every point of ``report``; None when the run does not
    count it."""
    get = {
        "nodes": lambda p: _nodes(report, p),
        "traversals": lambda p: p.traversals,
        "iterations": lambda p: p.iteration,
        "seconds": lambda p: p.solver_seconds,
    }[x]
    vals = [get(p) for p in report.points]
    if not vals or any(v is None for v in vals):
        return None
    return np.asarray(vals, dtype=float)


def choose_x(reports: Sequence, x: str | None) -> tuple:
    """(the x axis, a note or None): ``x`` when every run counts it (else ``SeqformError``
    naming the run that does not); with ``x`` None, nodes touched, or iterations when a run does
    not count nodes."""
    if x is not None and x not in X_AXES:
        raise SeqformError(f"plot: x must be one of {', '.join(X_AXES)}, not {x!r}")
    missing = [r.solver for r in reports if x_values(r, x or "nodes") is None]
    if not missing:
        return x or "nodes", None
    if x is not None:
        raise SeqformError(
            f"plot: {', '.join(missing)} does not count {X_AXES[x]}; plot against "
            f"{' or '.join(k for k in X_AXES if k != x and all(x_values(r, k) is not None for r in reports))}"
        )
    return "iterations", f"plotted against iterations: {', '.join(missing)} does not count nodes touched"


def _series(p_list: list, key: str) -> tuple:
    """(median, q10, q90) of ``key`` as arrays (absolute values for the value gap), NaN where
    missing; q10 and q90 are None without a band."""
    absolute = key == "value_gap"
    med = np.array([np.nan if getattr(p, key) is None else getattr(p, key) for p in p_list], dtype=float)
    if absolute:
        med = np.abs(med)
    if not p_list or p_list[0].seeds < 2 or getattr(p_list[0], f"{key}_q10", None) is None:
        return med, None, None
    lo = np.array([getattr(p, f"{key}_q10") for p in p_list], dtype=float)
    hi = np.array([getattr(p, f"{key}_q90") for p in p_list], dtype=float)
    if absolute:  # the image of [q10, q90] under |.|: from 0 when it straddles 0
        lo, hi = np.where(lo * hi <= 0, 0.0, np.minimum(abs(lo), abs(hi))), np.maximum(abs(lo), abs(hi))
    return med, lo, hi


def _positive(a: np.ndarray) -> np.ndarray:
    return np.where(a > 0, a, np.nan)


@dataclass
class _Panel:
    """One axes being drawn: its lines (x, median, q10, q90, label, style) and bounds."""

    ax: Any
    ylabel: str
    #: the largest value the measure can take (distances: 1), where the limits stop
    top: float | None = None
    lines: list = field(default_factory=list)
    bounds: list = field(default_factory=list)

    def draw(self, notes: list) -> None:
        ax = self.ax
        for xs, med, _, _, label, style in self.lines:
            ys = _positive(med)
            if np.isnan(ys).all():  # nothing to draw on a log axis (matplotlib cannot mark an empty path)
                style = {**style, "markevery": None}
            ax.plot(xs, ys, label=label, **style)
        lim = log_limits([a for _, med, lo, hi, *_ in self.lines for a in (med, lo, hi) if a is not None])
        for xs, _, lo, hi, _, style in self.lines:
            if lo is not None and lim is not None:
                ok = np.isfinite(lo) & np.isfinite(hi) & (hi > 0)
                ax.fill_between(
                    xs[ok], np.maximum(lo[ok], lim[0]), hi[ok], color=style["color"], alpha=0.18, lw=0, zorder=1
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        if lim is not None and self.top is not None:
            lim = (min(lim[0], self.top / 2), min(lim[1], self.top))
        if lim is not None:
            ax.set_ylim(*lim)  # from the data alone: the bounds drawn next are clipped to it
        for xs, ys, label, colour in self.bounds:
            above = lim is not None and np.nanmin(ys) > lim[1]
            if above:
                notes.append(f"{label}: above the plotted range (smallest {np.nanmin(ys):.3g})")
            ax.plot(
                xs, ys, color=colour, ls=(0, (4, 2)), lw=1.0, zorder=1,
                label=label + (" (above the plotted range)" if above else ""),
            )  # fmt: skip
        ax.set_ylabel(self.ylabel)
        ax.grid(True, which="major", alpha=0.3)


def _bound_series(report, xs: np.ndarray) -> tuple | None:
    ys = np.array([np.nan if p.theorem_bound is None else p.theorem_bound for p in report.points], dtype=float)
    return None if np.isnan(ys).all() else (xs, ys)


def has_value(reports: Sequence) -> bool:
    """Whether the reports' game has a value (``VerifyReport.has_value``); else the figure
    measures NashConv."""
    return all(getattr(r, "game_value", 0) is not None for r in reports)


def measures(reports: Sequence) -> tuple:
    """The payoff-unit measures of the reports' figure: ``MEASURES``, or ``NASHCONV_MEASURES``
    for a game without a value."""
    return MEASURES if has_value(reports) else NASHCONV_MEASURES


def _title(reports: Sequence, title: str | None) -> str:
    if title:
        return title
    game = reports[0].game
    names = [r.solver for r in reports]
    head = f"{names[0]} on {game}" if len(names) == 1 else f"{game}: " + ", ".join(names)
    if not has_value(reports):
        players = getattr(reports[0], "players", None)
        head += f"\n{players} players, " if players and players != 2 else "\n"
        head += NO_VALUE_NOTE
    seeds = {r.points[0].seeds for r in reports if r.points} - {1}
    if not seeds:
        return head
    who = "" if len(reports) == 1 or all(r.points[0].seeds > 1 for r in reports) else " (sampled solvers)"
    count = "/".join(str(n) for n in sorted(seeds)) + " seeds"
    return f"{head}\nmedian and 10-90% band over {count}{who}"


def _single(fig_kw: dict, report, xs: np.ndarray, bound: bool) -> tuple:
    """The panels of one report: its payoff-unit measures on one axes, its distances on a second."""
    import matplotlib.pyplot as plt

    dist = [d for d in DISTANCES if any(getattr(p, d[0]) is not None for p in report.points)]
    fig, axes = plt.subplots(2 if dist else 1, 1, sharex=True, squeeze=False, figsize=(8, 7 if dist else 4.5), **fig_kw)
    seeds = report.points[0].seeds
    found = measures([report])
    top = _Panel(
        axes[0][0],
        f"exploitability, |value gap|, regret\n({PAYOFF})" if found is MEASURES else f"NashConv, regret\n({PAYOFF})",
    )
    for k, (key, name, _) in enumerate(found):
        med, lo, hi = _series(report.points, key)
        top.lines.append((xs, med, lo, hi, name + (" (median)" if seeds > 1 else ""), line_style(k)))
    if bound and (b := _bound_series(report, xs)) is not None:
        top.bounds.append((*b, BOUND_LABELS.get(report.solver, "regret bound"), "black"))
    panels = [top]
    if dist:
        low = _Panel(axes[1][0], DISTANCE_YLABEL, top=1.25)
        for k, (key, name, _) in enumerate(dist):
            low.lines.append((xs, *_series(report.points, key), name, line_style(len(found) + k, k)))
        panels.append(low)
    return fig, panels


def _compare(fig_kw: dict, reports: Sequence, xs_list: list, bound: bool) -> tuple:
    """The panels of several reports: one per measure, one line per report."""
    import matplotlib.pyplot as plt

    shown = list(measures(reports)) + [
        d for d in DISTANCES if any(getattr(p, d[0]) is not None for r in reports for p in r.points)
    ]
    ncols = min(3, len(shown))
    nrows = -(-len(shown) // ncols)
    fig, axes = plt.subplots(nrows, ncols, squeeze=False, figsize=(4.6 * ncols + 1.0, 4.2 * nrows + 0.8), **fig_kw)
    flat = [a for row in axes for a in row]
    for ax in flat[len(shown) :]:
        ax.remove()
    panels = []
    for ax, (key, _, ylabel) in zip(flat, shown):
        panel = _Panel(ax, ylabel, top=1.25 if key.endswith("_distance") else None)
        for k, (rep, xs) in enumerate(zip(reports, xs_list)):
            seeds = rep.points[0].seeds if rep.points else 1
            label = rep.solver + (f" (median of {seeds} seeds)" if seeds > 1 else "")
            panel.lines.append((xs, *_series(rep.points, key), label, line_style(k)))
            if bound and key == "exploitability" and (b := _bound_series(rep, xs)) is not None:
                colour = line_style(k)["color"]
                panel.bounds.append((*b, f"{rep.solver}: " + BOUND_LABELS.get(rep.solver, "regret bound"), colour))
        panels.append(panel)
    return fig, panels


def figure(
    reports: Sequence,
    *,
    x: str | None = None,
    bound: bool = False,
    title: str | None = None,
) -> tuple:
    """The matplotlib figure of ``plot_reports`` and its ``PlotInfo`` (path empty), not written:
    for a caller that adds to it or inspects it. Close it with ``matplotlib.pyplot.close``."""
    reports = list(reports)
    if not reports or any(not r.points for r in reports):
        raise SeqformError("plot: every report needs at least one measured point")
    if len({r.game for r in reports}) > 1:
        raise SeqformError(f"plot: the reports are of different games ({', '.join(sorted({r.game for r in reports}))})")
    try:
        import matplotlib
    except ImportError:
        raise SeqformError('plots need matplotlib: pip install "seqform[plot]" (or pip install matplotlib)') from None
    matplotlib.use("Agg")
    from matplotlib.patches import Patch

    axis, note = choose_x(reports, x)
    info = PlotInfo("", axis, [note] if note else [])
    xs_list: list = [x_values(r, axis) for r in reports]  # choose_x checked that every run counts it
    fig_kw = {"layout": "constrained"}
    if len(reports) == 1:
        fig, panels = _single(fig_kw, reports[0], xs_list[0], bound)
    else:
        fig, panels = _compare(fig_kw, reports, xs_list, bound)
    for panel in panels:
        panel.draw(info.notes)
        if len(reports) > 1 or panel is panels[-1]:  # one report's panels share the x axis
            panel.ax.set_xlabel(X_AXES[axis])
    if bound:
        info.notes += [f"{r.solver}: no regret bound known (seqform.study.regretbounds)" for r in reports
                       if all(p.theorem_bound is None for p in r.points)]  # fmt: skip
    handles: list = []
    labels: list = []
    for panel in panels:  # compare mode: every panel has the same lines, listed once
        for h, lab in zip(*panel.ax.get_legend_handles_labels()):
            if lab not in labels:
                handles, labels = handles + [h], labels + [lab]
    seeds = max(r.points[0].seeds for r in reports)
    if seeds > 1:
        handles.append(Patch(color="0.6", alpha=0.4, lw=0))
        labels.append(f"shaded: 10-90% band over {seeds} seeds")
    legend_outside(fig, handles, labels)
    fig.suptitle(_title(reports, title))
    return fig, info


def plot_reports(
    reports: Sequence,
    path: str | Path,
    *,
    x: str | None = None,
    bound: bool = False,
    title: str | None = None,
) -> PlotInfo:
    """Draw verify reports (``seqform.study.verifyharness.VerifyReport``, one game) on one figure
    at ``path`` (module docstring; the extension picks the format: ``FORMATS``).

    One report: its measures on one log-log axes (and the distances to exact refined equilibria
    on a second). Several: one axes per measure, one line per report (the median, banded when it
    has several seeds).

    Parameters
    ----------
    reports : sequence of VerifyReport
        Runs on one game (``seqform.study.verify``), drawn in this order.
    path : str or Path
        The file to write; ``.png``, ``.pdf``, ``.svg`` or ``.eps``.
    x : str, optional
        The work measure of the x axis: ``"nodes"``, ``"traversals"``, ``"iterations"`` or
        ``"seconds"`` (default: nodes touched where every run counts them, else iterations).
    bound : bool
        Also draw the papers' regret bounds where known, clipped to the data's range.
    title : str, optional
        The figure's title (default: the game, the solvers and the seed count).

    Returns
    -------
    PlotInfo
        The file written and the x measure used.

    Examples
    --------
    >>> import pathlib, tempfile, seqform
    >>> from seqform.study import plot_reports, verify
    >>> reps = [verify(s, seqform.games.kuhn(), 20) for s in ("cfr+", "es-mccfr")]
    >>> info = plot_reports(reps, pathlib.Path(tempfile.mkdtemp()) / "kuhn.svg")
    >>> info.x, pathlib.Path(info.path).exists()
    ('nodes', True)
    """
    check_path(path)
    fig, info = figure(reports, x=x, bound=bound, title=title)
    import matplotlib.pyplot as plt

    try:
        fig.savefig(path, dpi=150)
    finally:
        plt.close(fig)
    info.path = str(path)
    return info


__all__ = [
    "plot_reports",
    "figure",
    "PlotInfo",
    "X_AXES",
    "FORMATS",
    "line_style",
    "log_limits",
    "legend_outside",
    "check_path",
    "has_value",
    "measures",
    "MEASURES",
    "NASHCONV_MEASURES",
]

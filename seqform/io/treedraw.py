"""Pictures of small game trees, drawn the way textbooks and Gambit's graphical interface draw
them (as Selten 1975 draws his horse, and textbooks Kuhn's 1950 poker): the root at the top,
leaves evenly spaced at the ends of their branches, each parent centred over its children.

``draw_tree(tree, profile=None, path=None)`` returns a matplotlib ``Figure`` (and writes it to
``path``, the format following the extension: ``.svg``, ``.pdf`` or ``.png``):

* a player's node is a filled disc in that player's colour, tagged with the player's name (a
  Gambit file's own player names, else ``P0``, ``P1``...); a chance node is an open circle, the
  probabilities of its outcomes on its branches;
* the nodes of an information set are joined by a dashed line in the owner's colour: straight
  between neighbours on one level, an arc where other nodes lie between them;
* every branch carries its action label and, under it, its probability (chance's, or the
  profile's), both beside the branch's middle on its outer side (left of a branch going left);
* each leaf shows its payoffs, one line per player, player 0 first: exact rationals when short,
  decimals otherwise;
* under a profile, the branches the profile reaches with positive probability (chance and every
  player together) are bold.

Levels are tree depths, pushed down where needed so that every information set sits on one level
(its nodes then look alike, as in the textbooks' figures); when that is impossible (two
information sets whose nodes come in opposite orders on different paths) plain depths are used
and such a set is joined by arcs. A tree with more than ``max_leaves`` leaves, or more levels
than that, is refused (``TooLargeError``) before anything is drawn: nobody can read it.

matplotlib (the ``plot`` extra) is imported only when a picture is drawn.

References:

- Kuhn (1950), "A Simplified Two-Person Poker", Contributions to the Theory of Games I.
- Selten (1975), "Reexamination of the Perfectness Concept for Equilibrium Points in Extensive Games", International
  Journal of Game Theory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from seqform.errors import SeqformError, TooLargeError
from seqform.exact.rationals import fraction_of, rational_str
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.model.strategy import Profile, validate_profile
from seqform.model.tree import Tree, compile_tree

__all__ = [
    "DEFAULT_MAX_LEAVES",
    "FORMATS",
    "TreeLayout",
    "tree_layout",
    "edge_probabilities",
    "played_edges",
    "check_drawable",
    "output_format",
    "draw_tree",
    "matplotlib_hint",
]

#: the most leaves (and levels) a tree may have to be drawn; more is unreadable on a page
DEFAULT_MAX_LEAVES = 64

#: the file formats ``draw_tree`` writes, by extension
FORMATS = {".svg": "svg", ".pdf": "pdf", ".png": "png"}


def matplotlib_hint() -> str:
    """The one-line error for a missing matplotlib, with this installation's install command."""
    from seqform.installation import install_command

    return f"drawing needs matplotlib: {install_command('plot')} (or pip install matplotlib)"


# Okabe & Ito's colour-blind-safe palette: vermillion, blue, bluish green, reddish purple, orange, sky blue
PLAYER_COLOURS = ("#D55E00", "#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
CHANCE_TEXT = "#555555"
FONT = 9.0  # points: labels, payoffs
NODE_FONT = 9.5
BOLD_WIDTH = 2.8
EDGE_WIDTH = 0.9
LEVEL_HEIGHT = 0.95  # inches between levels
DPI = 150  # of a PNG
# labels sit on a white ground: an information set's arc passing behind one does not strike it out
_HALO = {"boxstyle": "square,pad=0.05", "fc": "white", "ec": "none", "alpha": 0.9}


@dataclass(frozen=True)
class TreeLayout:
    """Where each node is drawn: ``x`` (length n, in leaf spacings: the leaves, in depth-first
    order, sit at 0, 1, 2, ...), ``level`` (length n, 0 at the root, growing downwards) and
    ``aligned`` (whether every information set's nodes share one level)."""

    x: np.ndarray
    level: np.ndarray
    aligned: bool


def _depths(tree: Tree) -> np.ndarray:
    """Each node's depth. Preorder numbering puts a parent before its children: one pass."""
    parent = tree.parent.tolist()
    depth = [0] * len(parent)
    for i in range(1, len(parent)):
        depth[i] = depth[parent[i]] + 1
    return np.asarray(depth, dtype=np.int64)


def _aligned_levels(tree: Tree, depth: np.ndarray) -> np.ndarray | None:
    """Depths pushed down until each information set's nodes share a level (its deepest node's),
    children always one level below their parent; None when no such levels exist (the pushes
    would never stop) or they would more than double the depth."""
    members = [np.flatnonzero(tree.infoset == i) for i in range(len(tree.infoset_player))]
    members = [m for m in members if len(m) > 1]
    level = depth.copy()
    parent = tree.parent.tolist()
    cap = 2 * int(depth.max()) + 1
    for _ in range(len(members) + 2):
        before = level.copy()
        for m in members:
            level[m] = level[m].max()
        lv = level.tolist()
        for i in range(1, len(lv)):
            lv[i] = max(lv[i], lv[parent[i]] + 1)
        level = np.asarray(lv, dtype=np.int64)
        if level.max() > cap:
            return None
        if np.array_equal(level, before):
            return level
    return None


def tree_layout(tree: Tree) -> TreeLayout:
    """The classic top-down layout of ``tree`` (module docstring): leaves evenly spaced in
    depth-first order, every other node centred over its first and last child."""
    depth = _depths(tree)
    level = _aligned_levels(tree, depth)
    aligned = level is not None
    if level is None:
        level = depth
    n = tree.num_nodes
    x = np.zeros(n)
    x[tree.terminals] = np.arange(tree.num_terminals, dtype=np.float64)
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    parent = tree.parent.tolist()
    is_leaf = tree.player == TERMINAL
    # children carry larger ids than their parent: one backward pass sees every child first
    for i in range(n - 1, -1, -1):
        if not is_leaf[i]:
            x[i] = (lo[i] + hi[i]) / 2
        p = parent[i]
        if p >= 0:
            lo[p] = min(lo[p], x[i])
            hi[p] = max(hi[p], x[i])
    return TreeLayout(x=x, level=level, aligned=aligned)


def edge_probabilities(tree: Tree, profile: Profile | None) -> list:
    """Per node (length n), the probability of the branch into it: chance's (exact) below a
    chance node, the profile's below a player's node (None without a profile), None at the root."""
    out: list = [None] * tree.num_nodes
    for c, probs in zip(tree.chance_nodes.tolist(), tree.chance_probs):
        for child in np.flatnonzero(tree.parent == c).tolist():
            out[child] = probs[int(tree.action[child])]
    if profile is not None:
        dec = np.flatnonzero((tree.parent >= 0) & (tree.player[np.maximum(tree.parent, 0)] >= 0))
        for child in dec.tolist():
            par = int(tree.parent[child])
            i = int(tree.infoset[par])
            seq = int(tree.infoset_first_seq[i]) + int(tree.action[child])
            out[child] = profile.behaviour[int(tree.player[par])][seq]
    return out


def played_edges(tree: Tree, probs: list) -> np.ndarray:
    """Boolean per node: whether the branch into it is reached with positive probability, given
    ``edge_probabilities`` (the root's entry is False: no branch leads there)."""
    parent = tree.parent.tolist()
    reached = [True] + [False] * (tree.num_nodes - 1)
    for i in range(1, tree.num_nodes):
        reached[i] = reached[parent[i]] and probs[i] is not None and probs[i] > 0
    out = np.asarray(reached, dtype=bool)
    out[0] = False
    return out


def check_drawable(tree: Tree, max_leaves: int = DEFAULT_MAX_LEAVES, levels: int | None = None) -> None:
    """``TooLargeError`` (one line, naming ``--max-leaves``) unless ``tree`` has at most
    ``max_leaves`` leaves and at most that many levels below its root."""
    if tree.num_terminals > max_leaves:
        raise TooLargeError(
            f"{tree.name} has {tree.num_terminals:,} leaves, too many to draw readably: at most "
            f"{max_leaves:,} are drawn (raise the limit with --max-leaves N, or max_leaves=N)"
        )
    levels = int(_depths(tree).max()) if levels is None else levels
    if levels > max_leaves:
        raise TooLargeError(
            f"{tree.name} is {levels:,} levels deep, too deep to draw readably: at most "
            f"{max_leaves:,} are drawn (raise the limit with --max-leaves N, or max_leaves=N)"
        )


def output_format(path: str | os.PathLike) -> str:
    """The format of ``path`` by its extension (``svg``, ``pdf`` or ``png``); ``SeqformError``
    for any other."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in FORMATS:
        raise SeqformError(
            f"cannot draw to {os.fspath(path)!r}: the file name must end in {', '.join(FORMATS)} (got {ext or 'none'})"
        )
    return FORMATS[ext]


def _short(v: Any, width: int, digits: int) -> str:
    """An exact value as its rational when that takes at most ``width`` characters, else as a
    decimal with ``digits`` significant digits; a float always as a decimal. Minus signs are
    typographic."""
    if isinstance(v, (int, Fraction, flint.fmpq)):
        s = rational_str(v)
        s = s if len(s) <= width else f"{float(fraction_of(v)):.{digits}g}"
    else:
        s = f"{float(v):.{digits}g}"
    return s.replace("-", "\u2212")


def format_payoff(v: Any) -> str:
    """A payoff as a leaf shows it (exact rational if at most 6 characters, else 4 digits)."""
    return _short(v, 6, 4)


def format_probability(v: Any) -> str:
    """A probability as a branch shows it (exact rational if at most 7 characters, else 3 digits)."""
    return _short(v, 7, 3)


def _player_names(tree: Tree) -> list:
    """The game's player names when it has them (a Gambit file's), else P0, P1, ..."""
    names = getattr(tree.game, "player_names", None)
    if isinstance(names, (tuple, list)) and len(names) == tree.num_players and all(names):
        return [str(s) if len(str(s)) <= 14 else str(s)[:13] + "\u2026" for s in names]
    return [f"P{p}" for p in range(tree.num_players)]


def _colour(p: int) -> str:
    return PLAYER_COLOURS[p % len(PLAYER_COLOURS)]


def draw_tree(
    tree: Tree | Game,
    profile: Profile | None = None,
    path: str | os.PathLike | None = None,
    *,
    max_leaves: int = DEFAULT_MAX_LEAVES,
) -> Any:
    """Draw a small game's tree as textbooks do (module docstring ``seqform.io.treedraw``).

    Parameters
    ----------
    tree : Tree or Game
        The game, or its compiled tree (``seqform.compile_tree``).
    profile : Profile, optional
        A behavioural profile (one strategy per player, e.g. ``seqform.solve(game).strategy_profile()``
        or ``seqform.read_profile``): its probabilities are written on the players' branches, and the
        branches it reaches with positive probability are bold. Without it, only chance's probabilities.
    path : str or path-like, optional
        Also write the picture there; the extension picks the format: ``.svg``, ``.pdf`` or ``.png``.
    max_leaves : int
        Refuse a tree with more leaves, or more levels, than this (default 64).

    Returns
    -------
    matplotlib.figure.Figure
        The picture, sized to the tree (not attached to pyplot: no window opens).

    Raises
    ------
    TooLargeError
        The tree has more than ``max_leaves`` leaves or levels.
    StrategyError
        ``profile`` is not a profile of this tree.
    SeqformError
        ``path`` has another extension, or matplotlib is not installed.

    Examples
    --------
    >>> import seqform
    >>> tree = seqform.compile_tree(seqform.games.load("threat_zero_sum"))
    >>> fig = seqform.draw_tree(tree, seqform.solve(tree).strategy_profile())
    >>> sorted(t.get_text() for t in fig.axes[0].texts if (t.get_gid() or "").startswith("payoff"))
    ['0\\n0', '0\\n0', '\u22125\\n5']
    """
    if not isinstance(tree, Tree):
        tree = compile_tree(tree)
    fmt = output_format(path) if path is not None else None
    check_drawable(tree, max_leaves)  # before the layout, whose alignment is quadratic on a big tree
    layout = tree_layout(tree)
    check_drawable(tree, max_leaves, int(layout.level.max()))
    if profile is not None:
        validate_profile(tree, profile)
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise SeqformError(matplotlib_hint()) from None
    fig = _render(Figure, tree, layout, profile)
    if path is not None:
        _save(fig, path, fmt)
    return fig


@dataclass(frozen=True)
class _Geometry:
    """Inches per leaf spacing (``unit``) and per level, the drawing's bounds in data units, and
    where the legend goes: in ``ncol`` columns above the tree, or (``beside``) in one column right
    of ``tree_right`` when above it would take more than two rows."""

    unit: float
    left: float
    right: float
    bottom: float  # below the lowest leaf: its payoffs
    top: float  # above the root: the legend when it is not beside the tree
    ncol: int
    beside: bool
    tree_right: float

    @property
    def width(self) -> float:
        return (self.right - self.left) * self.unit

    @property
    def height(self) -> float:
        return (self.top - self.bottom) * LEVEL_HEIGHT


def _text_width(chars: int, size: float = FONT) -> float:
    """Estimated inches of ``chars`` characters of the sans-serif font (0.6 em each)."""
    return 0.6 * size / 72 * chars


def _legend_columns(labels: list, width: float) -> tuple:
    """``(ncol, rows, inches)``: the most legend columns whose estimated total width fits in
    ``width`` inches, and the width they take. matplotlib splits the entries into columns as
    ``numpy.array_split`` does."""
    entry = [0.85 * _text_width(len(s), FONT - 0.5) + 0.55 for s in labels]  # mostly lower case
    for ncol in range(len(entry), 0, -1):
        columns = [c for c in np.array_split(np.asarray(entry), ncol) if len(c)]
        total = sum(float(c.max()) for c in columns)
        if total <= width - 0.2 or ncol == 1:
            return ncol, max(len(c) for c in columns), total + 0.2
    raise AssertionError("unreachable")


def _gaps(x: np.ndarray, level: np.ndarray) -> np.ndarray:
    """Per node, the distance to its neighbour on its level to the left (column 0) and to the
    right (column 1); infinite where there is none."""
    order = np.lexsort((x, level))
    xs, ls = x[order], level[order]
    same = ls[1:] == ls[:-1]
    step = np.where(same, np.diff(xs), np.inf)
    gaps = np.full((len(x), 2), np.inf)
    gaps[order[1:], 0] = step
    gaps[order[:-1], 1] = step
    return gaps


def _tag_side(tree: Tree, x: np.ndarray, i: int) -> int:
    """Where node ``i``'s tag goes: +1 (right) when its branch comes in from the left, else -1."""
    par = int(tree.parent[i])
    return 1 if par >= 0 and x[i] > x[par] + 1e-9 else -1


def _leaf_spacing(tree: Tree, layout: TreeLayout, labels: list, names: list, widest_payoff: int) -> float:
    """Inches per leaf spacing: room for the widest payoff; for each branch's labels in the room
    beside it (half its horizontal run plus half the distance from its lower node to that node's
    neighbour on the labels' side); for each player's tag between its node and the neighbour on
    the tag's side."""
    unit = max(0.5, _text_width(widest_payoff) + 0.2)
    x = layout.x
    gap = _gaps(x, layout.level)
    for child in range(1, tree.num_nodes):
        need = max(len(t) for t in labels[child])
        if need:
            dx = x[child] - x[int(tree.parent[child])]
            room = 0.5 * abs(dx) + 0.5 * min(4.0, gap[child, 1 if dx > 1e-9 else 0])
            unit = max(unit, (_text_width(need) + 0.1) / room)
    for i in np.flatnonzero(tree.player >= 0).tolist():
        room = min(4.0, gap[i, 1 if _tag_side(tree, x, i) > 0 else 0])
        unit = max(unit, (1.1 * _text_width(len(names[int(tree.player[i])]), NODE_FONT) + 0.3) / room)
    return min(unit, 1.6)


def _geometry(tree: Tree, layout: TreeLayout, labels: list, payoffs: list, names: list, legend: list) -> _Geometry:
    """The figure's size and bounds from its texts (character widths estimated): the margins
    left and right fit the widest label, payoff or node tag (bold, beside its node)."""
    widest_payoff = max((len(line) for s in payoffs for line in s.split("\n")), default=1)
    unit = _leaf_spacing(tree, layout, labels, names, widest_payoff)
    widest_label = max((max(len(t) for t in pair) for pair in labels), default=1)
    tag = 1.1 * _text_width(max(len(s) for s in names), NODE_FONT) + 0.15
    margin = max(0.6, (max(_text_width(max(widest_label, widest_payoff)), tag) + 0.25) / unit)
    left, right = float(layout.x.min()) - margin, float(layout.x.max()) + margin
    ncol, rows, needed = _legend_columns(legend, (right - left) * unit)
    beside = rows > 2
    tree_right = right
    if beside:
        _, rows, needed = _legend_columns(legend, 0.0)
        right += needed / unit
    elif needed > (right - left) * unit:
        extra = (needed / unit - (right - left)) / 2
        left, right = left - extra, right + extra
    line = 1.5 * FONT / 72  # inches per legend row
    payoff_depth = (tree.num_players * 1.25 * FONT / 72 + 0.25) / LEVEL_HEIGHT
    top = 0.35 + (0 if beside else (rows * line + 0.3) / LEVEL_HEIGHT)
    bottom = -float(layout.level.max()) - payoff_depth
    # beside the tree the legend needs its rows' height
    bottom = min(bottom, top - (rows * line + 0.3) / LEVEL_HEIGHT) if beside else bottom
    return _Geometry(unit, left, right, bottom, top, ncol if not beside else 1, beside, tree_right)


def _render(Figure: Any, tree: Tree, layout: TreeLayout, profile: Profile | None) -> Any:
    """The figure of ``draw_tree``; its artists carry ids (``gid``) naming what they show:
    ``edge-C`` (the branch into node C), ``action-C``, ``prob-C``, ``node-I``, ``player-I`` (node
    I's tag), ``infoset-I`` (information set I's join), ``payoff-T`` (terminal T, in
    ``tree.terminals`` order)."""
    probs = edge_probabilities(tree, profile)
    played = played_edges(tree, probs) if profile is not None else np.zeros(tree.num_nodes, dtype=bool)
    names = _player_names(tree)
    payoffs = ["\n".join(format_payoff(v) for v in row) for row in tree.payoff_exact]
    labels = _edge_labels(tree, probs)
    handles = _legend_handles(tree, names, profile is not None)
    geo = _geometry(tree, layout, labels, payoffs, names, [h.get_label() for h in handles])
    fig = Figure(figsize=(geo.width, geo.height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(geo.left, geo.right)
    ax.set_ylim(geo.bottom, geo.top)
    ax.set_axis_off()
    x, y = layout.x, -layout.level.astype(np.float64)
    _draw_edges(ax, tree, x, y, played, labels)
    _draw_infosets(ax, tree, x, y)
    _draw_nodes(ax, tree, x, y, names)
    for t, node in enumerate(tree.terminals.tolist()):
        ax.annotate(
            payoffs[t],
            (x[node], y[node]),
            xytext=(0, -5),
            textcoords="offset points",
            ha="center",
            va="top",
            fontsize=FONT,
            linespacing=1.15,
            gid=f"payoff-{t}",
        )
    where = (
        {"loc": "upper left", "bbox_to_anchor": ((geo.tree_right - geo.left) / (geo.right - geo.left), 1.0)}
        if geo.beside
        else {"loc": "upper center"}
    )
    fig.legend(
        handles=handles,
        ncol=geo.ncol,
        frameon=False,
        fontsize=FONT - 0.5,
        handlelength=2.2,
        columnspacing=1.4,
        borderaxespad=0.3,
        **where,
    )
    return fig


def _edge_labels(tree: Tree, probs: list) -> list:
    """Per node, (action label, probability text) of the branch into it ("" where none)."""
    out = [("", "")] * tree.num_nodes
    for child in range(1, tree.num_nodes):
        par = int(tree.parent[child])
        a = int(tree.action[child])
        if tree.player[par] == CHANCE:
            act = str(tree.chance_labels[tree.chance_index[par]][a])
        else:
            act = str(tree.infoset_actions[int(tree.infoset[par])][a])
        out[child] = (act, "" if probs[child] is None else format_probability(probs[child]))
    return out


def _line(ax: Any, xs: list, ys: list, **style) -> None:
    """A line added as it is: ``ax.plot`` would also update the data limits, which are fixed
    here, and costs several times as much."""
    from matplotlib.lines import Line2D

    ax.add_artist(Line2D(xs, ys, **style))


def _draw_edges(ax: Any, tree: Tree, x: np.ndarray, y: np.ndarray, played: np.ndarray, labels: list) -> None:
    """Each branch as a line (bold when played), its action label and probability on its outer
    side: left of a branch going left, right of one going right, so the labels never cross it."""
    line_pt = FONT * 1.2
    for child in range(1, tree.num_nodes):
        par = int(tree.parent[child])
        bold = bool(played[child])
        _line(
            ax,
            [x[par], x[child]],
            [y[par], y[child]],
            color="black",
            lw=BOLD_WIDTH if bold else EDGE_WIDTH,
            solid_capstyle="round",
            zorder=1,
            gid=f"edge-{child}",
        )
        act, prob = labels[child]
        dx = x[child] - x[par]
        side = 1 if dx > 1e-9 else -1
        ha = "left" if side > 0 else "right"
        mid = ((x[par] + x[child]) / 2, (y[par] + y[child]) / 2)
        vertical = abs(dx) <= 1e-9
        base = -line_pt / 2 if vertical else 2.0  # beside a vertical branch: centred on its middle
        colour = CHANCE_TEXT if tree.player[par] == CHANCE else _colour(int(tree.player[par]))
        if prob:
            ax.annotate(
                prob,
                mid,
                xytext=(4 * side, base),
                textcoords="offset points",
                ha=ha,
                va="bottom",
                fontsize=FONT - 0.5,
                color=colour,
                style="italic",
                gid=f"prob-{child}",
                bbox=_HALO,
                zorder=4,
            )
        ax.annotate(
            act,
            mid,
            xytext=(4 * side, base + (line_pt if prob else 0)),
            textcoords="offset points",
            ha=ha,
            va="bottom",
            fontsize=FONT,
            gid=f"action-{child}",
            bbox=_HALO,
            zorder=4,
        )


def _draw_nodes(ax: Any, tree: Tree, x: np.ndarray, y: np.ndarray, names: list) -> None:
    """Players' nodes as discs in their colours, tagged with the player's name on the side away
    from the branch coming in; chance nodes as open circles; leaves as dots."""
    for i in range(tree.num_nodes):
        p = int(tree.player[i])
        if p == TERMINAL:
            _line(ax, [x[i]], [y[i]], ls="none", marker="o", ms=3, color="black", zorder=3, gid=f"node-{i}")
            continue
        # chance: an open circle; a player: a disc in the player's colour, tagged with its name
        face, edge_width = ("white", 1.2) if p == CHANCE else (_colour(p), 0.8)
        _line(
            ax,
            [x[i]],
            [y[i]],
            ls="none",
            marker="o",
            ms=9,
            mfc=face,
            mec="black",
            mew=edge_width,
            zorder=3,
            gid=f"node-{i}",
        )
        if p != CHANCE:
            side = _tag_side(tree, x, i)
            ax.annotate(
                names[p],
                (x[i], y[i]),
                xytext=(7 * side, 3),
                textcoords="offset points",
                ha="left" if side > 0 else "right",
                va="bottom",
                fontsize=NODE_FONT,
                color=_colour(p),
                fontweight="bold",
                zorder=4,
                gid=f"player-{i}",
                bbox=_HALO,
            )


def _draw_infosets(ax: Any, tree: Tree, x: np.ndarray, y: np.ndarray) -> None:
    """Each information set of two or more nodes as one dashed path in its owner's colour through
    its nodes, left to right: a straight segment between neighbours on a level, an arc where other
    nodes lie between them (or the two are on different levels). On each level the arcs bend
    alternately above and below it, left to right, so that two sets whose nodes interleave (a
    card game's) stay apart."""
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path

    order = np.lexsort((x, y))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))  # a node's position along its level, levels in a row
    joined = []
    for i in range(len(tree.infoset_player)):
        members = np.flatnonzero(tree.infoset == i)
        if len(members) > 1:
            members = members[np.argsort(x[members], kind="stable")]
            joined.append((float(y[members[0]]), float(x[members[0]]), i, members))
    arcs_on_level: dict = {}
    for level, _, i, members in sorted(joined, key=lambda j: (-j[0], j[1])):
        verts, codes = [(x[members[0]], y[members[0]])], [Path.MOVETO]
        for a, b in zip(members[:-1], members[1:]):
            if y[a] == y[b] and rank[b] == rank[a] + 1:
                verts.append((x[b], y[b]))
                codes.append(Path.LINETO)
                continue
            k = arcs_on_level[level] = arcs_on_level.get(level, -1) + 1
            # the control point lies twice as far from the chord as the arc's apex
            bend = min(0.8, 0.2 + 0.06 * abs(x[b] - x[a]))
            apex_y = min(y[a], y[b]) - bend if k % 2 or y[a] != y[b] else y[a] + bend
            verts += [((x[a] + x[b]) / 2, apex_y), (x[b], y[b])]
            codes += [Path.CURVE3, Path.CURVE3]
        ax.add_patch(
            PathPatch(
                Path(verts, codes),
                fill=False,
                edgecolor=_colour(int(tree.infoset_player[i])),
                lw=1.4,
                linestyle=(0, (4, 2.5)),
                zorder=2,
                gid=f"infoset-{i}",
            )
        )


def _legend_handles(tree: Tree, names: list, with_profile: bool) -> list:
    from matplotlib.lines import Line2D

    handles = []
    present = set(tree.player.tolist())
    for p, name in enumerate(names):
        if p in present:
            label = f"{name} (player {p})" if name == f"P{p}" else name
            handles.append(Line2D([], [], ls="none", marker="o", ms=8, mfc=_colour(p), mec="black", label=label))
    if CHANCE in present:
        handles.append(Line2D([], [], ls="none", marker="o", ms=8, mfc="white", mec="black", label="chance"))
    if any(np.bincount(tree.infoset[tree.infoset >= 0]) > 1):
        handles.append(Line2D([], [], color="grey", lw=1.4, ls=(0, (4, 2.5)), label="information set"))
    if with_profile:
        handles.append(Line2D([], [], color="black", lw=BOLD_WIDTH, label="played with positive probability"))
    order = ", ".join(names)
    handles.append(Line2D([], [], ls="none", label=f"payoffs, top to bottom: {order}"))
    return handles


def _save(fig: Any, path: str | os.PathLike, fmt: str | None) -> None:
    # no creation date in the file: the same tree gives the same bytes
    meta = {"svg": {"Date": None}, "pdf": {"CreationDate": None}, "png": {}}[fmt or "png"]
    from matplotlib import rc_context

    try:
        with rc_context({"svg.hashsalt": "seqform"}):  # the ids of an svg's parts are hashes
            fig.savefig(path, format=fmt, dpi=DPI, metadata=meta)
    except OSError as e:
        raise SeqformError(f"cannot write {os.fspath(path)}: {e.strerror or e}") from None

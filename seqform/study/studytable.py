"""A study's results: one tidy table, one row per cell and measuring point, in Parquet.

Layout of a study's output directory ``OUT``:

* ``OUT/cells/<id>.parquet``: one file per finished cell (its rows), written atomically (a
  temporary file renamed into place) by the study's driver as each cell comes back. These files
  *are* the table: a study stopped at any moment (Ctrl-C, a killed machine) leaves only whole
  cells, and a rerun skips the cells whose file says ``ok``.
* ``OUT/results.parquet`` and ``OUT/results.csv``: the cells of the study gathered into one
  table, rewritten when a run ends or is interrupted.
* ``OUT/runs.jsonl``: one line per run that ran cells: executor, workers, cells, wall seconds,
  the ground truth's seconds.
* ``OUT/environment.json``: where the table was made (versions, machine, git commit), once, with
  every later resumption's environment listed under ``resumed``.

The columns (``COLUMNS``) are the same for every study and executor. A failed cell has one row,
``status`` "failed", its ``error`` and no measures. ``seconds``, ``solver_seconds``, ``worker``
(host and process id), ``cell_seconds`` and ``node`` (the id of the Ray node that ran the cell;
null on the local pool, and in tables written before the column existed) are timings and places;
every other column is a function of the study alone (same seeds, same numbers on any executor:
``DETERMINISTIC_COLUMNS``).

The last columns came later (tables written before them read them as null): ``players``, the
game's; ``nash_conv``, the sum over players of what a best response gains (the exploitability
column is it divided by ``players``); ``values``, each player's expected payoff as a JSON list. A game
without a value (more than two players, or two-player general-sum) has ``value_gap``,
``game_value`` and ``game_value_float`` null and is measured by ``nash_conv``; its cell's last row
also has ``nash_conv_exact`` and ``max_infoset_regret_exact``, exact rationals "p/q" of the
profile's floats at their binary value (``seqform.study.verifyharness``).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import time
from pathlib import Path

from seqform.errors import SeqformError

#: (name, pyarrow type name) of every column, in order
COLUMNS = (
    ("study", "string"),
    ("game", "string"),
    ("solver", "string"),
    ("params", "string"),
    ("seed", "int64"),
    ("iterations", "int64"),
    ("cell", "string"),
    ("status", "string"),
    ("error", "string"),
    ("attempts", "int64"),
    ("iteration", "int64"),
    ("traversals", "int64"),
    ("nodes_touched", "int64"),
    ("work", "int64"),
    ("seconds", "float64"),
    ("solver_seconds", "float64"),
    ("exploitability", "float64"),
    ("current_exploitability", "float64"),
    ("value", "float64"),
    ("value_gap", "float64"),
    ("max_infoset_regret", "float64"),
    ("theorem_bound", "float64"),
    ("efpe_distance", "float64"),
    ("qpe_distance", "float64"),
    ("perturbed_exploitability", "float64"),
    ("perturbed_value_gap", "float64"),
    ("perturbed_max_infoset_regret", "float64"),
    ("tremble_violation", "float64"),
    ("game_value", "string"),
    ("game_value_float", "float64"),
    ("worker", "string"),
    ("cell_seconds", "float64"),
    ("node", "string"),
    ("players", "int64"),
    ("nash_conv", "float64"),
    ("values", "string"),
    ("nash_conv_exact", "string"),
    ("max_infoset_regret_exact", "string"),
)
TIMING_COLUMNS = ("seconds", "solver_seconds", "worker", "cell_seconds", "node")
DETERMINISTIC_COLUMNS = tuple(c for c, _ in COLUMNS if c not in TIMING_COLUMNS)


def truth_columns(pt, truth) -> dict:
    """The columns of a measuring point ``pt`` (``seqform.study.verifyharness.VerifyPoint``) that
    its game's ground truth ``truth`` (``GroundTruth``) decides: the game value (null without
    one), the players, NashConv, the players' values and, at a game without a value's last
    point, the exact NashConv and largest information-set regret."""
    value = truth.value
    return {
        "game_value": None if value is None else str(value),
        "game_value_float": None if value is None else float(value),
        "players": getattr(truth, "players", 2),
        "nash_conv": pt.nash_conv,
        "values": None if pt.values is None else json.dumps([float(v) for v in pt.values]),
        "nash_conv_exact": pt.nash_conv_exact,
        "max_infoset_regret_exact": pt.max_infoset_regret_exact,
    }


def require_pyarrow():
    """pyarrow (with its csv and parquet modules), or a one-line SeqformError naming the extra that installs it."""
    try:
        import pyarrow
        import pyarrow.csv  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        from seqform.installation import install_command

        raise SeqformError(f"studies need pyarrow for their tables: {install_command('study')}") from None
    return pyarrow


def schema():
    pa = require_pyarrow()
    return pa.schema([(c, getattr(pa, t)()) for c, t in COLUMNS])


def cell_id(key: str) -> str:
    """The file name of a cell: a hash of its key (``Cell.key``)."""
    return hashlib.sha1(key.encode()).hexdigest()[:20]


def _replace_atomically(final: Path, write) -> None:
    """``write(path)`` to a temporary file beside ``final``, then rename it into place: a reader
    (or a run killed meanwhile) sees the old file or the new one, never half of one."""
    final = Path(final)
    tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    write(tmp)
    os.replace(tmp, final)


def write_cell(out: Path, key: str, rows: list) -> None:
    """Write one cell's rows to ``out/cells/`` atomically."""
    pa = require_pyarrow()
    d = Path(out) / "cells"
    d.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist([{c: r.get(c) for c, _ in COLUMNS} for r in rows], schema=schema())
    _replace_atomically(d / f"{cell_id(key)}.parquet", lambda tmp: pa.parquet.write_table(table, tmp))


def read_cells(out: Path) -> dict:
    """Every finished cell in ``out/cells/``: key -> list of row dicts. Half-written temporary
    files (a run killed while writing) are ignored."""
    pa = require_pyarrow()
    found: dict = {}
    d = Path(out) / "cells"
    if not d.is_dir():
        return found
    for f in sorted(d.glob("*.parquet")):
        try:
            rows = pa.parquet.read_table(f).to_pylist()
        except Exception as e:  # a damaged file: that cell runs again
            print(f"seqform: warning: ignoring the unreadable cell file {f}: {e}", file=sys.stderr)
            continue
        if rows:
            found[rows[0]["cell"]] = rows
    return found


def consolidate(out: Path, keys: list) -> int:
    """Gather the cells ``keys`` (in that order) into ``results.parquet`` and ``results.csv``;
    returns the number of rows."""
    pa = require_pyarrow()
    cells = read_cells(out)
    rows = [r for k in keys if k in cells for r in cells[k]]
    table = pa.Table.from_pylist(rows, schema=schema())
    _replace_atomically(Path(out) / "results.parquet", lambda tmp: pa.parquet.write_table(table, tmp))
    _replace_atomically(Path(out) / "results.csv", lambda tmp: pa.csv.write_csv(table, tmp))
    return len(rows)


def read_table(path: str | Path) -> list:
    """The rows of a study's table.

    Parameters
    ----------
    path : str or Path
        A ``results.parquet`` (or ``results.csv``) file, or a study's output directory.

    Returns
    -------
    list of dict
        One dict per cell and measuring point, keyed by the columns (``COLUMNS``).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from seqform.study import load_study, read_table, run_study
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "s.toml").write_text('[study]\\ngames = ["kuhn"]\\niterations = 100\\ncheckpoints = 3\\n'
    ...                               '[[solvers]]\\nname = "cfr+"\\n')
    >>> _ = run_study(load_study(d / "s.toml"), d / "out", workers=1, progress=False)
    >>> [(r["solver"], r["iteration"]) for r in read_table(d / "out")]
    [('cfr+', 1), ('cfr+', 10), ('cfr+', 100)]
    """
    pa = require_pyarrow()
    p = Path(path)
    if p.is_dir():
        p = p / "results.parquet"
    if not p.exists():
        raise SeqformError(f"no such study table: {p}")
    try:
        if p.suffix == ".csv":
            return pa.csv.read_csv(p, convert_options=pa.csv.ConvertOptions(column_types=schema())).to_pylist()
        return pa.parquet.read_table(p).to_pylist()
    except Exception as e:
        raise SeqformError(f"{p}: not a study table ({type(e).__name__}: {str(e).splitlines()[0]})") from None


def log_run(out: Path, summary: dict) -> None:
    """Append one run's summary (executor, workers, cells run, wall and ground-truth seconds) to
    ``runs.jsonl``: the report's scaling estimate reads it."""
    with open(Path(out) / "runs.jsonl", "a") as f:
        f.write(json.dumps({**summary, "date": time.strftime("%Y-%m-%dT%H:%M:%S%z")}) + "\n")


def read_runs(out: Path) -> list:
    """The runs logged by ``log_run`` (an empty list when there is no log)."""
    p = Path(out) / "runs.jsonl"
    if not p.exists():
        return []
    runs = []
    for line in p.read_text().splitlines():
        try:
            runs.append(json.loads(line))
        except ValueError:  # a line cut short by a killed run
            pass
    return runs


def environment() -> dict:
    """Versions, machine and git commit (``seqform.installation.git_commit``): recorded once per table."""
    from importlib import metadata

    from seqform.installation import git_commit

    versions = {}
    for dist in ("seqform", "numpy", "scipy", "highspy", "python-flint", "pyarrow", "open_spiel", "ray"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "system": platform.platform(),
        "node": platform.node(),
        "cpus": os.cpu_count(),
        "git_commit": git_commit(),
        "versions": versions,
    }


def record_environment(out: Path, extra: dict) -> None:
    """Write ``environment.json`` the first time; on a resumption, add this run's under ``resumed``."""
    p = Path(out) / "environment.json"
    env = {**environment(), **extra}
    if p.exists():
        try:
            old = json.loads(p.read_text())
        except (OSError, ValueError):
            old = None
        if isinstance(old, dict):
            old.setdefault("resumed", []).append(env)
            env = old
    _replace_atomically(p, lambda tmp: tmp.write_text(json.dumps(env, indent=2, sort_keys=True) + "\n"))


__all__ = [
    "COLUMNS",
    "truth_columns",
    "DETERMINISTIC_COLUMNS",
    "TIMING_COLUMNS",
    "write_cell",
    "read_cells",
    "consolidate",
    "read_table",
    "environment",
    "record_environment",
    "cell_id",
    "log_run",
    "read_runs",
]

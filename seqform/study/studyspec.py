"""A verification study's description, read from a TOML file (``seqform study STUDY.toml``).

A study names games, solvers with parameter grids, seeds, iteration counts and measuring points;
every combination is one *cell*, one ``seqform verify`` run. The file::

    [study]
    name = "smoke"                      # the table's name (default: the file's stem)
    games = ["kuhn", "leduc"]           # GAME arguments, as on the command line
    seeds = 2                           # seeds 0, 1; or a list: [3, 7]
    iterations = 1000                   # per cell; or per game: { kuhn = 1000, leduc = 5000 }
    checkpoints = 20                    # log-spaced measuring points per cell (default 20)
    time_limit = 600                    # seconds a cell may run before it is stopped as failed
    refined = ["efpe"]                  # optional: distance to the exact limit EFPE / QPE
    eps = 0.01                          # optional, with refined: the perturbed game's ground truth

    [[solvers]]
    name = "cfr+"

    [[solvers]]
    name = "os-mccfr-batched"
    iterations = 20000                  # overrides the study's
    params = { batch = [128, 512] }     # a grid: one cell per combination

A solver's ``params`` are its constructor's keyword arguments
(``seqform.study.verifyharness.make_solver``); a list is a grid axis. Deterministic solvers
(``DETERMINISTIC``) run with the first seed only: more seeds would repeat the same run.

Errors name the file, the line and the key (``StudyError``), as game files name file:line:col.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from seqform.errors import SeqformError, StudyError
from seqform.io.gamespec import load_game

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


STUDY_KEYS = {"name", "games", "seeds", "iterations", "checkpoints", "time_limit", "refined", "eps"}
SOLVER_KEYS = {"name", "params", "iterations", "checkpoints"}
#: the most cells a study may have, and measuring points a cell: a file asking for more (a
#: mistyped count) is refused when it is read, not after its cells are listed one by one
MAX_CELLS = 100_000
MAX_CHECKPOINTS = 10_000


@dataclass(frozen=True)
class Cell:
    """One verify run: ``game`` (a GAME argument), ``solver`` (its name), ``params`` (sorted
    (key, value) pairs), ``seed``, ``iterations`` and the iteration numbers ``points`` to measure
    at. ``key`` identifies the cell in the table."""

    game: str
    solver: str
    params: tuple
    seed: int
    iterations: int
    points: tuple

    @property
    def params_json(self) -> str:
        return json.dumps(dict(self.params), sort_keys=True)

    @property
    def key(self) -> str:
        return f"{self.game}|{self.solver}|{self.params_json}|{self.seed}|{self.iterations}"


@dataclass
class SolverSpec:
    name: str
    params: dict = field(default_factory=dict)
    iterations: Any = None
    checkpoints: int | None = None


@dataclass
class StudySpec:
    """A parsed study (module docstring). ``cells()`` lists its cells in a fixed order."""

    name: str
    path: str
    games: list
    seeds: list
    iterations: Any
    checkpoints: int = 20
    time_limit: float | None = None
    refined: list = field(default_factory=list)
    eps: float | None = None
    solvers: list = field(default_factory=list)

    def iterations_for(self, solver: SolverSpec, game: str) -> int:
        it = solver.iterations if solver.iterations is not None else self.iterations
        return int(it[game] if isinstance(it, dict) else it)

    def cells(self) -> list:
        """Every (game, solver, parameter combination, seed), games outermost."""
        from seqform.study.verifyharness import DETERMINISTIC, checkpoints

        out = []
        for game in self.games:
            for s in self.solvers:
                n = self.iterations_for(s, game)
                pts = tuple(checkpoints(n, s.checkpoints or self.checkpoints))
                axes = sorted(s.params.items())
                grids = [v if isinstance(v, list) else [v] for _, v in axes]
                seeds = self.seeds[:1] if s.name in DETERMINISTIC else self.seeds
                for combo in itertools.product(*grids):
                    params = tuple((k, v) for (k, _), v in zip(axes, combo))
                    for seed in seeds:
                        out.append(Cell(game, s.name, params, int(seed), n, pts))
        return out


class _Locator:
    """Line numbers of keys in the TOML text (``tomllib`` gives none): the line of ``key = ``
    inside the n-th ``[[solvers]]`` or the ``[study]`` table, else the table's header line."""

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.headers = []  # (line number, header name)
        for no, line in enumerate(self.lines, 1):
            m = re.match(r"\s*\[\[?\s*([A-Za-z0-9_.\"-]+)\s*\]\]?", line)
            if m:
                self.headers.append((no, m.group(1)))

    def find(self, table: str, index: int | None, key: str | None) -> int:
        blocks = [no for no, h in self.headers if h == table]
        if index is not None and index < len(blocks):
            start = blocks[index]
        elif blocks:
            start = blocks[0]
        else:
            start = 1
        nexts = [no for no, h in self.headers if no > start and not h.startswith(table + ".")]
        end = nexts[0] if nexts else len(self.lines) + 1
        if key is not None:
            pat = re.compile(rf"(^|[{{,\s]){re.escape(key)}\s*=")
            for no in range(start, end):
                if pat.search(self.lines[no - 1].split("#")[0]):
                    return no
        return start


def load_study(path: str | Path) -> StudySpec:
    """Read and check a study file (the format is this module's docstring).

    Parameters
    ----------
    path : str or Path
        The TOML file.

    Returns
    -------
    StudySpec
        The study; ``cells()`` lists its cells (game, solver, parameters, seed).

    Raises
    ------
    StudyError
        The file cannot be read, is not TOML, or has a wrong key or value: the message starts
        with ``file:line:`` and names the key.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from seqform.study import load_study
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.toml"
    >>> _ = p.write_text('[study]\\ngames = ["kuhn"]\\nseeds = 2\\niterations = 100\\n'
    ...                  '[[solvers]]\\nname = "es-mccfr"\\n')
    >>> [(c.game, c.solver, c.seed) for c in load_study(p).cells()]
    [('kuhn', 'es-mccfr', 0), ('kuhn', 'es-mccfr', 1)]
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StudyError(f"no such file: {path}") from None
    except UnicodeDecodeError as e:  # TOML is UTF-8: say where it is not, as for a syntax error
        line = e.object[: e.start].count(b"\n")
        col = e.start - (e.object.rfind(b"\n", 0, e.start) + 1) + 1
        raise StudyError(
            f"{path}:{line + 1}:{col}: not UTF-8 text (byte {e.object[e.start : e.start + 1]!r}); TOML files are UTF-8"
        ) from None
    except OSError as e:
        raise StudyError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        where = f"{path}:{m.group(1)}:{m.group(2)}" if m else str(path)
        what = re.sub(r" \(at line.*", "", str(e))
        raise StudyError(f"{where}: not valid TOML: {what}") from None
    loc = _Locator(text)

    def fail(table: str, index: int | None, key: str | None, msg: str) -> NoReturn:
        label = table if index is None else f"{table}[{index}]"
        raise StudyError(f"{path}:{loc.find(table, index, key)}: {label}{'.' + key if key else ''}: {msg}")

    for top in data:
        if top not in ("study", "solvers"):
            raise StudyError(
                f"{path}:{loc.find(top, None, None) if isinstance(data[top], dict) else loc.find('', None, top)}: "
                f"unknown table or key {top!r}; a study has [study] and [[solvers]]"
            )
    study = data.get("study")
    if not isinstance(study, dict):
        raise StudyError(f"{path}:1: missing the [study] table")
    for k in study:
        if k not in STUDY_KEYS:
            fail("study", None, k, f"unknown key; [study] takes {', '.join(sorted(STUDY_KEYS))}")
    games = study.get("games")
    if not isinstance(games, list) or not games or not all(isinstance(g, str) and g for g in games):
        fail("study", None, "games", 'must be a non-empty list of game names, e.g. ["kuhn", "leduc"]')
    if len(set(games)) != len(games):
        fail("study", None, "games", "names a game twice")
    for g in games:
        # a name that names no game is the file's mistake: say so now, with its line, before
        # a study starts (and leaves an output folder behind)
        try:
            load_game(g)
        except SeqformError as e:
            fail("study", None, "games", f"{g!r}: {e}")
        except OSError as e:  # a .efg file that is not there, or not readable
            fail("study", None, "games", f"{g!r}: cannot read it: {e.strerror or e}")
    seeds = study.get("seeds", 1)
    if isinstance(seeds, bool) or not (
        isinstance(seeds, int)
        and seeds >= 1
        or isinstance(seeds, list)
        and seeds
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds)
    ):
        fail("study", None, "seeds", "must be a positive count or a non-empty list of non-negative integers")
    if isinstance(seeds, int) and seeds > MAX_CELLS:
        fail("study", None, "seeds", f"{seeds} seeds: a study has at most {MAX_CELLS:,} cells")
    seeds = list(range(seeds)) if isinstance(seeds, int) else list(dict.fromkeys(seeds))
    if "iterations" not in study:
        fail("study", None, None, "missing the key 'iterations'")

    def check_iterations(value, table, index):
        if isinstance(value, dict):
            for g, v in value.items():
                if g not in games:
                    fail(table, index, "iterations", f"names {g!r}, which is not one of the study's games")
                if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                    fail(table, index, "iterations", f"{g}: must be a positive integer, got {v!r}")
            missing = [g for g in games if g not in value]
            if missing and table == "study":
                fail(table, index, "iterations", f"gives no count for {', '.join(missing)}")
        elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
            fail(table, index, "iterations", f"must be a positive integer or a table by game, got {value!r}")

    check_iterations(study["iterations"], "study", None)
    cps = study.get("checkpoints", 20)
    if isinstance(cps, bool) or not isinstance(cps, int) or not 1 <= cps <= MAX_CHECKPOINTS:
        fail("study", None, "checkpoints", f"must be an integer from 1 to {MAX_CHECKPOINTS:,}, got {cps!r}")
    tl = study.get("time_limit")
    if tl is not None and (isinstance(tl, bool) or not isinstance(tl, (int, float)) or not tl > 0):
        fail("study", None, "time_limit", f"must be a positive number of seconds, got {tl!r}")
    refined = study.get("refined", [])
    if not isinstance(refined, list) or any(r not in ("efpe", "qpe") for r in refined):
        fail("study", None, "refined", 'must be a list of "efpe" and/or "qpe"')
    eps = study.get("eps")
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < 1):
        fail("study", None, "eps", f"must lie strictly between 0 and 1, got {eps!r}")
    if eps is not None and not refined:
        fail("study", None, "eps", "needs refined (the concept whose perturbed game is the ground truth)")
    name = study.get("name", path.stem)
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        fail("study", None, "name", "must be letters, digits, '_', '.' or '-'")

    solvers = data.get("solvers")
    if not isinstance(solvers, list) or not solvers:
        raise StudyError(f"{path}:{len(loc.lines) or 1}: no solvers: add a [[solvers]] table with a name")
    from seqform.study.verifyharness import all_solvers, solver_parameters

    known = all_solvers()
    specs = []
    for i, s in enumerate(solvers):
        if not isinstance(s, dict):
            fail("solvers", i, None, f"must be a table with a name ([[solvers]] then name = ...), not {s!r}")
        for k in s:
            if k not in SOLVER_KEYS:
                fail("solvers", i, k, f"unknown key; [[solvers]] takes {', '.join(sorted(SOLVER_KEYS))}")
        nm = s.get("name")
        if not isinstance(nm, str) or nm not in known:
            fail("solvers", i, "name", f"unknown solver {nm!r}; choose one of {', '.join(known)}")
        params = s.get("params", {})
        if not isinstance(params, dict):
            fail("solvers", i, "params", "must be a table, e.g. { batch = [128, 512] }")
        allowed = solver_parameters(nm)
        for k, v in params.items():
            if k not in allowed:
                fail(
                    "solvers",
                    i,
                    k,
                    f"{nm} takes no parameter {k!r}"
                    + (f"; it takes {', '.join(sorted(allowed))}" if allowed else "; it takes none"),
                )
            vals = v if isinstance(v, list) else [v]
            if not vals or not all(isinstance(x, (int, float, str, bool)) for x in vals):
                fail("solvers", i, k, "must be a number, string or boolean, or a non-empty list of them")
        if "iterations" in s:
            check_iterations(s["iterations"], "solvers", i)
        c = s.get("checkpoints")
        if c is not None and (isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= MAX_CHECKPOINTS):
            fail("solvers", i, "checkpoints", f"must be an integer from 1 to {MAX_CHECKPOINTS:,}, got {c!r}")
        it = s.get("iterations")
        if isinstance(it, dict):  # per-game counts the solver leaves out come from the study's
            base = study["iterations"]
            it = {g: it.get(g, base[g] if isinstance(base, dict) else base) for g in games}
        specs.append(SolverSpec(nm, params, it, c))
    _check_cells(fail, specs, len(games), len(seeds))
    _check_solvers(fail, specs, None if eps is None else float(eps))
    return StudySpec(
        name,
        str(path),
        games,
        seeds,
        study["iterations"],
        cps,
        None if tl is None else float(tl),
        refined,
        None if eps is None else float(eps),
        specs,
    )


def _check_cells(fail, specs: list, games: int, seeds: int) -> None:
    """Refuse a study of more than ``MAX_CELLS`` cells (counted, not listed)."""
    from seqform.study.verifyharness import DETERMINISTIC

    total = 0
    for s in specs:
        combos = 1
        for v in s.params.values():
            combos *= len(v) if isinstance(v, list) else 1
        total += games * combos * (1 if s.name in DETERMINISTIC else seeds)
    if total > MAX_CELLS:
        fail("study", None, None, f"{total:,} cells (games x solvers x parameters x seeds): at most {MAX_CELLS:,}")


def _check_solvers(fail, specs: list, eps: float | None) -> None:
    """Build every solver with each value of each of its parameters on Kuhn poker, so that a
    value no cell can run with (a negative batch, an exploration above 1, a solver whose library
    is not installed) is refused now, naming its key, and not by every cell once the study runs."""
    from seqform.games.kuhn import kuhn
    from seqform.model.tree import compile_tree
    from seqform.study.verifyharness import make_solver

    tree = compile_tree(kuhn())
    for i, s in enumerate(specs):
        trials = [(None, {})] + [(k, {k: x}) for k, v in s.params.items() for x in (v if isinstance(v, list) else [v])]
        for key, params in trials:
            try:
                make_solver(s.name, tree, eps=eps, params=params)
            except (SeqformError, TypeError, ValueError, ArithmeticError) as e:
                what = f"{key} = {params[key]!r}" if key else "the solver"
                fail("solvers", i, key or "name", f"{what} cannot run: {e}")


__all__ = ["StudySpec", "SolverSpec", "Cell", "StudyError", "load_study"]

"""Run a verification study: every cell of a ``StudySpec`` on an executor, into one table.

``run_study(spec, out)``:

1. **ground truth once per game**: the certified value (and the exact refined or perturbed
   equilibria the study asks for) is computed here, in the driver, once per game, and shipped
   to each worker once (``seqform.study.executors``);
2. **resumable**: cells whose file in ``out/cells`` says ``ok`` are skipped; the others run;
3. **failures**: a cell that raises, passes its ``time_limit`` or whose worker dies is retried
   once (not a solver refusing the game, ``UnsupportedGameError``: a two-player solver on a game
   of three players fails the same way every time); if it fails again it is recorded as failed
   with its error, and the study goes on. A main script that calls ``run_study`` without
   ``if __name__ == "__main__":`` (the local pool's workers import it again) stops the study at
   once with ``UnguardedMainError``, nothing retried;
4. **Ctrl-C** stops the workers, gathers the finished cells into ``results.parquet`` (a
   consistent table: whole cells only) and re-raises ``KeyboardInterrupt``;
5. a progress bar over cells (tqdm, on standard error) with rate and time left.

Returns a ``StudyResult``: counts, the table's path, and the time taken.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import seqform.study.studytable as studytable
from seqform.errors import SeqformError, UnsupportedGameError
from seqform.study.studyspec import StudySpec

if TYPE_CHECKING:
    from seqform.study.executors import LocalExecutor, RayExecutor

#: attempts per cell: the first run and one retry
ATTEMPTS = 2


@dataclass
class StudyResult:
    """What a study run did: cells in the study, skipped (already in the table), run ok, failed
    (after the retry), the table's ``path`` and ``seconds``."""

    study: str
    out: str
    executor: str
    workers: int
    cells: int
    skipped: int = 0
    ok: int = 0
    failed: int = 0
    retried: int = 0
    seconds: float = 0.0
    rows: int = 0
    failures: list = field(default_factory=list)
    ground_truth_seconds: float = 0.0

    def to_json(self) -> dict:
        return {
            "study": self.study,
            "out": self.out,
            "table": str(Path(self.out) / "results.parquet"),
            "executor": self.executor,
            "workers": self.workers,
            "cells": self.cells,
            "skipped": self.skipped,
            "ok": self.ok,
            "failed": self.failed,
            "retried": self.retried,
            "rows": self.rows,
            "seconds": self.seconds,
            "ground_truth_seconds": self.ground_truth_seconds,
            "failures": self.failures,
        }


def ground_truths(spec: StudySpec, say: Callable[[str], None]) -> dict:
    """game -> ``GroundTruth``, computed once for the whole study (for a game without a value,
    more than two players or two-player general-sum, one without a value and without a solve)."""
    from seqform.io.gamespec import load_game
    from seqform.model.tree import compile_tree
    from seqform.study.verifyharness import ground_truth

    out = {}
    for g in spec.games:
        say(f"{g}: computing the certified ground truth")
        tree = compile_tree(load_game(g))
        out[g] = ground_truth(tree, spec.refined, spec.eps, say)
    return out


def run_study(
    spec: StudySpec,
    out: str | Path,
    *,
    workers: int | None = None,
    ray: str | bool | None = None,
    progress: bool = True,
    say: Callable[[str], None] | None = None,
) -> StudyResult:
    """Run the cells of ``spec`` not yet in ``out`` (module docstring).

    Parameters
    ----------
    spec : StudySpec
        The study (``load_study``).
    out : str or Path
        The output directory: the table (``results.parquet``, ``results.csv``), one file per
        finished cell under ``cells/``, ``environment.json``, ``runs.jsonl``.
    workers : int, optional
        Processes of the local pool, or CPUs of a local Ray runtime (default: the machine's).
    ray : bool or str, optional
        ``True``: run the cells as Ray tasks on a local Ray runtime; an address: on that
        cluster; ``None`` (default): the local process pool.
    progress : bool
        Show a progress bar over cells on standard error.
    say : callable, optional
        Receives one-line progress messages.

    Returns
    -------
    StudyResult
        Cells in the study, skipped, run ok, failed (after one retry), retries, rows, seconds.

    Raises
    ------
    UnguardedMainError
        The local pool's workers, importing the calling script again, found its top-level code
        starting the study again: that code belongs under ``if __name__ == "__main__":``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from seqform.study import load_study, read_table, run_study
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "s.toml").write_text('[study]\\ngames = ["kuhn"]\\nseeds = 2\\niterations = 200\\n'
    ...                               '[[solvers]]\\nname = "cfr+"\\n[[solvers]]\\nname = "es-mccfr"\\n')
    >>> res = run_study(load_study(d / "s.toml"), d / "out", workers=1, progress=False)
    >>> res.cells, res.ok, res.failed
    (3, 3, 0)
    >>> run_study(load_study(d / "s.toml"), d / "out", workers=1, progress=False).skipped
    3
    """
    import os

    if not ray:
        from seqform.spawnpool import exit_if_bootstrapping

        # a local pool's worker running an unguarded main script again ends here, before it writes
        # in ``out`` (environment.json) or computes the ground truths: the driver's pool then
        # raises UnguardedMainError
        exit_if_bootstrapping()
    say = say or (lambda msg: None)
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SeqformError(f"--out {out}: cannot create the directory: {e.strerror or e}") from None
    t0 = time.perf_counter()
    cells = spec.cells()
    keys = [c.key for c in cells]
    if len(set(keys)) != len(keys):
        raise SeqformError(
            f"{spec.path}: the study lists the same cell twice (a solver named twice with the same parameters?)"
        )
    done = {k: rows for k, rows in studytable.read_cells(out).items() if rows[0]["status"] == "ok"}
    todo = [c for c in cells if c.key not in done]
    workers = workers or os.cpu_count() or 1
    result = StudyResult(
        spec.name, str(out), "ray" if ray else "local", workers, len(cells), skipped=len(cells) - len(todo)
    )
    studytable.record_environment(out, {"study": spec.name, "study_file": spec.path, "executor": result.executor})
    if todo:
        say(f"{len(todo)} of {len(cells)} cells to run ({result.skipped} already in {out})")
        t_truth = time.perf_counter()
        truths = ground_truths(spec, say)
        result.ground_truth_seconds = time.perf_counter() - t_truth
        executor: RayExecutor | LocalExecutor
        if ray:
            from seqform.study.executors import RayExecutor

            executor = RayExecutor(None if ray is True else str(ray), truths, spec.time_limit, workers)
            result.workers = executor.workers
        else:
            from seqform.study.executors import LocalExecutor

            executor = LocalExecutor(workers, truths, spec.time_limit)
        try:
            _drive(spec, out, todo, executor, result, progress)
        except KeyboardInterrupt:
            executor.shutdown(kill=True)
            result.rows = studytable.consolidate(out, keys)
            raise
        except BaseException:  # UnguardedMainError, a table that cannot be written: no worker outlives it
            executor.shutdown(kill=True)
            raise
        executor.shutdown()
    result.rows = studytable.consolidate(out, keys)
    result.seconds = time.perf_counter() - t0
    if todo:
        studytable.log_run(out, result.to_json())
    return result


def _drive(spec: StudySpec, out: Path, todo: list, executor, result: StudyResult, progress: bool) -> None:
    from tqdm import tqdm

    queue = list(reversed(todo))  # pop() takes them in the study's order
    attempts: dict = {}
    bar = tqdm(
        total=len(todo),
        unit="cell",
        desc=spec.name,
        disable=not progress,
        file=sys.stderr,
        dynamic_ncols=True,
        smoothing=0.1,
    )
    try:
        while queue or executor.in_flight:
            while queue and executor.capacity > 0:
                cell = queue.pop()
                attempts[cell.key] = attempts.get(cell.key, 0) + 1
                executor.submit(cell)
            for cell, rows, error in executor.results(timeout=0.5):
                n = attempts[cell.key]
                if error is None:
                    for r in rows:
                        r.update(study=spec.name, status="ok", error=None, attempts=n)
                    studytable.write_cell(out, cell.key, rows)
                    result.ok += 1
                    bar.update(1)
                    continue
                msg = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
                row = {
                    "study": spec.name,
                    "game": cell.game,
                    "solver": cell.solver,
                    "params": cell.params_json,
                    "seed": cell.seed,
                    "iterations": cell.iterations,
                    "cell": cell.key,
                    "status": "failed",
                    "error": msg,
                    "attempts": n,
                }
                studytable.write_cell(out, cell.key, [row])  # recorded now; a successful retry replaces it
                if n < ATTEMPTS and not isinstance(error, UnsupportedGameError):  # that fails the same way again
                    result.retried += 1
                    queue.append(cell)
                    bar.write(f"seqform: {cell.game} {cell.solver} seed {cell.seed}: {msg}; retrying", file=sys.stderr)
                else:
                    result.failed += 1
                    result.failures.append({"cell": cell.key, "error": msg})
                    bar.update(1)
                    bar.write(
                        f"seqform: {cell.game} {cell.solver} seed {cell.seed}: failed twice: {msg}", file=sys.stderr
                    )
    finally:
        bar.close()


__all__ = ["run_study", "StudyResult", "ground_truths", "ATTEMPTS"]

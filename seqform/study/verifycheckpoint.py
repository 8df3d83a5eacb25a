"""Checkpoints of long runs that a killed process resumes: ``seqform verify --checkpoint FILE``
(``VerifyCheckpoint``) and, through ``write_atomic`` and ``fingerprint_mismatch``, ``seqform shrink
--cfr --checkpoint FILE`` (``lossless.vectorcfr``).

A checkpoint is one ``seqform.iterative.checkpoint`` file (a JSON ``meta`` record and named
arrays, nothing pickled). It is written atomically: to a temporary file in the same directory,
flushed to disk (``fsync``), then renamed over the old one (``os.replace``), so a run killed at
any moment leaves either the previous checkpoint or the new one, never half of one.

A verify checkpoint holds the run's *fingerprint* (the game's tree digest, the solvers, seeds,
iterations, measuring points and options: a file of another run is refused), every finished run
(its points and solver seconds, per solver and seed), and the run in progress: its points so
far, the iteration and clocks they reached, and the solver's own checkpoint (its ``save`` file,
stored as bytes), taken at a measuring point, between iterations. Resuming loads that solver
(``load``: the sampling solvers' random state included) and continues, so every later iterate,
and so every measure, is the uninterrupted run's.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import seqform.iterative.checkpoint as checkpoint
from seqform.errors import CheckpointError
from seqform.model.tree import Tree

FORMAT = "seqform-verify-checkpoint-1"

#: seconds between checkpoints unless told otherwise
DEFAULT_EVERY = 60.0


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | Path, meta: dict, arrays: dict) -> None:
    """``seqform.iterative.checkpoint.write`` made atomic: a temporary file beside ``path``,
    ``fsync``, ``os.replace`` (module docstring). ``CheckpointError`` when it cannot be written."""
    path = Path(path)
    folder = path.parent
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        os.close(fd)
        checkpoint.write(tmp, meta, arrays)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's file is private; a checkpoint is as any file the user writes
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise CheckpointError(f"{path}: cannot write the checkpoint: {e.strerror or e}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    # the rename itself reaches the disk when the folder is synced (not every system allows it)
    with contextlib.suppress(OSError):
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def check_path(path: str | Path) -> None:
    """``CheckpointError`` unless a checkpoint can live at ``path``: not a folder, in a folder that exists."""
    p = Path(path)
    if p.is_dir():
        raise CheckpointError(f"{p}: is a directory, not a checkpoint file")
    if not p.parent.is_dir():
        raise CheckpointError(f"{p}: no such directory {str(p.parent)!r}")


def fingerprint_mismatch(path: str | Path, saved: Any, now: dict) -> None:
    """``CheckpointError`` naming the first setting in which the checkpoint's run (``saved``)
    differs from this one (``now``): resuming it would mix two runs."""
    if not isinstance(saved, dict):
        raise CheckpointError(f"{path}: not a seqform checkpoint of a run (it has no fingerprint)")
    for key in [*now, *(k for k in saved if k not in now)]:  # the settings in their order of importance
        if saved.get(key) != now.get(key):
            old, new = _short(saved.get(key)), _short(now.get(key))
            raise CheckpointError(
                f"{path}: a checkpoint of another run ({key} {old} there, {new} here); "
                f"delete it or choose another file to start afresh"
            )


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def digest(*arrays: Any) -> str:
    """A short hash of arrays' shapes, types and bytes: what a fingerprint keeps of a game."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def tree_digest(tree: Tree) -> str:
    """``digest`` of the compiled tree's structure, chance and payoffs: two games that run the
    same way have the same one."""
    return digest(tree.parent, tree.player, tree.infoset, tree.action, tree.payoff, tree.terminal_chance)


def solver_bytes(solver: Any, folder: Path) -> np.ndarray:
    """The solver's own checkpoint (its ``save``), as an array of bytes to embed in ours."""
    fd, tmp = tempfile.mkstemp(prefix=".solver.", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        solver.save(tmp)
        return np.frombuffer(Path(tmp).read_bytes(), dtype=np.uint8)
    except OSError as e:
        raise CheckpointError(f"cannot write a temporary file in {folder}: {e.strerror or e}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def solver_from_bytes(cls: Any, data: np.ndarray | None, tree: Tree, path: str | Path) -> Any:
    """The solver of class ``cls`` that ``solver_bytes`` stored, loaded on ``tree`` (``cls.load``)."""
    if data is None:
        raise CheckpointError(f"{path}: not a seqform verify checkpoint (its run in progress has no solver)")
    try:
        return cls.load(io.BytesIO(np.asarray(data, dtype=np.uint8).tobytes()), tree)
    except CheckpointError as e:
        detail = str(e).split(": ", 1)[-1]
        raise CheckpointError(f"{path}: the solver's state in it is damaged ({detail})") from None


class VerifyCheckpoint:
    """The checkpoint of one ``seqform verify`` command at ``path`` (module docstring): finished
    runs by key (the solver's name) and seed index, and the run in progress.

    ``VerifyCheckpoint.open(path, fingerprint, every)`` reads the file when it exists (refusing
    another run's or a damaged one: ``CheckpointError``); ``due()`` says whether ``every`` seconds
    have passed since the last write; ``save_progress`` and ``save_finished`` write it."""

    def __init__(self, path: str | Path, fingerprint: dict, every: float = DEFAULT_EVERY):
        self.path, self.fingerprint, self.every = Path(path), fingerprint, float(every)
        #: key -> finished runs, in seed order: {"points": [point dicts], "solver_seconds": s}
        self.finished: dict[str, list] = {}
        #: the run in progress: {"key", "run", "iteration", "points", "solver_seconds", "seconds"}
        self.current: dict | None = None
        self.solver: np.ndarray | None = None
        self.resumed = False
        self._last = time.perf_counter()

    @classmethod
    def open(cls, path: str | Path, fingerprint: dict, every: float = DEFAULT_EVERY) -> VerifyCheckpoint:
        """The checkpoint at ``path``, resumed when the file exists, else empty."""
        check_path(path)
        ck = cls(path, fingerprint, every)
        if not ck.path.exists():
            return ck
        meta, arrays = checkpoint.read(ck.path, FORMAT, "verify")
        fingerprint_mismatch(ck.path, meta["fingerprint"], fingerprint)
        finished, current = meta["finished"], meta["current"]
        if not isinstance(finished, dict) or not (current is None or isinstance(current, dict)):
            raise CheckpointError(f"{ck.path}: not a seqform verify checkpoint (its runs are malformed)")
        ck.finished, ck.current, ck.resumed = finished, current, True
        if current is not None:
            ck.solver = arrays["solver"]
        return ck

    def runs(self, key: str) -> list:
        """The finished runs of ``key``, in seed order."""
        return self.finished.get(key, [])

    def in_progress(self, key: str, run: int) -> dict | None:
        """The saved state of run ``run`` of ``key`` when it is the run in progress, else None."""
        c = self.current
        return c if c is not None and c.get("key") == key and c.get("run") == run else None

    def due(self) -> bool:
        return time.perf_counter() - self._last >= self.every

    def save_progress(self, key: str, run: int, state: dict, solver: Any) -> None:
        """Write the run in progress: ``state`` (iteration, points as dicts, clocks) and the solver."""
        self.current = {"key": key, "run": run, **state}
        self.solver = solver_bytes(solver, self.path.parent)
        self._write()

    def save_finished(self, key: str, points: list, solver_seconds: float) -> None:
        """Write a finished run of ``key`` (points as dicts); nothing is then in progress."""
        self.finished.setdefault(key, []).append({"points": points, "solver_seconds": solver_seconds})
        self.current, self.solver = None, None
        self._write()

    def _write(self) -> None:
        meta = {"format": FORMAT, "fingerprint": self.fingerprint, "finished": self.finished, "current": self.current}
        arrays = {} if self.solver is None else {"solver": self.solver}
        write_atomic(self.path, meta, arrays)
        self._last = time.perf_counter()


__all__ = [
    "VerifyCheckpoint",
    "write_atomic",
    "check_path",
    "fingerprint_mismatch",
    "digest",
    "tree_digest",
    "solver_bytes",
    "solver_from_bytes",
    "DEFAULT_EVERY",
    "FORMAT",
]

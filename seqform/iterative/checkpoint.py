"""Checkpoints of iterative solvers: one ``.npz`` file holding a JSON ``meta`` record (with a
``format`` name) and named arrays. Every solver's ``save``/``load`` goes through ``write`` and
``read``, so that a file that is not a checkpoint, or another solver's, is refused the same way
(``CheckpointError``), and so that nothing in a checkpoint is ever unpickled."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from seqform.errors import CheckpointError


def write(path: str | Path, meta: dict, arrays: dict) -> None:
    """Write ``meta`` (JSON-able, with its ``format``) and ``arrays`` (name -> array) to ``path``."""
    with open(path, "wb") as fh:
        np.savez(fh, meta=np.array(json.dumps(meta)), **arrays)


class _Record(dict):
    """A checkpoint's ``meta`` or its arrays: a name the file lacks is a ``CheckpointError``
    naming it (a damaged or foreign file), not a ``KeyError`` from the solver reading it."""

    def __init__(self, data: dict, path, what: str):
        super().__init__(data)
        self.path, self.what = path, what

    def __missing__(self, key):
        raise CheckpointError(f"{self.path}: not a seqform {self.what} checkpoint (it has no {key!r})")


def _detail(e: BaseException) -> str:
    """The reader's complaint on one printable line (a damaged file's names hold any bytes)."""
    text = str(e) or type(e).__name__
    return (text if text.isprintable() else repr(text)[1:-1])[:200]


def read(path: str | Path, fmt: str, what: str) -> tuple[dict, dict]:
    """``(meta, arrays)`` of the checkpoint at ``path``, whose format must be ``fmt``;
    ``CheckpointError`` naming ``what`` (e.g. "regret", "MCCFR") otherwise: for a file that is
    cut short or damaged too, and for a name the solver then reads that the file lacks."""
    # a damaged .npz makes zipfile and numpy raise almost anything: a cut file EOFError or
    # BadZipFile, flipped bits a bad CRC, an "encrypted" flag (RuntimeError), a compression method
    # (zlib.error, NotImplementedError), a numpy header that no longer parses (SyntaxError) or
    # declares an absurd shape (MemoryError); nothing but the reading runs in this block
    try:
        with np.load(path, allow_pickle=False) as f:
            m = f["meta"]
            # the first MCCFR checkpoints stored their JSON as bytes
            meta = json.loads(bytes(m).decode() if m.dtype == np.uint8 else str(m))
            arrays = {k: f[k].copy() for k in f.files if k != "meta"}
    except Exception as e:
        raise CheckpointError(f"{path}: not a seqform {what} checkpoint ({_detail(e)})") from None
    if not isinstance(meta, dict) or meta.get("format") != fmt:
        found = meta.get("format") if isinstance(meta, dict) else meta
        raise CheckpointError(f"{path}: not a seqform {what} checkpoint (format {_detail(ValueError(repr(found)))})")
    return _Record(meta, path, what), _Record(arrays, path, what)


__all__ = ["read", "write"]

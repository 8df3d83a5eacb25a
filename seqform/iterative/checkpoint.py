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


def read(path: str | Path, fmt: str, what: str) -> tuple[dict, dict]:
    """``(meta, arrays)`` of the checkpoint at ``path``, whose format must be ``fmt``;
    ``CheckpointError`` naming ``what`` (e.g. "regret", "MCCFR") otherwise."""
    try:
        with np.load(path, allow_pickle=False) as f:
            m = f["meta"]
            # the first MCCFR checkpoints stored their JSON as bytes
            meta = json.loads(bytes(m).decode() if m.dtype == np.uint8 else str(m))
            arrays = {k: f[k].copy() for k in f.files if k != "meta"}
    except (OSError, ValueError, KeyError) as e:
        raise CheckpointError(f"{path}: not a seqform {what} checkpoint ({e})") from None
    if meta.get("format") != fmt:
        raise CheckpointError(f"{path}: not a seqform {what} checkpoint (format {meta.get('format')!r})")
    return meta, arrays


__all__ = ["read", "write"]

"""Keep what compiled libraries print from reaching the user's terminal or pipes.

Some libraries write on the process's file descriptors 1 and 2 from C or C++, below Python's
``sys.stdout``: highspy 1.16 prints a banner when its first ``Highs`` object is made, and OpenSpiel
prints "OpenSpiel exception: ..." before raising. Standard output belongs to the user (a ``--json``
object must be all there is), so such calls run inside ``silenced_fds()``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def silenced_fds() -> Iterator[None]:
    """Within the block, file descriptors 1 and 2 point at /dev/null; C's stdio buffers are flushed
    before they are restored (what a library wrote through a buffered ``stdout`` on a pipe would
    otherwise come out later, unredirected). Python's own streams are flushed first, so nothing
    written before the block is lost. Not for concurrent use with threads that print meanwhile."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:  # no file descriptors 1 and 2 (an embedded interpreter): nothing to protect
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        _c_fflush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, null):
            os.close(fd)


def _c_fflush() -> None:
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):  # no C library to ask (Windows): its stdout is unbuffered there
        pass

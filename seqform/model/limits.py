"""Memory limits: refuse a game too large for a method *before* memory runs out.

Estimates are calibrated on this project's own measurements (peak resident memory on x86-64
Linux, CPython 3.11), with margin:

* compiling a tree costs ~250-300 bytes per node (Leduc 5 ranks, Liar's Dice 1x6, Goofspiel 6);
  we budget ``BYTES_PER_NODE`` = 400;
* HiGHS on the sequence-form LP costs ~300-350 bytes per constraint-matrix nonzero plus ~1 kB
  per row and column (Leduc 5 ranks: +14 MB for 40k nonzeros; Liar's Dice 1x6: +65 MB for 221k
  nonzeros and 74k rows and columns); we budget 400 bytes and 1 kB.

* reading and compiling a Gambit ``.efg`` file costs ~11-14 times the file's size (Leduc 5 ranks:
  2.3 MB file, +33 MB; Liar's Dice 1x6: 13.5 MB file, +155 MB); we budget ``EFG_BYTES_PER_BYTE`` = 25.

The limit is ``SEQFORM_MEMORY_LIMIT`` (GiB) if set, else 75% of the memory the system reports
available (``/proc/meminfo``), else 4 GiB.
"""

from __future__ import annotations

import os

from seqform.errors import SeqformError, TooLargeError

BYTES_PER_NODE = 400
BYTES_PER_LP_NONZERO = 400
BYTES_PER_LP_ROW = 1000
EFG_BYTES_PER_BYTE = 25
GIB = 1 << 30


def memory_limit(gib: float | None = None) -> int:
    """The memory limit in bytes: ``gib`` if given, else ``SEQFORM_MEMORY_LIMIT``, else 75% of
    available memory."""
    if gib is None and os.environ.get("SEQFORM_MEMORY_LIMIT"):
        try:
            gib = float(os.environ["SEQFORM_MEMORY_LIMIT"])
        except ValueError:
            raise SeqformError(
                f"SEQFORM_MEMORY_LIMIT={os.environ['SEQFORM_MEMORY_LIMIT']!r} is not a number of GiB"
            ) from None
    if gib is not None:
        if gib <= 0:
            raise SeqformError(f"memory limit must be positive, got {gib} GiB")
        return int(gib * GIB)
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(int(line.split()[1]) * 1024 * 0.75)
    except OSError:
        pass
    return 4 * GIB


def node_limit(limit_bytes: int) -> int:
    """How many nodes a tree may have to compile within ``limit_bytes``."""
    return max(1, limit_bytes // BYTES_PER_NODE)


def _gib(b: float) -> str:
    return f"{b / GIB:.2f} GiB"


def too_many_nodes(name: str, max_nodes: int, limit_bytes: int) -> TooLargeError:
    return TooLargeError(
        f"game {name!r} has more than {max_nodes:,} nodes: compiling it would need more than "
        f"{_gib(max_nodes * BYTES_PER_NODE)} (~{BYTES_PER_NODE} bytes a node), over the memory limit of "
        f"{_gib(limit_bytes)}; set a larger limit with --memory-limit GiB or SEQFORM_MEMORY_LIMIT"
    )


def check_lp(name: str, rows: int, cols: int, nonzeros: int, limit_bytes: int, used_bytes: int = 0) -> None:
    """Raise ``TooLargeError`` if HiGHS on an LP of this size would exceed the limit."""
    need = nonzeros * BYTES_PER_LP_NONZERO + (rows + cols) * BYTES_PER_LP_ROW
    if need + used_bytes > limit_bytes:
        raise TooLargeError(
            f"the sequence-form LP of {name!r} ({rows:,} rows, {cols:,} columns, {nonzeros:,} nonzeros) would "
            f"need about {_gib(need)} in HiGHS on top of {_gib(used_bytes)} already used, over the memory "
            f"limit of {_gib(limit_bytes)}; set a larger limit with --memory-limit GiB or SEQFORM_MEMORY_LIMIT"
        )


#: bytes per entry of the exact LCP tableau (a pointer and a Python integer that grows with the
#: determinant, and the temporaries of one pivot)
BYTES_PER_LCP_ENTRY = 200


def check_lcp(name: str, equations: int, variables: int, limit_bytes: int) -> None:
    """Raise ``TooLargeError`` if the dense exact tableau of Lemke's algorithm would exceed the limit."""
    need = equations * (variables + 1) * BYTES_PER_LCP_ENTRY
    if need > limit_bytes:
        raise TooLargeError(
            f"the sequence-form LCP of {name!r} ({equations:,} equations, {variables:,} variables) would need "
            f"about {_gib(need)} as a dense exact tableau, over the memory limit of {_gib(limit_bytes)}; set a "
            f"larger limit with --memory-limit GiB or SEQFORM_MEMORY_LIMIT"
        )


def check_setup(name: str, need: int, limit_bytes: int) -> None:
    """Raise ``TooLargeError`` if setting up the game ``name`` (the tables its constructor builds
    from its parameters, before any node: ``need`` bytes) would exceed the limit."""
    if need > limit_bytes:
        shown = _gib(need) if need < 1 << 80 else f"~2^{need.bit_length() - 1} bytes"
        raise TooLargeError(
            f"game {name!r} would need about {shown} to set up, before any node is built, over the memory "
            f"limit of {_gib(limit_bytes)}; choose smaller parameters, or set a larger limit with --memory-limit "
            f"GiB or SEQFORM_MEMORY_LIMIT"
        )


def check_file(path: str, size: int, limit_bytes: int) -> None:
    """Raise ``TooLargeError`` if reading the ``.efg`` file at ``path`` would exceed the limit."""
    need = size * EFG_BYTES_PER_BYTE
    if need > limit_bytes:
        raise TooLargeError(
            f"{path}: a {size / 2**20:,.1f} MiB game file would need about {_gib(need)} to read and compile "
            f"(~{EFG_BYTES_PER_BYTE} bytes per byte of file), over the memory limit of {_gib(limit_bytes)}; "
            f"set a larger limit with --memory-limit GiB or SEQFORM_MEMORY_LIMIT"
        )

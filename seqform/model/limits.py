"""Memory limits: refuse a game too large for a method *before* memory runs out.

Estimates are calibrated on this project's own measurements (peak resident memory on x86-64
Linux, CPython 3.11), with margin:

* compiling a tree costs ~250-300 bytes per node (Leduc 5 ranks, Liar's Dice 1x6, Goofspiel 6);
  we budget ``BYTES_PER_NODE`` = 400;
* HiGHS on the sequence-form LP costs ~300-350 bytes per constraint-matrix nonzero plus ~1 kB
  per row and column (Leduc 5 ranks: +14 MB for 40k nonzeros; Liar's Dice 1x6: +65 MB for 221k
  nonzeros and 74k rows and columns); we budget 400 bytes and 1 kB.

* reading and compiling a Gambit ``.efg`` file costs ~11-14 times the file's size for files Gambit
  writes (Leduc 5 ranks: 2.3 MB file, +33 MB; Liar's Dice 1x6: 13.5 MB file, +155 MB), but up to ~80
  times for a terse file (``t "" 1`` leaves: 8 MB, +640 MB): the reader's cost is per *token*
  (~190 bytes: the tokens' tuples and lists, their offsets) plus ~7 bytes per byte of text (the
  bytes, the decoded text, its UTF-32 copy for line numbers). ``check_efg`` budgets
  ``EFG_BYTES_PER_TOKEN`` = 250 and ``EFG_BYTES_PER_CHAR`` = 8 on an upper bound of the tokens
  counted without tokenizing (``seqform.io.efgread.token_bound``);
* the iterative solvers' tables (regrets, averages, current strategies; per-node lists for MCCFR)
  are estimated by each solver and checked with ``check_tables`` before they are allocated.

A study's worker processes each get their share of the limit as an address-space limit
(``limit_worker_memory``), so a runaway cell fails with ``MemoryError`` instead of taking the
machine down.

The limit is ``SEQFORM_MEMORY_LIMIT`` (GiB) if set, else 75% of the memory the system reports
available (``/proc/meminfo``), else 4 GiB.
"""

from __future__ import annotations

import os

from seqform.errors import SeqformError, TooLargeError

BYTES_PER_NODE = 400
BYTES_PER_LP_NONZERO = 400
BYTES_PER_LP_ROW = 1000
EFG_BYTES_PER_TOKEN = 250
EFG_BYTES_PER_CHAR = 8
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


#: how every refusal ends: the two ways to raise the limit
RAISE_LIMIT = "set a larger limit with --memory-limit GiB or SEQFORM_MEMORY_LIMIT"


def _gib(b: float) -> str:
    return f"{b / GIB:.2f} GiB"


def _size(b: float) -> str:
    """An estimate for a message: GiB, or MiB below a tenth of one (where two decimals of GiB say
    little)."""
    return _gib(b) if b >= GIB / 10 else f"{b / 2**20:.1f} MiB"


def _limit(b: float) -> str:
    """The limit in GiB, as the user gives it (three significant digits: 0.001 GiB stays so)."""
    return f"{b / GIB:.3g} GiB"


def too_many_nodes(name: str, max_nodes: int, limit_bytes: int) -> TooLargeError:
    return TooLargeError(
        f"game {name!r} has more than {max_nodes:,} nodes: compiling it would need more than "
        f"{_gib(max_nodes * BYTES_PER_NODE)} (~{BYTES_PER_NODE} bytes a node), over the memory limit of "
        f"{_gib(limit_bytes)}; {RAISE_LIMIT}"
    )


def lp_bytes(rows: int, cols: int, nonzeros: int) -> int:
    """The memory HiGHS needs for an LP of this size (module docstring)."""
    return nonzeros * BYTES_PER_LP_NONZERO + (rows + cols) * BYTES_PER_LP_ROW


def check_lp(
    name: str,
    rows: int,
    cols: int,
    nonzeros: int,
    limit_bytes: int,
    used_bytes: int = 0,
    what: str = "the sequence-form LP",
) -> None:
    """Raise ``TooLargeError`` if HiGHS on an LP of this size would exceed the limit. ``what``
    names the LP in the message (e.g. ``"the abstract LP"``); ``nonzeros`` may be a lower bound
    (then the message's "at least" is the caller's to add in ``what``)."""
    need = lp_bytes(rows, cols, nonzeros)
    if need + used_bytes > limit_bytes:
        raise TooLargeError(
            f"{what} of {name!r} ({rows:,} rows, {cols:,} columns, {nonzeros:,} nonzeros) would "
            f"need about {_gib(need)} in HiGHS"
            + (f" on top of {_gib(used_bytes)} already used" if used_bytes >= GIB // 100 else "")
            + ", over the memory "
            f"limit of {_gib(limit_bytes)}; {RAISE_LIMIT}"
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
            f"about {_gib(need)} as a dense exact tableau, over the memory limit of {_gib(limit_bytes)}; "
            f"{RAISE_LIMIT}"
        )


def check_setup(name: str, need: int, limit_bytes: int) -> None:
    """Raise ``TooLargeError`` if setting up the game ``name`` (the tables its constructor builds
    from its parameters, before any node: ``need`` bytes) would exceed the limit."""
    if need > limit_bytes:
        shown = _gib(need) if need < 1 << 80 else f"~2^{need.bit_length() - 1} bytes"
        raise TooLargeError(
            f"game {name!r} would need about {shown} to set up, before any node is built, over the memory "
            f"limit of {_gib(limit_bytes)}; choose smaller parameters, or {RAISE_LIMIT}"
        )


def check_efg(path: str, size: int, tokens: int, limit_bytes: int) -> None:
    """Raise ``TooLargeError`` if reading the ``.efg`` file at ``path`` (``size`` bytes, at most
    ``tokens`` tokens: ``seqform.io.efgread.token_bound``) would exceed the limit."""
    need = size * EFG_BYTES_PER_CHAR + tokens * EFG_BYTES_PER_TOKEN
    if need > limit_bytes:
        raise TooLargeError(
            f"{path}: a {size / 2**20:,.1f} MiB game file of up to {tokens:,} tokens would need about "
            f"{_size(need)} to read (~{EFG_BYTES_PER_TOKEN} bytes a token), over the memory limit of "
            f"{_limit(limit_bytes)}; {RAISE_LIMIT}"
        )


def check_tables(name: str, solver: str, need: int, limit_bytes: int | None = None, used_bytes: int = 0) -> None:
    """Raise ``TooLargeError`` if an iterative solver's tables (``need`` bytes: regrets, averages,
    current strategies, per-node tables) on top of ``used_bytes`` (the compiled tree) would exceed
    the limit (default ``memory_limit()``)."""
    limit = memory_limit() if limit_bytes is None else limit_bytes
    if need + used_bytes > limit:
        tree = f" on top of {_size(used_bytes)} for the game's tree" if used_bytes else ""
        raise TooLargeError(
            f"{solver} on {name!r} would need about {_size(need)} for its tables{tree}, over the memory limit "
            f"of {_limit(limit)}; {RAISE_LIMIT}"
        )


def check_solver_tables(
    tree,
    solver: str,
    *,
    per_node: int = 0,
    per_sequence: int = 0,
    per_terminal: int = 0,
    extra: int = 0,
    limit_bytes: int | None = None,
) -> None:
    """``check_tables`` for a solver whose tables cost ``per_node`` bytes a node of ``tree`` (a
    ``seqform.model.tree.Tree``), ``per_sequence`` a sequence (both players'), ``per_terminal`` a
    leaf, plus ``extra``; the tree itself counts as already used (``BYTES_PER_NODE`` a node)."""
    n = int(tree.num_nodes)
    need = n * per_node + int(sum(tree.num_sequences)) * per_sequence + len(tree.terminals) * per_terminal + extra
    check_tables(tree.name, solver, need, limit_bytes, n * BYTES_PER_NODE)


#: address space a worker may map beyond its share: the arenas (64 MiB each) and stacks that
#: threads started later (HiGHS's, BLAS's) reserve without using
ADDRESS_SPACE_HEADROOM = 256 << 20


def limit_worker_memory(workers: int, limit_gib: float | None = None) -> int | None:
    """Cap this process's address space at its share of the memory limit: ``limit / workers`` (the
    limit being ``limit_gib``, else ``memory_limit()``) on top of what the process has mapped
    already (the interpreter and its libraries reserve address space they never touch), plus
    ``ADDRESS_SPACE_HEADROOM``, with ``resource.setrlimit(RLIMIT_AS)``. Past the cap an allocation
    raises ``MemoryError`` in this process, instead of the kernel's out-of-memory killer stopping
    a process of its choosing. A cap already lower is kept. Returns the cap in bytes (None where
    ``resource`` is missing: Windows). Call it first thing in a worker process."""
    try:
        import resource
    except ImportError:  # pragma: no cover (Windows)
        return None
    if workers < 1:
        raise SeqformError(f"workers must be at least 1, got {workers}")
    share = memory_limit(limit_gib) // workers
    cap = _mapped_bytes() + share + ADDRESS_SPACE_HEADROOM
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft == resource.RLIM_INFINITY or cap < soft:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    return cap


def _mapped_bytes() -> int:
    """This process's address space now (``VmSize``), 0 where ``/proc`` does not tell."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0

"""The memory limit holds for every source of a game and every solver's tables: each refusal
comes through the command line as one line on standard error, exit status 2, naming the
estimate and the flag; the refusals that claim to come before the allocation are checked by the
child's peak resident memory (``RUSAGE_CHILDREN``), far below what building would take."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import seqform
from seqform.errors import TooLargeError
from seqform.io.efgread import _Parser, read_efg, token_bound
from seqform.model.limits import GIB
from tests.oneline import one_line_error

#: peak resident memory (bytes) a refused command may reach: the interpreter with numpy, scipy
#: and the command line's imports is ~70-90 MB; building any of the games refused here would
#: take far more (each test says how much)
PEAK_BOUND = 400 << 20


def run(*argv: str, env: dict | None = None) -> tuple[subprocess.CompletedProcess, int | None]:
    """``seqform ARGV`` in a fresh process: its result, and its peak resident memory in bytes
    (None where the platform does not report it). ``ru_maxrss`` of the children is the largest of
    any child so far, so the test runs the command in a child that measures its own child."""
    probe = textwrap.dedent(
        """
        import resource, subprocess, sys
        r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        sys.stderr.write(f"\\nPEAK {peak * 1024}\\n")
        sys.exit(r.returncode)
        """
    )
    full = {k: v for k, v in os.environ.items() if k != "SEQFORM_MEMORY_LIMIT"}
    full.update(env or {})
    r = subprocess.run(
        [sys.executable, "-c", probe, sys.executable, "-m", "seqform", *argv],
        capture_output=True,
        text=True,
        env=full,
        timeout=600,
    )
    body, _, tail = r.stderr.rpartition("\nPEAK ")
    r.stderr = body
    return r, int(tail) if sys.platform.startswith("linux") else None


def refused(r: subprocess.CompletedProcess, *needles: str) -> str:
    """The one line of a refusal (exit 2, no traceback, the flag named), checked."""
    line = one_line_error(r, "--memory-limit GiB", "SEQFORM_MEMORY_LIMIT", *needles)
    assert line.startswith("seqform: error: ")
    return line


def write_chance_tree(path, branching: int, depth: int) -> int:
    """A terse ``.efg``: chance nodes sharing one chance set, leaves sharing one outcome; returns
    its number of nodes, counted independently: sum of branching**k for k = 0..depth."""
    probs = " ".join(f'"{k}" 1/{branching}' for k in range(branching))

    def below(d: int) -> str:  # the children of a chance node d levels above the leaves
        return 't "" 1\n' * branching if d == 1 else ('c "" 1 0\n' + below(d - 1)) * branching

    body = below(depth).replace('t "" 1\n', 't "" 1 "" { 1, -1 }\n', 1)
    path.write_text(f'EFG 2 R "wide" {{ "A" "B" }}\n""\nc "" 1 "" {{ {probs} }} 0\n' + body)
    return sum(branching**k for k in range(depth + 1))


# --- .efg files ------------------------------------------------------------------------------


def test_token_bound_is_exact_without_escaped_quotes_and_an_upper_bound_with_them(tmp_path):
    # the lexer itself is the independent count
    def lexed(text: str) -> int:
        return len(_Parser(text, "x").kinds)

    samples = [
        'EFG 2 R "g" { "A" "B" }\n""\np "" 1 1 "I" { "a" "b" } 0\nt "" 1 "w" { 1, -1 }\nt "" 2 "l" { -1 1 }\n',
        'EFG 2 R "t i t l e" { "P 1" } c "" 1 "" {"x" 1/2 "y" 1/2} 0 t"" 1 "" {1} t "" 1',
        "",
        '"unclosed',
        'a{b}c"d e"f  ,, ',
        'p "é ü" 1',
    ]
    for text in samples:
        assert lexed(text) <= token_bound(text.encode()) <= lexed(text) + 1, text
    # a quote after a backslash does not close a string: the bound gives up leaving strings out
    text = 'EFG 2 R "a\\"b c d" { "x" }'
    assert lexed(text) <= token_bound(text.encode())
    # chunk boundaries: a file larger than one chunk counts as its pieces would
    nodes = write_chance_tree(tmp_path / "g.efg", 10, 5)
    data = (tmp_path / "g.efg").read_bytes()
    assert token_bound(data) == token_bound(open(tmp_path / "g.efg", "rb")) >= lexed(data.decode())
    assert read_efg(tmp_path / "g.efg").num_nodes == nodes


def test_efg_too_large_is_refused_before_it_is_read(tmp_path):
    # 1,111,111 nodes in 8 MB of text: reading it takes ~650 MB (three tokens a leaf)
    path = tmp_path / "wide.efg"
    write_chance_tree(path, 10, 6)
    r, peak = run("info", str(path), "--memory-limit", "0.25", "--quiet")
    line = refused(r, "wide.efg", "tokens", "over the memory limit of 0.25 GiB")
    tokens = int(line.split("up to ")[1].split(" tokens")[0].replace(",", ""))
    assert tokens >= 3 * 10**6  # three tokens at each of the million leaves
    assert peak is None or peak < PEAK_BOUND
    # the size of the file alone (8 MB, x25 as the limit once assumed) would have let it through
    assert path.stat().st_size * 25 < 0.25 * GIB


def test_efg_refused_from_the_environment_and_through_the_library(tmp_path):
    path = tmp_path / "wide.efg"
    write_chance_tree(path, 10, 5)  # 111,111 nodes, ~70 MB to read
    r, _ = run("solve", str(path), "--quiet", env={"SEQFORM_MEMORY_LIMIT": "0.02"})
    refused(r, "over the memory limit of 0.02 GiB")
    with pytest.raises(TooLargeError, match="tokens"):
        read_efg(path, memory_limit_bytes=20 << 20)
    with open(path, "rb") as f, pytest.raises(TooLargeError, match="tokens"):
        read_efg(f, memory_limit_bytes=20 << 20)
    assert read_efg(path, memory_limit_bytes=GIB).num_nodes == 111_111


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_efg_from_a_pipe_is_checked_after_its_one_read(tmp_path):
    import threading

    path = tmp_path / "g.efg"
    nodes = write_chance_tree(path, 10, 3)
    text = path.read_bytes()
    for limit, fits in ((GIB, True), (10_000, False)):
        pipe = tmp_path / f"pipe{limit}.efg"
        os.mkfifo(pipe)
        writer = threading.Thread(target=lambda p=pipe: p.write_bytes(text))
        writer.start()
        if fits:
            assert read_efg(pipe, memory_limit_bytes=limit).num_nodes == nodes
        else:
            with pytest.raises(TooLargeError, match="tokens"):
                read_efg(pipe, memory_limit_bytes=limit)
        writer.join(timeout=30)


# --- OpenSpiel games -------------------------------------------------------------------------


def test_openspiel_walk_is_refused_at_the_cap_with_what_it_reached():
    pytest.importorskip("pyspiel")
    # Liar's Dice with two dice each: ~10^8 nodes; the walk stops after ~100,000
    r, peak = run("info", "openspiel:liars_dice(numdice=2)", "--memory-limit", "0.03", "--quiet")
    line = refused(r, "at least", "information sets", "over the memory limit of 0.03 GiB")
    walked = int(line.split("at least ")[1].split(" nodes")[0].replace(",", ""))
    assert 0.03 * GIB / 1000 < walked <= 0.03 * GIB / 350
    assert peak is None or peak < 90 * 2**20 + 0.03 * GIB * 1.2  # the interpreter and pyspiel, plus the limit


def test_openspiel_game_that_fits_is_not_refused():
    pyspiel = pytest.importorskip("pyspiel")
    game = seqform.from_openspiel("leduc_poker", memory_limit_bytes=GIB)
    tree = seqform.compile_tree(game)
    # OpenSpiel's own count of Leduc's histories, an independent walk
    count, stack = 0, [pyspiel.load_game("leduc_poker").new_initial_state()]
    while stack:
        s = stack.pop()
        count += 1
        if not s.is_terminal():
            acts = [a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
            stack.extend(s.child(a) for a in acts)
    assert tree.num_nodes == count
    # twice through the same game object: each walk counts its own nodes
    assert seqform.compile_tree(game).num_nodes == count
    with pytest.raises(TooLargeError, match="at least"):
        seqform.compile_tree(seqform.from_openspiel("leduc_poker", memory_limit_bytes=count * 100))


# --- Rhode Island and the lossless LPs -------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [["solve", "rhode_island"], ["shrink", "rhode_island", "--solve"]],
    ids=["solve", "shrink-solve"],
)
def test_full_rhode_island_is_refused_at_once(argv):
    # solve: the LP's 91,224,226 rows (lossless.treesizes, tests/lossless/test_lp_size_hint.py);
    # shrink --solve: GameShrink's tables over the 52*51*50*49 complete deals (the certificate
    # walks the public tree, not the 6,705,372,545-node game tree)
    r, peak = run(*argv, "--memory-limit", "1", "--quiet")
    refused(
        r, "91,224,226 rows" if argv[0] == "solve" else "6,497,400 complete deals", "over the memory limit of 1.00 GiB"
    )
    assert peak is None or peak < PEAK_BOUND


def test_a_game_that_knows_its_lp_size_is_refused_before_it_is_built():
    from seqform.games.kuhn import Kuhn
    from seqform.model.limits import lp_bytes

    class Known(Kuhn):
        # full Rhode Island's sizes (rows |Sigma_0| + |I_1| + 1, as lossless.sizes counts them)
        def lp_size_hint(self):
            return 91_224_226, 91_224_226, 182_448_450

        def root(self):
            raise AssertionError("the tree was started")

    with pytest.raises(TooLargeError) as e:
        seqform.solve(Known(), memory_limit_gib=1)
    msg = str(e.value)
    assert "91,224,226 rows" in msg and "182,448,450 nonzeros" in msg
    assert f"{lp_bytes(91_224_226, 91_224_226, 182_448_450) / GIB:.2f} GiB" in msg
    with pytest.raises(AssertionError, match="started"):  # a hint that fits does not stop the build
        seqform.solve(Known(), memory_limit_gib=1000)


def test_lossless_lps_pass_the_one_check():
    import lossless
    from lossless.abstractlp import abstract_sequence_form, check_vector_cfr, lp_shape
    from lossless.sequencelayout import sequence_layout
    from lossless.sizes import payoff_nonzeros
    from lossless.sparsifiedlp import sparsified_lp
    from seqform.model.limits import lp_bytes

    sh = lossless.shrink(lossless.leduc_os(), nonzeros=False)
    lay = sequence_layout(sh.abstraction)
    sf = abstract_sequence_form(sh.abstraction)
    rows, cols, ef = lp_shape(lay)
    # the shape the check uses is the LP's (as seqform.solve counts it), and its nonzeros A's
    assert (rows, cols) == (sf.E.shape[0] + sf.F.shape[1], sf.E.shape[1] + sf.F.shape[0])
    assert ef == sf.E.nnz + sf.F.nnz and payoff_nonzeros(sh.abstraction) == sf.A.nnz
    need = lp_bytes(rows, cols, ef + sf.A.nnz)
    with pytest.raises(TooLargeError, match="the abstract LP of"):
        abstract_sequence_form(sh.abstraction, memory_limit_bytes=need - 1)
    assert abstract_sequence_form(sh.abstraction, memory_limit_bytes=need).A.nnz == sf.A.nnz
    with pytest.raises(TooLargeError, match="the sparsified LP"):
        sparsified_lp(sh.abstraction, memory_limit_bytes=lp_bytes(rows, cols, ef) - 1)
    with pytest.raises(TooLargeError, match="CFR\\+ in vector form"):
        check_vector_cfr(lay, 1000)


def test_vector_cfr_is_refused_through_the_command_line():
    r, peak = run("shrink", "rhode_island(ranks=6,suits=2)", "--cfr", "5", "--memory-limit", "0.01", "--quiet")
    refused(r, "CFR+ in vector form", "MiB for its tables", "over the memory limit of 0.01 GiB")
    assert peak is None or peak < PEAK_BOUND


# --- the iterative solvers' tables -----------------------------------------------------------


def test_iterative_tables_are_checked_before_they_are_allocated():
    from seqform.iterative import (
        BatchedExternalSampling,
        ExcessiveGap,
        MonteCarloCFR,
        OptimisticMirrorDescent,
        RegretMinimizer,
    )
    from seqform.model.limits import BYTES_PER_NODE

    tree = seqform.compile_tree(seqform.games.load("leduc"))
    base = tree.num_nodes * BYTES_PER_NODE
    # the tables alone take at least 8 bytes per sequence for each of a few float arrays: a limit
    # just above the tree itself is too small for any of them, and a generous one is not
    for make in (
        lambda lim: RegretMinimizer(tree, "cfr+", memory_limit_bytes=lim),
        lambda lim: MonteCarloCFR(tree, memory_limit_bytes=lim),
        lambda lim: BatchedExternalSampling(tree, memory_limit_bytes=lim),
        lambda lim: ExcessiveGap(tree, memory_limit_bytes=lim),
        lambda lim: OptimisticMirrorDescent(tree, memory_limit_bytes=lim),
    ):
        with pytest.raises(TooLargeError, match="for its tables"):
            make(base + 16 * sum(tree.num_sequences))
        make(GIB)


def test_batched_episode_bound_holds():
    from seqform.iterative.batchedmccfr import BatchedExternalSampling, episode_nodes

    for name in ("kuhn", "leduc", "liars_dice(1,4)"):
        tree = seqform.compile_tree(seqform.games.load(name))
        s = BatchedExternalSampling(tree, batch=1, seed=3)
        bound = episode_nodes(tree)
        for _ in range(200):
            s.step(1)
            assert max(s._last_touched) <= bound  # what an episode touched, counted by the solver


@pytest.mark.parametrize("solver", ["cfr+", "es-mccfr"])
def test_verify_refuses_the_tables_through_the_command_line(solver):
    # Leduc with 5 ranks: its tree ~21 MiB, its LP (the ground truth) ~24 MiB more; MCCFR's
    # per-node tables ~27 MiB more; CFR+'s are small, so at this limit it runs (exit 0)
    r, peak = run("verify", solver, "leduc(ranks=5)", "--memory-limit", "0.046", "--quiet", "--iterations", "2")
    if solver == "es-mccfr":
        refused(r, "es-mccfr on 'leduc(ranks=5,suits=2)'", "for its tables", "over the memory limit of 0.046 GiB")
    else:
        assert r.returncode == 0, r.stderr
    assert peak is None or peak < PEAK_BOUND


# --- study workers ---------------------------------------------------------------------------


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux enforces it")
def test_worker_limit_turns_a_runaway_allocation_into_memory_error():
    code = textwrap.dedent(
        """
        import numpy as np
        from seqform.model.limits import limit_worker_memory
        cap = limit_worker_memory(4, 1.0)  # a quarter of 1 GiB
        try:
            big = np.ones(600 << 17)  # 600 MiB of floats: past the share
            print("allocated")
        except MemoryError:
            print("MemoryError")
        small = np.ones(100 << 17)  # 100 MiB: within it
        print("ok", cap)
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout.split()
    assert out[:2] == ["MemoryError", "ok"]
    assert int(out[2]) > (1 << 30) // 4


def test_worker_limit_keeps_a_lower_cap():
    code = textwrap.dedent(
        """
        import resource
        from seqform.model.limits import limit_worker_memory
        low = 3 << 30
        resource.setrlimit(resource.RLIMIT_AS, (low, resource.RLIM_INFINITY))
        limit_worker_memory(1, 1000.0)
        print(resource.getrlimit(resource.RLIMIT_AS)[0] == low)
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.stdout.strip() == "True", r.stderr


def test_memory_limit_flag_is_restored_after_an_in_process_command(capsys):
    from seqform.cli.main import main

    before = os.environ.get("SEQFORM_MEMORY_LIMIT")
    assert main(["info", "kuhn", "--memory-limit", "0.5", "--quiet"]) == 0
    assert os.environ.get("SEQFORM_MEMORY_LIMIT") == before

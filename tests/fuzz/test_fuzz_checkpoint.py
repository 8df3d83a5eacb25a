"""Fuzzing the iterative solvers' checkpoint files (``seqform.iterative.checkpoint``, one format for
CFR, MCCFR, batched MCCFR and EGT): a saved checkpoint cut short, with bits flipped, bytes
replaced or inserted, then loaded by its own solver or another, on its own game or another. Each
load either restores exactly the saved state (the same arrays, the same counters: a damage that
went unnoticed must have changed nothing) or raises ``CheckpointError`` (a ``SeqformError``) in
one line; never another exception, never a hang."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import seqform
from seqform.errors import CheckpointError, SeqformError
from seqform.iterative.batchedmccfr import BatchedExternalSampling
from seqform.iterative.cfr import RegretMinimizer
from seqform.iterative.egt import ExcessiveGap
from seqform.iterative.mccfr import MonteCarloCFR
from tests.fuzz.fuzzcheck import cpu_guard, fuzz_settings

SOLVERS = {
    "cfr+": (RegretMinimizer, lambda t: RegretMinimizer(t, "cfr+")),
    "mccfr": (MonteCarloCFR, lambda t: MonteCarloCFR(t, "external", seed=3)),
    "batched": (BatchedExternalSampling, lambda t: BatchedExternalSampling(t, batch=4, seed=3)),
    "egt": (ExcessiveGap, lambda t: ExcessiveGap(t)),
}
# the state a checkpoint restores, per solver: arrays (lists of per-player arrays) and counters
STATE = {
    "cfr+": (("regret", "cumulative", "behaviour"), ("iteration", "traversals")),
    "mccfr": (("regret", "cumulative"), ("iteration", "nodes_touched")),
    "batched": (("regret", "cumulative"), ("iteration", "nodes_touched")),
    "egt": (("x", "y"), ("iteration", "traversals", "mu_u", "mu_v")),
}


@functools.cache
def tree(name: str):
    return seqform.compile_tree(seqform.games.load(name))


@functools.cache
def saved(solver: str, tmp: str) -> bytes:
    """The bytes of ``solver``'s checkpoint after a few steps on Kuhn poker."""
    import pathlib

    s = SOLVERS[solver][1](tree("kuhn"))
    s.step(3)
    path = pathlib.Path(tmp) / f"{solver}.npz"
    s.save(path)
    return path.read_bytes()


def _state(solver: str, s) -> tuple:
    arrays, counters = STATE[solver]
    out = []
    for k in arrays:
        v = getattr(s, k)
        out.append([np.asarray(x, dtype=float).tolist() for x in v] if isinstance(v, list) else np.asarray(v).tolist())
    return tuple(out) + tuple(getattr(s, c) for c in counters)


@st.composite
def damaged(draw, data: bytes) -> bytes:
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["flip", "flip", "cut", "replace", "insert", "zero"]))
        i = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data = data[:i] + bytes([data[i] ^ (1 << draw(st.integers(0, 7)))]) + data[i + 1 :]
        elif op == "cut":
            data = data[:i]
        elif op == "replace":
            junk = draw(st.binary(min_size=1, max_size=8))
            data = data[:i] + junk + data[i + len(junk) :]
        elif op == "insert":
            data = data[:i] + draw(st.binary(min_size=1, max_size=8)) + data[i:]
        else:
            n = draw(st.integers(1, 64))
            data = data[:i] + bytes(min(n, len(data) - i)) + data[i + n :]
    return data


def _load(tmp_path, solver: str, data: bytes, loader: str, game: str) -> None:
    path = tmp_path / "c.npz"
    path.write_bytes(data)
    with cpu_guard():
        try:
            s = SOLVERS[loader][0].load(path, tree(game))
        except CheckpointError as e:
            assert str(e).isprintable() and "\n" not in str(e), str(e)
            return
        except SeqformError as e:  # another of our errors: still one line, but say which
            raise AssertionError(f"not a CheckpointError: {type(e).__name__}: {e}") from None
        # loaded: only the same solver on the same game, and then exactly the saved state
        assert loader == solver and game == "kuhn", (loader, solver, game)
        original = SOLVERS[solver][1](tree("kuhn"))
        original.step(3)
        assert _state(solver, s) == _state(solver, original)
        s.step(1)  # and it runs on


@fuzz_settings(60)
@given(
    st.sampled_from(sorted(SOLVERS)),
    st.data(),
    st.sampled_from(sorted(SOLVERS)),
    st.sampled_from(["kuhn", "kuhn", "leduc"]),
)
def test_damaged_checkpoints_restore_exactly_or_refuse(tmp_path_factory, solver, data, loader, game):
    tmp = tmp_path_factory.getbasetemp()
    raw = saved(solver, str(tmp))
    bad = data.draw(damaged(raw)) if data.draw(st.integers(0, 4)) else raw
    _load(tmp_path_factory.mktemp("c"), solver, bad, loader, game)


@fuzz_settings(4)
@given(st.sampled_from(sorted(SOLVERS)))
def test_an_intact_checkpoint_resumes_its_state(tmp_path_factory, solver):
    raw = saved(solver, str(tmp_path_factory.getbasetemp()))
    _load(tmp_path_factory.mktemp("c"), solver, raw, solver, "kuhn")


@fuzz_settings(30)
@given(st.sampled_from(sorted(SOLVERS)), st.binary(max_size=600))
@example(loader="cfr+", data=b"")
@example(loader="egt", data=b"PK\x03\x04")
def test_random_bytes_are_refused(tmp_path_factory, loader, data):
    _load(tmp_path_factory.mktemp("c"), "none", data, loader, "kuhn")


def _npz(meta: str, **arrays) -> bytes:
    import io

    buf = io.BytesIO()
    np.savez(buf, meta=np.array(meta), **arrays)
    return buf.getvalue()


# found by the fuzzer: files cut short or with bytes changed (BadZipFile before; other cuts and flips
# raise EOFError, RuntimeError, NotImplementedError or SyntaxError), and intact .npz files whose record is not an
# object (AttributeError) or lacks what the solver reads (KeyError); a flip the reader does not see
# (a flag of the local header) must restore the saved state
def _flip(data: bytes, at: int, bit: int = 0) -> bytes:
    return data[:at] + bytes([data[at] ^ (1 << bit)]) + data[at + 1 :]


@pytest.mark.parametrize(
    "make",
    [
        lambda raw: raw[: len(raw) // 2],
        lambda raw: raw[:-1],
        lambda raw: _flip(raw, len(raw) // 3),  # a bit in the data: a bad CRC-32
        lambda raw: _flip(raw, 6),  # flags of the first local header
        lambda raw: _flip(raw, 8, 1),
        # a numpy header that no longer parses (SyntaxError: read before the CRC is checked)
        lambda raw: raw.replace(b"'shape': (), }", b"'shape':((), }", 1),
        lambda raw: _npz("[1, 2]"),  # the record is not an object: AttributeError
        lambda raw: _npz('{"format": "seqform-regret-checkpoint-1"}'),  # no algorithm: KeyError
        lambda raw: _npz('{"format": "seqform-mccfr-checkpoint-1"}'),
        lambda raw: _npz('{"format": "seqform-batched-mccfr-checkpoint-1"}'),
        lambda raw: _npz('{"format": "seqform-egt-checkpoint-1"}', x=np.zeros(3)),
    ],
)
@pytest.mark.parametrize("solver", sorted(SOLVERS))
def test_damaged_checkpoints_found_by_the_fuzzer(tmp_path_factory, make, solver):
    raw = saved(solver, str(tmp_path_factory.getbasetemp()))
    _load(tmp_path_factory.mktemp("c"), solver, make(raw), solver, "kuhn")

"""Fuzzing Gambit ``.efg`` files through the command line (``seqform solve FILE --json --strategy``
and ``seqform info FILE --json``): valid files mutated (bytes deleted, inserted, replaced, also
bytes that are not UTF-8; numbers replaced; tokens dropped, doubled, swapped; the file cut short)
and random bytes, with and without a header. Every run gives a result or one line on standard
error with status 2 (``tests.fuzz.fuzzcheck``), and every certified solution is checked by the exact
evaluator (``seqform.evaluate``): its profile has exploitability (NashConv) exactly 0 and the
value the solver printed. ``tests/io/test_efgread.py`` fuzzes the reader itself (``parse_efg``)."""

from __future__ import annotations

import functools
import json
from fractions import Fraction

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import seqform
from seqform.games import load
from seqform.io.efgread import read_efg
from seqform.io.efgwrite import efg_string
from seqform.io.strategyjson import profile_from_json
from tests.fuzz.fuzzcheck import check_run, fuzz_settings, run_cli
from tests.io.test_efgread import SEEDS

# hand-written files in OpenSpiel's style and with three players (the reader's own fuzz seeds),
# beside the files the writer makes of built-in games
_HAND_WRITTEN = SEEDS
_GAMES = ["kuhn", "threat_zero_sum", "threat_general_sum", "guess_the_ace", "mertens_voting", "selten_horse"]


@functools.cache
def seeds() -> tuple:
    """Valid files under 10 kB, as bytes."""
    out = [efg_string(seqform.compile_tree(load(g))).encode() for g in _GAMES + ["liars_dice(1,2)"]]
    out += [t.encode() for t in _HAND_WRITTEN]
    assert all(len(s) < 10_000 for s in out)
    return tuple(out)


_NUMBERS = [b"0", b"1", b"-1", b"1/2", b"1/3", b"2/3", b"0.5", b".5", b"-3.", b"1e-3", b"1e400", b"1/0", b"9" * 40]
_JUNK = st.one_of(
    st.binary(min_size=1, max_size=8),
    st.sampled_from(
        [b"\xff", b"\xc3", b"\x00", b"\r", b'"', b"{", b"}", b" ", b"\\", b"t", b"p", b"c", b"\xef\xbb\xbf"]
    ),
    st.text(' \n\t{}",\\0123456789./-+eEcptRD', min_size=1, max_size=6).map(str.encode),
)


@st.composite
def mutated(draw) -> bytes:
    """A seed file with 1 to 4 mutations."""
    data = draw(st.sampled_from(seeds()))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "number", "drop", "dup", "swap", "cut"]))
        i = draw(st.integers(0, len(data)))
        if op == "delete":
            data = data[:i] + data[i + draw(st.integers(1, 12)) :]
        elif op == "insert":
            data = data[:i] + draw(_JUNK) + data[i:]
        elif op == "replace":
            data = data[:i] + draw(_JUNK)[:1] + data[i + 1 :]
        elif op == "cut":
            data = data[:i]
        else:
            toks = data.split(b" ")
            j = draw(st.integers(0, len(toks) - 1))
            if op == "number":
                nums = [k for k, t in enumerate(toks) if t[:1] and t[:1] in b"-.0123456789"]
                if nums:
                    toks[draw(st.sampled_from(nums))] = draw(st.sampled_from(_NUMBERS))
            elif op == "drop":
                del toks[j]
            elif op == "dup":
                toks.insert(j, toks[j])
            else:
                k = draw(st.integers(0, len(toks) - 1))
                toks[j], toks[k] = toks[k], toks[j]
            data = b" ".join(toks)
    return data


def check_certified(path: str, obj: dict) -> None:
    """A certified solution of the file at ``path``, checked by the exact evaluator on the tree
    read from the file: its profile is an equilibrium (NashConv exactly 0) of the value printed."""
    if not obj.get("certified"):
        return
    tree = seqform.compile_tree(read_efg(path))
    assert obj.get("strategy") is not None, obj
    profile = profile_from_json(tree, obj["strategy"])
    ev = seqform.evaluate(tree, profile, exact=True)
    assert ev.nash_conv == 0 and ev.exploitability == 0, (ev.nash_conv, obj)
    if obj.get("value") is not None:
        assert ev.values[0] == Fraction(obj["value"]), (ev.values, obj["value"])


def _solve_or_refuse(capsys, tmp_path, data: bytes, command: str) -> None:
    path = tmp_path / "fuzz.efg"
    path.write_bytes(data)
    argv = [command, str(path), "--json", "--quiet"] + (["--strategy"] if command == "solve" else [])
    status, out, err = run_cli(capsys, *argv)
    obj = check_run(status, out, err, json_output=True)
    if obj is not None and command == "solve":
        check_certified(str(path), obj)


@fuzz_settings(40)
@given(mutated(), st.sampled_from(["solve", "solve", "info"]))
@example(data=seeds()[0], command="solve")  # the files as written solve, certified
@example(data=seeds()[2], command="solve")  # a general-sum game: the LCP, certified
@example(  # an outcome number past 64 bits: OverflowError
    data=seeds()[0].replace(b't "" 2 "', b't "" 9999999999999999999999999999999999999999 "', 1), command="solve"
)
def test_mutated_files_solve_or_refuse_in_one_line(capsys, tmp_path, data, command):
    _solve_or_refuse(capsys, tmp_path, data, command)


@fuzz_settings(30)
@given(
    st.sampled_from([b"", b'EFG 2 R "t" { "A" "B" }\n""\n', b"EFG 2 D ", b"\xef\xbb\xbfEFG 2 R "]),
    st.binary(max_size=400),
)
def test_random_bytes_read_or_refuse_in_one_line(capsys, tmp_path, header, body):
    _solve_or_refuse(capsys, tmp_path, header + body, "info")


def test_a_certified_solution_is_checked(tmp_path, capsys):
    """The check itself can fail: a printed value one off is caught."""
    path = tmp_path / "k.efg"
    path.write_bytes(seeds()[0])
    status, out, err = run_cli(capsys, "solve", str(path), "--json", "--strategy", "--quiet")
    obj = check_run(status, out, err, json_output=True)
    assert obj["certified"] and Fraction(obj["value"]) == Fraction(-1, 18)
    check_certified(str(path), obj)
    wrong = json.loads(json.dumps(obj))
    wrong["value"] = str(Fraction(obj["value"]) + 1)
    with pytest.raises(AssertionError):
        check_certified(str(path), wrong)

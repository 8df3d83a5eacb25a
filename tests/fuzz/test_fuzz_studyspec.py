"""Fuzzing study files (``seqform.study.load_study``): valid TOML studies mutated in their values
(every TOML type, huge and negative counts, game names with huge parameters, unknown solvers and
parameters), their lines (dropped, doubled, swapped) and their bytes (not UTF-8 included). A file
either loads, and then its cells are listed at once and every solver it names is built with its
parameters (what a study's cells do first: nothing the file says can fail only once the study
runs), or is refused at load time with one ``StudyError`` line that starts with the file's name.
No study runs here."""

from __future__ import annotations

import functools
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

import seqform
from seqform.errors import SeqformError, StudyError
from seqform.study import load_study
from seqform.study.verifyharness import make_solver
from tests.fuzz.fuzzcheck import cpu_guard, fuzz_settings

ROOT = Path(__file__).resolve().parents[2]
SMOKE = (ROOT / "examples" / "studies" / "smoke.toml").read_text()
GRID = """\
[study]
name = "t"
games = ["kuhn", "leduc"]
seeds = [3, 5]
iterations = { kuhn = 100, leduc = 50 }
time_limit = 60

[[solvers]]
name = "cfr+"

[[solvers]]
name = "os-mccfr-batched"
iterations = { kuhn = 400 }
params = { batch = [8, 16], exploration = 0.5 }

[[solvers]]
name = "egt"
checkpoints = 3
"""
# values of every TOML type, and the values a study must refuse before it starts
_VALUES = [
    "0",
    "-1",
    "1",
    "3",
    "9223372036854775807",
    "-9223372036854775808",
    "1e400",
    "inf",
    "nan",
    "-0.0",
    "0.5",
    "true",
    '""',
    '"kuhn"',
    '"leduc(ranks=100000)"',
    '"goofspiel(cards=40)"',
    '"liars_dice(100000, 100000)"',
    '"kuhn(1)"',
    '"missing.efg"',
    '"/.efg"',
    '"x\\u0000.efg"',
    '"openspiel:kuhn_poker"',
    '"cfr"',
    '"\\u0000"',
    "[]",
    "[1, 2]",
    '["kuhn", "kuhn"]',
    "[[1]]",
    "{}",
    "{ kuhn = 10 }",
    "{ batch = -5 }",
    "{ batch = [0] }",
    "{ exploration = 2.0 }",
    "{ weights = [] }",
    "1979-05-27",
    "07:32:00",
]


@st.composite
def mutated(draw) -> bytes:
    text = draw(st.sampled_from([SMOKE, GRID]))
    for _ in range(draw(st.integers(1, 3))):
        lines = text.split("\n")
        j = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["value", "value", "value", "drop", "dup", "swap", "key", "chars"]))
        if op == "value" and "=" in lines[j]:
            lines[j] = lines[j][: lines[j].index("=")] + "= " + draw(st.sampled_from(_VALUES))
        elif op == "drop":
            del lines[j]
        elif op == "dup":
            lines.insert(j, lines[j])
        elif op == "swap":
            k = draw(st.integers(0, len(lines) - 1))
            lines[j], lines[k] = lines[k], lines[j]
        elif op == "key":
            key = draw(st.sampled_from(["seeds", "iterations", "checkpoints", "params", "name", "games", "eps"]))
            lines.insert(j, f"{key} = {draw(st.sampled_from(_VALUES))}")
        elif op == "chars":
            i = draw(st.integers(0, len(lines[j])))
            lines[j] = lines[j][:i] + draw(st.text("[]{}=\"',.# \t\\01abx", max_size=4)) + lines[j][i + 1 :]
        text = "\n".join(lines)
    data = text.encode()
    if draw(st.integers(0, 9)) == 0:
        i = draw(st.integers(0, len(data)))
        data = data[:i] + draw(st.binary(min_size=1, max_size=4)) + data[i:]
    return data


@functools.cache
def _kuhn():
    return seqform.compile_tree(seqform.games.load("kuhn"))


def _load_or_refuse(tmp_path, data: bytes) -> None:
    path = tmp_path / "study.toml"
    path.write_bytes(data)
    with cpu_guard():
        try:
            spec = load_study(path)
        except StudyError as e:
            msg = str(e)
            assert msg.startswith(str(path)) and msg.isprintable() and "\n" not in msg, msg
            return
        cells = spec.cells()
        assert cells
        for c in cells:
            assert c.iterations >= 1 and c.points and c.points[-1] == c.iterations, c
        # every solver builds with every combination of its parameters (on Kuhn poker): the
        # study's cells cannot fail for what the file says
        seen = set()
        for c in cells:
            if (c.solver, c.params) in seen:
                continue
            seen.add((c.solver, c.params))
            try:
                make_solver(c.solver, _kuhn(), eps=spec.eps, seed=c.seed, params=dict(c.params))
            except SeqformError as e:
                raise AssertionError(f"{c.solver} {c.params}: loaded, but its cells fail: {e}") from None


@fuzz_settings(60)
@given(mutated())
@example(data=SMOKE.encode())
@example(data=b"\x80" + SMOKE.encode())  # not UTF-8: refused with FILE:LINE:COL
@example(data=GRID.encode())
@example(data=SMOKE.replace("seeds = 2", "seeds = 9223372036854775807").encode())
@example(data=GRID.replace("params = { batch = [8, 16], exploration = 0.5 }", "params = { batch = -5 }").encode())
@example(data=SMOKE.replace('games = ["kuhn"]', 'games = ["goofspiel(cards=40)"]').encode())
@example(data=("solvers = [1]\n" + SMOKE.split("[[solvers]]")[0]).encode())  # solvers that are not tables
@example(data=('solvers = ["cfr+"]\n' + SMOKE.split("[[solvers]]")[0]).encode())
def test_mutated_studies_load_or_refuse_in_one_line(tmp_path, data):
    _load_or_refuse(tmp_path, data)

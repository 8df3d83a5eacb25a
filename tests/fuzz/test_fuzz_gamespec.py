"""Fuzzing GAME arguments (``seqform.io.gamespec.load_game``, ``seqform.games.load``) through the
command line (``seqform info GAME --json``): every game's name with parameters of every literal
type (huge and negative integers, floats, strings, None, nested lists), names mistyped, an
``openspiel:`` prefix, text that is no Python expression, random strings. Every run gives a
result or one line on standard error with status 2 (``tests.fuzz.fuzzcheck``); a game too large
for the memory limit is refused as too large, before its size is spent. The runs use a small
memory limit (``--memory-limit``), so that a game that does fit is built in well under the CPU
guard: what is fuzzed is the parsing of names and the refusal of sizes, not the speed of building."""

from __future__ import annotations

import inspect

from hypothesis import example, given
from hypothesis import strategies as st

import seqform
from seqform.games import available
from tests.fuzz.fuzzcheck import check_run, fuzz_settings, run_cli

#: the memory limit of the runs, GiB: about 130,000 nodes (``seqform.model.limits.BYTES_PER_NODE``)
LIMIT = "0.05"
_NAMES = sorted(available())
_PARAMS = sorted({p for f in available().values() for p in inspect.signature(f).parameters})
_INTS = st.one_of(st.integers(-3, 12), st.sampled_from([10**3, 10**5, 10**6, 10**9, 10**18, 10**100, -(10**9)]))
_ATOMS = st.one_of(
    _INTS.map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["1e400", "-1e400", "True", "False", "None", "'x'", "''", "'pot'", "'random'", "'actions'", "1j"]),
    st.sampled_from(["()", "[]", "{}", "((0, 1),)", "(1, 2, 3)", "[[1]]", "{1: 2}", "x", "f(1)", "1 + 1", "9**9**9"]),
    st.sampled_from(["{[1]: 2}", "{[1]}", "1" + "0" * 400, "-" + "9" * 5000, "(10, 10, 4, 4, 1" + "0" * 400 + ")"]),
)


@st.composite
def specs(draw) -> str:
    """A GAME argument: mostly a real name with literal parameters, sometimes anything."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.text(max_size=40))
    if kind == 1:
        return draw(st.text("()[]{},=.:'\"0123456789 _abcdeklnopsu", max_size=40))
    name = draw(st.sampled_from(_NAMES))
    if kind == 2:
        name = (
            draw(st.sampled_from(["openspiel:", "OpenSpiel:", " ", ""])) + name + draw(st.sampled_from(["", "_", "x"]))
        )
    args = draw(st.lists(_ATOMS, max_size=3))
    kwargs = draw(st.lists(st.tuples(st.sampled_from(_PARAMS), _ATOMS), max_size=3))
    parts = args + [f"{k}={v}" for k, v in kwargs]
    if not parts and draw(st.booleans()):
        return name
    return f"{name}({', '.join(parts)})"


@fuzz_settings(80)
@given(specs())
@example(spec="leduc(ranks=100000)")
@example(spec="leduc(ranks=10**9)")
@example(spec="liars_dice(100000, 100000)")
@example(spec="goofspiel(cards=40)")
@example(spec="goofspiel(cards=10**18)")
@example(spec="flipit(depth=100000)")
@example(spec="kuhn\x00")
@example(spec="x\x00.efg")  # a NUL byte in a file name
@example(spec="(" * 300 + ")" * 300)
@example(spec="leduc(" + "1" * 5000 + ")")
@example(spec="guess_the_ace(stake=1" + "0" * 5000 + ")")  # a payoff beyond floats: OverflowError compiling
@example(spec="job_market({[1]: 2})")  # a literal that is no value: TypeError
@example(spec="grid_game(seed=-1000000000)")  # a ValueError from numpy, inside the game's constructor
def test_game_arguments_build_or_refuse_in_one_line(capsys, spec):
    if spec.startswith("-"):
        spec = " " + spec  # not an option
    status, out, err = run_cli(capsys, "info", spec, "--json", "--quiet", "--memory-limit", LIMIT)
    obj = check_run(status, out, err, json_output=True)
    if obj is not None:
        assert obj["sizes"]["histories"] <= 0.05 * 2**30 / seqform.model.limits.BYTES_PER_NODE


_SIZE_PARAMETERS = [
    ("leduc", "ranks"),
    ("leduc", "suits"),
    ("liars_dice", "dice"),
    ("liars_dice", "sides"),
    ("goofspiel", "cards"),
    ("flipit", "depth"),
]


@fuzz_settings(20)
@given(st.sampled_from(_SIZE_PARAMETERS), st.integers(2, 200))
def test_huge_parameters_are_refused_as_too_large(capsys, game_param, exponent):
    """A size parameter of 10**2 to 10**200: the game is built, or refused (a refusal for its
    size comes before the size is spent: within the CPU guard)."""
    name, param = game_param
    status, out, err = run_cli(
        capsys, "info", f"{name}({param}={10**exponent})", "--json", "--quiet", "--memory-limit", LIMIT
    )
    check_run(status, out, err, json_output=True)
    assert status == 2 and ("memory limit" in err or "needs" in err), err

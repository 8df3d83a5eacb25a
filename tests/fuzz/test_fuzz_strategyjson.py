"""Fuzzing strategy JSON files through the command line (``seqform evaluate GAME FILE`` with its
flags, ``seqform draw GAME --strategy FILE``): a valid file of ``seqform.profile_to_json``
mutated in its structure (a number, a label, a key, a list or an object replaced by values of
every JSON type, ``"1e400"``, ``"1/0"``, NaN, huge integers, deep nesting; keys dropped or
renamed; entries doubled) and in its text (bytes that are not UTF-8 included). Every run gives a
result or one line on standard error with status 2 (``tests.fuzz.fuzzcheck``), and every
evaluation printed is checked against a brute-force evaluator that walks the game itself
(``tests.oracle.infoset_regret``): the players' values and best-response values."""

from __future__ import annotations

import copy
import functools
import json
import math
from fractions import Fraction

from hypothesis import example, given
from hypothesis import strategies as st

import seqform
from seqform.io.strategyjson import profile_to_json, read_profile
from tests.fuzz.fuzzcheck import check_run, cpu_guard, fuzz_settings, run_cli
from tests.oracle.infoset_regret import _value, best_response_value

GAME = "kuhn"


@functools.cache
def base() -> tuple:
    """(tree, the exact equilibrium's JSON, the same profile as float JSON)."""
    sol = seqform.solve(seqform.games.load(GAME))
    return sol.tree, profile_to_json(sol.tree, sol.exact_profile), profile_to_json(sol.tree, sol.exact_profile, False)


_NASTY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.just(10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        ["1e400", "1/0", "0/0", "NaN", "nan", "inf", "-0", "0x1", "1_0", "1/3", "2/3", "1", "0", " 1 ", "", "\u0661"]
    ),
    st.text(max_size=8),
    st.lists(st.integers(0, 1), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(0, 1), max_size=2),
)


def _paths(obj, prefix=()) -> list:
    """Every place in a JSON value: a tuple of keys and indices from the top."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, prefix + (i,))
    return out


def _deep(depth: int):
    v: object = 0
    for _ in range(depth):
        v = [v]
    return v


@st.composite
def mutated_objects(draw):
    """The valid profile (exact or float) with 1 to 3 structural mutations."""
    _, exact, floats = base()
    obj = copy.deepcopy(draw(st.sampled_from([exact, floats])))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(obj)
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(["replace", "replace", "delete", "rename", "double", "nest"]))
        if not path:
            if op == "replace":
                obj = draw(_NASTY)
            continue
        parent = obj
        for k in path[:-1]:
            parent = parent[k]
        key = path[-1]
        if op == "replace":
            parent[key] = draw(_NASTY)
        elif op == "nest":
            parent[key] = _deep(draw(st.sampled_from([2, 50, 500])))  # deeper: mutated_texts
        elif op == "delete":
            del parent[key]
        elif op == "double" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif op == "rename" and isinstance(parent, dict):
            parent[draw(st.text(max_size=6))] = parent.pop(key)
    return obj


def _text(obj) -> bytes:
    return json.dumps(obj, allow_nan=True).encode()


@st.composite
def mutated_texts(draw) -> bytes:
    """The valid file's text with bytes deleted, inserted or replaced, or cut short."""
    data = _text(draw(st.sampled_from(base()[1:])))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["delete", "insert", "cut"]))
        if op == "delete":
            data = data[:i] + data[i + draw(st.integers(1, 8)) :]
        elif op == "insert":
            junk = st.one_of(
                st.binary(min_size=1, max_size=4), st.sampled_from([b"\xff", b"NaN", b"1e400", b"[" * 5000])
            )
            data = data[:i] + draw(junk) + data[i:]
        else:
            data = data[:i]
    return data


_FLAGS = st.sampled_from([[], ["--exact"], ["--float"], ["--missing-uniform"], ["--no-check-game"], ["--per-infoset"]])


def _oracle_check(tree, path: str, flags: list, ev: dict) -> None:
    """The evaluation printed, against the brute-force evaluator on the profile the file holds."""
    profile = read_profile(
        tree,
        path,
        missing="uniform" if "--missing-uniform" in flags else "error",
        check_game="--no-check-game" not in flags,
    )
    beh = profile.behaviour
    index = {(int(tree.infoset_player[i]), tree.infoset_key[i]): i for i in range(len(tree.infoset_player))}

    def probs(p, key):
        i = index[(p, key)]
        f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
        return [float(x) for x in beh[p][f : f + k]]

    game = tree.game
    for p in range(tree.num_players):
        value = _value(game, game.root(), p, probs, {})
        best = best_response_value(game, p, probs)
        for got, want in ((ev["values"][p], value), (ev["best_response_values"][p], best)):
            got = float(Fraction(got)) if isinstance(got, str) else got
            assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9), (p, got, want, ev)
    # exactly: at least 0; in floats, rounding may leave it a few ulps below (the best response and
    # the profile's value are summed in different orders)
    exploit = ev["exploitability"]
    assert Fraction(exploit) >= 0 if ev["exact"] else exploit >= -1e-12, ev


def _evaluate(capsys, tmp_path, data: bytes, flags: list) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(data)
    status, out, err = run_cli(capsys, "evaluate", GAME, str(path), "--json", "--quiet", *flags)
    ev = check_run(status, out, err, json_output=True)
    if ev is not None:
        with cpu_guard():
            _oracle_check(base()[0], str(path), flags, ev)


@fuzz_settings(40)
@given(mutated_objects(), _FLAGS)
def test_mutated_profiles_evaluate_or_refuse_in_one_line(capsys, tmp_path, obj, flags):
    _evaluate(capsys, tmp_path, _text(obj), flags)


@fuzz_settings(30)
@given(mutated_texts(), _FLAGS)
@example(  # float probabilities summing to 1 - 4e-16: a float exploitability of -5.6e-17
    data=_text(base()[2]).replace(b'"Bet": 0.3333333333333333}}', b'"Bet": 0.333333333333333}}', 1), flags=[]
)
@example(data=b"[" * 100_000, flags=[])  # nesting deeper than Python's recursion limit
@example(data=b'{"strategies": ' + b"[" * 100_000 + b"0" + b"]" * 100_000 + b"}", flags=[])
@example(data=b'{"strategies": [' + b"[" * 100_000, flags=[])
@example(data=_text(base()[1]).replace(b'"1/3"', b"1e400", 1), flags=[])
@example(data=_text(base()[2]).replace(b"0.5", b"1" + b"0" * 400, 1), flags=[])  # an int too large for a float
@example(data=_text(base()[1]).replace(b'"1/3"', b"1" + b"0" * 5000, 1), flags=[])
@example(data=_text(base()[1]).replace(b'"1/3"', b'"\xff"', 1), flags=[])
def test_mutated_texts_evaluate_or_refuse_in_one_line(capsys, tmp_path, data, flags):
    _evaluate(capsys, tmp_path, data, flags)


@fuzz_settings(4, share=0.05)
@given(mutated_objects())
def test_draw_reads_a_mutated_profile_or_refuses_in_one_line(capsys, tmp_path, obj):
    path = tmp_path / "s.json"
    path.write_bytes(_text(obj))
    out = tmp_path / "k.svg"
    out.unlink(missing_ok=True)  # (tmp_path is one folder for all the examples)
    status, stdout, err = run_cli(capsys, "draw", GAME, "--strategy", str(path), "--out", str(out), "--quiet")
    check_run(status, stdout, err, json_output=False)
    assert (status == 0) == out.exists()

"""The Gambit .efg reader (``seqform.io.efgread``): round trips with the writer (``seqform.io.efgwrite``),
pygambit's catalog of games (sizes, leaf payoffs, chance probabilities, action labels and the
equilibrium value of ``pygambit.nash.lp_solve`` in rational arithmetic), hand-written malformed
files with their exact messages, exact numbers, fuzzing (mutated files and token soups must
load or raise a ``SeqformError``, never anything else, never hang), messages that quote any bytes
as one printable line at the right LINE:COL, and files other tools write (OpenSpiel's, compared
with OpenSpiel's own reader; the departures from Gambit's rules in ``docs/efg-format.md``)."""

from __future__ import annotations

import glob
import io
import os
import re
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import seqform
from seqform.errors import ChanceProbabilityError, GameError, ImperfectRecallError, SeqformError
from seqform.games import load
from seqform.io.efgread import EfgGame, EfgParseError, InfosetKey, normalize_labels, parse_efg, read_efg
from seqform.io.efgwrite import efg_string
from seqform.model.game import CHANCE, TERMINAL
from seqform.model.tree import compile_tree
from tests.fuzz.fuzzcheck import cpu_guard
from tests.strategies import TreeGame, random_games

# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------


def _tree_facts(tree) -> dict:
    return {
        "sizes": tree.sizes(),
        "payoff": tree.payoff_exact,
        "chance": tree.chance_probs,
        "terminal_chance": tree.terminal_chance_exact,
        "constant_sum": tree.constant_sum,
        "num_players": tree.num_players,
    }


def _round_trip(tree, filename="rt.efg"):
    """writer -> reader -> compile -> writer; returns (text, the read game, its tree)."""
    text = efg_string(tree)
    game = parse_efg(text, filename)
    tree2 = compile_tree(game)
    assert _tree_facts(tree2) == _tree_facts(tree)
    assert efg_string(tree2) == text  # fixed point of writer -> reader -> writer
    return text, game, tree2


H2 = 'EFG 2 R "t" { "A" "B" }\n'

# ----------------------------------------------------------------------------------------------
# 1. round trips with the writer
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["kuhn", "leduc", "liars_dice(1,3)", "goofspiel(3)"])
def test_round_trip_builtin(spec):
    tree = compile_tree(load(spec))
    text, game, tree2 = _round_trip(tree, f"{spec}.efg")
    assert game.name == tree.name and game.num_players == 2
    assert tree2.chance_labels == tree.chance_labels
    sol, sol2 = seqform.solve(tree), seqform.solve(tree2)
    assert sol.certified and sol2.certified
    assert sol2.value == sol.value


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(random_games())
def test_round_trip_random_games(game):
    tree = compile_tree(game)
    _, _, tree2 = _round_trip(tree)
    sol, sol2 = seqform.solve(tree), seqform.solve(tree2)
    assert sol.certified and sol2.certified and sol2.value == sol.value


def test_round_trip_odd_labels_after_first_write():
    # labels with quotes, backslashes, non-ASCII, duplicates, an empty key, a reach-0 chance node:
    # the first write sanitises them; from then on writer -> reader -> writer is a fixed point
    from tests.io.test_efg_write import ODD

    text = efg_string(ODD)
    tree = compile_tree(parse_efg(text))
    assert efg_string(tree) == text
    assert seqform.solve(tree).value == seqform.solve(ODD).value
    assert tree.chance_probs[-1] == (Fraction(1, 5), Fraction(3, 5), Fraction(1, 5))


# ----------------------------------------------------------------------------------------------
# 2. pygambit's catalog
# ----------------------------------------------------------------------------------------------


def _catalog() -> list:
    try:
        import pygambit
    except ImportError:
        return []
    root = os.path.join(os.path.dirname(pygambit.__file__), "catalog_data")
    return sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "**", "*.efg"), recursive=True))


def _catalog_path(rel: str) -> str:
    import pygambit

    return os.path.join(os.path.dirname(pygambit.__file__), "catalog_data", rel)


# Files outside what seqform supports: they load, and compile_tree refuses them with our own error.
CATALOG_UNSUPPORTED = {
    "books/shohamleytonbrown2008/fig5_12.efg": (ImperfectRecallError, "absent-mindedness"),
    "books/vonstengel2022/fig10.7.efg": (ImperfectRecallError, "player II forgets its first move"),
    "journals/geb/gilboa1997/fig1.efg": (ImperfectRecallError, "the absent-minded driver"),
    "journals/geb/gilboa1997/fig2.efg": (ImperfectRecallError, "two selves, sets at different own depths"),
    "journals/geb/wichardt2008.efg": (ImperfectRecallError, "player 1 forgets its first move"),
}
# Two-player constant-sum games with perfect recall (value compared with pygambit's lp_solve).
CATALOG_SOLVED = {
    "books/myerson1991/fig2_1.efg": Fraction(1, 3),
    "books/vonstengel2022/fig10.1.efg": Fraction(9),
    "books/vonstengel2022/fig10.12.efg": Fraction(1, 3),
    "journals/mor/vonstengelforges2008/fig6.efg": Fraction(0),
    "journals/other/reiley2008/fig1.efg": Fraction(1, 3),
}
# Catalog files on which pygambit 16.7's lp_solve returns a profile with positive regret (its value
# then is not the game's): none seen in this catalog (checked with profile.max_regret()).
PYGAMBIT_LP_INVALID: dict = {}
# pygambit's rational LP is only run on games up to this many nodes (~20 s budget)
PYGAMBIT_LP_MAX_NODES = 2000


def _gambit_sizes(g) -> dict:
    nodes = list(g.nodes)
    return {
        "nodes": len(nodes),
        "terminals": sum(1 for n in nodes if n.is_terminal),
        "chance_nodes": sum(1 for n in nodes if not n.is_terminal and n.infoset.player.is_chance),
        "infosets": [len(p.infosets) for p in g.players],
        "chance_infosets": len(g.players.chance.infosets),
    }


def _gambit_leaf_payoffs(g) -> list:
    """Per leaf in preorder: the sum of the outcomes on its path (pygambit's semantics)."""
    players = list(g.players)
    out = []
    for n in g.nodes:
        if not n.is_terminal:
            continue
        total = [Fraction(0)] * len(players)
        v = n
        while v is not None:
            if v.outcome:
                total = [t + Fraction(str(v.outcome[p])) for t, p in zip(total, players)]
            v = v.parent
        out.append(tuple(total))
    return out


def test_catalog_is_there():
    pytest.importorskip("pygambit")
    files = _catalog()
    assert len(files) >= 30
    assert set(CATALOG_UNSUPPORTED) <= set(files) and set(CATALOG_SOLVED) <= set(files)


@pytest.mark.parametrize("rel", _catalog())
def test_catalog_file(rel):
    gbt = pytest.importorskip("pygambit")
    path = _catalog_path(rel)
    game = read_efg(path)
    assert isinstance(game, EfgGame)
    g = gbt.read_efg(path)
    # sizes, player names, action labels (Gambit's normalisation), leaf payoffs, chance probabilities
    assert game.sizes() == _gambit_sizes(g)
    assert game.title == g.title
    assert list(game.player_names) == [p.label for p in g.players]
    ours = sorted((game.player(h), game.actions(h)) for h in range(game.num_nodes) if game.player(h) >= 0)
    theirs = sorted(
        (list(g.players).index(n.infoset.player), tuple(a.label for a in n.infoset.actions))
        for n in g.nodes
        if not n.is_terminal and not n.infoset.player.is_chance
    )
    assert ours == theirs
    leaves = [h for h in range(game.num_nodes) if game.player(h) == TERMINAL]
    assert [game.utility(h) for h in leaves] == _gambit_leaf_payoffs(g)
    chance = [h for h in range(game.num_nodes) if game.player(h) == CHANCE]
    theirs_p = [
        tuple(Fraction(str(a.prob)) for a in n.infoset.actions)
        for n in g.nodes
        if not n.is_terminal and n.infoset.player.is_chance
    ]
    assert [game.chance(h) for h in chance] == theirs_p

    if rel in CATALOG_UNSUPPORTED:
        err, _reason = CATALOG_UNSUPPORTED[rel]
        assert not g.is_perfect_recall
        with pytest.raises(err) as info:
            compile_tree(game)
        assert f"defined at {path}:" in str(info.value)
        return
    tree = compile_tree(game)
    assert g.is_perfect_recall
    assert tree.num_players == len(g.players)
    if rel not in CATALOG_SOLVED:
        # not two-player constant-sum: two players get the exact LCP (or backward induction when
        # the game has perfect information), more players backward induction where information is
        # perfect and CFR+ polished into exact rationals where it is not (the catalogue's games
        # certify); every equilibrium is checked by exact best responses, independently of how it
        # was found
        assert tree.num_players != 2 or tree.constant_sum is None
        sol = seqform.solve(tree)
        assert sol.certified and sol.nash_conv == 0
        ev = seqform.evaluate(tree, sol.exact_profile, exact=True)
        assert all(g == 0 for g in ev.gains) and list(ev.values) == list(sol.values)
        return
    assert g.is_const_sum
    sol = seqform.solve(tree)
    assert sol.certified and sol.value == CATALOG_SOLVED[rel]
    if tree.num_nodes > PYGAMBIT_LP_MAX_NODES:
        pytest.skip("too large for pygambit's rational LP in a unit test")
    eq = gbt.nash.lp_solve(g, rational=True).equilibria[0]
    theirs_v = Fraction(str(eq.payoff(list(g.players)[0])))
    if rel in PYGAMBIT_LP_INVALID:
        assert eq.max_regret() > 0 and sol.exploitability_bound == 0
    else:
        assert eq.max_regret() == 0, f"pygambit's lp_solve profile has regret {eq.max_regret()} on {rel}"
        assert theirs_v == sol.value


def test_catalog_three_and_four_players_general_sum():
    pytest.importorskip("pygambit")
    horse = compile_tree(read_efg(_catalog_path("journals/ijgt/selten1975/fig1.efg")))
    assert horse.num_players == 3 and horse.constant_sum is None
    assert horse.payoff_exact[1] == (4, 4, 0)
    onion = read_efg(_catalog_path("conf/itcs/jakobsen2016/fig3.efg"))
    tree = compile_tree(onion)
    assert tree.num_players == 4
    assert Fraction(101, 100) in tree.payoff_exact[2]  # "1.01", exactly


# ----------------------------------------------------------------------------------------------
# the format: numbers, strings, outcomes, reuse, keys, labels, sources
# ----------------------------------------------------------------------------------------------


def test_numbers_exact():
    text = H2 + (
        'p "" 1 1 "" { "a" "b" "c" "d" } 0\n'
        't "" 1 "o1" { 1.5, -.5 }\n'
        't "" 2 "o2" { 2.5e0 -3. }\n'
        't "" 3 "o3" { -1/2,0.1 }\n'
        't "" 4 "o4" { 123456789012345678901234567890 1E-30 }\n'
    )
    g = parse_efg(text)
    u = [g.utility(h) for h in g.children(0)]
    assert u == [
        (Fraction(3, 2), Fraction(-1, 2)),
        (Fraction(5, 2), -3),
        (Fraction(-1, 2), Fraction(1, 10)),
        (123456789012345678901234567890, Fraction(1, 10**30)),
    ]
    assert type(u[1][1]) is int and type(u[3][0]) is int  # integral values stay int
    assert g.outcomes[3] == ("o3", (Fraction(-1, 2), Fraction(1, 10)))


@settings(max_examples=200, deadline=None, database=None)
@given(
    st.one_of(
        st.fractions(max_denominator=10**6).map(lambda x: f"{x.numerator}/{x.denominator}"),
        st.integers(-(10**40), 10**40).map(str),
        st.from_regex(r"-?([0-9]{1,12}(\.[0-9]{0,12})?|\.[0-9]{1,12})([eE][+-]?[0-9]{1,3})?", fullmatch=True),
    )
)
def test_numbers_match_fraction(s):
    expected = Fraction(s)  # Python's own exact reading of the same text
    assume(abs(expected) <= 1e300)
    g = parse_efg(H2 + f't "" 1 "o" {{ {s} 0 }}\n')
    assert g.utility(0) == (expected, 0)


def test_strings_escapes_and_layout():
    text = (
        'EFG 2 D "a \\"quoted\\" title"{"P\\\\1" "P2"}"multi\nline\ncomment"'
        'c "root" 7 "nature" { "h" 1/2 "t" 1/2 } 0 p"" 1 1 "" {"x" "y"} 0 t "" 1 "o" {1,-1}\n'
        't "" 2 "o2" {2 -2} p "" 2 1 "" {"x" "y"} 0 t "" 1 t "" 2 '
    )
    g = parse_efg(text, "lay.efg")
    assert g.title == 'a "quoted" title' and g.number_type == "D"
    assert g.raw_player_names == ("P\\\\1", "P2")  # a backslash not before a quote is itself
    assert g.comment == "multi\nline\ncomment"
    assert g.node_name(0) == "root" and g.infoset_number(0) == 7
    assert g.line(0) == 3 and g.line(g.num_nodes - 1) == 4
    assert g.describe(g.num_nodes - 1) == "node at lay.efg:4"
    t = compile_tree(g)
    assert t.sizes()["histories"] == 7 and t.constant_sum == 0


def test_outcomes_add_along_the_path_and_match_pygambit():
    text = (
        'EFG 2 R "inner outcomes" { "A" "B" }\n'
        'c "" 1 "" { "h" 1/3 "t" 2/3 } 1 "ante" { 1, -1 }\n'
        'p "" 1 1 "" { "x" "y" } 2 "fee" { -1/2 1/2 }\n'
        't "" 3 "win" { 2 -2 }\n'
        't "" 0\n'
        'p "" 1 2 "" { "x" "y" } 0\n'
        'p "" 2 1 "" { "l" "r" } 2\n'
        't "" 3\n'
        't "" 4 "lose" { -3 3 }\n'
        't "" 1\n'
    )
    g = parse_efg(text)
    leaves = [h for h in range(g.num_nodes) if g.player(h) == TERMINAL]
    assert [g.utility(h) for h in leaves] == [
        (Fraction(5, 2), Fraction(-5, 2)),
        (Fraction(1, 2), Fraction(-1, 2)),
        (Fraction(5, 2), Fraction(-5, 2)),
        (Fraction(-5, 2), Fraction(5, 2)),
        (2, -2),
    ]
    assert g.outcome(0) == 1 and g.outcome(leaves[1]) == 0
    tree = compile_tree(g)
    value = seqform.solve(tree).value
    gbt = pytest.importorskip("pygambit")
    gg = gbt.read_efg(io.StringIO(text))
    assert _gambit_leaf_payoffs(gg) == [g.utility(h) for h in leaves]
    assert Fraction(str(gbt.nash.lp_solve(gg, rational=True).equilibria[0].payoff("A"))) == value


def test_reuse_of_information_sets_and_outcomes():
    text = (
        H2 + 'c "" 1 "" { "a" 1/4 "b" 3/4 } 0\n'
        'p "" 1 1 "I" { "x" "y" } 0\n'
        'c "" 2 "c2" { "u" 1/2 "v" 1/2 } 0\n'
        't "" 1 "o" { 1, -1 }\n'
        't "" 2 "q" { 2, -2 }\n'
        't "" 1 "o" { 1, -1 }\n'  # a repeated definition that agrees
        'p "" 1 1 0\n'  # the number alone: the first definition
        'c "" 2 0\n'
        't "" 1\n'
        't "" 2 "q" { 4/2 -2 }\n'  # agrees as an exact value
        't "" 2\n'
    )
    g = parse_efg(text)
    assert g.sizes() == {"nodes": 11, "terminals": 6, "chance_nodes": 3, "infosets": [1, 0], "chance_infosets": 2}
    t = compile_tree(g)
    assert t.sizes()["infosets"] == [1, 0]
    assert t.chance_probs == [
        (Fraction(1, 4), Fraction(3, 4)),
        (Fraction(1, 2), Fraction(1, 2)),
        (Fraction(1, 2), Fraction(1, 2)),
    ]
    assert t.payoff_exact == [(1, -1), (2, -2), (1, -1), (1, -1), (2, -2), (2, -2)]


def test_infoset_keys():
    g = read_efg(io.StringIO(H2 + 'p "" 2 5 "Who?" { "x" "y" } 0\nt "" 0\np "" 1 9 "" { "a" } 0\nt "" 0\n'))
    k = g.infoset(0)
    assert isinstance(k, InfosetKey) and k == (1, 5) and hash(k) == hash((1, 5))
    assert (k.player, k.number, k.label, str(k)) == (1, 5, "Who?", "Who?")
    assert repr(k) == '5 "Who?" (player 2 "B" in the file, defined at <file>:2)'
    k2 = g.infoset(g.children(0)[1])
    assert k2 == (0, 9) and str(k2) == "infoset 9"
    import pickle

    assert pickle.loads(pickle.dumps(k)) == k and pickle.loads(pickle.dumps(k)).label == "Who?"
    with pytest.raises(GameError):
        g.infoset(1)


def test_labels_normalised_like_gambit():
    assert normalize_labels(["x", "x", "x_1", ""]) == ("x_2", "x_3", "x_1", "_1")
    assert normalize_labels(["a", "b"]) == ("a", "b")
    g = parse_efg('EFG 2 R "t" { "A" "A" "" }\np "" 1 1 "" { "x" "x" "x_1" "" } 0\n' + 't "" 0\n' * 4)
    assert g.player_names == ("A_1", "A_2", "_1") and g.raw_player_names == ("A", "A", "")
    assert g.actions(0) == ("x_2", "x_3", "x_1", "_1") and g.raw_actions(0) == ("x", "x", "x_1", "")


def test_sources(tmp_path):
    text = efg_string(load("kuhn"))
    p = tmp_path / "k.efg"
    p.write_bytes(b"\xef\xbb\xbf" + text.encode())  # with a UTF-8 byte-order mark
    for src in (p, str(p)):
        g = read_efg(src)
        assert g.filename == str(p) and g.describe(0) == f"node at {p}:4"
    with open(p, "rb") as f:
        assert read_efg(f).sizes()["nodes"] == 58
    with open(p, encoding="utf-8-sig") as f:
        assert read_efg(f).filename == str(p)
    assert read_efg(io.StringIO(text)).filename == "<file>"
    latin = H2.replace('"A"', '"\xe9"').encode("latin-1") + b't "" 0\n'
    assert read_efg(io.BytesIO(latin)).player_names[0] == "\xe9"
    with pytest.raises(TypeError):
        read_efg(42)
    with pytest.raises(OSError):
        read_efg(tmp_path / "missing.efg")


def test_deep_tree_no_recursion():
    depth = 20000  # far beyond Python's recursion limit
    text = (
        H2
        + 'p "" 1 1 "" { "stop" "go" } 0\nt "" 1 "s" { 1, -1 }\n'
        + 'p "" 1 1 0\nt "" 1\n' * (depth - 1)
        + 't "" 2 "end" { 0, 0 }\n'
    )
    g = parse_efg(text)
    assert g.num_nodes == 2 * depth + 1
    with pytest.raises(ImperfectRecallError):  # one information set, again and again: absent-minded
        compile_tree(g)
    text2 = "".join(f'p "" 1 {i} "" {{ "stop" "go" }} 0\nt "" 1 "s" {{ 1, -1 }}\n' for i in range(1, depth + 1))
    tree = compile_tree(parse_efg(H2 + text2 + 't "" 0\n'))
    assert tree.num_nodes == 2 * depth + 1 and tree.sizes()["infosets"] == [depth, 0]


def test_game_interface_errors():
    g = parse_efg(H2 + 'c "" 1 "" { "a" 1 } 0\nt "" 0\n')
    with pytest.raises(GameError):
        g.utility(0)
    with pytest.raises(GameError):
        g.next(0, 1)
    with pytest.raises(GameError):
        g.chance(1)
    assert g.actions(1) == () and g.children(1) == () and g.path(1) == ["a"] and g.parent(1) == 0


# ----------------------------------------------------------------------------------------------
# 3. malformed files: exact messages
# ----------------------------------------------------------------------------------------------

G2 = H2 + 'p "" 1 1 "" { "x" "y" } 0\n'
BAD = [
    ("bad header", 'EFG 3 R "t" { "A" }\nt "" 0\n', "bad.efg:1:5: expected the format version '2', found '3'"),
    (
        "not an efg file",
        'NFG 1 R "t" { "A" } { 2 }\n',
        "bad.efg:1:1: expected 'EFG' (the start of a Gambit extensive-form file), found 'NFG'",
    ),
    ("bad number type", 'EFG 2 Q "t" { "A" }\nt "" 0\n', "bad.efg:1:7: expected the number type 'R' or 'D', found 'Q'"),
    (
        "missing brace",
        'EFG 2 R "t" "A" "B" }\nt "" 0\n',
        "bad.efg:1:13: expected '{' opening the list of player names, found string \"A\"",
    ),
    (
        "no players",
        'EFG 2 R "t" { }\nt "" 0\n',
        "bad.efg:1:15: expected at least one player name (a string), found '}'",
    ),
    (
        "unterminated string",
        G2 + 't "" 1 "o" { 1, -1 }\nt "" 2 "o2 { 2, -2 }\n',
        "bad.efg:4:8: expected a closing '\"' for the string that starts here, found end of file",
    ),
    (
        "bad number",
        G2 + 't "" 1 "o" { 1/, -1 }\nt "" 0\n',
        "bad.efg:3:14: expected payoff 1 of 2 (a number such as 3, -1/2, 1.5 or 2.5e-1), found '1/'",
    ),
    (
        "zero denominator",
        G2 + 't "" 1 "o" { 1, -1/0 }\nt "" 0\n',
        "bad.efg:3:17: expected payoff 2 of 2 (a rational with a non-zero denominator), found '-1/0'",
    ),
    (
        "number out of float range",
        G2 + 't "" 1 "o" { 1e309, 0 }\nt "" 0\n',
        "bad.efg:3:14: expected payoff 1 of 2 within the float range (at most about 1.8e308 in size), found '1e309'",
    ),
    ("unknown node type", G2 + 'x "" 0\nt "" 0\n', "bad.efg:3:1: expected a node ('c', 'p' or 't'), found 'x'"),
    (
        "too few payoffs",
        G2 + 't "" 1 "o" { 1 }\nt "" 0\n',
        "bad.efg:3:16: expected payoff 2 of 2 (a number such as 3, -1/2, 1.5 or 2.5e-1), found '}'",
    ),
    (
        "too many payoffs",
        G2 + 't "" 1 "o" { 1, 2, 3 }\nt "" 0\n',
        "bad.efg:3:20: expected '}' after the 2 payoffs of outcome 1, found '3'",
    ),
    (
        "player out of range",
        H2 + 'p "" 3 1 "" { "x" "y" } 0\nt "" 0\nt "" 0\n',
        "bad.efg:2:6: expected a player number 1..2, found '3'",
    ),
    ("no actions", H2 + 'p "" 1 1 "" { } 0\n', "bad.efg:2:15: expected an action label (a string), found '}'"),
    (
        "infoset reused with other actions",
        H2 + 'c "" 1 "" { "a" 1/2 "b" 1/2 } 0\np "" 1 1 "" { "x" "y" } 0\nt "" 0\nt "" 0\n'
        'p "" 1 1 "" { "x" "z" } 0\nt "" 0\nt "" 0\n',
        'bad.efg:6:13: expected the actions { "x" "y" } of player 1\'s information set 1 as defined at '
        'line 3, found { "x" "z" }',
    ),
    (
        "infoset reused with more actions",
        H2 + 'c "" 1 "" { "a" 1/2 "b" 1/2 } 0\np "" 1 1 "" { "x" "y" } 0\nt "" 0\nt "" 0\n'
        'p "" 1 1 "" { "x" "y" "z" } 0\nt "" 0\nt "" 0\nt "" 0\n',
        'bad.efg:6:13: expected the actions { "x" "y" } of player 1\'s information set 1 as defined at '
        'line 3, found { "x" "y" "z" }',
    ),
    (
        "infoset reused with another name",
        H2 + 'c "" 1 "" { "a" 1/2 "b" 1/2 } 0\np "" 1 1 "I" { "x" "y" } 0\nt "" 0\nt "" 0\n'
        'p "" 1 1 "J" { "x" "y" } 0\nt "" 0\nt "" 0\n',
        'bad.efg:6:10: expected the name "I" of player 1\'s information set 1 as defined at line 3, found "J"',
    ),
    (
        "chance set reused with other probabilities",
        H2 + 'p "" 1 1 "" { "x" "y" } 0\nc "" 1 "" { "a" 1/2 "b" 1/2 } 0\nt "" 0\nt "" 0\n'
        'c "" 1 "" { "a" 1/3 "b" 2/3 } 0\nt "" 0\nt "" 0\n',
        'bad.efg:6:11: expected the actions { "a" 1/2 "b" 1/2 } of chance\'s information set 1 as defined '
        'at line 3, found { "a" 1/3 "b" 2/3 }',
    ),
    (
        "undefined infoset",
        H2 + 'p "" 1 1 0\nt "" 0\nt "" 0\n',
        "bad.efg:2:10: expected the name and actions of player 1's information set 1 (its first node must "
        "define it), found '0'",
    ),
    (
        "outcome reused with other payoffs",
        G2 + 't "" 1 "o" { 1, 2 }\nt "" 1 "o" { 1, 3 }\n',
        "bad.efg:4:8: expected the payoffs { 1 2 } of outcome 1 as defined at line 3, found { 1 3 }",
    ),
    (
        "outcome reused with another name",
        G2 + 't "" 1 "o" { 1, 2 }\nt "" 1 "q" { 1, 2 }\n',
        'bad.efg:4:8: expected the name "o" of outcome 1 as defined at line 3, found "q"',
    ),
    (
        "undefined outcome",
        G2 + 't "" 1\nt "" 0\n',
        "bad.efg:4:1: expected the name and payoffs of outcome 1 (its first use must define it), found 't'",
    ),
    (
        "null outcome defined",
        G2 + 't "" 0 "o" { 1, 2 }\nt "" 0\n',
        'bad.efg:3:8: expected no outcome definition after outcome number 0 (which means no outcome), found string "o"',
    ),
    (
        "non-integer infoset number",
        H2 + 'p "" 1 1.5 "" { "x" "y" } 0\nt "" 0\nt "" 0\n',
        "bad.efg:2:8: expected the information set's number (an integer), found '1.5'",
    ),
    (
        "truncated file",
        G2 + 't "" 1 "o" { 1, 2 }\n',
        "bad.efg:4:1: expected a node ('c', 'p' or 't'), found end of file",
    ),
    (
        "truncated in a payoff list",
        G2 + 't "" 1 "o" { 1, 2',
        "bad.efg:3:18: expected '}' after the 2 payoffs of outcome 1, found end of file",
    ),
    (
        "trailing garbage",
        G2 + 't "" 0\nt "" 0\ngarbage here\n',
        "bad.efg:5:1: expected the end of the file (the tree is complete after the node at line 4), found 'garbage'",
    ),
    ("empty file", "", "bad.efg:1:1: expected 'EFG' (the start of a Gambit extensive-form file), found end of file"),
]


@pytest.mark.parametrize("case,text,message", BAD, ids=[b[0] for b in BAD])
def test_malformed(case, text, message):
    with pytest.raises(EfgParseError) as info:
        parse_efg(text, "bad.efg")
    e = info.value
    assert str(e) == message
    assert isinstance(e, GameError) and isinstance(e, SeqformError)
    assert e.filename == "bad.efg" and message.startswith(
        f"bad.efg:{e.line}:{e.column}: expected {e.expected}, found {e.found}"
    )


def test_chance_probabilities_not_one():
    text = G2 + 'c "" 1 "nature" { "a" 1/2 "b" 0.4 } 0\nt "" 0\nt "" 0\nt "" 0\n'
    g = parse_efg(text, "bad.efg")  # loads: probabilities are checked when the game is compiled
    with pytest.raises(ChanceProbabilityError) as info:
        compile_tree(g)
    assert str(info.value) == (
        "chance node at bad.efg:3 (path x, chance information set 1, defined at bad.efg:3) of 't' has "
        'probabilities that sum to 9/10, not exactly 1: { "a" 1/2, "b" 2/5 }'
    )
    neg = parse_efg(H2 + 'c "" 1 "" { "a" 3/2 "b" -1/2 } 0\nt "" 0\nt "" 0\n', "bad.efg")
    with pytest.raises(
        ChanceProbabilityError,
        match=r"chance node at bad.efg:2 \(path \(root\).*a negative "
        r"probability \(-1/2\)",
    ):
        compile_tree(neg)


def test_imperfect_recall_message():
    text = G2.replace('{ "x" "y" }', '{ "L" "R" }') + (
        'p "" 1 2 "second" { "l" "r" } 0\nt "" 0\nt "" 0\np "" 1 2 "second" { "l" "r" } 0\nt "" 0\nt "" 0\n'
    )
    with pytest.raises(ImperfectRecallError) as info:
        compile_tree(parse_efg(text, "bad.efg"))
    assert str(info.value) == (
        'imperfect recall in \'t\': player 0 information set 2 "second" (player 1 "A" in the file, defined '
        "at bad.efg:3) is reached after different own histories, at L and at R"
    )


def test_error_pickles():
    import pickle

    try:
        parse_efg("EFG 2 R", "x.efg")
    except EfgParseError as e:
        e2 = pickle.loads(pickle.dumps(e))
        assert str(e2) == str(e) == "x.efg:1:8: expected the game's title (a string), found end of file"
        assert (e2.line, e2.column) == (1, 8)


# ----------------------------------------------------------------------------------------------
# 4. fuzzing: mutated files and token soups
# ----------------------------------------------------------------------------------------------

SEEDS = [
    efg_string(load("kuhn")),
    efg_string(
        compile_tree(
            TreeGame(
                (
                    "chance",
                    ("a", "b"),
                    (Fraction(1, 3), Fraction(2, 3)),
                    (
                        (
                            "decision",
                            0,
                            "I",
                            ("L", "R"),
                            (("leaf", (1, -1)), ("leaf", (Fraction(-1, 2), Fraction(1, 2)))),
                        ),
                        ("decision", 0, "I", ("L", "R"), (("leaf", (3, -3)), ("leaf", (0, 0)))),
                    ),
                ),
                name="seed",
            )
        )
    ),
    (
        'EFG 2 D "fuzz \\"seed\\"" { "A" "B" "C" } "comment"\n'
        'c "" 1 "n" { "h" .5 "t" 0.5e0 } 1 "ante" { 1, -1/2, -.5 }\n'
        'p "x" 1 1 "I" { "a" "b" } 0\n'
        't "" 2 "o" { 1.5 2 -3. }\n'
        'p "" 3 1 "K" { "u" } 2\n'
        't "" 0\n'
        'p "" 1 1 0\n'
        't "" 2\n'
        'p "" 2 4 "" { "l" "r" } 0\n'
        't "" 3 "w" { 2.5E-1, 0, 0 }\n'
        't "" 0\n'
    ),
]
ALPHABET = ' \n\t{}",\\0123456789./-+eEcptRD' + "abxyz_"
TOKENS = [
    "EFG",
    "2",
    "R",
    "D",
    '"t"',
    '""',
    '"a"',
    '"\\"q\\""',
    "{",
    "}",
    ",",
    "c",
    "p",
    "t",
    "0",
    "1",
    "2",
    "3",
    "-1",
    "1/2",
    "1/0",
    "0.5",
    ".5",
    "-3.",
    "2.5e0",
    "1e999",
    "9" * 50,
    "x",
    '"',
    "\\",
    "\n",
]


def _check_loads_or_seqform_error(text: str) -> None:
    with cpu_guard(5):
        try:
            game = parse_efg(text, "fuzz.efg")
        except SeqformError as e:
            assert isinstance(e, EfgParseError) and str(e).startswith("fuzz.efg:")
            return
        try:
            tree = compile_tree(game)
        except SeqformError:
            return
        # what compiles also goes round the writer and back
        text2 = efg_string(tree)
        assert efg_string(compile_tree(parse_efg(text2))) == text2


NUMBERS = ["0", "1", "-1", "2", "1/2", "1/3", "2/3", "-1/2", "0.5", ".5", "0.4", "-3.", "2.5e0", "1e-3", "7"]


@st.composite
def mutated_files(draw):
    """A seed file with 1-4 mutations: characters deleted, inserted or replaced, a number replaced
    by another (chance probabilities that no longer sum to 1...), tokens dropped, doubled or swapped.
    Most mutations fall in the body (after the header), where the interesting grammar is."""
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "number", "drop token", "dup token", "swap tokens"]))
        n = len(text)
        body = min((k for k in (text.find("\nc "), text.find("\np ")) if k >= 0), default=0)
        i = draw(st.integers(0, n)) if draw(st.integers(0, 4)) == 0 else draw(st.integers(body, n))
        if op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 8)) :]
        elif op == "insert":
            text = text[:i] + draw(st.text(ALPHABET, min_size=1, max_size=6)) + text[i:]
        elif op == "replace":
            text = text[:i] + draw(st.sampled_from(ALPHABET)) + text[i + 1 :]
        else:
            toks = text.split(" ")
            if op == "number":
                nums = [k for k, tok in enumerate(toks) if tok and tok[0] in "-.0123456789"]
                if nums:
                    toks[draw(st.sampled_from(nums))] = draw(st.sampled_from(NUMBERS))
                text = " ".join(toks)
                continue
            j = draw(st.integers(0, len(toks) - 1))
            if op == "drop token":
                del toks[j]
            elif op == "dup token":
                toks.insert(j, toks[j])
            else:
                k = draw(st.integers(0, len(toks) - 1))
                toks[j], toks[k] = toks[k], toks[j]
            text = " ".join(toks)
    return text


@settings(max_examples=1500, deadline=2000, suppress_health_check=list(HealthCheck), database=None)
@given(mutated_files())
def test_fuzz_mutated_files(text):
    _check_loads_or_seqform_error(text)


def test_a_title_the_writer_sanitises_round_trips():
    # found by the fuzzer: the title "kuh " is written "kuh", and the comment line named the game
    # as read ("kuh "), so writing the file read back changed the comment
    text = efg_string(compile_tree(load("kuhn"))).replace('EFG 2 R "kuhn"', 'EFG 2 R "kuh "', 1)
    _check_loads_or_seqform_error(text)
    assert "from kuh:" in efg_string(compile_tree(parse_efg(text)))


@settings(max_examples=800, deadline=2000, suppress_health_check=list(HealthCheck), database=None)
@given(
    st.booleans(),
    st.lists(st.sampled_from(TOKENS), max_size=60),
    st.lists(st.sampled_from([" ", "\n", ""]), min_size=60, max_size=60),
)
def test_fuzz_token_soup(header, tokens, seps):
    body = "".join(t + s for t, s in zip(tokens, seps))
    _check_loads_or_seqform_error((H2 if header else "") + body)


@settings(max_examples=400, deadline=2000, suppress_health_check=list(HealthCheck), database=None)
@given(st.text(max_size=200))
def test_fuzz_any_text(text):
    _check_loads_or_seqform_error(H2 + text)


def test_huge_inputs_are_bounded():
    for s in ["1e308", "1e-3999", "9" * 300 + "/" + "7" * 300, "0." + "0" * 3990 + "1", "1" + "0" * 300 + "e-3000"]:
        assert parse_efg(H2 + f't "" 1 "o" {{ {s}, 0 }}\n').utility(0) == (Fraction(s), 0)
    for s in ["1e10000", "1e10001", "1e-4000", "1" * 4001, "1/" + "3" * 4001, "1e" + "9" * 40, "1e-" + "9" * 40]:
        with cpu_guard(5), pytest.raises(EfgParseError):
            parse_efg(H2 + f't "" 1 "o" {{ {s}, 0 }}\n')
    with pytest.raises(EfgParseError, match="sums along the path"):
        parse_efg(H2 + 'p "" 1 1 "" { "a" } 1 "big" { 1e308, 0 }\nt "" 1\n')
    # messages about numbers too long to print in full show them approximately
    g = parse_efg(H2 + 'c "" 1 "" { "a" 1/' + "3" * 3999 + ' "b" 1e-3999 } 0\nt "" 0\nt "" 0\n', "big.efg")
    expected = r'sum to ~4e-3999, not exactly 1: \{ "a" ~3e-3999, "b" ~1e-3999 \}\Z'
    with pytest.raises(ChanceProbabilityError, match=expected):
        compile_tree(g)
    # long unterminated strings and long runs of escaped quotes stay linear
    with cpu_guard(5), pytest.raises(EfgParseError, match="closing"):
        parse_efg(H2 + '"' + '\\"' * 200000)


# ----------------------------------------------------------------------------------------------
# 5. messages quote the file's bytes safely (issue 19)
# ----------------------------------------------------------------------------------------------

_VALID = (
    b'EFG 2 R "g" { "P1" "P2" }\n""\n'
    b'c "" 1 "deal" { "H" 1/2 "T" 1/2 } 0\n'
    b'p "" 1 1 "I" { "L" "R" } 0\nt "" 1 "w" { 1, -1 }\nt "" 2 "l" { -1, 1 }\n'
    b'p "" 2 1 "J" { "l" "r" } 0\nt "" 1\nt "" 2\n'
)
_MESSAGE_RE = re.compile(
    r"(?P<file>.*?):(?P<line>[0-9]+):(?P<col>[0-9]+): expected (?P<expected>.+), "
    r"found (?P<found>.+)\Z",
    re.S,
)
# bytes that break a terminal line or a decoder: line breaks, NUL, an escape sequence, invalid
# UTF-8 (a stray continuation byte, a cut sequence, an encoded lone surrogate), C1 and Unicode breaks
_NASTY = [
    b"\n",
    b"\r",
    b"\r\n",
    b"\x00",
    b"\x1b[2J",
    b"\x07",
    b"\xff",
    b"\xc3",
    b"\x80",
    b"\xed\xb2\x80",
    b"\xc2\x85",
    "\u2028".encode(),
    "\xe9".encode(),
    b'"',
    b"{",
    b"}",
    b",",
    b" ",
    b"1",
    b"t",
    b"\\",
]


def _one_printable_line(msg: str) -> bool:
    return msg.isprintable()  # False for line breaks, control characters, lone surrogates


def _universal_lines(data: bytes) -> list:
    """The file's lines as the reader should number them, computed apart from it: the text
    (UTF-8 without a byte-order mark, else one character a byte) split at \\r\\n, \\r and \\n,
    as Python's universal newlines split it."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text, raw = data.decode("utf-8"), False
    except UnicodeDecodeError:
        text, raw = data.decode("latin-1"), True
    return re.split(r"\r\n|\r|\n", text), raw


def _check_position(data: bytes, e: EfgParseError) -> None:
    """The message's form, and its LINE:COL against the file: the token it quotes is there."""
    m = _MESSAGE_RE.match(str(e))
    assert m and (int(m["line"]), int(m["col"])) == (e.line, e.column), str(e)
    lines, raw = _universal_lines(data)
    assert 1 <= e.line <= len(lines) and 1 <= e.column <= len(lines[e.line - 1]) + 1, str(e)
    rest = "\n".join([lines[e.line - 1][e.column - 1 :]] + lines[e.line :])
    found = e.found
    if found == "end of file":
        assert rest.strip(" \t\n\r\f\v") == "" or (rest.startswith('"') and "closing" in e.expected), str(e)
    elif found.startswith('string "'):
        assert rest.startswith('"'), str(e)
    elif found.startswith("'") and found.endswith("'"):
        tok = re.match(r'[{},]|[^ \t\n\r\f\v{},"]+', rest).group()
        shown = repr(tok.encode("latin-1"))[2:-1] if raw else repr(tok)[1:-1]
        quoted = found[1:-1]
        assert shown == quoted or (quoted.endswith("...") and shown.startswith(quoted[:-3])), (str(e), tok)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(
    st.integers(0, len(_VALID)),
    st.integers(0, 8),
    st.one_of(
        st.binary(min_size=1, max_size=12), st.lists(st.sampled_from(_NASTY), min_size=1, max_size=6).map(b"".join)
    ),
)
def test_random_bytes_spliced_into_a_file_read_or_fail_in_one_line(at, cut, junk):
    """Any bytes anywhere: either a game or our one-line error, never another exception (no
    UnicodeDecodeError); the message has no control character (NUL, escape sequences and line
    breaks are escaped), keeps the FILE:LINE:COL form, and LINE:COL is where the quoted token is."""
    data = _VALID[:at] + junk + _VALID[at + cut :]
    with cpu_guard(5):
        try:
            game = parse_efg(data, "spliced.efg")
        except EfgParseError as e:
            assert _one_printable_line(str(e)), repr(str(e))
            _check_position(data, e)
            return
        try:
            compile_tree(game)
        except SeqformError as e:
            assert _one_printable_line(str(e)), repr(str(e))


@pytest.mark.parametrize(
    "bad,shown",
    [
        (b"\x1b[31m\x00", r"'\x1b[31m\x00'"),  # an escape sequence and NUL in a UTF-8 file
        (b"\xff\xfeoops", r"'\xff\xfeoops'"),  # invalid UTF-8: the bytes, as repr shows bytes
        (b"\xed\xb2\x80x", r"'\xed\xb2\x80x'"),  # a lone surrogate encoded in UTF-8: invalid too
        (b"a\xc2\x85b", r"'a\x85b'"),  # a C1 control (NEL, a line break to some terminals)
        (b"a\xe2\x80\xa8b", r"'a\u2028b'"),  # U+2028, a line separator
        (b'"x\ny\r\x00"', r'string "x\ny\r\x00"'),  # a string with line breaks where a number belongs
    ],
)
def test_bad_tokens_are_quoted_escaped(bad, shown):
    data = (
        b'EFG 2 R "x" { "a" "b" }\n""\np "" 1 1 "" { "L" "R" } 0\nt "" 1 "" { 1 -1 }\nt "" 2 "" { -1 ' + bad + b" }\n"
    )
    with pytest.raises(EfgParseError) as ei:
        parse_efg(data, "bad.efg")
    msg = str(ei.value)
    assert msg.endswith("found " + shown) and _one_printable_line(msg)
    assert msg.startswith("bad.efg:5:16: ")  # the column still counts from the line's start
    _check_position(data, ei.value)


def test_text_with_lone_surrogates_and_odd_file_names():
    # a str (not bytes) holding lone surrogates, as surrogateescape decoding leaves them; a file
    # name with a line break: both escaped
    with pytest.raises(EfgParseError) as ei:
        parse_efg(H2 + 't "" 1 "" { 1 \udcff }\n', "a\nb.efg")
    assert str(ei.value) == (
        r"a\nb.efg:2:15: expected payoff 2 of 2 (a number such as 3, -1/2, 1.5 or "
        r"2.5e-1), found '\udcff'"
    )


def test_line_breaks_counted_as_universal_newlines():
    """\\n, \\r\\n and a lone \\r end a line, so a position is the same whichever the file uses and
    however it was opened (a text-mode file object turns them all into \\n)."""
    lines = [
        'EFG 2 R "t" { "A" "B" }',
        '""',
        'p "" 1 1 "multi',
        'line" { "x" "y" } 0',
        't "" 1 "o" { 1, -1 }',
        't "" 2 "q" { 2, x }',
    ]
    seen = set()
    for sep in ("\n", "\r\n", "\r"):
        data = sep.join(lines).encode()
        for source in (io.BytesIO(data), io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")):
            with pytest.raises(EfgParseError) as ei:
                read_efg(source)
            seen.add((ei.value.line, ei.value.column, ei.value.found))
            _check_position(data, ei.value)
        ok = parse_efg(sep.join(lines[:-1] + ['t "" 2 "q" { 2, 3 }']))
        assert [ok.line(h) for h in range(ok.num_nodes)] == [3, 5, 6]
    assert seen == {(6, 17, "'x'")}


def test_byte_order_mark_before_a_file_that_is_not_utf8():
    data = b"\xef\xbb\xbf" + H2.replace('"A"', '"\xe9"').encode("latin-1") + b't "" 0\n'
    assert parse_efg(data).player_names == ("\xe9", "B")
    with pytest.raises(EfgParseError) as ei:
        parse_efg(data + b"\xff", "bom.efg")
    assert (
        str(ei.value) == r"bom.efg:3:1: expected the end of the file (the tree is complete after the node at "
        r"line 2), found '\xff'"
    )


def test_text_file_object_that_cannot_decode():
    source = io.TextIOWrapper(io.BytesIO(H2.encode() + b't "" 1 "\xff" { 1 -1 }\n'), encoding="utf-8")
    with pytest.raises(GameError) as ei:
        read_efg(source)
    assert str(ei.value) == (
        "<file>: cannot read the file as utf-8 text (invalid start byte: b'\\xff'); open it "
        "in binary mode ('rb') or pass its path, and the reader takes any bytes"
    )


def test_messages_after_reading_stay_one_line():
    """Chance-probability and imperfect-recall messages quote labels, names and the file name:
    escaped too."""
    text = (
        H2 + 'p "" 1 1 "I" { "L\n1" "R\x00" } 0\n'
        'c "" 1 "" { "h\r" 1/2 "t" 1/3 } 0\nt "" 0\nt "" 0\n'
        'p "" 1 2 "" { "l" "r" } 0\nt "" 0\nt "" 0\n'
    )
    g = parse_efg(text, "dir\n/g.efg")
    with pytest.raises(ChanceProbabilityError) as ei:
        g.chance(1)
    assert str(ei.value) == (
        r"chance node at dir\n/g.efg:4 (path L\n1, chance information set 1, defined at "
        r"dir\n/g.efg:4) of 't' has probabilities that sum to 5/6, not exactly 1: "
        r'{ "h\r" 1/2, "t" 1/3 }'
    )
    recall = (
        H2 + 'p "" 1 1 "I" { "L\n1" "R\x00" } 0\n'
        'p "" 1 2 "S\x1b" { "l" "r" } 0\nt "" 0\nt "" 0\n'
        'p "" 1 2 "S\x1b" { "l" "r" } 0\nt "" 0\nt "" 0\n'
    )
    with pytest.raises(ImperfectRecallError) as ei:
        compile_tree(parse_efg(recall, "dir\n/g.efg"))
    assert str(ei.value) == (
        'imperfect recall in \'t\': player 0 information set 2 "S\\x1b" (player 1 "A" in the '
        r"file, defined at dir\n/g.efg:4) is reached after different own histories, at L\n1 "
        r"and at R\x00"
    )
    latin = parse_efg(H2.encode() + b'c "" 1 "" { "\xe9\x85" 1/2 "b" 1/3 } 0\nt "" 0\nt "" 0\n', "l.efg")
    with pytest.raises(ChanceProbabilityError, match=r'\{ "\\xe9\\x85" 1/2, "b" 1/3 \}\Z'):
        latin.chance(0)


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "seqform", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
    )


@pytest.mark.parametrize(
    "data",
    [
        b'EFG 2 R "x" { "a" "b" }\n""\np "" 1 1 "" { "L" "R" } 0\nt "" 1 "" { 1 -1 }\nt "" 2 "" { 1\x1b[2J\x00 1 }\n',
        b'EFG 2 R "\xff" { "a" "b" }\n""\np "" 1 1 "" { "L" "R" } 0\nt "" 1 "" { 1 -1 }\nt "" 2 "" { 1\xff\x85 -1 }\n',
        b'EFG 2 R "x" { "a" "b" }\n""\nc "" 1 "" { "h" 1/2 "t" 1/2 } 0\np "" 1 1 "" { "L\nR" "S" } 0\n'
        b't "" 1 "" { 1 -1 }\nt "" 2 "" { -1 1 }\np "" 1 1 "" { "L\nR" "T\x1b" } 0\nt "" 0\nt "" 0\n',
    ],
    ids=["control bytes", "not utf-8", "labels with line breaks"],
)
def test_cli_prints_one_line_for_a_file_with_control_characters(tmp_path, data):
    path = tmp_path / "ctl.efg"
    path.write_bytes(data)
    with pytest.raises(EfgParseError) as ei:
        read_efg(path)
    r = _cli("info", str(path))
    assert r.returncode == 2 and r.stdout == ""
    # exactly one line, the library's own message (already one printable line), nothing else
    assert r.stderr == f"seqform: error: {ei.value}\n" and _one_printable_line(str(ei.value))


# ----------------------------------------------------------------------------------------------
# 6. files other tools write (issue 19): OpenSpiel's, and the departures from Gambit's rules
# ----------------------------------------------------------------------------------------------


def _openspiel_efg_files() -> dict:
    """OpenSpiel's own .efg files, by name: those an installed open_spiel package ships (its
    games/efg_game/games directory, or the older games/efg), and those in the directory that
    SEQFORM_OPENSPIEL_EFG_DIR names (e.g. a checkout's open_spiel/games/efg_game/games)."""
    import importlib.util

    dirs = []
    if os.environ.get("SEQFORM_OPENSPIEL_EFG_DIR"):
        dirs.append(os.environ["SEQFORM_OPENSPIEL_EFG_DIR"])
    spec = importlib.util.find_spec("open_spiel")
    for root in (spec.submodule_search_locations or []) if spec else []:
        dirs += [os.path.join(root, "games", "efg_game", "games"), os.path.join(root, "games", "efg")]
    found: dict = {}
    for d in dirs:
        for p in sorted(glob.glob(os.path.join(d, "*.efg"))):
            found.setdefault(os.path.basename(p), p)
    return found


_NO_OPENSPIEL_FILES = (
    "the installed open_spiel package ships no .efg files (its wheel carries efg_game.cc, "
    "not the games/ directory); set SEQFORM_OPENSPIEL_EFG_DIR to a checkout's "
    "open_spiel/games/efg_game/games to run this"
)


def _assert_same_as_openspiel(ours: EfgGame, theirs) -> dict:
    """Walk our reading of a file and OpenSpiel's (``pyspiel.load_efg_game``) together, children
    matched by action label (OpenSpiel orders actions by its own ids): the same players, action
    labels, chance probabilities and leaf payoffs (ours exact, OpenSpiel's the doubles it parsed:
    equal after rounding ours), and the same partition into information sets (a bijection between
    our keys and OpenSpiel's information-state strings). Returns what the walk counted."""
    fwd: dict = {}
    back: dict = {}
    count = {"nodes": 0, "terminals": 0, "chance_nodes": 0}
    stack = [(ours.root(), theirs.new_initial_state())]
    while stack:
        h, st = stack.pop()
        count["nodes"] += 1
        pl = ours.player(h)
        if pl == TERMINAL:
            assert st.is_terminal()
            count["terminals"] += 1
            assert [float(x) for x in ours.utility(h)] == st.returns()
            continue
        labels = ours.raw_actions(h)
        if pl == CHANCE:
            assert st.is_chance_node()
            count["chance_nodes"] += 1
            outs = {st.action_to_string(a): (a, p) for a, p in st.chance_outcomes()}
            assert sorted(outs) == sorted(labels)
            for i, (lab, q) in enumerate(zip(labels, ours.chance(h))):
                assert float(q) == outs[lab][1]
                stack.append((ours.next(h, i), st.child(outs[lab][0])))
            continue
        assert st.current_player() == pl
        outs = {st.action_to_string(pl, a): a for a in st.legal_actions()}
        assert sorted(outs) == sorted(labels)
        key, info = ours.infoset(h), st.information_state_string(pl)
        assert fwd.setdefault(key, info) == info and back.setdefault(info, key) == key
        stack.extend((ours.next(h, i), st.child(outs[lab])) for i, lab in enumerate(labels))
    count["infosets"] = [sum(1 for k in fwd if k[0] == p) for p in range(ours.num_players)]
    return count


def _with_names(text: str) -> str:
    """The same file with a name before every information set's and outcome's '{' (each named
    by its numbers, so that repeated definitions still agree)."""
    text = re.sub(
        r'^(\s*[cp] "[^"]*"((?: -?[0-9]+)+)) \{', lambda m: f'{m[1]} "set{m[2].replace(" ", "_")}" {{', text, flags=re.M
    )
    return re.sub(r'^(\s*t "[^"]*" ([0-9]+)) \{', r'\1 "outcome \2" {', text, flags=re.M)


def _check_against_openspiel(text: str, filename: str, path: str | None = None) -> Fraction | None:
    """Read ``text`` with names left out and with names added (the same game), and compare with
    OpenSpiel's own reading; the value of a two-player zero-sum game against OpenSpiel's LP."""
    game = parse_efg(text, filename)
    tree = compile_tree(game)
    assert _tree_facts(compile_tree(parse_efg(_with_names(text), "named.efg"))) == _tree_facts(tree)
    value = seqform.solve(tree).value if tree.num_players == 2 and tree.constant_sum == 0 else None
    pyspiel = pytest.importorskip("pyspiel")
    theirs = pyspiel.load_game(f"efg_game(filename={path})") if path else pyspiel.load_efg_game(text)
    count = _assert_same_as_openspiel(game, theirs)
    sizes = game.sizes()
    assert count == {k: sizes[k] for k in ("nodes", "terminals", "chance_nodes", "infosets")}
    if value is not None and tree.num_nodes <= 500:
        from tests.oracle.peers import openspiel_lp_value

        scale = max(1, max(abs(x) for p in tree.payoff_exact for x in p))
        assert abs(openspiel_lp_value(theirs) - float(value)) <= 1e-6 * scale
    return value


# A game in the style of OpenSpiel's guess_the_ace.efg, written for this test: no information set
# has a name (chance's neither), outcomes are defined in full at every leaf, some without a name,
# payoffs as integers, decimals, an exponent, separated by commas.
_OPENSPIEL_STYLE = """EFG 2 R "Peek (hand-written in OpenSpiel's style)" { "Player 1" "Player 2" }
""
c "Deal" 1 { "high" 2/5 "low" 3/5 } 0
  p "P1_high" 1 1 { "bet" "check" } 0
    p "P2" 2 1 { "call" "fold" } 0
      t "" 1 { 2.0, -2.0 }
      t "" 2 "Fold" { 1, -1 }
    t "" 3 { 0.5, -0.5 }
  p "P1_low" 1 2 { "bet" "check" } 0
    p "P2" 2 1 { "call" "fold" } 0
      t "" 4 { -2, 2 }
      t "" 2 "Fold" { 1, -1 }
    t "" 5 { -5e-1, 5E-1 }
"""


def test_openspiel_style_file_without_names():
    assert 'p "" 1 1 "' not in _OPENSPIEL_STYLE and '"set' in _with_names(_OPENSPIEL_STYLE)
    game = parse_efg(_OPENSPIEL_STYLE, "peek.efg")
    assert game.infoset(1) == (0, 1) and game.infoset(1).label == "" and str(game.infoset(1)) == "infoset 1"
    assert game.outcomes[1] == ("", (2, -2)) and game.outcomes[2] == ("Fold", (1, -1))
    value = _check_against_openspiel(_OPENSPIEL_STYLE, "peek.efg")
    # pygambit refuses the names left out: it reads the named copy, and its exact LP agrees
    gbt = pytest.importorskip("pygambit")
    with pytest.raises(ValueError):
        gbt.read_efg(io.StringIO(_OPENSPIEL_STYLE))
    # (pygambit also refuses two nodes with the same non-empty name, as "P2" here: they go)
    g = gbt.read_efg(io.StringIO(re.sub(r'^(\s*[cpt]) "[^"]*"', r'\1 ""', _with_names(_OPENSPIEL_STYLE), flags=re.M)))
    assert Fraction(str(gbt.nash.lp_solve(g, rational=True).equilibria[0].payoff(list(g.players)[0]))) == value


def test_openspiel_guess_the_ace_own_copy():
    """OpenSpiel's own guess_the_ace.efg (its information sets have no names)."""
    files = _openspiel_efg_files()
    if "guess_the_ace.efg" not in files:
        pytest.skip(_NO_OPENSPIEL_FILES)
    path = files["guess_the_ace.efg"]
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    game = read_efg(path)
    tree = compile_tree(game)
    assert tree.num_players == 2 and tree.constant_sum == 0
    _check_against_openspiel(text, path, path)


def test_openspiel_own_files():
    """Every .efg file OpenSpiel ships (where it can be found) reads as OpenSpiel reads it."""
    files = _openspiel_efg_files()
    if not files:
        pytest.skip(_NO_OPENSPIEL_FILES)
    for _name, path in files.items():
        with open(path, "rb") as f:
            _check_against_openspiel(f.read().decode("utf-8"), path, path)


@pytest.mark.parametrize("getter", ["get_kuhn_poker_efg_data", "get_sample_efg_data"])
def test_openspiel_embedded_files(getter):
    """The .efg texts compiled into the installed pyspiel (OpenSpiel's kuhn_poker.efg and sample.efg)."""
    pyspiel = pytest.importorskip("pyspiel")
    value = _check_against_openspiel(getattr(pyspiel, getter)(), getter)
    if getter == "get_kuhn_poker_efg_data":
        assert value == Fraction(-1, 18)  # Kuhn (1950): the first player's value is -1/18


# What other writers put in a file that Gambit's own rules do not show, and how we read it.
H2E = H2 + '""\n'
ACCEPTED = [  # (case, text, the leaves' payoffs, information sets per player)
    (
        "information set without a name",
        H2E + 'p "" 1 1 { "a" "b" } 0\nt "" 1 "x" { 1 -1 }\nt "" 2 "y" { 2 -2 }\n',
        [(1, -1), (2, -2)],
        [1, 0],
    ),
    (
        "chance set without a name",
        H2E + 'c "" 1 { "a" 1/4 "b" 3/4 } 0\nt "" 1 "x" { 1 -1 }\nt "" 0\n',
        [(1, -1), (0, 0)],
        [0, 0],
    ),
    (
        "outcome without a name, reused",
        H2E + 'p "" 1 1 "" { "a" "b" } 0\nt "" 1 { 1, -1 }\nt "" 1\n',
        [(1, -1), (1, -1)],
        [1, 0],
    ),
    (
        "empty names everywhere, as OpenSpiel's EFGWriter writes",
        H2E + 'c "" 1 "" { "0" 0.5 "1" 0.5 } 0\nt "" 1 "" { 1 -1 }\nt "" 2 "" { -1 1 }\n',
        [(1, -1), (-1, 1)],
        [0, 0],
    ),
    (
        "names repeated: nodes, and two sets of a player",
        H2E + 'c "n" 1 "" { "h" 1/2 "t" 1/2 } 0\n'
        'p "n" 1 1 "I" { "a" "b" } 0\nt "n" 1 "" { 1 -1 }\nt "n" 2 "" { 2 -2 }\n'
        'p "n" 1 2 "I" { "a" "b" } 0\nt "n" 3 "" { 3 -3 }\nt "n" 4 "" { 4 -4 }\n',
        [(1, -1), (2, -2), (3, -3), (4, -4)],
        [2, 0],
    ),
    (
        "payoffs as C++ streams print them",
        H2E + 'p "" 1 1 "" { "a" "b" "c" } 0\nt "" 1 "" { 1e+06 -1e+06 }\n'
        't "" 2 "" { -0 0 }\nt "" 3 "" { 0.333333 -0.333333 }\n',
        [(10**6, -(10**6)), (0, 0), (Fraction(333333, 10**6), Fraction(-333333, 10**6))],
        [1, 0],
    ),
    (
        "fractions and decimals mixed, trailing comma",
        H2E + 't "" 1 "" { 1/3, -.5e1, }\n',
        [(Fraction(1, 3), -5)],
        [0, 0],
    ),
    (
        "rounded probabilities that happen to sum to 1",
        H2E + 'c "" 1 "" { "a" 0.3333333333 "b" 0.3333333333 "c" 0.3333333334 } 0\nt "" 0\nt "" 0\nt "" 0\n',
        [(0, 0)] * 3,
        [0, 0],
    ),
    (
        "information-set numbers shared across players",
        H2E + 'p "" 1 1 "" { "a" "b" } 0\np "" 2 2 "" { "c" "d" } 0\nt "" 1 "" { 1 -1 }\nt "" 2 "" { 2 -2 }\n'
        'p "" 2 2 "" { "c" "d" } 0\nt "" 3 "" { 3 -3 }\nt "" 4 "" { 4 -4 }\n',
        [(1, -1), (2, -2), (3, -3), (4, -4)],
        [1, 1],
    ),
]


@pytest.mark.parametrize("case,text,payoffs,infosets", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_departures_accepted(case, text, payoffs, infosets):
    tree = compile_tree(parse_efg(text, "ok.efg"))
    assert tree.payoff_exact == payoffs and tree.sizes()["infosets"] == infosets


REFUSED = [
    (
        "outcome 0 with payoffs",
        H2E + 'p "" 1 1 "" { "a" "b" } 0\nt "" 0 { 1 -1 }\nt "" 0\n',
        "x.efg:4:8: expected no outcome definition after outcome number 0 (which means no outcome), found '{'",
    ),
    (
        "outcome reused with other payoffs",
        H2E + 'p "" 1 1 "" { "a" "b" } 0\nt "" 1 { 1 -1 }\nt "" 1 { 2 -2 }\n',
        "x.efg:5:8: expected the payoffs { 1 -1 } of outcome 1 as defined at line 4, found { 2 -2 }",
    ),
    (
        "payoff inf",
        H2E + 't "" 1 "" { inf 0 }\n',
        "x.efg:3:13: expected payoff 1 of 2 (a number such as 3, -1/2, 1.5 or 2.5e-1), found 'inf'",
    ),
    (
        "payoff nan",
        H2E + 't "" 1 "" { 0 nan }\n',
        "x.efg:3:15: expected payoff 2 of 2 (a number such as 3, -1/2, 1.5 or 2.5e-1), found 'nan'",
    ),
    (
        "leading plus",
        H2E + 't "" 1 "" { +1 -1 }\n',
        "x.efg:3:13: expected payoff 1 of 2 (a number such as 3, -1/2, 1.5 or 2.5e-1), found '+1'",
    ),
    (
        "negative denominator",
        H2E + 't "" 1 "" { 1/-2 1/2 }\n',
        "x.efg:3:13: expected payoff 1 of 2 (a number such as 3, -1/2, 1.5 or 2.5e-1), found '1/-2'",
    ),
    (
        "hexadecimal",
        H2E + 't "" 1 "" { 0x10 0 }\n',
        "x.efg:3:13: expected payoff 1 of 2 (a number such as 3, -1/2, 1.5 or 2.5e-1), found '0x10'",
    ),
    ("node without its name", H2E + 't 1 "" { 1 -1 }\n', "x.efg:3:3: expected the node's name (a string), found '1'"),
    (
        "no actions at a set's first node",
        H2E + 'p "" 1 1 "" 0\nt "" 0\n',
        "x.efg:3:13: expected '{' opening the list of actions, found '0'",
    ),
]


@pytest.mark.parametrize("case,text,message", REFUSED, ids=[r[0] for r in REFUSED])
def test_departures_refused(case, text, message):
    with pytest.raises(EfgParseError) as ei:
        parse_efg(text, "x.efg")
    assert str(ei.value) == message


def test_rounded_chance_probabilities_refused_with_a_hint():
    # OpenSpiel's EFGWriter prints 10 significant digits: 1/3 becomes 0.3333333333, and the three
    # sum to 0.9999999999, which OpenSpiel's reader accepts (within 1e-6) and an exact reader cannot
    text = H2E + 'c "" 1 "" { "a" 0.3333333333 "b" 0.3333333333 "c" 0.3333333333 } 0\nt "" 0\nt "" 0\nt "" 0\n'
    with pytest.raises(ChanceProbabilityError) as ei:
        compile_tree(parse_efg(text, "r.efg"))
    assert str(ei.value) == (
        "chance node at r.efg:3 (path (root), chance information set 1, defined at r.efg:3) of 't' has "
        "probabilities that sum to 9999999999/10000000000, not exactly 1 (rounded decimals? write exact "
        'values, such as 1/3 for 0.3333333333): { "a" 3333333333/10000000000, "b" 3333333333/10000000000, '
        '"c" 3333333333/10000000000 }'
    )
    far = text.replace("0.3333333333 }", "0.3 }")
    with pytest.raises(ChanceProbabilityError) as ei:
        compile_tree(parse_efg(far, "r.efg"))
    assert "rounded" not in str(ei.value)


def test_pygambit_catalog_files_read():
    """Every .efg file pygambit ships in its catalog (written by Gambit) reads and compiles."""
    import pathlib

    gbt = pytest.importorskip("pygambit")
    files = sorted(pathlib.Path(gbt.__file__).parent.glob("catalog_data/**/*.efg"))
    if not files:
        pytest.skip("this pygambit ships no catalog")
    for f in files:
        try:
            compile_tree(read_efg(f))
        except ImperfectRecallError:
            pass  # some textbook games forget on purpose: a clear refusal, as documented

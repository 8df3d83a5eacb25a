"""The Gambit .efg writer (``seqform.io.efgwrite``): format, exact numbers, labels, and read-back by
pygambit (counts, and for small games the equilibrium value of ``pygambit.nash.lp_solve`` in
rational arithmetic equal to seqform's certified value) and by OpenSpiel's EFG reader."""

from __future__ import annotations

import io
import re
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

import seqform
from seqform.games import load
from seqform.io.efgwrite import chance_probabilities, efg_label, efg_string, write_efg
from seqform.model.game import CHANCE
from seqform.model.tree import compile_tree
from tests.oracle.peers import openspiel_sizes
from tests.strategies import TreeGame, random_games

# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------

NUMBER = r"-?\d+(?:/\d+)?"


def _our_counts(tree) -> dict:
    return {
        "nodes": tree.num_nodes,
        "terminals": tree.num_terminals,
        "infosets": list(tree.num_infosets),
        "chance_nodes": int((tree.player == CHANCE).sum()),
    }


def _gambit_counts(g) -> dict:
    nodes = list(g.nodes)
    return {
        "nodes": len(nodes),
        "terminals": sum(1 for n in nodes if n.is_terminal),
        "infosets": [len(p.infosets) for p in g.players],
        "chance_nodes": len(g.players.chance.infosets),
    }


def _gambit_read(text: str):
    gbt = pytest.importorskip("pygambit")
    return gbt.read_efg(io.StringIO(text))


def _gambit_value(g, rational: bool = True) -> Fraction:
    gbt = pytest.importorskip("pygambit")
    res = gbt.nash.lp_solve(g, rational=rational)
    assert res.equilibria, "pygambit found no equilibrium"
    v = res.equilibria[0].payoff("Player 1")
    return Fraction(str(v)) if rational else float(v)


# a hand-made game: nested chance with a probability-0 outcome above another chance node,
# rational payoffs, labels that need sanitising, an information set spanning chance branches
ODD = TreeGame(
    (
        "chance",
        ('"a"', "b\\c"),
        (Fraction(2, 3), Fraction(1, 3)),
        (
            (
                "decision",
                0,
                'K"1',
                ("x", "x"),
                (
                    (
                        "chance",
                        ("h", "t"),
                        (Fraction(1, 7), Fraction(6, 7)),
                        (
                            ("leaf", (Fraction(1, 2), Fraction(-1, 2))),
                            (
                                "chance",
                                ("z0", "z1"),
                                (Fraction(0), Fraction(1)),
                                (
                                    (
                                        "chance",
                                        ("u", "v", "w"),
                                        (Fraction(1, 5), Fraction(3, 5), Fraction(1, 5)),
                                        (("leaf", (7, -7)), ("leaf", (8, -8)), ("leaf", (9, -9))),
                                    ),
                                    ("leaf", (-3, 3)),
                                ),
                            ),
                        ),
                    ),
                    ("decision", 1, "é", ("l", "r"), (("leaf", (2, -2)), ("leaf", (Fraction(-5, 3), Fraction(5, 3))))),
                ),
            ),
            (
                "decision",
                0,
                'K"1',
                ("x", "x"),
                (("leaf", (1, -1)), ("decision", 1, "", ("l", "r"), (("leaf", (0, 0)), ("leaf", (4, -4))))),
            ),
        ),
    ),
    name='odd "game"',
)


# ----------------------------------------------------------------------------------------------
# the text itself (no pygambit needed)
# ----------------------------------------------------------------------------------------------


def test_kuhn_text_format():
    text = efg_string(load("kuhn"))
    lines = text.splitlines()
    assert lines[0] == 'EFG 2 R "kuhn" { "Player 1" "Player 2" }'
    assert lines[1].startswith('"') and lines[1].endswith('"')
    assert lines[2] == ""
    body = lines[3:]
    tree = compile_tree(load("kuhn"))
    assert len(body) == tree.num_nodes
    assert body[0] == 'c "" 1 "chance 1" { "deal J" 1/3 "deal Q" 1/3 "deal K" 1/3 } 0'
    assert body[1] == 'c "" 2 "chance 2" { "deal Q" 1/2 "deal K" 1/2 } 0'
    assert body[2] == 'p "" 1 1 "(0, \'\')" { "Pass" "Bet" } 0'
    kinds = [ln[0] for ln in body]
    assert kinds.count("t") == tree.num_terminals == 30
    assert kinds.count("c") == 4
    # every terminal has its own outcome, numbered in preorder, exact payoffs
    outs = [re.fullmatch(rf't "" (\d+) "z\1" {{ ({NUMBER}), ({NUMBER}) }}', ln) for ln in body if ln[0] == "t"]
    assert all(outs)
    assert [int(m.group(1)) for m in outs] == list(range(1, 31))
    for m, u in zip(outs, tree.payoff_exact):
        assert (Fraction(m.group(2)), Fraction(m.group(3))) == u
    assert text.isascii() and text.endswith("\n")


def test_no_decimals_and_exact_chance():
    tree = compile_tree(ODD)
    text = efg_string(tree)
    for ln in text.splitlines()[3:]:
        for num in re.findall(r'"\s+([^"\s{}]+)', ln):
            assert re.fullmatch(NUMBER, num), ln
    probs = chance_probabilities(tree)
    chance = [int(c) for c in (tree.player == CHANCE).nonzero()[0]]
    assert [probs[c] for c in chance] == [
        [Fraction(2, 3), Fraction(1, 3)],
        [Fraction(1, 7), Fraction(6, 7)],
        [0, 1],
        # below a probability-0 outcome: still the game's own probabilities
        [Fraction(1, 5), Fraction(3, 5), Fraction(1, 5)],
    ]
    assert '{ "h" 1/7 "t" 6/7 }' in text
    assert '{ "u" 1/5 "v" 3/5 "w" 1/5 }' in text
    assert "{ 1/2, -1/2 }" in text and "{ -5/3, 5/3 }" in text


def test_reach_zero_chance_written_exactly_without_the_game():
    tree = compile_tree(ODD)
    tree.game = None  # the tree alone carries every chance node's probabilities and labels
    probs = chance_probabilities(tree)
    assert list(probs.values())[-1] == [Fraction(1, 5), Fraction(3, 5), Fraction(1, 5)]
    assert '{ "u" 1/5 "v" 3/5 "w" 1/5 }' in efg_string(tree)


def test_numbers_beyond_cpythons_digit_limit():
    big = Fraction(1, 10**5000)
    tree = ("decision", 0, "I", ("x", "y"), (("leaf", (big, -big)), ("leaf", (0, 0))))
    from tests.strategies import TreeGame

    text = efg_string(TreeGame(tree, "big"))
    assert "1/1" + "0" * 5000 in text


def test_labels_sanitised_and_unique():
    assert efg_label('a "b" \\ c') == "a 'b' / c"
    assert efg_label("é\n") == "<U+00E9><U+000A>"
    assert efg_label(("x", 1)) == "('x', 1)"
    text = efg_string(ODD)
    assert text.startswith("EFG 2 R \"odd 'game'\"")
    body = text.splitlines()[3:]
    # quotes/backslashes/non-ASCII replaced; duplicate action labels made unique
    assert body[0] == 'c "" 1 "chance 1" { "\'a\'" 2/3 "b/c" 1/3 } 0'
    assert body[1] == 'p "" 1 1 "K\'1" { "x" "x #2" } 0'
    assert 'p "" 2 1 "<U+00E9>" { "l" "r" } 0' in body
    assert 'p "" 2 2 "I2" { "l" "r" } 0' in body  # empty key -> I<number>
    for ln in text.splitlines():
        assert all(0x20 <= ord(ch) <= 0x7E for ch in ln)
        assert "\\" not in ln
        assert ln.count('"') % 2 == 0


def test_infoset_labels_unique_per_player():
    # two different keys with the same str() for player 0
    g = TreeGame(
        (
            "decision",
            0,
            1,
            ("a", "b"),
            (("decision", 0, "1", ("c", "d"), (("leaf", (1, -1)), ("leaf", (2, -2)))), ("leaf", (0, 0))),
        )
    )
    body = efg_string(g).splitlines()[3:]
    assert body[0] == 'p "" 1 1 "1" { "a" "b" } 0'
    assert body[1] == 'p "" 1 2 "1 #2" { "c" "d" } 0'


def test_write_to_path_and_file(tmp_path):
    game = load("kuhn")
    tree = compile_tree(game)
    p = tmp_path / "kuhn.efg"
    write_efg(tree, p)
    buf = io.StringIO()
    write_efg(game, buf)
    write_efg(tree, str(tmp_path / "k2.efg"), title="K", comment="c")
    assert p.read_text() == buf.getvalue() == efg_string(tree) == efg_string(game)
    assert (tmp_path / "k2.efg").read_text().startswith('EFG 2 R "K" { "Player 1" "Player 2" }\n"c"\n')
    with pytest.raises(TypeError):
        efg_string(object())
    with pytest.raises(TypeError):
        write_efg(tree, 42)


# ----------------------------------------------------------------------------------------------
# read back by pygambit
# ----------------------------------------------------------------------------------------------


def test_pygambit_reads_kuhn_and_solves_it(tmp_path):
    gbt = pytest.importorskip("pygambit")
    tree = compile_tree(load("kuhn"))
    path = tmp_path / "kuhn.efg"
    write_efg(tree, path)
    g = gbt.read_efg(str(path))
    assert _gambit_counts(g) == _our_counts(tree)
    assert g.is_perfect_recall and g.is_const_sum
    assert g.title == "kuhn"
    value = seqform.solve(tree, certify_exact=True).value
    assert value == Fraction(-1, 18)
    assert _gambit_value(g, rational=True) == value
    assert abs(_gambit_value(g, rational=False) - float(value)) < 1e-9


def test_pygambit_round_trip_odd_game():
    tree = compile_tree(ODD)
    g = _gambit_read(efg_string(tree))
    assert _gambit_counts(g) == _our_counts(tree)
    # labels and exact numbers as written
    root = g.root
    assert [a.label for a in root.infoset.actions] == ["'a'", "b/c"]
    assert [Fraction(str(p)) for p in (a.prob for a in root.infoset.actions)] == [Fraction(2, 3), Fraction(1, 3)]
    leaves = [n for n in g.nodes if n.is_terminal]
    for n, u in zip(leaves, tree.payoff_exact):
        assert tuple(Fraction(str(n.outcome[p])) for p in g.players) == u
    assert _gambit_value(g) == seqform.solve(tree).value


@pytest.mark.parametrize("name", ["liars_dice(1,2)", "goofspiel(3)", "liars_dice(1,3)"])
def test_pygambit_small_builtins(name):
    tree = compile_tree(load(name))
    g = _gambit_read(efg_string(tree))
    assert _gambit_counts(g) == _our_counts(tree)
    value = seqform.solve(tree).value
    if tree.num_nodes < 500:  # pygambit's rational LP takes minutes on liars_dice(1,3)
        assert _gambit_value(g, rational=True) == value
    else:
        assert abs(_gambit_value(g, rational=False) - float(value)) < 1e-7


def test_pygambit_reads_leduc_sizes():
    # too large for pygambit's rational LP in a unit test: load and count only
    tree = compile_tree(load("leduc"))
    g = _gambit_read(efg_string(tree))
    assert (
        _gambit_counts(g)
        == _our_counts(tree)
        == {"nodes": 9457, "terminals": 5520, "infosets": [468, 468], "chance_nodes": 157}
    )
    assert g.is_perfect_recall


# slow tier (a minute): the default tier's test_pygambit_random_games meets the same pygambit
# defect on small random games
@pytest.mark.slow
def test_pygambit_lp_on_goofspiel4_is_wrong_and_ours_is_right():
    """pygambit 16.7's lp_solve reports 1/42 on goofspiel(4) (true value 0, also OpenSpiel's on the
    same file): its profile is not a distribution at an information set it reaches. Completed there,
    the profile is an exact equilibrium of value 0 by our exact evaluation. If pygambit is fixed,
    the first assertion fails and this test should become a plain value check."""
    gbt = pytest.importorskip("pygambit")
    from seqform.io.strategyjson import from_pygambit_behavior
    from seqform.verify.evaluate import evaluate

    tree = compile_tree(load("goofspiel(4)"))
    g = _gambit_read(efg_string(tree))
    assert _gambit_counts(g) == _our_counts(tree)
    prof = gbt.nash.lp_solve(g, rational=True).equilibria[0]
    assert prof.payoff("Player 1") != 0  # pygambit's wrong value
    with pytest.raises(seqform.StrategyError, match="not a distribution|sum"):
        from_pygambit_behavior(tree, prof)  # its profile is invalid as given
    ev = evaluate(tree, from_pygambit_behavior(tree, prof, undefined="normalize"), exact=True)
    assert ev.nash_conv == 0 and ev.values[0] == 0 == seqform.solve(tree).value


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(random_games())
def test_pygambit_random_games(game):
    """pygambit reads our file with the same counts, and its LP value is ours, except where its
    lp_solve hits the bug of the goofspiel(4) test below: then its own profile must fail exact
    verification (invalid as given, or not an equilibrium of the value it reports)."""
    gbt = pytest.importorskip("pygambit")
    from seqform.io.strategyjson import from_pygambit_behavior
    from seqform.verify.evaluate import evaluate

    tree = compile_tree(game)
    g = _gambit_read(efg_string(tree))
    assert _gambit_counts(g) == _our_counts(tree)
    assert g.is_perfect_recall
    ours = seqform.solve(tree).value
    prof = gbt.nash.lp_solve(g, rational=True).equilibria[0]
    theirs = Fraction(str(prof.payoff("Player 1")))
    if theirs == ours:
        return
    try:
        b = from_pygambit_behavior(tree, prof)
    except seqform.StrategyError:
        return  # not a distribution where it reaches: the known bug
    ev = evaluate(tree, b, exact=True)
    assert ev.nash_conv > 0 or ev.values[0] != theirs


# ----------------------------------------------------------------------------------------------
# read back by OpenSpiel's EFG reader (an independent second reader)
# ----------------------------------------------------------------------------------------------


def _uniform_value(tree) -> float:
    """Player 0's expected payoff when everyone plays uniformly, from the tree."""
    w = [1.0] * tree.num_nodes
    for v in range(1, tree.num_nodes):
        p = int(tree.parent[v])
        pl = int(tree.player[p])
        w[v] = w[p] / (int(tree.infoset_num_actions[tree.infoset[p]]) if pl >= 0 else 1)
    return sum(
        w[int(t)] * float(tree.terminal_chance[k]) * float(tree.payoff[k, 0]) for k, t in enumerate(tree.terminals)
    )


@pytest.mark.parametrize("name", ["kuhn", "goofspiel(3)", "liars_dice(1,2)"])
def test_openspiel_reads_our_file(name):
    pyspiel = pytest.importorskip("pyspiel")
    tree = compile_tree(load(name))
    game = pyspiel.load_efg_game(efg_string(tree))
    counts = openspiel_sizes(game, chance_nodes=True)
    ours = _our_counts(tree)
    assert (counts["histories"], counts["terminals"], counts["infosets"], counts["chance_nodes"]) == (
        ours["nodes"],
        ours["terminals"],
        ours["infosets"],
        ours["chance_nodes"],
    )
    if name == "kuhn":
        from open_spiel.python import policy
        from open_spiel.python.algorithms import expected_game_score

        v = expected_game_score.policy_value(game.new_initial_state(), [policy.UniformRandomPolicy(game)] * 2)
        assert abs(v[0] - _uniform_value(tree)) < 1e-12

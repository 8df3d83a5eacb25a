"""Strategy files name information sets and actions by the games' readable labels, and still read
files that name them the old way (``str(key)`` and the tree's action labels): both read to the
profile they were written from, built here directly from the tree."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction

import pytest

from seqform import compile_tree, games
from seqform.cli.common import print_strategy
from seqform.errors import StrategyError
from seqform.io.strategyjson import infoset_labels, profile_from_json, profile_to_json
from seqform.model.strategy import Profile


def direct_profile(tree, seed: int) -> Profile:
    """A random exact behaviour profile, one distribution per information set, laid out by the
    tree's sequences (the empty sequence first)."""
    rng = random.Random(seed)
    beh = []
    for p in range(tree.num_players):
        b = [Fraction(0)] * tree.num_sequences[p]
        b[0] = Fraction(1)
        for i in tree.player_infosets[p].tolist():
            w = [rng.randint(0, 4) for _ in range(int(tree.infoset_num_actions[i]))]
            w[rng.randrange(len(w))] += 1
            f = int(tree.infoset_first_seq[i])
            b[f : f + len(w)] = [Fraction(x, sum(w)) for x in w]
        beh.append(b)
    return Profile(beh)


def old_form(tree, profile: Profile) -> dict:
    """The profile as files were written before readable labels: ``str(key)`` and the tree's
    action labels, built from the tree (not by the writer)."""
    strategies = []
    for p in range(tree.num_players):
        entries = []
        for i in tree.player_infosets[p].tolist():
            f = int(tree.infoset_first_seq[i])
            acts = tree.infoset_actions[i]
            entries.append(
                {
                    "infoset": str(tree.infoset_key[i]),
                    "actions": {a: str(profile.behaviour[p][f + j]) for j, a in enumerate(acts)},
                }
            )
        strategies.append({"infosets": entries})
    return {"game": tree.name, "players": tree.num_players, "strategies": strategies}


@pytest.mark.parametrize("name", ["kuhn", "leduc", "four_card", "liars_dice(1,3)"])
def test_old_and_new_labels_read_to_the_same_profile(name):
    tree = compile_tree(games.load(name))
    prof = direct_profile(tree, 7)
    new = json.loads(json.dumps(profile_to_json(tree, prof)))
    old = old_form(tree, prof)
    assert profile_from_json(tree, new).behaviour == prof.behaviour
    assert profile_from_json(tree, old).behaviour == prof.behaviour
    # the labels did change (a built-in game), and mixing both forms in one file reads too
    assert [e["infoset"] for e in new["strategies"][0]["infosets"]] != [
        e["infoset"] for e in old["strategies"][0]["infosets"]
    ]
    mixed = json.loads(json.dumps(new))
    mixed["strategies"][1] = old["strategies"][1]
    assert profile_from_json(tree, mixed).behaviour == prof.behaviour


def test_kuhn_labels_and_json_shape():
    tree = compile_tree(games.kuhn())
    obj = profile_to_json(tree, direct_profile(tree, 1))
    assert [e["infoset"] for e in obj["strategies"][0]["infosets"]] == ["J", "J | pb", "Q", "Q | pb", "K", "K | pb"]
    assert [e["infoset"] for e in obj["strategies"][1]["infosets"]] == [
        "Q | p",
        "Q | b",
        "K | p",
        "K | b",
        "J | p",
        "J | b",
    ]
    assert set(obj) == {"game", "players", "strategies"}
    assert all(set(e) == {"infoset", "actions"} for s in obj["strategies"] for e in s["infosets"])


def test_one_information_set_under_both_labels_is_refused():
    tree = compile_tree(games.kuhn())
    obj = profile_to_json(tree, direct_profile(tree, 2))
    first = obj["strategies"][0]["infosets"][0]
    obj["strategies"][0]["infosets"].append({"infoset": "(0, '')", "actions": first["actions"]})
    with pytest.raises(StrategyError, match=r"player 0 information set \"\(0, ''\)\" of kuhn appears twice"):
        profile_from_json(tree, obj)


def test_one_action_under_both_labels_is_refused():
    tree = compile_tree(games.load("four_card"))
    obj = profile_to_json(tree, direct_profile(tree, 3))
    obj["strategies"][0]["infosets"][0]["actions"] = {"Check": "1/2", "b": "1/4", "Bet": "1/4"}
    with pytest.raises(StrategyError, match=r"player 0 information set 'J1' of four_card gives action 'Bet' twice"):
        profile_from_json(tree, obj)
    obj["strategies"][0]["infosets"][0]["actions"] = {"k": "1/2", "Bet": "1/2"}
    back = profile_from_json(tree, obj)
    assert back.behaviour[0][1:3] == [Fraction(1, 2), Fraction(1, 2)]


def test_unknown_label_suggests_the_new_label():
    tree = compile_tree(games.kuhn())
    obj = profile_to_json(tree, direct_profile(tree, 4))
    obj["strategies"][0]["infosets"][1]["infoset"] = "J | pbx"
    with pytest.raises(StrategyError, match=r"has no information set 'J \| pbx'; did you mean 'J \| pb'"):
        profile_from_json(tree, obj)


def test_labels_that_repeat_fall_back_to_str_of_the_key():
    """A game whose readable labels are not unique keeps the old ones for that player."""
    game = games.kuhn()
    game.infoset_name = lambda key, player: "same"  # type: ignore[method-assign]
    tree = compile_tree(game)
    assert infoset_labels(tree, 0) == [str(tree.infoset_key[i]) for i in tree.player_infosets[0]]


def test_printed_strategy_shows_labels_and_player_names(capsys):
    tree = compile_tree(games.load("job_market"))
    print_strategy(tree, direct_profile(tree, 5))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "player 0 (student) strategy:"
    assert [line.split("  ")[1].strip() for line in out[1:4]] == ["start", "studied", "did not study"]
    assert "player 1 (employer) strategy:" in out
    tree = compile_tree(games.kuhn())
    print_strategy(tree, direct_profile(tree, 6))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "player 0 strategy:" and out[2].startswith("  J | pb  Pass: ")


def test_solve_json_strategy_evaluates_to_zero_exploitability(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "seqform", *args], capture_output=True, text=True, timeout=300)

    r = run("solve", "kuhn", "--json", "--strategy", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["strategy"]["strategies"][0]["infosets"][0]["infoset"] == "J"
    path = tmp_path / "kuhn.json"
    path.write_text(r.stdout)
    r = run("evaluate", "kuhn", str(path), "--exact", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    ev = json.loads(r.stdout)
    assert ev["exploitability"] in (0, "0")

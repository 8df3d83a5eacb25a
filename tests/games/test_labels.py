"""Readable labels of the built-in games' information sets and actions (``Game.infoset_name``,
``Game.action_name``): unique within a player for every built-in game at its defaults, equal to
OpenSpiel's information-state strings rewritten (Kuhn, Leduc, Liar's Dice), and naming what the
player really holds at every node of the information set."""

from __future__ import annotations

import itertools

import pytest

from seqform import compile_tree, games
from seqform.games.labels import card_names, join, rank_names
from seqform.io.strategyjson import _action_labels, infoset_labels
from seqform.model.game import CHANCE, TERMINAL, Game

# the two games whose trees are too large to build here: their keys are enumerated instead
NOT_BUILT = {"rhode_island"}


def game_labels(tree) -> list:
    """Per player, the game's own labels of its information sets (no fallback)."""
    return [
        [tree.game.infoset_name(tree.infoset_key[i], p) for i in tree.player_infosets[p]]
        for p in range(tree.num_players)
    ]


@pytest.mark.parametrize("name", sorted(set(games.available()) - NOT_BUILT))
def test_every_builtin_game_has_unique_labels_at_its_defaults(name):
    tree = compile_tree(games.load(name))
    for p, labels in enumerate(game_labels(tree)):
        assert all(isinstance(lab, str) and lab for lab in labels)
        assert len(set(labels)) == len(labels) == len(tree.player_infosets[p]), name
        # the strategy files use them (no fallback to str(key))
        assert infoset_labels(tree, p) == labels
    for i in range(len(tree.infoset_key)):
        acts = _action_labels(tree, i)
        assert len(set(acts)) == len(acts) == int(tree.infoset_num_actions[i])


def test_rhode_island_labels_are_unique_without_building_it():
    """The full-deck game's labels, from its own description: a label is the observation's part,
    then " | " and the betting node's history; each part is one-to-one (every ordered observation
    of every round, every decision node of the player), and neither holds a "|"."""
    game = games.load("rhode_island")
    b = game.betting
    for p in range(2):
        nodes = [v for v in range(b.num_nodes) if b.kind[v] == "decide" and b.player[v] == p]
        histories = [b.history[v] for v in nodes]
        assert len(set(histories)) == len(nodes) and not any("|" in h for h in histories)
        for r in range(b.num_rounds):
            in_round = [v for v in nodes if b.round[v] == r]
            seen = sum(1 for k in game.observed[p] if k < game.dealt_by[r])
            shown = set()
            for n, obs in enumerate(itertools.permutations(range(len(game.deck)), seen)):
                label = game.infoset_name((obs, in_round[0]), p)
                part = label.split(" | ")[0] if b.history[in_round[0]] else label
                assert "|" not in part
                shown.add(part)
                if n % 997 == 0:  # the same observation at the round's other nodes
                    assert all(game.infoset_name((obs, v), p) == join(part, b.history[v]) for v in in_round)
            assert len(shown) == n + 1


def test_card_names():
    assert rank_names(3) == ("J", "Q", "K") and rank_names(13)[0] == "2" and rank_names(13)[-1] == "A"
    assert card_names(3, 2) == ("Js", "Jh", "Qs", "Qh", "Ks", "Kh")
    assert card_names(3, 1) == ("J", "Q", "K")
    for ranks, suits in [(3, 2), (12, 4), (13, 4), (20, 3), (14, 6), (5, 1)]:
        names = card_names(ranks, suits)
        assert len(set(names)) == len(names) == ranks * suits
    assert join("Q", "pb") == "Q | pb" and join("Q", "") == "Q" and join("", "pass") == "pass"
    assert join("", "") == "start"


def test_default_is_str_of_the_key():
    """A game that gives no labels (a .efg file, the explicit trees) keeps str(key) and its actions."""
    tree = compile_tree(games.load("mertens_voting"))
    assert infoset_labels(tree, 0) == [str(tree.infoset_key[i]) for i in tree.player_infosets[0]]
    assert Game.infoset_name(tree.game, (1, "x"), 0) == "(1, 'x')"
    assert [_action_labels(tree, i) for i in range(len(tree.infoset_key))] == tree.infoset_actions


# ----------------------------------------------------------------------------------------------
# what the labels say, node by node
# ----------------------------------------------------------------------------------------------


def decision_nodes(game):
    """(state, player) of every decision node of ``game``, walking its queries."""
    stack = [game.root()]
    while stack:
        h = stack.pop()
        pl = game.player(h)
        if pl == TERMINAL:
            continue
        if pl != CHANCE:
            yield h, pl
        stack.extend(game.next(h, a) for a in range(len(game.actions(h))))


def test_kuhn_labels_name_the_card_held():
    game = games.load("kuhn")
    for h, p in decision_nodes(game):
        cards, hist = h
        assert game.infoset_name(game.infoset(h), p) == "JQK"[cards[p]] + (f" | {hist}" if hist else "")


def test_leduc_labels_name_the_cards_and_the_betting():
    game = games.load("leduc")
    suits = "sh"
    letter = {"Fold": "f", "Call": "c", "Raise": "r"}
    for h, p in decision_nodes(game):
        cards, pub, node = h
        own = "JQK"[cards[p] // 2] + suits[cards[p] % 2]
        seen = own if pub < 0 else own + "/" + "JQK"[pub // 2] + suits[pub % 2]
        # the betting, rebuilt from the round strings' letters (the first letters of the actions)
        betting = "/".join(node[0])
        assert set(betting) <= set(letter.values()) | {"/"}
        label = game.infoset_name(game.infoset(h), p)
        assert label == (f"{seen} | {betting}" if betting else seen)


def test_lossless_labels_name_the_deck_cards():
    game = games.load("four_card")
    for h, p in decision_nodes(game):
        cards, v = h
        label = game.infoset_name(game.infoset(h), p)
        assert label.split(" | ")[0] == game.deck[cards[p]]
        assert label.endswith(game.betting.history[v]) and label.count("|") == (1 if game.betting.history[v] else 0)


# ----------------------------------------------------------------------------------------------
# OpenSpiel's information-state strings, rewritten, are our labels
# ----------------------------------------------------------------------------------------------


def walk_with_openspiel(game, state):
    """Yield (our label, OpenSpiel's information-state string, player) at every decision node,
    stepping our game and OpenSpiel's in lockstep (the same action order on both sides)."""
    stack = [(game.root(), state)]
    while stack:
        h, s = stack.pop()
        pl = game.player(h)
        if pl == TERMINAL:
            assert s.is_terminal()
            continue
        if pl == CHANCE:
            outs = [a for a, _ in s.chance_outcomes()]
        else:
            assert s.current_player() == pl
            yield game.infoset_name(game.infoset(h), pl), s.information_state_string(pl), pl
            outs = s.legal_actions()
        assert len(outs) == len(game.actions(h))
        for a, oa in enumerate(outs):
            stack.append((game.next(h, a), s.child(oa)))


def test_kuhn_labels_are_openspiels_rewritten():
    pyspiel = pytest.importorskip("pyspiel")
    n = 0
    for ours, theirs, _ in walk_with_openspiel(games.kuhn(), pyspiel.load_game("kuhn_poker").new_initial_state()):
        # "1pb": card 1 (the queen), then pass, bet
        assert ours == "JQK"[int(theirs[0])] + (f" | {theirs[1:]}" if theirs[1:] else "")
        n += 1
    assert n == 24


def _leduc_from_openspiel(s: str) -> str:
    """'[Observer: 0][Private: 3][Round 2]...[Public: 4][Round1: 2 1][Round2: ]' -> 'Qh/Ks | rc/'"""
    fields = dict(f.split(": ", 1) if ": " in f else (f, "") for f in s.strip("[]").split("]["))
    name = card_names(3, 2)
    seen = name[int(fields["Private"])] + (f"/{name[int(fields['Public'])]}" if "Public" in fields else "")
    rounds = ["".join("fcr"[int(a)] for a in fields[r].split()) for r in ("Round1", "Round2")]
    betting = rounds[0] + (f"/{rounds[1]}" if "Public" in fields else "")
    return f"{seen} | {betting}" if betting else seen


def test_leduc_labels_are_openspiels_rewritten():
    pyspiel = pytest.importorskip("pyspiel")
    walk = walk_with_openspiel(games.leduc(), pyspiel.load_game("leduc_poker").new_initial_state())
    pairs = {(p, ours, theirs) for ours, theirs, p in walk}
    assert all(ours == _leduc_from_openspiel(theirs) for _, ours, theirs in pairs)
    assert len({(p, o) for p, o, _ in pairs}) == 2 * 468


def test_liars_dice_labels_are_openspiels_rewritten():
    pyspiel = pytest.importorskip("pyspiel")
    state = pyspiel.load_game("liars_dice", {"numdice": 2, "dice_sides": 2}).new_initial_state()
    count = 0
    for ours, theirs, _ in walk_with_openspiel(games.liars_dice(2, 2), state):
        dice, _, bids = theirs.partition(" ")  # "12 1-2 3-1": dice 1 and 2, then the bids
        assert ours == " ".join(dice) + (f" | {bids}" if bids else "")
        count += 1
    assert count > 0


# ----------------------------------------------------------------------------------------------
# player names, and actions spelled out
# ----------------------------------------------------------------------------------------------


def test_player_names_and_lossless_action_names():
    assert games.load("flipit").player_names == ("defender", "attacker")
    assert games.load("job_market").player_names == ("student", "employer")
    assert games.load("kuhn").player_names == ()
    tree = compile_tree(games.load("four_card"))
    spelled = {"k": "Check", "b": "Bet", "f": "Fold", "c": "Call", "r": "Raise"}
    for i, acts in enumerate(tree.infoset_actions):
        assert _action_labels(tree, i) == tuple(spelled[a] for a in acts)

"""Pictures of game trees (``seqform.io.treedraw``), checked through matplotlib's objects: one payoff
text per leaf showing the leaf's exact payoffs, a join through every node of every information set
of several nodes, bold branches exactly where the profile's reach (computed here from realization
plans and chance, not from the drawing code) is positive, the profile's probabilities on the
branches; the layout's invariants; files of each format; refusals."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

import seqform
from seqform import compile_tree, games
from seqform.errors import SeqformError, StrategyError, TooLargeError
from seqform.io.treedraw import draw_tree, tree_layout
from seqform.model.game import CHANCE, TERMINAL
from seqform.model.strategy import Profile, realization_plan

pytest.importorskip("matplotlib")

GAMES = [
    "selten_horse",
    "selten_fig3",
    "kuhn",
    "threat_zero_sum",
    "threat_general_sum",
    "guess_the_ace",
    "mertens_voting",
]


def tree_of(name: str):
    return compile_tree(games.load(name))


def by_gid(fig, prefix: str) -> dict:
    """``{number: artist}`` of the figure's artists whose gid is ``prefix-number``."""
    ax = fig.axes[0]
    out = {}
    for artist in [*ax.texts, *ax.lines, *ax.patches]:
        gid = artist.get_gid() or ""
        if gid.startswith(prefix + "-"):
            out[int(gid[len(prefix) + 1 :])] = artist
    return out


def number(text: str):
    """A drawn number back as a Fraction (rational texts) or a float (decimals)."""
    s = text.replace("\u2212", "-")
    return float(s) if "." in s or "e" in s else Fraction(s)


def random_profile(tree, seed: int, exact: bool) -> Profile:
    """Random behaviour with some actions at probability zero (so some branches are not reached)."""
    rng = random.Random(seed)
    beh = []
    for p in range(tree.num_players):
        b = [Fraction(1)] * tree.num_sequences[p]
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            w = [rng.choice([0, 0, 1, 2, 3]) for _ in range(k)]
            if not sum(w):
                w[rng.randrange(k)] = 1
            b[f : f + k] = [Fraction(v, sum(w)) for v in w]
        beh.append(b if exact else np.array([float(v) for v in b]))
    return Profile(beh)


def reach(tree, profile: Profile) -> list:
    """Each node's probability of being reached: chance's reach times every player's realization
    plan at the node's own sequence (Koller, Megiddo & von Stengel 1996)."""
    plans = [realization_plan(tree, p, np.array([float(v) for v in b])) for p, b in enumerate(profile.behaviour)]
    out = []
    for n in range(tree.num_nodes):
        r = float(tree.chance_reach[n])
        for p in range(tree.num_players):
            r *= plans[p][int(tree.node_seq[p, n])]
        out.append(r)
    return out


@pytest.mark.parametrize("name", GAMES)
def test_one_payoff_text_per_leaf_with_its_exact_payoffs(name):
    tree = tree_of(name)
    fig = draw_tree(tree)
    payoffs = by_gid(fig, "payoff")
    assert sorted(payoffs) == list(range(tree.num_terminals))
    for t, text in payoffs.items():
        shown = [number(line) for line in text.get_text().split("\n")]
        assert len(shown) == tree.num_players
        for got, want in zip(shown, tree.payoff_exact[t]):
            assert got == want if isinstance(got, Fraction) else abs(got - float(want)) <= 1e-3 * abs(float(want))
        leaf = int(tree.terminals[t])
        assert np.allclose(text.xy, by_gid(fig, "node")[leaf].get_xydata()[0])  # under its leaf


def test_long_payoffs_are_decimals_and_short_ones_rationals():
    from seqform.io.treedraw import format_payoff

    assert format_payoff(Fraction(-1, 18)) == "\u22121/18"
    assert format_payoff(Fraction(1, 3000007)) == "3.333e\u221207"
    assert format_payoff(1000) == "1000"


@pytest.mark.parametrize("name", GAMES)
def test_every_information_set_of_several_nodes_is_joined_through_all_its_nodes(name):
    tree = tree_of(name)
    fig = draw_tree(tree)
    joins, nodes = by_gid(fig, "infoset"), by_gid(fig, "node")
    several = {i for i in range(len(tree.infoset_player)) if (tree.infoset == i).sum() > 1}
    assert set(joins) == several
    for i in several:
        verts = joins[i].get_path().vertices
        for n in np.flatnonzero(tree.infoset == i):
            pos = nodes[int(n)].get_xydata()[0]
            assert np.isclose(verts, pos).all(axis=1).any(), f"the join of information set {i} misses node {n}"
        assert joins[i].get_linestyle() not in ("-", "solid")


def profiles(tree):
    yield random_profile(tree, 1, exact=True)
    yield random_profile(tree, 2, exact=False)
    if tree.num_players == 2:
        yield seqform.solve(tree).strategy_profile()


@pytest.mark.parametrize("name", ["kuhn", "selten_horse", "threat_general_sum", "guess_the_ace", "mertens_voting"])
def test_bold_branches_are_exactly_those_the_profile_reaches(name):
    tree = tree_of(name)
    for profile in profiles(tree):
        fig = draw_tree(tree, profile)
        edges = by_gid(fig, "edge")
        assert sorted(edges) == list(range(1, tree.num_nodes))
        widths = {c: e.get_linewidth() for c, e in edges.items()}
        bold = {c for c, w in widths.items() if w > min(widths.values())}
        r = reach(tree, profile)
        assert bold == {c for c in range(1, tree.num_nodes) if r[c] > 0}
        nodes = by_gid(fig, "node")
        for c in edges:  # each edge joins its parent's marker to its child's
            ends = [nodes[int(tree.parent[c])].get_xydata()[0], nodes[c].get_xydata()[0]]
            assert np.allclose(edges[c].get_xydata(), ends)


def test_without_a_profile_nothing_is_bold_and_only_chance_has_probabilities():
    tree = tree_of("kuhn")
    fig = draw_tree(tree)
    assert len({e.get_linewidth() for e in by_gid(fig, "edge").values()}) == 1
    probs = by_gid(fig, "prob")
    assert set(probs) == {c for c in range(1, tree.num_nodes) if tree.player[tree.parent[c]] == CHANCE}


@pytest.mark.parametrize("name", ["kuhn", "selten_horse", "guess_the_ace"])
def test_branch_probabilities_are_the_profiles_and_chances(name):
    tree = tree_of(name)
    for profile in profiles(tree):
        fig = draw_tree(tree, profile)
        probs, actions = by_gid(fig, "prob"), by_gid(fig, "action")
        assert sorted(probs) == sorted(actions) == list(range(1, tree.num_nodes))
        for c, text in probs.items():
            par, a = int(tree.parent[c]), int(tree.action[c])
            p = int(tree.player[par])
            if p == CHANCE:
                want = tree.chance_probs[tree.chance_index[par]][a]
                label = tree.chance_labels[tree.chance_index[par]][a]
            else:
                i = int(tree.infoset[par])
                want = profile.behaviour[p][int(tree.infoset_first_seq[i]) + a]
                label = tree.infoset_actions[i][a]
            got = number(text.get_text())
            if isinstance(want, Fraction) and isinstance(got, Fraction):
                assert got == want
            else:
                assert abs(float(got) - float(want)) <= 5e-3 * max(float(want), 1e-300)
            assert actions[c].get_text() == str(label)


@pytest.mark.parametrize("name", GAMES)
def test_layout_leaves_evenly_spaced_parents_centred_information_sets_level(name):
    tree = tree_of(name)
    lay = tree_layout(tree)
    # leaves at 0, 1, 2, ... in depth-first (preorder) order
    assert np.array_equal(lay.x[tree.terminals], np.arange(tree.num_terminals))
    for n in range(tree.num_nodes):
        kids = np.flatnonzero(tree.parent == n)
        if len(kids):
            assert lay.x[n] == pytest.approx((lay.x[kids].min() + lay.x[kids].max()) / 2)
            assert (lay.level[kids] > lay.level[n]).all()
    assert lay.aligned
    for i in range(len(tree.infoset_player)):
        assert len(set(lay.level[tree.infoset == i].tolist())) == 1


def test_selten_horse_as_in_selten_1975():
    """Player 0 at the root, player 1 below it after C, player 2's two nodes joined on one level."""
    tree = tree_of("selten_horse")
    fig = draw_tree(tree)
    tags = {n: t.get_text() for n, t in by_gid(fig, "player").items()}
    assert tags[0] == "P0"
    c = int(np.flatnonzero((tree.parent == 0) & (tree.action == 0))[0])
    assert tags[c] == "P1"
    p2 = np.flatnonzero(tree.player == 2)
    assert len(p2) == 2 and {tags[int(n)] for n in p2} == {"P2"}
    ys = {by_gid(fig, "node")[int(n)].get_xydata()[0][1] for n in p2}
    assert len(ys) == 1
    assert sum(1 for n in range(tree.num_nodes) if tree.player[n] == TERMINAL) == len(by_gid(fig, "payoff"))


@pytest.mark.parametrize("ext,magic", [(".svg", b"<?xml"), (".pdf", b"%PDF"), (".png", b"\x89PNG")])
def test_files_of_each_format(tmp_path, ext, magic):
    out = tmp_path / f"kuhn{ext}"
    draw_tree(tree_of("kuhn"), path=out)
    assert out.read_bytes()[: len(magic)] == magic
    if ext == ".svg":  # gids become ids: the picture can be styled or inspected
        text = out.read_text()
        assert 'id="infoset-0"' in text and 'id="payoff-29"' in text


def test_the_same_tree_gives_the_same_svg(tmp_path):
    tree = tree_of("selten_horse")
    draw_tree(tree, path=tmp_path / "a.svg")
    draw_tree(tree, path=tmp_path / "b.svg")
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


def test_refusals(tmp_path):
    tree = tree_of("kuhn")
    with pytest.raises(SeqformError, match=r"must end in \.svg, \.pdf, \.png"):
        draw_tree(tree, path=tmp_path / "kuhn.jpg")
    with pytest.raises(TooLargeError, match="30 leaves.*at most 29"):
        draw_tree(tree, max_leaves=29)
    draw_tree(tree, max_leaves=30)
    with pytest.raises(StrategyError):  # a profile of another game
        draw_tree(tree, seqform.uniform(tree_of("threat_zero_sum")))
    assert not list(tmp_path.iterdir())


def test_a_deep_chain_is_refused_by_its_levels():
    spec = ("leaf", (0, 0))
    for k in range(70):  # one leaf, 70 levels
        spec = ("decision", k % 2, f"I{k}", ("go",), (spec,))
    tree = compile_tree(games.explicit.TreeGame(spec, name="chain"))
    with pytest.raises(TooLargeError, match="70 levels deep.*at most 64"):
        draw_tree(tree)
    assert len(by_gid(draw_tree(tree, max_leaves=70), "edge")) == 70


def test_a_game_is_compiled_and_drawn():
    fig = draw_tree(games.load("threat_zero_sum"))
    assert len(by_gid(fig, "payoff")) == 3


def crossed_game():
    """Players 0 and 1 move in opposite orders after chance's two outcomes, neither seeing the
    other's move: no levels put both information sets on one level each."""
    leaf = lambda *u: ("leaf", u)  # noqa: E731
    a = lambda kids: ("decision", 0, "A", ("a", "b"), kids)  # noqa: E731
    b = lambda kids: ("decision", 1, "B", ("c", "d"), kids)  # noqa: E731
    left = a((b((leaf(1, -1), leaf(0, 0))), leaf(2, -2)))
    right = b((a((leaf(0, 0), leaf(3, -3))), leaf(-1, 1)))
    spec = ("chance", ("left", "right"), (Fraction(1, 2), Fraction(1, 2)), (left, right))
    return compile_tree(games.explicit.TreeGame(spec, name="crossed"))


def test_information_sets_that_cannot_share_a_level_are_still_joined():
    tree = crossed_game()
    lay = tree_layout(tree)
    assert not lay.aligned
    depth = [len(tree.history(n)) for n in range(tree.num_nodes)]  # the walk from the root, counted
    assert lay.level.tolist() == depth
    fig = draw_tree(tree, seqform.solve(tree).strategy_profile())
    joins, nodes = by_gid(fig, "infoset"), by_gid(fig, "node")
    assert set(joins) == {0, 1}
    for i, join in joins.items():
        verts = join.get_path().vertices
        for n in np.flatnonzero(tree.infoset == i):
            assert np.isclose(verts, nodes[int(n)].get_xydata()[0]).all(axis=1).any()

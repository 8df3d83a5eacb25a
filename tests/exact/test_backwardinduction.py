"""Backward induction on games of perfect information, against independent computations: the
brute-force oracle (reduced normal form, exact simplex), the recursive backward-induction oracle
(``tests/oracle/backward_induction.py``: optimal action sets at every node, reached or not, and
exact values), the sequence-form LP with its exact certificate, and exact evaluation of the
strategies it returns."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, event, given, reject, settings
from hypothesis import strategies as st

import seqform
from seqform.errors import UnsupportedGameError
from seqform.exact.backwardinduction import backward_induction, is_perfect_information, subgame_perfect
from seqform.exact.rationals import fraction_of
from seqform.games.explicit import CHANCE_NODE, DECISION, LEAF, TreeGame
from seqform.io.efgread import parse_efg
from seqform.model.strategy import Profile, realization_plan_exact
from seqform.solve import GeneralSumSolution, Solution
from seqform.verify.evaluate import evaluate
from tests.oracle.backward_induction import backward_induction as oracle
from tests.oracle.backward_induction import highest
from tests.oracle.brute_force import OracleTooLarge, brute_force_value_exact
from tests.strategies import random_games
from tests.test_deep_trees import backward_induction as chain_value
from tests.test_deep_trees import chain_efg

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def with_singleton_infosets(tree: tuple, path: tuple = ()) -> tuple:
    """The same tree with every decision node in an information set of its own (keyed by its
    path): a game of perfect information, with perfect recall by construction."""
    if tree[0] == LEAF:
        return tree
    if tree[0] == CHANCE_NODE:
        _, labels, probs, kids = tree
        return (CHANCE_NODE, labels, probs, tuple(with_singleton_infosets(c, path + (i,)) for i, c in enumerate(kids)))
    _, player, _, labels, kids = tree
    return (
        tree[0],
        player,
        "n" + "".join(map(str, path)),
        labels,
        tuple(with_singleton_infosets(c, path + (i,)) for i, c in enumerate(kids)),
    )


def perfect_information(game: TreeGame) -> TreeGame:
    return TreeGame(with_singleton_infosets(game.tree), game.name + "-pi")


@given(random_games(max_depth=4, max_nodes=30, max_pure_strategies=27))
@SETTINGS
def test_value_equals_the_brute_force_and_the_lp(game):
    game = perfect_information(game)
    tree = seqform.compile_tree(game)
    assert is_perfect_information(tree)
    bi = backward_induction(tree)
    try:
        truth = brute_force_value_exact(game)
    except OracleTooLarge:  # singleton information sets multiply the pure strategies
        reject()
    assert Fraction(int(bi.value.p), int(bi.value.q)) == truth
    sol = seqform.solve(tree)
    assert sol.method == "backward-induction" and sol.certified
    lp = seqform.solve(tree, method="simplex")
    assert lp.method.startswith("lp") and lp.certified and lp.value == sol.value


@given(random_games(max_depth=5, max_nodes=50, max_pure_strategies=64))
@SETTINGS
def test_strategies_are_a_subgame_perfect_equilibrium(game):
    """Exact evaluation, not the solver's own certificate: the pure behavioural strategies have
    exploitability exactly 0 and exactly zero regret at every information set, reached or not
    (a Nash equilibrium that is not subgame perfect fails the second)."""
    tree = seqform.compile_tree(perfect_information(game))
    bi = backward_induction(tree)
    ev = evaluate(tree, [[Fraction(v) for v in b] for b in bi.behaviour], exact=True)
    assert ev.exploitability == 0
    assert ev.max_regret == 0
    assert ev.values[0] == Fraction(int(bi.value.p), int(bi.value.q))


def test_auto_keeps_the_lp_for_imperfect_information():
    tree = seqform.compile_tree(seqform.games.load("kuhn"))
    assert not is_perfect_information(tree)
    assert seqform.solve(tree).method.startswith("lp")
    with pytest.raises(UnsupportedGameError, match="perfect information"):
        seqform.solve(tree, method="backward-induction")


def test_payoffs_of_any_size_on_a_chain():
    """Exact arithmetic all the way: payoffs near 1e300 that differ in their last digits."""
    payoffs = [10**300 + k * (-1) ** k for k in range(41)]
    sol = seqform.solve(parse_efg(chain_efg(payoffs), "chain.efg"))
    assert sol.method == "backward-induction" and sol.certified
    assert sol.value == chain_value(payoffs)


def test_chance_nodes_are_averaged_exactly():
    leaf = lambda u: (LEAF, (Fraction(u), -Fraction(u)))  # noqa: E731
    # chance picks one of two subgames with probability 1/3, 2/3; player 0 then player 1 move
    sub = lambda a, b, c, d: (
        "decision",
        0,
        None,
        ("l", "r"),
        (  # noqa: E731
            ("decision", 1, None, ("L", "R"), (leaf(a), leaf(b))),
            ("decision", 1, None, ("L", "R"), (leaf(c), leaf(d))),
        ),
    )
    game = perfect_information(
        TreeGame(
            (CHANCE_NODE, ("x", "y"), (Fraction(1, 3), Fraction(2, 3)), (sub(3, 1, 0, 7), sub(-2, 5, 4, 4))), "chance"
        )
    )
    # subgame x: max(min(3,1), min(0,7)) = 1; subgame y: max(min(-2,5), min(4,4)) = 4
    assert seqform.solve(game).value == Fraction(1, 3) * 1 + Fraction(2, 3) * 4


# ----------------------------------------------------------------------------------------------
# the optimal action at every node, reached or not, against the recursive oracle
# ----------------------------------------------------------------------------------------------

#: float strategies built from 0/1 carry no rounding: the tolerance only states what is compared
FLOAT_TOL = 1e-12


def pure_actions(tree, profile: Profile, exact: bool) -> dict:
    """``(player, infoset key) -> action index`` the profile plays with probability one at every
    information set; fails where it is not pure (exact: == 0 and == 1; floats: within FLOAT_TOL)."""
    out = {}
    for i in range(len(tree.infoset_player)):
        probs = list(profile.action_probabilities(tree, i))
        one = (lambda q: q == 1) if exact else (lambda q: abs(q - 1) <= FLOAT_TOL)
        zero = (lambda q: q == 0) if exact else (lambda q: abs(q) <= FLOAT_TOL)
        ones = [a for a, q in enumerate(probs) if one(q)]
        assert len(ones) == 1 and all(zero(q) for a, q in enumerate(probs) if a != ones[0]), (
            f"{tree.infoset_label(i)}: not pure: {probs}"
        )
        out[int(tree.infoset_player[i]), tree.infoset_key[i]] = ones[0]
    return out


def assert_subgame_perfect(game, tree, profile: Profile, exact: bool):
    """The oracle run along the profile's own choices: at every decision node, reached or not, the
    profile's action must be in the oracle's optimal set (the one-shot deviation test of subgame
    perfection). Returns the oracle's solution (its values are the profile's)."""
    acts = pure_actions(tree, profile, exact)
    follow = oracle(game, choose=lambda p, key, opt: acts[p, key] if acts[p, key] in opt else min(opt))
    assert set(acts) == set(follow.optimal)
    bad = {k: (a, sorted(follow.optimal[k])) for k, a in acts.items() if a not in follow.optimal[k]}
    assert not bad, f"not optimal (reported, optimal): {bad}"
    return follow


def note_cut_offs(truth) -> None:
    """Hypothesis' statistics: how often a drawn game has a node its own player cuts off."""
    event("a node cut off by its own player" if truth.own_cut() else "no own cut-off node")


def assert_plans_are_the_behaviours(tree, sol) -> None:
    """The realization plans stay realization plans: exactly those of the reported behaviour."""
    plans = [realization_plan_exact(tree, p, b) for p, b in enumerate(sol.exact_profile.behaviour)]
    assert plans == sol.exact_realization
    if getattr(sol, "realization", None) is not None:  # Solution's float plans
        assert all(abs(float(a) - b) <= FLOAT_TOL for x, r in zip(plans, sol.realization) for a, b in zip(x, r))


@st.composite
def perfect_information_games(
    draw, num_players: int, max_depth: int = 4, max_nodes: int = 30, payoff_bound: int = 2
) -> TreeGame:
    """A random general-sum game of perfect information with ``num_players`` players and chance
    nodes (probabilities Fractions, some 0): each decision node its own information set (keyed by
    its path), its player drawn anew, so a player often moves twice on a path; integer payoffs in
    +-``payoff_bound``, so ties are common."""
    budget = [max_nodes - 1]
    pay = st.integers(-payoff_bound, payoff_bound)

    def gen(depth: int, path: str) -> tuple:
        if depth >= max_depth or budget[0] < 2 or (depth > 0 and draw(st.integers(0, 3)) == 0):
            return (LEAF, tuple(draw(pay) for _ in range(num_players)))
        k = min(draw(st.integers(1, 3)), budget[0])
        budget[0] -= k
        kind = draw(st.sampled_from(["chance", *range(num_players), *range(num_players)]))
        kids = tuple(gen(depth + 1, path + str(a)) for a in range(k))
        if kind == "chance":
            w = draw(st.lists(st.integers(0, 3), min_size=k, max_size=k))
            w[0] += sum(w) == 0
            return (CHANCE_NODE, tuple(f"c{a}" for a in range(k)), tuple(Fraction(x, sum(w)) for x in w), kids)
        return (DECISION, kind, "n" + path, tuple(f"a{a}" for a in range(k)), kids)

    return TreeGame(gen(0, ""), f"pi{num_players}")


ORACLE_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@given(random_games(max_depth=5, max_nodes=40, max_pure_strategies=64))
@ORACLE_SETTINGS
def test_two_players_every_node_plays_an_optimal_action(game):
    """Two-player zero-sum: backward induction, and ``seqform.solve``'s ``profile`` and
    ``exact_profile`` (certified or not), play an optimal action at every node, those cut off by
    the player's own earlier choice included; the values are the oracle's."""
    game = perfect_information(game)
    tree = seqform.compile_tree(game)
    truth = oracle(game)
    note_cut_offs(truth)
    assert oracle(game, highest).values == truth.values  # one value, however ties are broken
    bi = backward_induction(tree)
    assert assert_subgame_perfect(game, tree, Profile(bi.behaviour), True).values == truth.values
    assert fraction_of(bi.value) == truth.values[0]
    sol = seqform.solve(tree)
    assert isinstance(sol, Solution) and sol.method == "backward-induction" and sol.certified
    assert sol.value == truth.values[0]
    for prof, exact in ((sol.exact_profile, True), (sol.profile, False)):
        assert assert_subgame_perfect(game, tree, prof, exact).values == truth.values
    assert_plans_are_the_behaviours(tree, sol)
    uncertified = seqform.solve(tree, certify_exact=False)
    assert uncertified.exact_profile is None
    assert assert_subgame_perfect(game, tree, uncertified.profile, False).values == truth.values


@pytest.mark.parametrize("players", [2, 3])
@given(data=st.data())
@ORACLE_SETTINGS
def test_general_sum_every_node_plays_an_optimal_action(players, data):
    """Two and three players, general-sum: ``subgame_perfect`` and ``seqform.solve``'s
    ``GeneralSumSolution`` play an optimal action at every node, reached or not, given their own
    continuation; every player's value is the oracle's along that continuation, exactly."""
    game = data.draw(perfect_information_games(players))
    tree = seqform.compile_tree(game)
    if players == 2 and tree.constant_sum is not None:
        reject()  # solved as zero-sum: the test above
    sp = subgame_perfect(tree)
    follow = assert_subgame_perfect(game, tree, Profile(sp.behaviour), True)
    note_cut_offs(follow)
    assert [fraction_of(v) for v in sp.values] == list(follow.values)
    sol = seqform.solve(tree)
    assert isinstance(sol, GeneralSumSolution) and sol.method == "backward-induction" and sol.certified
    for prof, exact in ((sol.exact_profile, True), (sol.profile, False)):
        assert list(assert_subgame_perfect(game, tree, prof, exact).values) == sol.values
    assert_plans_are_the_behaviours(tree, sol)


def _leaf(u) -> tuple:
    return (LEAF, (Fraction(u), -Fraction(u)))


def _cut_off_branch(tag: str, out: int) -> tuple:
    """Player 0 takes "out" (``out``) or "in"; after "in" player 1 takes "l" to player 0's node
    "late" (a: 3, b: -1, so a) or "r" (5). With ``out`` = 4 player 0 takes "out": "late" is cut off
    by player 0's own first choice, while player 1's choice "l" reaches it."""
    late = (DECISION, 0, "late" + tag, ("a", "b"), (_leaf(3), _leaf(-1)))
    mid = (DECISION, 1, "mid" + tag, ("l", "r"), (late, _leaf(5)))
    return (DECISION, 0, "root" + tag, ("out", "in"), (_leaf(out), mid))


def cut_off_game() -> TreeGame:
    """Chance (1/3, 2/3) picks a branch: in "_h" player 0 cuts "late_h" off himself (out = 4 > 3),
    in "_t" he goes in (out = 2 < 3) and "late_t" is reached. Value 1/3 * 4 + 2/3 * 3 = 10/3."""
    return TreeGame(
        (
            CHANCE_NODE,
            ("h", "t"),
            (Fraction(1, 3), Fraction(2, 3)),
            (_cut_off_branch("_h", 4), _cut_off_branch("_t", 2)),
        ),
        "cut_off",
    )


def infoset_id(tree, player: int, key) -> int:
    return next(i for i in tree.player_infosets[player].tolist() if tree.infoset_key[i] == key)


def test_a_node_its_own_player_cuts_off_plays_the_optimal_action():
    game = cut_off_game()
    truth = oracle(game)
    assert truth.own_cut() == [(0, "late_h")] and truth.optimal[0, "late_h"] == {0}
    sol = seqform.solve(game)
    tree = sol.tree
    i = infoset_id(tree, 0, "late_h")
    f = int(tree.infoset_first_seq[i])
    assert sol.exact_realization[0][f : f + 2] == [0, 0]  # the plan says nothing there
    assert sol.exact_profile.action_probabilities(tree, i) == [1, 0]  # a: the optimal action
    assert list(sol.profile.action_probabilities(tree, i)) == [1.0, 0.0]
    assert sol.value == Fraction(10, 3) == truth.values[0]
    # the strategy --strategy prints, and seqform evaluate's regret there (player 1 reaches it)
    late = [e for e in sol.to_json(strategy=True)["strategy"]["strategies"][0]["infosets"] if e["infoset"] == "late_h"]
    assert late == [{"infoset": "late_h", "actions": {"a": "1", "b": "0"}}]
    ev = evaluate(tree, sol.exact_profile)
    assert ev.reached[i] and ev.infoset_regret[i] == 0 and ev.max_regret == 0


def test_the_lp_is_uniform_where_a_players_own_play_cuts_a_node_off():
    """What the docstrings say of the LP: a Nash equilibrium, its behaviour derived from the plans,
    uniform at "late_h" (every equilibrium has player 0 take "out" there), where evaluate's regret
    is 3 - (3 - 1) / 2 = 2; backward induction's regret there is 0 (test above)."""
    lp = seqform.solve(cut_off_game(), method="simplex")
    assert lp.method.startswith("lp") and lp.certified and lp.value == Fraction(10, 3)
    i = infoset_id(lp.tree, 0, "late_h")
    assert lp.exact_profile.action_probabilities(lp.tree, i) == [Fraction(1, 2), Fraction(1, 2)]
    ev = evaluate(lp.tree, lp.exact_profile)
    assert ev.reached[i] and ev.infoset_regret[i] == 2


def three_player_cut_off_game() -> TreeGame:
    """Player 0 "stop"s (4, 0, 0) rather than "go" on to player 1, whose "y" leads to player 0's
    node "again" (a: on to player 2, who takes r: (3, 1, 1); b: (3, 2, 2), a tie for player 0).
    "again" is cut off by player 0's own "stop"; either a or b is optimal there."""
    p2 = (DECISION, 2, "p2", ("l", "r"), ((LEAF, (1, 3, 0)), (LEAF, (3, 1, 1))))
    again = (DECISION, 0, "again", ("a", "b"), (p2, (LEAF, (3, 2, 2))))
    p1 = (DECISION, 1, "p1", ("x", "y"), ((LEAF, (0, 0, 5)), again))
    return TreeGame((DECISION, 0, "root", ("stop", "go"), ((LEAF, (4, 0, 0)), p1)), "cut_off_3")


def test_three_players_a_node_its_own_player_cuts_off_plays_an_optimal_action():
    game = three_player_cut_off_game()
    truth = oracle(game)
    assert (0, "again") in truth.own_cut() and truth.optimal[0, "again"] == {0, 1}
    assert truth.optimal[2, "p2"] == {1}
    sol = seqform.solve(game)
    assert isinstance(sol, GeneralSumSolution) and sol.method == "backward-induction"
    assert sol.values == [4, 0, 0]
    tree = sol.tree
    i = infoset_id(tree, 0, "again")
    assert sorted(sol.exact_profile.action_probabilities(tree, i)) == [0, 1]  # pure, not uniform
    assert sorted(sol.profile.action_probabilities(tree, i)) == [0.0, 1.0]
    assert_subgame_perfect(game, tree, sol.exact_profile, True)
    j = infoset_id(tree, 2, "p2")
    assert sol.exact_profile.action_probabilities(tree, j) == [0, 1]

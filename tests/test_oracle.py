"""Tests of the brute-force oracle (tests/oracle/brute_force.py) and the game generators (tests/strategies.py).

Known answers come from the literature or are solved by hand here, never from seqform. The last
section checks that ``seqform.model.tree.compile_tree`` rejects the generators' invalid games with
messages naming the culprit.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from seqform.errors import ChanceProbabilityError, ImperfectRecallError
from seqform.games import kuhn
from seqform.model.game import TERMINAL, Game
from seqform.model.tree import compile_tree
from tests.oracle.brute_force import (
    OracleError,
    OracleTooLarge,
    behavior_payoff,
    brute_force_solve,
    brute_force_value,
    brute_force_value_exact,
    guaranteed_value,
    num_pure_strategies,
    pure_strategies,
    pure_strategy_payoff_matrix,
    solve_matrix_game_exact,
    solve_matrix_game_float,
    walk_game,
)
from tests.strategies import (
    CHANCE_NODE,
    DECISION,
    LEAF,
    TreeGame,
    bad_chance_games,
    imperfect_recall_games,
    random_games,
)

F = Fraction
FEW = settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# ----------------------------------------------------------------------------------------------
# known games
# ----------------------------------------------------------------------------------------------


class MatchingPennies(Game):
    """Player 0 picks H/T; player 1, not seeing it (or seeing it if ``observed``), picks H/T.

    Player 0 wins 1 on a match and loses 1 otherwise. Value 0 (hidden), -1 (observed).
    """

    name = "matching_pennies"

    def __init__(self, observed: bool = False):
        self.observed = observed

    def root(self):
        return ()

    def player(self, h):
        return TERMINAL if len(h) == 2 else len(h)

    def infoset(self, h):
        return h if self.observed else "p1" if h else "p0"

    def actions(self, h):
        return ("H", "T")

    def next(self, h, a):
        return h + (a,)

    def utility(self, h):
        u = 1 if h[0] == h[1] else -1
        return (u, -u)


def test_matching_pennies():
    g = MatchingPennies()
    A, S0, S1 = pure_strategy_payoff_matrix(g)
    assert A == [[1, -1], [-1, 1]]
    assert S0 == [{"p0": 0}, {"p0": 1}] and S1 == [{"p1": 0}, {"p1": 1}]
    assert brute_force_value_exact(g) == 0
    assert abs(brute_force_value(g)) < 1e-12
    sol = brute_force_solve(g)
    assert sol.row_mix == (F(1, 2), F(1, 2)) and sol.col_mix == (F(1, 2), F(1, 2))


def test_matching_pennies_observed():
    # player 1 sees the coin: two information sets, 4 pure strategies; she always wins
    g = MatchingPennies(observed=True)
    assert num_pure_strategies(g) == (2, 4)
    assert brute_force_value_exact(g) == -1
    assert brute_force_value(g) == pytest.approx(-1, abs=1e-12)


def test_kuhn_value_is_minus_one_eighteenth():
    # Kuhn (1950): the value of Kuhn poker for the first player is -1/18
    g = kuhn()
    # reduced normal form: 27 strategies for player 0 (3 per card), 64 = 2^6 for player 1
    assert num_pure_strategies(g) == (27, 64)
    assert num_pure_strategies(g, reduced=False) == (64, 64)
    sol = brute_force_solve(g)
    assert sol.value == F(-1, 18)
    assert solve_matrix_game_exact(sol.matrix, method="simplex").value == F(-1, 18)
    assert abs(sol.value_float - (-1 / 18)) < 1e-9
    assert brute_force_value_exact(g) == F(-1, 18)
    assert abs(brute_force_value(g) + 1 / 18) < 1e-9


@pytest.mark.parametrize("alpha", [F(0), F(1, 6), F(1, 3)])
def test_kuhn_published_equilibrium(alpha):
    # Kuhn's family of equilibria for player 0 (J=0, Q=1, K=2; actions Pass, Bet): with J bet
    # with probability alpha, with Q check and call a bet with alpha + 1/3, with K bet with 3 alpha
    # and call. Player 1: with K bet/call, with Q check and call with 1/3, with J bet 1/3 after a
    # check and fold to a bet. Both guarantee -1/18 (Kuhn 1950).
    b0 = {
        (0, ""): (1 - alpha, alpha),
        (0, "pb"): (1, 0),
        (1, ""): (1, 0),
        (1, "pb"): (F(2, 3) - alpha, alpha + F(1, 3)),
        (2, ""): (1 - 3 * alpha, 3 * alpha),
        (2, "pb"): (0, 1),
    }
    b1 = {
        (0, "p"): (F(2, 3), F(1, 3)),
        (0, "b"): (1, 0),
        (1, "p"): (1, 0),
        (1, "b"): (F(2, 3), F(1, 3)),
        (2, "p"): (0, 1),
        (2, "b"): (0, 1),
    }
    g = kuhn()
    assert guaranteed_value(g, 0, b0) == F(-1, 18)
    assert guaranteed_value(g, 1, b1) == F(-1, 18)
    assert behavior_payoff(g, b0, b1) == F(-1, 18)
    # a non-equilibrium strategy guarantees less: always bet with the jack
    worse = dict(b0)
    worse[(0, "")] = (0, 1)
    assert guaranteed_value(g, 0, worse) < F(-1, 18)


def simple_poker(p_high: Fraction) -> TreeGame:
    """Chance deals High (probability p) or Low; player 0 sees it and checks or bets.

    Check: showdown for 1 (+1 High, -1 Low). Bet: player 1, not seeing the card, folds (+1 to
    player 0) or calls (showdown for 2). By hand: player 0 always bets High and bluffs Low with
    probability b; player 1 calls with c. V = p(1 + c) + (1 - p)(b(2 - 3c) - 1). For p <= 3/4
    the equilibrium is b = p / (3(1 - p)), c = 2/3 and V = 8p/3 - 1; for p > 3/4 player 0
    always bets, player 1 never calls and V = 1.
    """

    def after(card):
        sign = 1 if card == "high" else -1
        call = (LEAF, (2 * sign, -2 * sign))
        fold = (LEAF, (1, -1))
        bet = (DECISION, 1, "facing bet", ("fold", "call"), (fold, call))
        return (DECISION, 0, card, ("check", "bet"), ((LEAF, (sign, -sign)), bet))

    tree = (CHANCE_NODE, ("high", "low"), (p_high, 1 - p_high), (after("high"), after("low")))
    return TreeGame(tree, name=f"simple_poker(p={p_high})")


@pytest.mark.parametrize(
    "p, value", [(F(1, 2), F(1, 3)), (F(1, 3), F(-1, 9)), (F(3, 4), F(1)), (F(4, 5), F(1)), (F(0), F(-1)), (F(1), F(1))]
)
def test_simple_poker_by_hand(p, value):
    g = simple_poker(p)
    sol = brute_force_solve(g)
    assert sol.value == value
    assert sol.value_float == pytest.approx(float(value), abs=1e-9)
    if 0 < p <= F(3, 4):
        b = p / (3 * (1 - p))
        b0 = {"high": (0, 1), "low": (1 - b, b)}
        b1 = {"facing bet": (F(1, 3), F(2, 3))}
        assert guaranteed_value(g, 0, b0) == value == guaranteed_value(g, 1, b1)


def test_chance_weighting_and_zero_probability_branches():
    # a chance node with a zero-probability outcome still gives its information sets to the
    # players (they count in the reduced normal form) but contributes nothing to the payoff
    leaf = lambda u: (LEAF, (u, -u))  # noqa: E731
    dead = (DECISION, 0, "x", ("L", "R"), (leaf(100), leaf(-100)))
    live = (DECISION, 1, "y", ("l", "r"), (leaf(3), leaf(F(-1, 2))))
    g = TreeGame((CHANCE_NODE, ("c0", "c1", "c2"), (F(0), F(1, 4), F(3, 4)), (dead, live, leaf(2))))
    A, S0, S1 = pure_strategy_payoff_matrix(g)
    assert len(S0) == 2 and len(S1) == 2
    assert A == [[F(1, 4) * 3 + F(3, 2), F(1, 4) * F(-1, 2) + F(3, 2)]] * 2
    assert brute_force_value_exact(g) == F(-1, 8) + F(3, 2)


# ----------------------------------------------------------------------------------------------
# matrix games
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "A, value",
    [
        ([[3, -1], [-2, 1]], F(1, 7)),  # mixed: (3/7, 4/7) vs (2/7, 5/7)
        ([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], F(0)),  # rock-paper-scissors
        ([[1, 2], [0, 3]], F(1)),  # saddle point
        ([[5]], F(5)),
        ([[-2, -3], [-2, -3], [-4, -1]], F(-5, 2)),  # duplicate rows, all negative
        ([[F(1, 3), F(1, 3)], [F(1, 3), F(1, 3)]], F(1, 3)),
        ([[1, 0, 0]], F(0)),
        ([[1], [0], [2]], F(2)),
    ],
)
def test_matrix_games(A, value):
    sol = solve_matrix_game_exact(A)
    assert sol.value == value
    assert solve_matrix_game_float(A) == pytest.approx(float(value), abs=1e-12)


def test_matrix_mixtures():
    sol = solve_matrix_game_exact([[3, -1], [-2, 1]])
    assert sol.row_mix == (F(3, 7), F(4, 7)) and sol.col_mix == (F(2, 7), F(5, 7))


def _matrices(lo, hi):
    return st.integers(1, 7).flatmap(
        lambda m: st.integers(1, 7).flatmap(
            lambda n: st.lists(st.lists(st.integers(lo, hi), min_size=n, max_size=n), min_size=m, max_size=m)
        )
    )


@FEW
@given(st.one_of(_matrices(-9, 9), _matrices(-1, 1)))  # the second: many ties, degenerate games
def test_random_matrices_exact_vs_float(A):
    sol = solve_matrix_game_exact(A)  # certified inside: both mixtures guarantee the value
    assert solve_matrix_game_exact(A, method="simplex").value == sol.value
    maximin = max(min(r) for r in A)
    minimax = min(max(r[j] for r in A) for j in range(len(A[0])))
    assert maximin <= sol.value <= minimax
    assert abs(solve_matrix_game_float(A) - float(sol.value)) < 1e-9


# ----------------------------------------------------------------------------------------------
# the oracle on random games
# ----------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, database=None)
@given(random_games())
def test_exact_and_float_values_agree(g):
    sol = brute_force_solve(g)
    assert abs(sol.value_float - float(sol.value)) <= 1e-9 * max(1.0, abs(float(sol.value)))
    assert brute_force_value_exact(g) == sol.value
    assert abs(brute_force_value(g) - sol.value_float) <= 1e-9
    assert solve_matrix_game_exact(sol.matrix, method="simplex").value == sol.value


@FEW
@given(random_games(max_pure_strategies=12))
def test_reduced_strategies_partition_the_full_ones(g):
    # every full pure strategy agrees with exactly one reduced strategy, which has the same payoffs
    A, R0, R1 = pure_strategy_payoff_matrix(g)
    B, F0, F1 = pure_strategy_payoff_matrix(g, reduced=False, max_pairs=200)

    def restrict(full, reduced):
        hits = [i for i, r in enumerate(reduced) if all(full[k] == a for k, a in r.items())]
        assert len(hits) == 1, (full, hits)
        return hits[0]

    rows = [restrict(s, R0) for s in F0]
    cols = [restrict(s, R1) for s in F1]
    assert set(rows) == set(range(len(R0))) and set(cols) == set(range(len(R1)))
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            assert B[i][j] == A[r][c]
    assert solve_matrix_game_exact(B).value == solve_matrix_game_exact(A).value


def _behavior_from_mixture(game, player, strategies, mix):
    """Kuhn's theorem: the behaviour strategy realisation-equivalent to a mixture of reduced strategies."""
    w = walk_game(game)
    out = {}
    for key, (_, n) in w.infosets[player].items():
        mass = [sum((m for s, m in zip(strategies, mix) if s.get(key) == a), F(0)) for a in range(n)]
        tot = sum(mass)
        out[key] = tuple(x / tot for x in mass) if tot else (F(1),) + (F(0),) * (n - 1)
    return out


@FEW
@given(random_games())
def test_optimal_mixtures_as_behaviour_strategies_guarantee_the_value(g):
    sol = brute_force_solve(g)
    b0 = _behavior_from_mixture(g, 0, sol.strategies[0], sol.row_mix)
    b1 = _behavior_from_mixture(g, 1, sol.strategies[1], sol.col_mix)
    assert guaranteed_value(g, 0, b0) == sol.value == guaranteed_value(g, 1, b1)
    assert behavior_payoff(g, b0, b1) == sol.value
    # pure strategies are behaviour strategies too: the matrix entries are recovered by the walk
    assert behavior_payoff(g, sol.strategies[0][0], sol.strategies[1][-1]) == sol.matrix[0][-1]


def test_size_guard():
    with pytest.raises(OracleTooLarge):
        pure_strategy_payoff_matrix(kuhn(), max_pairs=1000)  # 27 x 64 = 1728
    with pytest.raises(OracleTooLarge):
        pure_strategies(kuhn(), 1, max_count=63)
    from seqform.games import leduc

    with pytest.raises(OracleTooLarge):
        brute_force_value(leduc())
    with pytest.raises(OracleTooLarge):
        walk_game(leduc(), max_nodes=1000)


def test_oracle_refuses_general_sum():
    g = TreeGame((DECISION, 0, "x", ("L", "R"), ((LEAF, (1, -1)), (LEAF, (1, 1)))))
    with pytest.raises(OracleError, match="zero-sum"):
        brute_force_value(g)
    # constant-sum is fine: value of u0
    g = TreeGame((DECISION, 0, "x", ("L", "R"), ((LEAF, (1, 2)), (LEAF, (2, 1)))))
    assert brute_force_value_exact(g) == 2


@FEW
@given(imperfect_recall_games())
def test_oracle_refuses_imperfect_recall(g):
    with pytest.raises(OracleError, match="imperfect recall"):
        brute_force_value(g)


@FEW
@given(bad_chance_games())
def test_oracle_refuses_bad_chance(g):
    with pytest.raises(OracleError, match="chance node"):
        brute_force_value(g)


# ----------------------------------------------------------------------------------------------
# the generators
# ----------------------------------------------------------------------------------------------


def test_tree_game_repr_round_trips():
    g = simple_poker(F(1, 3))
    h = eval(repr(g), {"TreeGame": TreeGame, "Fraction": Fraction})
    assert h.tree == g.tree and h.name == g.name
    assert "P0 infoset 'high'" in g.pretty()


# no shrinking: finding one example is the point, and shrinking would take minutes
_FIND = settings(max_examples=400, deadline=None, database=None, phases=[Phase.generate])


@pytest.mark.parametrize(
    "feature",
    [
        lambda a: a["spans_chance"],
        lambda a: a["spans_opponent"],
        lambda a: a["spans_chance"] and a["spans_opponent"] and min(a["num_infosets"]) >= 2,
        lambda a: a["zero_prob_outcome"] and a["multi_node_infosets"] >= 2,
        lambda a: a["rational_payoff"] and a["single_action"],
        lambda a: a["depth"] >= 4 and a["nodes"] >= 30,
    ],
    ids=["spans_chance", "spans_opponent", "both_spans", "zero_prob", "rational_single", "big"],
)
def test_random_games_produce(feature):
    find(random_games(), lambda g: feature(g.info), settings=_FIND)


def test_random_games_produce_shared_keys_and_sizable_normal_forms():
    # int keys are used by both players: compile_tree must keep the key spaces apart
    find(random_games(key_style="int"), lambda g: min(g.info["num_infosets"]) >= 2, settings=_FIND)
    find(random_games(), lambda g: min(num_pure_strategies(g)) >= 5, settings=_FIND)


@FEW
@given(random_games())
def test_random_games_compile_with_the_generators_infosets(g):
    t = compile_tree(g)
    a = g.info
    assert t.num_infosets == a["num_infosets"]
    assert t.num_nodes == a["nodes"] and t.num_terminals == a["leaves"]
    for p in (0, 1):
        assert t.num_sequences[p] == 1 + sum(len(r["labels"]) for (q, _), r in a["infosets"].items() if q == p)
    assert t.constant_sum == 0


# ----------------------------------------------------------------------------------------------
# seqform.model.tree rejects invalid games, naming where
# ----------------------------------------------------------------------------------------------


def _names(msg: str, text: str) -> bool:
    """``text`` occurs in ``msg`` as a whole token (not inside a longer word or path)."""
    return re.search(r"(?<![\w/'\"])" + re.escape(text) + r"(?![\w/'\"])", msg) is not None


@settings(max_examples=60, deadline=None, database=None)
@given(imperfect_recall_games())
def test_compile_tree_rejects_imperfect_recall(g):
    with pytest.raises(ImperfectRecallError) as e:
        compile_tree(g)
    msg = str(e.value)
    p, key = g.info["bad_infoset"]
    assert _names(msg, repr(key)), (msg, key)
    assert f"player {p}" in msg
    # the first node of the information set (depth-first) and one that disagrees with it
    assert _names(msg, g.info["bad_paths"][0]), (msg, g.info["bad_paths"])
    assert sum(_names(msg, q) for q in set(g.info["bad_paths"])) >= 2, (msg, g.info["bad_paths"])


@settings(max_examples=60, deadline=None, database=None)
@given(bad_chance_games())
def test_compile_tree_rejects_bad_chance(g):
    with pytest.raises(ChanceProbabilityError) as e:
        compile_tree(g)
    msg = str(e.value)
    assert _names(msg, g.info["bad_path"]), (msg, g.info["bad_path"])
    assert "chance node" in msg

"""Independent oracles for GameShrink (``lossless.gameshrink``).

GameShrink decides ordered-game isomorphism by comparing canonical multisets (``compact`` and
``multiset_classes``). Nothing here uses those: the merge condition of the module docstring is
re-tested literally, pair of observations by pair of observations, as the existence of a perfect
matching (networkx Hopcroft-Karp) in the bipartite graph of "interchangeable" worlds; the world
outcomes and probabilities used by the oracle are recomputed from ``OrderedSignalGame.outcome``
and the deck weights (the scalar game interface, not the vectorised signal tree) and
cross-checked against the signal tree; suit symmetry is brute-forced over suit permutations.

No ``__init__.py`` in this directory: it would shadow the ``lossless`` package.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from lossless import (
    DECIDE,
    NEXT,
    SHOWDOWN,
    BettingBuilder,
    OrderedSignalGame,
    four_card,
    gameshrink,
    leduc_os,
    limit_betting,
    outcomes,
    rhode_island,
    split_pot,
)

MAX_PAIRS = 300  # per (player, level): half same-class, half different-class when sampling
SEED = 20070


# --- small games built here --------------------------------------------------------------------


def _leduc_rank(cards: tuple) -> tuple:
    """Leduc with two suits, written out again: a pair beats no pair, then ranks from the top."""
    rs = sorted((c // 2 for c in cards), reverse=True)
    return (int(rs[0] == rs[1]),) + tuple(rs)


def weighted_leduc() -> OrderedSignalGame:
    """Leduc's deal and betting over a 3 x 2 deck whose cards are drawn with unequal weights:
    the two queens weigh 1, the kings 1 and 2, the aces 3 (so swapping the suits is a symmetry of
    the queens and of the aces but not of the kings)."""
    deck = ["Qc", "Qd", "Kc", "Kd", "Ac", "Ad"]
    return OrderedSignalGame(
        deck,
        private=[(1, 1), (0, 0)],
        public=[0, 1],
        betting=limit_betting(2, (2, 4), max_bets=2, ante=1),
        rank=_leduc_rank,
        weights=[1, 1, 1, 2, 3, 3],
        name="weighted_leduc",
    )


def three_player() -> OrderedSignalGame:
    """Three players, one private card each, then a public card, over a 3 x 2 deck (Leduc's hand
    order), with a one-action betting form per round: a game where "every other player" means two
    players and outcomes are weak orders of three."""
    b = BettingBuilder(3, 2)
    v0 = b.add(DECIDE, 0, "", player=0, actions=["k"])
    nx_ = b.add(NEXT, 0, "k")
    b.link(v0, nx_)
    v1 = b.add(DECIDE, 1, "k/", player=1, actions=["k"])
    b.link(nx_, v1)
    s = b.add(SHOWDOWN, 1, "k/k", payoff={o: split_pot((1, 1, 1), o) for o in outcomes(3)})
    b.link(v1, s)
    return OrderedSignalGame(
        ["Qc", "Qd", "Kc", "Kd", "Ac", "Ad"],
        private=[(1, 1, 1), (0, 0, 0)],
        public=[0, 1],
        betting=b.build(),
        rank=_leduc_rank,
        name="three_player",
    )


# --- the oracle's own view of the worlds -------------------------------------------------------


class Worlds:
    """What the oracle needs about a game's complete deals, recomputed (and cross-checked against
    the signal tree ``st``): per world its exact probability and its outcome (from the scalar game
    interface), per (player, level) the worlds of each observation and each observation's cards."""

    def __init__(self, game: OrderedSignalGame, st):
        self.game, self.st = game, st
        rows = [tuple(int(c) for c in r) for r in st.worlds.tolist()]
        self.rows = rows
        d, nl = len(game.deck), len(game.levels)
        # the deals are exactly every sequence of distinct cards
        assert sorted(rows) == list(itertools.permutations(range(d), nl))
        # outcome, from OrderedSignalGame.outcome (game.rank on complete signal sets)
        self.outcome = [game.outcome(r) for r in rows]
        assert self.outcome == [st.outcomes[int(t)] for t in st.outcome]
        # probability, from the deck weights (uniform: all equal)
        if game.weights is None:
            self.prob = [Fraction(1, len(rows))] * len(rows)
            assert st.prob is None
        else:
            self.prob = []
            for r in rows:
                p, left = Fraction(1), sum(game.weights)
                for c in r:
                    p *= game.weights[c] / left
                    left -= game.weights[c]
                self.prob.append(p)
            assert list(st.prob) == self.prob
        assert sum(self.prob) == 1
        # observations: the worlds and cards of each observation id
        self.members, self.cards = [], []
        for i in range(game.num_players):
            mem_i, cards_i = [], []
            for j in range(len(game.observed[i])):
                ids = st.obs[i][j].tolist()
                mem: dict = {}
                cards: dict = {}
                for w, o in enumerate(ids):
                    mem.setdefault(o, []).append(w)
                    seen = tuple(rows[w][k] for k in game.observed[i][: j + 1])
                    assert cards.setdefault(o, seen) == seen, "one observation id, two card tuples"
                assert len(set(cards.values())) == len(cards) == st.num_obs[i][j], "one card tuple, two ids"
                mem_i.append({o: np.array(ws) for o, ws in mem.items()})
                cards_i.append(cards)
            self.members.append(mem_i)
            self.cards.append(cards_i)

    def parent(self, i: int, j: int, o: int) -> int:
        """Player i's observation id at level j - 1 under observation o at level j."""
        return int(self.st.obs[i][j - 1][self.members[i][j][o][0]])


def world_classes(st, classes) -> list:
    """(W,) class of every player at every observed level, world by world, for a partition
    ``classes[i][j]`` of the observation ids."""
    return [[np.asarray(c)[st.obs[i][j]] for j, c in enumerate(per)] for i, per in enumerate(classes)]


def world_keys(wd: Worlds, wcls: list, i: int, j: int, o: int) -> list:
    """For each world consistent with player i's observation o (level j), the data an edge must
    preserve: P(w | o), the outcome, every other player's class at each of its observed levels,
    player i's own classes at its levels after j."""
    ws = wd.members[i][j][o]
    total = sum(wd.prob[w] for w in ws)
    keys = []
    for w in ws.tolist():
        others = tuple(int(wcls[k][l][w]) for k in range(len(wcls)) if k != i for l in range(len(wcls[k])))
        later = tuple(int(wcls[i][l][w]) for l in range(j + 1, len(wcls[i])))
        keys.append((wd.prob[w] / total, wd.outcome[w], others, later))
    return keys


def perfect_matching(keys_a: list, keys_b: list) -> bool:
    """Is there a perfect matching between two lists of worlds, an edge joining worlds with equal
    keys? Decided by Hopcroft-Karp on the explicit bipartite graph."""
    if len(keys_a) != len(keys_b):
        return False
    g = nx.Graph()
    top = [("a", x) for x in range(len(keys_a))]
    g.add_nodes_from(top, bipartite=0)
    g.add_nodes_from((("b", y) for y in range(len(keys_b))), bipartite=1)
    for x, ka in enumerate(keys_a):
        for y, kb in enumerate(keys_b):
            if ka == kb:
                g.add_edge(("a", x), ("b", y))
    m = nx.bipartite.hopcroft_karp_matching(g, top_nodes=top)
    return len(m) == 2 * len(keys_a)


def candidate_pairs(wd: Worlds, classes, i: int, j: int) -> list:
    """Every unordered pair of player i's observations at level j whose parents share a class."""
    n = wd.st.num_obs[i][j]
    if j == 0:
        pc = [0] * n
    else:
        pc = [int(classes[i][j - 1][wd.parent(i, j, o)]) for o in range(n)]
    return [(a, b) for a in range(n) for b in range(a + 1, n) if pc[a] == pc[b]]


def sample_pairs(pairs: list, classes_ij, rng: random.Random) -> list:
    """At most MAX_PAIRS pairs, keeping both same-class and different-class pairs."""
    if len(pairs) <= MAX_PAIRS:
        return pairs
    same = [p for p in pairs if classes_ij[p[0]] == classes_ij[p[1]]]
    diff = [p for p in pairs if classes_ij[p[0]] != classes_ij[p[1]]]
    ks = min(len(same), MAX_PAIRS // 2)
    kd = min(len(diff), MAX_PAIRS - ks)
    ks = min(len(same), MAX_PAIRS - kd)
    return rng.sample(same, ks) + rng.sample(diff, kd)


def matching_oracle(wd: Worlds, classes, seed: int = SEED) -> list:
    """Test the merge condition for (a sample of) all candidate pairs of every player and level,
    with ``classes`` as the partition. Returns (i, j, o, o', same class?, perfect matching?)."""
    rng = random.Random(seed)
    wcls = world_classes(wd.st, classes)
    out = []
    for i in range(wd.game.num_players):
        for j in range(len(wd.game.observed[i])):
            cij = np.asarray(classes[i][j])
            keys: dict = {}
            for a, b in sample_pairs(candidate_pairs(wd, classes, i, j), cij, rng):
                for o in (a, b):
                    if o not in keys:
                        keys[o] = world_keys(wd, wcls, i, j, o)
                out.append((i, j, a, b, bool(cij[a] == cij[b]), perfect_matching(keys[a], keys[b])))
    return out


def describe(wd: Worlds, r: tuple) -> str:
    i, j, a, b, same, matched = r
    deck = wd.game.deck
    ca = [deck[c] for c in wd.cards[i][j][a]]
    cb = [deck[c] for c in wd.cards[i][j][b]]
    return f"player {i} level {j}: {ca} vs {cb}: same class={same}, perfect matching={matched}"


def same_partition(a, b) -> bool:
    """Are two labelings the same partition (equal up to renaming the classes)?"""
    pairs = set(zip(np.asarray(a).tolist(), np.asarray(b).tolist()))
    return len(pairs) == len(set(np.asarray(a).tolist())) == len(set(np.asarray(b).tolist()))


SMALL_GAMES = [
    four_card,
    leduc_os,
    lambda: rhode_island(2, 2),
    lambda: rhode_island(3, 2),
    pytest.param(lambda: rhode_island(4, 2), marks=pytest.mark.slow),  # (2,2) and (3,2) in the default tier
    weighted_leduc,
    three_player,
]
SMALL_IDS = [
    "four_card",
    "leduc_os",
    "rhode_island(2,2)",
    "rhode_island(3,2)",
    "rhode_island(4,2)",
    "weighted_leduc",
    "three_player",
]


# --- 1. the merge condition, by bipartite matching ----------------------------------------------


@pytest.mark.parametrize("make", SMALL_GAMES, ids=SMALL_IDS)
def test_classes_match_bipartite_matching_oracle(make):
    """For every player i, observed level j and (sampled) pair of observations with parents in one
    class: a perfect matching of their worlds preserving P(w|o), the outcome, the other players'
    classes at all their levels and i's own later classes exists iff GameShrink put the pair in one
    class. Independent: explicit Hopcroft-Karp matchings on worlds (no multisets, no hashing), with
    outcomes and probabilities recomputed from the scalar game interface and the deck weights.
    (A check of the partition against itself: merged pairs are isomorphic and classes sharing a
    parent class are pairwise non-isomorphic. Coarsest-ness proper is test 4.)"""
    game = make()
    ab = gameshrink(game)
    wd = Worlds(game, ab.signals)
    results = matching_oracle(wd, ab.classes)
    bad = [describe(wd, r) for r in results if r[4] != r[5]]
    assert not bad, f"{game.name}: {len(bad)} of {len(results)} pairs disagree, e.g.\n" + "\n".join(bad[:10])
    assert any(r[4] for r in results) and any(not r[4] for r in results), "need same- and different-class pairs"


# --- 2. suit symmetry --------------------------------------------------------------------------


def suit_orbit(cards: tuple, suits: int) -> set:
    """Every image of a tuple of cards (rank * suits + suit) under a permutation of the suits."""
    return {tuple((c // suits) * suits + p[c % suits] for c in cards) for p in itertools.permutations(range(suits))}


@pytest.mark.parametrize(
    "make,suits",
    [(lambda: rhode_island(3, 2), 2), (lambda: rhode_island(4, 2), 2), (lambda: leduc_os(3, 2), 2)],
    ids=["rhode_island(3,2)", "rhode_island(4,2)", "leduc_os(3,2)"],
)
def test_suit_isomorphic_observations_are_merged(make, suits):
    """Permuting the suits is a symmetry of these games (hand ranks see suits only through
    equality), so every observation's orbit under suit permutations must lie in one class.
    Independent: the orbits are brute-forced with itertools.permutations on card tuples read from
    the worlds."""
    game = make()
    ab = gameshrink(game)
    wd = Worlds(game, ab.signals)
    for i in range(game.num_players):
        for j in range(len(game.observed[i])):
            id_of = {c: o for o, c in wd.cards[i][j].items()}
            for o, cards in wd.cards[i][j].items():
                orbit = suit_orbit(cards, suits)
                assert orbit <= id_of.keys()
                got = {int(ab.classes[i][j][id_of[c]]) for c in orbit}
                assert len(got) == 1, f"{game.name} player {i} level {j}: orbit of {cards} spans classes {got}"
                assert ab.class_of(i, cards) == int(ab.classes[i][j][o])


def test_leduc_public_level_classes_are_rank_pairs():
    """Leduc (3 ranks x 2 suits): after the public card, a player's class is exactly
    (rank of its private card, rank of the public card): 9 classes, for both players."""
    game = leduc_os(3, 2)
    ab = gameshrink(game)
    wd = Worlds(game, ab.signals)
    for i in range(2):
        cards = wd.cards[i][1]
        ids = sorted(cards)
        rank_pair = [3 * (cards[o][0] // 2) + cards[o][1] // 2 for o in ids]
        assert len(set(rank_pair)) == 9 and ab.num_classes[i][1] == 9
        assert same_partition(rank_pair, ab.classes[i][1][ids])


# --- 3. the own-view abstraction is not lossless -----------------------------------------------


def test_own_view_merges_what_the_condition_forbids():
    """``respect_opponents=False`` on Leduc merges more (7 vs 9 classes after the public card), and
    the matching oracle of test 1, run with the own-view classes (all pairs), finds a pair in one
    own-view class with no perfect matching: the own-view merge breaks the lossless condition."""
    game = leduc_os()
    lossless = gameshrink(game)
    own = gameshrink(game, respect_opponents=False)
    assert lossless.num_classes == [[3, 9], [3, 9]]
    assert own.num_classes == [[3, 7], [3, 7]]
    # the own-view partition is coarser: every lossless class lies in one own-view class
    for i in range(2):
        for j in range(2):
            pairs = set(zip(lossless.classes[i][j].tolist(), own.classes[i][j].tolist()))
            assert len(pairs) == lossless.num_classes[i][j]
    wd = Worlds(game, own.signals)
    results = matching_oracle(wd, own.classes)
    assert len(results) == sum(len(candidate_pairs(wd, own.classes, i, j)) for i in range(2) for j in range(2))
    violations = [r for r in results if r[4] and not r[5]]
    assert violations, "the own-view merge unexpectedly satisfies the lossless condition"
    # the violations are at the public-card level, where the own view merged more
    assert {r[1] for r in violations} == {1}


# --- 4. coarsest: an independent greatest fixed point -------------------------------------------


def oracle_partition(wd: Worlds, max_passes: int = 50) -> list:
    """The coarsest partition satisfying the merge condition, computed independently: start with
    one class per (player, level) and refine (all levels at once, from the previous partition) by
    (parent class, class, isomorphism), where isomorphism is a perfect matching against each
    block's representative, until nothing splits. The refinement is monotone and starts at the top,
    so it stops at the greatest fixed point."""
    game, st = wd.game, wd.st
    part = [
        [np.zeros(st.num_obs[i][j], dtype=np.int64) for j in range(len(game.observed[i]))]
        for i in range(game.num_players)
    ]
    for _ in range(max_passes):
        wcls = world_classes(st, part)
        new = []
        for i in range(game.num_players):
            per = []
            for j in range(len(game.observed[i])):
                n = st.num_obs[i][j]
                lab = np.empty(n, dtype=np.int64)
                blocks: dict = {}  # (parent class, class) -> [(representative keys, label)]
                nxt = 0
                for o in range(n):
                    pc = int(part[i][j - 1][wd.parent(i, j, o)]) if j else 0
                    reps = blocks.setdefault((pc, int(part[i][j][o])), [])
                    k = world_keys(wd, wcls, i, j, o)
                    for rk, rl in reps:
                        if perfect_matching(k, rk):
                            lab[o] = rl
                            break
                    else:
                        reps.append((k, nxt))
                        lab[o] = nxt
                        nxt += 1
                per.append(lab)
            new.append(per)
        if all(int(a.max()) == int(b.max()) for pa, pb in zip(part, new) for a, b in zip(pa, pb)):
            return new
        part = new
    raise AssertionError("oracle refinement did not converge")


@pytest.mark.parametrize("make", SMALL_GAMES, ids=SMALL_IDS)
def test_classes_are_the_coarsest_by_independent_refinement(make):
    """GameShrink's classes equal (up to renaming) the greatest fixed point of the merge condition
    computed by naive partition refinement with Hopcroft-Karp matchings. Test 1 alone cannot show
    coarsest-ness (a finer self-consistent partition would also pass it); this does."""
    game = make()
    ab = gameshrink(game)
    wd = Worlds(game, ab.signals)
    mine = oracle_partition(wd)
    for i in range(game.num_players):
        for j in range(len(game.observed[i])):
            assert same_partition(mine[i][j], ab.classes[i][j]), (
                f"{game.name} player {i} level {j}: oracle {int(mine[i][j].max()) + 1} classes, "
                f"gameshrink {ab.num_classes[i][j]}"
            )

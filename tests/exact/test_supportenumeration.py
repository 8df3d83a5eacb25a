"""Support enumeration for exact equilibria of games of any number of players
(``seqform.exact.supportenumeration``).

One player's supports are counted against a brute force over every subset of its sequences (the
definition checked literally); the joint order is checked for its properties (pure profiles
first, totals nondecreasing, balanced first within a total). Equilibria are checked independently:
by ``seqform.evaluate`` in exact arithmetic (NashConv 0), by ``seqform.exploitability`` in floats
and by the brute-force oracle ``tests/oracle/brute_force_nplayer.py`` (pure strategies
enumerated). Gambit's ``g2.efg`` ("van der Laan et al. Three person 3 x 3 x 3 example with no pure
Nash") has one equilibrium, (3/7, 4/7, 0), (0, 1, 0), (0, 2/3, 1/3); Nau, Gomez Canovas & Hansen's
(2004) section 5 game (pygambit's catalogue) has a continuum of mixed equilibria and three pure
ones. Conditional dominance (Porter, Nudelman & Shoham 2008) is checked never to reject a support
on which Gauss-Newton finds an equilibrium with exactly that support.

References:

- Nau, Gomez Canovas & Hansen (2004), "On the geometry of Nash equilibria and correlated equilibria", International
  Journal of Game Theory.
- Porter, Nudelman & Shoham (2008), "Simple search methods for finding a Nash equilibrium", Games and Economic
  Behavior.
"""

from __future__ import annotations

import importlib.util
import math
import sys
import time
from fractions import Fraction as F
from itertools import islice
from pathlib import Path

import numpy as np
import pytest

import seqform
from seqform.exact.nplayerpolish import SupportSystem
from seqform.exact.supportenumeration import (
    FLOAT_GAIN_TOLERANCE,
    _dominated,
    _float_gain,
    _solutions,
    enumerate_equilibrium,
    joint_supports,
    max_support_size,
    player_supports,
    size_profiles,
    support_size,
)
from tests.oracle.brute_force_nplayer import brute_force_evaluate

ROOT = Path(__file__).resolve().parents[2]
GAMBIT = ROOT / "bench" / "gambit_games"
BENCH = ROOT / "bench" / "bench_nplayer_gambit.py"


def _bench_module():
    """bench/bench_nplayer_gambit.py: its random N-player game generator and its game loader."""
    spec = importlib.util.spec_from_file_location("bench_nplayer_gambit", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(BENCH.parent))  # its own imports (isolated) sit beside it
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(BENCH.parent))
    return mod


def _game(name: str):
    if name.startswith("gambit/"):
        return seqform.read_efg(str(GAMBIT / f"{name[len('gambit/') :]}.efg"))
    if name.startswith("catalog/"):
        pytest.importorskip("pygambit")
    return _bench_module().load_game(name)


def _by_key(tree, profile) -> list:
    """The profile as the oracle takes it: per player, {information-set key: probabilities}."""
    out: list = [dict() for _ in range(tree.num_players)]
    for i in range(sum(tree.num_infosets)):
        out[int(tree.infoset_player[i])][tree.infoset_key[i]] = list(profile.action_probabilities(tree, i))
    return out


def _brute_force_supports(tree, p: int) -> set:
    """Every subset of player p's sequences that is a support, by the definition: the empty
    sequence in, closed under prefixes, a played action at every information set whose parent
    sequence is in, nothing below an information set whose parent sequence is out."""
    n = tree.num_sequences[p]
    # a sequence's parent sequence is its information set's: prefix-closed is "nothing below an
    # information set whose parent sequence is out"
    parent = tree.seq_parent[p].tolist()
    sets = [
        (
            int(tree.infoset_parent_seq[i]),
            range(int(tree.infoset_first_seq[i]), int(tree.infoset_first_seq[i] + tree.infoset_num_actions[i])),
        )
        for i in tree.player_infosets[p].tolist()
    ]
    out = set()
    for bits in range(2 ** (n - 1)):
        mask = (True,) + tuple(bool(bits >> (s - 1) & 1) for s in range(1, n))
        if any(mask[s] and not mask[parent[s]] for s in range(1, n)):
            continue
        if all(any(mask[s] for s in acts) for par, acts in sets if mask[par]):
            out.add(mask)
    return out


def _brute_size(tree, p: int, mask: tuple) -> int:
    """Sequences played minus information sets reached."""
    reached = sum(1 for i in tree.player_infosets[p].tolist() if mask[int(tree.infoset_parent_seq[i])])
    return sum(mask) - reached


SMALL = ["selten_horse", "kuhn", "random/2/7", "random/4/12"]


@pytest.mark.parametrize("name", SMALL)
def test_one_players_supports_are_every_subset_that_qualifies(name):
    tree = seqform.compile_tree(_game(name))
    for p in range(tree.num_players):
        brute = _brute_force_supports(tree, p)
        listed = [tuple(bool(x) for x in m) for m in player_supports(tree, p)]
        assert len(listed) == len(set(listed)) == len(brute), (name, p)
        assert set(listed) == brute
        sizes = {m: _brute_size(tree, p, m) for m in brute}
        assert max(sizes.values()) == max_support_size(tree, p)
        for k in range(1, max_support_size(tree, p) + 1):
            of_size = {tuple(bool(x) for x in m) for m in player_supports(tree, p, k)}
            assert of_size == {m for m in brute if sizes[m] == k}, (name, p, k)
            assert all(support_size(tree, p, np.array(m)) == k for m in of_size)
        # the pure plans inside a support: the size-1 supports it contains
        for m in list(brute)[:: max(1, len(brute) // 20)]:
            inside = {tuple(bool(x) for x in q) for q in player_supports(tree, p, 1, np.array(m))}
            assert inside == {q for q in brute if sizes[q] == 1 and all(a <= b for a, b in zip(q, m))}


def test_joint_order_pure_first_smallest_total_then_balanced():
    tree = seqform.compile_tree(seqform.games.load("selten_horse"))
    tops = [max_support_size(tree, p) for p in range(tree.num_players)]
    profiles = list(size_profiles(tree))
    assert len(profiles) == len(set(profiles)) == math.prod(tops)
    assert profiles[0] == (1,) * tree.num_players
    keys = [(sum(x), max(x) - min(x)) for x in profiles]
    assert keys == sorted(keys)
    joint = list(joint_supports(tree))
    counts = [len(_brute_force_supports(tree, p)) for p in range(tree.num_players)]
    assert len(joint) == math.prod(counts)
    assert len({tuple(tuple(m) for m in s) for _, s in joint}) == len(joint)
    pure = math.prod(sum(1 for m in _brute_force_supports(tree, p) if _brute_size(tree, p, m) == 1) for p in range(3))
    assert all(max(sizes) == 1 for sizes, _ in joint[:pure]) and max(joint[pure][0]) > 1
    assert all(tuple(support_size(tree, p, m) for p, m in enumerate(s)) == sizes for sizes, s in joint)


def _check_equilibrium(game, tree, res) -> None:
    assert res.status == "certified", res.reason
    prof = res.profile
    assert all(isinstance(v, F) for b in prof.behaviour for v in b)
    assert seqform.evaluate(tree, prof, exact=True).nash_conv == 0
    floats = seqform.Profile([np.array([float(v) for v in b]) for b in prof.behaviour])
    assert seqform.exploitability(tree, floats).nash_conv <= 1e-12
    assert brute_force_evaluate(game, _by_key(tree, prof)).nash_conv == 0


def test_g2_unique_equilibrium_found():
    game = seqform.read_efg(str(GAMBIT / "g2.efg"))
    tree = seqform.compile_tree(game)
    res = enumerate_equilibrium(tree)
    _check_equilibrium(game, tree, res)
    known = [(F(3, 7), F(4, 7), F(0)), (F(0), F(1), F(0)), (F(0), F(2, 3), F(1, 3))]
    for p in range(3):
        (i,) = tree.player_infosets[p].tolist()
        assert tuple(res.profile.action_probabilities(tree, i)) == known[p]
    # another seed's random starts: the same (unique) equilibrium; the same seed: the same run
    again = enumerate_equilibrium(tree, seed=1)
    assert again.status == "certified" and again.profile.behaviour == res.profile.behaviour
    assert enumerate_equilibrium(tree).reason == res.reason


def test_nau2004_sec5_certified():
    game = _game("catalog/journals/ijgt/nau2004/sec5")
    tree = seqform.compile_tree(game)
    res = enumerate_equilibrium(tree)
    _check_equilibrium(game, tree, res)


@pytest.mark.parametrize("name", ["gambit/g1", "gambit/g3"])
def test_mixed_equilibria_certified(name):
    game = _game(name)
    tree = seqform.compile_tree(game)
    res = enumerate_equilibrium(tree)
    _check_equilibrium(game, tree, res)
    assert any(0 < v < 1 for b in res.profile.behaviour for v in b)  # these games have no pure equilibrium


def _dominance_never_rejects_an_equilibrium(name: str, limit: int | None = None) -> None:
    """Every joint support (the first ``limit``) on which Gauss-Newton finds a float equilibrium
    playing every sequence of the support with positive weight passes conditional dominance; some
    supports are rejected."""
    tree = seqform.compile_tree(_game(name))
    span = float(tree.payoff.max() - tree.payoff.min())
    tol = FLOAT_GAIN_TOLERANCE * max(1.0, span)
    rejected = with_equilibrium = 0
    for index, (sizes, support) in enumerate(islice(joint_supports(tree), limit)):
        if max(sizes) == 1:
            continue
        dominated = any(_dominated(tree, support, p, 1e-12 * max(1.0, span)) for p in range(tree.num_players))
        rejected += dominated
        system = SupportSystem(tree, support)
        for z in _solutions(system, 4, np.random.default_rng([0, index]), math.inf):
            plans = system.plans(z)
            if all((x[m] > 1e-7).all() for x, m in zip(plans, support)) and _float_gain(tree, plans) <= tol:
                with_equilibrium += 1
                assert not dominated, (name, sizes, [np.flatnonzero(m).tolist() for m in support])
    assert rejected and with_equilibrium


@pytest.mark.parametrize("name", ["gambit/g1", "catalog/journals/ijgt/nau2004/sec4"])
def test_conditional_dominance_keeps_every_equilibrium_support(name):
    _dominance_never_rejects_an_equilibrium(name)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, limit",
    [("gambit/g2", None), ("gambit/g3", None), ("catalog/journals/ijgt/nau2004/sec6", None), ("random/2/7", 800)],
)
def test_conditional_dominance_keeps_every_equilibrium_support_larger(name, limit):
    _dominance_never_rejects_an_equilibrium(name, limit)


@pytest.mark.runtime
def test_time_limit_stops_promptly():
    tree = seqform.compile_tree(seqform.games.load("kuhn(players=3)"))  # no pure equilibrium among its first profiles
    res = enumerate_equilibrium(tree, time_limit=0.0)
    assert res.status == "time_limit" and res.profile is None
    assert "joint supports tried: 0 " in res.reason
    t0 = time.monotonic()
    res = enumerate_equilibrium(tree, time_limit=0.5)
    assert res.status == "time_limit" and time.monotonic() - t0 < 5
    assert res.reason.startswith("time limit of 0.5 s reached")


def test_max_supports_bound():
    tree = seqform.compile_tree(seqform.games.load("kuhn(players=3)"))
    res = enumerate_equilibrium(tree, max_supports=25)
    assert res.status == "failed" and res.profile is None
    assert "within 25 joint supports: joint supports tried: 25 (25 pure profiles" in res.reason


def test_every_bench_game_certified():
    """Every game of bench/gambit_games and the catalogue's games of three or more players."""
    pytest.importorskip("pygambit")
    names = _bench_module().catalog_games() + [f"gambit/{p.stem}" for p in sorted(GAMBIT.glob("*.efg"))]
    for name in names:
        game = _game(name)
        tree = seqform.compile_tree(game)
        res = enumerate_equilibrium(tree)
        if res.profile is None and getattr(res, "algebraic", None) is not None:
            continue  # an irrational equilibrium (nau2004 sec4), certified in its number field
        _check_equilibrium(game, tree, res)

"""Deep trees in linear time: every per-level pass over a compiled tree costs O(size), not
O(size x depth). Guarded by counting the elements the level schedule reads, never by a clock; the
values are checked against backward induction written here, independently of seqform.
"""

import random
import time
from fractions import Fraction

import numpy as np
import pytest

import seqform
from seqform.io.efgread import parse_efg


def chain_efg(payoffs: list) -> str:
    """A perfect-information chain: at level k, player k % 2 either stops (player 0 gets
    ``payoffs[k]``) or goes on; the last node's 'go' pays ``payoffs[-1]``. 2 * levels + 1 nodes."""
    levels = len(payoffs) - 1
    out = ['EFG 2 R "chain" { "P1" "P2" }', '""']
    for k in range(levels):
        out.append(f'p "" {k % 2 + 1} {k // 2 + 1} "" {{ "stop" "go" }} 0')
        out.append(f't "" {k + 1} "" {{ {payoffs[k]}, {-payoffs[k]} }}')
    out.append(f't "" {levels + 1} "" {{ {payoffs[-1]}, {-payoffs[-1]} }}')
    return "\n".join(out) + "\n"


def backward_induction(payoffs: list) -> Fraction:
    """The chain's value for player 0: the maximiser (player 0) or minimiser picks stop or go."""
    v = Fraction(payoffs[-1])
    for k in range(len(payoffs) - 2, -1, -1):
        v = max(Fraction(payoffs[k]), v) if k % 2 == 0 else min(Fraction(payoffs[k]), v)
    return v


class CountingArray(np.ndarray):
    """An array that adds up the elements every read of it produces (indexing and ufuncs)."""

    touched = 0

    def __getitem__(self, item):
        out = super().__getitem__(item)
        CountingArray.touched += np.size(out)
        return out

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        CountingArray.touched += sum(np.size(x) for x in inputs if isinstance(x, CountingArray))
        plain = [x.view(np.ndarray) if isinstance(x, CountingArray) else x for x in inputs]
        return getattr(ufunc, method)(*plain, **kwargs)


def elements_read_by_levels(levels: int) -> int:
    rng = random.Random(levels)
    tree = seqform.compile_tree(parse_efg(chain_efg([rng.randint(-5, 5) for _ in range(levels + 1)]), "chain.efg"))
    tree.infoset_depth = tree.infoset_depth.view(CountingArray)
    CountingArray.touched = 0
    assert len(tree.levels[0]) == (levels + 1) // 2  # one information set per level of player 0
    return CountingArray.touched


def test_level_schedule_reads_each_depth_once():
    """Doubling the depth doubles the work (the mask-per-depth schedule quadrupled it)."""
    small, large = elements_read_by_levels(2000), elements_read_by_levels(4000)
    assert 1.8 <= large / small <= 2.2, (small, large)


@pytest.mark.runtime
def test_deep_chain_solves_exactly_and_accounts_for_its_time():
    rng = random.Random(1)
    payoffs = [Fraction(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(20_001)]
    game = parse_efg(chain_efg(payoffs), "chain.efg")
    t0 = time.perf_counter()
    sol = seqform.solve(game)
    wall = time.perf_counter() - t0
    assert sol.certified
    assert sol.value == backward_induction(payoffs)
    assert sol.exploitability <= 1e-9
    # "total" is the whole call; the named parts fit inside it
    assert sol.seconds["total"] <= wall
    assert sum(v for k, v in sol.seconds.items() if k != "total") <= sol.seconds["total"]


def reference_levels(tree, p: int) -> list:
    """The level schedule the plain way (a mask per depth: quadratic, but obviously right)."""
    ids, depth, out = tree.player_infosets[p], tree.infoset_depth, []
    if len(ids):
        for d in range(int(depth[ids].max()), -1, -1):
            lvl = ids[depth[ids] == d]
            nact = tree.infoset_num_actions[lvl]
            starts = np.concatenate(([0], np.cumsum(nact)[:-1]))
            seqs = np.repeat(tree.infoset_first_seq[lvl] - starts, nact) + np.arange(nact.sum())
            out.append((lvl, seqs, starts, tree.infoset_parent_seq[lvl]))
    return out


def test_level_schedule_equals_the_plain_one():
    for spec in ["kuhn", "leduc", "liars_dice(1,3)", "goofspiel(4)", "flipit(depth=3)", "leduc(ranks=4,suits=3)"]:
        tree = seqform.compile_tree(seqform.games.load(spec))
        for p in range(tree.num_players):
            got, want = tree.levels[p], reference_levels(tree, p)
            assert len(got) == len(want)
            for a, b in zip(got, want):
                assert all(np.array_equal(x, y) for x, y in zip(a, b)), spec


def test_scalar_and_level_passes_agree():
    """A deep narrow tree takes one scalar loop (``Tree.is_narrow``), a wide one numpy calls per
    level; both compute the same best responses, values and realization plans."""
    from seqform.model.strategy import realization_plan
    from seqform.verify.exploitability import _backward_pass_levels, _backward_pass_scalar

    rng = np.random.default_rng(3)
    chain = seqform.compile_tree(parse_efg(chain_efg([int(v) for v in rng.integers(-5, 6, 301)]), "chain.efg"))
    assert chain.is_narrow(0) and chain.is_narrow(1)
    assert not seqform.compile_tree(seqform.games.load("leduc")).is_narrow(0)
    for tree in [chain] + [
        seqform.compile_tree(seqform.games.load(s))
        for s in ["kuhn", "leduc", "liars_dice(1,3)", "goofspiel(4)", "flipit(depth=3)"]
    ]:
        for p in range(tree.num_players):
            b = rng.random(tree.num_sequences[p])
            b[0] = 1.0
            inf = tree.seq_infoset[p][1:]
            sums = np.zeros(len(tree.infoset_player))
            np.add.at(sums, inf, b[1:])
            b[1:] /= sums[inf]
            g = rng.normal(size=tree.num_sequences[p])
            x_levels = bp_levels = None  # the levels pass (narrow=False, first), compared in the second
            for narrow in (False, True):
                tree.is_narrow = lambda q, narrow=narrow: narrow
                x = realization_plan(tree, p, b)
                bp = (_backward_pass_scalar if narrow else _backward_pass_levels)(tree, p, g, b)
                if narrow:
                    np.testing.assert_allclose(x, x_levels, rtol=1e-12, atol=1e-15)
                    np.testing.assert_allclose(bp.best, bp_levels.best, rtol=1e-12, atol=1e-12)
                    np.testing.assert_allclose(bp.current, bp_levels.current, rtol=1e-12, atol=1e-12)
                    np.testing.assert_array_equal(bp.choice, bp_levels.choice)  # ties have probability 0
                    assert abs(bp.value_best - bp_levels.value_best) <= 1e-12 * max(1.0, abs(bp.value_best))
                    assert abs(bp.value_current - bp_levels.value_current) <= 1e-12 * max(1.0, abs(bp.value_current))
                else:
                    x_levels, bp_levels = x, bp
            del tree.is_narrow
            # the plan is the product of behavioural probabilities along each sequence's path
            par = tree.seq_parent[p]
            want = np.ones(tree.num_sequences[p])
            for s in range(1, len(want)):  # sequences are numbered parents first
                want[s] = want[par[s]] * b[s]
            np.testing.assert_allclose(realization_plan(tree, p, b), want, rtol=1e-12)

"""Strategy validation: every malformed strategy is refused naming the information set."""

from fractions import Fraction

import numpy as np
import pytest

from seqform import StrategyError, compile_tree, exploitability, games, infoset_regret, uniform
from seqform.model.strategy import Profile, validate_behaviour


@pytest.fixture(scope="module")
def leduc():
    return compile_tree(games.leduc())


def test_uniform_is_valid(leduc):
    prof = uniform(leduc)
    for p in range(2):
        validate_behaviour(leduc, p, prof.behaviour[p])


@pytest.mark.parametrize("how", ["sum", "negative", "nan"])
def test_broken_distribution_named(leduc, how):
    prof = uniform(leduc)
    b = prof.behaviour[1]
    i = int(leduc.player_infosets[1][17])
    f = int(leduc.infoset_first_seq[i])
    if how == "sum":
        b[f] += 0.1
    elif how == "negative":
        b[f], b[f + 1] = -0.5, b[f + 1] + b[f] + 0.5
    else:
        b[f] = np.nan
    with pytest.raises(StrategyError) as e:
        exploitability(leduc, prof)
    assert repr(leduc.infoset_name(i)) in str(e.value) and "player 1" in str(e.value)
    with pytest.raises(StrategyError):
        infoset_regret(leduc, prof)


def test_wrong_shapes(leduc):
    with pytest.raises(StrategyError, match="1,093|1093"):
        exploitability(leduc, Profile([np.ones(5), np.ones(1093)]))
    with pytest.raises(StrategyError, match="players"):
        exploitability(leduc, Profile([np.ones(1093)]))


def test_exact_strategies_checked_exactly():
    t = compile_tree(games.kuhn())
    b = [Fraction(1)] + [Fraction(1, 2)] * 12
    validate_behaviour(t, 0, b)
    b[1] = Fraction(1, 2) + Fraction(1, 10**30)
    with pytest.raises(StrategyError):
        validate_behaviour(t, 0, b)

"""Polishing near-equilibria of games of more than two players into exact, certified equilibria
(``seqform.exact.nplayerpolish``): on three-player Kuhn poker from CFR+'s average, the result is
checked by exact evaluation (``seqform.evaluate``), by the brute-force oracle
(``tests/oracle/brute_force_nplayer.py``: pure strategies enumerated) and against Szafron, Gibson &
Sturtevant's (2013) family of equilibria; a game whose equilibrium is irrational and a time limit
stop cleanly with what was found.

The family, as implemented by the University of Alberta's Computer Poker Research Group in the
ACPC dealer's ``kuhn_3p_equilibrium_player`` (github.com/dmorrill10/acpc_dealer, commit b6d3752,
``vendor/project_acpc_server/kuhn_3p_equilibrium_player/src/kuhn_3p_equilibrium_player.c`` and its
header). Players P1, P2, P3 (seqform's 0, 1, 2), cards 1..4 (J, Q, K, A: seqform's T, J, Q, K),
``x_ij`` the probability that the player with card i bets (situation 1) or calls (situations 2-4):
P1's situations are '', 'ppb', 'pbp', 'pbb'; P2's 'p', 'b', 'ppbp', 'ppbb'; P3's 'pp', 'pb', 'bp', 'bb'.
Fixed: P1 bets or calls only a_33 = 1/2 and a_42 = a_43 = a_44 = 1; P2: b_42 = b_43 = b_44 = 1, and 0
at every other constant entry; P3: c_4j = 1, 0 at its other constant entries. Parameters c11, b11,
b21, b23, b32, c33, c34 with: c11 <= 1/2; if c11 = 0, b11 <= b21 <= 1/4; else b11 <= 1/4 and, if
c11 < 1/2, b21 = b11 and (b11 > 1/6 implies c11 <= (2 - b11) / (3 + 4 b11)), and if c11 = 1/2,
b21 <= min(b11, 1/2 - 2 b11); b23 <= max(0, (b11 - b21) / (2 (1 - b21))); with beta = max(b11, b21)
and top = 1/2 + 3/4 (b11 + b21) + beta / 4, b32 <= top and 1/2 - b32 <= c33 <= top - b32; derived:
b33 = 1/2 + (b11 + b21) / 2 + beta / 2 - b23 (1 - b21), b41 = 2 (b11 + b21), c21 = 1/2 - c11; every
probability in [0, 1]. (The paper's own statement could not be consulted; the conditions are the
implementation's.)

References:

- Szafron, Gibson & Sturtevant (2013), "A Parameterized Family of Equilibrium Profiles for Three-Player Kuhn Poker",
  AAMAS.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import seqform
from seqform.exact.nplayerpolish import polish
from seqform.io.efgread import parse_efg
from seqform.iterative.cfr import RegretMinimizer
from seqform.model.strategy import Profile, uniform, validate_behaviour
from tests.oracle.brute_force_nplayer import brute_force_evaluate

SITUATIONS = (("", "ppb", "pbp", "pbb"), ("p", "b", "ppbp", "ppbb"), ("pp", "pb", "bp", "bb"))
FIXED = (
    {(1, 1): 0, (1, 2): 0, (1, 3): 0, (1, 4): 0, (2, 1): 0, (2, 2): 0, (2, 3): 0, (2, 4): 0}
    | {(3, 1): 0, (3, 2): 0, (3, 3): F(1, 2), (3, 4): 0, (4, 1): 0, (4, 2): 1, (4, 3): 1, (4, 4): 1},
    {(1, 2): 0, (1, 3): 0, (1, 4): 0, (2, 2): 0, (2, 4): 0, (3, 1): 0, (3, 4): 0, (4, 2): 1, (4, 3): 1, (4, 4): 1},
    {(1, 2): 0, (1, 3): 0, (1, 4): 0, (2, 2): 0, (2, 3): 0, (2, 4): 0, (3, 1): 0, (3, 2): 0}
    | {(4, j): 1 for j in range(1, 5)},
)


@pytest.fixture(scope="module")
def kuhn3():
    g = seqform.games.load("kuhn(players=3)")
    return g, seqform.compile_tree(g)


def _by_key(tree, profile: Profile) -> list:
    """The profile as the oracle takes it: per player, {information-set key: probabilities}."""
    out: list = [dict() for _ in range(tree.num_players)]
    for i in range(sum(tree.num_infosets)):
        out[int(tree.infoset_player[i])][tree.infoset_key[i]] = list(profile.action_probabilities(tree, i))
    return out


def _bets(tree, profile: Profile) -> list:
    """Per player, {(card 1..4, situation 1..4): probability of betting or calling}."""
    out: list = [dict() for _ in range(3)]
    for i in range(sum(tree.num_infosets)):
        p = int(tree.infoset_player[i])
        card, history = tree.infoset_key[i]
        out[p][card + 1, SITUATIONS[p].index(history) + 1] = F(profile.action_probabilities(tree, i)[1])
    return out


def _family_violations(x: list) -> list:
    """The family's conditions (module docstring) that the bet probabilities ``x`` break."""
    a, b, c = x
    bad = [
        f"P{p + 1} x{i}{j} = {x[p][i, j]} != {v}" for p in range(3) for (i, j), v in FIXED[p].items() if x[p][i, j] != v
    ]
    c11, b11, b21, b23, b32, c33 = c[1, 1], b[1, 1], b[2, 1], b[2, 3], b[3, 2], c[3, 3]
    beta = max(b11, b21)
    top = F(1, 2) + F(3, 4) * (b11 + b21) + beta / 4
    conditions = {
        "c11 <= 1/2": c11 <= F(1, 2),
        "c11 = 0: b11 <= b21 <= 1/4": c11 != 0 or b11 <= b21 <= F(1, 4),
        "c11 > 0: b11 <= 1/4": c11 == 0 or b11 <= F(1, 4),
        "0 < c11 < 1/2: b21 = b11": not 0 < c11 < F(1, 2) or b21 == b11,
        "0 < c11 < 1/2, b11 > 1/6: c11 bound": not (0 < c11 < F(1, 2) and b11 > F(1, 6))
        or c11 <= (2 - b11) / (3 + 4 * b11),
        "c11 = 1/2: b21 <= min(b11, 1/2 - 2 b11)": c11 != F(1, 2) or b21 <= min(b11, F(1, 2) - 2 * b11),
        "b23 bound": b23 <= max(F(0), (b11 - b21) / (2 * (1 - b21))),
        "b32 bound": b32 <= top,
        "c33 range": F(1, 2) - b32 <= c33 <= top - b32,
        "b33": b[3, 3] == F(1, 2) + (b11 + b21) / 2 + beta / 2 - b23 * (1 - b21),
        "b41": b[4, 1] == 2 * (b11 + b21),
        "c21": c[2, 1] == F(1, 2) - c11,
        "probabilities": all(0 <= v <= 1 for xp in x for v in xp.values()),
    }
    return bad + [name for name, ok in conditions.items() if not ok]


def _family_member(tree, c11, b11, b21, b23, b32, c33, c34) -> Profile:
    """The family's profile with these parameters (module docstring), as seqform behaviour."""
    beta = max(b11, b21)
    free = (
        {},
        {(1, 1): b11, (2, 1): b21, (2, 3): b23, (3, 2): b32, (4, 1): 2 * (b11 + b21)}
        | {(3, 3): F(1, 2) + (b11 + b21) / 2 + beta / 2 - b23 * (1 - b21)},
        {(1, 1): c11, (2, 1): F(1, 2) - c11, (3, 3): c33, (3, 4): c34},
    )
    out = [[F(1)] * n for n in tree.num_sequences]
    for i in range(sum(tree.num_infosets)):
        p = int(tree.infoset_player[i])
        card, history = tree.infoset_key[i]
        key = (card + 1, SITUATIONS[p].index(history) + 1)
        bet = F(FIXED[p].get(key, free[p].get(key, -1)))
        f = int(tree.infoset_first_seq[i])
        out[p][f : f + 2] = [1 - bet, bet]
    return Profile(out)


def test_family_transcription_is_an_equilibrium(kuhn3):
    """Members of the family as transcribed, from each sub-family, are exact equilibria of seqform's
    game (which checks the transcription and the game against each other); the checker accepts them
    and rejects a profile outside the family."""
    g, t = kuhn3
    members = [
        (F(0), F(1, 8), F(1, 5), F(0), F(1, 3), F(1, 4), F(1, 2)),
        (F(1, 2), F(1, 4), F(0), F(1, 12), F(1, 3), F(1, 4), F(0)),
        (F(1, 4), F(1, 10), F(1, 10), F(0), F(1, 2), F(1, 10), F(1)),
    ]
    for params in members:
        member = _family_member(t, *params)
        assert seqform.evaluate(t, member, exact=True).nash_conv == 0, params
        assert _family_violations(_bets(t, member)) == []
    off = _family_member(t, F(1, 4), F(1, 10), F(1, 5), F(0), F(1, 2), F(1, 5), F(1))  # b21 != b11
    assert "0 < c11 < 1/2: b21 = b11" in _family_violations(_bets(t, off))


def test_polish_certifies_kuhn3_from_cfr_plus(kuhn3):
    g, t = kuhn3
    solver = RegretMinimizer(t, "cfr+")
    solver.step(500)
    start = solver.average_profile()
    assert 0 < seqform.evaluate(t, start, exact=False).nash_conv < 1e-3
    res = polish(t, start)
    assert res.status == "certified", res.reason
    prof = res.profile
    assert all(type(v) is F for b in prof.behaviour for v in b)
    for p, b in enumerate(prof.behaviour):
        validate_behaviour(t, p, b)  # exact distributions: nonnegative, summing to exactly 1
    assert res.nash_conv == 0
    assert seqform.evaluate(t, prof, exact=True).nash_conv == 0
    assert brute_force_evaluate(g, _by_key(t, prof)).nash_conv == 0
    assert _family_violations(_bets(t, prof)) == []
    assert res.max_denominator == max(v.denominator for b in prof.behaviour for v in b)


def _irrational_game():
    """Three players choose A or B at once; A pays 1 when both others play A, else 0, and B pays 1/2:
    besides pure equilibria, the mixed one plays A with probability 1/sqrt(2) (q r = 1/2 for each)."""
    lines = ['EFG 2 R "irrational" { "1" "2" "3" }', 'p "" 1 1 "" { "A" "B" } 0']
    for a1 in range(2):
        lines.append('p "" 2 1 "" { "A" "B" } 0')
        for a2 in range(2):
            lines.append('p "" 3 1 "" { "A" "B" } 0')
            for a3 in range(2):
                a = (a1, a2, a3)
                u = ["1/2" if a[i] else ("1" if a1 + a2 + a3 == 0 else "0") for i in range(3)]
                lines.append(f't "" {len(lines)} "" {{ {", ".join(u)} }}')
    return parse_efg("\n".join(lines) + "\n")


@pytest.mark.runtime
def test_time_limit_stops_cleanly(kuhn3):
    g, t = kuhn3
    res = polish(t, uniform(t), time_limit=0)
    assert res.status == "time_limit" and res.profile is None
    assert "time limit of 0 s" in res.reason and res.tries == 0


@pytest.mark.slow
def test_polish_certifies_kuhn4():
    """Confirms on four-player Kuhn poker (81 sequences per player) what the default test checks on three."""
    g = seqform.games.load("kuhn(players=4)")
    t = seqform.compile_tree(g)
    solver = RegretMinimizer(t, "cfr+")
    solver.step(1000)
    res = polish(t, solver.average_profile())
    assert res.status == "certified", res.reason
    assert seqform.evaluate(t, res.profile, exact=True).nash_conv == 0
    assert brute_force_evaluate(g, _by_key(t, res.profile)).nash_conv == 0

"""Every built-in game knows its size before it is built (``Game.num_nodes_hint``), so a game too
large for memory is refused at once, not after minutes. The hint is checked against the compiled
tree (an independent count: the real walk); the refusal is checked by counting the game calls it
made, not by a clock."""

import subprocess
import sys

import pytest

import seqform
from seqform.games import load
from seqform.model.limits import TooLargeError

SMALL = {
    "kuhn": ["kuhn"],
    "leduc": ["leduc", "leduc(ranks=4,suits=3)", "leduc(ranks=3,suits=3)"],
    "liars_dice": ["liars_dice(1,3)", "liars_dice(2,2)", "liars_dice(1,5)"],
    "goofspiel": [
        "goofspiel(3)",
        "goofspiel(4)",
        "goofspiel(3,points_order='random')",
        "goofspiel(3,imp_info=False)",
        "goofspiel(3,returns='point_difference')",
    ],
    "flipit": ["flipit(depth=2)", "flipit(depth=3)"],
    "threat_zero_sum": ["threat_zero_sum"],
    "threat_general_sum": ["threat_general_sum"],
    "guess_the_ace": ["guess_the_ace"],
    "selten_horse": ["selten_horse"],
    "selten_fig2": ["selten_fig2"],
    "selten_fig3": ["selten_fig3"],
    "nau2004": ["nau2004"],
    "mertens_voting": ["mertens_voting"],
    "job_market": ["job_market"],
    "indian_poker": ["indian_poker(cards=4)", "indian_poker(cards=5)"],
    "grid_game": ["grid_game(size=2)"],
    "rhode_island": ["rhode_island(ranks=2,suits=2)"],
    "leduc_os": ["leduc_os", "leduc_os(ranks=4,suits=2)"],
    "four_card": ["four_card"],
}


def test_every_registered_game_is_covered():
    assert set(SMALL) == set(seqform.games.available())


@pytest.mark.parametrize("spec", [s for specs in SMALL.values() for s in specs])
def test_hint_is_the_compiled_tree_size(spec):
    game = load(spec)
    hint = game.num_nodes_hint()
    assert hint is not None, f"{spec} does not know its size"
    assert hint == seqform.compile_tree(game).num_nodes


class Counting:
    """Wraps a game and counts its ``next`` calls."""

    def __init__(self, game):
        self.game, self.calls = game, 0
        orig = game.next

        def counted(h, a):
            self.calls += 1
            return orig(h, a)

        game.next = counted


@pytest.mark.parametrize(
    "spec,nodes_at_least",
    [
        ("leduc(ranks=100)", 5 * 10**8),
        ("liars_dice(dice=2,sides=6)", 4 * 10**10),
        ("goofspiel(8)", 3 * 10**9),
        ("liars_dice(dice=3,sides=6)", 10**15),
    ],
)
def test_hopeless_games_are_refused_before_they_are_built(spec, nodes_at_least):
    game = load(spec)
    assert game.num_nodes_hint() >= nodes_at_least
    c = Counting(game)
    with pytest.raises(TooLargeError, match="it has"):
        seqform.compile_tree(game, memory_limit_bytes=8 * 2**30)
    # the memoised count expands each size key once: thousands of calls, against billions of nodes
    assert c.calls < 20_000, c.calls


def test_cli_refuses_a_hopeless_game_in_one_line():
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "info", "leduc(ranks=100)"], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and "over the memory limit" in r.stderr


def test_a_size_key_that_repeats_along_a_path_is_an_error():
    from seqform.errors import GameError

    class Bad(type(load("kuhn"))):
        def size_key(self, h):
            return 0  # every history the same: a cycle, no count

    with pytest.raises(GameError, match="size_key"):
        Bad().num_nodes_hint()

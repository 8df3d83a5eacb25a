"""``seqform.solve`` on games that declare ordered signals: the lossless abstraction's LP, its
strategies certified in the game itself; a wrong declaration falls back to the game's own LP."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest

import seqform
from seqform.games.leduc import Leduc
from seqform.model.signalform import OrderedSignals


@pytest.mark.parametrize("spec", ["leduc", "leduc(ranks=4)", "leduc(ranks=2,suits=3)"])
def test_the_abstractions_strategies_certify_at_the_games_own_lp_value(spec):
    game = seqform.games.load(spec)
    through = seqform.solve(game, abstraction=True)
    own = seqform.solve(game, abstraction=False)
    assert through.method.startswith("abstraction-lp-") and own.method.startswith("lp-")
    assert through.certified and own.certified
    assert through.value == own.value
    assert through.exploitability_bound == 0
    # the certificate is the game's: both exact plans live on its own tree
    assert [len(x) for x in through.exact_realization] == list(through.tree.num_sequences)
    # "information sets 252 / 252": the abstract LP is smaller than the game's
    abstract = int(through.certificate.note.split("information sets ")[1].split(" /")[0].replace(",", ""))
    assert abstract < through.sizes["infosets"][0]


class _Declares(Leduc):
    """Leduc declaring what it is told to: a wrong declaration must never give a wrong answer."""

    def __init__(self, declaration, **kw):
        super().__init__(**kw)
        self._declaration = declaration

    def ordered_signals(self):
        return self._declaration


def _swapped_ranks(key, player):
    # a consistent but wrong view: the lowest and highest ranks trade places, so every lifted
    # strategy plays the other hand's
    cards, history = Leduc.ordered_signals(Leduc()).observation(key, player)
    swap = {0: 4, 1: 5, 4: 0, 5: 1}
    return tuple(swap.get(c, c) for c in cards), history


@pytest.mark.parametrize(
    "declaration",
    [
        OrderedSignals("leduc_os(ranks=3,suits=2)", _swapped_ranks),  # maps, but does not certify
        OrderedSignals("leduc_os(ranks=4,suits=2)", Leduc().ordered_signals().observation),  # another deck
        OrderedSignals("kuhn", Leduc().ordered_signals().observation),  # not a game with ordered signals
        OrderedSignals("no_such_game", Leduc().ordered_signals().observation),
    ],
    ids=["swapped-ranks", "other-deck", "not-ordered-signals", "unknown-game"],
)
def test_a_wrong_declaration_falls_back_to_the_games_own_lp(declaration):
    sol = seqform.solve(_Declares(declaration), abstraction=True)
    own = seqform.solve(seqform.games.load("leduc"), abstraction=False)
    assert sol.method.startswith("lp-") and sol.certified and sol.value == own.value


def test_the_swapped_declaration_is_caught_by_the_certificate_not_by_the_map():
    # the swapped view maps every information set (so the fallback above is the certificate's doing)
    from lossless.abstractsolve import solve_declared

    game = _Declares(OrderedSignals("leduc_os(ranks=3,suits=2)", _swapped_ranks))
    tree = seqform.compile_tree(game)
    assert solve_declared(game, tree) is not None


def test_a_raked_leduc_declares_nothing():
    assert seqform.games.load("leduc(rake=5)").ordered_signals() is None


def test_the_float_solve_lifts_float_strategies():
    game = seqform.games.load("leduc(ranks=4)")
    sol = seqform.solve(game, certify_exact=False, abstraction=True)
    exact = seqform.solve(game, abstraction=False)
    assert sol.method.startswith("abstraction-") and not sol.certified
    assert sol.exploitability < 1e-9
    assert abs(sol.value_float - float(exact.value)) < 1e-9


@pytest.mark.runtime
def test_the_command_line_solves_through_the_abstraction_unless_told_not_to():
    def run(*flags):
        out = subprocess.run(
            [sys.executable, "-m", "seqform", "solve", "leduc(ranks=4)", "--json", *flags],
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(out.stdout)

    through, own = run(), run("--no-abstraction")
    assert through["method"].startswith("abstraction-lp-") and own["method"].startswith("lp-")
    assert through["certified"] and own["certified"] and through["value"] == own["value"]


def test_auto_uses_the_abstraction_where_the_games_own_lp_is_large():
    from seqform.solve import ABSTRACTION_MIN_ROWS

    small, large = seqform.games.load("leduc"), seqform.games.load("leduc(ranks=4)")
    rows = {g.name: seqform.sequence_form(seqform.compile_tree(g)) for g in (small, large)}
    rows = {k: sf.E.shape[0] + sf.F.shape[1] for k, sf in rows.items()}
    assert rows["leduc"] < ABSTRACTION_MIN_ROWS <= rows[large.name]
    assert seqform.solve(small).method.startswith("lp-")
    assert seqform.solve(large).method.startswith("abstraction-")


def test_a_tree_is_solved_by_its_own_lp():
    # a compiled tree has no game to declare anything
    tree = seqform.compile_tree(seqform.games.load("leduc"))
    sol = seqform.solve(tree, abstraction=True)
    assert sol.method.startswith("lp-")
    assert replace(sol, seconds={}).certified

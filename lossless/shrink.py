"""``lossless.shrink`` and ``lossless.solve``: GameShrink end to end.

``shrink(game)`` runs GameShrink (``gameshrink``) and returns a ``Shrunk``: the abstraction, the
sizes before and after (``sizes.report``, counted without building the original game) and, when
it is small enough, the abstract game (``lossless.abstractgame.AbstractGame``).

``solve(game)`` solves the abstract game with ``seqform.solve`` (certified exactly), lifts the
equilibrium back and certifies the lifted profile in the *original* game with exact best
responses: the value is the original game's value because the lifted profile's exploitability is
exactly zero, a check that does not trust the abstraction. When each player gets one private card
the best responses run over the original game's public tree (``lossless.publicbestresponse``),
without building its game tree; otherwise on the compiled original game (``seqform.evaluate``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

from seqform.model.limits import memory_limit
from seqform.model.strategy import Profile
from seqform.model.tree import Tree, compile_tree
from seqform.result import Result
from seqform.solve import Solution
from seqform.solve import solve as seqform_solve
from seqform.verify.evaluate import evaluate

from .abstractgame import AbstractGame, abstract_signal_nodes
from .abstractlp import check_abstract_lp
from .betting import FOLD, SHOWDOWN
from .errors import AbstractionError
from .gameshrink import Abstraction, gameshrink
from .orderedsignals import OrderedSignalGame
from .publicbestresponse import exact_bracket_original, unsupported_reason
from .sequencelayout import sequence_layout
from .signaltree import SignalTree
from .sizes import game_tree_nodes, report

#: the abstract game is built (as a ``seqform.Game``) only up to this many abstract signal nodes
ABSTRACT_NODE_LIMIT = 2_000_000


@dataclass
class Shrunk:
    """GameShrink's output for ``game``: ``abstraction`` (classes per player and level),
    ``abstract`` (the abstract game, or None when larger than ``ABSTRACT_NODE_LIMIT`` signal
    nodes), ``sizes`` (``sizes.report``: before/after information sets, sequences, LP rows,
    nonzeros) and ``seconds``."""

    game: OrderedSignalGame
    abstraction: Abstraction
    abstract: AbstractGame | None
    sizes: dict
    seconds: dict = field(default_factory=dict)

    def lift(self, profile: Profile, abstract_tree: Tree, original_tree: Tree | None = None) -> Profile:
        """The original game's profile playing ``profile`` (a profile of ``abstract_tree``, the
        compiled abstract game) at every information set's abstract counterpart."""
        if self.abstract is None:
            raise AbstractionError(f"{self.game.name}: the abstract game was not built (too large)")
        original_tree = original_tree if original_tree is not None else compile_tree(self.game)
        return self.abstract.lift(profile, abstract_tree, original_tree)

    def infoset_map(self, original_tree: Tree, abstract_tree: Tree):
        """(M,) for each information set of the compiled original game, its abstract one."""
        if self.abstract is None:
            raise AbstractionError(f"{self.game.name}: the abstract game was not built (too large)")
        return self.abstract.infoset_map(original_tree, abstract_tree)


def shrink(
    game: OrderedSignalGame,
    lossless: bool = True,
    nonzeros: bool = True,
    build_abstract: bool = True,
    signals: SignalTree | None = None,
    progress=None,
) -> Shrunk:
    """Run GameShrink on a game with ordered signals: its lossless abstraction and sizes.

    GameShrink (Gilpin & Sandholm 2007, "Lossless Abstraction of Imperfect Information Games";
    Sandholm 2010, "The State of Solving Large Incomplete-Information Games, and Application to
    Poker") merges ordered game isomorphic nodes of the signal tree (``lossless.gameshrink``).
    Returns the abstraction and the sizes before and after (``lossless.sizes.report``, counted
    without building the original game) and, when it is small enough, the abstract game
    (``lossless.abstractgame.AbstractGame``).

    Parameters
    ----------
    game : OrderedSignalGame
        The game with ordered signals to abstract (``lossless.OrderedSignalGame``).
    lossless : bool, default True
        False runs the paper's own-view variant instead (not lossless in general; see
        ``lossless.gameshrink``).
    nonzeros : bool, default True
        Also count the LPs' nonzeros.
    build_abstract : bool, default True
        Build the abstract game when it has at most ``ABSTRACT_NODE_LIMIT`` signal nodes.
    signals : SignalTree, optional
        The game's signal tree when already built (``build_signal_tree``).
    progress : callable, optional
        ``progress(message)`` is told each step.

    Returns
    -------
    Shrunk
        ``abstraction`` (classes per player and level), ``abstract`` (the abstract game, or None
        when not built), ``sizes`` (before/after information sets, sequences, LP rows, nonzeros,
        game-tree nodes), ``seconds``, and ``lift`` (to play an abstract profile in the original
        game).

    Raises
    ------
    AbstractionError
        ``game`` is not a game with ordered signals.

    Examples
    --------
    >>> import lossless
    >>> sh = lossless.shrink(lossless.four_card())
    >>> sh.sizes["before"]["game_tree_nodes"], sh.sizes["after"]["game_tree_nodes"]
    (113, 39)
    >>> sh.abstract is not None
    True
    """
    if not isinstance(game, OrderedSignalGame):
        raise AbstractionError(
            f"GameShrink needs a game with ordered signals (lossless.OrderedSignalGame); got {type(game).__name__}"
        )
    say = progress or (lambda msg: None)
    ab = gameshrink(game, respect_opponents=lossless, signals=signals, progress=say)
    secs = dict(ab.seconds)
    t0 = time.perf_counter()
    say("counting sizes" + (" and nonzeros" if nonzeros else ""))
    sizes = report(ab, nonzeros=nonzeros)
    secs["sizes"] = time.perf_counter() - t0
    per_level = abstract_signal_nodes(ab)
    nodes = sum(per_level)
    sizes["after"]["signal_tree_nodes"] = nodes
    sizes["after"]["game_tree_nodes"] = game_tree_nodes(game, per_level)
    abstract = None
    if build_abstract and nodes <= ABSTRACT_NODE_LIMIT:
        t0 = time.perf_counter()
        say(f"building the abstract game ({nodes:,} signal nodes)")
        abstract = AbstractGame(ab)
        secs["abstract_game"] = time.perf_counter() - t0
    return Shrunk(game, ab, abstract, sizes, secs)


_UNBUILT = object()


class _BuiltOnRead:
    """An attribute of ``ShrunkSolution`` that needs the original game's tree: when the
    certificate did not build that tree, it is built (and the abstract profile lifted onto it) on
    first read. Read on the class (a dataclass's default): None."""

    def __set_name__(self, owner, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            return None
        value = obj.__dict__.get(self.slot)
        if value is _UNBUILT:
            obj._build_original()
            value = obj.__dict__[self.slot]
        return value

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.slot] = value


@dataclass(kw_only=True)
class ShrunkSolution(Result):
    """An original game solved through its abstraction.

    ``value``: the original game's exact value (Fraction) when ``certified``: the abstract game's
    certified value, and the lifted profile's exact exploitability in the original game is zero
    with that value. ``abstract_solution``: the abstract game's ``seqform.Solution``;
    ``profile``: the lifted exact profile on ``original_tree``; ``exploitability``: its exact
    exploitability in the original game (Fraction); ``shrunk``; ``seconds``.

    When the certificate ran over the public tree (``lossless.publicbestresponse``) the original
    game's tree was not built: ``original_tree``, ``tree``, ``profile`` and ``exact_profile`` are
    then built (and the profile lifted onto the tree) when first read, which can take long on a
    large game; ``sizes`` are counted without it.
    """

    abstract_solution: Solution
    shrunk: Shrunk
    original_tree: Tree | None = _BuiltOnRead()  # type: ignore[assignment]
    method: str = "gameshrink-lp"
    profile = _BuiltOnRead()
    exact_profile = _BuiltOnRead()
    tree = _BuiltOnRead()

    def __post_init__(self) -> None:
        # the common fields this result derives: the value's float, the exact bounds (the value
        # when certified: the lifted profile's exact best responses meet), the lifted exact profile
        # and the original game's tree and sizes
        self.value_float = float(self.value) if self.value is not None else None
        self.lower = self.upper = self.value if self.certified else None
        self.exact_profile = self.profile
        self.tree = self.original_tree
        self.sizes = self.original_tree.sizes() if self.original_tree is not None else {}

    def _defer_original(self, game: OrderedSignalGame, abstract_tree: Tree, abstract_profile: Profile) -> None:
        """The certificate did not build the original tree: build it (and lift) when first read."""
        self._lift_from = (game, abstract_tree, abstract_profile)
        for name in ("original_tree", "tree", "profile", "exact_profile"):
            self.__dict__["_" + name] = _UNBUILT
        self.sizes = original_sizes(game, self.shrunk)

    def _build_original(self) -> None:
        game, abstract_tree, abstract_profile = self._lift_from
        assert self.shrunk.abstract is not None  # a solved abstraction has its abstract game
        tree = compile_tree(game, memory_limit_bytes=memory_limit())
        lifted = self.shrunk.abstract.lift(abstract_profile, abstract_tree, tree)
        self.original_tree = self.tree = tree
        self.profile = self.exact_profile = lifted


def original_sizes(game: OrderedSignalGame, sh: Shrunk) -> dict:
    """The original game tree's ``Tree.sizes()`` counted without building it: its nodes and
    information sets and sequences (``sh.sizes["before"]``) and its leaves (each betting leaf of
    round r once per deal of the cards dealt by r)."""
    bet, d = game.betting, len(game.deck)
    leaves = sum(
        len(bet.nodes_of_round(r, FOLD, SHOWDOWN)) * math.perm(d, game.dealt_by[r]) for r in range(bet.num_rounds)
    )
    before = sh.sizes["before"]
    return {
        "histories": before["game_tree_nodes"],
        "terminals": leaves,
        "infosets": list(before["infosets"]),
        "sequences": list(before["sequences"]),
    }


def solve(game: OrderedSignalGame, method: str = "auto", progress=None) -> ShrunkSolution:
    """Solve a game with ordered signals exactly through its GameShrink abstraction.

    Abstracts the game with ``shrink`` (GameShrink: Gilpin & Sandholm 2007, "Lossless Abstraction of
    Imperfect Information Games"), solves the abstract game with ``seqform.solve`` (certified
    exactly), lifts its certified equilibrium back, and certifies the lifted strategies in the
    *original* game with exact best responses: the value is the original game's value because the
    lifted profile's exact exploitability is zero at the abstract value, a check that does not trust
    the abstraction. When each player gets one private card, dealt before the first betting, the
    exact best responses run over the original game's public tree (Johanson, Waugh, Bowling &
    Zinkevich 2011, "Accelerating Best Response Calculation in Large Extensive Games";
    ``lossless.publicbestresponse``) and the original game's tree is not built; otherwise they run
    on the compiled original game.

    Parameters
    ----------
    game : OrderedSignalGame
        The game with ordered signals to solve (``lossless.OrderedSignalGame``).
    method : str, default "auto"
        The LP algorithm for the abstract game (as ``seqform.solve``).
    progress : callable, optional
        ``progress(message)`` is told each step.

    Returns
    -------
    ShrunkSolution
        A ``seqform.Result``: ``value`` and ``certified`` in the original game, ``profile`` (the
        lifted exact strategies, on ``original_tree``: both built when first read if the
        certificate did not need them), ``exploitability`` (exact), ``abstract_solution``,
        ``shrunk``.
        When the abstract game's solution is not certified, ``value`` is None and ``certified``
        False.

    Raises
    ------
    AbstractionError
        ``game`` is not a game with ordered signals, or the abstract game is too large to build and
        solve here (more than ``ABSTRACT_NODE_LIMIT`` signal nodes).
    SolverError
        As ``seqform.solve``: HiGHS did not reach an optimum on the abstract game.
    TooLargeError
        As ``seqform.solve``: the abstract game's tree or LP would not fit in the memory limit.

    Examples
    --------
    >>> import lossless
    >>> res = lossless.solve(lossless.four_card())
    >>> res.certified, res.value, res.exploitability
    (True, Fraction(0, 1), Fraction(0, 1))
    """
    say = progress or (lambda msg: None)
    t_start = time.perf_counter()
    sh = shrink(game, nonzeros=False, progress=say)
    if sh.abstract is None:
        raise AbstractionError(f"{game.name}: the abstract game is too large to build and solve here")
    secs = dict(sh.seconds)
    t0 = time.perf_counter()
    # the abstract LP's size from the classes alone: refused before its tree is built
    check_abstract_lp(sequence_layout(sh.abstraction))
    abstract_tree = compile_tree(sh.abstract, memory_limit_bytes=memory_limit())
    say(f"solving the abstract game ({abstract_tree.num_nodes:,} nodes)")
    sol = seqform_solve(abstract_tree, method=method, progress=say)
    assert isinstance(sol, Solution)  # the abstract game of a zero-sum game is zero-sum: the LP's
    secs["abstract_solve"] = time.perf_counter() - t0
    if not sol.certified:
        secs["total"] = time.perf_counter() - t_start
        return ShrunkSolution(
            game=game.name,
            value=None,
            certified=False,
            exploitability=None,
            profile=None,
            abstract_solution=sol,
            shrunk=sh,
            original_tree=None,
            seconds=secs,
        )
    t0 = time.perf_counter()
    assert sol.exact_profile is not None  # certified
    built: dict = {}  # the original tree and the lifted profile, when the certificate built them
    exploitability: Fraction | float
    if unsupported_reason(game) is None:
        say("certifying the lifted strategies over the original game's public tree")
        br = exact_bracket_original(sh.abstraction, abstract_tree, sol.exact_profile, progress=say)
        ok, exploitability = br.lower == br.upper == sol.value, br.exploitability
    else:
        say("building the original game to certify the lifted strategies")
        original_tree = compile_tree(game, memory_limit_bytes=memory_limit())
        lifted = sh.abstract.lift(sol.exact_profile, abstract_tree, original_tree)
        ev = evaluate(original_tree, lifted, exact=True)
        ok, exploitability = ev.exploitability == 0 and ev.values[0] == sol.value, ev.exploitability
        built = {"profile": lifted, "original_tree": original_tree}
    secs["certify_original"] = time.perf_counter() - t0
    secs["total"] = time.perf_counter() - t_start
    res = ShrunkSolution(
        game=game.name,
        value=sol.value if ok else None,
        certified=ok,
        exploitability=exploitability,
        abstract_solution=sol,
        shrunk=sh,
        seconds=secs,
        **built,
    )
    if not built:  # the public-tree certificate: the original tree is built when first read
        res._defer_original(game, abstract_tree, sol.exact_profile)
    return res

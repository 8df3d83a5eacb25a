"""``lossless.shrink`` and ``lossless.solve``: GameShrink end to end.

``shrink(game)`` runs GameShrink (``gameshrink``) and returns a ``Shrunk``: the abstraction, the
sizes before and after (``sizes.report``, counted without building the original game) and, when
it is small enough, the abstract game (``lossless.abstractgame.AbstractGame``).

``solve(game)`` solves the abstract game with ``seqform.solve`` (certified exactly), lifts the
equilibrium back and certifies the lifted profile in the *original* game with exact best
responses: the value is the original game's value because the lifted profile's exploitability is
exactly zero, a check that does not trust the abstraction.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from seqform.model.limits import memory_limit
from seqform.model.strategy import Profile
from seqform.model.tree import Tree, compile_tree
from seqform.result import Result
from seqform.solve import Solution
from seqform.solve import solve as seqform_solve
from seqform.verify.evaluate import evaluate

from .abstractgame import AbstractGame, abstract_signal_nodes
from .abstractlp import check_abstract_lp
from .errors import AbstractionError
from .gameshrink import Abstraction, gameshrink
from .orderedsignals import OrderedSignalGame
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


@dataclass(kw_only=True)
class ShrunkSolution(Result):
    """An original game solved through its abstraction.

    ``value``: the original game's exact value (Fraction) when ``certified``: the abstract game's
    certified value, and the lifted profile's exact exploitability in the original game is zero
    with that value. ``abstract_solution``: the abstract game's ``seqform.Solution``;
    ``profile``: the lifted exact profile on ``original_tree``; ``exploitability``: its exact
    exploitability in the original game (Fraction); ``shrunk``; ``seconds``.
    """

    abstract_solution: Solution
    shrunk: Shrunk
    original_tree: Tree | None
    method: str = "gameshrink-lp"

    def __post_init__(self) -> None:
        # the common fields this result derives: the value's float, the exact bounds (the value
        # when certified: the lifted profile's exact best responses meet), the lifted exact profile
        # and the original game's tree and sizes
        self.value_float = float(self.value) if self.value is not None else None
        self.lower = self.upper = self.value if self.certified else None
        self.exact_profile = self.profile
        self.tree = self.original_tree
        self.sizes = self.original_tree.sizes() if self.original_tree is not None else {}


def solve(game: OrderedSignalGame, method: str = "auto", progress=None) -> ShrunkSolution:
    """Solve a game with ordered signals exactly through its GameShrink abstraction.

    Abstracts the game with ``shrink`` (GameShrink: Gilpin & Sandholm 2007, "Lossless Abstraction of
    Imperfect Information Games"), solves the abstract game with ``seqform.solve`` (certified
    exactly), lifts its certified equilibrium back, and certifies the lifted strategies in the
    *original* game with exact best responses: the value is the original game's value because the
    lifted profile's exact exploitability is zero at the abstract value, a check that does not trust
    the abstraction.

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
        lifted exact strategies), ``exploitability`` (exact), ``abstract_solution``, ``shrunk``.
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
    say("building the original game to certify the lifted strategies")
    original_tree = compile_tree(game, memory_limit_bytes=memory_limit())
    assert sol.exact_profile is not None  # certified
    lifted = sh.abstract.lift(sol.exact_profile, abstract_tree, original_tree)
    ev = evaluate(original_tree, lifted, exact=True)
    secs["certify_original"] = time.perf_counter() - t0
    ok = ev.exploitability == 0 and ev.values[0] == sol.value
    secs["total"] = time.perf_counter() - t_start
    return ShrunkSolution(
        game=game.name,
        value=sol.value if ok else None,
        certified=ok,
        exploitability=ev.exploitability,
        profile=lifted,
        abstract_solution=sol,
        shrunk=sh,
        original_tree=original_tree,
        seconds=secs,
    )

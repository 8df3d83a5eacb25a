"""The registry through which packages add games, commands, solve methods and refiners to seqform.

The core (``seqform``) never imports an extension. An extension, ours (``refinements``,
``lossless``, ``doracle``, ``efce``) or a third party's, declares an entry point in the group
``seqform.extensions`` whose object is a function ``register(registry)``; seqform calls each one
once, the first time something asks the registry for what extensions add (as networkx finds its
backends). In ``pyproject.toml``::

    [project.entry-points."seqform.extensions"]
    mypackage = "mypackage.seqform_plugin:register"

and in ``mypackage/seqform_plugin.py``::

    def register(registry):
        registry.add_game("my_game", my_game_factory)

What can be added:

* ``add_game(name, factory)``: ``seqform.games.load("name(...)")`` and every command's GAME.
* ``add_command(name, add_parser, check=None)``: a ``seqform NAME`` subcommand; ``add_parser(sub)``
  adds it to argparse's subparsers (and sets ``func``), ``check(args)`` refuses bad options.
* ``add_solve_option(name, add_arguments, applies, run, check=None)``: options of ``seqform
  solve`` that hand the game to another solver (``--refine``, ``--method doracle``): when
  ``applies(args)``, ``run(args, game, progress)`` does the whole command and returns its status.
* ``add_solve_method(name, help)``: a further choice of ``seqform solve --method``.
* ``add_refiner(concept, function)``: ``function(tree, concept)`` returns an exact refined
  equilibrium (a result with ``exact_profile``), for ``seqform verify --refined``;
  ``function(tree, concept, eps)`` the exact equilibrium of the eps-perturbed game, a result with
  ``certified``, ``value`` and ``measure(profile)`` (a dict of ``VerifyPoint``'s ``perturbed_*``
  fields and ``tremble_violation``), for ``seqform verify --refined C --eps E``.
* ``add_abstraction(name, function)``: ``function(game, tree, **options)`` solves a game that
  declares ordered signals (``seqform.model.game.Game.ordered_signals``) through a lossless
  abstraction and returns a ``seqform.model.signalform.AbstractionPlans``, plans on the compiled
  game it is given that ``seqform.solve`` certifies in the game itself, or None when it does not
  apply. ``options``:
  ``method``, ``certify_exact``, ``exact_limit``, ``time_limit``, ``memory_limit_bytes`` and
  ``progress``, as ``seqform.solve`` takes them.
* ``add_iterative_solver(name, factory, help, eps=False)``: a solver ``seqform verify NAME``
  runs; ``factory(tree, eps, seed)`` returns an object with ``step()`` and ``average_profile()``
  (and, optionally, ``current_profile()``, ``traversals``, ``nodes_touched``); ``eps=True`` when
  it takes ``--eps``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata

ENTRY_POINT_GROUP = "seqform.extensions"


@dataclass
class Command:
    name: str
    add_parser: Callable
    check: Callable | None = None


@dataclass
class SolveOption:
    name: str
    add_arguments: Callable
    applies: Callable
    run: Callable
    check: Callable | None = None


@dataclass
class IterativeSolver:
    """A solver ``seqform verify`` can run by name: ``factory(tree, eps, seed)`` returns an object
    with ``step()`` and ``average_profile()``; ``eps``: whether it takes ``--eps``."""

    name: str
    factory: Callable
    help: str
    eps: bool = False


@dataclass
class Registry:
    """What the installed extensions added (see the module docstring)."""

    games: dict = field(default_factory=dict)
    commands: dict = field(default_factory=dict)
    solve_options: dict = field(default_factory=dict)
    solve_methods: dict = field(default_factory=dict)
    refiners: dict = field(default_factory=dict)
    iterative_solvers: dict = field(default_factory=dict)
    abstractions: dict = field(default_factory=dict)
    loaded: list = field(default_factory=list)
    failed: dict = field(default_factory=dict)

    def add_game(self, name: str, factory: Callable) -> None:
        self.games[name] = factory

    def add_command(self, name: str, add_parser: Callable, check: Callable | None = None) -> None:
        self.commands[name] = Command(name, add_parser, check)

    def add_solve_option(
        self, name: str, add_arguments: Callable, applies: Callable, run: Callable, check: Callable | None = None
    ) -> None:
        self.solve_options[name] = SolveOption(name, add_arguments, applies, run, check)

    def add_solve_method(self, name: str, help: str) -> None:
        self.solve_methods[name] = help

    def add_refiner(self, concept: str, function: Callable) -> None:
        self.refiners[concept] = function

    def add_abstraction(self, name: str, function: Callable) -> None:
        self.abstractions[name] = function

    def add_iterative_solver(self, name: str, factory: Callable, help: str, eps: bool = False) -> None:
        self.iterative_solvers[name] = IterativeSolver(name, factory, help, eps)


_REGISTRY = Registry()
_LOADED = False


def registry() -> Registry:
    """The registry, with every installed extension's ``register`` called once."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
        for ep in _entry_points():
            try:
                ep.load()(_REGISTRY)
                _REGISTRY.loaded.append(ep.name)
            except Exception as e:  # a broken third-party plugin must not break seqform
                _REGISTRY.failed[ep.name] = f"{type(e).__name__}: {e}"
                print(f"seqform: warning: extension {ep.name!r} failed to load: {e}", file=sys.stderr)
    return _REGISTRY


def _entry_points() -> list:
    eps = metadata.entry_points()
    if hasattr(eps, "select"):
        return sorted(eps.select(group=ENTRY_POINT_GROUP), key=lambda e: e.name)
    return sorted(eps.get(ENTRY_POINT_GROUP, []), key=lambda e: e.name)  # Python < 3.10 form


__all__ = ["registry", "Registry", "ENTRY_POINT_GROUP"]

"""Built-in games, and parsing of game names such as ``leduc(ranks=5)``.

``seqform.games.kuhn(players)``, ``leduc(ranks, suits, rake, players)``, ``liars_dice(dice, sides)``,
``goofspiel(cards, ...)``, ``flipit(depth, observe, ...)`` (Bosansky (2019)'s network game); the refinement
examples ``threat_zero_sum()``, ``threat_general_sum()``, ``guess_the_ace()``, ``mertens_voting()``,
``selten_horse()``, ``selten_fig2()``, ``selten_fig3()``, and ``nau2004()`` (three players, an irrational
equilibrium) (``seqform.games.textbook``);
``load("leduc(ranks=5)")`` builds one from its name.

References:

- Bosansky (2019), "Solving Extensive-Form Games", lecture, Multiagent Systems, Czech Technical University in Prague.
"""

from __future__ import annotations

import ast
import inspect
import sys
from collections.abc import Callable

from seqform.errors import UnknownGameError
from seqform.games.flipit import flipit
from seqform.games.goofspiel import goofspiel
from seqform.games.kuhn import kuhn
from seqform.games.leduc import leduc
from seqform.games.liars_dice import liars_dice
from seqform.games.textbook import (
    guess_the_ace,
    mertens_voting,
    nau2004,
    selten_fig2,
    selten_fig3,
    selten_horse,
    threat_general_sum,
    threat_zero_sum,
)
from seqform.model.game import Game
from seqform.model.limits import check_setup, memory_limit, node_limit, too_many_nodes

REGISTRY: dict[str, Callable[..., Game]] = {
    "kuhn": kuhn,
    "leduc": leduc,
    "liars_dice": liars_dice,
    "goofspiel": goofspiel,
    "flipit": flipit,
    "threat_zero_sum": threat_zero_sum,
    "threat_general_sum": threat_general_sum,
    "guess_the_ace": guess_the_ace,
    "mertens_voting": mertens_voting,
    "selten_horse": selten_horse,
    "selten_fig2": selten_fig2,
    "selten_fig3": selten_fig3,
    "nau2004": nau2004,
}


# What the core's games build from their parameters before any node, in bytes (upper estimates of
# their constructors' tables): Leduc's hand strengths, one per pair of cards (n x n), and its
# chance probabilities; Liar's Dice's actions after every bid (b^2 / 2 for b bids); Goofspiel's
# tables per subset of the cards (2^(K+1) of them, each with K labels). A parameter far too large
# is refused from these numbers (``load``), before the constructor spends them.
def _size(x) -> int:
    """A size parameter as the estimates count it: 0 for one the constructor refuses anyway."""
    return x if isinstance(x, int) and x > 0 else 0


def _goofspiel_setup(a: dict) -> int:
    k = _size(a["cards"])
    return (300 + 100 * k) << (k + 1) if k < 1000 else 1 << 1100


def _leduc_setup(a: dict) -> int:
    # ranks=None: players + 1 ranks, OpenSpiel's deck
    ranks = _size(a["ranks"]) if a["ranks"] is not None else _size(a["players"]) + 1
    return 40 * (ranks * _size(a["suits"])) ** 2


_SETUP_BYTES: dict = {
    leduc: _leduc_setup,
    liars_dice: lambda a: 4 * (2 * _size(a["dice"]) * _size(a["sides"])) ** 2,
    goofspiel: _goofspiel_setup,
}


def _flipit_nodes(a: dict) -> int:
    """At least (hosts + 1)^depth nodes: the defender's hosts + 1 moves in every round (capped at
    2^64: a bound that is never computed in full for a huge depth)."""
    nd, depth = _size(a["hosts"]) + 1, _size(a["depth"])
    return nd**depth if depth * nd.bit_length() <= 64 else 1 << 64


# Lower bounds on the number of nodes, for games whose size is known only after a walk that a huge
# parameter makes impossible (FlipIt counts its nodes by a recursion over the rounds).
_MIN_NODES: dict = {flipit: _flipit_nodes}


def _check_setup(spec: str, factory, arguments: dict, memory_limit_bytes: int | None) -> None:
    """``TooLargeError`` if the core game ``factory`` would need more than the memory limit just
    to be set up with ``arguments`` (its parameters, defaults filled in), or has more nodes than
    the limit lets a tree have."""
    setup, nodes = _SETUP_BYTES.get(factory), _MIN_NODES.get(factory)
    if setup is None and nodes is None:
        return
    limit = memory_limit() if memory_limit_bytes is None else memory_limit_bytes
    if setup is not None:
        check_setup(spec.strip(), setup(arguments), limit)
    if nodes is not None:
        at_least, most = nodes(arguments), node_limit(limit)
        if at_least > most:
            err = too_many_nodes(spec.strip(), most, limit)
            raise type(err)(
                f"{err} (it has at least {at_least:,} nodes)"
                if at_least < 1 << 64
                else f"{err} (it has at least 2^64 nodes)"
            )


def register(name: str, factory: Callable[..., Game]) -> None:
    """Make ``factory`` loadable by ``load(name(...))`` in this process (a package adds games for
    every process through ``seqform.registry``)."""
    REGISTRY[name] = factory


def available() -> dict:
    """Every loadable game: the built-in ones, those ``register`` added, and those the installed
    extensions add (``seqform.registry``), by name."""
    from seqform.registry import registry

    return {**registry().games, **REGISTRY}


def _literal(node: ast.AST, spec: str):
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, RecursionError):  # TypeError: a list as a key, {[1]: 2}
        raise UnknownGameError(
            f"game {spec!r}: parameter value {_shown(ast.unparse(node))!r} is not a literal (use numbers, strings, "
            f"True/False)"
        ) from None
    if _beyond_floats(value):
        # sizes that large are refused anyway, and payoffs become floats when the tree is compiled
        raise UnknownGameError(
            f"game {spec!r}: parameter value {_shown(ast.unparse(node))!r} holds a number beyond the largest "
            f"float (~1.8e308)"
        )
    return value


def _shown(text: str) -> str:
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"


def _beyond_floats(value) -> bool:
    """Whether ``value`` (a literal: a number, or containers of them) holds an integer too large for a float."""
    if isinstance(value, int):
        return abs(value) > sys.float_info.max
    if isinstance(value, (tuple, list, set, frozenset)):
        return any(_beyond_floats(v) for v in value)
    if isinstance(value, dict):
        return any(_beyond_floats(k) or _beyond_floats(v) for k, v in value.items())
    return False


def load(spec: str, memory_limit_bytes: int | None = None) -> Game:
    """A built-in game from its name and parameters, e.g. ``"leduc(ranks=5)"`` or ``"liars_dice(1, 3)"``.

    Parameters
    ----------
    spec : str
        ``NAME`` or ``NAME(value, ..., param=value, ...)`` with literal values; the names are
        ``available()``: the core's games and those the installed extensions register.
    memory_limit_bytes : int, optional
        Refuse parameters with which a core game's setup alone would need more memory than this
        (default: ``seqform.model.limits.memory_limit()``).

    Returns
    -------
    Game

    Raises
    ------
    UnknownGameError
        An unknown name, unreadable text, or parameters the game does not take (each named).
    TooLargeError
        Parameters with which the game's setup alone would exceed the memory limit.

    Examples
    --------
    >>> import seqform
    >>> seqform.games.load("leduc(ranks=4)").name
    'leduc(ranks=4,suits=2)'
    """
    text = spec.strip()
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise UnknownGameError(f"cannot read game {spec!r}: expected NAME or NAME(param=value, ...)") from None
    if isinstance(tree, ast.Name):
        name, args, kwargs = tree.id, [], {}
    elif isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and all(k.arg for k in tree.keywords):
        # (``**mapping`` has no keyword name: not a literal spec, the else branch's error)
        name = tree.func.id
        args = [_literal(a, spec) for a in tree.args]
        kwargs = {k.arg: _literal(k.value, spec) for k in tree.keywords if k.arg is not None}
    else:
        raise UnknownGameError(f"cannot read game {spec!r}: expected NAME or NAME(param=value, ...)")
    factory = REGISTRY.get(name)
    if factory is None:  # only now ask the extensions: loading them costs imports
        games = available()
        factory = games.get(name)
        if factory is None:
            raise UnknownGameError(f"unknown game {name!r}; built-in games: {', '.join(sorted(games))}")
    sig = inspect.signature(factory)
    try:
        sig.bind(*args, **kwargs)
    except TypeError as e:
        params = ", ".join(str(p) for p in sig.parameters.values())
        raise UnknownGameError(f"game {spec!r}: {e}; {name} takes ({params})") from None
    bound = sig.bind(*args, **kwargs)
    for pname, value in bound.arguments.items():
        default = sig.parameters[pname].default
        if default is not inspect.Parameter.empty and default is not None and type(value) is not type(default):
            if not (isinstance(default, int) and isinstance(value, int) and not isinstance(value, bool)):
                kind = {"int": "an integer", "bool": "True or False", "str": "a string", "float": "a number"}
                raise UnknownGameError(
                    f"game {spec!r}: parameter {pname}={value!r} should be "
                    f"{kind.get(type(default).__name__, type(default).__name__)}"
                )
    bound.apply_defaults()
    _check_setup(spec, factory, dict(bound.arguments), memory_limit_bytes)
    try:
        return factory(*args, **kwargs)
    except (ValueError, TypeError, OverflowError) as e:
        # a value of the right type that the game (or a library it calls) cannot take, such as a
        # negative seed: the game's parameter, named with the game
        raise UnknownGameError(f"game {_shown(spec.strip())!r}: {e}") from None


__all__ = [
    "kuhn",
    "leduc",
    "liars_dice",
    "goofspiel",
    "flipit",
    "threat_zero_sum",
    "threat_general_sum",
    "guess_the_ace",
    "mertens_voting",
    "selten_horse",
    "selten_fig2",
    "selten_fig3",
    "nau2004",
    "load",
    "register",
    "available",
    "REGISTRY",
]

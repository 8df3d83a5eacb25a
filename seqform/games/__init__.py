"""Built-in games, and parsing of game names such as ``leduc(ranks=5)``.

``seqform.games.kuhn()``, ``leduc(ranks, suits)``, ``liars_dice(dice, sides)``,
``goofspiel(cards, ...)``, ``flipit(depth, observe, ...)`` (Bosansky (2019)'s network game); the refinement
examples ``threat_zero_sum()``, ``threat_general_sum()``, ``guess_the_ace()``, ``mertens_voting()``,
``selten_horse()``, ``selten_fig2()``, ``selten_fig3()`` (``seqform.games.textbook``);
``load("leduc(ranks=5)")`` builds one from its name.

References:

- Bosansky (2019), "Solving Extensive-Form Games", lecture, Multiagent Systems, Czech Technical University in Prague.
"""

from __future__ import annotations

import ast
import inspect
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
    selten_fig2,
    selten_fig3,
    selten_horse,
    threat_general_sum,
    threat_zero_sum,
)
from seqform.model.game import Game

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
}


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
        return ast.literal_eval(node)
    except ValueError:
        raise UnknownGameError(
            f"game {spec!r}: parameter value {ast.unparse(node)!r} is not a literal (use numbers, strings, True/False)"
        ) from None


def load(spec: str) -> Game:
    """A built-in game from its name and parameters, e.g. ``"leduc(ranks=5)"`` or ``"liars_dice(1, 3)"``.

    Parameters
    ----------
    spec : str
        ``NAME`` or ``NAME(value, ..., param=value, ...)`` with literal values; the names are
        ``available()``: the core's games and those the installed extensions register.

    Returns
    -------
    Game

    Raises
    ------
    UnknownGameError
        An unknown name, unreadable text, or parameters the game does not take (each named).

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
    for pname, value in sig.bind(*args, **kwargs).arguments.items():
        default = sig.parameters[pname].default
        if default is not inspect.Parameter.empty and default is not None and type(value) is not type(default):
            if not (isinstance(default, int) and isinstance(value, int) and not isinstance(value, bool)):
                kind = {"int": "an integer", "bool": "True or False", "str": "a string", "float": "a number"}
                raise UnknownGameError(
                    f"game {spec!r}: parameter {pname}={value!r} should be "
                    f"{kind.get(type(default).__name__, type(default).__name__)}"
                )
    return factory(*args, **kwargs)


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
    "load",
    "register",
    "available",
    "REGISTRY",
]

"""What a GAME argument names: a built-in game, a Gambit ``.efg`` file, or an OpenSpiel game.

* ``kuhn``, ``leduc(ranks=5)``, ``liars_dice(1, 3)``: a built-in game (``seqform.games.load``);
* ``path/to/game.efg`` (or any existing file): read with ``seqform.io.efgread.read_efg``, which
  first checks that reading it fits the memory limit;
* ``openspiel:leduc_poker``, ``openspiel:goofspiel(num_cards=4,imp_info=True)``: an OpenSpiel
  game through ``seqform.io.openspiel.from_openspiel`` (needs the extra ``seqform[openspiel]``).

An unknown name is refused with the closest known names (``did you mean``). ``same_game`` says
whether two names name one game (``kuhn_poker``, ``kuhn_poker()`` and ``openspiel:kuhn_poker``
do), as a strategy file's ``"game"`` is compared with the game it is read for.
"""

from __future__ import annotations

import difflib
import os
import re

from seqform import games
from seqform.errors import UnknownGameError
from seqform.model.game import Game
from seqform.model.limits import memory_limit

OPENSPIEL_PREFIX = "openspiel:"

_NAME = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:\(|$)")


def did_you_mean(name: str, known) -> str:
    """``"; did you mean 'x' or 'y'?"`` for the names of ``known`` closest to ``name`` (difflib),
    else ``""``."""
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def canonical_name(spec: str) -> str:
    """``spec`` as one spelling of its game: without whitespace, an ``openspiel:`` prefix, or
    empty parentheses (``"openspiel:kuhn_poker()"`` -> ``"kuhn_poker"``). Parameters are kept as
    written: ``leduc(ranks=5)`` and ``leduc(5)`` stay different spellings."""
    s = "".join(spec.split())
    if s.startswith(OPENSPIEL_PREFIX):
        s = s[len(OPENSPIEL_PREFIX) :]
    return s[:-2] if s.endswith("()") else s


def same_game(a: str, b: str) -> bool:
    """Whether the names ``a`` and ``b`` name one game (``canonical_name`` of both agree)."""
    return canonical_name(a) == canonical_name(b)


def _check_builtin_name(spec: str) -> None:
    """``UnknownGameError`` with the closest names when ``spec`` names no built-in game (a spec
    that does not parse is left to ``seqform.games.load``, whose message says why)."""
    m = _NAME.match(spec)
    if m is None:
        return
    known = games.available()
    if m.group(1) not in known:
        raise UnknownGameError(
            f"unknown game {m.group(1)!r}{did_you_mean(m.group(1), known)} (built-in games: "
            f"{', '.join(sorted(known))}; or a .efg file, or openspiel:NAME)"
        )


def load_game(spec: str, memory_limit_gib: float | None = None) -> Game:
    """The game a GAME argument names (see the module docstring)."""
    if spec.startswith(OPENSPIEL_PREFIX):
        from seqform.io.openspiel import from_openspiel

        return from_openspiel(spec[len(OPENSPIEL_PREFIX) :], memory_limit_bytes=memory_limit(memory_limit_gib))
    if spec.lower().endswith(".efg") or os.path.isfile(spec):
        from seqform.io.efgread import read_efg

        return read_efg(spec, memory_limit_bytes=memory_limit(memory_limit_gib))
    _check_builtin_name(spec)
    return games.load(spec, memory_limit(memory_limit_gib))

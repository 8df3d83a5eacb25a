"""What a GAME argument names: a built-in game, a Gambit ``.efg`` file, or an OpenSpiel game.

* ``kuhn``, ``leduc(ranks=5)``, ``liars_dice(1, 3)``: a built-in game (``seqform.games.load``);
* ``path/to/game.efg`` (or any existing file): read with ``seqform.efgread.read_efg``, after
  checking that its size fits the memory limit;
* ``openspiel:leduc_poker``, ``openspiel:goofspiel(num_cards=4,imp_info=True)``: an OpenSpiel
  game through ``seqform.openspiel.from_openspiel`` (needs the ``openspiel`` extra).
"""
from __future__ import annotations

import os

from . import games
from .game import Game
from .limits import check_file, memory_limit

OPENSPIEL_PREFIX = "openspiel:"


def load_game(spec: str, memory_limit_gib: float | None = None) -> Game:
    """The game a GAME argument names (see the module docstring)."""
    if spec.startswith(OPENSPIEL_PREFIX):
        from .openspiel import from_openspiel
        return from_openspiel(spec[len(OPENSPIEL_PREFIX):])
    if spec.lower().endswith(".efg") or os.path.isfile(spec):
        from .efgread import read_efg
        if os.path.isfile(spec):
            check_file(spec, os.path.getsize(spec), memory_limit(memory_limit_gib))
        return read_efg(spec)
    return games.load(spec)

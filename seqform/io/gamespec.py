"""What a GAME argument names: a built-in game, a Gambit ``.efg`` file, or an OpenSpiel game.

* ``kuhn``, ``leduc(ranks=5)``, ``liars_dice(1, 3)``: a built-in game (``seqform.games.load``);
* ``path/to/game.efg`` (or any existing file): read with ``seqform.io.efgread.read_efg``, after
  checking that its size fits the memory limit;
* ``openspiel:leduc_poker``, ``openspiel:goofspiel(num_cards=4,imp_info=True)``: an OpenSpiel
  game through ``seqform.io.openspiel.from_openspiel`` (needs the extra ``seqform[openspiel]``).
"""

from __future__ import annotations

import os

from seqform import games
from seqform.model.game import Game
from seqform.model.limits import check_file, memory_limit

OPENSPIEL_PREFIX = "openspiel:"


def load_game(spec: str, memory_limit_gib: float | None = None) -> Game:
    """The game a GAME argument names (see the module docstring)."""
    if spec.startswith(OPENSPIEL_PREFIX):
        from seqform.io.openspiel import from_openspiel

        return from_openspiel(spec[len(OPENSPIEL_PREFIX) :])
    if spec.lower().endswith(".efg") or os.path.isfile(spec):
        from seqform.io.efgread import read_efg

        if os.path.isfile(spec):
            check_file(spec, os.path.getsize(spec), memory_limit(memory_limit_gib))
        return read_efg(spec)
    return games.load(spec)

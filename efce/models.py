"""The model of Dudik & Gordon (2009)'s exponential family q_lambda a game gets (section 3):
``efce.treemodel.TreeModel`` for a game whose tree compiles, ``efce.polymatrix.PolymatrixModel``
for a game that declares itself a polymatrix game; a model loaded with a finished run's lambdas;
and the full pure strategy profiles a model enumerates when expectations are exact.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from seqform.errors import SeqformError
from seqform.model.game import TERMINAL, Game

from .family import DeclaresPolymatrix, DeclaresRegretBound
from .treemodel import TreeModel

__all__ = ["MAX_EXACT_PROFILES", "make_model", "loaded_model", "count_full_profiles", "full_profiles"]

#: exact expectations (``SamplerOptions(expectations="exact")``, and "auto" when it picks them)
#: enumerate at most this many full pure profiles
MAX_EXACT_PROFILES = 65_536


def make_model(
    game: Game, w, scenarios: int | None = None, rng=None, engine: str | None = None, max_nodes: int = 2_000_000
):
    """The model of q_lambda(s) ~ exp(w . u(s) - sum_phi lambda_phi r_phi(s)) (Dudik & Gordon
    2009, section 3) for ``game`` at lambda = 0: ``engine`` "polymatrix" (the game must offer
    ``polymatrix()``), "tree" (compiles the game tree, at most ``max_nodes`` nodes; chance
    enumerated, or sampled once as ``scenarios`` scenarios drawn with ``rng``), or None:
    polymatrix when the game offers it, else tree."""
    w = np.asarray(w, dtype=float)
    if engine is None:
        engine = "polymatrix" if isinstance(game, DeclaresPolymatrix) else "tree"
    if engine == "polymatrix":
        if not isinstance(game, DeclaresPolymatrix):
            raise SeqformError(f"{game.name!r} is not a polymatrix game; use the tree engine")
        from .polymatrix import Polymatrix, PolymatrixModel

        return PolymatrixModel(cast(Polymatrix, game.polymatrix()), w)  # (DeclaresPolymatrix returns one)
    if engine != "tree":
        raise SeqformError(f"engine: 'tree' or 'polymatrix', not {engine!r}")
    from seqform.model.tree import compile_tree

    hint = game.num_nodes_hint()
    if hint is not None and hint > max_nodes:
        raise SeqformError(f"{game.name!r} has {hint:,} nodes, more than the tree engine's {max_nodes:,}")
    return TreeModel(compile_tree(game, max_nodes=max_nodes), w, scenarios, rng)


def loaded_model(game: Game, result, rng=None, engine: str | None = None):
    """A model of ``result``'s distribution q_lambda (``result``: an ``efce.SamplingResult``, or
    anything with its ``weights``, ``deviations`` and ``lam``): ``make_model`` for its weights,
    chance enumerated, with every recorded deviation registered at its lambda."""
    w = np.asarray(result.weights, dtype=float) if result.weights else np.zeros(game.num_players)
    model = make_model(game, w, None, rng, engine)
    for d, lam in zip(result.deviations, result.lam):
        model.register(d)
        model.add(d, lam)
    return model


def count_full_profiles(model) -> int:
    """The number of full pure strategy profiles (an action at every information set) of a
    model's game: the product of its information sets' action counts (an exact integer)."""
    return math.prod(int(k) for k in model.A)


def full_profiles(model, limit: int = MAX_EXACT_PROFILES) -> np.ndarray:
    """Every full pure strategy profile of a model's game, as rows in the models' layout
    (information sets + 1 columns, the last the padding column, always 0), in
    ``itertools.product`` order; more than ``limit`` of them is refused."""
    sizes = [int(k) for k in model.A]
    count = math.prod(sizes)
    if count > limit:
        raise SeqformError(f"{count:,} full pure strategy profiles; too many to enumerate (at most {limit:,})")
    grids = np.indices(sizes, dtype=np.int64).reshape(len(sizes), -1).T if sizes else np.zeros((1, 0), np.int64)
    return np.hstack([grids, np.zeros((len(grids), 1), dtype=np.int64)])


def payoff_range(game: Game) -> float:
    """r_max: the game's own ``regret_bound()`` when it has one, else ``regret_bound``."""
    if isinstance(game, DeclaresRegretBound):
        return float(game.regret_bound())
    return regret_bound(game)


def regret_bound(game: Game, max_nodes: int = 2_000_000) -> float:
    """r_max: the largest range of one player's payoff over the leaves (walks the tree)."""
    lo = np.full(game.num_players, np.inf)
    hi = np.full(game.num_players, -np.inf)
    stack = [game.root()]
    count = 0
    while stack:
        h = stack.pop()
        count += 1
        if count > max_nodes:
            raise SeqformError(f"regret_bound: {game.name!r} has more than {max_nodes:,} nodes; pass r_max")
        p = game.player(h)
        if p == TERMINAL:
            u = np.array([float(x) for x in game.utility(h)])
            lo, hi = np.minimum(lo, u), np.maximum(hi, u)
        else:
            stack.extend(game.next(h, a) for a in range(len(game.actions(h))))
    return float((hi - lo).max())

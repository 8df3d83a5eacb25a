"""Games that declare ordered signals, solved by ``seqform.solve`` through GameShrink.

A game declares that it is a game with ordered signals by returning a
``seqform.model.signalform.OrderedSignals`` from ``ordered_signals()`` (the built-in Leduc does): the
name of the same game built as a ``lossless.OrderedSignalGame``, and what each of its information
sets has seen. ``solve_declared``, which this extension registers with ``seqform.registry``'s
``add_abstraction``, builds that game's lossless abstraction (GameShrink: Gilpin & Sandholm
2007), solves the abstract game's LP (certified exactly, by ``seqform.solve``), and plays the
abstract strategy at each information set of the declaring game's own tree. ``seqform.solve``
then certifies those plans in that tree with exact best responses, so the declaration and the
abstraction are checked, not trusted. On Leduc with 5 ranks the abstract game has 390
information sets a player against the game's 1,380.

References:

- Gilpin & Sandholm (2007), "Lossless Abstraction of Imperfect Information Games", Journal of the ACM.
"""

from __future__ import annotations

import time

import numpy as np

from seqform.errors import UnknownGameError
from seqform.games import load
from seqform.model.game import Game
from seqform.model.signalform import AbstractionPlans, OrderedSignals
from seqform.model.strategy import realization_plan, realization_plan_exact
from seqform.model.tree import Tree

from .errors import AbstractionError
from .exactabstractlp import solve_exactly
from .gameshrink import Abstraction, gameshrink
from .orderedsignals import OrderedSignalGame
from .sequencelayout import SequenceLayout
from .vectorbestresponse import behaviour_from_plan


def solve_declared(
    game: Game,
    tree: Tree,
    *,
    method: str = "auto",
    certify_exact: bool = True,
    exact_limit: int | None = None,
    time_limit: float | None = None,
    memory_limit_bytes: int | None = None,
    progress=None,
) -> AbstractionPlans | None:
    """Plans on ``tree`` (the compiled ``game``) lifted from the solution of the lossless
    abstraction of the game with ordered signals ``game`` declares; None when it declares none,
    the declared game is not one this extension abstracts, the declaration does not match
    ``tree``'s information sets, or the abstract LP's basis has no exact solution. The options
    are ``seqform.solve``'s, for the abstract LP (built from the classes, without a game tree:
    ``lossless.exactabstractlp``)."""
    declared = game.ordered_signals()
    if declared is None or tree.num_players != 2:
        return None
    say = progress or (lambda msg: None)
    try:
        original = load(declared.game) if isinstance(declared.game, str) else declared.game
    except UnknownGameError:
        return None
    if not isinstance(original, OrderedSignalGame) or original.num_players != 2:
        return None
    t0 = time.perf_counter()
    say(f"abstracting {original.name} (GameShrink)")
    ab = gameshrink(original, progress=say)
    secs = {"abstraction": time.perf_counter() - t0}
    extra = {} if exact_limit is None else {"exact_limit": exact_limit}
    found = solve_exactly(
        ab,
        method=method,
        time_limit=time_limit,
        memory_limit_bytes=memory_limit_bytes,
        progress=say,
        exact=certify_exact,
        **extra,
    )
    if found is None:
        return None
    lay = found.layout
    secs["solve"] = found.seconds["solve"]
    if certify_exact:
        secs["basis"] = found.seconds["basis"]
    t = time.perf_counter()
    if certify_exact:
        behaviour = found.behaviour
    else:  # the float LP's own plans, as behaviour
        behaviour = [behaviour_from_plan(lay, i, found.lp.x if i == 0 else found.lp.y).tolist() for i in range(2)]
    lifted = _lift(ab, lay, declared, tree, behaviour)
    if lifted is None:
        return None
    plans = [
        realization_plan_exact(tree, p, lifted[p])
        if certify_exact
        else realization_plan(tree, p, np.asarray(lifted[p]))
        for p in range(2)
    ]
    secs["lift"] = time.perf_counter() - t
    infosets = " / ".join(f"{n:,}" for n in lay.num_infosets)
    sequences = " / ".join(f"{n:,}" for n in lay.num_sequences)
    note = f"the LP of the lossless abstraction, information sets {infosets}; its strategies played in this game"
    sizes = {"infosets": list(lay.num_infosets), "sequences": list(lay.num_sequences)}
    say(f"abstract LP: {infosets} information sets, {sequences} sequences")
    return AbstractionPlans(plans, certify_exact, found.lp.method, sizes, secs, note)


def _lift(ab: Abstraction, lay: SequenceLayout, declared: OrderedSignals, tree: Tree, behaviour: list):
    """Per player, the behavioural strategy on ``tree`` that plays, at each information set, the
    abstract behaviour (per player over ``lay``'s sequences) at the abstract information set of
    what the declaration says the player has seen there; None when an information set has no
    abstract counterpart with as many actions (a wrong declaration)."""
    betting = ab.game.betting
    node_of = {h: v for v, h in enumerate(betting.history)}
    out = []
    for p in range(2):
        b = behaviour[p]
        lifted = [b[0]] * tree.num_sequences[p]
        for m in tree.player_infosets[p].tolist():
            cards, history = declared.observation(tree.infoset_key[m], p)
            v = node_of.get(history)
            k = int(tree.infoset_num_actions[m])
            if v is None or betting.player[v] != p or len(betting.actions[v]) != k or (v, 0) not in lay.base:
                return None
            try:
                c = ab.class_of(p, tuple(cards))
            except (KeyError, IndexError, ValueError, AbstractionError):
                return None
            if not 0 <= c < lay.ncls[p][betting.round[v]]:
                return None
            f = int(tree.infoset_first_seq[m])
            for a in range(k):
                lifted[f + a] = b[lay.base[v, a] + c]
        out.append(lifted)
    return out

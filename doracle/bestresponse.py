"""Best-response oracle on the implicit game (double oracle for EFGs, Bosansky et al. 2014; seed 003).

The double-oracle loop needs best responses in the *full* game to a strategy of the restricted
game, without compiling the full tree. ``best_response`` walks the succinct game depth first:

* at chance nodes every outcome, weighted by its probability;
* at the opponent's nodes only the actions its strategy plays with positive probability; at an
  information set the strategy does not mention, its *default* pure strategy (the first action):
  the "extended strategy" of the paper, so the walk visits the tree restricted to the opponent's
  support and the responder's every action;
* at the responder's nodes every action.

Each leaf adds (chance x opponent reach x the responder's payoff) to the responder's *sequence
payoff* g[sequence], its sequence being the tuple of (information-set key, action index) pairs on
its path. Perfect recall makes the best response a backward pass over the responder's
information sets, deepest first (as ``seqform.bestresponse``, seed 003's sequence form):
best(I) = max_a (g[(I, a)] + sum of best(J) over the information sets J right below (I, a)).
Everything is exact (``Fraction``) when the strategy's probabilities are.

Not yet here: pruning by utility bounds and move ordering (GTLibrary's refinements of this walk).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Hashable, Mapping, Sequence

from seqform.errors import GameError, StrategyError
from seqform.game import CHANCE, TERMINAL, Game


@dataclass
class BestResponse:
    """A pure best response of ``player``: ``value`` (its expected payoff, exact when the
    opponent's strategy is), ``choice`` (information-set key -> action index, at every
    information set the walk met), ``sequences`` (the responder's sequences the best response
    plays: tuples of (key, action index) pairs, the empty one included), ``nodes`` visited."""

    player: int
    value: Fraction | float
    choice: dict
    sequences: set
    nodes: int


def best_response(game: Game, player: int, strategy: Mapping[Hashable, Sequence], *,
                  max_nodes: int | None = None) -> BestResponse:
    """A best response of ``player`` (0 or 1) in the two-player ``game`` to the opponent's
    behavioural ``strategy``: information-set key -> probabilities aligned with ``game.actions``
    there; a key it lacks plays its first action. ``max_nodes`` bounds the walk (``GameError``
    past it). See the module docstring."""
    if game.num_players != 2 or player not in (0, 1):
        raise GameError(f"best_response: a two-player game and player 0 or 1 (got {game.num_players} players, "
                        f"player {player})")
    g: dict = {(): Fraction(0)}
    parent_of: dict = {}   # responder's information-set key -> its parent sequence
    actions_of: dict = {}  # responder's information-set key -> number of actions
    order: list = []       # responder's information sets in discovery order (parents first)
    count = 0
    stack = [(game.root(), Fraction(1), ())]
    while stack:
        h, w, seq = stack.pop()
        count += 1
        if max_nodes is not None and count > max_nodes:
            raise GameError(f"best_response: the walk passed max_nodes={max_nodes:,}")
        p = game.player(h)
        if p == TERMINAL:
            g[seq] = g.get(seq, 0) + w * game.utility(h)[player]
        elif p == CHANCE:
            for a, pr in enumerate(game.chance(h)):
                if pr:
                    stack.append((game.next(h, a), w * pr, seq))
        elif p == player:
            key = game.infoset(h)
            n = len(game.actions(h))
            if key not in parent_of:
                parent_of[key], actions_of[key] = seq, n
                order.append(key)
            elif parent_of[key] != seq:
                raise GameError(f"best_response: information set {key!r} of player {player} is reached after "
                                f"different own sequences (imperfect recall)")
            for a in range(n):
                stack.append((game.next(h, a), w, seq + ((key, a),)))
        else:
            key = game.infoset(h)
            probs = strategy.get(key)
            n = len(game.actions(h))
            if probs is None:
                stack.append((game.next(h, 0), w, seq))
                continue
            if len(probs) != n:
                raise StrategyError(f"the strategy gives {len(probs)} probabilities at information set {key!r}, "
                                    f"which has {n} actions")
            for a, pr in enumerate(probs):
                if pr:
                    stack.append((game.next(h, a), w * pr, seq))
    # backward pass: an information set is discovered after the one above it
    below: dict = {}
    choice: dict = {}
    for key in reversed(order):
        best_a, best_v = 0, None
        for a in range(actions_of[key]):
            s = parent_of[key] + ((key, a),)
            v = g.get(s, 0) + below.get(s, 0)
            if best_v is None or v > best_v:
                best_a, best_v = a, v
        choice[key] = best_a
        ps = parent_of[key]
        below[ps] = below.get(ps, 0) + best_v
    value = g[()] + below.get((), 0)
    played = {()}
    for key in order:  # parents first: a sequence is played if its parent is and the choice is its action
        ps = parent_of[key]
        if ps in played:
            played.add(ps + ((key, choice[key]),))
    return BestResponse(player, value, choice, played, count)

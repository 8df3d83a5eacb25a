"""Best-response oracle on the implicit game (double oracle for EFGs, Bosansky et al. 2014; Bosansky 2019).

The double-oracle loop needs best responses in the *full* game to a strategy of the restricted
game, without compiling the full tree. ``best_response`` searches the succinct game depth first,
against the opponent's *extended* strategy (its restricted strategy, completed by its default
pure strategy, the first action, wherever the restricted strategy says nothing):

* at chance nodes every outcome, weighted by its probability;
* at the opponent's nodes only the actions it plays with positive probability (the first action
  at an information set the strategy does not mention);
* at the responder's nodes every action; an information set's nodes are evaluated together.

The search is organised by the responder's sequences. ``_Search.sequence(s, frontier, alpha)``
takes every node reached when the responder's own sequence is ``s`` (with its weight: chance
times opponent reach), walks through chance and opponent nodes to the leaves (their weighted
payoff is added) and to the responder's next information sets, and for each information set I
takes the best action: value(s) = leaves + sum over I of max_a value(s + (I, a)). Perfect recall
makes every information set hang below one sequence, so this is the sequence form's backward
induction (Bosansky 2019), and each sequence is visited once.

Pruning by utility bounds (the game's ``utility_bound``): a sequence is searched only as far as
needed to know whether its value exceeds a threshold ``alpha`` (the value of the best action
found so far at the information set above, or what the information set must reach for its parent
sequence to matter). Its upper bound is the exact part found so far plus, for the rest, the
weighted bounds of the nodes not yet searched; once that is at most ``alpha`` the search of the
sequence stops (a "fail low": the action is not chosen, and no value is reported for it). This is
Ballard's Star1 pruning for expectimax trees, applied to information sets instead of nodes.

Move ordering: at a sequence, the heavier information sets (larger total weight) first, so the
bounds tighten fast; at an information set, the action of the previous best response (``hint``)
first, so a good threshold is found early.

Everything is exact: weights and values are ``flint.fmpq`` rationals (fast, exact), and the
returned value is a ``Fraction``.

References:

- Bosansky (2019), "Solving Extensive-Form Games", lecture, Multiagent Systems, Czech Technical University in Prague.
- Bosansky, Kiekintveld, Lisy & Pechoucek (2014), "An Exact Double-Oracle Algorithm for Zero-Sum Extensive-Form Games
  with Imperfect Information", JAIR.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import flint

from seqform.errors import GameError, StrategyError
from seqform.exact.rationals import fmpq_of
from seqform.model.game import CHANCE, TERMINAL, Game


@dataclass
class BestResponse:
    """A pure best response of ``player``: ``value`` (its expected payoff, exact), ``choice``
    (information-set key -> action index, at every information set whose value the search
    determined exactly; all of those on the best response's own path are among them),
    ``sequences`` (the responder's sequences the best response plays: tuples of (key, action
    index) pairs, the empty one included), ``nodes`` visited, ``pruned`` (sequences whose search
    stopped early)."""

    player: int
    value: Fraction
    choice: dict
    sequences: set
    nodes: int
    pruned: int = 0


def best_response(
    game: Game,
    player: int,
    strategy: Mapping[Hashable, Sequence],
    *,
    max_nodes: int | None = None,
    prune: bool = True,
    hint: Mapping[Hashable, int] | None = None,
) -> BestResponse:
    """A best response of ``player`` (0 or 1) in the two-player ``game`` to the opponent's
    behavioural ``strategy``: information-set key -> probabilities aligned with ``game.actions``
    there (exact numbers); a key it lacks plays its first action. ``max_nodes`` bounds the search
    (``GameError`` past it). ``prune``: use the game's ``utility_bound`` (no pruning when the game
    has none). ``hint``: information-set key -> the action to try first (e.g. the previous best
    response). See the module docstring."""
    if game.num_players != 2 or player not in (0, 1):
        raise GameError(
            f"best_response: a two-player game and player 0 or 1 (got {game.num_players} players, player {player})"
        )
    root = game.root()
    bounded = prune and game.utility_bound(root, player) is not None
    search = _Search(game, player, strategy, max_nodes, bounded, hint or {})
    value, exact = search.sequence((), [(root, flint.fmpq(1))], None)
    assert exact  # no threshold at the root, so nothing can fail low there
    played = {()}
    for key in search.order:  # parents first: a sequence is played if its parent is and it is chosen
        ps = search.parent_of[key]
        if ps in played and key in search.choice:
            played.add(ps + ((key, search.choice[key]),))
    return BestResponse(
        player, Fraction(int(value.p), int(value.q)), search.choice, played, search.count, search.pruned
    )


def state_value(
    game: Game, state, player: int, strategy: Mapping[Hashable, Sequence] | None = None, *, prune: bool = True
) -> Fraction:
    """The best-response value of ``player`` below ``state`` (the search of ``best_response``
    started at ``state`` with weight 1): what ``player`` gets at ``state`` when it knows it is
    there and the opponent plays its extended ``strategy`` (default: its first action
    everywhere). The double-oracle loop values temporary leaves with it."""
    bounded = prune and game.utility_bound(state, player) is not None
    search = _Search(game, player, strategy or {}, None, bounded, {})
    value, _ = search.sequence((), [(state, flint.fmpq(1))], None)
    return Fraction(int(value.p), int(value.q))


class _Search:
    """The state of one best-response search (module docstring)."""

    def __init__(self, game: Game, player: int, strategy: Mapping, max_nodes: int | None, bounded: bool, hint: Mapping):
        self.game, self.player, self.strategy = game, player, strategy
        self.max_nodes, self.bounded, self.hint = max_nodes, bounded, hint
        self.probs: dict = {}  # opponent's information-set key -> fmpq probabilities (converted once)
        self.parent_of: dict = {}  # responder's information-set key -> its parent sequence
        self.order: list = []  # responder's information sets in discovery order (parents first)
        self.choice: dict = {}
        self.count = 0
        self.pruned = 0

    def _opponent(self, h) -> tuple:
        key = self.game.infoset(h)
        got = self.probs.get(key)
        if got is None:
            n = len(self.game.actions(h))
            raw = self.strategy.get(key)
            if raw is None:
                got = ((0, flint.fmpq(1)),)
            else:
                if len(raw) != n:
                    raise StrategyError(
                        f"the strategy gives {len(raw)} probabilities at information set {key!r}, which has {n} actions"
                    )
                got = tuple((a, fmpq_of(p)) for a, p in enumerate(raw) if p)
            self.probs[key] = got
        return got

    def _bound(self, h):
        return fmpq_of(self.game.utility_bound(h, self.player))

    def sequence(self, seq: tuple, frontier: list, alpha):
        """(value, exact) of the responder's sequence ``seq``: the weighted payoff of everything
        below the nodes ``frontier`` [(state, weight)] when the responder plays best. With a
        threshold ``alpha`` (None: none) the search may stop once the value is known to be at
        most ``alpha``: it then returns (None, False)."""
        game, me = self.game, self.player
        if self.bounded and alpha is not None:
            if sum((w * self._bound(h) for h, w in frontier), flint.fmpq(0)) <= alpha:
                self.pruned += 1
                return None, False
        base = flint.fmpq(0)
        groups: dict = {}
        stack = list(frontier)
        while stack:
            h, w = stack.pop()
            self.count += 1
            if self.max_nodes is not None and self.count > self.max_nodes:
                raise GameError(f"best_response: the search passed max_nodes={self.max_nodes:,}")
            p = game.player(h)
            if p == TERMINAL:
                base += w * fmpq_of(game.utility(h)[me])
            elif p == CHANCE:
                for a, pr in enumerate(game.chance(h)):
                    if pr:
                        stack.append((game.next(h, a), w * fmpq_of(pr)))
            elif p == me:
                key = game.infoset(h)
                nodes = groups.get(key)
                if nodes is None:
                    known = self.parent_of.get(key)
                    if known is None:
                        self.parent_of[key] = seq
                        self.order.append(key)
                    elif known != seq:
                        raise GameError(
                            f"best_response: information set {key!r} of player {me} is reached "
                            f"after different own sequences (imperfect recall)"
                        )
                    nodes = groups[key] = []
                nodes.append((h, w))
            else:
                for a, pr in self._opponent(h):
                    stack.append((game.next(h, a), w * pr))
        weight = {key: sum((w for _, w in nodes), flint.fmpq(0)) for key, nodes in groups.items()}
        keys = sorted(groups, key=lambda k: weight[k], reverse=True)
        if self.bounded and alpha is not None:
            ub = {key: sum((w * self._bound(h) for h, w in groups[key]), flint.fmpq(0)) for key in keys}
            rest = sum(ub.values(), flint.fmpq(0))
            if base + rest <= alpha:
                self.pruned += 1
                return None, False
        else:
            ub = None
        done = base
        for key in keys:
            nodes = groups[key]
            if ub is not None:
                rest -= ub[key]
                need = alpha - done - rest  # the information set's value must exceed this to matter
            else:
                need = None
            n = len(game.actions(nodes[0][0]))
            first = self.hint.get(key, 0)
            best, best_a = None, None
            for a in ([first] + [b for b in range(n) if b != first]) if 0 <= first < n else range(n):
                thr = need if best is None else (best if need is None or best > need else need)
                v, exact = self.sequence(seq + ((key, a),), [(game.next(h, a), w) for h, w in nodes], thr)
                if exact and (thr is None or v > thr):
                    best, best_a = v, a
            if best is None:  # no action beats ``need``: the sequence cannot beat ``alpha``
                self.pruned += 1
                return None, False
            self.choice[key] = best_a
            done += best
        return done, True

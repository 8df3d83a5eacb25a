"""Games with ordered signals (Gilpin & Sandholm 2007; Sandholm 2010, "Lossless Information Abstraction").

A game with ordered signals has rounds. At the start of round r, cards (signals) are drawn
without replacement from a deck: ``private[r][i]`` cards that only player i sees, then
``public[r]`` cards that everyone sees. Then the players bet on a tree that does not depend on the
cards (``lossless.betting.Betting``). A leaf is either a fold, whose payoff depends on the betting
only, or a showdown, whose payoff depends on the betting and on who is ahead: a total order on
*complete signal sets* (a player's private cards with all public cards), given by ``rank``.

``OrderedSignalGame`` is also a ``seqform.Game`` (the succinct interface), so the core compiles
and solves it directly; ``lossless.gameshrink`` works on its signals instead.

The order of deals is the *signal tree* of the paper: one level per card, round by round, and in
a round player 0's private cards, then player 1's, ..., then the public cards. A player's
observation after level k is the tuple of the cards at the levels it sees (its own and public).

References:

- Sandholm (2010), "The State of Solving Large Incomplete-Information Games, and Application to Poker", AI Magazine.
- Gilpin & Sandholm (2007), "Lossless Abstraction of Imperfect Information Games", Journal of the ACM.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from seqform.games.labels import join
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.model.signalform import OrderedSignals

from .betting import DECIDE, FOLD, SHOWDOWN, Betting
from .errors import OrderedSignalError
from .treesizes import game_tree_nodes, sequence_form_sizes

PUBLIC = -1
#: ``lossless.betting.limit_betting``'s action letters, spelled out for strategy files
_ACTION_NAMES = {"k": "Check", "b": "Bet", "f": "Fold", "c": "Call", "r": "Raise"}


class OrderedSignalGame(Game):
    """A game with ordered signals.

    ``deck``: card labels (cards are their indices); ``weights``: optional positive exact weights,
    a card being drawn with probability proportional to its weight among the cards left (default:
    uniform, the usual deck). ``private``: per round, the number of private cards each player gets;
    ``public``: per round, the number of public cards. ``betting``: the betting form over the
    rounds. ``rank(cards)``: a comparable key of a complete signal set, given as a sorted tuple of
    card indices (higher is better, equal is a tie).

    State: ``(cards, v)``: the cards dealt so far in signal-tree order, and the betting node ``v``
    (never a ``NEXT`` node: moving there goes straight on to the next round's first node).
    Information-set key of player i: ``(its observation, v)``.
    """

    def __init__(
        self,
        deck: Sequence[str],
        private: Sequence[Sequence[int]],
        public: Sequence[int],
        betting: Betting,
        rank: Callable[[tuple], Any],
        weights: Sequence | None = None,
        name: str = "ordered-signal game",
    ):
        self.deck = tuple(str(c) for c in deck)
        self.num_players = betting.num_players
        self.name = name
        self.betting = betting
        self.rank = rank
        if len(private) != betting.num_rounds or len(public) != betting.num_rounds:
            raise OrderedSignalError(
                f"{name}: the betting has {betting.num_rounds} rounds but the deals give "
                f"{len(private)} private and {len(public)} public entries"
            )
        levels = []
        for r in range(betting.num_rounds):
            if len(private[r]) != self.num_players:
                raise OrderedSignalError(
                    f"{name}: round {r} deals private cards to {len(private[r])} players, not {self.num_players}"
                )
            for i, k in enumerate(private[r]):
                levels += [(i, r)] * int(k)
            levels += [(PUBLIC, r)] * int(public[r])
        if any(int(k) < 0 for row in private for k in row) or any(int(k) < 0 for k in public):
            raise OrderedSignalError(f"{name}: a negative number of cards is dealt")
        if len(levels) > len(self.deck):
            raise OrderedSignalError(f"{name}: {len(levels)} cards are dealt from a deck of {len(self.deck)}")
        self.levels = tuple(levels)
        self.private = tuple(tuple(int(k) for k in row) for row in private)
        self.public = tuple(int(k) for k in public)
        #: number of levels dealt before round r's betting starts
        self.dealt_by = tuple(sum(1 for (_, rr) in levels if rr <= r) for r in range(betting.num_rounds))
        #: per player, the levels it observes
        self.observed = tuple(
            tuple(k for k, (o, _) in enumerate(levels) if o in (i, PUBLIC)) for i in range(self.num_players)
        )
        if weights is None:
            self.weights = None
        else:
            if len(weights) != len(self.deck):
                raise OrderedSignalError(f"{name}: {len(weights)} weights for {len(self.deck)} cards")
            ws = []
            for c, w in zip(self.deck, weights):
                if isinstance(w, float) or not Fraction(w) > 0:
                    raise OrderedSignalError(f"{name}: card {c!r} has weight {w!r}; weights must be exact and positive")
                ws.append(Fraction(w))
            self.weights = tuple(ws)
        self._probs: dict = {}

    # --- the signals -----------------------------------------------------------------------
    def observation(self, cards: tuple, i: int) -> tuple:
        """Player i's observation: the cards it has seen, in the order dealt."""
        return tuple(cards[k] for k in self.observed[i] if k < len(cards))

    def complete_set(self, cards: tuple, i: int) -> tuple:
        """Player i's complete signal set (its private cards and every public card), sorted."""
        return tuple(sorted(c for k, c in enumerate(cards) if self.levels[k][0] in (i, PUBLIC)))

    def outcome(self, cards: tuple) -> tuple:
        """For each player, how many players' complete signal sets rank strictly above its own."""
        ranks = [self.rank(self.complete_set(cards, i)) for i in range(self.num_players)]
        return tuple(sum(r > mine for r in ranks) for mine in ranks)

    def draw_probabilities(self, cards: tuple) -> tuple:
        """Probabilities of the cards left (in deck order) being drawn next."""
        key = frozenset(cards)
        p = self._probs.get(key)
        if p is None:
            left = [c for c in range(len(self.deck)) if c not in key]
            if self.weights is None:
                p = (Fraction(1, len(left)),) * len(left)
            else:
                total = sum(self.weights[c] for c in left)
                p = tuple(self.weights[c] / total for c in left)
            self._probs[key] = p
        return p

    # --- the succinct game interface --------------------------------------------------------
    def root(self):
        return ((), 0)

    def player(self, h):
        cards, v = h
        if len(cards) < self.dealt_by[self.betting.round[v]]:
            return CHANCE
        k = self.betting.kind[v]
        return self.betting.player[v] if k == DECIDE else TERMINAL

    def infoset(self, h):
        cards, v = h
        return (self.observation(cards, self.betting.player[v]), v)

    def actions(self, h):
        cards, v = h
        if len(cards) < self.dealt_by[self.betting.round[v]]:
            return tuple(self.deck[c] for c in range(len(self.deck)) if c not in cards)
        return self.betting.actions[v]

    def chance(self, h):
        return self.draw_probabilities(h[0])

    def next(self, h, a):
        cards, v = h
        if len(cards) < self.dealt_by[self.betting.round[v]]:
            left = [c for c in range(len(self.deck)) if c not in cards]
            return (cards + (left[a],), v)
        return (cards, self.betting.after(v, a))

    def utility(self, h):
        cards, v = h
        if self.betting.kind[v] == FOLD:
            return self.betting.payoff[v]
        if self.betting.kind[v] == SHOWDOWN:
            return self.betting.payoff[v][self.outcome(cards)]
        raise OrderedSignalError(f"{self.name}: utility asked at a non-leaf {self.describe(h)}")

    def num_nodes_hint(self) -> int:
        return game_tree_nodes(self)

    def lp_size_hint(self) -> tuple[int, int, int] | None:
        """(rows, columns, nonzeros of E and F) of the original game's sequence-form LP from the
        betting tree and the deck alone (``lossless.treesizes.sequence_form_sizes``): what
        ``seqform.solve`` checks against the memory limit before it builds anything. Player i's
        observations in round r are the orderings of the cards it has seen by then."""
        if self.num_players != 2:
            return None
        seen = [
            [
                math.perm(len(self.deck), sum(1 for k in self.observed[i] if k < self.dealt_by[r]))
                for r in range(self.betting.num_rounds)
            ]
            for i in range(2)
        ]
        s = sequence_form_sizes(self.betting, seen)
        (i0, i1), (s0, s1) = s["infosets"], s["sequences"]
        return 1 + i0 + s1, s0 + 1 + i1, s0 + i0 + s1 + i1

    def describe(self, h):
        cards, v = h
        return f"cards={[self.deck[c] for c in cards]} betting={self.betting.history[v]!r}"

    def infoset_name(self, key, player: int) -> str:
        """``"Kh/Qs Qd | kk/b"``: the cards the player has seen by their deck labels, round by
        round (its private cards then the public ones, rounds split by "/"), then the betting
        node's history (``Betting.history``: "k" check, "b" bet, "f" fold, "c" call, "r" raise)."""
        obs, v = key
        by_round: list = [[] for _ in range(self.betting.round[v] + 1)]
        for k, c in zip(self.observed[player], obs):
            by_round[self.levels[k][1]].append(self.deck[c])
        return join("/".join(" ".join(r) for r in by_round), self.betting.history[v])

    def ordered_signals(self) -> OrderedSignals:
        """The game declares itself (``seqform.model.signalform``): ``seqform.solve`` solves its
        lossless abstraction and certifies the strategies in this game."""
        return OrderedSignals(self, self._observation)

    def _observation(self, key, player: int) -> tuple:
        """An information set's key as ``OrderedSignals`` states it: the cards seen, the betting."""
        observation, v = key
        return tuple(observation), self.betting.history[v]

    def action_name(self, key, action: str) -> str:
        """The betting letters spelled out ("k" -> "Check", as Leduc's "Call", "Raise"); other
        labels as they are."""
        return _ACTION_NAMES.get(action, action)

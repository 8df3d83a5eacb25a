"""The succinct game interface (Dudik & Gordon 2009, section 2.1).

A game is given by queries, not by an explicit tree: the root, who acts at a node, the information
set of a decision node, the actions there, the node after an action, chance probabilities and
utilities at leaves. ``seqform.model.tree.compile_tree`` walks these queries once and stores the tree as
flat numpy arrays; every algorithm works on that compiled form.

States may be any Python objects; seqform never hashes or compares them. Information-set keys
must be hashable, and are compared per player (two players may use the same key for different
information sets).

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

from seqform.errors import GameError
from seqform.model.signalform import OrderedSignals

CHANCE = -1
TERMINAL = -2

Number = "int | Fraction"


class Game(ABC):
    """A finite extensive-form game given succinctly.

    Subclasses implement the queries below. ``player(h)`` returns ``0 .. num_players-1`` for a
    decision node, ``CHANCE`` (-1) for a chance node and ``TERMINAL`` (-2) for a leaf.
    Chance probabilities and utilities should be exact numbers (``int`` or ``Fraction``); floats
    are accepted only where they are exactly representable as what they mean (see the compiler).
    """

    #: a short name, e.g. ``"leduc(ranks=3,suits=2)"``
    name: str = "game"
    #: number of players, chance excluded
    num_players: int = 2

    @abstractmethod
    def root(self) -> Any:
        """The initial state h_start."""

    @abstractmethod
    def player(self, h: Any) -> int:
        """Player to act at ``h``: 0..N-1, CHANCE or TERMINAL."""

    @abstractmethod
    def infoset(self, h: Any) -> Hashable:
        """Key of the acting player's information set at decision node ``h``."""

    @abstractmethod
    def actions(self, h: Any) -> Sequence[str]:
        """Labels of the actions (or chance outcomes) at a non-terminal node, in a fixed order."""

    @abstractmethod
    def next(self, h: Any, a: int) -> Any:
        """The state after taking action number ``a`` (an index into ``actions(h)``) at ``h``."""

    def chance(self, h: Any) -> Sequence[int | Fraction]:
        """Probabilities of the chance outcomes at chance node ``h``, aligned with ``actions(h)``."""
        raise NotImplementedError(f"{type(self).__name__} has chance nodes but no chance()")

    @abstractmethod
    def utility(self, h: Any) -> Sequence[int | Fraction]:
        """Utility of each player at leaf ``h`` (length ``num_players``)."""

    def num_nodes_hint(self) -> int | None:
        """The exact number of nodes of the game tree when the game can count them without
        walking the tree, else None. The compiler uses it to refuse a game over the memory limit
        at once, before building anything.

        The default counts through ``size_key`` when the game defines it: the number of nodes
        below ``h`` is the same for all histories with one key, so each key's subtree is counted
        once (memoised). A game without ``size_key`` (the base class's) returns None; a game that
        knows a closed form overrides this method."""
        if type(self).size_key is Game.size_key:
            return None
        return count_nodes(self)

    def size_key(self, h: Any) -> Any:
        """A hashable key of ``h`` such that any two histories with equal keys have subtrees with
        the same number of nodes (for example: the number of cards dealt and the betting
        history, when the cards change no one's actions). Defining it makes ``num_nodes_hint``
        count the tree in time proportional to the number of distinct keys."""
        raise NotImplementedError

    def utility_bound(self, h: Any, player: int) -> int | Fraction | None:
        """An upper bound on ``player``'s utility at every leaf below ``h`` (``h`` included), or
        None when the game knows none (the default). Best-response searches prune with it (the best-response
        oracle of double oracle, Bosansky et al. 2014); a wrong bound gives wrong best responses, so
        a game should return one only when it is sure."""
        return None

    def ordered_signals(self) -> OrderedSignals | None:
        """The game's declaration that it is a game with ordered signals
        (``seqform.model.signalform.OrderedSignals``), or None (the default). ``seqform.solve``
        then solves its lossless abstraction when an extension provides one, and certifies the
        strategies in this game; a wrong declaration costs time, never a wrong answer."""
        return None

    def describe(self, h: Any) -> str:
        """A human-readable name of state ``h`` for error messages (default: ``repr``)."""
        return repr(h)

    #: the players' names in order (e.g. ``("defender", "attacker")``, a Gambit file's), or ``()``
    #: when the game does not name them; printed strategies and drawn trees show them
    player_names: tuple = ()

    def infoset_name(self, key: Hashable, player: int) -> str:
        """A short readable name of ``player``'s information set with key ``key``: what strategy files
        (``seqform.io.strategyjson``) and printed strategies call it.

        Default ``str(key)``. The built-in games write what the player knows, then what has been
        played, as ``"OBSERVED | HISTORY"`` (``"Q | pb"``: holding the queen after pass, bet),
        leaving out an empty part (``"Q"``), ``"start"`` when both are empty; ``seqform.games.labels``
        has the pieces. Labels must be unique among one player's information sets; when they are
        not, strategy files fall back to ``str(key)`` for that player."""
        return str(key)

    def action_name(self, key: Hashable, action: str) -> str:
        """A readable name of the action labelled ``action`` (``actions(h)``'s string) at the
        information set ``key``, for strategy files and printed strategies (default: ``action``).
        Must be unique within the information set; strategy files also accept ``action``."""
        return action

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def count_nodes(game: Game) -> int:
    """The number of nodes of ``game``'s tree by the memoised walk over ``game.size_key`` (see
    ``Game.num_nodes_hint``): each distinct key is expanded once, so the work is the number of
    distinct keys times their branching, not the size of the tree."""
    memo: dict = {}
    root = game.root()
    # an explicit stack (deep games would exhaust Python's recursion limit): (history, key, children
    # still to visit, subtotal)
    stack = [(root, game.size_key(root))]
    pending: dict = {}
    while stack:
        h, key = stack[-1]
        if key in memo:
            stack.pop()
            continue
        if key not in pending:
            kids = [] if game.player(h) == TERMINAL else [game.next(h, a) for a in range(len(game.actions(h)))]
            pending[key] = [(k, game.size_key(k)) for k in kids]
        todo = [kk for kk in pending[key] if kk[1] not in memo]
        if todo:
            if any(kk[1] in pending for kk in todo):
                raise GameError(f"{game.name}: size_key repeats along a path of the tree; it cannot count nodes")
            stack.extend(todo)
            continue
        memo[key] = 1 + sum(memo[kk[1]] for kk in pending.pop(key))
        stack.pop()
    return memo[game.size_key(root)]

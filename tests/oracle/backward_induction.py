"""Backward induction by plain recursion over the succinct game (Kuhn 1953; Zermelo 1913): an
oracle for games of perfect information with any number of players and any payoffs. It walks the
game's histories through the ``seqform.model.game.Game`` queries (``root``, ``player``,
``infoset``, ``actions``, ``next``, ``chance``, ``utility``), in ``Fraction`` arithmetic, and
uses neither the compiled ``Tree`` nor ``seqform.exact.backwardinduction``: test code only, for
small games.

At a leaf the value vector is the utilities; at a chance node the probability-weighted sum of the
children's; at a decision node of player i the value of the child the continuation takes, and the
node's *optimal actions* are every action whose child's value for i is the largest (all of them:
ties are kept). A pure profile of a finite game of perfect information is subgame perfect
(Selten 1975) if and only if, at every decision node, reached or not, its action is optimal given
its own continuation below (the one-shot deviation principle, a consequence of backward induction
in Kuhn 1953).

Which optimal action the continuation takes is ``choose(player, key, optimal)`` (default: the
lowest index). In a two-player constant-sum game it changes neither the values nor any node's
optimal set (a subgame has one value); with general payoffs it can change both (the mover is
indifferent, the others need not be). A test of a reported pure profile passes a ``choose`` that
takes the profile's own action whenever that is optimal, and asserts that it always is: then the
oracle's values are the profile's values, computed from the payoffs independently.

References:

- Kuhn, H. W. (1953). "Extensive Games and the Problem of Information." In Contributions to the
  Theory of Games II, Annals of Mathematics Studies 28, 193-216.
- Selten, R. (1975). "Reexamination of the Perfectness Concept for Equilibrium Points in
  Extensive Games." International Journal of Game Theory 4, 25-55.
- Zermelo, E. (1913). "Uber eine Anwendung der Mengenlehre auf die Theorie des Schachspiels."
  Proceedings of the Fifth International Congress of Mathematicians, 501-504.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction

from seqform.model.game import CHANCE, TERMINAL, Game

#: ``choose(player, infoset_key, optimal_actions) -> action index``
Chooser = Callable[[int, Hashable, frozenset], int]


def lowest(player: int, key: Hashable, optimal: frozenset) -> int:
    """The default tie-break: the lowest optimal action index."""
    return min(optimal)


def highest(player: int, key: Hashable, optimal: frozenset) -> int:
    """The other extreme tie-break: the highest optimal action index."""
    return max(optimal)


@dataclass
class OracleSolution:
    """What the oracle found. ``values``: each player's exact value at the root (Fractions) under
    the continuation it took. Per decision node, keyed by ``(player, infoset key)`` (one node per
    key: perfect information): ``optimal`` (frozenset of optimal action indices, ties included),
    ``chosen`` (the action the continuation takes), ``node_values`` (the node's value vector),
    ``cut_by`` (the players whose chosen actions on the path to the node lead elsewhere) and
    ``chance_reaches`` (no chance outcome of probability 0 on that path). The continuation
    reaches a node iff ``cut_by`` is empty and ``chance_reaches``; the node's own player cuts it
    off himself iff he is in ``cut_by``."""

    values: tuple
    optimal: dict = field(default_factory=dict)
    chosen: dict = field(default_factory=dict)
    node_values: dict = field(default_factory=dict)
    cut_by: dict = field(default_factory=dict)
    chance_reaches: dict = field(default_factory=dict)

    def own_cut(self) -> list:
        """The decision nodes ``(player, key)`` that their own player's earlier choice cuts off."""
        return [k for k, players in self.cut_by.items() if k[0] in players]


def backward_induction(game: Game, choose: Chooser = lowest) -> OracleSolution:
    """Backward induction over ``game`` by recursion (module docstring): every player's exact
    value, and at every decision node the set of optimal actions and the one taken.

    Raises ``ValueError`` if two decision nodes share a ``(player, infoset key)`` (the game is not
    of perfect information) or ``choose`` picks an action that is not optimal."""
    out = OracleSolution(())
    out.values = _value(game, game.root(), choose, out)
    _mark(game, game.root(), frozenset(), True, out)
    return out


def _value(game: Game, h, choose: Chooser, out: OracleSolution) -> tuple:
    """The value vector of the subgame at ``h`` (Fractions), recording its decision nodes."""
    p = game.player(h)
    if p == TERMINAL:
        return tuple(Fraction(u) for u in game.utility(h))
    n = len(game.actions(h))
    if p == CHANCE:
        probs = [Fraction(q) for q in game.chance(h)]
        kids = [_value(game, game.next(h, a), choose, out) for a in range(n)]
        return tuple(sum((q * v[i] for q, v in zip(probs, kids)), Fraction(0)) for i in range(len(kids[0])))
    key = (p, game.infoset(h))
    if key in out.optimal:
        raise ValueError(
            f"{game.name}: player {p}'s information set {key[1]!r} has two nodes; "
            "backward induction needs perfect information"
        )
    out.optimal[key] = frozenset()  # claims the key before the children are visited
    kids = [_value(game, game.next(h, a), choose, out) for a in range(n)]
    best = max(v[p] for v in kids)
    optimal = frozenset(a for a, v in enumerate(kids) if v[p] == best)
    a = choose(p, key[1], optimal)
    if a not in optimal:
        raise ValueError(f"choose took action {a} at {key!r}; the optimal actions are {sorted(optimal)}")
    out.optimal[key], out.chosen[key], out.node_values[key] = optimal, a, kids[a]
    return kids[a]


def _mark(game: Game, h, cut_by: frozenset, chance_reaches: bool, out: OracleSolution) -> None:
    """Top-down, after ``_value``: who cuts each decision node off, and whether chance reaches it."""
    p = game.player(h)
    if p == TERMINAL:
        return
    n = len(game.actions(h))
    if p == CHANCE:
        for a, q in enumerate(game.chance(h)):
            _mark(game, game.next(h, a), cut_by, chance_reaches and Fraction(q) > 0, out)
        return
    key = (p, game.infoset(h))
    out.cut_by[key], out.chance_reaches[key] = cut_by, chance_reaches
    for a in range(n):
        _mark(game, game.next(h, a), cut_by if a == out.chosen[key] else cut_by | {p}, chance_reaches, out)

"""Liar's Dice for two players, as OpenSpiel's ``liars_dice`` (default ``reset-face`` bidding rule).

Rules (OpenSpiel ``liars_dice(numdice=D, dice_sides=S)``, whose tree this reproduces node for
node): chance rolls player 0's ``D`` dice one at a time, then player 1's ``D`` dice (each roll a
separate chance node with ``S`` equally likely outcomes, so there are ``S**(2D)`` ordered deals).
Each player sees only their own dice, as a sorted multiset (OpenSpiel sorts the rolls before play,
so rolling 1 then 2 and rolling 2 then 1 are the same information). Player 0 bids first and the
players alternate. A bid ``q-f`` claims that at least ``q`` of all ``2D`` dice show face ``f``
(``q`` in ``1..2D``, ``f`` in ``1..S``); bids are ranked ``(q - 1) * S + (f - 1)`` and each bid
must rank strictly higher than the previous one. Instead of bidding, a player may call "Liar"
once at least one bid has been made; that ends the game. The face ``S`` is wild: a die counts for
face ``f`` if it shows ``f`` or ``S``. If the dice counting for the last bid's face number at least
its quantity, the bidder wins, else the caller wins. Payoffs are +1 to the winner, -1 to the loser.

An information set is the player's sorted dice together with the whole bid sequence (OpenSpiel's
information-state string). With ``N = 2DS`` bids, every deal has ``2**N`` non-terminal bid
sequences and ``2**N - 1`` leaves, so the tree has ``(S**(2D) - 1) / (S - 1)`` chance nodes plus
``S**(2D) * (2**(N+1) - 1)`` further histories, and each player has ``C(D+S-1, D) * 2**(N-1)``
information sets.

Sizes (histories / terminals / information sets per player / sequences per player, empty sequence
included), all equal to OpenSpiel's:

=========  =========  ========  =======  =========
dice,sides histories  terminals infosets sequences
=========  =========  ========  =======  =========
1, 3       1,147      567       96       190
1, 4       8,181      4,080     512      1,021
2, 2       8,191      4,080     384      766
1, 6       294,883    147,420   12,288   24,571
=========  =========  ========  =======  =========
"""

from __future__ import annotations

from fractions import Fraction

from seqform.errors import UnknownGameError
from seqform.games.labels import join
from seqform.model.game import CHANCE, TERMINAL, Game

LIAR = "Liar"


class LiarsDice(Game):
    """State: ``(dice, bids)``.

    ``dice`` is the tuple of rolls so far (faces ``1..S``; player 0's ``D`` rolls first, unsorted,
    in the order chance rolled them); ``bids`` is the tuple of bid ranks ``0..N-1`` made so far,
    ending in ``N`` (= Liar) at a leaf.
    """

    num_players = 2

    def __init__(self, dice: int = 1, sides: int = 6):
        if not isinstance(dice, int) or not isinstance(sides, int) or dice < 1 or sides < 1:
            raise UnknownGameError(f"liars_dice needs dice >= 1 and sides >= 1; got dice={dice!r}, sides={sides!r}")
        self.dice, self.sides = dice, sides
        self.num_bids = nb = 2 * dice * sides  # bid ranks 0..nb-1; nb is "Liar"
        self._nroll = 2 * dice
        self.name = f"liars_dice(dice={dice},sides={sides})"
        labels = tuple(f"{b // sides + 1}-{b % sides + 1}" for b in range(nb))
        # actions after last bid rank `last` (index last + 1): the higher bids, then Liar (once a bid exists)
        self._acts = (labels,) + tuple(labels[b + 1 :] + (LIAR,) for b in range(nb))
        self._rolls = tuple(f"Roll {f}" for f in range(1, sides + 1))
        self._probs = (Fraction(1, sides),) * sides
        self._views: dict = {}  # full deal -> (player 0's sorted dice, player 1's sorted dice)
        self._counts: dict = {}  # full deal -> matches per face index 0..S-1 (wild face S included)
        self._payoffs = {1: (1, -1), -1: (-1, 1)}  # shared by the leaves: fewer objects to keep

    def _view(self, dice):
        v = self._views.get(dice)
        if v is None:
            d = self.dice
            v = self._views[dice] = (tuple(sorted(dice[:d])), tuple(sorted(dice[d:])))
        return v

    def root(self):
        return ((), ())

    def player(self, h):
        dice, bids = h
        if len(dice) < self._nroll:
            return CHANCE
        if bids and bids[-1] == self.num_bids:
            return TERMINAL
        return len(bids) & 1

    def infoset(self, h):
        dice, bids = h
        return (self._view(dice)[len(bids) & 1], bids)

    def actions(self, h):
        dice, bids = h
        if len(dice) < self._nroll:
            return self._rolls
        return self._acts[bids[-1] + 1 if bids else 0]

    def chance(self, h):
        return self._probs

    def size_key(self, h):
        # the dice rolled change no one's actions: how many are rolled and the last bid fix the subtree
        dice, bids = h
        return (len(dice), bids[-1] if bids else -1)

    def next(self, h, a):
        dice, bids = h
        if len(dice) < self._nroll:
            return (dice + (a + 1,), bids)
        return (dice, bids + ((bids[-1] + 1 if bids else 0) + a,))

    def utility(self, h):
        dice, bids = h
        counts = self._counts.get(dice)
        if counts is None:
            S = self.sides
            counts = self._counts[dice] = tuple(sum(1 for x in dice if x == f or x == S) for f in range(1, S + 1))
        bid = bids[-2]
        caller = (len(bids) - 1) & 1
        bidder_wins = counts[bid % self.sides] >= bid // self.sides + 1
        return self._payoffs[1 if bidder_wins == (caller == 1) else -1]

    def describe(self, h):
        dice, bids = h
        names = [self._acts[0][b] if b < self.num_bids else LIAR for b in bids]
        return f"dice={dice} bids={' '.join(names)!r}"

    def infoset_name(self, key, player: int) -> str:
        """``"2 5 | 1-3 2-6"``: the player's dice (faces, sorted), then the bids so far as OpenSpiel's
        ``"25 1-3 2-6"`` writes them (quantity-face)."""
        dice, bids = key
        return join(" ".join(map(str, dice)), " ".join(self._acts[0][b] for b in bids))


def liars_dice(dice: int = 1, sides: int = 6) -> LiarsDice:
    """Two-player Liar's Dice with ``dice`` dice per player of ``sides`` faces, as OpenSpiel's
    ``liars_dice(numdice=dice, dice_sides=sides)``; default 1 die of 6 sides (294,883 histories)."""
    return LiarsDice(dice, sides)

"""The games of Dudik & Gordon (2009), N-player and general-sum, as ``seqform.Game`` s.

* ``job_market(...)``: Dudik & Gordon 2009, section 2 (after Forges & von Stengel 2002). The student
  (player 0) studies or not; at the interview it answers a question "yes" or "no" (knowing
  whether it studied); the employer (player 1) hears only the answer and hires or not.
  Payoffs (our choice; the paper gives only their signs and the cooperative outcome (4, 5)):
  the student gets ``hire`` = 5 when hired and pays ``study_cost`` = 1 for studying; the
  employer gets ``good_hire`` = 5 for hiring a student who studied, ``bad_hire`` = -5 for one
  who did not, 0 for not hiring. So the cooperative outcome (study, hired) pays (4, 5), as in
  the paper, and no Nash or correlated equilibrium has anyone study or be hired: a student who
  does not study can give any answer a student who studies gives.
* ``indian_poker(cards, uncalled="pot")``: Dudik & Gordon 2009, section 2.1. Three players, each dealt one of ``cards``
  distinct cards, seeing the other two cards but not its own; ante 1 each. In turn (players 0,
  1, 2) each passes or bets 1; after the first bet, the players after the bettor, around to
  just before it, each call (bet 1) or fold. All pass: antes returned. Otherwise the highest
  card among the bettor and the callers takes the pot (antes and bets). A bettor nobody calls
  (``uncalled``): "pot" (default) takes the pot, winning 2, so net payoffs are -2, -1, 0, 2, 3
  and 4, a value the paper's list {-2, -1, 0, 3, 4} leaves out; "refund": the hand is not
  contested, antes and bet are returned (all 0), the one reading of the paper's text whose net
  payoffs are exactly its list (docs/indian-poker-sign.md). Sequence complexity
  24 C (C - 1); C (C-1) (C-2) deals (336 for C = 8); reduced strategies 9, 10 and 16 per
  observation, as the paper counts, under either rule.
* ``grid_game(size, seed)``: Dudik & Gordon 2009, section 2.1 (Vickrey & Koller 2002). ``size`` x ``size``
  players on a grid, each choosing one of 3 actions without seeing the others; each player's
  payoff is the sum, over its grid neighbours, of its entry in a 3 x 3 matrix for that pair.
  Every entry is drawn uniformly from {0, 1/1000, ..., 1} (exact rationals; the paper draws
  from [0, 1]) by ``numpy.random.default_rng(seed)``. Sequence complexity 3 size^2.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
- Vickrey & Koller (2002), "Multi-Agent Algorithms for Solving Graphical Games", AAAI.
- Forges & von Stengel (2002), "Computationally Efficient Coordination in Game Trees", THEMA working paper.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from seqform.errors import TooLargeError, UnknownGameError
from seqform.games.labels import START, join
from seqform.model.game import CHANCE, TERMINAL, Game


class JobMarket(Game):
    """State: the tuple of actions so far (study, answer, hire)."""

    num_players = 2
    player_names = ("student", "employer")

    def __init__(self, hire=5, study_cost=1, good_hire=5, bad_hire=-5):
        self.pay = tuple(Fraction(v) for v in (hire, study_cost, good_hire, bad_hire))
        default = self.pay == (5, 1, 5, -5)
        self.name = (
            "job_market"
            if default
            else f"job_market(hire={hire},study_cost={study_cost},good_hire={good_hire},bad_hire={bad_hire})"
        )

    def root(self):
        return ()

    def player(self, h):
        return (0, 0, 1, TERMINAL)[len(h)]

    def infoset(self, h):
        if len(h) == 0:
            return "study?"
        if len(h) == 1:
            return ("answer", "studied" if h[0] == 0 else "did not study")
        return ("hire?", "heard " + ("yes" if h[1] == 0 else "no"))

    def actions(self, h):
        return (("study", "do not study"), ("yes", "no"), ("hire", "do not hire"))[len(h)]

    def infoset_name(self, key, player: int) -> str:
        """What the player knows: ``"start"`` (the student's first move), ``"studied"`` or ``"did not
        study"`` (the student at the interview), ``"heard yes"`` or ``"heard no"`` (the employer)."""
        return START if isinstance(key, str) else key[1]

    def size_key(self, h):
        return len(h)  # every node of one depth has the same actions

    def next(self, h, a):
        return h + (a,)

    def utility(self, h):
        hire, cost, good, bad = self.pay
        studied, hired = h[0] == 0, h[2] == 0
        u0 = (hire if hired else 0) - (cost if studied else 0)
        u1 = (good if studied else bad) if hired else Fraction(0)
        return (Fraction(u0), Fraction(u1))


def job_market(hire=5, study_cost=1, good_hire=5, bad_hire=-5) -> JobMarket:
    """The job market game of Dudik & Gordon (2009, "A Sampling-Based Approach to Computing Equilibria
    in Succinct Extensive-Form Games"); see the module docstring."""
    return JobMarket(hire, study_cost, good_hire, bad_hire)


class IndianPoker(Game):
    """Three-player Indian poker of Dudik & Gordon (2009, "A Sampling-Based Approach to Computing
    Equilibria in Succinct Extensive-Form Games", section 2.1); rules in the module docstring.

    State: ``(cards, history)``: the dealt cards (a tuple, player order) and the betting so far,
    a string over "p" (pass / fold) and "b" (bet / call), one letter per turn.

    ``uncalled`` is what a bettor whom nobody calls gets, the one rule the paper leaves open
    (docs/indian-poker-sign.md):

    - "pot" (default): it takes the pot, the three antes and its bet: net +2, the others -1.
      The paper's text does not exclude it, but its list of utility values {-2, -1, 0, 3, 4}
      leaves out the 2.
    - "refund": the hand is not contested and everyone's money is returned, as when all three
      pass: net 0 for all. The net payoffs are then exactly the paper's list.

    The tree (and so the sequence complexity 24 C (C-1) and the 9, 10 and 16 reduced strategies
    per observation) is the same under both; only payoffs differ.
    """

    num_players = 3
    #: the rules ``uncalled`` may name
    UNCALLED = ("pot", "refund")

    def __init__(self, cards: int = 8, uncalled: str = "pot"):
        if cards < 3:
            raise UnknownGameError(f"indian_poker needs at least 3 cards for 3 players; got {cards}")
        if uncalled not in self.UNCALLED:
            raise UnknownGameError(
                f"indian_poker's uncalled is one of {', '.join(map(repr, self.UNCALLED))}; got {uncalled!r}"
            )
        self.cards = cards
        self.uncalled = uncalled
        self.name = f"indian_poker(cards={cards}" + ("" if uncalled == "pot" else f",uncalled={uncalled!r}") + ")"
        self._acts: dict = {}
        self._keys: dict = {}
        self._payoffs: dict = {}

    def root(self):
        return ((), "")

    def _to_act(self, hist: str):
        """The player to act after ``hist``, or None when the betting is over."""
        first = hist.find("b")
        if first < 0:
            return len(hist) if len(hist) < 3 else None
        # after the first bet, the others act once each, in turn, back to just before the bettor
        return (first + (len(hist) - first)) % 3 if len(hist) - first < 3 else None

    def player(self, h):
        cards, hist = h
        if len(cards) < 3:
            return CHANCE
        p = self._acts.get(hist, -3)
        if p == -3:
            p = self._acts[hist] = self._to_act(hist)
        return TERMINAL if p is None else p

    def infoset(self, h):
        # memoised: simulations ask for the same few thousand keys millions of times
        got = self._keys.get(h)
        if got is None:
            cards, hist = h
            p = self._to_act(hist)
            got = self._keys[h] = (tuple(c if i != p else None for i, c in enumerate(cards)), hist)
        return got

    def actions(self, h):
        cards, hist = h
        if len(cards) < 3:
            return tuple(f"deal {c}" for c in range(self.cards) if c not in cards)
        return ("pass", "bet") if "b" not in hist else ("fold", "call")

    def infoset_name(self, key, player: int) -> str:
        """``"? 5 2 | pb"``: every player's card in seat order, the player's own (unseen) as "?",
        then the betting so far ("p" pass or fold, "b" bet or call)."""
        cards, hist = key
        return join(" ".join("?" if c is None else str(c) for c in cards), hist)

    def chance(self, h):
        n = self.cards - len(h[0])
        return (Fraction(1, n),) * n

    def size_key(self, h):
        # which cards were dealt changes no one's actions, only how many were
        return (len(h[0]), h[1])

    def next(self, h, a):
        cards, hist = h
        if len(cards) < 3:
            # the a-th card not yet dealt, without listing the deck (counting a deck of 10^5 cards
            # expands each deal's key once, so a list per child would cost the deck squared)
            for d in sorted(cards):
                a += d <= a
            return (cards + (a,), hist)
        return (cards, hist + "pb"[a])

    def regret_bound(self) -> float:
        """r_max: net payoffs range from -2 (ante and bet lost) to 4 (two callers' antes and bets
        won), under either ``uncalled`` rule: the lone bettor's 2 or 0 lies inside."""
        return 6.0

    def utility(self, h):
        got = self._payoffs.get(h)
        if got is None:
            got = self._payoffs[h] = self._utility(h)
        return got

    def _utility(self, h):
        cards, hist = h
        first = hist.find("b")
        if first < 0:
            return (0, 0, 0)
        # who put money in: the bettor and the callers (each "b" after the first bet)
        who = [(first + k) % 3 for k, c in enumerate(hist[first:]) if c == "b"]
        if len(who) == 1 and self.uncalled == "refund":
            return (0, 0, 0)  # not contested: antes and the bet returned
        pot = 3 + len(who)
        winner = max(who, key=lambda i: cards[i])
        return tuple((pot if i == winner else 0) - 1 - (1 if i in who else 0) for i in range(3))


def indian_poker(cards: int = 8, uncalled: str = "pot") -> IndianPoker:
    """Three-player Indian poker of Dudik & Gordon (2009, "A Sampling-Based Approach to Computing
    Equilibria in Succinct Extensive-Form Games"), module docstring. ``uncalled``: what a bettor
    nobody calls gets, "pot" (net +2; default) or "refund" (net 0 for all, the paper's list of
    utility values)."""
    return IndianPoker(cards, uncalled)


class GridGame(Game):
    """State: the tuple of actions chosen so far, player by player in row-major order."""

    #: every payoff is a multiple of 1/1000 (exact statistics in ``efce.colgen``)
    payoff_denominator = 1000

    def __init__(self, size: int = 3, seed: int = 0):
        if size < 1:
            raise UnknownGameError(f"grid_game needs size >= 1; got {size}")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            # checked here: the payoffs are drawn on first use, where numpy's refusal would be a traceback
            raise UnknownGameError(f"grid_game's seed is a non-negative integer; got {seed!r}")
        self.size, self.seed = size, seed
        self.num_players = size * size
        self.name = f"grid_game(size={size},seed={seed})"

    @functools.cached_property
    def neighbours(self) -> list:
        """Each player's neighbours on the grid (up, down, left, right where they exist), built on
        first use: a grid too large to solve is refused by its node count before any of it exists."""
        size = self.size
        out = []
        for i in range(self.num_players):
            r, c = divmod(i, size)
            out.append(
                tuple(
                    rr * size + cc
                    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                    if 0 <= rr < size and 0 <= cc < size
                )
            )
        return out

    @functools.cached_property
    def payoff(self) -> list:
        """payoff[i][j]: player i's 3 x 3 matrix (i's action, j's action) in its game with neighbour
        j, integers 0..1000, drawn in one call (the stream of one draw per matrix, player by player)."""
        nb = self.neighbours
        draws = iter(np.random.default_rng(self.seed).integers(0, 1001, size=(sum(map(len, nb)), 3, 3)))
        return [{j: next(draws) for j in nb[i]} for i in range(self.num_players)]

    def root(self):
        return ()

    def player(self, h):
        return len(h) if len(h) < self.num_players else TERMINAL

    def infoset(self, h):
        return len(h)  # one information set per player: it sees nothing

    def actions(self, h):
        return ("a", "b", "c")

    def infoset_name(self, key, player: int) -> str:
        """``"start"``: each player has one information set, where it has seen nothing."""
        return START

    def next(self, h, a):
        return h + (a,)

    def utility(self, h):
        return tuple(
            Fraction(int(sum(self.payoff[i][j][h[i], h[j]] for j in self.neighbours[i])), 1000)
            for i in range(self.num_players)
        )

    def regret_bound(self) -> float:
        """r_max without walking the 3^players leaves: an upper bound on the range of any one
        player's payoff, the sum over its neighbours of each matrix's range."""
        return (
            max(sum(int(m.max()) - int(m.min()) for m in self.payoff[i].values()) for i in range(self.num_players))
            / 1000
        )

    def num_nodes_hint(self) -> int:
        """1 + 3 + ... + 3^players: the compiler refuses large grids at once. Past
        ``MAX_HINT_PLAYERS`` players the count itself would take minutes and gigabytes to write
        down (3^(10^10) has 4.8e9 digits): ``TooLargeError`` at once instead."""
        if self.num_players > MAX_HINT_PLAYERS:
            digits = (self.num_players + 1) * math.log10(3)
            raise TooLargeError(
                f"game {self.name!r} has (3^{self.num_players + 1} - 1)/2 nodes (a number of {digits:.3g} digits): "
                "far past any memory limit"
            )
        return (3 ** (self.num_players + 1) - 1) // 2

    def polymatrix(self):
        """The game as a polymatrix game (``efce.polymatrix``): what the sampler's graph engine
        needs, the grid and each pair's matrix, in floats."""
        from .polymatrix import Polymatrix

        return Polymatrix(
            (3,) * self.num_players,
            tuple(self.neighbours),
            [{j: m / 1000 for j, m in self.payoff[i].items()} for i in range(self.num_players)],
            tuple(range(self.num_players)),
        )

    def profile_utility(self, actions) -> np.ndarray:
        """Every player's payoff (floats) when the players choose ``actions`` (one per player)."""
        return np.array(
            [
                sum(self.payoff[i][j][actions[i], actions[j]] for j in self.neighbours[i]) / 1000
                for i in range(self.num_players)
            ]
        )


#: the most players whose grid's node count ``num_nodes_hint`` writes down exactly (3^(10^6) takes
#: milliseconds; a thousandfold more takes minutes)
MAX_HINT_PLAYERS = 10**6


def grid_game(size: int = 3, seed: int = 0) -> GridGame:
    """The grid game of Dudik & Gordon (2009), module docstring."""
    return GridGame(size, seed)

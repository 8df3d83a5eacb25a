"""Leduc hold'em (Southey et al. 2005) for ``players`` players, parameterised by the deck
(ranks x suits).

Rules (as OpenSpiel's ``leduc_poker(players=N)``, whose tree this reproduces node for node): each
player antes 1 and gets one private card; a betting round; one public card; a second betting
round; showdown. Bets and raises are 2 in round 1 and 4 in round 2, at most two bets per round
counting the opening bet; fold is legal only when facing a bet; players act in turn, skipping
those who folded, and the first player still in (player 0 unless folded) opens both rounds. A
round ends when, after a raise, every other player still in has called it (or, with no raise,
everyone still in has checked); the hand ends when all players but one have folded (the last one
takes the pot). At showdown a private card that pairs the public card wins, else the higher rank;
players with equal hands split the pot. OpenSpiel's deck has 2 suits and ``N + 1`` ranks, the
default here.

Cards are ``rank * suits + suit``; information sets distinguish suits (no suit isomorphism), as
OpenSpiel does. ``rake`` (a whole percentage, default 0) makes the game general-sum: the house takes
that share of the pot from every hand, the winner paying it (a fold included: no "no flop, no drop"
rule), the winners of a split pot in equal shares. Sizes: ranks=3, suits=2: 9,457 histories, 5,520 leaves, 468
information sets and 1,093 sequences per player; ranks=5: 55,361 / 32,760 / 1,380 / 3,221; three
players (4 ranks): 1,831,601 histories, 8,600 information sets and 19,689 sequences per player.
"""

from __future__ import annotations

from fractions import Fraction

from seqform.errors import UnknownGameError
from seqform.games.labels import card_names, join
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.model.signalform import OrderedSignals

FOLD, CALL, RAISE = "Fold", "Call", "Raise"
#: OpenSpiel's leduc_poker takes up to 10 players, but each one more multiplies the betting tree
#: by about 9 and the deals by about 50: 4 players have 349,388,741 histories, 5 would have 69 billion
#: (and their betting tree alone takes seconds to build), beyond any memory
MAX_PLAYERS = 4
#: the bet size of each round, and the most bets (the opening bet included) in a round
_BET_SIZES, _MAX_BETS = (2, 4), 2


class Leduc(Game):
    """State: ``(cards, public, node)``: the private cards dealt so far (a tuple), the public card
    (-1 before it is dealt) and the betting node, a tuple ``(history, player, actions, children,
    fold_payoff, put, live)`` that every deal shares (see ``_betting``). ``history`` is a tuple of
    rounds, each a string over 'fcr'; ``put`` is each player's contribution to the pot; ``live``
    the players who have not folded; a chance node's ``actions`` is the word its outcomes are
    labelled with ("deal", "public").

    The compiler queries every node several times (player, actions, information set, next), so
    everything that depends only on the betting is worked out once per betting node, in
    ``__init__``: each query is then a few tuple lookups.
    """

    def __init__(self, ranks: int | None = None, suits: int = 2, rake: int = 0, players: int = 2):
        if not _is_int(players) or not 2 <= players <= MAX_PLAYERS:
            raise UnknownGameError(
                f"leduc's players must be an integer from 2 to {MAX_PLAYERS} (5 players: 69 billion histories); "
                f"got players={players!r}"
            )
        if ranks is None:
            ranks = players + 1
        for what, v in (("ranks", ranks), ("suits", suits), ("rake", rake)):
            if not _is_int(v):
                raise UnknownGameError(f"leduc: parameter {what}={v!r} should be an integer")
        if ranks < 1 or suits < 1 or ranks * suits < players + 1:
            per = "" if players == 2 else f" for {players} players (one each and the public card)"
            raise UnknownGameError(f"leduc needs at least {players + 1} cards{per}; got ranks={ranks}, suits={suits}")
        if not 0 <= rake < 100:
            raise UnknownGameError(f"leduc's rake is a percentage of the pot from 0 to 99; got rake={rake}")
        self.num_players = players
        self.ranks, self.suits = ranks, suits
        self.rake = Fraction(rake, 100)
        self.deck = tuple(range(ranks * suits))
        #: card ``c``'s name, rank then suit: "Js", "Jh", "Qs", "Qh", "Ks", "Kh" for 3 x 2
        self.card_names = card_names(ranks, suits)
        params = (
            ([f"ranks={ranks},suits={suits}"] if (ranks, suits) != (players + 1, 2) else [])
            + ([f"rake={rake}"] if rake else [])
            + ([f"players={players}"] if players != 2 else [])
        )
        self.name = f"leduc({','.join(params)})" if params else "leduc"
        self._deal = (("",), CHANCE, "deal", (), None, None, None)
        self._start = self._betting(_Round.opening(players))
        self._rests: dict = {}
        self._labels: dict = {}
        self._showdowns: dict = {}
        # hand strength against each public card: a pair beats every unpaired card, then rank
        self._strength = tuple(
            tuple(c // suits + (ranks if c // suits == pub // suits else 0) for c in self.deck) for pub in self.deck
        )
        self._probs = {n: (Fraction(1, n),) * n for n in range(1, len(self.deck) + 1)}

    def _betting(self, rnd: _Round):
        """The betting node at ``rnd``, with (recursively) all the nodes below it."""
        hist, put, live = rnd.hist, rnd.put, rnd.live
        if len(live) == 1:  # everyone else folded: the betting alone fixes the payoff
            won = sum(put) * (1 - self.rake)  # the winner's share of the pot, after the rake
            pay = tuple(won - put[p] if p == live[0] else -put[p] for p in range(len(put)))
            return (hist, TERMINAL, (), (), tuple(_number(v) for v in pay), put, live)
        if rnd.over():  # the round is over: showdown, or the public card
            if len(hist) == 2:
                return (hist, TERMINAL, (), (), None, put, live)
            return (hist, CHANCE, "public", (self._betting(rnd.next_round()),), None, put, live)
        acts = ((FOLD,) if rnd.facing() else ()) + (CALL,) + ((RAISE,) if rnd.raises < _MAX_BETS else ())
        children = tuple(self._betting(rnd.after(a)) for a in acts)
        return (hist, rnd.actor, acts, children, None, put, live)

    def _rest(self, cards):
        rest = self._rests.get(cards)
        if rest is None:
            rest = self._rests[cards] = tuple(c for c in self.deck if c not in cards)
        return rest

    def _chance_labels(self, cards, what: str):
        labels = self._labels.get((cards, what))
        if labels is None:
            labels = self._labels[cards, what] = tuple(f"{what} {self.card_names[c]}" for c in self._rest(cards))
        return labels

    def root(self):
        return ((), -1, self._deal)

    def player(self, h):
        return h[2][1]

    def infoset(self, h):
        cards, pub, node = h
        return (cards[node[1]], pub, node[0])

    def actions(self, h):
        cards, pub, node = h
        if node[1] == CHANCE:
            return self._chance_labels(cards, node[2])
        return node[2]

    def chance(self, h):
        return self._probs[len(self.deck) - len(h[0])]

    def size_key(self, h):
        # which cards were dealt changes no one's actions, only how many were: the betting node
        # (built once, so its id is stable while the game lives) and the counts fix the subtree
        cards, pub, node = h
        return (len(cards), pub >= 0, id(node))

    def next(self, h, a):
        cards, pub, node = h
        if node[1] >= 0:
            return (cards, pub, node[3][a])
        if node is self._deal:
            cards = cards + (self._rest(cards)[a],)
            return (cards, pub, self._start if len(cards) == self.num_players else node)
        return (cards, self._rest(cards)[a], node[3][0])

    def utility(self, h):
        cards, pub, node = h
        if node[4] is not None:  # a fold: the betting alone fixes the payoff
            return node[4]
        strength = self._strength[pub]
        live = node[6]
        if len(live) == 2:  # the common case, kept to a few lookups
            s0, s1 = strength[cards[live[0]]], strength[cards[live[1]]]
            winners = live if s0 == s1 else (live[0],) if s0 > s1 else (live[1],)
        else:
            best = max(strength[cards[p]] for p in live)
            winners = tuple(p for p in live if strength[cards[p]] == best)
        got = self._showdowns.get((id(node), winners))
        if got is None:
            put = node[5]
            share = sum(put) * (1 - self.rake) / len(winners)
            got = tuple(_number(share - put[p]) if p in winners else -put[p] for p in range(len(put)))
            self._showdowns[id(node), winners] = got
        return got

    def utility_bound(self, h, player: int):
        """The largest utility of ``player`` below ``h``: the others' contributions at a showdown
        the player is still in (its loss when it folded), or the fold payoff, maximised over the
        betting below (memoised per betting node)."""
        node = self._start if h[2] is self._deal else h[2]
        memo = self.__dict__.setdefault("_bound_memo", {})
        got = memo.get((id(node), player))
        if got is None:
            if node[1] == TERMINAL:
                put = node[5]
                got = (
                    node[4][player]
                    if node[4] is not None
                    else sum(put) - put[player]
                    if player in node[6]
                    else -put[player]
                )
            else:
                got = max(self.utility_bound((h[0], h[1], c), player) for c in node[3])
            memo[id(node), player] = got
        return got

    def describe(self, h):
        return f"cards={h[0]} public={h[1]} history={'/'.join(h[2][0])!r}"

    def ordered_signals(self) -> OrderedSignals | None:
        """Two-player Leduc is a game with ordered signals (Gilpin & Sandholm 2007): ``lossless``'s
        ``leduc_os`` with the same deck, whose cards are numbered as here (rank by rank). A raked
        game is not (the house's share is not a game with ordered signals' payoff), nor is a game
        of more than two players (the lossless abstraction is two-player)."""
        if self.rake or self.num_players != 2:
            return None
        return OrderedSignals(f"leduc_os(ranks={self.ranks},suits={self.suits})", _observation)

    def infoset_name(self, key, player: int) -> str:
        """``"Js/Qh | cc/r"``: the private card, then the public card once dealt; the betting ("f"
        fold, "c" call, "r" raise), rounds split by "/" (``"cc/"``: round 2, nothing played yet)."""
        card, pub, hist = key
        names = self.card_names
        return join(names[card] if pub < 0 else f"{names[card]}/{names[pub]}", "/".join(hist))


class _Round:
    """The betting so far, as OpenSpiel's ``LeducState`` tracks it: the history (a tuple of rounds,
    each over 'fcr'), each player's contribution ``put``, the players still in ``live``, who acts
    next, and the current round's calls and raises."""

    __slots__ = ("hist", "put", "live", "actor", "calls", "raises")

    def __init__(self, hist: tuple, put: tuple, live: tuple, actor: int, calls: int, raises: int):
        self.hist, self.put, self.live, self.actor, self.calls, self.raises = hist, put, live, actor, calls, raises

    @staticmethod
    def opening(players: int) -> _Round:
        return _Round(("",), (1,) * players, tuple(range(players)), 0, 0, 0)

    def facing(self) -> bool:
        """Whether the player to act faces a bet (only then may it fold)."""
        return self.put[self.actor] < max(self.put)

    def over(self) -> bool:
        """Whether the round is over: everyone still in checked, or called the last raise."""
        return self.calls == len(self.live) - (1 if self.raises else 0)

    def _following(self, live: tuple) -> int:
        """The next player still in after the one who acted."""
        return next((p for p in live if p > self.actor), live[0])

    def after(self, action: str) -> _Round:
        """The betting after the player to act plays ``action``."""
        p, put, live = self.actor, list(self.put), self.live
        hist = self.hist[:-1] + (self.hist[-1] + action[0].lower(),)
        calls, raises = self.calls, self.raises
        if action == FOLD:
            live = tuple(q for q in live if q != p)
        elif action == CALL:
            put[p], calls = max(put), calls + 1
        else:
            put[p], calls, raises = max(put) + _BET_SIZES[len(self.hist) - 1], 0, raises + 1
        return _Round(hist, tuple(put), live, self._following(live), calls, raises)

    def next_round(self) -> _Round:
        """Round 2's opening, after the public card: the first player still in acts."""
        return _Round(self.hist + ("",), self.put, self.live, self.live[0], 0, 0)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _observation(key, player: int) -> tuple:
    """What the player at information set ``key`` has seen, as ``OrderedSignals`` states it: its
    card then the public card once dealt, and the betting in limit letters (an opening "c" is a
    check, an opening "r" a bet)."""
    card, pub, hist = key
    return ((card,) if pub < 0 else (card, pub)), "/".join(_limit_letters(r) for r in hist)


def _limit_letters(betting: str) -> str:
    """One round's "fcr" betting in limit letters "kbfcr": before the first raise, "c" checks
    and "r" bets."""
    out, facing = [], False
    for c in betting:
        out.append(c if facing or c == "f" else {"c": "k", "r": "b"}[c])
        facing = facing or c == "r"
    return "".join(out)


def _number(v):
    """An int where the value is whole (the unraked game keeps integer payoffs)."""
    return int(v) if v.denominator == 1 else v


def leduc(ranks: int | None = None, suits: int = 2, rake: int = 0, players: int = 2) -> Leduc:
    """Leduc hold'em for ``players`` players (2 to 4, default 2) with a deck of ``ranks`` x
    ``suits`` cards (default: ``players + 1`` ranks of 2 suits, OpenSpiel's ``leduc_poker(players=N)``)
    and a rake of ``rake`` percent of the pot (default 0: zero-sum)."""
    return Leduc(ranks, suits, rake, players)

"""Leduc hold'em (Southey et al. 2005), parameterised by the deck (ranks x suits).

Rules (as OpenSpiel's ``leduc_poker``, whose tree this reproduces node for node): each player
antes 1 and gets one private card; a betting round; one public card; a second betting round;
showdown. Bets and raises are 2 in round 1 and 4 in round 2, at most two bets per round counting
the opening bet; fold is legal only when facing a bet; player 0 opens both rounds. At showdown a
private card that pairs the public card wins, else the higher rank, else the pot is split.

Cards are ``rank * suits + suit``; information sets distinguish suits (no suit isomorphism), as
OpenSpiel does. ``rake`` (a whole percentage, default 0) makes the game general-sum: the house takes
that share of the pot from every hand, the winner paying it (a fold included: no "no flop, no drop"
rule), the two players half each when they split the pot. Sizes: ranks=3, suits=2: 9,457 histories, 5,520 leaves, 468
information sets and 1,093 sequences per player; ranks=5: 55,361 / 32,760 / 1,380 / 3,221.
"""

from __future__ import annotations

from fractions import Fraction

from seqform.errors import UnknownGameError
from seqform.games.labels import card_names, join
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.model.signalform import OrderedSignals

FOLD, CALL, RAISE = "Fold", "Call", "Raise"


class Leduc(Game):
    """State: ``(cards, public, node)``: the private cards dealt so far (a tuple), the public card
    (-1 before it is dealt) and the betting node, a tuple ``(history, player, actions, children,
    fold_payoff, put)`` that every deal shares (see ``_betting``). ``history`` is a tuple of
    rounds, each a string over 'fcr'; ``put`` is each player's contribution to the pot; a chance
    node's ``actions`` is the word its outcomes are labelled with ("deal", "public").

    The compiler queries every node several times (player, actions, information set, next), so
    everything that depends only on the betting is worked out once per betting node, in
    ``__init__``: each query is then a few tuple lookups.
    """

    num_players = 2

    def __init__(self, ranks: int = 3, suits: int = 2, rake: int = 0):
        if ranks < 1 or suits < 1 or ranks * suits < 3:
            raise UnknownGameError(f"leduc needs at least 3 cards; got ranks={ranks}, suits={suits}")
        if not 0 <= rake < 100:
            raise UnknownGameError(f"leduc's rake is a percentage of the pot from 0 to 99; got rake={rake}")
        self.ranks, self.suits = ranks, suits
        self.rake = Fraction(rake, 100)
        self.deck = tuple(range(ranks * suits))
        #: card ``c``'s name, rank then suit: "Js", "Jh", "Qs", "Qh", "Ks", "Kh" for 3 x 2
        self.card_names = card_names(ranks, suits)
        params = ([f"ranks={ranks},suits={suits}"] if (ranks, suits) != (3, 2) else []) + (
            [f"rake={rake}"] if rake else []
        )
        self.name = f"leduc({','.join(params)})" if params else "leduc"
        self._deal = (("",), CHANCE, "deal", (), None, None)
        self._start = self._betting(("",))
        self._rests: dict = {}
        self._labels: dict = {}
        # hand strength against each public card: a pair beats every unpaired card, then rank
        self._strength = tuple(
            tuple(c // suits + (ranks if c // suits == pub // suits else 0) for c in self.deck) for pub in self.deck
        )
        self._probs = {n: (Fraction(1, n),) * n for n in range(1, len(self.deck) + 1)}

    def _betting(self, hist: tuple):
        """The betting node after ``hist``, with (recursively) all the nodes below it."""
        r = hist[-1]
        put = tuple(_contributions(hist))
        if r.endswith("f"):
            folder = (len(r) - 1) % 2
            won = put[folder] - self.rake * sum(put)  # the winner's net gain, after the rake
            pay = (-put[0], won) if folder == 0 else (won, -put[1])
            return (hist, TERMINAL, (), (), tuple(_number(v) for v in pay), put)
        if len(r) >= 2 and r[-1] == "c":  # the round is over: showdown, or the public card
            if len(hist) == 2:
                return (hist, TERMINAL, (), (), None, put)
            return (hist, CHANCE, "public", (self._betting(hist + ("",)),), None, put)
        bets = r.count("r")
        acts = ((FOLD,) if bets > 0 and r[-1] == "r" else ()) + (CALL,) + ((RAISE,) if bets < 2 else ())
        children = tuple(self._betting(hist[:-1] + (r + a[0].lower(),)) for a in acts)
        return (hist, len(r) % 2, acts, children, None, put)

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
            return (cards, pub, self._start if len(cards) == 2 else node)
        return (cards, self._rest(cards)[a], node[3][0])

    def utility(self, h):
        cards, pub, node = h
        if node[4] is not None:  # a fold: the betting alone fixes the payoff
            return node[4]
        strength = self._strength[pub]
        s0, s1 = strength[cards[0]], strength[cards[1]]
        put = node[5]
        if not self.rake:
            if s0 == s1:
                return (0, 0)
            win = put[1] if s0 > s1 else -put[0]
            return (win, -win)
        fee = self.rake * sum(put)
        if s0 == s1:
            return (_number(-fee / 2),) * 2
        return (_number(put[1] - fee), -put[1]) if s0 > s1 else (-put[0], _number(put[0] - fee))

    def utility_bound(self, h, player: int):
        """The largest utility of ``player`` below ``h``: the opponent's contribution at a showdown,
        or the fold payoff, maximised over the betting below (memoised per betting node)."""
        node = self._start if h[2] is self._deal else h[2]
        memo = self.__dict__.setdefault("_bound_memo", {})
        got = memo.get((id(node), player))
        if got is None:
            if node[1] == TERMINAL:
                got = node[4][player] if node[4] is not None else node[5][1 - player]
            else:
                got = max(self.utility_bound((h[0], h[1], c), player) for c in node[3])
            memo[id(node), player] = got
        return got

    def describe(self, h):
        return f"cards={h[0]} public={h[1]} history={'/'.join(h[2][0])!r}"

    def ordered_signals(self) -> OrderedSignals | None:
        """Leduc is a game with ordered signals (Gilpin & Sandholm 2007): ``lossless``'s
        ``leduc_os`` with the same deck, whose cards are numbered as here (rank by rank). A raked
        game is not (the house's share is not a game with ordered signals' payoff)."""
        if self.rake:
            return None
        return OrderedSignals(f"leduc_os(ranks={self.ranks},suits={self.suits})", _observation)

    def infoset_name(self, key, player: int) -> str:
        """``"Js/Qh | cc/r"``: the private card, then the public card once dealt; the betting ("f"
        fold, "c" call, "r" raise), rounds split by "/" (``"cc/"``: round 2, nothing played yet)."""
        card, pub, hist = key
        names = self.card_names
        return join(names[card] if pub < 0 else f"{names[card]}/{names[pub]}", "/".join(hist))


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


def _number(v: Fraction):
    """An int where the value is whole (the unraked game keeps integer payoffs)."""
    return int(v) if v.denominator == 1 else v


def _contributions(hist: tuple) -> list:
    """Each player's total contribution to the pot after the betting ``hist``."""
    put = [1, 1]
    for rnd, r in enumerate(hist):
        size = 2 if rnd == 0 else 4
        for i, c in enumerate(r):
            p = i % 2
            if c == "c":
                put[p] = put[1 - p]
            elif c == "r":
                put[p] = put[1 - p] + size
    return put


def leduc(ranks: int = 3, suits: int = 2, rake: int = 0) -> Leduc:
    """Leduc hold'em with a deck of ``ranks`` x ``suits`` cards (default 3 x 2) and a rake of
    ``rake`` percent of the pot (default 0: zero-sum)."""
    return Leduc(ranks, suits, rake)

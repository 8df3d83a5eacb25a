"""Exact best responses in the ORIGINAL game of a game with ordered signals, over its public tree.

``lossless.solve`` lifts the abstract game's certified equilibrium to the original game and must
then check it there without trusting the abstraction. Building the original game tree for that
(``seqform.evaluate``) is out of reach beyond small decks (Rhode Island with 16 cards: 45 million
nodes). Johanson, Waugh, Bowling & Zinkevich (2011, "Accelerating Best Response Calculation in
Large Extensive Games", IJCAI) compute a best response by walking the *public* tree once,
carrying for each public node a vector over the responder's private states. Here:

* a public node is a betting node v of round r and an ordered board (the public cards dealt by
  round r, in the order dealt): ``(boards_r, betting node)``;
* the responder's private state is its ORIGINAL private card h (one card each; not GameShrink's
  class, so the responder may play differently in hands the abstraction merged): the pair
  (board, h) is exactly its information set's observation;
* the opponent plays the lifted strategy: at its original information set (its card g, the
  board, v) the abstract behaviour at its class (``Abstraction.class_of``, as
  ``AbstractGame.abstract_key``); its realization weight of a sequence is therefore the abstract
  realization weight of the class sequence, looked up per (board, g).

One backward pass over the betting tree per responder p computes ``V[v]`` of shape (boards of
round(v), cards): the counterfactual value of (board, h), i.e. the sum over the opponent's cards
g and the deals of chance probability x opponent reach x p's payoff, with p best-responding
below. Leaves: a fold pays a constant, so ``V = pay * c * (sum_g X[g] - X[h])`` (card removal: the
opponent cannot hold h; cards on the board have X = 0); a showdown sorts each board's hands by
rank once and takes prefix sums of the opponent's reach in that order (the O(n) evaluation of the
paper), so ``V = c * (win * X(below h) + tie * (X(tied with h) - X[h]) + lose * X(above h))``.
p's decisions take the maximum over actions entrywise (one information set per (board, h)), the
opponent's sum over actions (its reach is already in the leaves), and a round's end sums the
next round's boards that extend each board. The sum over the root's entries is p's best-response
value. Chance: for the usual deck every deal of the same length is equally likely, so ``c`` is a
count per round; for a weighted deck (cards drawn with probability proportional to weight among
those left) the deal's probability depends on both private cards and the board, and the leaves
use a dense (boards, h, g) table of probabilities instead (weighted decks are small).

Everything is exact: integers over one common denominator (the opponent's realization weights',
the deal probabilities' and the payoffs'), in numpy arrays of Python ints, or of int64 when a
bound computed beforehand shows no entry can reach 2**62. ``lower`` (what player 0's strategy
guarantees: minus player 1's best-response payoff) equal to ``upper`` (player 0's best-response
payoff) certifies the profile as an equilibrium of the original game and its value.

Supported deals: two players, each with exactly one private card, both dealt before the first
betting round; any number of public cards per round. ``unsupported_reason`` says why another game
is refused (the caller then builds the game tree instead).

References:

- Johanson, Waugh, Bowling & Zinkevich (2011), "Accelerating Best Response Calculation in Large
  Extensive Games", IJCAI.
- Gilpin & Sandholm (2007), "Lossless Abstraction of Imperfect Information Games", Journal of the ACM.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from seqform.exact.rationals import common_denominator, fmpq_of, to_fraction
from seqform.model.strategy import Profile, realization_plan_exact
from seqform.model.tree import Tree
from seqform.verify.evaluate import exact_profile

from .betting import DECIDE, FOLD, NEXT, SHOWDOWN
from .errors import AbstractionError
from .gameshrink import Abstraction
from .orderedsignals import PUBLIC, OrderedSignalGame
from .signaltree import deal_worlds

#: boards x cards entries per round above which the public tree is refused (memory: arrays of
#: Python ints of this size are held per pending betting node)
ENTRY_LIMIT = 20_000_000
#: (boards x cards x cards) entries of a weighted deck's dense deal table above which it is refused
WEIGHTED_ENTRY_LIMIT = 4_000_000
#: int64 arithmetic is used when every quantity is provably below this
_INT64_SAFE = 2**62


def unsupported_reason(game: OrderedSignalGame) -> str | None:
    """Why the public-tree best response cannot handle ``game`` (one line), or None when it can:
    two players, zero-sum payoffs, one private card each dealt before the first betting, and a
    public tree small enough (``ENTRY_LIMIT``, ``WEIGHTED_ENTRY_LIMIT``)."""
    if not isinstance(game, OrderedSignalGame):
        return f"{type(game).__name__} is not a game with ordered signals"
    if game.num_players != 2:
        return f"{game.name} has {game.num_players} players; the public-tree best response is for two"
    if [lv for lv in game.levels if lv[0] != PUBLIC] != [(0, 0), (1, 0)]:
        return (
            f"{game.name} does not deal exactly one private card to each player before the first betting "
            "round; the public-tree best response needs that deal"
        )
    bet = game.betting
    for v in range(bet.num_nodes):
        rows = (
            [bet.payoff[v]] if bet.kind[v] == FOLD else list(bet.payoff[v].values()) if bet.kind[v] == SHOWDOWN else []
        )
        if any(sum(u) != 0 for u in rows):
            return f"{game.name}: betting node {v} ({bet.history[v]}) is not zero-sum; a bracket needs a zero-sum game"
    d, last = len(game.deck), sum(game.public)
    entries = math.perm(d, last) * d
    if entries > ENTRY_LIMIT:
        return (
            f"{game.name}: the public tree's last round has {entries:,} (board, card) entries; "
            f"the limit is {ENTRY_LIMIT:,}"
        )
    if game.weights is not None and entries * d > WEIGHTED_ENTRY_LIMIT:
        return (
            f"{game.name}: a weighted deck needs a table of {entries * d:,} deal probabilities; "
            f"the limit is {WEIGHTED_ENTRY_LIMIT:,}"
        )
    return None


def check_supported(game: OrderedSignalGame) -> None:
    """Raise ``AbstractionError`` with ``unsupported_reason`` when the game is not supported."""
    why = unsupported_reason(game)
    if why is not None:
        raise AbstractionError(why)


@dataclass
class ClassPlans:
    """Both players' realization weights of the abstract sequences, exact, as integers over one
    denominator per player: ``numerators[i][(v, a)]`` is an object array (classes of i during
    round(v) + 1,) of the weights of (class, v, a) times ``denominators[i]``; the extra last entry
    is 0 (looked up for impossible observations)."""

    numerators: list
    denominators: list


def _plans_from_weights(weights: list) -> ClassPlans:
    """``weights[i][(v, a)]``: lists of exact rationals (one per class) -> ``ClassPlans``."""
    nums, dens = [], []
    for per in weights:
        keys = list(per)
        got = common_denominator([x for k in keys for x in per[k]])
        assert got is not None  # no bit limit asked
        ints, den = got
        out, at = {}, 0
        for k in keys:
            n = len(per[k])
            out[k] = np.array(ints[at : at + n] + [0], dtype=object)
            at += n
        nums.append(out)
        dens.append(den)
    return ClassPlans(nums, dens)


def _exact_behaviours(tree: Tree, profile: Profile) -> list:
    """The profile's behaviours as fmpqs, exactly as ``seqform.evaluate``'s ``exact_profile``
    makes them (which is called, to raise or renormalise, unless every information set already
    holds nonnegative rationals summing to exactly 1: the common case, checked here in fmpq)."""
    beh = list(profile.behaviour)
    if len(beh) == 2 and all(len(b) == tree.num_sequences[p] for p, b in enumerate(beh)):
        out = [[fmpq_of(v) for v in (b.tolist() if isinstance(b, np.ndarray) else b)] for b in beh]
        first, nact = tree.infoset_first_seq.tolist(), tree.infoset_num_actions.tolist()
        blocks = (out[p][first[m] : first[m] + nact[m]] for p in range(2) for m in tree.player_infosets[p].tolist())
        if all(all(q >= 0 for q in blk) and sum(blk) == 1 for blk in blocks):
            for b in out:
                b[0] = fmpq_of(1)
            return out
    return [[fmpq_of(v) for v in b] for b in exact_profile(tree, profile).behaviour]


def plans_from_tree(abstraction: Abstraction, abstract_tree: Tree, profile: Profile) -> ClassPlans:
    """``ClassPlans`` of a profile of the compiled abstract game (``AbstractGame``; information-set
    keys (point, class, betting node)), made exact first as ``seqform.evaluate`` does
    (``exact_profile``: floats at their binary value, sets not summing to 1 renormalised)."""
    behaviour = _exact_behaviours(abstract_tree, profile)
    bet = abstraction.game.betting
    ncls = abstraction.num_classes
    out = []
    for p in range(2):
        x = realization_plan_exact(abstract_tree, p, behaviour[p])
        per: dict = {}
        for m in abstract_tree.player_infosets[p].tolist():
            j, c, v = abstract_tree.infoset_key[m]
            f = int(abstract_tree.infoset_first_seq[m])
            for a in range(len(bet.actions[v])):
                per.setdefault((v, a), [0] * ncls[p][j])[c] = x[f + a]
        out.append(per)
    return _plans_from_weights(out)


def plans_from_layout(layout, behaviours) -> ClassPlans:
    """``ClassPlans`` of behaviours over a ``SequenceLayout``'s sequences (one array a player;
    exact entries, or floats taken at their binary value), normalised exactly at every
    information set (uniform where the weights sum to zero), as ``lossless.vectorbestresponse`` does: for
    games whose abstract tree is too large to compile."""
    bet = layout.abstraction.game.betting
    zero, one = fmpq_of(0), fmpq_of(1)
    out = []
    for i in range(2):
        b = [fmpq_of(to_fraction(v)) for v in np.asarray(behaviours[i], dtype=object).tolist()]
        if len(b) != layout.num_sequences[i]:
            raise AbstractionError(
                f"player {i}'s behaviour has {len(b)} entries; the abstraction has {layout.num_sequences[i]} sequences"
            )
        if any(q < zero for q in b):
            raise AbstractionError(f"player {i}'s behaviour has negative entries")
        x = [one] * len(b)
        per: dict = {}
        for v in layout.decision_nodes(i):  # parents first
            k, n = len(bet.actions[v]), layout.ncls[i][bet.round[v]]
            base = [layout.base[v, a] for a in range(k)]
            for c, par in enumerate(layout.parent_sequences(i, v).tolist()):
                w = [b[s + c] for s in base]
                tot = sum(w)
                for s, q in zip(base, w):
                    x[s + c] = x[par] * (q / tot if tot else fmpq_of(Fraction(1, k)))
            for a in range(k):
                per[v, a] = x[base[a] : base[a] + n]
        out.append(per)
    return _plans_from_weights(out)


@dataclass
class OriginalBracket:
    """Exact best-response payoffs in the original game against a lifted profile:
    ``best_response[p]`` is player p's (Fraction); ``lower = -best_response[1]`` (what player 0's
    strategy guarantees), ``upper = best_response[0]`` (what player 1's strategy concedes);
    ``certified`` when they meet (then ``value``). ``arithmetic``: "int64" or "python ints" per
    responder; ``seconds`` per part."""

    lower: Fraction
    upper: Fraction
    best_response: tuple
    arithmetic: tuple = ()
    seconds: dict = field(default_factory=dict)

    @property
    def certified(self) -> bool:
        return self.lower == self.upper

    @property
    def value(self) -> Fraction | None:
        return self.lower if self.certified else None

    @property
    def exploitability(self) -> Fraction:
        """NashConv / 2, ``seqform.evaluate``'s convention: (upper - lower) / 2."""
        return (self.upper - self.lower) / 2


class PublicTree:
    """The public tree's card part of a supported game (module docstring): per round r the
    ordered boards ``boards[r]`` (B_r, public cards dealt by r; lexicographic, so round r+1's
    boards extending a board of round r are consecutive, ``fan[r]`` of them), ``valid[r]``
    (B_r, D) card not on the board, the hand ranks and sort orders of rounds with showdowns, and
    the chance weights as integers over ``chance_den``."""

    def __init__(self, abstraction: Abstraction):
        game = abstraction.game
        check_supported(game)
        self.abstraction, self.game, self.bet = abstraction, game, game.betting
        d, nr = len(game.deck), game.betting.num_rounds
        self.num_cards, self.num_rounds = d, nr
        self.npub = [sum(game.public[: r + 1]) for r in range(nr)]
        self.boards = [deal_worlds(d, n).astype(np.int64) for n in self.npub]
        self.fan = [len(self.boards[r + 1]) // len(self.boards[r]) for r in range(nr - 1)]
        cards = np.arange(d)
        self.valid = [~(b[:, :, None] == cards).any(axis=1) for b in self.boards]
        self.show_rounds = sorted(
            {self.bet.round[v] for v in range(self.bet.num_nodes) if self.bet.kind[v] == SHOWDOWN}
        )
        self.rank = {r: self._ranks(r) for r in self.show_rounds}
        self.sorted = {r: self._sort(self.rank[r]) for r in self.show_rounds}
        self._chance()

    def _ranks(self, r: int) -> np.ndarray:
        """(B_r, D) each hand's position in the common order of complete signal sets (-1 off)."""
        b, d = self.boards[r], self.num_cards
        sets = np.sort(
            np.concatenate([np.repeat(b, d, axis=0), np.tile(np.arange(d), len(b))[:, None]], axis=1), axis=1
        )
        code = np.zeros(len(sets), dtype=np.int64)
        for c in range(sets.shape[1]):
            code = code * d + sets[:, c]
        ok = self.valid[r].ravel()
        uniq, inv = np.unique(code[ok], return_inverse=True)
        decoded = sets[ok][np.unique(inv, return_index=True)[1]]
        keys = [self.game.rank(tuple(row)) for row in decoded.tolist()]
        pos = {k: i for i, k in enumerate(sorted(set(keys)))}
        out = np.full(len(code), -1, dtype=np.int64)
        out[ok] = np.array([pos[k] for k in keys], dtype=np.int64)[inv.ravel()]
        return out.reshape(len(b), d)

    @staticmethod
    def _sort(rank: np.ndarray) -> tuple:
        """Per board: the hands in rank order, and for each hand (original position) the indices,
        into the prefix sums (B, D+1), of its tie group's start and end."""
        nb, d = rank.shape
        order = np.argsort(rank, axis=1, kind="stable")
        rs = np.take_along_axis(rank, order, axis=1)
        key = (np.arange(nb)[:, None] * (int(rank.max()) + 2) + rs + 1).ravel()
        lo = (np.searchsorted(key, key, "left") - np.repeat(np.arange(nb) * d, d)).reshape(nb, d)
        hi = (np.searchsorted(key, key, "right") - np.repeat(np.arange(nb) * d, d)).reshape(nb, d)
        pos = np.argsort(order, axis=1)
        return order, np.take_along_axis(lo, pos, axis=1), np.take_along_axis(hi, pos, axis=1)

    def _chance(self) -> None:
        """Uniform deck: every deal of 2 + n_r cards has probability 1/perm(D, 2 + n_r); over the
        common denominator perm(D, 2 + n_last) round r's deals weigh ``count[r]``. Weighted deck:
        ``dense[r]`` (B_r, h0, h1) integer weights over ``chance_den`` (0 where cards clash)."""
        g, d = self.game, self.num_cards
        self.count: list[int] | None
        self.dense: list[np.ndarray] | None
        if g.weights is None:
            self.chance_den = math.perm(d, 2 + self.npub[-1])
            self.count = [self.chance_den // math.perm(d, 2 + n) for n in self.npub]
            self.dense = None
            return
        w = g.weights
        total = sum(w)
        probs = []
        for b in self.boards:
            tab = np.zeros((len(b), d, d), dtype=object)
            for bi, row in enumerate(b.tolist()):
                bw = [w[c] for c in row]
                for h0 in range(d):
                    for h1 in range(d):
                        if h0 == h1 or h0 in row or h1 in row:
                            continue
                        p, left = w[h0] / total * w[h1] / (total - w[h0]), total - w[h0] - w[h1]
                        for x in bw:
                            p, left = p * x / left, left - x
                        tab[bi, h0, h1] = p
            probs.append(tab)
        self.chance_den = math.lcm(1, *(Fraction(x).denominator for t in probs for x in t.ravel().tolist()))
        self.dense = [np.vectorize(lambda x: int(Fraction(x) * self.chance_den), otypes=[object])(t) for t in probs]
        self.count = None

    def class_maps(self, o: int) -> dict:
        """(q, r) -> (B_r, D): player o's class during round q (<= r) when it holds card g and the
        board is round r's; ``ncls`` (the sentinel, a zero weight) where g is on the board."""
        ab, st, d = self.abstraction, self.abstraction.signals, self.num_cards
        out = {}
        for q in range(self.num_rounds):
            j = ab.point_at_round(o, q)
            levels = list(self.game.observed[o][: j + 1])
            codes = np.zeros(len(st.worlds), dtype=np.int64)
            for k in levels:
                codes = codes * d + st.worlds[:, k]
            codes = np.unique(codes)
            n = ab.num_classes[o][j]
            for r in range(q, self.num_rounds):
                b = self.boards[r][:, : self.npub[q]]
                code = np.repeat(np.arange(d)[None, :], len(b), axis=0).astype(np.int64)
                for c in range(b.shape[1]):
                    code = code * d + b[:, c : c + 1]
                idx = np.minimum(np.searchsorted(codes, code), len(codes) - 1)
                ok = self.valid[r] & (codes[idx] == code)
                out[q, r] = np.where(ok, ab.classes[o][j][idx], n)
        return out


def _last_actions(bet) -> dict:
    """Betting node -> per player its last action (u, a) before the node (None: none)."""
    out = {}
    stack: list[tuple[int, tuple]] = [(0, (None, None))]
    while stack:
        v, own = stack.pop()
        out[v] = own
        for a, c in enumerate(bet.children[v]):
            nxt = list(own)
            if bet.kind[v] == DECIDE:
                nxt[bet.player[v]] = (v, a)
            stack.append((c, tuple(nxt)))
    return out


class _Responder:
    """One backward pass for responder p (module docstring): integer arrays, ``dtype`` int64 or
    object (Python ints)."""

    def __init__(self, pt: PublicTree, plans: ClassPlans, p: int, dtype):
        self.pt, self.p, self.o, self.dtype = pt, p, 1 - p, dtype
        self.bet = pt.bet
        self.cmap = pt.class_maps(self.o)
        self.nums = {k: v if dtype is object else v.astype(dtype) for k, v in plans.numerators[self.o].items()}
        self.one = plans.denominators[self.o]
        self.last = _last_actions(self.bet)
        self.pay = _scaled_payoffs(self.bet, p)
        if pt.dense is not None:  # (B, h of p, g of o)
            self.dense = [t if p == 0 else t.transpose(0, 2, 1) for t in pt.dense]
            if dtype is not object:
                self.dense = [t.astype(dtype) for t in self.dense]

    def reach(self, v: int, r: int) -> np.ndarray:
        """(B_r, D) the opponent's realization weights (over ``one``) of its last sequence before v."""
        own = self.last[v][self.o]
        if own is None:
            out = np.zeros(self.pt.valid[r].shape, dtype=self.dtype)
            out[self.pt.valid[r]] = self.one
            return out
        u, a = own
        return self.nums[u, a][self.cmap[self.bet.round[u], r]]

    def leaf(self, v: int) -> np.ndarray:
        """(B_r, D) the leaf's values; entries of cards on the board are left unmasked (any
        value): the round's end and the root mask them, fewer operations than at every leaf."""
        r, pt = self.bet.round[v], self.pt
        x = self.reach(v, r)
        if pt.dense is not None:
            return self._dense_leaf(v, r, x)
        assert pt.count is not None  # the usual deck
        c = pt.count[r]
        if self.bet.kind[v] == FOLD:
            return (x.sum(axis=1, keepdims=True) - x) * (c * self.pay[v])
        order, lo, hi = pt.sorted[r]
        cum = np.zeros((x.shape[0], x.shape[1] + 1), dtype=self.dtype)
        cum[:, 1:] = np.cumsum(np.take_along_axis(x, order, axis=1), axis=1)
        below, upto = np.take_along_axis(cum, lo, axis=1), np.take_along_axis(cum, hi, axis=1)
        win, tie, lose = (c * q for q in self.pay[v])
        # poker's showdowns win what they lose and tie at zero: two products fewer
        out = (below + upto - cum[:, -1:]) * win if lose == -win else below * win + (cum[:, -1:] - upto) * lose
        return out + (upto - below - x) * tie if tie else out

    def _dense_leaf(self, v: int, r: int, x: np.ndarray) -> np.ndarray:
        tab = self.dense[r] * x[:, None, :]
        if self.bet.kind[v] == FOLD:
            return tab.sum(axis=2) * self.pay[v]
        rank = self.pt.rank[r]
        mine, theirs = rank[:, :, None], rank[:, None, :]
        win, tie, lose = self.pay[v]
        return (
            np.where(mine > theirs, tab, 0).sum(axis=2) * win
            + np.where(mine == theirs, tab, 0).sum(axis=2) * tie
            + np.where(mine < theirs, tab, 0).sum(axis=2) * lose
        ).astype(self.dtype)

    def run(self, say) -> int:
        """p's best-response payoff times (opponent's denominator x chance's x payoffs')."""
        bet, val = self.bet, {}
        for v in range(bet.num_nodes - 1, -1, -1):
            kind = bet.kind[v]
            if kind in (FOLD, SHOWDOWN):
                val[v] = self.leaf(v)
            elif kind == NEXT:
                c = bet.children[v][0]
                child = val.pop(c)
                r = bet.round[v]
                child = np.where(self.pt.valid[r + 1], child, 0).astype(self.dtype)
                val[v] = child.reshape(len(self.pt.boards[r]), self.pt.fan[r], -1).sum(axis=1)
            elif kind == DECIDE:
                kids = [val.pop(c) for c in bet.children[v]]
                acc = kids[0]
                for k in kids[1:]:
                    acc = np.maximum(acc, k) if bet.player[v] == self.p else acc + k
                val[v] = acc
            else:
                raise AbstractionError(f"betting node {v}: unknown kind {kind!r}")
        return int(np.where(self.pt.valid[0], val[0], 0).astype(self.dtype).sum())


def _scaled_payoffs(bet, p: int) -> dict:
    """Player p's payoffs at the leaves as integers over ``den`` (key -1): a fold's one number, a
    showdown's (win, tie, lose)."""
    win, tie, lose = ((0, 1), (0, 0), (1, 0)) if p == 0 else ((1, 0), (0, 0), (0, 1))
    raw: dict[int, tuple[Fraction, ...]] = {}
    for v in range(bet.num_nodes):
        if bet.kind[v] == FOLD:
            raw[v] = (Fraction(bet.payoff[v][p]),)
        elif bet.kind[v] == SHOWDOWN:
            raw[v] = tuple(Fraction(bet.payoff[v][o][p]) for o in (win, tie, lose))
    den = math.lcm(1, *(q.denominator for t in raw.values() for q in t))
    out: dict = {-1: den}
    for v, t in raw.items():
        ints = tuple(int(q * den) for q in t)
        out[v] = ints[0] if bet.kind[v] == FOLD else ints
    return out


def _magnitude_bound(pt: PublicTree, plans: ClassPlans, p: int) -> int:
    """A bound on every integer a responder's pass forms: at most (leaves) x (deals) x (largest
    opponent weight) x (largest payoff), each deal counted with its largest chance weight."""
    o = 1 - p
    xmax = max([plans.denominators[o]] + [int(max(abs(q) for q in a.tolist())) for a in plans.numerators[o].values()])
    pay = _scaled_payoffs(pt.bet, p)
    pmax = max(abs(q) for v, t in pay.items() if v >= 0 for q in (t if isinstance(t, tuple) else (t,)))
    if pt.dense is not None:
        cmax = max(int(max(t.ravel().tolist(), default=0)) for t in pt.dense)
    else:
        assert pt.count is not None  # the usual deck
        cmax = max(pt.count)
    leaves = sum(1 for k in pt.bet.kind if k in (FOLD, SHOWDOWN))
    return leaves * len(pt.boards[-1]) * pt.num_cards**2 * xmax * max(pmax, 1) * max(cmax, 1)


def original_bracket(
    abstraction: Abstraction, plans: ClassPlans, progress=None, public_tree: PublicTree | None = None
) -> OriginalBracket:
    """Both players' exact best-response payoffs in the original game against the profile that
    plays ``plans`` (the abstract realization weights) at every original information set's class,
    by one pass over the public tree per responder (module docstring). Raises
    ``AbstractionError`` when the game is not supported (``unsupported_reason``)."""
    say = progress or (lambda msg: None)
    secs: dict = {}
    t0 = time.perf_counter()
    pt = public_tree if public_tree is not None else PublicTree(abstraction)
    secs["public_tree"] = time.perf_counter() - t0
    den_chance = pt.chance_den
    br, kinds = [], []
    for p in range(2):
        t0 = time.perf_counter()
        dtype = np.int64 if _magnitude_bound(pt, plans, p) < _INT64_SAFE else object
        kinds.append("int64" if dtype is np.int64 else "python ints")
        say(f"best response of player {p} over the public tree ({kinds[-1]})")
        resp = _Responder(pt, plans, p, dtype)
        total = resp.run(say)
        br.append(Fraction(total, plans.denominators[1 - p] * den_chance * resp.pay[-1]))
        secs[f"best_response_{p}"] = time.perf_counter() - t0
    return OriginalBracket(-br[1], br[0], tuple(br), tuple(kinds), secs)


def exact_bracket_original(
    abstraction: Abstraction, abstract_tree: Tree, abstract_profile: Profile, progress=None
) -> OriginalBracket:
    """The exact bracket in the original game of the lift of ``abstract_profile`` (a profile of
    the compiled abstract game ``abstract_tree``, as ``lossless.solve``'s ``exact_profile``):
    ``original_bracket(abstraction, plans_from_tree(...))``."""
    check_supported(abstraction.game)
    return original_bracket(abstraction, plans_from_tree(abstraction, abstract_tree, abstract_profile), progress)


__all__ = [
    "ClassPlans",
    "OriginalBracket",
    "PublicTree",
    "check_supported",
    "exact_bracket_original",
    "original_bracket",
    "plans_from_layout",
    "plans_from_tree",
    "unsupported_reason",
]

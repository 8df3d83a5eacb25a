"""Flip-It on a network (Bosansky (2019)'s network-security game; the variant of GTLibrary's "no
information" Flip-It with a pass action), zero-sum, two players: the defender (player 0) and the
attacker (player 1).

Rules. A directed graph of hosts, each with a reward and a flip cost. The defender controls every
host at the start. Each round both players choose, simultaneously, a host to flip or to pass
(modelled turn-based: the defender moves, then the attacker without seeing that move):

* the defender may flip any host; the attacker may flip an *entry* host (no incoming edge) or a
  successor of any host it has tried to flip before (it does not observe whether a flip worked,
  so it acts on what it tried, not on what it holds);
* a flip takes the host if nobody else flips it: the defender's always works; the attacker's
  works if the host is an entry host, or already the attacker's, or has a predecessor the
  attacker controls at the start of the round;
* if both flip the same host, whoever controlled it at the start of the round keeps it (a tie);
* then each player collects the rewards of the hosts it controls and pays the cost of its flip
  (a pass costs nothing).

Payoff (zero-sum): the defender's total (rewards minus costs, over all rounds) minus the
attacker's; the attacker gets the negative. ``depth`` is the number of rounds.

Observations (``observe``): ``"none"`` (each player knows only its own past actions: GTLibrary's
NoInfo) or ``"actions"`` (also both players' actions of every finished round, not the
opponent's move in the current one: GTLibrary's FullInfo). Both have the same tree.

Default graph (``flipit()``): 5 hosts, edges 0->1, 0->2, 1->4, 2->4, 3->4 (entry hosts 0 and 3),
rewards (10, 10, 4, 4, 10), costs (8, 2, 2, 8, 5). Its trees have 25 / 565 / 15,685 / 495,205 /
16,715,941 nodes at depths 1 to 5: the sizes Bosansky 2019 reports at depths 3, 4 and 5.
``num_nodes_hint`` counts them without building the tree.

References:

- Bosansky (2019), "Solving Extensive-Form Games", lecture, Multiagent Systems, Czech Technical University in Prague.
"""

from __future__ import annotations

from functools import cache

from seqform.errors import UnknownGameError
from seqform.games.labels import join
from seqform.model.game import TERMINAL, Game

PASS = "pass"
OBSERVE = ("none", "actions")
DEFAULT_EDGES = ((0, 1), (0, 2), (1, 4), (2, 4), (3, 4))
DEFAULT_REWARDS = (10, 10, 4, 4, 10)
DEFAULT_COSTS = (8, 2, 2, 8, 5)


class FlipIt(Game):
    """State: ``(round, defender_move, control, tried, history, diff, own)``: ``defender_move`` is the
    defender's choice this round (None before it moves; a host or -1 for pass), ``control`` a
    tuple of 0 (defender) / 1 (attacker) per host, ``tried`` the frozenset of hosts the attacker
    has tried, ``history`` the tuple of (defender, attacker) moves of finished rounds, ``diff``
    the payoff difference accumulated so far (see ``_play``), ``own`` each player's own moves so
    far (all it knows under ``observe="none"``)."""

    num_players = 2
    player_names = ("defender", "attacker")

    def __init__(self, hosts: int, edges, rewards, costs, depth: int = 3, observe: str = "none"):
        if hosts < 1:
            raise UnknownGameError(f"flipit needs at least one host; got {hosts}")
        if len(rewards) != hosts or len(costs) != hosts:
            raise UnknownGameError(
                f"flipit: {hosts} hosts need {hosts} rewards and costs; got {len(rewards)} and {len(costs)}"
            )
        for a, b in edges:
            if not (0 <= a < hosts and 0 <= b < hosts) or a == b:
                raise UnknownGameError(f"flipit: edge {a}->{b} is not between two different hosts 0..{hosts - 1}")
        if depth < 1:
            raise UnknownGameError(f"flipit: depth (rounds) must be at least 1; got {depth}")
        if observe not in OBSERVE:
            raise UnknownGameError(f"flipit: observe={observe!r}; choose one of {', '.join(OBSERVE)}")
        self.hosts, self.depth, self.observe = hosts, depth, observe
        self.edges = tuple((int(a), int(b)) for a, b in edges)
        self.rewards, self.costs = tuple(rewards), tuple(costs)
        self.pred = tuple(frozenset(a for a, b in self.edges if b == h) for h in range(hosts))
        self.succ = tuple(frozenset(b for a, b in self.edges if a == h) for h in range(hosts))
        self.entry = frozenset(h for h in range(hosts) if not self.pred[h])
        if not self.entry:
            raise UnknownGameError("flipit: the graph has no entry host (every host has an incoming edge)")
        self.name = (
            f"flipit(depth={depth})"
            if (self.edges, self.rewards, self.costs, observe)
            == (DEFAULT_EDGES, DEFAULT_REWARDS, DEFAULT_COSTS, "none")
            and hosts == 5
            else f"flipit(hosts={hosts},depth={depth},observe={observe!r})"
        )
        self._labels = tuple(f"host {h}" for h in range(hosts)) + (PASS,)
        self._bound_memo: dict = {}
        self._options_memo: dict = {}
        self._round_memo: dict = {}

    def attacker_options(self, tried: frozenset) -> tuple:
        """Hosts the attacker may flip (sorted) after trying ``tried``, then pass (-1)."""
        got = self._options_memo.get(tried)
        if got is None:
            ok = set(self.entry)
            for h in tried:
                ok |= self.succ[h]
            got = self._options_memo[tried] = tuple(sorted(ok)) + (-1,)
        return got

    def root(self):
        return (0, None, (0,) * self.hosts, frozenset(), (), 0, ((), ()))

    def player(self, h):
        if h[0] == self.depth:
            return TERMINAL
        return 0 if h[1] is None else 1

    def _options(self, h) -> tuple:
        if h[1] is None:
            return tuple(range(self.hosts)) + (-1,)
        return self.attacker_options(h[3])

    def actions(self, h):
        return tuple(self._labels[m] for m in self._options(h))

    def infoset(self, h):
        me = 0 if h[1] is None else 1
        if self.observe == "actions":
            return (me, h[4])
        return (me, h[6][me])

    def next(self, h, a):
        move = self._options(h)[a]
        if h[1] is None:
            return (h[0], move) + h[2:]
        return self._play(h, h[1], move)

    def _round(self, control: tuple, d: int, m: int) -> tuple:
        """The control after a round from ``control`` with moves ``d``, ``m`` (-1: pass), and the
        round's gain (the defender's rewards and costs minus the attacker's); memoised."""
        got = self._round_memo.get((control, d, m))
        if got is not None:
            return got
        new = list(control)
        if d >= 0 and d != m:
            new[d] = 0
        if m >= 0 and m != d:
            if m in self.entry or control[m] == 1 or any(control[p] == 1 for p in self.pred[m]):
                new[m] = 1
        # a tie (d == m): whoever controlled the host at the start of the round keeps it
        gain = sum(self.rewards[x] if new[x] == 0 else -self.rewards[x] for x in range(self.hosts))
        gain += (-self.costs[d] if d >= 0 else 0) + (self.costs[m] if m >= 0 else 0)
        got = self._round_memo[control, d, m] = (tuple(new), gain)
        return got

    def _play(self, h, d: int, m: int):
        """End the round: flips, ties, rewards and costs; ``diff`` is the defender's total minus
        the attacker's so far."""
        rnd, _, control, tried, hist, diff, (own0, own1) = h
        new, gain = self._round(control, d, m)
        return (
            rnd + 1,
            None,
            new,
            tried | {m} if m >= 0 else tried,
            hist + ((d, m),),
            diff + gain,
            (own0 + (d,), own1 + (m,)),
        )

    def utility(self, h):
        return (h[5], -h[5])

    def utility_bound(self, h, player: int) -> int:
        """The largest utility of ``player`` at any leaf below ``h``: exact, by dynamic
        programming over (control, hosts tried, rounds left, the defender's move this round), as
        if both players moved to favour ``player``."""
        sign = 1 if player == 0 else -1
        return sign * h[5] + self._best_rest(h[2], h[3], self.depth - h[0], h[1], sign)

    def _best_rest(self, control: tuple, tried: frozenset, left: int, dmove, sign: int) -> int:
        """max over the remaining rounds' moves of sign * (their total gain); memoised."""
        if left == 0:
            return 0
        memo_key = (control, tried, left, dmove, sign)
        got = self._bound_memo.get(memo_key)
        if got is None:
            best = None
            for d in range(-1, self.hosts) if dmove is None else (dmove,):
                for m in self.attacker_options(tried):
                    new, gain = self._round(control, d, m)
                    v = sign * gain + self._best_rest(new, tried | {m} if m >= 0 else tried, left - 1, None, sign)
                    if best is None or v > best:
                        best = v
            assert best is not None  # every round offers both players a move
            got = self._bound_memo[memo_key] = best
        return got

    def num_nodes_hint(self) -> int:
        """Nodes of the tree, counted over the attacker's tried sets (the tree's shape depends on
        nothing else)."""
        nd = self.hosts + 1

        @cache
        def nodes(rounds_left: int, tried: frozenset) -> int:
            if rounds_left == 0:
                return 1
            opts = self.attacker_options(tried)
            below = sum(nodes(rounds_left - 1, tried | ({m} if m >= 0 else frozenset())) for m in opts)
            return 1 + nd * (1 + below)

        return nodes(self.depth, frozenset())

    def infoset_name(self, key, player: int) -> str:
        """The moves the player knows, round by round: its own (``"host 0, pass"``) under
        ``observe="none"``, both players' (``"host 0 vs host 3, pass vs host 4"``: the defender's
        move, then the attacker's) under ``"actions"``; ``"start"`` in the first round."""
        moves = key[1]
        if self.observe == "actions":
            return join("", ", ".join(f"{self._labels[d]} vs {self._labels[m]}" for d, m in moves))
        return join("", ", ".join(self._labels[m] for m in moves))

    def describe(self, h):
        rnd, dmove, control, tried, hist = h[:5]
        return f"round {rnd}, defender's move {dmove}, control {control}, history {hist}"


def flipit(
    depth: int = 3,
    observe: str = "none",
    hosts: int = 5,
    edges=DEFAULT_EDGES,
    rewards=DEFAULT_REWARDS,
    costs=DEFAULT_COSTS,
) -> FlipIt:
    """Flip-It on a network of ``hosts`` (module docstring); the default graph has the tree sizes
    Bosansky's lecture "Solving Extensive-Form Games" reports at depths 3, 4 and 5."""
    if hosts != 5 and (edges, rewards, costs) == (DEFAULT_EDGES, DEFAULT_REWARDS, DEFAULT_COSTS):
        raise UnknownGameError("flipit: give edges, rewards and costs for a graph other than the default 5 hosts")
    return FlipIt(hosts, edges, rewards, costs, depth, observe)

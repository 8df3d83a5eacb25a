"""Compile a succinct game into flat arrays: the one walk over the game tree.

``compile_tree(game)`` visits every node of a ``seqform.model.game.Game`` once, depth first, and
returns a ``Tree``: numpy arrays indexed by node, terminal, information set and sequence. Every
algorithm in seqform works on these arrays and never walks the game again.

Numbering (all in depth-first preorder, so a parent always precedes its children):

* nodes ``0 .. n-1``; node 0 is the root;
* information sets get global ids ``0 .. M-1`` in order of discovery, and each belongs to one
  player; ``infoset_index`` is its position among that player's information sets;
* each player's sequences: 0 is the empty sequence; the actions of an information set get
  consecutive ids ``infoset_first_seq[I] + a``, so a sequence's parent sequence always has a
  smaller id.

Chance probabilities and payoffs are kept exactly (``Fraction``) beside their float copies.
Perfect recall is checked (every node of an information set has the same own sequence) and
chance probabilities must be non-negative and sum to exactly one at every chance node.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from itertools import chain

import numpy as np

from seqform.errors import ChanceProbabilityError, GameError, ImperfectRecallError
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.model.limits import BYTES_PER_NODE, node_limit, too_many_nodes

ProgressFn = Callable[[int], None]


def _exact(value, what) -> int | Fraction:
    """An exact rational (``int`` or ``Fraction``) for an int, Fraction or float (a float is taken
    at its binary value). Integers stay ``int``: they are exact, and far cheaper to add.
    ``what`` names the value in errors: a string, or a function giving one (built only on error)."""
    tv = type(value)
    if tv is int or tv is Fraction:
        return value
    if isinstance(value, bool):
        raise GameError(f"{what() if callable(what) else what} is {value!r}, a boolean, not a number")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise GameError(f"{what() if callable(what) else what} is {value}, not a finite number")
        return Fraction(float(value))
    try:
        return Fraction(value)
    except (TypeError, ValueError):
        raise GameError(f"{what() if callable(what) else what} is {value!r}, not a number") from None


@dataclass(eq=False)
class Tree:
    """A compiled extensive-form game. Shapes: n nodes, T terminals, M information sets, N players.

    Node arrays (length n): ``parent`` (-1 at the root), ``player`` (0..N-1, CHANCE=-1,
    TERMINAL=-2), ``infoset`` (global information-set id, -1 off decision nodes), ``action``
    (index of the action that led here, -1 at the root), ``chance_reach`` (product of chance
    probabilities on the path), ``node_seq`` (N, n): each player's sequence leading to the node.

    Terminal arrays (length T): ``terminals`` (node ids), ``payoff`` (T, N) floats,
    ``terminal_chance`` floats; ``payoff_exact`` and ``terminal_chance_exact`` are the same as
    Fractions.

    Information-set arrays (length M): ``infoset_player``, ``infoset_index`` (position among its
    player's information sets), ``infoset_num_actions``, ``infoset_parent_seq`` (the owner's
    sequence leading to it), ``infoset_first_seq``, ``infoset_first_node``; ``infoset_key`` and
    ``infoset_actions`` (labels) are lists.

    Chance nodes (length C): ``chance_nodes`` (node ids), ``chance_probs`` (tuples of exact
    probabilities, one per outcome) and ``chance_labels`` (tuples of outcome labels).

    Per player p: ``num_sequences[p]``, ``player_infosets[p]`` (global ids), ``seq_infoset[p]``
    (global id of the information set a sequence ends in, -1 for the empty sequence),
    ``seq_action[p]``.
    """

    name: str
    num_players: int
    parent: np.ndarray
    player: np.ndarray
    infoset: np.ndarray
    action: np.ndarray
    chance_reach: np.ndarray
    node_seq: np.ndarray
    terminals: np.ndarray
    payoff: np.ndarray
    terminal_chance: np.ndarray
    payoff_exact: list
    terminal_chance_exact: list  # exact values are int or Fraction
    infoset_player: np.ndarray
    infoset_index: np.ndarray
    infoset_num_actions: np.ndarray
    infoset_parent_seq: np.ndarray
    infoset_first_seq: np.ndarray
    infoset_first_node: np.ndarray
    infoset_key: list
    infoset_actions: list
    num_sequences: tuple
    player_infosets: list
    seq_infoset: list
    seq_action: list
    #: the constant c with u_0 + ... + u_{N-1} = c at every leaf, or None (general-sum)
    constant_sum: Fraction | None
    #: chance nodes' ids, and for each its exact outcome probabilities and outcome labels
    chance_nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    chance_probs: list = field(default_factory=list)
    chance_labels: list = field(default_factory=list)
    game: Game | None = field(default=None, repr=False)

    @property
    def num_nodes(self) -> int:
        return len(self.parent)

    @property
    def num_terminals(self) -> int:
        return len(self.terminals)

    @property
    def num_infosets(self) -> tuple:
        return tuple(len(ids) for ids in self.player_infosets)

    @property
    def is_zero_sum(self) -> bool:
        """True for constant-sum games (zero-sum up to a constant shift of one player's payoff)."""
        return self.constant_sum is not None

    def sizes(self) -> dict:
        """Histories, terminals, and information sets and sequences per player (empty included)."""
        return {
            "histories": self.num_nodes,
            "terminals": self.num_terminals,
            "infosets": list(self.num_infosets),
            "sequences": list(self.num_sequences),
        }

    @cached_property
    def seq_parent(self) -> list:
        """Per player: the parent sequence of each sequence (-1 for the empty sequence)."""
        out = []
        for p in range(self.num_players):
            par = np.full(self.num_sequences[p], -1, dtype=np.int64)
            inf = self.seq_infoset[p]
            par[1:] = self.infoset_parent_seq[inf[1:]]
            out.append(par)
        return out

    @cached_property
    def infoset_depth(self) -> np.ndarray:
        """Own depth of each information set: how many of its owner's actions precede it."""
        depth = np.zeros(len(self.infoset_player), dtype=np.int64)
        # discovery order guarantees an information set's parent sequence was numbered earlier
        for i in range(len(depth)):
            ps = self.infoset_parent_seq[i]
            if ps > 0:
                depth[i] = depth[self.seq_infoset[self.infoset_player[i]][ps]] + 1
        return depth

    @cached_property
    def level_order(self) -> list:
        """Per player, ``(infosets, cut)``: the player's information sets sorted by own depth,
        deepest first (stable), and the offsets in that order where each depth starts. Children
        come before their parents in this order, which is all a backward pass needs."""
        out = []
        for p in range(self.num_players):
            ids = self.player_infosets[p]
            if not len(ids):
                out.append((ids, ids[:0]))
                continue
            # one stable sort by depth, then slices: linear in the information sets (a mask per
            # depth was quadratic in the depth: 100,000-level chains spent seconds there)
            depth = self.infoset_depth[ids]
            order = np.argsort(-depth, kind="stable")
            out.append((ids[order], np.flatnonzero(np.diff(depth[order])) + 1))
        return out

    def is_narrow(self, p: int) -> bool:
        """Whether player ``p``'s levels are so many and so small that a pass over them is faster
        as one scalar loop over the information sets than as a dozen numpy calls per level (a
        deep chain: one information set per level). Measured: a numpy call on a tiny array costs
        about as much as 30 scalar steps."""
        by_depth, cut = self.level_order[p]
        return self.num_sequences[p] < 32 * (len(cut) + 1)

    @cached_property
    def levels(self) -> list:
        """Per player, a bottom-up schedule of information sets for backward passes.

        A list (deepest first) of ``(infosets, seqs, starts, parents)``: the global ids of the
        player's information sets at one own depth, the concatenation of their sequences, the
        offset of each information set's first sequence in ``seqs`` (for ``ufunc.reduceat``),
        and each one's parent sequence.
        """
        out = []
        for p in range(self.num_players):
            by_depth, cut = self.level_order[p]
            sched = []
            if len(by_depth):
                # every level's arrays at once, then sliced: per level only views are made
                nact = self.infoset_num_actions[by_depth]
                first_of = np.concatenate(([0], cut))  # first information set of each level
                ends = np.cumsum(nact)
                begins = ends - nact  # global offset of each set's first action
                level_of = np.repeat(np.arange(len(first_of)), np.diff(np.append(first_of, len(by_depth))))
                starts = begins - begins[first_of][level_of]  # offsets within the set's level
                seqs = np.repeat(self.infoset_first_seq[by_depth] - begins, nact) + np.arange(ends[-1])
                parents = self.infoset_parent_seq[by_depth]
                seq_cut = begins[cut]
                for lvl, st, sq, par in zip(
                    np.split(by_depth, cut), np.split(starts, cut), np.split(seqs, seq_cut), np.split(parents, cut)
                ):
                    sched.append((lvl, sq, st, par))
            out.append(sched)
        return out

    @cached_property
    def chance_index(self) -> dict:
        """Node id -> position in ``chance_nodes``."""
        return {int(n): i for i, n in enumerate(self.chance_nodes)}

    def edge_probability(self, node: int):
        """Exact probability of the edge into ``node``: chance's, or 1 after a player's action."""
        par = int(self.parent[node])
        i = self.chance_index.get(par) if par >= 0 else None
        return 1 if i is None else self.chance_probs[i][int(self.action[node])]

    def history(self, node: int) -> list:
        """Action labels from the root to ``node`` (re-walks the game; for messages only)."""
        path = []
        while node > 0:
            path.append(int(self.action[node]))
            node = int(self.parent[node])
        path.reverse()
        if self.game is None:
            return [str(a) for a in path]
        h, labels = self.game.root(), []
        for a in path:
            labels.append(str(self.game.actions(h)[a]))
            h = self.game.next(h, a)
        return labels

    def infoset_name(self, i: int) -> str:
        """Global information set ``i``'s name as strategy files write it: the game's readable one
        (``Game.infoset_name``, e.g. Kuhn's ``"Q | pb"``), else ``str(key)``."""
        name = getattr(self.game, "infoset_name", None)
        key = self.infoset_key[i]
        return str(name(key, int(self.infoset_player[i]))) if name is not None else str(key)

    def infoset_label(self, i: int) -> str:
        """A readable name for global information set ``i`` in a message: player and name."""
        return f"player {int(self.infoset_player[i])} information set {self.infoset_name(i)!r}"


def _path_str(labels: list) -> str:
    # labels can come from a file (a line break, an escape sequence): a message stays one line
    text = "/".join(labels) if labels else "(root)"
    return text if text.isprintable() else repr(text)[1:-1]


def compile_tree(
    game: Game,
    *,
    max_nodes: int | None = None,
    progress: ProgressFn | None = None,
    memory_limit_bytes: int | None = None,
) -> Tree:
    """Walk ``game`` once and return its ``Tree``: the game as flat arrays (nodes, information
    sets, sequences, payoffs, exact chance probabilities) that every solver reads.

    Parameters
    ----------
    game : Game
        Any game behind the ``seqform.Game`` interface (Dudik & Gordon 2009, "A Sampling-Based
        Approach to Computing Equilibria in Succinct Extensive-Form Games", section 2.1).
    max_nodes : int, optional
        Refuse a game larger than this many nodes instead of running out of memory.
    progress : callable, optional
        ``progress(nodes_so_far)`` is called every 65,536 nodes.
    memory_limit_bytes : int, optional
        Sets ``max_nodes`` from a memory budget (see ``seqform.model.limits``) when it is not given.

    Returns
    -------
    Tree

    Raises
    ------
    TooLargeError
        The game has more nodes than allowed (before it is built, when the game knows its size).
    ImperfectRecallError
        A player forgets what it knew or did.
    ChanceProbabilityError
        Chance probabilities are negative or do not sum to exactly one.

    Examples
    --------
    >>> import seqform
    >>> tree = seqform.compile_tree(seqform.games.load("kuhn"))
    >>> tree.num_nodes, tree.num_sequences
    (58, (13, 13))
    """
    if max_nodes is None and memory_limit_bytes is not None:
        max_nodes = node_limit(memory_limit_bytes)
    known = game.num_nodes_hint()
    if max_nodes is not None and known is not None and known > max_nodes:
        # the game knows its size: refuse now rather than after walking max_nodes nodes
        err = too_many_nodes(game.name, max_nodes, memory_limit_bytes or max_nodes * BYTES_PER_NODE)
        raise type(err)(f"{err} (it has {_count(known)} nodes)")
    # the walk allocates a few small tuples per node and builds no reference cycles: the cyclic
    # collector would only rescan the growing lists again and again (up to 2x the walk's time)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _compile(game, max_nodes, progress, memory_limit_bytes)
    finally:
        if was_enabled:
            gc.enable()


def _count(n: int) -> str:
    """``n`` with thousands separators, or as ``2.7e+477121`` past 10^15: a grid game's 3^(10^6)
    nodes would take seconds to print in decimal, and nobody reads 477,122 digits."""
    if n < 10**15:
        return f"{n:,}"
    shift = max(0, n.bit_length() - 64)
    exponent = math.log10(n >> shift) + shift * math.log10(2)
    whole = math.floor(exponent)
    return f"{10 ** (exponent - whole):.1f}e+{whole}"


def _compile(game: Game, max_nodes: int | None, progress: ProgressFn | None, memory_limit_bytes: int | None) -> Tree:
    N = int(game.num_players)
    if N < 1:
        raise GameError(f"game {game.name!r} has {N} players")
    two = N == 2
    # This loop runs once per node (millions of times for big games): the game's queries and the
    # lists' appends are bound to locals, and per-node facts that can be recovered afterwards with
    # numpy (each node's player and information set, the leaves' ids) are not recorded per node.
    player_of, actions_of, infoset_of, next_of, utility_of = (
        game.player,
        game.actions,
        game.infoset,
        game.next,
        game.utility,
    )
    parent: list = []
    action: list = []
    creach: list = []
    curs: list = []  # each node's tuple of the players' current sequences
    add_parent, add_action, add_creach, add_cur = parent.append, action.append, creach.append, curs.append
    dec_nodes: list = []  # decision nodes and their global information-set ids, in node order
    dec_gids: list = []
    add_dec, add_gid = dec_nodes.append, dec_gids.append
    ch_nodes: list = []
    ch_probs: list = []
    ch_labels: list = []
    term_chance: list = []
    term_pay: list = []
    add_tchance, add_tpay = term_chance.append, term_pay.append
    probs_seen: dict = {}  # id(chance's tuple) -> (tuple, outcomes, exact probabilities), validated

    ids: list = [dict() for _ in range(N)]
    I_player: list = []
    I_index: list = []
    I_nact: list = []
    I_pseq: list = []
    I_first: list = []
    I_node: list = []
    I_key: list = []
    I_actions: list = []
    nseq = [1] * N
    seq_inf: list = [[-1] for _ in range(N)]
    seq_act: list = [[-1] for _ in range(N)]
    ONE = 1  # stays an int until a chance node multiplies it: int products are cheap downstream

    # node count at which to check the size limit or report progress next
    tick = 0x10000 if progress is not None else float("inf")
    mark = tick if max_nodes is None else min(max_nodes, tick)

    stack = [(game.root(), -1, -1, ONE, 1.0, (0,) * N)]
    pop, push = stack.pop, stack.append
    nid = -1
    while stack:
        h, par, a, reach, freach, cur = pop()
        nid += 1
        if nid >= mark:
            if max_nodes is not None and nid >= max_nodes:
                raise too_many_nodes(game.name, max_nodes, memory_limit_bytes or max_nodes * BYTES_PER_NODE)
            if progress is not None:  # (always: without progress, mark is max_nodes at most)
                progress(nid)
            tick += 0x10000
            mark = tick if max_nodes is None else min(max_nodes, tick)
        add_parent(par)
        add_action(a)
        add_creach(freach)
        add_cur(cur)
        pl = player_of(h)
        if pl == TERMINAL:
            u = utility_of(h)
            if len(u) != N:
                raise GameError(
                    f"leaf {_path_str(_history_of(game, parent, action, nid))} of {game.name!r} gives "
                    f"{len(u)} utilities for {N} players"
                )
            add_tchance(reach)
            add_tpay(u)  # made exact after the walk, in one pass
            continue
        acts = actions_of(h)
        if type(acts) is not tuple:
            acts = tuple(acts)
        if not acts:
            raise GameError(
                f"non-terminal node {_path_str(_history_of(game, parent, action, nid))} of {game.name!r} has no actions"
            )
        if pl == CHANCE:
            raw = game.chance(h)
            seen = probs_seen.get(id(raw))
            if seen is not None and seen[0] is raw and seen[1] == len(acts):
                probs = seen[2]
            else:
                probs = _chance_probs(game, h, raw, acts, parent, action, nid)
                # a game that hands out the same (immutable) tuple again is not checked again; a
                # few dozen such tuples are kept (held, so that their ids stay theirs)
                if type(raw) is tuple and len(probs_seen) < 64:
                    probs_seen[id(raw)] = (raw, len(acts), probs)
            ch_nodes.append(nid)
            ch_probs.append(probs)
            ch_labels.append(_labels(acts))
            last = None  # uniform chance repeats one probability: multiply once, not per outcome
            for i in range(len(acts) - 1, -1, -1):
                pr = probs[i]
                if pr is not last:
                    last, r, fr = pr, reach * pr, freach * float(pr)
                push((next_of(h, i), nid, i, r, fr, cur))
            continue
        if not (0 <= pl < N):
            raise GameError(
                f"node {_path_str(_history_of(game, parent, action, nid))} of {game.name!r} "
                f"has player {pl!r}; expected 0..{N - 1}, CHANCE or TERMINAL"
            )
        key = infoset_of(h)
        try:
            gid = ids[pl].get(key)
        except TypeError:
            raise GameError(
                f"information-set key {key!r} of player {pl} at "
                f"{_path_str(_history_of(game, parent, action, nid))} in {game.name!r} is not "
                f"hashable (use a tuple or string)"
            ) from None
        if gid is None:
            gid = len(I_player)
            ids[pl][key] = gid
            I_player.append(pl)
            I_index.append(len(ids[pl]) - 1)
            I_nact.append(len(acts))
            I_pseq.append(cur[pl])
            I_first.append(nseq[pl])
            I_node.append(nid)
            I_key.append(key)
            I_actions.append(_labels(acts))
            for i in range(len(acts)):
                seq_inf[pl].append(gid)
                seq_act[pl].append(i)
            nseq[pl] += len(acts)
        else:
            if I_pseq[gid] != cur[pl]:
                first = _path_str(_history_of(game, parent, action, I_node[gid]))
                here = _path_str(_history_of(game, parent, action, nid))
                raise ImperfectRecallError(
                    f"imperfect recall in {game.name!r}: player {pl} information set {key!r} is reached "
                    f"after different own histories, at {first} and at {here}"
                )
            known = I_actions[gid]
            if known is not acts and known != acts and known != tuple(str(x) for x in acts):
                raise GameError(
                    f"player {pl} information set {key!r} of {game.name!r} has actions {list(I_actions[gid])} "
                    f"at {_path_str(_history_of(game, parent, action, I_node[gid]))} but {list(acts)} at "
                    f"{_path_str(_history_of(game, parent, action, nid))}"
                )
        add_dec(nid)
        add_gid(gid)
        first = I_first[gid]
        if two:  # the common case, without slicing tuples
            other = cur[1 - pl]
            for i in range(len(acts) - 1, -1, -1):
                push((next_of(h, i), nid, i, reach, freach, (first + i, other) if pl == 0 else (other, first + i)))
        else:
            for i in range(len(acts) - 1, -1, -1):
                push((next_of(h, i), nid, i, reach, freach, cur[:pl] + (first + i,) + cur[pl + 1 :]))

    if not term_pay:
        raise GameError(f"game {game.name!r} has no leaves")
    term_pay = _exact_payoffs(game, term_pay, parent, action, dec_nodes, ch_nodes)
    sums = set(map(sum, term_pay))
    constant_sum = sum(term_pay[0]) if len(sums) == 1 else None
    i32 = np.int32
    n = len(parent)
    player_arr = np.asarray(I_player, dtype=i32)
    dec_arr = np.asarray(dec_nodes, dtype=np.int64)
    gid_arr = np.asarray(dec_gids, dtype=i32)
    players = np.full(n, TERMINAL, dtype=np.int8)
    players[np.asarray(ch_nodes, dtype=np.int64)] = CHANCE
    players[dec_arr] = player_arr[gid_arr]
    node_infoset = np.full(n, -1, dtype=i32)
    node_infoset[dec_arr] = gid_arr
    term_arr = np.flatnonzero(players == TERMINAL).astype(i32)
    chance_reach = np.asarray(creach, dtype=np.float64)
    seq_inf_arr = [np.asarray(s, dtype=i32) for s in seq_inf]
    return Tree(
        name=game.name,
        num_players=N,
        parent=np.asarray(parent, dtype=i32),
        player=players,
        infoset=node_infoset,
        action=np.asarray(action, dtype=i32),
        chance_reach=chance_reach,
        node_seq=np.ascontiguousarray(np.fromiter(chain.from_iterable(curs), dtype=i32, count=n * N).reshape(n, N).T),
        terminals=term_arr,
        payoff=np.fromiter(chain.from_iterable(term_pay), dtype=np.float64, count=len(term_pay) * N).reshape(-1, N),
        terminal_chance=chance_reach[term_arr],
        payoff_exact=term_pay,
        terminal_chance_exact=term_chance,
        infoset_player=player_arr,
        infoset_index=np.asarray(I_index, dtype=i32),
        infoset_num_actions=np.asarray(I_nact, dtype=i32),
        infoset_parent_seq=np.asarray(I_pseq, dtype=i32),
        infoset_first_seq=np.asarray(I_first, dtype=i32),
        infoset_first_node=np.asarray(I_node, dtype=i32),
        infoset_key=I_key,
        infoset_actions=I_actions,
        num_sequences=tuple(nseq),
        player_infosets=[np.flatnonzero(player_arr == p).astype(i32) for p in range(N)],
        seq_infoset=seq_inf_arr,
        seq_action=[np.asarray(s, dtype=i32) for s in seq_act],
        constant_sum=constant_sum,
        chance_nodes=np.asarray(ch_nodes, dtype=i32),
        chance_probs=ch_probs,
        chance_labels=ch_labels,
        game=game,
    )


def _labels(acts: tuple) -> tuple:
    """The actions' labels as strings: the game's own tuple when it holds strings already (shared,
    not copied: fewer objects for the garbage collector to scan after the walk)."""
    return acts if all(type(x) is str for x in acts) else tuple(map(str, acts))


def _chance_probs(game: Game, h, raw, acts: tuple, parent: list, action: list, nid: int) -> tuple:
    """The exact probabilities ``raw`` that chance gives at node ``nid`` (state ``h``), checked:
    one per outcome, non-negative, summing to exactly one (``ChanceProbabilityError`` otherwise)."""
    probs = [_exact(x, "chance probability") for x in raw]
    if len(probs) != len(acts) or any(x < 0 for x in probs) or sum(probs) != 1:
        path = _path_str(_history_of(game, parent, action, nid))
        if len(probs) != len(acts):
            msg = f"{len(probs)} probabilities for {len(acts)} outcomes"
        elif any(x < 0 for x in probs):
            msg = f"a negative probability ({min(probs)})"
        else:
            off = sum(probs) - 1
            msg = (
                f"probabilities that sum to {sum(probs)}, not exactly 1 (off by {float(off):.3g}); "
                f"give them as Fractions, e.g. Fraction(1, 3) rather than 0.333..."
            )
        desc = game.describe(h)
        where = path if desc == repr(h) else f"{path} ({desc})"
        raise ChanceProbabilityError(f"chance node {where} of {game.name!r} has {msg}")
    return tuple(probs)


def _exact_payoffs(game: Game, term_pay: list, parent: list, action: list, dec_nodes: list, ch_nodes: list) -> list:
    """The leaves' utilities as tuples of exact numbers (``int`` or ``Fraction``), in leaf order."""
    if set(map(type, chain.from_iterable(term_pay))) <= {int, Fraction}:
        if set(map(type, term_pay)) == {tuple}:
            return term_pay
        return [u if type(u) is tuple else tuple(u) for u in term_pay]
    inner = np.zeros(len(parent), dtype=bool)  # the leaves' node ids, for error messages only
    inner[np.asarray(dec_nodes + ch_nodes, dtype=np.int64)] = True
    leaves = np.flatnonzero(~inner).tolist()
    return [
        tuple(_exact(x, lambda: f"utility at leaf {_path_str(_history_of(game, parent, action, z))}") for x in u)
        for z, u in zip(leaves, term_pay)
    ]


def _history_of(game: Game, parent: list, action: list, node: int) -> list:
    """Action labels from the root to ``node`` during compilation (for error messages)."""
    path = []
    while node > 0:
        path.append(action[node])
        node = parent[node]
    path.reverse()
    h, labels = game.root(), []
    for a in path:
        labels.append(str(game.actions(h)[a]))
        h = game.next(h, a)
    return labels

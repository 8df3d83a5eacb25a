"""OpenSpiel interoperability: OpenSpiel games as seqform games, and policies in both directions.

Needs the optional dependency ``open_spiel`` (``pip install "seqform[openspiel]"``, or from a
clone ``pip install -e ".[openspiel]"``: ``install_hint`` says which); nothing here
imports it until a function is called.

* ``from_openspiel(game)``: any OpenSpiel game (object or string such as ``"leduc_poker"``) as a
  ``seqform.model.game.Game``. Simultaneous-move games are made sequential with
  ``pyspiel.convert_to_turn_based`` first (each simultaneous node becomes one node per player,
  later players not seeing the earlier ones' choices).
* ``infoset_map(tree, game)``: for every information set of a compiled ``Tree``, OpenSpiel's
  information-state key and the OpenSpiel action id of each of our actions. Works for trees
  compiled from ``from_openspiel`` (directly) and for any other tree that is OpenSpiel's tree node
  for node with actions in OpenSpiel's order, e.g. the built-in ``kuhn``, ``leduc``,
  ``liars_dice`` and ``goofspiel`` (checked by walking both trees in parallel).
* ``to_openspiel_policy(tree, profile, game)`` and ``from_openspiel_policy(tree, policy)``:
  a seqform ``Profile`` as an OpenSpiel ``TabularPolicy`` and any OpenSpiel ``Policy`` as a
  ``Profile``.

Conventions of the adapter (``OpenSpielGame``):

* a node is a pyspiel state (wrapped; ``OpenSpielGame.state(h)`` unwraps it); its children are
  ``state.child(action_id)``;
* actions at a decision node are ``state.legal_actions()`` (ascending ids), at a chance node the
  outcomes of ``state.chance_outcomes()`` sorted by id; labels are ``state.action_to_string``;
* the information-set key of the player to act is ``state.information_state_string(player)``,
  the same key OpenSpiel's ``TabularPolicy`` uses. Games without information-state strings fall
  back to ``observation_string(player)``, which is a correct key only if the observation
  determines the player's whole past (else ``compile_tree`` reports imperfect recall);
* chance probabilities and returns, floats in OpenSpiel, become the exact rationals they stand for:
  ``Fraction(x).limit_denominator(10**9)``, accepted only within ``1e-12`` of the float
  (so ``0.3333333333333333`` is ``1/3``); the probabilities at each chance node must then sum to
  exactly 1, else ``ChanceProbabilityError`` names the node.
"""

from __future__ import annotations

import functools
import math
import sys
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from seqform.errors import (
    ChanceProbabilityError,
    GameError,
    OpenSpielNotInstalled,
    StrategyError,
    TooLargeError,
    UnsupportedGameError,
)
from seqform.exact.rationals import nearest_rational
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.model.limits import GIB, RAISE_LIMIT, memory_limit
from seqform.model.strategy import Profile, validate_behaviour
from seqform.model.tree import Tree
from seqform.silence import silenced_fds

MAX_DENOMINATOR = 10**9
TOLERANCE = 1e-12

#: what walking an OpenSpiel game costs, besides its information sets' keys: its tree compiled
#: (``seqform.model.limits.BYTES_PER_NODE`` budgets ~250-300 measured) and a state per pending node;
#: measured ~200 bytes a node on Leduc poker for 3 players, ~540 on Liar's Dice with 2 dice (whose
#: long information-state strings, counted apart, make the difference)
OPENSPIEL_BYTES_PER_NODE = 350
#: per information set besides its key's and action ids' own size: the adapter's dict entry and
#: the compiled tree's per-set lists
OPENSPIEL_BYTES_PER_INFOSET = 300
_CHECK_EVERY = 0x1000  # nodes between two checks of the walk's size


def install_hint() -> str:
    """How to install OpenSpiel for this seqform (``seqform.installation.install_command``)."""
    from seqform.installation import install_command

    return f"OpenSpiel is not installed; install it with: {install_command('openspiel')} (or pip install open_spiel)"


def pyspiel_module():
    """OpenSpiel's ``pyspiel`` module, imported on first use (an optional extra);
    ``OpenSpielNotInstalled`` with the install hint when it is missing."""
    try:
        import pyspiel
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise OpenSpielNotInstalled(install_hint()) from e
    return pyspiel


def _policy_module():
    try:
        from open_spiel.python import policy
    except ImportError as e:  # pragma: no cover
        raise OpenSpielNotInstalled(install_hint()) from e
    return policy


@functools.lru_cache(maxsize=4096)
def _rationalize(xf: float, max_denominator: int, tolerance: float) -> tuple:
    """(q, ok): the rational ``xf`` stands for, and whether it is within ``tolerance``."""
    exact = Fraction(xf)
    q = nearest_rational(xf, max_denominator)
    return q, abs(q - exact) <= tolerance


def to_rational(
    x,
    what: str | Callable[..., str] = "number",
    *,
    max_denominator: int = MAX_DENOMINATOR,
    tolerance: float = TOLERANCE,
) -> Fraction:
    """The exact rational a float stands for: ``Fraction(x).limit_denominator(max_denominator)``,
    accepted only if within ``tolerance`` of ``x`` (``GameError`` naming ``what`` otherwise; ``what``
    may be a function returning the name, called only on error)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return Fraction(int(x))
    try:
        xf = float(x)
    except (TypeError, ValueError):
        raise GameError(f"{_name(what)} is {x!r}, not a number") from None
    if not math.isfinite(xf):
        raise GameError(f"{_name(what)} is {xf!r}, not a finite number")
    q, ok = _rationalize(xf, max_denominator, tolerance)
    if not ok:
        raise GameError(
            f"{_name(what)} is {xf!r}, which is not within {tolerance:g} of a rational with "
            f"denominator at most {max_denominator:,} (closest: {q})"
        )
    return q


def _name(what) -> str:
    return what() if callable(what) else what


def load_openspiel(game):
    """A pyspiel game from a game object or a game string, made turn-based if simultaneous."""
    pyspiel = pyspiel_module()
    if isinstance(game, str):
        # an unknown name makes OpenSpiel list all of its games in the error, twice: say it in one line
        short = game.split("(", 1)[0].strip()
        names = list(pyspiel.registered_names())
        if short not in names:
            import difflib

            near = difflib.get_close_matches(short, names, n=3)
            hint = f"; did you mean {' or '.join(near)}?" if near else " (pyspiel.registered_names() lists them)"
            raise GameError(f"unknown OpenSpiel game {short!r}{hint}")
        try:
            with silenced_fds():  # OpenSpiel prints its exception on fd 2 before raising it
                game = pyspiel.load_game(game)
        except Exception as e:  # pyspiel raises a plain RuntimeError / SpielError
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise GameError(f"OpenSpiel cannot load game {game!r}: {first}") from None
    if not isinstance(game, pyspiel.Game):
        raise TypeError(f"expected a pyspiel game or a game string, got {type(game).__name__}")
    gt = game.get_type()
    D = pyspiel.GameType.Dynamics
    if gt.dynamics == D.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
        gt = game.get_type()
    if gt.dynamics != D.SEQUENTIAL:
        raise UnsupportedGameError(
            f"OpenSpiel game {str(game)!r} has dynamics {gt.dynamics}; seqform supports "
            f"sequential and simultaneous games"
        )
    if gt.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        raise UnsupportedGameError(
            f"OpenSpiel game {str(game)!r} has sampled chance (no explicit chance "
            f"probabilities); seqform needs explicit chance outcomes"
        )
    return game


class _Node:
    """A pyspiel state with its actions (ids, labels) computed once."""

    __slots__ = ("state", "_ids")

    def __init__(self, state):
        self.state = state
        self._ids = None

    def ids(self) -> tuple:
        if self._ids is None:
            s = self.state
            if s.is_chance_node():
                self._ids = tuple(sorted(a for a, _ in s.chance_outcomes()))
            else:
                self._ids = tuple(s.legal_actions())
        return self._ids


class OpenSpielGame(Game):
    """An OpenSpiel game as a seqform ``Game`` (see the module docstring for the conventions).

    ``pyspiel_game`` is the (turn-based) pyspiel game; ``infoset_kind`` is
    ``"information_state"`` or ``"observation"``. ``state(h)`` is the pyspiel state of a node and
    ``action_ids(h)`` the OpenSpiel action id of each action index there.

    A walk of the tree (one ``root()`` and the ``next`` calls after it) is refused with
    ``TooLargeError`` as soon as the nodes it has made and the information-set keys it has seen
    would need more than ``memory_limit_bytes`` (default ``seqform.model.limits.memory_limit()``):
    OpenSpiel does not tell a game's size, so the refusal says what the walk has reached so far.
    """

    def __init__(
        self,
        game,
        *,
        max_denominator: int = MAX_DENOMINATOR,
        tolerance: float = TOLERANCE,
        memory_limit_bytes: int | None = None,
    ):
        pyspiel = pyspiel_module()
        self.pyspiel_game = game = load_openspiel(game)
        gt = game.get_type()
        self.name = str(game)
        self.num_players = int(game.num_players())
        if gt.provides_information_state_string:
            self.infoset_kind = "information_state"
        elif gt.provides_observation_string:
            self.infoset_kind = "observation"
        else:
            raise UnsupportedGameError(
                f"OpenSpiel game {self.name!r} provides neither information-state nor "
                f"observation strings; seqform cannot tell its information sets apart"
            )
        self.max_denominator, self.tolerance = max_denominator, tolerance
        self._chance_id = int(pyspiel.PlayerId.CHANCE)
        # (player, key) -> OpenSpiel action ids, recorded while the tree is compiled
        self._infoset_ids: dict = {}
        self._limit = memory_limit() if memory_limit_bytes is None else memory_limit_bytes
        self._walked = 0  # nodes made since the last root()
        self._key_bytes = 0  # what the information sets' keys and action ids hold

    def _check_walk(self) -> None:
        need = self._walked * OPENSPIEL_BYTES_PER_NODE + self._key_bytes
        if need > self._limit:
            raise TooLargeError(
                f"OpenSpiel game {self.name!r} has at least {self._walked:,} nodes and "
                f"{len(self._infoset_ids):,} information sets: compiling it would need at least "
                f"{need / GIB:.2f} GiB (~{OPENSPIEL_BYTES_PER_NODE} bytes a node and each set's key), over "
                f"the memory limit of {self._limit / GIB:.3g} GiB; {RAISE_LIMIT}"
            )

    # --- the Game interface ----------------------------------------------------------------------
    def root(self):
        self._walked = 1  # a new walk
        return _Node(self.pyspiel_game.new_initial_state())

    def player(self, h):
        s = h.state
        if s.is_terminal():
            return TERMINAL
        if s.is_chance_node():
            return CHANCE
        p = s.current_player()
        if p < 0:
            raise UnsupportedGameError(
                f"state {self.describe(h)} of {self.name!r} has current player {p} "
                f"(neither a player, chance nor terminal)"
            )
        return p

    def _key(self, s, p: int) -> str:
        if self.infoset_kind == "information_state":
            return s.information_state_string(p)
        return s.observation_string(p)

    def infoset(self, h):
        s = h.state
        p = s.current_player()
        key = self._key(s, p)
        if (p, key) not in self._infoset_ids:
            ids = self._infoset_ids[(p, key)] = h.ids()
            self._key_bytes += sys.getsizeof(key) + sys.getsizeof(ids) + OPENSPIEL_BYTES_PER_INFOSET
        return key

    def actions(self, h):
        s = h.state
        p = self._chance_id if s.is_chance_node() else s.current_player()
        return tuple(s.action_to_string(p, a) for a in h.ids())

    def chance(self, h):
        s = h.state
        outcomes = sorted(s.chance_outcomes())
        probs = [
            to_rational(
                p,
                lambda a=a: (
                    f"probability of chance outcome {s.action_to_string(self._chance_id, a)!r} at {self.describe(h)}"
                ),
                max_denominator=self.max_denominator,
                tolerance=self.tolerance,
            )
            for a, p in outcomes
        ]
        if sum(probs) != 1:
            raise ChanceProbabilityError(
                f"chance node {self.describe(h)} of {self.name!r}: the probabilities {[p for _, p in outcomes]} "
                f"stand for {[str(q) for q in probs]}, which sum to {sum(probs)}, not exactly 1"
            )
        return probs

    def next(self, h, a):
        self._walked += 1
        if not self._walked % _CHECK_EVERY:
            self._check_walk()
        return _Node(h.state.child(h.ids()[a]))

    def utility(self, h):
        return tuple(
            to_rational(
                r,
                lambda i=i: f"return of player {i} at leaf {self.describe(h)}",
                max_denominator=self.max_denominator,
                tolerance=self.tolerance,
            )
            for i, r in enumerate(h.state.returns())
        )

    def describe(self, h):
        return f"history {h.state.history()}"

    # --- extras ------------------------------------------------------------------------------------
    @staticmethod
    def state(h):
        """The pyspiel state of node ``h``."""
        return h.state

    @staticmethod
    def action_ids(h) -> tuple:
        """OpenSpiel action id of each action index at node ``h``."""
        return h.ids()


def from_openspiel(
    game,
    *,
    max_denominator: int = MAX_DENOMINATOR,
    tolerance: float = TOLERANCE,
    memory_limit_bytes: int | None = None,
) -> OpenSpielGame:
    """An OpenSpiel game (a pyspiel game or a game string) as a seqform ``Game``.

    Simultaneous-move games are converted with ``pyspiel.convert_to_turn_based``. Information
    sets are keyed by ``information_state_string(player)`` (``observation_string(player)`` for
    games without information states); actions are OpenSpiel's legal actions in ascending id
    order (chance outcomes sorted by id); chance probabilities and returns are converted to
    exact rationals with ``to_rational(x, max_denominator=..., tolerance=...)``. Compiling it is
    refused as soon as the walk would pass ``memory_limit_bytes`` (``OpenSpielGame``).
    """
    return OpenSpielGame(
        game, max_denominator=max_denominator, tolerance=tolerance, memory_limit_bytes=memory_limit_bytes
    )


# ---------------------------------------------------------------------------------------------
# Information-set maps
# ---------------------------------------------------------------------------------------------


@dataclass(eq=False)
class InfosetMap:
    """seqform information sets -> OpenSpiel, for one tree and one (turn-based) pyspiel game.

    ``keys[i]``: OpenSpiel's key (information-state string, or observation string) of global
    information set ``i``; ``action_ids[i]``: OpenSpiel action id of each of its action indices.
    """

    pyspiel_game: Any
    keys: list
    action_ids: list
    key_kind: str

    def states(self, tree: Tree, infosets: Sequence[int] | None = None) -> list:
        """A representative pyspiel state (at its first node) of each information set given (default all)."""
        ids = range(len(self.keys)) if infosets is None else infosets
        nodes = [int(tree.infoset_first_node[i]) for i in ids]
        got = _states_at(tree, self, nodes)
        return [got[n] for n in nodes]


_MAPS: weakref.WeakKeyDictionary[Tree, dict] = weakref.WeakKeyDictionary()


def openspiel_name(game_or_tree) -> str:
    """The OpenSpiel game string matching a built-in seqform game (or a tree compiled from one)."""
    g = game_or_tree.game if isinstance(game_or_tree, Tree) else game_or_tree
    if isinstance(g, OpenSpielGame):
        return g.name
    from seqform.games.goofspiel import Goofspiel
    from seqform.games.kuhn import Kuhn
    from seqform.games.leduc import Leduc
    from seqform.games.liars_dice import LiarsDice

    if isinstance(g, Kuhn):
        return "kuhn_poker" if g.num_players == 2 else f"kuhn_poker(players={g.num_players})"
    if isinstance(g, Leduc):
        n = g.num_players
        if (g.ranks, g.suits) != (n + 1, 2):
            raise UnsupportedGameError(f"OpenSpiel's leduc_poker has {n + 1} ranks and 2 suits, not {g.name!r}")
        return "leduc_poker" if n == 2 else f"leduc_poker(players={n})"
    if isinstance(g, LiarsDice):
        return f"liars_dice(numdice={g.dice},dice_sides={g.sides})"
    if isinstance(g, Goofspiel):
        return (
            f"turn_based_simultaneous_game(game=goofspiel(num_cards={g.cards},imp_info={str(g.imp_info).lower()},"
            f"points_order={g.points_order},returns_type={g.returns}))"
        )
    raise UnsupportedGameError(f"no known OpenSpiel counterpart of {getattr(g, 'name', g)!r}; pass the pyspiel game")


def infoset_map(tree: Tree, pyspiel_game=None, *, check: bool = True) -> InfosetMap:
    """Map ``tree``'s information sets to OpenSpiel's information states and action ids.

    ``pyspiel_game``: a pyspiel game or game string (simultaneous games are made turn-based);
    default: the adapter's game for a tree compiled from ``from_openspiel``, else the OpenSpiel
    counterpart of a built-in game (``openspiel_name``). For a tree compiled from
    ``from_openspiel`` of the same game the map is read off the tree. Otherwise both trees are
    walked in parallel, pairing our action ``a`` with OpenSpiel's ``a``-th legal action (chance
    outcomes sorted by id), and checked node for node (``check=True``): same node kinds and
    players, same number of actions, equal chance probabilities and payoffs, and a one-to-one
    correspondence of information sets; ``GameError`` names the first node that differs.
    Results are cached per tree and game.
    """
    g = tree.game
    if pyspiel_game is None:
        pyspiel_game = g.pyspiel_game if isinstance(g, OpenSpielGame) else openspiel_name(tree)
    pyspiel_game = load_openspiel(pyspiel_game)
    name = str(pyspiel_game)
    cache = _MAPS.setdefault(tree, {})
    hit = cache.get((name, check))
    if hit is not None:
        return hit
    out = None
    if isinstance(g, OpenSpielGame) and g.name == name:
        ids = g._infoset_ids
        try:
            acts = [ids[(int(tree.infoset_player[i]), tree.infoset_key[i])] for i in range(len(tree.infoset_key))]
            out = InfosetMap(
                pyspiel_game, list(tree.infoset_key), [np.asarray(a, dtype=np.int64) for a in acts], g.infoset_kind
            )
        except KeyError:
            out = None
    if out is None:
        out = _parallel_walk(tree, pyspiel_game, check)
    cache[(name, check)] = out
    return out


def _children(tree: Tree) -> tuple:
    """Children of every node in action order, as (start offsets, concatenated node ids)."""
    par = tree.parent[1:].astype(np.int64)
    order = np.argsort(par, kind="stable") + 1  # node ids grouped by parent, ascending within a parent
    counts = np.bincount(par, minlength=tree.num_nodes)
    starts = np.concatenate(([0], np.cumsum(counts)))
    return starts, order


def _parallel_walk(tree: Tree, game, check: bool) -> InfosetMap:
    gt = game.get_type()
    kind = "information_state" if gt.provides_information_state_string else "observation"
    M = len(tree.infoset_key)
    keys: list = [None] * M
    acts: list = [None] * M
    seen: list = [dict() for _ in range(tree.num_players)]
    starts, kids = _children(tree)
    player = tree.player
    where = tree.game.name if tree.game is not None else tree.name

    def fail(node, msg):
        raise GameError(
            f"tree of {where!r} does not match OpenSpiel's {str(game)!r} at node {node} "
            f"(history {'/'.join(tree.history(node)) or '(root)'}): {msg}"
        )

    term_index = {int(n): k for k, n in enumerate(tree.terminals)} if check else {}
    stack = [(0, game.new_initial_state())]
    while stack:
        n, s = stack.pop()
        pl = int(player[n])
        ch = kids[starts[n] : starts[n + 1]]
        if pl == TERMINAL:
            if check:
                if not s.is_terminal():
                    fail(n, "a leaf here, not in OpenSpiel")
                ret = [to_rational(r, lambda: f"OpenSpiel return at history {s.history()}") for r in s.returns()]
                ours = list(tree.payoff_exact[term_index[n]])
                if ret != ours:
                    fail(n, f"payoffs {[str(x) for x in ours]} here, {[str(x) for x in ret]} in OpenSpiel")
            continue
        if pl == CHANCE:
            if check and not s.is_chance_node():
                fail(n, "a chance node here, not in OpenSpiel")
            outcomes = sorted(s.chance_outcomes())
            if len(outcomes) != len(ch):
                fail(n, f"{len(ch)} chance outcomes here, {len(outcomes)} in OpenSpiel")
            if check:
                r0 = tree.chance_reach[n]
                for (a, p), c in zip(outcomes, ch):
                    if abs(tree.chance_reach[c] - r0 * p) > 1e-12 * max(1.0, r0):
                        fail(
                            n,
                            f"outcome {s.action_to_string(-1, a)!r} has probability "
                            f"{tree.chance_reach[c] / r0 if r0 else float('nan')} here, {p} in OpenSpiel",
                        )
            ids = [a for a, _ in outcomes]
        else:
            if check and (s.is_terminal() or s.is_chance_node() or s.current_player() != pl):
                there = (
                    "a leaf" if s.is_terminal() else "chance" if s.is_chance_node() else f"player {s.current_player()}"
                )
                fail(n, f"player {pl} acts here; in OpenSpiel {there}")
            ids = s.legal_actions()
            if len(ids) != len(ch):
                fail(n, f"{len(ch)} actions here, {len(ids)} legal actions in OpenSpiel")
            gid = int(tree.infoset[n])
            key = s.information_state_string(pl) if kind == "information_state" else s.observation_string(pl)
            if keys[gid] is None:
                other = seen[pl].get(key)
                if other is not None and check:
                    fail(
                        n,
                        f"{tree.infoset_label(gid)} and {tree.infoset_label(other)} are both OpenSpiel's "
                        f"information state {key!r}",
                    )
                seen[pl][key] = gid
                keys[gid] = key
                acts[gid] = np.asarray(ids, dtype=np.int64)
            elif check:
                if keys[gid] != key:
                    fail(
                        n,
                        f"{tree.infoset_label(gid)} is OpenSpiel's information state {keys[gid]!r} at its first "
                        f"node but {key!r} here",
                    )
                if not np.array_equal(acts[gid], ids):
                    fail(n, f"OpenSpiel's legal actions differ within {tree.infoset_label(gid)}")
        for a in range(len(ch) - 1, -1, -1):
            stack.append((int(ch[a]), s.child(ids[a])))
    return InfosetMap(game, keys, acts, kind)


def _states_at(tree: Tree, imap: InfosetMap, nodes: Sequence[int]) -> dict:
    """pyspiel states at the given nodes, by one walk along the paths to them (in preorder)."""
    parent, action, player, infoset = tree.parent, tree.action, tree.player, tree.infoset
    path_nodes = [0]
    path_states = [imap.pyspiel_game.new_initial_state()]
    pos = {0: 0}
    out = {}
    for t in sorted(set(int(x) for x in nodes)):
        chain = []
        n = t
        while n not in pos:
            chain.append(n)
            n = int(parent[n])
        k = pos[n]
        for m in path_nodes[k + 1 :]:
            del pos[m]
        del path_nodes[k + 1 :], path_states[k + 1 :]
        for m in reversed(chain):
            up, s = path_nodes[-1], path_states[-1]
            a = int(action[m])
            if player[up] == CHANCE:
                aid = sorted(o for o, _ in s.chance_outcomes())[a]
            else:
                aid = int(imap.action_ids[int(infoset[up])][a])
            pos[m] = len(path_nodes)
            path_nodes.append(m)
            path_states.append(s.child(aid))
        out[t] = path_states[-1]
    return out


# ---------------------------------------------------------------------------------------------
# Policies
# ---------------------------------------------------------------------------------------------


def to_openspiel_policy(tree: Tree, profile: Profile, game=None):
    """``profile`` as an OpenSpiel ``TabularPolicy`` of ``game`` (pyspiel game or string).

    ``game`` defaults as in ``infoset_map``; a simultaneous game is made turn-based, and the
    policy belongs to that turn-based game (``policy.game``). Every information set's row gets
    the profile's probabilities on its legal actions and 0 elsewhere.
    """
    if len(profile.behaviour) != tree.num_players:
        raise StrategyError(f"profile has {len(profile.behaviour)} players; the game has {tree.num_players}")
    for p, b in enumerate(profile.behaviour):
        validate_behaviour(tree, p, np.asarray(b, dtype=np.float64))
    imap = infoset_map(tree, game)
    pol = _policy_module().TabularPolicy(imap.pyspiel_game)
    arr = pol.action_probability_array
    lookup = pol.state_lookup
    for i, key in enumerate(imap.keys):
        row = lookup.get(key)
        if row is None:
            raise GameError(
                f"OpenSpiel's TabularPolicy of {str(imap.pyspiel_game)!r} has no row for "
                f"{tree.infoset_label(i)} (key {key!r})"
            )
        p = int(tree.infoset_player[i])
        f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
        arr[row, :] = 0.0
        arr[row, imap.action_ids[i]] = np.asarray(profile.behaviour[p][f : f + k], dtype=np.float64)
    return pol


def _is_plain_tabular(policy) -> bool:
    TabularPolicy = _policy_module().TabularPolicy
    return isinstance(policy, TabularPolicy) and type(policy).action_probabilities is TabularPolicy.action_probabilities


def from_openspiel_policy(tree: Tree, policy, game=None, *, tol: float = 1e-9) -> Profile:
    """Any OpenSpiel ``Policy`` as a seqform ``Profile`` on ``tree``.

    ``game`` defaults to ``policy.game``. A plain ``TabularPolicy`` is read from its array; any
    other policy is asked ``action_probabilities(state, player)`` at a representative state (the
    first node) of each information set. Probabilities must form a distribution over the legal
    actions (to ``tol``), else ``StrategyError`` names the information set.
    """
    if game is None:
        game = getattr(policy, "game", None)
    imap = infoset_map(tree, game)
    M = len(imap.keys)
    rows: list = [None] * M
    if _is_plain_tabular(policy):
        lookup, arr = policy.state_lookup, policy.action_probability_array
        missing = [i for i, k in enumerate(imap.keys) if k not in lookup]
        for i, k in enumerate(imap.keys):
            if k in lookup:
                row = arr[lookup[k]]
                rows[i] = (row[imap.action_ids[i]], float(row.sum()))
    else:
        missing = list(range(M))
    if missing:
        states = imap.states(tree, missing)
        for i, s in zip(missing, states):
            p = int(tree.infoset_player[i])
            try:
                probs = policy.action_probabilities(s, p)
            except TypeError:
                probs = policy.action_probabilities(s)
            except KeyError:
                raise StrategyError(
                    f"the policy has no probabilities for {tree.infoset_label(i)} (OpenSpiel key {imap.keys[i]!r})"
                ) from None
            probs = dict(probs)
            vals = np.array([float(probs.get(int(a), 0.0)) for a in imap.action_ids[i]])
            rows[i] = (vals, float(sum(probs.values())))
    out = [np.ones(tree.num_sequences[p]) for p in range(tree.num_players)]
    for i, (vals, total) in enumerate(rows):
        p = int(tree.infoset_player[i])
        f = int(tree.infoset_first_seq[i])
        s = float(vals.sum())
        if (not np.all(np.isfinite(vals))) or vals.min() < -tol or abs(s - 1.0) > tol or abs(total - s) > tol:
            raise StrategyError(
                f"the policy at {tree.infoset_label(i)} is not a distribution over its legal actions: "
                f"{dict(zip(tree.infoset_actions[i], vals.tolist()))} (sum {s}; "
                f"{total - s:g} on illegal actions)"
            )
        out[p][f : f + len(vals)] = vals
    return Profile(out)


__all__ = [
    "OpenSpielNotInstalled",
    "from_openspiel",
    "OpenSpielGame",
    "to_rational",
    "load_openspiel",
    "infoset_map",
    "InfosetMap",
    "openspiel_name",
    "to_openspiel_policy",
    "from_openspiel_policy",
    "MAX_DENOMINATOR",
    "TOLERANCE",
]

"""Strategy profiles as JSON, and as pygambit behaviour profiles.

The JSON form (``profile_to_json`` writes it, ``profile_from_json`` reads it)::

    {
      "game": "kuhn",
      "players": 2,
      "strategies": [
        {"infosets": [
          {"infoset": "J", "actions": {"Pass": "2/3", "Bet": "1/3"}},
          {"infoset": "J | pb", "actions": {"Pass": "1", "Bet": "0"}},
          ...
        ]},
        {"infosets": [...]}
      ]
    }

* ``"game"``: the game's name (``Tree.name``, e.g. ``"leduc(ranks=4,suits=2)"``); checked on
  reading (whitespace aside) unless ``check_game=False``; may be omitted.
* ``"players"``: the number of players N; ``"strategies"`` has one entry per player, player 0
  (Gambit's "Player 1") first.
* An information set's label is the game's readable name for it (``Game.infoset_name``: the
  built-in games write ``"J | pb"``, what the player has seen, then what has been played; see
  ``seqform.games.labels``), else ``str(infoset_key)`` (``.efg`` files, OpenSpiel games, games
  that give no names, or whose names repeat within a player). Labels must be unique per player; a
  game where two of a player's keys print the same (say ``1`` and ``"1"``) cannot be written or
  read (``StrategyError`` naming them). Action labels are the game's (``Game.action_name``, else
  ``Tree.infoset_actions``), unique within an information set. On reading, ``str(infoset_key)``
  and the tree's action labels are accepted too (files written before the readable names), where
  they name one information set or action only.
* Probabilities are **strings of rationals** (``"1/3"``, ``"0"``, ``"1"``; ``Fraction`` syntax,
  so ``"0.25"`` is 1/4 exactly) when the profile is exact, **JSON numbers** when it is float. On
  reading, a profile is exact iff no probability is a JSON float (strings and integers are exact);
  one JSON float anywhere makes the whole profile float.
* Information sets are written in ``Tree`` order (discovery order, ``infoset_index``), every one
  of them, with every action. On reading, order does not matter, an action left out has
  probability 0, and an information set left out is an error naming it, unless
  ``missing="uniform"`` (then it is played uniformly).
* Each information set's probabilities must be non-negative and sum to 1: exactly for an exact
  profile, within 1e-9 for a float one; otherwise ``StrategyError`` names the information set.

``read_profile(tree, path)`` / ``write_profile(tree, profile, path)`` do the same with files. The
output of ``seqform solve --json --strategy`` (its ``"strategy"`` member) is read too.

pygambit (optional): ``to_pygambit_behavior(tree, profile, gambit_game)`` and
``from_pygambit_behavior(tree, gambit_profile)`` for a pygambit game read from this package's
``.efg`` writer (``seqform.io.efgwrite``): seqform player p is Gambit's player p+1 (``gambit_game.players``
position p), information set ``infoset_index`` is Gambit's number ``infoset_index + 1`` (pygambit
16's zero-based ``Infoset.number`` is ``infoset_index``) with the writer's label, actions in order.
Exact profiles become ``MixedBehaviorProfileRational`` and rational pygambit profiles come back
as Fractions.
"""

from __future__ import annotations

import difflib
import json
import math
import os
from collections import Counter
from fractions import Fraction
from typing import IO, Any

import numpy as np

from seqform.errors import Remedy, StrategyError
from seqform.exact.rationals import to_fraction
from seqform.io.gamespec import same_game
from seqform.model.strategy import Profile
from seqform.model.tree import Tree
from seqform.verify.evaluate import is_exact_profile

__all__ = [
    "profile_to_json",
    "profile_from_json",
    "read_profile",
    "write_profile",
    "infoset_labels",
    "to_pygambit_behavior",
    "from_pygambit_behavior",
    "TOLERANCE",
]

#: how far a float profile's probabilities at an information set may sum from 1
TOLERANCE = 1e-9


# ----------------------------------------------------------------------------------------------
# labels
# ----------------------------------------------------------------------------------------------


def infoset_labels(tree: Tree, p: int) -> list:
    """Player ``p``'s information-set labels, in ``Tree`` order: the game's readable ones
    (``Game.infoset_name``, e.g. Kuhn's ``"Q | pb"``), or ``str(infoset_key)`` when the tree has
    no game, or the game's labels repeat within the player.

    Raises ``StrategyError`` naming them if two of the player's information sets have the same
    ``str(key)`` (and the game gives no unique labels).
    """
    ids = tree.player_infosets[p].tolist()
    name = getattr(tree.game, "infoset_name", None)
    if name is not None:
        labels = [str(name(tree.infoset_key[i], p)) for i in ids]
        if len(set(labels)) == len(labels):
            return labels
    labels = _key_labels(tree, ids)
    if len(set(labels)) != len(labels):
        seen: dict = {}
        for i, lab in zip(ids, labels):
            seen.setdefault(lab, []).append(tree.infoset_key[i])
        dups = {lab: keys for lab, keys in seen.items() if len(keys) > 1}
        shown = "; ".join(f"{lab!r} (keys {', '.join(repr(k) for k in keys)})" for lab, keys in list(dups.items())[:5])
        raise StrategyError(
            f"player {p} of {tree.name} has {len(dups)} information-set label(s) shared by "
            f"several information sets, so strategies cannot be named by str(key): {shown}"
        )
    return labels


def _key_labels(tree: Tree, ids: list) -> list:
    """The labels of before the games had readable ones: ``str(infoset_key)``."""
    return [str(tree.infoset_key[i]) for i in ids]


def _action_labels(tree: Tree, i: int) -> tuple:
    """Information set ``i``'s action labels: the game's readable ones (``Game.action_name``) when
    they differ from the tree's and are unique, else the tree's (``Tree.infoset_actions``)."""
    acts = tree.infoset_actions[i]
    name = getattr(tree.game, "action_name", None)
    if name is not None:
        key = tree.infoset_key[i]
        named = tuple(str(name(key, a)) for a in acts)
        if named != acts and len(set(named)) == len(named):
            return named
    if len(set(acts)) != len(acts):
        dup = sorted({a for a in acts if acts.count(a) > 1})
        raise StrategyError(
            f"{tree.infoset_label(i)} of {tree.name} has repeated action labels {dup}, "
            f"so its strategy cannot be named by action label"
        )
    return acts


def _positions(labels: list | tuple, old: list | tuple) -> dict:
    """Label -> position for reading: every label, and every old label (what files written before
    the readable labels say) that names one position only and is not another position's label."""
    out = {lab: j for j, lab in enumerate(labels)}
    counts = Counter(old)
    for j, lab in enumerate(old):
        if counts[lab] == 1:
            out.setdefault(lab, j)
    return out


# ----------------------------------------------------------------------------------------------
# writing
# ----------------------------------------------------------------------------------------------


def profile_to_json(tree: Tree, profile: Profile, exact: bool | None = None) -> dict:
    """``profile`` in the JSON form of the module docstring (a dict ready for ``json.dumps``).

    ``exact``: None writes rational strings iff every probability is exact (ints, Fractions,
    fmpq), True writes rational strings anyway (floats at their binary value), False writes
    floats. Raises ``StrategyError`` if the profile has the wrong shape or labels are not unique.
    """
    beh = profile.behaviour if isinstance(profile, Profile) else list(profile)
    if len(beh) != tree.num_players:
        raise StrategyError(f"the profile has strategies for {len(beh)} players; {tree.name} has {tree.num_players}")
    if exact is None:
        exact = is_exact_profile(beh)
    strategies = []
    for p, b in enumerate(beh):
        if len(b) != tree.num_sequences[p]:
            raise StrategyError(
                f"player {p}'s strategy has {len(b)} {'entry' if len(b) == 1 else 'entries'}; {tree.name} has "
                f"{tree.num_sequences[p]} sequences for player {p} (the empty sequence included)"
            )
        vals = b.tolist() if isinstance(b, np.ndarray) else list(b)
        num = (lambda v: str(to_fraction(v))) if exact else float
        entries = []
        for i, lab in zip(tree.player_infosets[p].tolist(), infoset_labels(tree, p)):
            f = int(tree.infoset_first_seq[i])
            entries.append(
                {"infoset": lab, "actions": {a: num(vals[f + j]) for j, a in enumerate(_action_labels(tree, i))}}
            )
        strategies.append({"infosets": entries})
    return {"game": tree.name, "players": tree.num_players, "strategies": strategies}


def write_profile(
    tree: Tree,
    profile: Profile,
    path_or_file: str | os.PathLike | IO[str],
    exact: bool | None = None,
    indent: int | None = 1,
) -> None:
    """Write ``profile_to_json(tree, profile, exact)`` to a path or a text file."""
    obj = profile_to_json(tree, profile, exact)
    if isinstance(path_or_file, (str, os.PathLike)):
        with open(path_or_file, "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=indent, ensure_ascii=False)
            f.write("\n")
    else:
        json.dump(obj, path_or_file, indent=indent, ensure_ascii=False)


# ----------------------------------------------------------------------------------------------
# reading
# ----------------------------------------------------------------------------------------------


def _where(tree: Tree, p: int, label: str) -> str:
    return f"player {p} information set {label!r} of {tree.name}"


def _parse_probability(v: Any, what) -> Fraction | float:
    """A probability from JSON: str/int -> Fraction, float -> float; anything else is an error."""
    if isinstance(v, bool) or v is None:
        raise StrategyError(f"{what()}: probability {json.dumps(v)} is not a number")
    if isinstance(v, int):
        return Fraction(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise StrategyError(f"{what()}: probability {v} is not finite")
        return v
    if isinstance(v, str):
        try:
            return Fraction(v.strip())
        except (ValueError, ZeroDivisionError):
            raise StrategyError(
                f'{what()}: probability {v!r} is not a rational number (write e.g. "1/3", "0.25" or "1")'
            ) from None
    raise StrategyError(
        f"{what()}: probability {json.dumps(v) if isinstance(v, (list, dict)) else v!r} is not a number"
    )


def _unwrap(obj: Any) -> dict:
    """The profile object itself (also accepts a ``seqform solve --json --strategy`` result)."""
    if isinstance(obj, dict) and "strategies" not in obj and "strategy" in obj:
        inner = obj["strategy"]
        if isinstance(inner, list):  # older solve output: one list of information sets per player
            inner = {"game": obj.get("game"), "strategies": [{"infosets": x} for x in inner]}
        obj = inner
    if not isinstance(obj, dict):
        raise StrategyError(f'a strategy profile must be a JSON object with "strategies", not a {type(obj).__name__}')
    if "strategies" not in obj:
        raise StrategyError(
            'the JSON object has no "strategies" member (expected '
            '{"game": ..., "players": N, "strategies": [{"infosets": [...]}, ...]})'
        )
    return obj


def profile_from_json(tree: Tree, obj: Any, missing: str = "error", check_game: bool = True) -> Profile:
    """Read a profile in the JSON form of the module docstring (a parsed dict) for ``tree``.

    Returns a ``Profile`` whose strategies are lists of ``Fraction`` when every probability is a
    string or an integer (exact), else float64 arrays. ``missing``: "error" (default) raises
    ``StrategyError`` naming the information sets the file leaves out; "uniform" plays them
    uniformly. ``check_game``: compare ``"game"`` with ``tree.name`` as names of one game
    (``seqform.io.gamespec.same_game``: whitespace, an ``openspiel:`` prefix and empty parentheses
    aside).
    Every error is a ``StrategyError`` naming the player and information set concerned.
    """
    if missing not in ("error", "uniform"):
        raise ValueError(f"missing={missing!r}: expected 'error' or 'uniform'")
    strategies = _strategies(tree, _unwrap(obj), check_game)
    # per player: probabilities by sequence, Fraction or float
    read = [_player_probabilities(tree, p, st, missing) for p, st in enumerate(strategies)]
    raw = [probs for probs, _ in read]
    any_float = any(f for _, f in read)
    _check_sums(tree, raw, any_float)
    if any_float:
        return Profile([np.asarray([float(v) for v in probs], dtype=np.float64) for probs in raw])
    return Profile(raw)


def _strategies(tree: Tree, obj: dict, check_game: bool) -> list:
    """The file's ``"strategies"``, one entry per player, once its game and player count agree with
    ``tree``'s."""
    name = obj.get("game")
    if check_game and name is not None and not same_game(str(name), tree.name):
        raise StrategyError(
            f"the strategy file is for game {name!r}, not {tree.name!r}",
            remedy=Remedy("check_game", False, "to read it anyway"),
        )
    N = tree.num_players
    if "players" in obj and obj["players"] != N:
        raise StrategyError(f'the strategy file has "players": {obj["players"]!r}; {tree.name} has {N} players')
    strategies = obj["strategies"]
    if not isinstance(strategies, list) or len(strategies) != N:
        if isinstance(strategies, list):
            got = f"{len(strategies)} {'entry' if len(strategies) == 1 else 'entries'}"
        else:
            got = f"a {type(strategies).__name__}"
        raise StrategyError(f'"strategies" must be a list of {N} entries (one per player) for {tree.name}; got {got}')
    return strategies


def _player_probabilities(tree: Tree, p: int, st: Any, missing: str) -> tuple[list, bool]:
    """Player ``p``'s probabilities by sequence (num_sequences[p],) from its entry ``st`` of the
    file, and whether any was a float; information sets left out are an error or uniform
    (``missing``)."""
    entries = st.get("infosets") if isinstance(st, dict) else st if isinstance(st, list) else None
    if not isinstance(entries, list):
        raise StrategyError(f'player {p}\'s strategy must be an object {{"infosets": [...]}}')
    labels = infoset_labels(tree, p)
    ids = tree.player_infosets[p].tolist()
    # the old labels (str(key)) are read too: files written before the games had readable ones
    old = _key_labels(tree, ids)
    by_label = {lab: ids[j] for lab, j in _positions(labels, old).items()}
    probs: list = [None] * tree.num_sequences[p]
    probs[0] = Fraction(1)
    seen = set()
    any_float = False
    for e in entries:
        if not isinstance(e, dict) or "infoset" not in e or not isinstance(e.get("actions"), dict):
            raise StrategyError(
                f"player {p}: each information set entry must be "
                f'{{"infoset": label, "actions": {{action: probability}}}}, got '
                f"{json.dumps(e)[:200]}"
            )
        lab = e["infoset"] if isinstance(e["infoset"], str) else str(e["infoset"])
        i = by_label.get(lab)
        if i is None:
            close = difflib.get_close_matches(lab, labels, n=3) or difflib.get_close_matches(lab, old, n=3)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise StrategyError(f"player {p} of {tree.name} has no information set {lab!r}{hint}")
        if i in seen:
            raise StrategyError(f"{_where(tree, p, lab)} appears twice in the strategy file")
        seen.add(i)
        vals, floats = _action_probabilities(tree, p, lab, i, e["actions"])
        any_float |= floats
        f = int(tree.infoset_first_seq[i])
        probs[f : f + len(vals)] = vals
    if len(seen) < len(labels):
        left = [lab for lab, i in zip(labels, ids) if i not in seen]
        if missing == "error":
            shown = ", ".join(repr(x) for x in left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
            raise StrategyError(
                f"player {p}'s strategy leaves out {len(left)} information set(s) of {tree.name}: {shown}",
                remedy=Remedy("missing", "uniform", "to play them uniformly"),
            )
        for i in (i for i in ids if i not in seen):
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            probs[f : f + k] = [Fraction(1, k)] * k
    return probs, any_float


def _action_probabilities(tree: Tree, p: int, lab: str, i: int, actions: dict) -> tuple[list, bool]:
    """The probabilities of information set ``i``'s actions (its labelled ``lab``, of player ``p``)
    from the file's ``{action: probability}``, in the tree's order (actions not named: 0), and
    whether any was a float."""
    acts = _action_labels(tree, i)
    where = _positions(acts, tree.infoset_actions[i])
    vals: list[Fraction | float] = [Fraction(0)] * len(acts)
    named: dict = {}  # position -> the label the file gave it
    any_float = False
    for a, v in actions.items():
        j = where.get(a)
        if j is None:
            raise StrategyError(f"{_where(tree, p, lab)} has no action {a!r}; its actions are {list(acts)}")
        if j in named:
            raise StrategyError(f"{_where(tree, p, lab)} gives action {acts[j]!r} twice (as {named[j]!r} and {a!r})")
        named[j] = a
        x = _parse_probability(v, lambda: f"{_where(tree, p, lab)}, action {a!r}")
        if x < 0:
            raise StrategyError(f"{_where(tree, p, lab)}: action {a!r} has negative probability {v}")
        if x > 1 + (TOLERANCE if isinstance(x, float) else 0):  # (and a huge one is no float)
            shown = str(v) if len(str(v)) <= 40 else f"{str(v)[:20]}... ({len(str(v))} characters)"
            raise StrategyError(f"{_where(tree, p, lab)}: action {a!r} has probability {shown}, more than 1")
        any_float |= isinstance(x, float)
        vals[j] = x
    return vals, any_float


def _check_sums(tree: Tree, raw: list, any_float: bool) -> None:
    """Each information set's probabilities sum to exactly 1 (an exact profile) or within
    ``TOLERANCE`` (a float one), else ``StrategyError`` naming it."""
    for p, probs in enumerate(raw):
        for i, lab in zip(tree.player_infosets[p].tolist(), infoset_labels(tree, p)):
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            vals = probs[f : f + k]
            s: float | Fraction
            if any_float:
                s = math.fsum(float(v) for v in vals)
                bad = abs(s - 1.0) > TOLERANCE
            else:
                s = sum(vals, Fraction(0))
                bad = s != 1
            if bad:
                given = {a: (str(v) if isinstance(v, Fraction) else v) for a, v in zip(_action_labels(tree, i), vals)}
                how = "exactly" if not any_float else f"within {TOLERANCE:g}"
                raise StrategyError(f"{_where(tree, p, lab)}: probabilities {given} sum to {s}, not {how} 1")


def read_profile(
    tree: Tree, path_or_file: str | os.PathLike | IO[str], missing: str = "error", check_game: bool = True
) -> Profile:
    """``profile_from_json`` of a JSON file (a path or a text file); a file that is not JSON is a
    ``StrategyError`` giving the line and column."""
    name = str(path_or_file) if isinstance(path_or_file, (str, os.PathLike)) else getattr(path_or_file, "name", "input")
    try:
        if isinstance(path_or_file, (str, os.PathLike)):
            with open(path_or_file, encoding="utf-8") as f:
                obj = json.load(f)
        else:
            obj = json.load(path_or_file)
    except json.JSONDecodeError as e:
        # json's own messages can end in "at" ("Unterminated string starting at"): the place
        # goes in a form of its own, not after another "at"
        raise StrategyError(f"{name} is not valid JSON: {e.msg}: line {e.lineno}, column {e.colno}") from None
    except RecursionError:
        raise StrategyError(f"{name}: lists or objects nested too deeply to read (no profile nests so)") from None
    except UnicodeDecodeError as e:
        raise StrategyError(
            f"{name}: not UTF-8 text (byte {e.object[e.start : e.start + 1]!r} at offset {e.start})"
        ) from None
    except IsADirectoryError:
        raise StrategyError(f"{name}: is a directory, not a strategy file") from None
    except FileNotFoundError:
        raise StrategyError(f"{name}: no such file") from None
    except OSError as e:
        raise StrategyError(f"{name}: cannot read: {e.strerror or e}") from None
    return profile_from_json(tree, obj, missing=missing, check_game=check_game)


# ----------------------------------------------------------------------------------------------
# pygambit
# ----------------------------------------------------------------------------------------------


def _gambit_infosets(tree: Tree, gambit_game) -> list:
    """Per global information set, the pygambit ``Infoset`` the .efg writer made for it; checks
    players, numbers, labels and action counts, raising ``StrategyError`` on any mismatch."""
    from seqform.io.efgwrite import unique_labels

    players = list(gambit_game.players)
    if len(players) != tree.num_players:
        raise StrategyError(f"the pygambit game has {len(players)} players; {tree.name} has {tree.num_players}")
    out: list = [None] * len(tree.infoset_player)
    for p, gp in enumerate(players):
        ginf = {int(I.number): I for I in gp.infosets}
        ids = tree.player_infosets[p].tolist()
        if len(ginf) != len(ids):
            raise StrategyError(
                f"the pygambit game's player {p + 1} has {len(ginf)} information sets; "
                f"{tree.name}'s player {p} has {len(ids)} (was it written by seqform.io.efgwrite from "
                f"this game?)"
            )
        names = unique_labels([tree.infoset_key[i] for i in ids], "I")
        for i, lab in zip(ids, names):
            I = ginf.get(int(tree.infoset_index[i]))
            if I is None or I.label != lab:
                raise StrategyError(
                    f"the pygambit game's player {p + 1} information set number "
                    f"{int(tree.infoset_index[i]) + 1} is "
                    f"{'missing' if I is None else repr(I.label)}, not {lab!r} "
                    f"(was it written by seqform.io.efgwrite from {tree.name}?)"
                )
            if len(I.actions) != int(tree.infoset_num_actions[i]):
                raise StrategyError(
                    f"the pygambit game's information set {lab!r} of player {p + 1} has "
                    f"{len(I.actions)} actions; {tree.infoset_label(i)} has "
                    f"{int(tree.infoset_num_actions[i])}"
                )
            out[i] = I
    return out


def to_pygambit_behavior(tree: Tree, profile: Profile, gambit_game: Any, exact: bool | None = None) -> Any:
    """``profile`` as a pygambit behaviour profile of ``gambit_game`` (read from ``seqform.io.efgwrite``'s
    text of ``tree``): rational (``MixedBehaviorProfileRational``) when the profile is exact (or
    ``exact=True``), else floats. Raises ``StrategyError`` if the game does not match the tree."""
    beh = profile.behaviour if isinstance(profile, Profile) else list(profile)
    if len(beh) != tree.num_players:
        raise StrategyError(f"the profile has strategies for {len(beh)} players; {tree.name} has {tree.num_players}")
    if exact is None:
        exact = is_exact_profile(beh)
    ginf = _gambit_infosets(tree, gambit_game)
    out = gambit_game.mixed_behavior_profile(rational=bool(exact))
    for i, I in enumerate(ginf):
        p = int(tree.infoset_player[i])
        f = int(tree.infoset_first_seq[i])
        for j, a in enumerate(I.actions):
            v = beh[p][f + j]
            out[a] = to_fraction(v) if exact else float(v)
    return out


def from_pygambit_behavior(tree: Tree, gambit_profile: Any, undefined: str = "error") -> Profile:
    """A pygambit behaviour profile (of a game read from ``seqform.io.efgwrite``'s text of ``tree``) as a
    ``Profile``: lists of ``Fraction`` for a rational profile, float arrays otherwise.

    pygambit does not always give a distribution at every information set: ``lp_solve`` (16.7)
    returns all zeros, or an unnormalised vector such as (0, 1/2), at some information sets of
    games where they do not matter (seen where chance or the opponent never lead there, and at the
    root of an all-zero game). ``undefined`` says what to do at an information set whose
    probabilities are not a distribution (exactly for rational profiles, within 1e-9 for floats):
    ``"error"`` (default) raises ``StrategyError`` naming it, ``"uniform"`` plays it uniformly,
    ``"normalize"`` divides by the sum (uniform if the sum is 0). Negative probabilities and a
    game that does not match ``tree`` are always errors.
    """
    if undefined not in ("error", "uniform", "normalize"):
        raise ValueError(f"undefined={undefined!r}: expected 'error', 'uniform' or 'normalize'")
    ginf = _gambit_infosets(tree, gambit_profile.game)
    rational = type(gambit_profile).__name__.endswith("Rational")
    beh: list = []
    for p in range(tree.num_players):
        b: list = [Fraction(1) if rational else 1.0] * tree.num_sequences[p]
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            vals = [gambit_profile[a] for a in ginf[i].actions]
            vals = [Fraction(v.numerator, v.denominator) if rational else float(v) for v in vals]
            shown = {a: str(v) if rational else v for a, v in zip(tree.infoset_actions[i], vals)}
            if any(v < 0 for v in vals):
                raise StrategyError(
                    f"the pygambit profile at {tree.infoset_label(i)} (Gambit {ginf[i].label!r}) "
                    f"has a negative probability: {shown}"
                )
            s = sum(vals, Fraction(0)) if rational else math.fsum(vals)
            if (s != 1) if rational else (abs(s - 1.0) > TOLERANCE):
                if undefined == "error":
                    raise StrategyError(
                        f"the pygambit profile at {tree.infoset_label(i)} (Gambit {ginf[i].label!r}) is not a "
                        f'distribution: {shown} (sum {s}); pass undefined="uniform" or "normalize" to '
                        f"replace such information sets"
                    )
                if undefined == "uniform" or s == 0:
                    vals = [Fraction(1, k) if rational else 1.0 / k] * k
                else:
                    vals = [v / s for v in vals]
            b[f : f + k] = vals
        beh.append(b if rational else np.asarray(b, dtype=np.float64))
    return Profile(beh)

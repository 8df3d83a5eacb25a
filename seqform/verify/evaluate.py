"""Evaluate a strategy profile: values, best responses, NashConv, exploitability and the regret at
every information set, exactly in rational arithmetic or in floats, for any number of players
(general-sum too).

``evaluate(tree, profile)`` returns an ``Evaluation``. Which arithmetic is used:

* **exact** when every probability of the profile is an exact rational (``int``, ``Fraction``,
  ``flint.fmpq``; e.g. what ``seqform.io.strategyjson.profile_from_json`` returns for a file of rationals), or
  when ``exact=True`` is passed: floats are then taken at their binary value (``Fraction(0.1)``
  is 3602879701896397/36028797018963968), and an information set whose binary values do not sum
  to exactly 1 (e.g. ``[1/3, 2/3]`` as floats) is renormalised exactly (divided by its sum;
  ``Evaluation.renormalised`` lists them). The computation runs on python-flint ``fmpq``;
  every number in the result is a ``fractions.Fraction``.
* **floats** otherwise (or with ``exact=False``): the vectorised code of
  ``seqform.verify.exploitability.exploitability`` and ``seqform.verify.infosetregret.infoset_regret``, not a
  copy of it.

The exact computation. Player p's realization plan is ``x_p[s] = x_p[parent(s)] * b_p[s]``. Every
leaf z gives p's *sequence payoff*

    g_p[s] = sum over leaves z with seq_p(z) = s of chance(z) * prod_{q != p} x_q[seq_q(z)] * u_p(z),

and one backward pass over p's information sets, deepest first (reverse global-id order is
bottom-up: an information set is discovered after the one above it), gives for each information
set I the unnormalised best value ``V_best(I) = max_a (g_p[(I,a)] + sum of V_best below (I,a))``
and current value ``V_cur(I) = sum_a b_p[(I,a)] (g_p[(I,a)] + sum of V_cur below (I,a))``. At the
root, ``g_p[empty] + sum over p's first information sets`` is p's best-response value and p's
value under the profile.

Regret at an information set (Kroer, Farina & Sandholm 2017, section 4, the measure of its Figure 3; the same
definition as ``seqform.verify.infosetregret``): I is taken as reached with probability one, its nodes weighted
by Bayes' rule (chance times the other players' reach; under perfect recall p's own reach is the
same at all of them), and the regret is what p gains in expectation by best-responding at I and
at every one of p's information sets below it, the others fixed:

    regret(I) = (V_best(I) - V_cur(I)) / W(I),
    W(I) = sum over the nodes h of I of chance(h) * prod_{q != p} x_q[seq_q(h)].

Where ``W(I) = 0`` (chance or the others never reach I) Bayes' rule is undefined and the regret is
``None`` (exact) or NaN (floats), and ``reached[I]`` is False.

NashConv is ``sum_p (best-response value_p - value_p)``; exploitability is NashConv / N
(OpenSpiel's convention; for two-player zero-sum games, the mean gain of deviating).

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np

from seqform.errors import StrategyError
from seqform.exact.exactbestresponse import ExactPass, exact_backward_pass
from seqform.exact.rationals import fmpq_of, fraction_of, to_fraction
from seqform.model.game import CHANCE, Game
from seqform.model.strategy import Profile, check_shape, realization_plan_exact, validate_behaviour, validate_profile
from seqform.model.tree import Tree, compile_tree

__all__ = [
    "Evaluation",
    "evaluate",
    "is_exact_profile",
    "exact_profile",
    "float_profile",
    "exact_backward_pass",
    "exact_sequence_payoffs",
    "ExactPass",
]

_EXACT_TYPES = (int, Fraction, flint.fmpq, np.integer)


@dataclass
class Evaluation:
    """What ``evaluate`` measured. Numbers are ``Fraction`` when ``exact`` else ``float``.

    Per player (lists of length N): ``values`` (expected payoff under the profile),
    ``best_response_values`` (expected payoff of a best response to the others).
    ``nash_conv`` = sum of (best response - value); ``exploitability`` = nash_conv / N.

    Per information set (lists indexed by global information-set id, ``Tree`` order):
    ``infoset_regret`` (Kroer, Farina & Sandholm 2017 section 4; ``None`` when exact, NaN in floats, where chance and
    the others never reach it) and ``reached`` (bool). ``max_regret`` is the largest regret over
    reached information sets (0 if none) and ``max_regret_infoset`` the global id of the first
    one attaining it (-1 if none is reached). ``renormalised``: information sets whose float
    probabilities were renormalised exactly under ``exact=True`` (empty otherwise).
    """

    exact: bool
    values: list
    best_response_values: list
    nash_conv: Fraction | float
    exploitability: Fraction | float
    infoset_regret: list
    reached: list
    max_regret: Fraction | float
    max_regret_infoset: int
    renormalised: list = field(default_factory=list)
    tree: Tree | None = field(default=None, repr=False)

    @property
    def num_players(self) -> int:
        return len(self.values)

    @property
    def gains(self) -> list:
        """Per player, what a best response gains over the profile (NashConv's terms)."""
        return [b - v for b, v in zip(self.best_response_values, self.values)]

    def regret_at(self, player: int, key) -> Fraction | float | None:
        """The regret at player ``player``'s information set with key ``key`` (None/NaN if unreached)."""
        if self.tree is None:
            raise ValueError("this Evaluation has no tree")
        for i in self.tree.player_infosets[player].tolist():
            if self.tree.infoset_key[i] == key:
                return self.infoset_regret[i]
        raise KeyError(f"player {player} has no information set {key!r}")

    def describe_max_regret(self) -> str:
        """The information set of the largest regret, readably (or "none reached")."""
        i = self.max_regret_infoset
        if i < 0:
            return "none reached"
        return self.tree.infoset_label(i) if self.tree is not None else f"information set {i}"

    def to_json(self, per_infoset: bool = True) -> dict:
        """A JSON-ready dict: exact numbers as strings such as "-1/18", floats as numbers, unreached
        regrets as null. With ``per_infoset`` (and a tree), ``"infoset_regret"`` lists every
        information set's regret per player, labelled as in ``seqform.io.strategyjson``
        (``str(infoset_key)``)."""
        num = (
            (lambda v: None if v is None else str(v))
            if self.exact
            else (lambda v: None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v))
        )
        out = {
            "exact": self.exact,
            "values": [num(v) for v in self.values],
            "best_response_values": [num(v) for v in self.best_response_values],
            "nash_conv": num(self.nash_conv),
            "exploitability": num(self.exploitability),
            "max_regret": num(self.max_regret),
            "max_regret_infoset": None,
        }
        t = self.tree
        if t is not None:
            out = {"game": t.name, "players": t.num_players, **out}
            i = self.max_regret_infoset
            if i >= 0:
                out["max_regret_infoset"] = {"player": int(t.infoset_player[i]), "infoset": t.infoset_name(i)}
            if per_infoset:
                out["infoset_regret"] = [
                    [
                        {
                            "infoset": t.infoset_name(i),
                            "reached": bool(self.reached[i]),
                            "regret": num(self.infoset_regret[i]),
                        }
                        for i in t.player_infosets[p].tolist()
                    ]
                    for p in range(t.num_players)
                ]
        elif self.max_regret_infoset >= 0:
            out["max_regret_infoset"] = {"id": self.max_regret_infoset}
        if self.renormalised:
            out["renormalised"] = len(self.renormalised)
        return out


# ----------------------------------------------------------------------------------------------
# exact profiles
# ----------------------------------------------------------------------------------------------


def _is_exact_value(v) -> bool:
    return isinstance(v, _EXACT_TYPES) and not isinstance(v, (bool, np.bool_))


def is_exact_profile(profile: Profile | Sequence) -> bool:
    """True if every probability of the profile is an exact rational (int, Fraction, fmpq)."""
    beh = profile.behaviour if isinstance(profile, Profile) else profile
    for b in beh:
        if isinstance(b, np.ndarray) and b.dtype != object:
            if not np.issubdtype(b.dtype, np.integer):
                return False
            continue
        if not all(_is_exact_value(v) for v in b):
            return False
    return True


def exact_profile(tree: Tree, profile: Profile | Sequence) -> Profile:
    """The profile with every probability a ``Fraction``: exact entries kept, floats taken at their
    binary value; information sets whose values then do not sum to exactly 1 are renormalised
    exactly. Raises ``StrategyError`` (naming the information set) if the profile is not a
    distribution everywhere (exact entries: exactly; floats: within 1e-9)."""
    return _exact_profile(tree, profile)[0]


def _exact_profile(tree: Tree, profile) -> tuple[Profile, list]:
    beh = list(profile.behaviour if isinstance(profile, Profile) else profile)
    check_shape(tree, beh)
    out, renorm = [], []
    for p, b in enumerate(beh):
        has_float = not all(_is_exact_value(v) for v in (b.tolist() if isinstance(b, np.ndarray) else b))
        if has_float:
            # check as floats (tolerance 1e-9), then take every entry at its binary value
            validate_behaviour(tree, p, np.asarray([float(v) for v in b], dtype=np.float64))
        q = [to_fraction(v) for v in (b.tolist() if isinstance(b, np.ndarray) else b)]
        q[0] = Fraction(1)
        for i in tree.player_infosets[p].tolist():
            f, k = int(tree.infoset_first_seq[i]), int(tree.infoset_num_actions[i])
            probs = q[f : f + k]
            if any(v < 0 for v in probs):
                if has_float:  # tiny negative noise the float check let through
                    probs = [max(v, Fraction(0)) for v in probs]
                else:
                    raise StrategyError(
                        f"player {p}'s strategy at {tree.infoset_label(i)} is not a "
                        f"distribution: {dict(zip(tree.infoset_actions[i], map(str, probs)))}"
                    )
            s = sum(probs, Fraction(0))
            if s != 1:
                if not has_float or s == 0:
                    raise StrategyError(
                        f"player {p}'s strategy at {tree.infoset_label(i)} is not a distribution: "
                        f"{dict(zip(tree.infoset_actions[i], map(str, probs)))} (sum {s}, not exactly 1)"
                    )
                probs = [v / s for v in probs]
                renorm.append(i)
            q[f : f + k] = probs
        out.append(q)
    return Profile(out), sorted(renorm)


def float_profile(profile: Profile | Sequence) -> Profile:
    """The profile with every player's strategy a float64 array."""
    beh = profile.behaviour if isinstance(profile, Profile) else profile
    return Profile(
        [
            np.asarray([float(v) for v in b], dtype=np.float64)
            if not (isinstance(b, np.ndarray) and b.dtype == np.float64)
            else b
            for b in beh
        ]
    )


# ----------------------------------------------------------------------------------------------
# exact machinery
# ----------------------------------------------------------------------------------------------


def exact_sequence_payoffs(tree: Tree, plans: list) -> list:
    """Every player's exact sequence payoffs ``g_p`` (lists of fmpq) given exact realization
    plans ``plans`` (one list per player): see the module docstring."""
    N = tree.num_players
    g = [[flint.fmpq(0)] * tree.num_sequences[p] for p in range(N)]
    ns = [tree.node_seq[q, tree.terminals].tolist() for q in range(N)]
    zero = flint.fmpq(0)
    for k in range(tree.num_terminals):
        c = tree.terminal_chance_exact[k]
        if not c:
            continue
        c = fmpq_of(c)
        f = [plans[q][ns[q][k]] for q in range(N)]
        nz = [q for q in range(N) if f[q] == zero]
        if len(nz) > 1:  # every player's others' reach is zero
            continue
        u = tree.payoff_exact[k]
        for p in range(N):
            if nz and nz[0] != p:
                continue
            up = u[p]
            if not up:
                continue
            w = c
            for q in range(N):
                if q != p:
                    w = w * f[q]
            g[p][ns[p][k]] += w * fmpq_of(up)
    return g


def exact_reach_weights(tree: Tree, plans: list) -> list:
    """Per information set, ``W(I)`` = sum over its nodes of chance reach times the others' reach (fmpq)."""
    n = tree.num_nodes
    M = len(tree.infoset_player)
    N = tree.num_players
    player = tree.player.tolist()
    parent = tree.parent.tolist()
    action = tree.action.tolist()
    cidx = tree.chance_index
    probs = [[fmpq_of(x) for x in pr] for pr in tree.chance_probs]
    reach = [flint.fmpq(0)] * n  # every entry is set below, parents before children
    reach[0] = flint.fmpq(1)
    for v in range(1, n):
        par = parent[v]
        r = reach[par]
        if player[par] == CHANCE:
            r = r * probs[cidx[par]][action[v]]
        reach[v] = r
    W = [flint.fmpq(0)] * M
    infoset = tree.infoset.tolist()
    seqs = [tree.node_seq[q].tolist() for q in range(N)]
    for v in range(n):
        p = player[v]
        if p < 0:
            continue
        w = reach[v]
        if not w:
            continue
        for q in range(N):
            if q != p:
                w = w * plans[q][seqs[q][v]]
        if w:
            W[infoset[v]] += w
    return W


def _evaluate_exact(tree: Tree, profile: Profile, renormalised: list) -> Evaluation:
    N = tree.num_players
    beh = [[fmpq_of(v) for v in b] for b in profile.behaviour]
    plans = [realization_plan_exact(tree, p, b) for p, b in enumerate(beh)]
    g = exact_sequence_payoffs(tree, plans)
    M = len(tree.infoset_player)
    num = [None] * M
    brv, own = [], []
    for p in range(N):
        bp = exact_backward_pass(tree, p, g[p], beh[p])
        brv.append(bp.value_best)
        own.append(bp.value_current)
        for i, vb in bp.best.items():
            num[i] = vb - bp.current[i]
    W = exact_reach_weights(tree, plans)
    regret: list = [None] * M
    reached = [False] * M
    best_i, best_r = -1, flint.fmpq(0)
    for i in range(M):
        if W[i]:
            r = num[i] / W[i]
            regret[i] = fraction_of(r)
            reached[i] = True
            if best_i < 0 or r > best_r:
                best_i, best_r = i, r
    nc = sum((b - v for b, v in zip(brv, own)), flint.fmpq(0))
    return Evaluation(
        True,
        [fraction_of(v) for v in own],
        [fraction_of(v) for v in brv],
        fraction_of(nc),
        fraction_of(nc / N),
        regret,
        reached,
        fraction_of(best_r),
        best_i,
        renormalised,
        tree,
    )


def _evaluate_float(tree: Tree, profile: Profile) -> Evaluation:
    from seqform.verify.exploitability import exploitability
    from seqform.verify.infosetregret import infoset_regret

    validate_profile(tree, profile)
    ex = exploitability(tree, profile, validate=False)
    ir = infoset_regret(tree, profile, validate=False)
    return Evaluation(
        False,
        ex.values.tolist(),
        ex.best_response_values.tolist(),
        float(ex.nash_conv),
        float(ex.exploitability),
        ir.regret.tolist(),
        ir.reached.tolist(),
        float(ir.max_regret),
        int(ir.argmax),
        [],
        tree,
    )


def evaluate(tree: Tree | Game, profile: Profile | Sequence, exact: bool | None = None) -> Evaluation:
    """Values, best-response values, NashConv, exploitability and per-information-set regret
    of a strategy profile, for any number of players, exactly or in floats.

    The regret at an information set is Kroer, Farina & Sandholm's (2017, "Smoothing Method for
    Approximate Extensive-Form Perfect Equilibrium", section 4) refinement measure; see the
    module docstring.

    Parameters
    ----------
    tree : Tree or Game
        The game (a ``Game`` is compiled first).
    profile : Profile or list
        Behavioural strategies: per player, an array or list indexed by sequence.
    exact : bool, optional
        None decides by the profile (exact iff every probability is an exact rational); True
        forces exact arithmetic (floats at their binary value); False forces floats.

    Returns
    -------
    Evaluation
        ``values``, ``best_response_values``, ``nash_conv``, ``exploitability``,
        ``infoset_regret``, ``max_regret``; ``to_json()``.

    Raises
    ------
    StrategyError
        The profile is not a distribution at some information set (named): exactly for exact
        probabilities, within 1e-9 for floats.

    Examples
    --------
    >>> import seqform
    >>> tree = seqform.compile_tree(seqform.games.load("kuhn"))
    >>> ev = seqform.evaluate(tree, seqform.solve(tree).exact_profile)
    >>> ev.exploitability, ev.values[0]
    (Fraction(0, 1), Fraction(-1, 18))
    """
    if isinstance(tree, Game):
        tree = compile_tree(tree)
    if not isinstance(profile, Profile):
        profile = Profile(list(profile))
    if exact is None:
        exact = is_exact_profile(profile)
    if exact:
        prof, renorm = _exact_profile(tree, profile)
        return _evaluate_exact(tree, prof, renorm)
    return _evaluate_float(tree, float_profile(profile))  # validates the profile

"""The double-oracle loop for extensive-form games (Bosansky et al. 2014; Bosansky 2019, "double oracle").

Start from the restricted game of both players' default pure strategies (the first action
everywhere). Repeat: solve the restricted game's sequence-form LP (``seqform.solve``, certified
exactly); extend each player's restricted strategy by its default strategy outside the restricted
game; compute both best responses in the full game (``doracle.oracle``); the best-response values
bound the game value (player 0's best response from above, player 1's from below); add the
best responses' sequences. Stop when the bounds meet (gap <= ``tolerance``; 0 means exactly).
Exact throughout: the LP solutions are certified rationals, and the best responses are exact.

References:

- Bosansky (2019), "Solving Extensive-Form Games", lecture, Multiagent Systems, Czech Technical University in Prague.
- Bosansky, Kiekintveld, Lisy & Pechoucek (2014), "An Exact Double-Oracle Algorithm for Zero-Sum Extensive-Form Games
  with Imperfect Information", JAIR.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from seqform.errors import SolverError, UnsupportedGameError
from seqform.exact.certificate import DEFAULT_EXACT_LIMIT
from seqform.model.game import Game
from seqform.model.tree import compile_tree
from seqform.result import Result, number, table
from seqform.solve import solve as seqform_solve

from .oracle import best_response
from .restricted import RestrictedGame


@dataclass(kw_only=True)
class DoubleOracleResult(Result):
    """``value`` (exact when ``converged`` with the bounds equal), ``lower`` / ``upper`` bounds
    (None until that player's best response has been computed),
    ``iterations``, ``history`` (per iteration: restricted-game size, value, bounds, temporary
    leaves, seconds), ``profile`` (per player, the restricted-game strategy with the best
    guarantee found: the one whose opponent best response gave that player's bound, as {key:
    probabilities over the original actions}; with the first action at every other information
    set (``doracle.extend.extended_profile``) it is an equilibrium of the full game when the bounds meet),
    ``action_labels`` (per player, {key: the labels of the original actions}), ``converged``,
    ``seconds`` ({"total": ...}); ``source``: the game solved (to build the full strategy on
    its tree, ``strategy_profile``)."""

    iterations: int
    converged: bool
    history: list = field(default_factory=list)
    profile: list = field(default_factory=list)  # type: ignore[assignment]  # restricted strategies, not a Profile
    action_labels: list = field(default_factory=list)
    interrupted: bool = False  # stopped by Ctrl-C: the bounds so far
    source: Game | None = field(default=None, repr=False)
    method: str = "doracle"

    def __post_init__(self) -> None:
        # the common fields this result derives: the value's float, and ``certified``: the bounds
        # met (both exact best responses in the full game agree with the value)
        self.value_float = float(self.value) if self.value is not None else None
        self.certified = self.value is not None

    def strategy_on_tree(self):
        """The restricted strategies completed by the first action elsewhere (``doracle.extend``), and the
        full game's compiled tree they are on (built here: only for games small enough to
        compile); ``(None, None)`` without the game."""
        if self.source is None:
            return None, None
        from seqform.model.tree import compile_tree

        from .extend import extended_profile

        tree = compile_tree(self.source)
        return tree, extended_profile(tree, self.profile)

    def strategy_profile(self):
        """The full game's profile of ``strategy_on_tree`` (None without the game)."""
        return self.strategy_on_tree()[1]

    def restricted_strategies(self) -> list:
        """Per player, {repr(key): {action label: probability as a string}}: the restricted
        strategies as the command line prints them (the first action at every other information
        set)."""
        return [
            {repr(k): dict(zip(self.action_labels[p][k], map(str, probs))) for k, probs in self.profile[p].items()}
            for p in (0, 1)
        ]

    def json_fields(self) -> dict:
        last = self.history[-1] if self.history else {}
        return {
            "iterations": self.iterations,
            "restricted_nodes": last.get("restricted_nodes"),
            "interrupted": self.interrupted,
        }

    def summary(self, rationals: bool = False) -> str:
        last = self.history[-1] if self.history else {}
        rows = [
            ("game", self.game),
            (
                "method",
                f"double oracle, {self.iterations} iterations; last restricted game "
                f"{last.get('restricted_nodes', 0):,} nodes",
            ),
        ]
        if self.value is not None:
            rows.append(("value", number(self.value, rationals, "player 0")))
            rows.append(("certificate", "exact: both players' exact best responses in the full game meet at the value"))
        else:
            lo = "?" if self.lower is None else f"{float(self.lower):.12g}"
            hi = "?" if self.upper is None else f"{float(self.upper):.12g}"
            rows.append(("value", f"not converged: {lo} <= value <= {hi}"))
        rows.append(("seconds", f"total {self.seconds['total']:.3f}"))
        if self.interrupted:
            rows.append(("interrupted", "(the bounds found before Ctrl-C)"))
        return table(rows)


MODES = ("both", "alternating")


def double_oracle(
    game: Game,
    tolerance: Fraction | float = 0,
    mode: str = "both",
    max_iterations: int = 10_000,
    time_limit: float | None = None,
    progress=None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
) -> DoubleOracleResult:
    """Solve a two-player zero-sum game by double oracle, with exact bounds on its value.

    The double-oracle algorithm (Bosansky, Kiekintveld, Lisy & Pechoucek 2014, "An Exact
    Double-Oracle Algorithm for Zero-Sum Extensive-Form Games with Imperfect Information"; the loop
    is described in the ``doracle.loop`` module docstring) grows restricted games by exact best
    responses until the players' exact bounds meet. Each iteration solves the restricted game's
    sequence-form LP (``seqform.solve``, certified exactly), computes both best responses in the
    full game (player 0's bounds the value from above, player 1's from below) and adds their
    sequences.

    Parameters
    ----------
    game : Game
        A two-player zero-sum game; its tree is never built whole.
    tolerance : Fraction or float, default 0
        Stop when upper - lower <= tolerance (0: exactly).
    mode : str, default "both"
        "both" (both players' best responses join the restricted game each iteration) or
        "alternating" (one player's per iteration, in turn).
    max_iterations : int, default 10000
        Most iterations.
    time_limit : float, optional
        Seconds; this and Ctrl-C stop the loop early, and the result then has ``converged=False``
        and the best bounds found.
    progress : callable, optional
        ``progress(message)`` is told each iteration (restricted-game size, value, bounds, gap).
    exact_limit : int, default ``seqform.exact.certificate.DEFAULT_EXACT_LIMIT``
        The core's bound on the exact certificate of each restricted LP (nonzeros); past it, or when
        a certificate fails, the loop goes on with the floating-point restricted strategies made
        exact (the bounds stay exact, but may then meet only within a positive ``tolerance``).

    Returns
    -------
    DoubleOracleResult
        A ``seqform.Result``: ``value`` (exact when converged), ``lower``, ``upper``,
        ``iterations``, ``converged``, ``history``, ``profile`` (restricted strategies),
        ``seconds``.

    Raises
    ------
    SolverError
        An unknown ``mode``.
    UnsupportedGameError
        The game is not two-player zero-sum.

    Examples
    --------
    >>> import seqform, doracle
    >>> res = doracle.double_oracle(seqform.games.load("kuhn"))
    >>> res.converged, res.value, res.lower == res.upper
    (True, Fraction(-1, 18), True)
    """
    if mode not in MODES:
        raise SolverError(f"unknown double-oracle mode {mode!r}; choose one of {', '.join(MODES)}")
    if game.num_players != 2:
        raise UnsupportedGameError(
            f"{game.name!r} has {game.num_players} players; double oracle solves two-player zero-sum games"
        )
    say = progress or (lambda msg: None)
    t0 = time.perf_counter()
    tol = Fraction(tolerance)
    choice: list = [{}, {}]  # each player's latest best response: tried first by the next one
    leaf_values: dict = {}  # temporary leaves' values, by path (restricted.py)
    sequences = _default_sequences(game)
    bound: list = [None, None]  # [upper (player 0's best response), lower (minus player 1's)]
    history: list = []
    profile: list = [{}, {}]  # player p's strategy that guarantees p's bound
    action_labels: list = [{}, {}]
    converged = False
    stalled = 0
    it = 0
    interrupted = False
    try:
        for it in range(1, max_iterations + 1):
            rg = RestrictedGame(game, sequences, leaf_values)
            tree = compile_tree(rg)
            sol = seqform_solve(tree, exact_limit=exact_limit)
            if sol.certified and sol.exact_profile is not None:
                behaviour = sol.exact_profile.behaviour
            else:
                # the bounds stay exact (exact best responses to the strategies actually played),
                # but an uncertified restricted solution may never close the gap to exactly 0
                say(
                    f"iteration {it}: the restricted game's certificate failed; going on with its floating-point "
                    f"strategies, made exact and normalised"
                )
                behaviour = [_exact_behaviour(tree, p, sol.profile.behaviour[p]) for p in (0, 1)]
            strat = [_to_original(rg, tree, behaviour[p], p) for p in (0, 1)]
            for (p, key), (labels, _) in rg.kept_actions.items():
                action_labels[p][key] = labels
            players = (0, 1) if mode == "both" else ((it - 1) % 2,)
            added = False
            br_nodes = 0
            for p in players:
                br = best_response(game, p, strat[1 - p], hint=choice[p])
                v = Fraction(br.value) if p == 0 else -Fraction(br.value)
                if bound[p] is None or (v < bound[0] if p == 0 else v > bound[1]):
                    # p's best response tested the opponent's strategy: it guarantees this bound
                    bound[p], profile[1 - p] = v, strat[1 - p]
                if br.sequences - sequences[p]:
                    added = True
                sequences[p] |= br.sequences
                choice[p].update(br.choice)
                br_nodes += br.nodes
            upper, lower = bound
            gap = None if upper is None or lower is None else upper - lower
            history.append(
                {
                    "iteration": it,
                    "restricted_nodes": tree.num_nodes,
                    "restricted_sequences": list(tree.num_sequences),
                    "value": sol.value if sol.value is not None else sol.value_float,
                    "lower": lower,
                    "upper": upper,
                    "temporary_leaves": rg.temporary_leaves,
                    "leaf_searches": rg.leaf_searches,
                    "best_response_nodes": br_nodes,
                    "seconds": time.perf_counter() - t0,
                }
            )
            say(
                f"iteration {it}: restricted game {tree.num_nodes:,} nodes, value {sol.value_float:.9g}, "
                f"bounds [{_f(lower)}, {_f(upper)}], gap {_f(gap)}"
            )
            if gap is not None and gap <= tol:
                converged = True
                break
            stalled = 0 if added else stalled + 1
            if stalled >= 2 or (mode == "both" and stalled):
                say("no best response adds a sequence, yet the bounds differ; stopping")
                break
            if time_limit is not None and time.perf_counter() - t0 > time_limit:
                say(f"time limit of {time_limit:g} s reached")
                break
    except KeyboardInterrupt:
        say("interrupted: returning the best bounds so far")
        interrupted = True
    upper, lower = bound
    value = lower if converged and upper == lower else None
    return DoubleOracleResult(
        game=game.name,
        value=value,
        lower=lower,
        upper=upper,
        iterations=it,
        converged=converged,
        history=history,
        profile=profile,
        action_labels=action_labels,
        seconds={"total": time.perf_counter() - t0},
        interrupted=interrupted,
        source=game,
    )


def _f(x) -> str:
    return "?" if x is None else f"{float(x):.9g}"


def _exact_behaviour(tree, player: int, floats) -> list:
    """A floating-point behavioural strategy as Fractions, clipped at 0 and normalised exactly at
    each information set (uniform where it sums to 0)."""
    b = [Fraction(1)] + [Fraction(0)] * (len(floats) - 1)
    for m in tree.player_infosets[player].tolist():
        f, n = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
        raw = [Fraction(max(float(x), 0.0)) for x in floats[f : f + n]]
        total = sum(raw)
        b[f : f + n] = [x / total for x in raw] if total else [Fraction(1, n)] * n
    return b


def _to_original(rg: RestrictedGame, tree, behaviour, player: int) -> dict:
    """The restricted game's behaviour of ``player`` as {key: probabilities over the original
    game's actions there} (0 for the actions the restricted game leaves out)."""
    out = {}
    for m in tree.player_infosets[player].tolist():
        key = tree.infoset_key[m]
        f = int(tree.infoset_first_seq[m])
        labels, kept = rg.kept_actions[player, key]
        probs = [Fraction(0)] * len(labels)
        for j, a in enumerate(kept):
            probs[a] = behaviour[f + j]
        out[key] = probs
    return out


def _default_sequences(game: Game) -> list:
    """Both players' sequences under the default profile (first action everywhere), chance expanded."""
    seqs = [{()}, {()}]
    stack: list[tuple[Any, tuple[tuple, ...]]] = [(game.root(), ((), ()))]
    while stack:
        h, s = stack.pop()
        p = game.player(h)
        if p < -1:
            continue
        if p == -1:
            for a, pr in enumerate(game.chance(h)):
                if pr:
                    stack.append((game.next(h, a), s))
            continue
        key = game.infoset(h)
        new = list(s)
        new[p] = s[p] + ((key, 0),)
        seqs[p].add(new[p])
        stack.append((game.next(h, 0), tuple(new)))
    return seqs

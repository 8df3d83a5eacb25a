"""The double-oracle loop for extensive-form games (Bosansky et al. 2014; seed 003, "double oracle").

Start from the restricted game of both players' default pure strategies (the first action
everywhere). Repeat: solve the restricted game's sequence-form LP (``seqform.solve``, certified
exactly); extend each player's restricted strategy by its default strategy outside the restricted
game; compute both best responses in the full game (``bestresponse``); the best-response values
bound the game value (player 0's best response from above, player 1's from below); add the
best responses' sequences. Stop when the bounds meet (gap <= ``tolerance``; 0 means exactly).
Exact throughout: the LP solutions are certified rationals, and the best responses are exact.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from seqform.game import Game
from seqform.solve import solve as seqform_solve
from seqform.tree import compile_tree

from .bestresponse import best_response
from .restricted import RestrictedGame


@dataclass
class DoubleOracleResult:
    """``value`` (exact when ``converged`` with tolerance 0), ``lower`` / ``upper`` bounds,
    ``iterations``, restricted-game ``sizes`` per iteration, ``profile`` (the last restricted
    game's exact behaviour as {key: probabilities} per player), ``converged``, ``seconds``."""

    game: str
    value: Fraction | None
    lower: Fraction
    upper: Fraction
    iterations: int
    converged: bool
    history: list = field(default_factory=list)
    profile: list = field(default_factory=list)
    seconds: float = 0.0


def double_oracle(game: Game, tolerance: Fraction | float = 0, max_iterations: int = 1000, progress=None
                  ) -> DoubleOracleResult:
    """Solve the two-player zero-sum ``game`` by double oracle (module docstring)."""
    say = progress or (lambda msg: None)
    t0 = time.perf_counter()
    choice: list = [{}, {}]
    sequences = _default_sequences(game)
    lower, upper = Fraction(-10 ** 18), Fraction(10 ** 18)
    history = []
    profile: list = []
    converged = False
    it = 0
    for it in range(1, max_iterations + 1):
        rg = RestrictedGame(game, sequences, choice)
        tree = compile_tree(rg)
        sol = seqform_solve(tree)
        if not sol.certified:
            say(f"iteration {it}: the restricted game's certificate failed; stopping")
            break
        prof = sol.exact_profile
        strat = [_to_original(rg, tree, prof.behaviour[p], p) for p in (0, 1)]
        br0 = best_response(game, 0, strat[1])
        br1 = best_response(game, 1, strat[0])
        upper = min(upper, Fraction(br0.value))
        lower = max(lower, -Fraction(br1.value))
        history.append({"iteration": it, "restricted_nodes": tree.num_nodes, "value": sol.value,
                        "lower": lower, "upper": upper, "temporary_leaves": rg.temporary_leaves})
        say(f"iteration {it}: restricted game {tree.num_nodes:,} nodes, value {float(sol.value):.9g}, "
            f"bounds [{float(lower):.9g}, {float(upper):.9g}], gap {float(upper - lower):.3g}")
        profile = strat
        new0, new1 = br0.sequences - sequences[0], br1.sequences - sequences[1]
        if upper - lower <= tolerance:
            converged = True
            break
        if not new0 and not new1:
            break
        sequences[0] |= br0.sequences
        sequences[1] |= br1.sequences
        choice = [br0.choice, br1.choice]
    value = lower if converged and upper == lower else None
    return DoubleOracleResult(game.name, value, lower, upper, it, converged, history, profile,
                              time.perf_counter() - t0)


def _to_original(rg: RestrictedGame, tree, behaviour, player: int) -> dict:
    """The restricted game's behaviour of ``player`` as {key: probabilities over the original
    game's actions there} (0 for the actions the restricted game leaves out)."""
    out = {}
    for m in tree.player_infosets[player].tolist():
        key = tree.infoset_key[m]
        f = int(tree.infoset_first_seq[m])
        n, kept = rg.kept_actions[player, key]
        probs = [Fraction(0)] * n
        for j, a in enumerate(kept):
            probs[a] = behaviour[f + j]
        out[key] = probs
    return out


def _default_sequences(game: Game) -> list:
    """Both players' sequences under the default profile (first action everywhere), chance expanded."""
    seqs = [{()}, {()}]
    stack = [(game.root(), ((), ()))]
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

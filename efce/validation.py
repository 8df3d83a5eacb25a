"""Checks of a finished run of Dudik & Gordon (2009)'s sampling algorithm (``efce.sample_efce``)
from outside its own sample.

The regret a run reports is estimated on the sample its lambda was fitted to (section 3.4 reuses
each sample over several rounds), so it is biased down. ``validated_regret`` measures it again on
two fresh samples of the final q_lambda: the best deviation found on the first (section 3.2's
dynamic program, biased up as a maximum of noisy estimates), and that one deviation's regret on
the second (unbiased), with a check that the fresh chains had mixed. For small games,
``exact_distribution`` computes the final q_lambda exactly over reduced profiles, for the exact
checks of ``efce.causalregret`` and ``efce.exact``.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seqform.errors import SeqformError
from seqform.model.game import Game
from seqform.result import Result

from .family import Deviation
from .models import full_profiles, loaded_model, make_model

__all__ = ["ValidatedRegret", "validated_regret", "exact_distribution", "reduced_indices"]


def exact_distribution(game: Game, result: Result, tree=None) -> tuple:
    """For small games: the distribution q_lambda (Dudik & Gordon 2009, section 3) of ``result``
    (an ``efce.SamplingResult``) over *reduced* profiles, computed exactly by enumerating every
    full pure strategy profile (``efce.strategies``): (q as floats in ``Profiles`` order, the
    ``Profiles``). Chance is enumerated."""
    from seqform.model.tree import compile_tree

    from .strategies import profiles

    tree = compile_tree(game) if tree is None else tree
    prof = profiles(tree)
    model = loaded_model(game, result, engine="tree")
    try:
        S = full_profiles(model, 200_000)
    except SeqformError as exc:
        raise SeqformError(f"{game.name!r}: {exc}") from None
    e = model.energy(S)
    pr = np.exp(e - e.max())
    pr /= pr.sum()
    reduced = reduced_indices(prof, S)
    q = np.zeros(prof.count)
    np.add.at(q, reduced, pr)
    return q, prof


def reduced_indices(prof, S: np.ndarray) -> list:
    """For each full profile (row of S, one action per information set of ``prof.tree``), the
    index of its reduced profile in ``prof`` (``efce.strategies.Profiles``)."""
    tree = prof.tree
    out = []
    for row in S.tolist():
        idx = []
        for n in range(tree.num_players):
            plan = {0} | {int(tree.infoset_first_seq[m]) + row[m] for m in tree.player_infosets[n].tolist()}
            # the reduced strategy: the sequences this full strategy's own play can reach
            idx.append(next(i for i, pl in enumerate(prof.plans[n]) if pl <= plan and _complete(tree, n, pl, plan)))
        out.append(int(np.ravel_multi_index(idx, prof.shape)))
    return out


def _complete(tree, n: int, plan: frozenset, full: set) -> bool:
    """True when the reduced ``plan`` is the part of the full strategy ``full`` its play reaches."""
    for m in tree.player_infosets[n].tolist():
        if int(tree.infoset_parent_seq[m]) in plan:
            f, k = int(tree.infoset_first_seq[m]), int(tree.infoset_num_actions[m])
            if not any(f + a in plan and f + a in full for a in range(k)):
                return False
    return True


@dataclass
class ValidatedRegret:
    """``found``: the largest regret on a fresh sample A (biased up: a maximum over many noisy
    estimates). ``validated``: the regret of A's best deviation re-estimated on a second,
    independent sample B (unbiased for that deviation, so a noisy lower bound on the largest
    regret), with its standard error ``stderr``. ``samples`` profiles in each. ``payoffs``: each
    player's expected payoff estimated on B, with standard errors ``payoffs_stderr`` (fresh
    draws, unlike the run's own ``payoffs``, which come from the reweighted sample it fitted).

    ``energy_drift``: a mixing check on the ``burn_in`` Gibbs sweeps from uniform profiles. The
    chains' mean energy (w . u - lambda . r) after all of them minus after half of them, in
    standard errors of such a difference between two independent samples of q_lambda. Above 3 in
    size, the chains were still moving when they were read, and so may the regrets have been.
    Near 0 does not prove mixing: chains stuck in one mode do not drift either."""

    found: float
    validated: float
    stderr: float
    samples: int
    deviation: Deviation | None
    energy_drift: float = 0.0
    burn_in: int = 0
    payoffs: list = field(default_factory=list)
    payoffs_stderr: list = field(default_factory=list)

    @property
    def settled(self) -> bool:
        """False when the chains were still moving: |energy_drift| above 3."""
        return abs(self.energy_drift) <= 3


def validated_regret(
    game: Game,
    result: Any,
    samples: int = 1000,
    seed: int = 12345,
    burn_in: int = 30,
    engine: str | None = None,
    workers: int = 1,
) -> ValidatedRegret:
    """Two fresh samples of ``result``'s q_lambda (``samples`` chains each, ``burn_in`` Gibbs
    sweeps from uniform profiles, Dudik & Gordon 2009, section 3.3): the best deviation found on
    the first (section 3.2's dynamic program), and its regret measured on the second
    (``ValidatedRegret``); ``result`` is an ``efce.SamplingResult``. On 8-card Indian poker the chains need 100 to 300
    sweeps from uniform profiles; check ``energy_drift``.

    ``workers`` > 1 splits the chains' sweeps, nearly all of the work, over that many processes
    (``efce.drawpool``, with this process's lambda; their random streams differ from one
    process's, so the figures differ by sampling noise only)."""
    rng = np.random.default_rng(seed)
    model = loaded_model(game, result, rng, engine)
    S = model.new_profiles(2 * samples, rng)
    pool = None
    if workers > 1:
        from .drawpool import DrawPool

        pool = DrawPool(
            make_model, game, np.asarray(result.weights or np.zeros(game.num_players), dtype=float), engine, workers
        )
    try:
        half = None
        for sweeps in (burn_in // 2, burn_in - burn_in // 2):
            if pool is not None and sweeps:
                S = pool.draw(model, S, sweeps, rng, stats=False)[0]
            else:
                for _ in range(sweeps):
                    model.sweep(S, rng)
            half = model.energy(S) if half is None and burn_in else half
    finally:
        if pool is not None:
            pool.close()
    drift = _drift(half, model.energy(S)) if half is not None else 0.0
    found, dev, _ = model.best_deviation(model.statistics(S[:samples]), np.ones(samples))
    second = model.statistics(S[samples:])
    U = np.asarray(second.U, dtype=float)
    pay = (U.mean(axis=0).tolist(), (U.std(axis=0, ddof=1) / math.sqrt(samples)).tolist())
    if dev is None:
        return ValidatedRegret(float(found), 0.0, 0.0, samples, None, drift, burn_in, *pay)
    rs = model.deviation_regrets(second, dev)
    return ValidatedRegret(
        float(found), float(rs.mean()), float(rs.std(ddof=1) / math.sqrt(samples)), samples, dev, drift, burn_in, *pay
    )


def _drift(before: np.ndarray, after: np.ndarray) -> float:
    """(mean(after) - mean(before)) over the standard error of a difference of two independent
    samples' means; 0 when the energies do not vary (every chain at one profile)."""
    se = math.sqrt((before.var(ddof=1) + after.var(ddof=1)) / len(after))
    return float((after.mean() - before.mean()) / se) if se > 0 else 0.0

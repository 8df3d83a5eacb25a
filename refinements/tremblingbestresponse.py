"""Best responses inside perturbed polytopes, by dynamic programming: the ground truth for solvers
of an eps-perturbed game.

In the eps-perturbed game (``refinements.perturbation``) player p may only play realization
plans ``x`` with ``x[s] >= beta_s x[parent(s)]`` (behavioural bounds: EFPE) and
``x[s] >= lambda_s`` (realization bounds: QPE). Its best response to fixed opponents is then
``max g.x`` over that polytope, ``g`` its sequence payoffs. The polytope is a treeplex with
lower bounds, and the maximum has a closed form, bottom-up (the perturbed analogue of the
backward pass of ``seqform.verify.exploitability``; Farina, Kroer & Sandholm 2017, "Regret
Minimization in Behaviorally-Constrained Zero-Sum Games", section 3, treat the behavioural case):

* Let ``V_s(m)`` be the best value of the subtree of sequence ``s`` when ``x[s] = m``. It is
  affine, ``V_s(m) = A_s + C_s m``, for every feasible ``m`` (``m >= R_s``, the least mass the
  bounds below ``s`` need: ``R_s = max(lambda_s, max over information sets J after s of
  sum_a R_(J,a))``).
* At information set J with incoming mass ``m``, each action gets its lower bound ``l_a(m)``
  (``beta_a m`` or ``R_(J,a)``) and the rest, ``m - sum_a l_a(m)``, goes to an action of largest
  slope ``C* = max_a C_(J,a)``. So ``V_J(m) = sum_a (A_a + C_a l_a(m)) + C* (m - sum_a l_a(m))``,
  affine again, and ``V_s = g_s m + sum_J V_J(m)``.

An information set whose actions carry both kinds of bound (possible only with a custom
perturbation) makes ``l_a(m) = max(beta_a m, R_a)`` and ``V`` only piecewise affine; this module
refuses it (``PerturbationError``). The arithmetic is generic: Fractions in, Fractions out
(exact), floats in, floats out.

From it, ``PerturbedMeasures`` of any profile: both trembling best responses, the perturbed
exploitability ``(br_0 + br_1 - u_0 - u_1) / 2`` (OpenSpiel's NashConv / 2, inside the
polytopes), the gap to the perturbed game's exact value, and the largest information-set regret
in the perturbed game (Kroer, Farina & Sandholm 2017's measure, with deviations restricted to
the perturbed polytope). All are zero, exactly, at an exact equilibrium of the perturbed game.

References:

- Farina, Kroer & Sandholm (2017), "Regret Minimization in Behaviorally-Constrained Zero-Sum Games", ICML.
- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from seqform.exact.exactbestresponse import exact_backward_pass
from seqform.exact.rationals import fmpq_of, fraction_of
from seqform.model.strategy import Profile, realization_plan, realization_plan_exact
from seqform.model.tree import Tree
from seqform.verify.evaluate import exact_reach_weights, exact_sequence_payoffs
from seqform.verify.exploitability import backward_pass, sequence_payoffs
from seqform.verify.infosetregret import reach_weights

from .errors import PerturbationError
from .perturbation import Perturbation


@dataclass
class TremblingBestResponse:
    """``value``: ``max g.x`` over player p's perturbed polytope; ``plan``: a maximising
    realization plan (list); ``intercept``, ``slope``: per information set (dict global id ->
    number), ``V_J(m) = intercept + slope m`` (module docstring)."""

    value: Fraction | float
    plan: list
    intercept: dict
    slope: dict


def trembling_best_response(tree: Tree, p: int, g: list, beta: list, lam: list) -> TremblingBestResponse:
    """Player ``p``'s best response inside its perturbed polytope (module docstring).

    ``g``: its sequence payoffs (to maximise), ``beta`` and ``lam``: its behavioural and
    realization lower bounds at one eps; lists of length ``num_sequences[p]``, all Fractions (exact)
    or all floats. Raises ``PerturbationError`` when the bounds leave no plan, or mix both kinds
    at one information set."""
    n = tree.num_sequences[p]
    zero = g[0] * 0
    A = [zero] * n
    C = list(g)
    R = [lam[s] if s else zero for s in range(n)]
    first, nact, pseq = tree.infoset_first_seq, tree.infoset_num_actions, tree.infoset_parent_seq
    ids = tree.player_infosets[p].tolist()
    intercept, slope, best = {}, {}, {}
    # discovery order numbers an information set after the one above it: reverse is bottom-up
    for i in reversed(ids):
        f, k = int(first[i]), int(nact[i])
        acts = range(f, f + k)
        b_sum = sum((beta[s] for s in acts), zero)
        r_sum = sum((R[s] for s in acts), zero)
        if b_sum and r_sum:
            raise PerturbationError(
                f"{tree.infoset_label(i)} has both behavioural and realization lower bounds; "
                "the trembling best response handles one kind per information set"
            )
        if b_sum > 1:
            raise PerturbationError(f"the behavioural lower bounds at {tree.infoset_label(i)} sum to {b_sum} > 1")
        j = max(acts, key=lambda s: C[s])
        cstar = C[j]
        a_sum = sum((A[s] for s in acts), zero)
        if b_sum:
            a_i = a_sum
            c_i = sum((beta[s] * C[s] for s in acts), zero) + (1 - b_sum) * cstar
        else:
            a_i = a_sum + sum((C[s] * R[s] for s in acts), zero) - cstar * r_sum
            c_i = cstar
        intercept[i], slope[i], best[i] = a_i, c_i, j
        ps = int(pseq[i])
        A[ps] += a_i
        C[ps] += c_i
        if r_sum > R[ps]:
            R[ps] = r_sum
    if R[0] > 1:
        raise PerturbationError(f"player {p}'s realization lower bounds need mass {R[0]} > 1 at the root")
    x = [zero] * n
    x[0] = zero + 1
    for i in ids:  # top-down: parents first
        f, k = int(first[i]), int(nact[i])
        m = x[int(pseq[i])]
        acts = range(f, f + k)
        low = [beta[s] * m if beta[s] else R[s] for s in acts]
        for s, lo in zip(acts, low):
            x[s] = lo
        x[best[i]] += m - sum(low, zero)
    return TremblingBestResponse(A[0] + C[0], x, intercept, slope)


@dataclass
class PerturbedMeasures:
    """A profile measured in the eps-perturbed game (module docstring); player 0's values.

    ``values``: the profile's expected payoffs ``[u_0, u_1]``; ``best_response_values``: each
    player's trembling best response to the other; ``exploitability``: NashConv / 2 inside the
    polytopes; ``value_gap``: ``u_0`` minus the perturbed game's exact value (None when not
    given); ``max_infoset_regret`` over the information sets the profile reaches, and
    ``infoset_regret`` per global id (NaN where unreached); ``tremble_violation``: the largest
    amount by which the profile misses a lower bound (0 inside the polytopes, where the other
    measures are at least 0). Fractions for an exact profile at a rational eps, else floats."""

    values: list
    best_response_values: list
    exploitability: Fraction | float
    value_gap: Fraction | float | None
    max_infoset_regret: Fraction | float
    infoset_regret: list
    tremble_violation: Fraction | float

    def to_json(self) -> dict:
        f = lambda v: None if v is None else float(v)
        return {
            "perturbed_exploitability": f(self.exploitability),
            "perturbed_value_gap": f(self.value_gap),
            "perturbed_max_infoset_regret": f(self.max_infoset_regret),
            "tremble_violation": f(self.tremble_violation),
        }


def perturbed_measures(tree: Tree, pert: Perturbation, eps, profile: Profile, value=None) -> PerturbedMeasures:
    """Measure ``profile`` (behavioural, per player) in the game perturbed by ``pert`` at ``eps``.

    Exact (Fractions) when ``eps`` is a Fraction and every probability of ``profile`` is an int
    or Fraction; floats otherwise. ``value``: the perturbed game's exact value, for
    ``value_gap``."""
    exact = isinstance(eps, Fraction) and all(isinstance(v, (int, Fraction)) for b in profile.behaviour for v in b)
    if exact:
        beh = [[fmpq_of(v) for v in b] for b in profile.behaviour]
        plans_q = [realization_plan_exact(tree, p, beh[p]) for p in range(2)]
        g_q = exact_sequence_payoffs(tree, plans_q)
        # the others' reach of each information set, and each set's value under the profile
        W = [fraction_of(w) for w in exact_reach_weights(tree, plans_q)]
        current = [
            {i: fraction_of(v) for i, v in exact_backward_pass(tree, p, g_q[p], beh[p]).current.items()}
            for p in range(2)
        ]
        plans = [[fraction_of(v) for v in x] for x in plans_q]
        g = [[fraction_of(v) for v in gp] for gp in g_q]
        bounds = [pert.bounds(tree, p, eps) for p in range(2)]
    else:
        real = [realization_plan(tree, p, np.asarray(profile.behaviour[p], dtype=float)) for p in range(2)]
        g_f = [sequence_payoffs(tree, p, real) for p in range(2)]
        W = reach_weights(tree, real).tolist()
        current = [
            backward_pass(tree, p, g_f[p], np.asarray(profile.behaviour[p], dtype=float)).current.tolist()
            for p in range(2)
        ]
        plans = [x.tolist() for x in real]
        g = [x.tolist() for x in g_f]
        bounds = [tuple(a.tolist() for a in pert.bounds(tree, p, float(eps))) for p in range(2)]
    zero = g[0][0] * 0
    values = [sum((a * b for a, b in zip(g[p], plans[p])), zero) for p in range(2)]
    brs = [trembling_best_response(tree, p, g[p], *bounds[p]) for p in range(2)]
    br_values = [br.value for br in brs]
    expl = (br_values[0] - values[0] + br_values[1] - values[1]) / 2
    viol = zero
    for p in range(2):
        beta, lam = bounds[p]
        par = tree.seq_parent[p].tolist()
        x = plans[p]
        for s in range(1, tree.num_sequences[p]):
            viol = max(viol, beta[s] * x[par[s]] - x[s], lam[s] - x[s])
    regret = _infoset_regrets(tree, plans, W, current, brs)
    finite = [r for r in regret if not (isinstance(r, float) and math.isnan(r))]
    gap = None if value is None else (values[0] - (value if exact else float(value)))
    return PerturbedMeasures(values, br_values, expl, gap, max(finite, default=zero), regret, viol)


def _infoset_regrets(tree: Tree, plans: list, W: list, current: list, brs: list) -> list:
    """Per global information set J of player p: ``(V_J(m) / m - cur_J) / W(J)``, with ``m`` the
    profile's own reach of J, ``V_J`` the trembling best value there, ``cur_J`` the profile's
    value per unit own reach (``current[p][J]``), ``W(J)`` the others' and chance's reach of J's
    nodes (Bayes' rule; NaN where ``m`` or ``W(J)`` is 0)."""
    out: list = [math.nan] * len(tree.infoset_player)
    pseq = tree.infoset_parent_seq
    for p in range(2):
        x = plans[p]
        for i in tree.player_infosets[p].tolist():
            m = x[int(pseq[i])]
            if m > 0 and W[i] > 0:
                out[i] = ((brs[p].intercept[i] / m + brs[p].slope[i]) - current[p][i]) / W[i]
    return out

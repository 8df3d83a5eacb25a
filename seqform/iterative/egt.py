"""The excessive gap technique (Nesterov 2005) on the sequence form, with the dilated entropy
distance on each player's treeplex (Hoda et al. 2010), as in Sandholm 2010 (Algorithms 2-4) and, with
behavioural perturbations, Kroer, Farina & Sandholm 2017 (EGT on the eps-perturbed treeplex: an approximate EFPE).

Saddle point. Player 0 maximises x^T A y and player 1 minimises it (``A``: n_0 x n_1, a leaf z adds
chance(z) u_0(z) at (seq_0(z), seq_1(z))). In Sandholm (2010)'s notation (min_u max_v v^T A u), u is
player 1's realization plan y and v is player 0's x. ``f(y) = max_x x^T A y`` and
``phi(x) = min_y x^T A y``; ``f(y) - phi(x)`` is the NashConv of the profile (twice OpenSpiel's
exploitability).

Distance (``distance``). "entropy": the dilated entropy, at information set I with parent
sequence p(I) and behaviour b_I = x_I / x_p(I):
d(x) = sum_I beta_I x_p(I) h(q_I), q_I = (b_I - eps_I) / (1 - n_I eps_I), h(q) = sum q log q + log n_I
(Kroer, Farina & Sandholm 2017, section 3: the perturbed simplex mapped affinely onto the simplex; eps = 0 is Hoda et
al.'s dilated entropy; ``seqform.iterative.dilatedentropy``). "euclidean": the dilated Euclidean
distance (``seqform.iterative.dilatedeuclidean``; unperturbed games only). Both operations EGT
needs are one bottom-up pass over the information sets (``prox``):

* smoothed best response: argmax_x <g, x> - d(x), and its value;
* Bregman step: argmin_x <s, x> + D(x, x'), where for the entropy D(x, x') = sum_I beta_I x_p(I) KL(q_I || q'_I).

Weights ``beta``, per information set:

* "kroer17": the recursive weights of Kroer, Waugh, Kilinc-Karzan & Sandholm (2017/2020,
  "Theoretical and Practical Advances on Smoothing for Extensive-Form Games"),
  ``beta_I = 2 + 2 max_a sum_{J right below (I, a)} beta_J``. The paper's text was not available
  here; the formula is the one the authors' public research code computes for these weights
  (its option "kroer17"). Their scale factor ``max ||x||_1`` is left out: EGT's smoothing
  parameters absorb any constant factor (see ``scale``).
* "farina21": ``beta_I = 1 + max_a sum_{J right below (I, a)} beta_J``, the same code's weights for
  Farina, Kroer & Sandholm (2021, "Better Regularization for Sequential Decision Spaces").
* "kroer": our first reading of Kroer, Farina & Sandholm 2017's Theorem 3, ``beta_I = 2 + sum over
  depths k >= 1 below I of 2^k M_{I,k}`` (``M_{I,k}``: the most information sets at depth k below
  I that one pure strategy reaches). It adds 2^k per set where the recursion doubles each set's
  whole weight: "kroer17" <= 2 "kroer" - 2, with equality where one action attains every
  depth's maximum (everywhere on Leduc, Liar's Dice and Goofspiel: a test). So the two differ by a
  factor EGT absorbs, up to the constant. Kept as the default for reproducibility of earlier
  results.
* "one": ``beta_I = 1``.

The loop (Sandholm 2010, Algorithm 4): an initial step then shrink steps, each keeping the excessive
gap condition f_mu_v(y) <= phi_mu_u(x) (smoothed values), which gives the certified bound
``f(y) - phi(x) <= mu_u D_u + mu_v D_v`` (``gap_bound``). Rather than trusting a strong-convexity
constant, every step is checked: a step that breaks the condition is retried with half the tau
(this is Sandholm (2010)'s first heuristic, adaptive tau, started at tau = 1/2; off, tau = 2/(k+3)
with the same check). Sandholm (2010)'s second heuristic, balancing, shrinks the larger of mu_u D_u and
mu_v D_v instead of alternating. ``traversals`` counts products with A or A^T (one pass over the
leaves each): 3 per shrink step and 2 per check, less the one a step reuses from the check that
accepted the step before it (4 per iteration without retries).

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
- Sandholm (2010), "The State of Solving Large Incomplete-Information Games, and Application to Poker", AI Magazine.
- Hoda, Gilpin, Pena & Sandholm (2010), "Smoothing Techniques for Computing Nash Equilibria of Sequential Games",
  Mathematics of Operations Research.
- Kroer, Waugh, Kilinc-Karzan & Sandholm (2017), "Theoretical and Practical Advances on Smoothing for Extensive-Form
  Games", EC (Mathematical Programming 2020).
- Farina, Kroer & Sandholm (2021), "Better Regularization for Sequential Decision Spaces: Fast Convergence Rates for
  Nash, Correlated, and Team Equilibria", EC.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

import seqform.iterative.checkpoint as checkpoint
from seqform.errors import SeqformError, UnsupportedGameError
from seqform.iterative.dilatedentropy import TABLE_BYTES, WEIGHTS, DilatedEntropy, weights_bytes
from seqform.iterative.dilatedeuclidean import DilatedEuclidean
from seqform.model.game import Game
from seqform.model.limits import check_solver_tables
from seqform.model.strategy import Profile, behaviour_from_realization
from seqform.model.tree import Tree, compile_tree


class ExcessiveGap:
    """EGT on a two-player zero-sum game (module docstring).

    ``game``: a ``Game`` or ``Tree``. ``perturbation``: None (Nash equilibrium) or "efpe" (every
    action's behavioural probability at least ``eps``: Kroer, Farina & Sandholm (2017)'s perturbed treeplex, an
    approximate EFPE). ``weights``: "kroer" or "one"; ``scale`` multiplies them all (the overall
    weight Kroer, Farina & Sandholm 2017 tunes; ``tune_scale`` picks one). ``adaptive_tau``, ``balance``: Sandholm
    (2010)'s heuristics. ``step(n)``, ``iteration``, ``traversals``, ``average_profile()`` (the EGT iterate,
    which is already an average; ``current_profile`` is the same), ``gap_bound``, ``mu``."""

    def __init__(
        self,
        game: Game | Tree,
        *,
        perturbation: str | None = None,
        eps: float = 1e-3,
        weights: str = "kroer",
        adaptive_tau: bool = True,
        balance: bool = True,
        scale: float = 1.0,
        distance: str = "entropy",
        memory_limit_bytes: int | None = None,
    ):
        tree = game if isinstance(game, Tree) else compile_tree(game, memory_limit_bytes=memory_limit_bytes)
        if tree.num_players != 2 or not tree.is_zero_sum:
            raise UnsupportedGameError(f"{tree.name!r}: EGT solves two-player zero-sum games")
        check_solver_tables(tree, "EGT", **TABLE_BYTES, extra=weights_bytes(tree), limit_bytes=memory_limit_bytes)
        if perturbation not in (None, "efpe"):
            raise SeqformError(f"unknown perturbation {perturbation!r}; EGT supports None or 'efpe'")
        e = eps if perturbation == "efpe" else 0.0
        if perturbation == "efpe" and not eps > 0:
            raise SeqformError(f"the efpe perturbation needs eps > 0, got {eps}")
        self.tree, self.perturbation, self.eps = tree, perturbation, e
        self.algorithm = "egt-perturbed" if perturbation else "egt"
        self.weights, self.adaptive_tau, self.balance = weights, adaptive_tau, balance
        t = tree.terminals
        n = tree.num_sequences
        u0 = tree.payoff[:, 0]  # constant-sum: player 1 minimising u_0 is the same game
        self.A = sp.csr_matrix(
            (tree.terminal_chance * u0, (tree.node_seq[0, t], tree.node_seq[1, t])), shape=(n[0], n[1])
        )
        self.A.sum_duplicates()
        self.AT = self.A.T.tocsr()
        if not scale > 0:
            raise SeqformError(f"the distance's scale must be positive, got {scale}")
        self.scale = float(scale)
        if distance == "entropy":
            self.X = [DilatedEntropy(tree, p, weights, e, scale) for p in (0, 1)]
        elif distance == "euclidean":
            if perturbation:
                raise SeqformError("the perturbed treeplex is supported with the dilated entropy only")
            self.X = [DilatedEuclidean(tree, p, weights, scale) for p in (0, 1)]
        else:
            raise SeqformError(f"unknown distance {distance!r}; choose entropy or euclidean")
        self.distance = distance
        self.iteration = 0
        self.traversals = 0
        self.retries = 0
        #: True once a step found no tau keeping the excessive gap condition (floating-point precision reached)
        self.stalled = False
        self._tau = 0.5
        # ((x, mu_u, u), (y, mu_v, v)): the smoothed best responses of the last successful check
        self._checked: tuple[tuple[np.ndarray, float, tuple], tuple[np.ndarray, float, tuple]] | None = None
        self._initial()

    # smoothed best responses (value and point) ----------------------------------------------
    def _v_of(self, y: np.ndarray, mu_v: float) -> tuple:
        """Player 0's smoothed best response to y: (x, its behaviour, log q, f_mu_v(y))."""
        g = self.A @ y
        self.traversals += 1
        b, logq, W = self.X[0].prox(-g / mu_v)
        return self.X[0].realization(b), b, logq, mu_v * W

    def _u_of(self, x: np.ndarray, mu_u: float) -> tuple:
        """Player 1's smoothed best response to x: (y, behaviour, log q, phi_mu_u(x))."""
        g = self.AT @ x
        self.traversals += 1
        b, logq, W = self.X[1].prox(g / mu_u)
        return self.X[1].realization(b), b, logq, -mu_u * W

    def _gap_condition(self, x, y, mu_u, mu_v) -> bool:
        v = self._v_of(y, mu_v)
        u = self._u_of(x, mu_u)
        # the next shrink step starts from one of these two smoothed best responses at the new
        # iterate: kept, it costs no second product with A (one traversal an iteration saved)
        self._checked = ((x, mu_u, u), (y, mu_v, v))
        f, phi = v[3], u[3]
        return f <= phi + 1e-12 * max(1.0, abs(f), abs(phi))

    def _u_of_current(self) -> tuple:
        """``_u_of(self.x, self.mu_u)``, from the last successful check when it computed it."""
        if self._checked:
            x, mu, u = self._checked[0]
            if x is self.x and mu == self.mu_u:
                return u
        return self._u_of(self.x, self.mu_u)

    def _v_of_current(self) -> tuple:
        if self._checked:
            y, mu, v = self._checked[1]
            if y is self.y and mu == self.mu_v:
                return v
        return self._v_of(self.y, self.mu_v)

    def _initial(self) -> None:
        """Sandholm 2010, Algorithm 2; mu starts at max |A_ij| and doubles until the excessive gap
        condition holds (no strong-convexity constant is trusted)."""
        norm = float(np.abs(self.A.data).max()) if self.A.nnz else 0.0
        mu = norm if norm > 0 else 1.0  # an all-zero game: any mu > 0 will do
        for _ in range(200):
            b_c, logq_c, _ = self.X[1].prox(np.zeros(self.X[1].n))  # the centre of player 1
            y_hat = self.X[1].realization(b_c)
            x0, _, _, _ = self._v_of(y_hat, mu)
            b1, logq1, _ = self.X[1].prox((self.AT @ x0) / mu, logq_c)
            self.traversals += 1
            y0 = self.X[1].realization(b1)
            if self._gap_condition(x0, y0, mu, mu):
                self.x, self.y, self.mu_u, self.mu_v = x0, y0, mu, mu
                return
            mu *= 2.0
        raise SeqformError("EGT: no starting point satisfies the excessive gap condition")

    # one shrink step (Sandholm 2010, Algorithm 3) ----------------------------------------------------
    def _shrink_u(self, tau: float) -> tuple:
        x, y, mu_u, mu_v = self.x, self.y, self.mu_u, self.mu_v
        y_check, _, logq_check, _ = self._u_of_current()
        y_hat = (1 - tau) * y + tau * y_check
        x_hat, _, _, _ = self._v_of(y_hat, mu_v)
        b, _, _ = self.X[1].prox((tau / ((1 - tau) * mu_u)) * (self.AT @ x_hat), logq_check)
        self.traversals += 1
        y_tilde = self.X[1].realization(b)
        return (1 - tau) * x + tau * x_hat, (1 - tau) * y + tau * y_tilde, (1 - tau) * mu_u, mu_v

    def _shrink_v(self, tau: float) -> tuple:
        x, y, mu_u, mu_v = self.x, self.y, self.mu_u, self.mu_v
        x_check, _, logq_check, _ = self._v_of_current()
        x_hat = (1 - tau) * x + tau * x_check
        y_hat, _, _, _ = self._u_of(x_hat, mu_u)
        b, _, _ = self.X[0].prox(-(tau / ((1 - tau) * mu_v)) * (self.A @ y_hat), logq_check)
        self.traversals += 1
        x_tilde = self.X[0].realization(b)
        return (1 - tau) * x + tau * x_tilde, (1 - tau) * y + tau * y_hat, mu_u, (1 - tau) * mu_v

    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` EGT iterations (module docstring)."""
        for _ in range(int(iterations)):
            shrink_u = self._shrinks_u()
            tau = self._tau if self.adaptive_tau else 2.0 / (self.iteration + 3)
            new = None
            while tau >= 1e-12:
                cand = self._shrink_u(tau) if shrink_u else self._shrink_v(tau)
                if self._gap_condition(cand[0], cand[1], cand[2], cand[3]):
                    new = cand
                    break
                self.retries += 1
                tau /= 2
            if new is None:
                # only at floating-point precision (mu tiny next to the payoffs, the condition
                # decided by rounding): keep the iterate, whose bound still holds
                self.stalled = True
            else:
                self.x, self.y, self.mu_u, self.mu_v = new
                self._tau = self._next_tau(tau)
            self.iteration += 1

    def _shrinks_u(self) -> bool:
        """Whether this iteration shrinks mu_u (player 1's smoothing): balancing (Sandholm 2010)
        shrinks the larger of mu_u D_u and mu_v D_v, else the players alternate."""
        if self.balance:
            return self.mu_u * self.X[1].D >= self.mu_v * self.X[0].D
        return self.iteration % 2 == 0

    def _next_tau(self, tau: float) -> float:
        """The step size the next iteration tries first, after one accepted at ``tau``."""
        return tau

    # results -------------------------------------------------------------------------------
    @property
    def gap_bound(self) -> float:
        """mu_u D_u + mu_v D_v: a certified bound on f(y) - phi(x) (NashConv; in the perturbed
        game when perturbed)."""
        return self.mu_u * self.X[1].D + self.mu_v * self.X[0].D

    @property
    def mu(self) -> tuple:
        return (self.mu_v, self.mu_u)

    def gap(self) -> float:
        """f(y) - phi(x): best responses over the (perturbed) treeplexes, in floats."""
        f = self.X[0].best_value(self.A @ self.y)
        phi = -self.X[1].best_value(-(self.AT @ self.x))
        return f - phi

    # checkpoints ---------------------------------------------------------------------------
    _FORMAT = "seqform-egt-checkpoint-1"

    def save(self, path) -> None:
        """Write the iterates, smoothing parameters, tau and counters with the configuration
        (``.npz``); ``ExcessiveGap.load`` resumes the same algorithm bit for bit."""
        meta = {
            "format": self._FORMAT,
            "algorithm": self.algorithm,
            "perturbation": self.perturbation,
            "eps": self.eps,
            "weights": self.weights,
            "scale": self.scale,
            "adaptive_tau": self.adaptive_tau,
            "distance": self.distance,
            "balance": self.balance,
            "mu_u": self.mu_u,
            "mu_v": self.mu_v,
            "tau": self._tau,
            "iteration": self.iteration,
            "traversals": self.traversals,
            "retries": self.retries,
            "game": self.tree.name,
            "num_sequences": [int(n) for n in self.tree.num_sequences],
        }
        extra: dict[str, Any] = {}
        if self._checked is not None:  # the smoothed best responses the next step reuses
            for key, (_, mu, (plan, b, logq, val)) in zip("uv", self._checked):
                extra.update(
                    {f"{key}_plan": plan, f"{key}_b": b, f"{key}_logq": logq, f"{key}_mu_val": np.array([mu, val])}
                )
        checkpoint.write(path, meta, {"x": self.x, "y": self.y, **extra})

    @classmethod
    def load(cls, path, game: Game | Tree, algorithm: str | None = None) -> ExcessiveGap:
        """Resume the run saved at ``path`` on ``game`` (``algorithm``, when given, must be the
        file's: "egt" or "egt-perturbed")."""
        from seqform.errors import CheckpointError

        meta, arrays = checkpoint.read(path, cls._FORMAT, "EGT")
        try:
            x, y = arrays["x"], arrays["y"]
        except KeyError as e:
            raise CheckpointError(f"{path}: not a seqform EGT checkpoint (no {e})") from None
        extra = {k: v for k, v in arrays.items() if k[:2] in ("u_", "v_")}
        if algorithm is not None and algorithm != meta["algorithm"]:
            raise CheckpointError(f"{path} holds a {meta['algorithm']!r} run; it cannot resume as {algorithm!r}")
        solver = cls(
            game,
            perturbation=meta["perturbation"],
            eps=meta["eps"] or 1e-3,
            weights=meta["weights"],
            adaptive_tau=meta["adaptive_tau"],
            balance=meta["balance"],
            scale=meta.get("scale", 1.0),
            distance=meta.get("distance", "entropy"),
        )
        if [int(n) for n in solver.tree.num_sequences] != meta["num_sequences"]:
            raise CheckpointError(
                f"{path} was saved on {meta['game']!r} with {meta['num_sequences']} sequences; "
                f"{solver.tree.name!r} has {list(solver.tree.num_sequences)}"
            )
        solver.x, solver.y = x, y
        solver._checked = None
        if extra:
            u, v = (
                (extra[f"{k}_plan"], extra[f"{k}_b"], extra[f"{k}_logq"], float(extra[f"{k}_mu_val"][1])) for k in "uv"
            )
            solver._checked = ((x, float(extra["u_mu_val"][0]), u), (y, float(extra["v_mu_val"][0]), v))
        solver.mu_u, solver.mu_v, solver._tau = meta["mu_u"], meta["mu_v"], meta["tau"]
        solver.iteration, solver.traversals, solver.retries = meta["iteration"], meta["traversals"], meta["retries"]
        return solver

    def average_profile(self) -> Profile:
        return Profile(
            [behaviour_from_realization(self.tree, 0, self.x), behaviour_from_realization(self.tree, 1, self.y)]
        )

    current_profile = average_profile


def tune_scale(game: Game | Tree, candidates=(0.001, 0.01, 0.1, 1.0), iterations: int = 20, **kwargs) -> float:
    """Kroer, Farina & Sandholm (2017)'s tuning (section 4): the overall weight of the distance, among ``candidates``,
    whose EGT run has the smallest NashConv after ``iterations`` iterations (measured with
    best responses; other keyword arguments go to ``ExcessiveGap``)."""
    tree = game if isinstance(game, Tree) else compile_tree(game)
    best, best_gap = None, None
    for c in candidates:
        e = ExcessiveGap(tree, scale=c, **kwargs)
        e.step(iterations)
        g = e.gap()
        if best_gap is None or g < best_gap:
            best, best_gap = c, g
    if best is None:
        raise ValueError("tune_scale needs at least one candidate scale")
    return best


__all__ = ["ExcessiveGap", "WEIGHTS", "tune_scale"]

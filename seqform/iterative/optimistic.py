"""Optimistic mirror descent with the dilated entropy on the sequence form: optimistic
multiplicative weights for extensive-form games (Farina, Kroer & Sandholm 2019, "Optimistic
Regret Minimization for Extensive-Form Games via Dilated Distance-Generating Functions").

Player 0 maximises ``x^T A y``, player 1 minimises it; each sees the loss ``l_0 = -A y`` or
``l_1 = A^T x`` of its realization plan. With ``D`` the dilated entropy's Bregman divergence on a
player's treeplex (``seqform.iterative.egt``'s distance, weights "one" by default) and step size
``eta``, both players update simultaneously at iteration t (optimistic online mirror descent,
the prediction of the next loss being the last one):

    x_t      = argmin_x  eta <l_(t-1), x> + D(x, xhat_(t-1))
    xhat_t   = argmin_x  eta <l_t, x>     + D(x, xhat_(t-1))

where ``l_t`` is the loss at ``(x_t, y_t)``. Each prox step is one bottom-up pass over the
information sets (``DilatedEntropy.prox``). An iteration costs one gradient per player
(``traversals`` += 2, CFR's unit). ``current_profile()`` is ``(x_t, y_t)`` (the last iterate,
which converges for this method on these games in practice); ``average_profile()`` is the
uniform average of the iterates, whose exploitability falls as ``O(1/T)`` (the paper's
Theorem 3, for ``eta`` small enough).

References:

- Farina, Kroer & Sandholm (2019), "Optimistic Regret Minimization for Extensive-Form Games via Dilated
  Distance-Generating Functions", NeurIPS.
- Hoda, Gilpin, Pena & Sandholm (2010), "Smoothing Techniques for Computing Nash Equilibria of Sequential Games",
  Mathematics of Operations Research.
- Fan, Kroer & Farina (2024), "On the Optimality of Dilated Entropy and Lower Bounds for Online Learning in
  Extensive-Form Games", NeurIPS.
"""

from __future__ import annotations

import numpy as np

import seqform.iterative.checkpoint as checkpoint
from seqform.errors import CheckpointError, SeqformError, UnsupportedGameError
from seqform.iterative.dilatedentropy import TABLE_BYTES, DilatedEntropy, weights_bytes
from seqform.lp.sequenceform import sequence_form
from seqform.model.game import Game
from seqform.model.limits import check_solver_tables
from seqform.model.strategy import Profile, behaviour_from_realization
from seqform.model.tree import Tree, compile_tree


class OptimisticMirrorDescent:
    """Optimistic multiplicative weights on a two-player zero-sum game (module docstring).

    Parameters
    ----------
    game : Game or Tree
    step_size : float
        ``eta`` in units of ``1 / max |A|`` (the largest expected payoff of one leaf), so the
        default suits games of any payoff scale.
    weights : str
        The dilated entropy's weights (``seqform.iterative.egt.WEIGHTS``): "one" (the default:
        Fan, Kroer & Farina 2024 show weight one near optimal for this distance), "farina21",
        "kroer17", "kroer".

    Examples
    --------
    >>> import seqform
    >>> from seqform.iterative.optimistic import OptimisticMirrorDescent
    >>> s = OptimisticMirrorDescent(seqform.games.load("kuhn"))
    >>> s.step(1000)
    >>> seqform.exploitability(s.tree, s.average_profile()).exploitability < 1e-3
    True
    """

    def __init__(
        self, game: Game | Tree, *, step_size: float = 1.0, weights: str = "one", memory_limit_bytes: int | None = None
    ):
        tree = game if isinstance(game, Tree) else compile_tree(game, memory_limit_bytes=memory_limit_bytes)
        if tree.num_players != 2 or not tree.is_zero_sum:
            raise UnsupportedGameError(
                f"{tree.name!r}: optimistic mirror descent here solves two-player zero-sum games"
            )
        check_solver_tables(
            tree, "optimistic mirror descent", **TABLE_BYTES, extra=weights_bytes(tree), limit_bytes=memory_limit_bytes
        )
        if not step_size > 0:
            raise SeqformError(f"the step size must be positive, got {step_size}")
        self.tree, self.algorithm = tree, "omwu"
        self.A = sequence_form(tree).A.tocsr()
        self.AT = self.A.T.tocsr()
        scale = float(np.abs(self.A.data).max()) if self.A.nnz else 1.0
        self.step_size, self.weights = float(step_size), weights
        self.eta = self.step_size / scale
        self.X = [DilatedEntropy(tree, p, weights, 0.0) for p in (0, 1)]
        centre = [X.prox(np.zeros(X.n)) for X in self.X]
        self._log_hat = [c[1] for c in centre]
        self.plans = [X.realization(c[0]) for X, c in zip(self.X, centre)]
        self._loss = [np.zeros(X.n) for X in self.X]
        self._sum = [np.zeros(X.n) for X in self.X]
        self.iteration = 0
        self.traversals = 0

    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` iterations (module docstring)."""
        for _ in range(int(iterations)):
            plans = []
            for p in (0, 1):
                b, _, _ = self.X[p].prox(self.eta * self._loss[p], self._log_hat[p])
                plans.append(self.X[p].realization(b))
            x, y = plans
            self._loss = [-(self.A @ y), self.AT @ x]
            self.traversals += 2
            for p in (0, 1):
                _, self._log_hat[p], _ = self.X[p].prox(self.eta * self._loss[p], self._log_hat[p])
                self._sum[p] += plans[p]
            self.plans = plans
            self.iteration += 1

    _FORMAT = "seqform-omwu-1"

    def save(self, path) -> None:
        """Write the iterates (the prox centres, the last plans and losses, the plans' sum) with the
        step size, weights and counters (``.npz``, ``seqform.iterative.checkpoint``);
        ``OptimisticMirrorDescent.load`` resumes the same iterates bit for bit."""
        meta = {
            "format": self._FORMAT,
            "step_size": self.step_size,
            "weights": self.weights,
            "iteration": self.iteration,
            "traversals": self.traversals,
            "game": self.tree.name,
            "num_sequences": [int(n) for n in self.tree.num_sequences],
        }
        arrays = {}
        for p in (0, 1):
            arrays.update({f"log_hat{p}": self._log_hat[p], f"plan{p}": self.plans[p], f"loss{p}": self._loss[p]})
            arrays[f"sum{p}"] = self._sum[p]
        checkpoint.write(path, meta, arrays)

    @classmethod
    def load(cls, path, game: Game | Tree) -> OptimisticMirrorDescent:
        """Resume the run saved at ``path`` on ``game`` (the game it was saved on)."""
        meta, arrays = checkpoint.read(path, cls._FORMAT, "optimistic mirror descent")
        solver = cls(game, step_size=meta["step_size"], weights=meta["weights"])
        if [int(n) for n in solver.tree.num_sequences] != meta["num_sequences"]:
            raise CheckpointError(
                f"{path} was saved on {meta['game']!r} with {meta['num_sequences']} sequences; "
                f"{solver.tree.name!r} has {list(solver.tree.num_sequences)}"
            )
        for p in (0, 1):
            n = solver.X[p].n
            got = [arrays[f"{k}{p}"] for k in ("log_hat", "plan", "loss", "sum")]
            if any(
                a.shape != b.shape for a, b in zip(got, (solver._log_hat[p], np.zeros(n), np.zeros(n), np.zeros(n)))
            ):
                raise CheckpointError(
                    f"{path}: not a seqform optimistic mirror descent checkpoint (arrays of other sizes)"
                )
            solver._log_hat[p], solver.plans[p], solver._loss[p], solver._sum[p] = got
        solver.iteration, solver.traversals = int(meta["iteration"]), int(meta["traversals"])
        return solver

    def current_profile(self) -> Profile:
        """The last iterate ``(x_t, y_t)``, behavioural."""
        return Profile([behaviour_from_realization(self.tree, p, self.plans[p]) for p in (0, 1)])

    def average_profile(self) -> Profile:
        """The uniform average of the iterates' realization plans, behavioural."""
        if not self.iteration:
            return self.current_profile()
        return Profile([behaviour_from_realization(self.tree, p, self._sum[p] / self.iteration) for p in (0, 1)])


__all__ = ["OptimisticMirrorDescent"]

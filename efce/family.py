"""What every model of Dudik & Gordon (2009)'s exponential family shares (``efce.treemodel``,
``efce.polymatrix``): the ``Model`` protocol (what the sampler, column generation's pricing and
its certificate use of a model), causal deviations, lambda aggregated per trigger, and a
sample's lambda-free statistics; and what a game may declare about itself
(``DeclaresRegretBound``, ``DeclaresPayoffDenominator``, ``DeclaresPolymatrix``).

A model numbers its triggers (information set, recommended action) 0..ntrig-1, and the pairs
(trigger, sequence at or below the trigger's information set) from ``pbase[t]`` on. Deviations
with their lambdas enter the energy only through Lam[t] = sum of lambda_phi over the deviations
with trigger t, and L[pair] = sum of lambda_phi x_phi[sequence], x_phi the deviation strategy's
realization plan below the trigger. A sample's statistics: G (profiles, pairs + 1), each
profile's sequence payoffs below every trigger it reaches, B (profiles, triggers + 1), what its
recommendations earn there, and U (profiles, players), its utilities. For a weighted sample om,
a deviation's mean regret is (om G)[its pairs] . x_phi - (om B)[its trigger], over sum om.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from .deviationdp import CausalDeviationDP

#: the two kinds of model: ``efce.treemodel.TreeModel`` and ``efce.polymatrix.PolymatrixModel``
ModelKind = Literal["tree", "polymatrix"]


@dataclass
class Deviation:
    """A causal deviation: ``player``, trigger information set ``key`` and ``action``, and the
    deviation strategy ``strategy`` {information-set key: action} at and below the trigger, where
    the deviation's play can go. ``trigger`` and ``plan`` locate it in its model."""

    player: int
    key: object
    action: int
    strategy: dict
    trigger: int = -1
    plan: tuple = field(default=(), repr=False)


@dataclass
class SampleStats:
    """A sample's λ-free statistics (``TreeModel.statistics``). ``S``: the profiles themselves
    (a copy), for a model that reads them again (``efce.polymatrix``); ``aux``: such a model's
    own per-sample structure, built on first use."""

    G: sp.csr_matrix
    B: sp.csr_matrix
    U: np.ndarray
    S: np.ndarray | None = field(default=None, repr=False)
    aux: Any = field(default=None, repr=False)  # a model's own per-sample data
    cache: tuple | None = field(default=None, repr=False)
    GT: sp.csr_matrix | None = field(default=None, repr=False)
    BT: sp.csr_matrix | None = field(default=None, repr=False)

    def transposes(self) -> tuple:
        """(G^T, B^T) as CSR, computed once: every round reads them."""
        if self.GT is None:
            self.GT, self.BT = self.G.T.tocsr(), self.B.T.tocsr()
        return self.GT, self.BT


def gumbel_draw(E: np.ndarray, A: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per (row, owner) from softmax(E) over the owner's first A actions: E (C, K, kmax),
    A (K,); (C, K). The Gibbs step of both models."""
    kmax = E.shape[2]
    E = np.where(A[:, None] > np.arange(kmax)[None, :], E, -np.inf)
    return np.argmax(E - np.log(-np.log(rng.random(E.shape))), axis=2)


def scaled_reweight(om: np.ndarray, step: float, rs: np.ndarray) -> tuple:
    """(om exp(-step rs) kappa, kappa): the sample weights after lambda_phi grows by ``step``,
    scaled by kappa so that the largest is 1 (over many reused rounds the raw weights would
    drift to under- or overflow)."""
    with np.errstate(divide="ignore"):
        z = np.log(om) - step * rs
    top = float(z.max())
    return np.exp(z - top), math.exp(-top)


def _row_sum(X: sp.csr_matrix, rows: np.ndarray, n: int) -> np.ndarray:
    """The sum of the given rows of X (n columns): (n,). Reads only those rows' entries (and
    skips scipy's indexing machinery, which costs more than the sum for a few short rows)."""
    a, b = X.indptr[rows], X.indptr[rows + 1]
    cnt = b - a
    idx = np.repeat(a - np.concatenate([[0], np.cumsum(cnt)[:-1]]), cnt) + np.arange(int(cnt.sum()))
    return np.bincount(X.indices[idx], weights=X.data[idx], minlength=n)


class DeviationFamily:
    """Deviation bookkeeping over ``pbase`` (triggers + 1,), ``L`` and ``Lam``. Subclasses set
    ``ntrig``, ``pbase``, ``M`` (information sets) and ``A`` (actions at each), then call
    ``_family_setup``."""

    ntrig: int
    pbase: np.ndarray
    M: int
    A: np.ndarray

    def _family_setup(self) -> None:
        self.npairs = int(self.pbase[-1])
        self.L = np.zeros(self.npairs + 1)  # the last entry pads leaves' paths
        self.Lam = np.zeros(self.ntrig + 1)
        self.devs: list = []
        self._dev_index: dict = {}
        self._dev_cols: list = []
        self._dev_ids: list = []
        self._flat: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # (columns, ids, triggers)

    def new_profiles(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` profiles, each action uniform: (count, information sets + 1); the last column
        is a padding player or information set, always action 0."""
        S = np.zeros((count, self.M + 1), dtype=np.int64)
        S[:, : self.M] = (rng.random((count, self.M)) * self.A).astype(np.int64)
        return S

    def _pairs(self, dev: Deviation) -> np.ndarray:
        """The pair indices of dev's trigger and the sequences its strategy plays."""
        return int(self.pbase[dev.trigger]) + np.array(dev.plan, dtype=np.int64)

    def deviation_regrets(self, st: SampleStats, dev: Deviation) -> np.ndarray:
        """r_phi(s) for every sampled profile: (C,)."""
        GT, BT = st.transposes()
        C = st.G.shape[0]
        # rows of the transposes: only the deviation's few columns of G are read, not all of it
        return _row_sum(GT, self._pairs(dev), C) - _row_sum(BT, np.array([dev.trigger]), C)

    def weighted(self, st: SampleStats, om: np.ndarray) -> tuple:
        """(om G, om B, sum om): what a round's searches need, computed once per weighting."""
        # keyed by the array itself, held in the cache so its id cannot be reused; the sampler
        # makes a new array for every weighting and never writes into one
        if st.cache is None or st.cache[0] is not om:
            GT, BT = st.transposes()
            st.cache = (om, (GT @ om, BT @ om, float(om.sum())))
        return st.cache[1]

    def register(self, dev: Deviation) -> int:
        """Record a deviation (for ``mean_regrets``); returns its index, the same for equal ones."""
        key = (dev.trigger, dev.plan)
        if key not in self._dev_index:
            self._dev_index[key] = len(self.devs)
            self.devs.append(dev)
            cols = self._pairs(dev)
            self._dev_cols.append(cols)
            self._dev_ids.append(np.full(len(cols), self._dev_index[key]))
            self._flat = None
        return self._dev_index[key]

    def reweight(self, st: SampleStats, om: np.ndarray, step: float, rs: np.ndarray) -> np.ndarray:
        """The weights of the sample ``st`` after lambda_phi grows by ``step``, given phi's
        per-profile regrets ``rs`` (``scaled_reweight``). A model may carry its cached weighted
        statistics over to the new weights."""
        return scaled_reweight(om, step, rs)[0]

    def mean_regrets(self, st: SampleStats, om: np.ndarray) -> np.ndarray:
        """E_om[r_phi] for every recorded deviation: (deviations,)."""
        if not self.devs:
            return np.zeros(0)
        if self._flat is None:
            self._flat = (
                np.concatenate(self._dev_cols),
                np.concatenate(self._dev_ids),
                np.array([d.trigger for d in self.devs], dtype=np.int64),
            )
        cols, ids, trig = self._flat
        g, base, total = self.weighted(st, om)
        return (np.bincount(ids, weights=g[cols], minlength=len(self.devs)) - base[trig]) / total

    def add(self, dev: Deviation, step: float) -> None:
        """lambda_phi += step for the deviation phi."""
        self.L[self._pairs(dev)] += step
        self.Lam[dev.trigger] += step


class Model(Protocol):
    """What a model of the exponential family q_lambda(s) ~ exp(w . u(s) - lambda . r(s)) offers
    (Dudik & Gordon 2009, section 3), as the sampler (``efce.sampling``), column generation's
    pricing (``efce.colgen.pricing``, ``efce.factormap``) and its certificate
    (``efce.colgen.efcecertificate``) use it. A profile is a row of an integer array S
    (profiles, M + 1): an action per information set, then a padding column, always 0.

    ``kind`` tells the two models apart ("tree": ``efce.treemodel.TreeModel``, any game whose
    tree compiles; "polymatrix": ``efce.polymatrix.PolymatrixModel``, one information set per
    player); the MAP integer program (``efce.factormap``) builds its factors from the one or the
    other's own tables. Triggers (information set, action) are numbered 0..ntrig-1, and pairs
    (trigger, sequence at or below the trigger's information set) from ``pbase[t]`` on (the
    module docstring); ``dp`` is the causal-deviation dynamic program over them
    (``efce.deviationdp``), in the model's pair numbering."""

    kind: ModelKind
    N: int  # players
    M: int  # information sets
    A: np.ndarray  # (M,) actions at each information set
    ntrig: int
    npairs: int
    pbase: np.ndarray  # (ntrig + 1,) each trigger's first pair
    w: np.ndarray  # (N,) utility weights
    L: np.ndarray  # (npairs + 1,) lambda aggregated per pair; the last entry pads
    Lam: np.ndarray  # (ntrig + 1,) lambda aggregated per trigger; the last entry pads
    devs: list  # the registered deviations (``register``)
    dp: CausalDeviationDP

    def new_profiles(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` profiles, every action uniform: (count, M + 1)."""

    def energy(self, S: np.ndarray) -> np.ndarray:
        """w . u(s) - lambda . r(s) for every row of S: (C,)."""

    def sweep(self, S: np.ndarray, rng: np.random.Generator) -> None:
        """One Gibbs sweep of q_lambda in every row of S (in place)."""

    def statistics(self, S: np.ndarray) -> SampleStats:
        """The lambda-free statistics G (C, npairs + 1), B (C, ntrig + 1), U (C, N) of S."""

    def set_weights(self, w: np.ndarray) -> None:
        """Make ``w`` (N,) the energy's utility weights (every cache that depends on them too)."""

    def objective_is_constant(self, w: np.ndarray) -> bool:
        """True when w . u(s) is known to take one value on every profile (False: unknown)."""

    def payoff_denominator(self) -> int:
        """A common denominator of the statistics' entries (0 when the model does not know one)."""

    def best_deviation(self, st: SampleStats, om: np.ndarray) -> tuple:
        """(largest regret, its ``Deviation``, every trigger's regret) on S weighted by om (C,)."""

    def deviation_regrets(self, st: SampleStats, dev: Deviation) -> np.ndarray:
        """r_phi(s) of one deviation for every sampled profile: (C,)."""

    def weighted(self, st: SampleStats, om: np.ndarray) -> tuple:
        """(om G, om B, sum om) for the weights om (C,)."""

    def reweight(self, st: SampleStats, om: np.ndarray, step: float, rs: np.ndarray) -> np.ndarray:
        """The weights after lambda_phi grows by ``step`` (phi's per-profile regrets ``rs``)."""

    def register(self, dev: Deviation) -> int:
        """Record a deviation; its index, the same for equal ones."""

    def add(self, dev: Deviation, step: float) -> None:
        """lambda_phi += step."""

    def mean_regrets(self, st: SampleStats, om: np.ndarray) -> np.ndarray:
        """E_om[r_phi] for every recorded deviation: (deviations,)."""

    def bound(self, dev: Deviation, rmax: float) -> float:
        """A bound on |r_phi(s)| over all profiles s."""


@runtime_checkable
class DeclaresRegretBound(Protocol):
    """A game that knows r_max, the largest range of one player's payoff, without walking its
    tree (``efce.games``' Indian poker and grids): the scale of the sampler's target and of
    column generation's tolerances."""

    def regret_bound(self) -> float:
        """r_max (or an upper bound on it)."""


@runtime_checkable
class DeclaresPayoffDenominator(Protocol):
    """A game whose payoffs are all multiples of 1 / ``payoff_denominator`` (the grid game's
    thousandths): the polymatrix model's statistics, in floats, are then exact multiples of it,
    which column generation's certificate needs."""

    payoff_denominator: int


@runtime_checkable
class DeclaresPolymatrix(Protocol):
    """A game that is a polymatrix game (``efce.games``' grids): one simultaneous move per
    player, utilities a sum over the edges of a graph. The sampler's polymatrix engine
    (``efce.polymatrix``) reads it through ``polymatrix()``."""

    def polymatrix(self) -> object:
        """The game as an ``efce.polymatrix.Polymatrix`` (typed ``object``: this module may not import
        that one, which imports it)."""

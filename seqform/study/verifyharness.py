"""The verification harness: run any iterative solver and track it against certified ground truth.

``verify(source, game, iterations)`` runs ``source`` and, at (log-spaced) checkpoints, measures
its average strategies against:

* ``exploitability`` (OpenSpiel's convention: NashConv / 2; ``seqform.verify.exploitability.exploitability``);
* ``value_gap``: the profile's expected value for player 0 minus the game value, which the
  certified sequence-form LP gives exactly (``seqform.solve``);
* ``max_infoset_regret``: the largest regret at a reached information set (Kroer, Farina & Sandholm (2017)'s
  refinement measure; ``seqform.verify.infosetregret.infoset_regret``);
* ``nash_conv``: the sum over players of what a best response gains over the profile, 0 exactly
  at an equilibrium, and ``values``, each player's expected payoff;
* ``efpe_distance`` / ``qpe_distance``: the largest difference of an action probability, over
  all information sets, from the exact limit EFPE / QPE (``refinements``), when requested. That
  is the distance to the one refined equilibrium ``refinements`` computes. Refined equilibria
  are often not unique (on Leduc, 2,000 iterations of perturbed EGT at eps 0.01 end about 0.99
  away), so a large distance alone does not show a solver wrong; a small one shows it right.

Games without a value (more than two players, or two-player general-sum: equilibria may pay
differently) are measured without one: no LP is solved (``ground_truth``), ``value_gap`` is
None, and the run is measured by NashConv (``exploitability`` stays NashConv / N) and
information-set regret; at the last point both are also computed exactly
(``nash_conv_exact``, ``max_infoset_regret_exact``: ``seqform.verify.evaluate.evaluate`` with
``exact=True``, the profile's floats taken at their binary value).

``source`` may be: the name of a built-in solver (``SOLVERS``: our CFR family, EGT, perturbed
EGT, and OpenSpiel's Python CFR solvers when open_spiel is installed); an object with ``step()``
and ``average_profile()`` (``traversals`` is read when it has one); or a callable taking the
compiled tree and returning an iterable of strategies, one per iteration, each a
``seqform.Profile``, a list of behavioural arrays, or an OpenSpiel policy. Points record the
iteration, and the tree traversals (Kroer, Farina & Sandholm (2017)'s unit) and nodes touched
when the solver counts them; ``seqform.study.verifyplot`` draws reports against any of these.

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from seqform.errors import CheckpointError, SeqformError, UnsupportedGameError
from seqform.iterative.cfr import ALGORITHMS as CFR_ALGORITHMS
from seqform.model.game import Game
from seqform.model.strategy import Profile
from seqform.model.tree import Tree, compile_tree
from seqform.study.regretbounds import exploitability_bound
from seqform.study.verifycheckpoint import VerifyCheckpoint, digest, solver_from_bytes, tree_digest
from seqform.verify.exploitability import exploitability
from seqform.verify.infosetregret import infoset_regret

SOLVERS = CFR_ALGORITHMS + (
    "cs-cfr",
    "es-mccfr",
    "os-mccfr",
    "es-mccfr-batched",
    "os-mccfr-batched",
    "egt",
    "egt-perturbed",
    "omwu",
    "openspiel-cfr",
    "openspiel-cfr+",
    "openspiel-es-mccfr",
    "openspiel-os-mccfr",
)


@dataclass
class VerifyPoint:
    """Measurements of the average strategies after ``iteration`` iterations (see module docstring)."""

    iteration: int
    traversals: int | None
    seconds: float
    exploitability: float
    value: float
    #: None when the game has no value (more than two players, or general-sum): ``GroundTruth.value``
    value_gap: float | None
    max_infoset_regret: float
    efpe_distance: float | None = None
    qpe_distance: float | None = None
    #: work done so far, when the solver counts it (MCCFR: nodes its samples visited)
    nodes_touched: int | None = None
    #: exploitability of the current iterate (not the average), when the solver has one
    current_exploitability: float | None = None
    #: with several seeds: how many runs, and each measure's 10% and 90% quantiles across them
    #: (the measures above are then the medians)
    seeds: int = 1
    exploitability_q10: float | None = None
    exploitability_q90: float | None = None
    value_gap_q10: float | None = None
    value_gap_q90: float | None = None
    max_infoset_regret_q10: float | None = None
    max_infoset_regret_q90: float | None = None
    #: the solver's paper's worst-case bound on this exploitability, where one is known
    #: (``seqform.study.regretbounds``)
    theorem_bound: float | None = None
    #: with ``eps`` and ``refined``: the profile measured in the eps-perturbed game of the first
    #: refined concept, against that game's exact equilibrium value (``VerifyReport.perturbed``)
    perturbed_exploitability: float | None = None
    perturbed_value_gap: float | None = None
    perturbed_max_infoset_regret: float | None = None
    tremble_violation: float | None = None
    #: seconds inside the solver so far (``seconds`` is wall time, measurements included)
    solver_seconds: float | None = None
    #: NashConv (sum over players of best-response value minus value; ``exploitability`` times
    #: the number of players), in floats, at every point; each player's value
    nash_conv: float | None = None
    values: list | None = None
    nash_conv_q10: float | None = None
    nash_conv_q90: float | None = None
    #: games without a value only, at the run's last measuring point: NashConv and the largest
    #: information-set regret computed exactly (``seqform.verify.evaluate.evaluate`` with
    #: ``exact=True``: the floats of the profile taken at their binary value), as rationals "p/q"
    nash_conv_exact: str | None = None
    max_infoset_regret_exact: str | None = None


#: the measures a multi-seed report gives as median and 10-90% band
BANDED = ("exploitability", "value_gap", "max_infoset_regret", "nash_conv")


@dataclass
class VerifyReport:
    """``game``, ``solver``, the exact ``game_value`` (Fraction; None for a game without a value,
    ``GroundTruth``), ``points`` (VerifyPoint per checkpoint), ``interrupted`` (Ctrl-C stopped the
    run), ``solver_seconds`` (time inside the solver, measurements excluded), ``players``."""

    game: str
    solver: str
    game_value: Fraction | None
    points: list = field(default_factory=list)
    interrupted: bool = False
    solver_seconds: float = 0.0
    #: the perturbed game the ``perturbed_*`` measures refer to: concept, eps and its exact value
    perturbed: dict | None = None
    #: the nodes of the game's tree: the work of one traversal, for plots against nodes touched
    #: (not in ``to_json``, whose keys stay those of the schema)
    tree_nodes: int | None = None
    players: int = 2

    @property
    def has_value(self) -> bool:
        """Whether the game has a value: else its runs are measured by NashConv alone."""
        return self.game_value is not None

    def to_json(self) -> dict:
        """The ``seqform verify --json`` object (``seqform/schemas/verify.schema.json``);
        ``game_value`` and ``game_value_float`` are null for a game without a value."""
        return {
            "game": self.game,
            "solver": self.solver,
            "players": self.players,
            "game_value": None if self.game_value is None else str(self.game_value),
            "game_value_float": None if self.game_value is None else float(self.game_value),
            "interrupted": self.interrupted,
            "solver_seconds": self.solver_seconds,
            "perturbed": self.perturbed,
            "points": [asdict(p) for p in self.points],
        }

    def plot(
        self,
        path: str,
        title: str | None = None,
        *,
        x: str | None = None,
        bound: bool = False,
        others: Iterable[VerifyReport] = (),
    ):
        """Draw this report, and ``others`` (reports on the same game) beside it, into ``path``
        (``.png``, ``.pdf``, ``.svg``): ``seqform.study.verifyplot.plot_reports``, whose docstring
        says what is drawn; ``x`` is "nodes" (default), "traversals", "iterations" or "seconds";
        ``bound`` draws the papers' regret bounds. Returns its ``PlotInfo``."""
        from seqform.study.verifyplot import plot_reports

        return plot_reports([self, *others], path, x=x, bound=bound, title=title)


def no_value_line(report: VerifyReport) -> str:
    """What ``seqform verify`` prints for the game value of a game without one."""
    why = f"{report.players} players" if report.players != 2 else "general-sum"
    return f"none ({why}): measured by NashConv, 0 exactly at an equilibrium"


def nash_conv_lines(report: VerifyReport, rationals: bool = False) -> list:
    """The text lines of a run of a game without a value, after its "after" line: the last
    point's NashConv (in floats, and exactly when measured so: its decimal, and with
    ``rationals`` the rational itself, which ``--json`` always has), each player's value and the
    largest information-set regret; 10-90% bands in brackets with several seeds."""
    last = report.points[-1]

    def band(attr: str) -> str:
        lo, hi = getattr(last, attr + "_q10", None), getattr(last, attr + "_q90", None)
        return "" if last.seeds == 1 or lo is None else f"  [{lo:.3e} .. {hi:.3e}]"

    def exact(text: str, what: str) -> str:
        q = Fraction(text)
        shown = f"= {q}" if rationals else "the rational is in --json"
        return f"  exactly                {float(q):.12e}  ({what}; {shown})"

    n = report.players
    out = [f"NashConv                 {last.nash_conv:.6e}{band('nash_conv')}"]
    if last.nash_conv_exact is not None:
        median = ", median over seeds" if last.seeds > 1 else ""
        out.append(exact(last.nash_conv_exact, "the strategies' floats at their binary value" + median))
    if last.current_exploitability is not None:
        out.append(f"  of the current iterate {last.current_exploitability * n:.6e}")
    if last.values is not None:
        out.append(f"values                   {', '.join(f'{v:+.6e}' for v in last.values)}  (players 0 to {n - 1})")
    out.append(f"max infoset regret       {last.max_infoset_regret:.6e}{band('max_infoset_regret')}")
    if last.max_infoset_regret_exact is not None:
        out.append(exact(last.max_infoset_regret_exact, "likewise"))
    return out


def checkpoints(iterations: int, count: int = 40) -> list:
    """About ``count`` log-spaced iteration numbers in 1..iterations, ``iterations`` included."""
    if iterations < 1:
        return []
    if iterations >= 2**53:  # past a double's integers int64 overflows: Python ints, no cast
        top = math.log10(iterations)
        big = {round(10 ** (top * k / max(count - 1, 1))) for k in range(count)}
        return sorted({p for p in big if 1 <= p <= iterations} | {iterations})
    pts = np.unique(np.round(np.logspace(0, math.log10(iterations), count)).astype(int))
    return sorted(set(int(p) for p in pts if 1 <= p <= iterations) | {iterations})


def _as_profile(tree: Tree, item: Any) -> Profile:
    if isinstance(item, Profile):
        return item
    if isinstance(item, (list, tuple)) and len(item) == tree.num_players:
        return Profile([np.asarray(b, dtype=float) for b in item])
    if hasattr(item, "action_probabilities"):  # an OpenSpiel policy
        from seqform.io.openspiel import from_openspiel_policy

        return from_openspiel_policy(tree, item)
    raise SeqformError(
        f"verify: the solver yielded a {type(item).__name__}; expected a seqform Profile, a "
        f"list of behavioural arrays, or an OpenSpiel policy"
    )


class _Stepper:
    """One interface over every kind of source: ``advance()`` runs one iteration and returns the
    strategies to measure, ``traversals``."""

    def __init__(self, source: Any, tree: Tree, eps: float | None, seed: int = 0, params: dict | None = None):
        self.traversals = None
        if isinstance(source, str):
            self.name = source
            source = make_solver(source, tree, eps=eps, seed=seed, params=params)
        else:
            self.name = getattr(source, "algorithm", "") or getattr(source, "__name__", type(source).__name__)
        if hasattr(source, "step") and hasattr(source, "average_profile"):
            self.solver, self.iterator = source, None
        else:
            self.solver = None
            self.iterator = iter(source(tree) if callable(source) else source)
        self.tree = tree
        self._last = None

    @property
    def granularity(self) -> int:
        """Iterations one step runs: a batched solver's batch (it updates its strategies once per
        batch, so it is stepped and measured at whole batches), else 1."""
        return max(1, int(getattr(self.solver, "batch", 1) or 1)) if self.solver is not None else 1

    def advance(self) -> None:
        if self.solver is not None:
            g = self.granularity
            self.solver.step(g) if g > 1 else self.solver.step()
            self.traversals = getattr(self.solver, "traversals", None)
        else:
            assert self.iterator is not None  # a source without step() is iterated
            self._last = next(self.iterator)

    def restore(self, solver: Any) -> None:
        """Continue from ``solver``, this source's solver loaded from a checkpoint."""
        self.solver = solver
        self.traversals = getattr(solver, "traversals", None)

    def profile(self) -> Profile:
        if self.solver is not None:
            return _as_profile(self.tree, self.solver.average_profile())
        return _as_profile(self.tree, self._last)


#: the sampled solvers of ``seqform.iterative.mccfr``, by their names here
MCCFR_SAMPLING = {"es-mccfr": "external", "os-mccfr": "outcome", "cs-cfr": "chance"}


#: the built-in solvers that draw samples: their runs depend on the seed
SAMPLED = (
    "cs-cfr",
    "es-mccfr",
    "os-mccfr",
    "es-mccfr-batched",
    "os-mccfr-batched",
    "openspiel-es-mccfr",
    "openspiel-os-mccfr",
)
#: the built-in solvers whose runs do not depend on the seed (a study runs them once)
DETERMINISTIC = tuple(s for s in SOLVERS if s not in SAMPLED)


def _builtin(name: str, eps: float | None, seed: int) -> tuple | None:
    """A core solver's class and the keyword arguments its name fixes (``None``: not a core solver)."""
    if name in CFR_ALGORITHMS:
        from seqform.iterative.cfr import RegretMinimizer

        return RegretMinimizer, {"algorithm": name}
    if name in MCCFR_SAMPLING:
        from seqform.iterative.mccfr import MonteCarloCFR

        return MonteCarloCFR, {"sampling": MCCFR_SAMPLING[name], "seed": seed}
    if name in ("egt", "egt-perturbed"):
        from seqform.iterative.egt import ExcessiveGap

        return ExcessiveGap, (
            {"perturbation": "efpe", "eps": eps if eps is not None else 1e-3}
            if name == "egt-perturbed"
            else {"perturbation": None, "eps": 1e-3}
        )
    if name == "es-mccfr-batched":
        from seqform.iterative.batchedmccfr import BatchedExternalSampling

        return BatchedExternalSampling, {"seed": seed}
    if name == "os-mccfr-batched":
        from seqform.iterative.batchedmccfr import BatchedOutcomeSampling

        return BatchedOutcomeSampling, {"seed": seed}
    if name == "omwu":
        from seqform.iterative.optimistic import OptimisticMirrorDescent

        return OptimisticMirrorDescent, {}
    return None


def solver_parameters(name: str) -> set:
    """The parameters a study (or ``make_solver``'s ``params``) may set for solver ``name``: its
    constructor's keyword-only arguments that its name does not fix (MCCFR's ``exploration``, the
    batched samplers' ``batch``, EGT's ``weights`` and ``distance``, ...)."""
    import inspect

    found = _builtin(name, None, 0)
    if found is None:
        return set()
    cls, fixed = found
    return {
        p.name
        for p in inspect.signature(cls.__init__).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in fixed and p.name != "seed"
    }


def make_solver(name: str, tree: Tree, eps: float | None = None, seed: int = 0, params: dict | None = None):
    """A built-in solver by name (``SOLVERS``) on ``tree``: an object with ``step()`` and
    ``average_profile()``. ``eps``: the tremble of perturbed EGT; ``seed``: the sampling solvers';
    ``params``: constructor arguments (``solver_parameters(name)`` lists them)."""
    params = dict(params or {})
    bad = set(params) - solver_parameters(name)
    if bad:
        raise SeqformError(f"solver {name!r} takes no parameter {', '.join(sorted(bad))}")
    found = _builtin(name, eps, seed)
    if found is not None:
        cls, fixed = found
        return cls(tree, **fixed, **params)
    if name in ("openspiel-es-mccfr", "openspiel-os-mccfr"):
        return _OpenSpielSolver(tree, name, seed=seed)
    if name in ("openspiel-cfr", "openspiel-cfr+"):
        return _OpenSpielSolver(tree, name)
    from seqform.registry import registry

    ext = registry().iterative_solvers.get(name)
    if ext is not None:
        return ext.factory(tree, eps, seed)
    raise SeqformError(f"unknown solver {name!r}; choose one of {', '.join(all_solvers())}")


def solver_refusal(name: str, tree: Tree, eps: float | None = None) -> str | None:
    """Why the built-in solver ``name`` cannot run on ``tree`` (its ``UnsupportedGameError``: a
    two-player zero-sum solver on a game of three players), or None. Checked by building the
    solver, and only where a solver can refuse: in a game without a value (``has_game_value``);
    OpenSpiel's solvers (any number of players) are not built here."""
    if has_game_value(tree) or name.startswith("openspiel-"):
        return None
    try:
        make_solver(name, tree, eps=eps)
    except UnsupportedGameError as e:
        return f"verify: solver {name!r} cannot run on this game: {e}"
    return None


def all_solvers() -> tuple:
    """The core's solvers (``SOLVERS``) and the installed extensions' (``seqform.registry``)."""
    from seqform.registry import registry

    return SOLVERS + tuple(registry().iterative_solvers)


def takes_eps(name: str) -> bool:
    """Whether the solver ``name`` runs on a perturbed game of tremble ``eps``."""
    from seqform.registry import registry

    ext = registry().iterative_solvers.get(name)
    return name == "egt-perturbed" or (ext is not None and ext.eps)


class _OpenSpielSolver:
    """OpenSpiel's Python solvers on the OpenSpiel game behind ``tree``: CFRSolver, CFRPlusSolver,
    ExternalSamplingSolver (simple averaging, its default) and OutcomeSamplingSolver. The MCCFR
    solvers draw from numpy's global random state, seeded here with ``seed``."""

    def __init__(self, tree: Tree, name: str, seed: int = 0):
        from seqform.io.openspiel import openspiel_name, pyspiel_module

        pyspiel = pyspiel_module()
        self.game = pyspiel.load_game(openspiel_name(tree))
        if name in ("openspiel-cfr", "openspiel-cfr+"):
            from open_spiel.python.algorithms import cfr as os_cfr

            self.solver = (os_cfr.CFRPlusSolver if name.endswith("+") else os_cfr.CFRSolver)(self.game)
            self.traversals: int | None = 0
            self._step = self.solver.evaluate_and_update_policy
        else:
            np.random.seed(seed)
            if name == "openspiel-es-mccfr":
                from open_spiel.python.algorithms import external_sampling_mccfr as es

                self.solver = es.ExternalSamplingSolver(self.game, es.AverageType.SIMPLE)
            else:
                from open_spiel.python.algorithms import outcome_sampling_mccfr as os_

                self.solver = os_.OutcomeSamplingSolver(self.game)
            self._step, self.traversals = self.solver.iteration, None
        self.algorithm = name
        self.tree = tree

    def step(self) -> None:
        self._step()
        if self.traversals is not None:  # alternating updates: one pass per player
            self.traversals += self.game.num_players()

    def average_profile(self) -> Profile:
        from seqform.io.openspiel import from_openspiel_policy

        return from_openspiel_policy(self.tree, self.solver.average_policy())


def _distance(a: Profile, b: Profile) -> float:
    return float(
        max(
            np.abs(np.asarray(a.behaviour[p], dtype=float) - np.asarray(b.behaviour[p], dtype=float)).max()
            for p in range(len(a.behaviour))
        )
    )


@dataclass
class GroundTruth:
    """What a game's runs are measured against, computed once (``ground_truth``) and shared by
    every run on it (``verify``'s ``truth``; a study ships it to its workers): the certified game
    ``value`` (Fraction; None for a game without one: more than two players, or two-player
    general-sum, whose runs are measured by NashConv alone), the exact limit refined equilibria
    ``targets`` (concept -> float Profile), and ``perturbed``, the exact equilibrium of the
    eps-perturbed game (a refinements result with ``measure(profile)``), or None. ``players``:
    the game's number of players."""

    game: str
    value: Fraction | None
    targets: dict = field(default_factory=dict)
    perturbed: Any = None
    eps: float | None = None
    players: int = 2

    @property
    def has_value(self) -> bool:
        """Whether the game has a value (two-player zero-sum) that runs are measured against."""
        return self.value is not None


def has_game_value(tree: Tree) -> bool:
    """Whether ``tree`` is a two-player constant-sum game, the one class with a game value (player
    0's payoff at every equilibrium). In any other game equilibria can pay differently, so runs are
    measured by NashConv, which is 0 exactly at every equilibrium."""
    return tree.num_players == 2 and tree.constant_sum is not None


def _no_value_reason(tree: Tree) -> str:
    return f"{tree.num_players} players" if tree.num_players != 2 else "general-sum"


def ground_truth(
    game: Game | Tree,
    refined: Iterable[str] = (),
    eps: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> GroundTruth:
    """The certified ground truth of ``game``: its exact value from the certified sequence-form
    LP, the exact limit equilibria of the ``refined`` concepts ("efpe", "qpe"), and with ``eps``
    the exact equilibrium of the first concept's eps-perturbed game (``verify``). A game without
    a value (``has_game_value``: more than two players, or two-player general-sum) gets a truth
    without one and nothing is solved: its runs are measured by NashConv and information-set
    regret, which need no ground truth; ``refined`` is refused there (``SeqformError``)."""
    from seqform.solve import solve

    say = progress or (lambda msg: None)
    tree = game if isinstance(game, Tree) else compile_tree(game)
    refined = list(refined)
    if not has_game_value(tree):
        if refined:
            raise SeqformError(
                f"verify: refined ({', '.join(refined)}) measures distances to the exact refined equilibria of "
                f"two-player zero-sum games, and {tree.name!r} ({_no_value_reason(tree)}) is not one"
            )
        say(f"{tree.name} ({_no_value_reason(tree)}) has no game value: runs are measured by NashConv")
        return GroundTruth(tree.name, None, eps=eps, players=int(tree.num_players))
    sol = solve(tree)
    if not sol.certified or sol.value is None:  # (a certified solution has its value)
        raise SeqformError(
            f"verify: the LP value of {tree.name!r} could not be certified, so there is no exact ground truth"
        )
    truth = GroundTruth(tree.name, sol.value, eps=eps)
    for concept in refined:
        if concept not in ("efpe", "qpe"):
            raise SeqformError(f"verify: refined must name efpe or qpe, not {concept!r}")
        from seqform.registry import registry

        refiner = registry().refiners.get(concept)
        if refiner is None:
            raise SeqformError(
                f"verify: the exact {concept.upper()} needs an installed extension that computes "
                f"it (the refinements package: pip install seqform)"
            )
        ref = refiner(tree, concept)
        if ref.exact_profile is None:
            raise SeqformError(
                f"verify: the exact {concept.upper()} of {tree.name!r} is not available: "
                f"{'; '.join(ref.notes) or 'not certified'}"
            )
        truth.targets[concept] = Profile([np.array([float(v) for v in b]) for b in ref.exact_profile.behaviour])
        if eps is not None and truth.perturbed is None:
            say(f"solving the {concept.upper()}-perturbed game exactly at eps={eps:g}")
            truth.perturbed = refiner(tree, concept, eps)
            if not truth.perturbed.certified:
                raise SeqformError(
                    f"verify: the {concept.upper()}-perturbed game at eps={eps:g} could not be "
                    f"certified: {'; '.join(truth.perturbed.notes)}"
                )
    return truth


def verify(
    source: Any,
    game: Game | Tree,
    iterations: int,
    *,
    points: list | None = None,
    refined: Iterable[str] = (),
    eps: float | None = None,
    seed: int = 0,
    seeds: int = 1,
    params: dict | None = None,
    truth: GroundTruth | None = None,
    time_limit: float | None = None,
    progress: Callable[[str], None] | None = None,
    checkpoint: str | Path | VerifyCheckpoint | None = None,
) -> VerifyReport:
    """Run ``source`` for ``iterations`` iterations on ``game`` and measure it at ``points``
    (iteration numbers; default: ``checkpoints(iterations)``) against the certified ground truth
    (module docstring). ``refined``: any of "efpe", "qpe" (distance to that exact limit
    equilibrium; meaningful only where the limit equilibrium is unique). ``eps``: perturbed EGT's
    tremble; with ``refined``, also the tremble of the perturbed game whose exact equilibrium
    (the first refined concept's, certified by trembling best responses) the ``perturbed_*``
    measures compare against. ``seed``: the sampling solvers' (MCCFR).
    ``seeds``: run a built-in solver (``source`` a name) with seeds ``seed .. seed + seeds - 1``
    and report, at each checkpoint, the median of every measure and the 10% and 90% quantiles of
    the banded ones (``BANDED``); the measures stay exact best responses on the full tree.
    ``params``: a built-in solver's constructor arguments (``solver_parameters``). ``truth``: the
    ground truth ``ground_truth(game, refined, eps)`` computed once, instead of ``refined`` and a
    new LP solve. A batched solver (one with a ``batch``) runs whole batches: it is measured at
    the first whole batch at or after each point. ``time_limit``: seconds the run may take; past
    it ``CellTimeout`` is raised (checked between iterations). Ctrl-C stops the run and returns
    what was measured (``interrupted``). ``checkpoint``: a file (or an open
    ``seqform.study.verifycheckpoint.VerifyCheckpoint``, which a command running several
    solvers shares) where the run is saved at measuring points, every ``DEFAULT_EVERY`` seconds
    (the open checkpoint's ``every``) and after each seed's run; when it holds this run
    (``fingerprint``), the run resumes from it and reports what the uninterrupted run would
    have, timings aside. A built-in solver with ``save``/``load`` only (``checkpoint_refusal``)."""
    say = progress or (lambda msg: None)
    tree = game if isinstance(game, Tree) else compile_tree(game)
    if truth is None:
        truth = ground_truth(tree, refined, eps, say)
    if seeds < 1:
        raise SeqformError(f"verify: seeds must be at least 1, got {seeds}")
    if seeds > 1 and not isinstance(source, str):
        raise SeqformError(
            "verify: several seeds need a built-in solver named by a string (a solver object cannot be reseeded)"
        )
    marks = sorted(set(points)) if points is not None else checkpoints(iterations)
    marks = [m for m in marks if 1 <= m <= iterations]
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    ck = _open_checkpoint(checkpoint, source, tree, iterations, marks, eps, seed, seeds, params, truth)
    key = source if isinstance(source, str) else ""
    runs, name, interrupted, t_solver = [], "", False, 0.0
    for done in ck.runs(key)[:seeds] if ck is not None else []:
        runs.append(_saved_points(done, ck))
        t_solver += done["solver_seconds"]
        name = key
    if runs:
        say(f"resuming from {ck.path}: {len(runs)} of {seeds} runs of {key} finished")
    for k in range(len(runs), seeds):
        stepper = _Stepper(source, tree, eps, seed + k, params)
        name = stepper.name
        tell = say if seeds == 1 else (lambda msg, k=k: say(f"seed {seed + k}: {msg}"))
        saver = None if ck is None else _Saver(ck, key, k, stepper, tree, tell)
        pts, secs, interrupted = _run(stepper, tree, marks, truth, tell, deadline, time_limit, saver)
        runs.append(pts)
        t_solver += secs
        if interrupted:
            break
        if ck is not None:
            ck.save_finished(key, [asdict(p) for p in pts], secs)
    report = VerifyReport(
        tree.name,
        name,
        truth.value,
        interrupted=interrupted,
        solver_seconds=t_solver,
        tree_nodes=int(tree.num_nodes),
        players=int(tree.num_players),
    )
    if truth.perturbed is not None:
        report.perturbed = {
            "concept": truth.perturbed.concept,
            "eps": truth.perturbed.eps,
            "value": str(truth.perturbed.value),
        }
    report.points = runs[0] if seeds == 1 else _bands(runs[:-1] if interrupted and len(runs) > 1 else runs)
    for pt in report.points:
        # the papers' bounds are of two-player zero-sum games (in others no-regret learning need
        # not approach an equilibrium at all)
        pt.theorem_bound = exploitability_bound(tree, name, pt.iteration) if truth.has_value else None
    return report


class CellTimeout(SeqformError):
    """A verify run passed its time limit."""


def _run(
    stepper: _Stepper,
    tree: Tree,
    marks: list,
    truth: GroundTruth,
    say,
    deadline: float | None = None,
    time_limit: float | None = None,
    saver: _Saver | None = None,
) -> tuple:
    """One run, measured at ``marks``: (points, seconds inside the solver, interrupted). With a
    ``saver``, the run starts where its checkpoint left it and is saved at measuring points."""
    g = stepper.granularity
    if g > 1:  # measure at the first whole batch at or after each mark
        marks = sorted({-(-m // g) * g for m in marks})
    points: list = []
    t_solver, elapsed, it = 0.0, 0.0, 0
    resumed = saver.restore() if saver is not None else None
    if resumed is not None:
        it, points, t_solver, elapsed = resumed
    t0 = time.perf_counter() - elapsed
    try:
        for m in marks:
            if m <= it:  # measured before the checkpoint
                continue
            while it < m:
                s = time.perf_counter()
                stepper.advance()
                t_solver += time.perf_counter() - s
                it += g
                if deadline is not None and time.perf_counter() > deadline:
                    raise CellTimeout(f"the time limit of {time_limit:g} s passed at iteration {it:,}")
            pt = _measure(stepper, tree, truth, it, t_solver, t0, last=m == marks[-1])
            points.append(pt)
            say(_progress_line(pt))
            if saver is not None and it < marks[-1]:  # the finished run is saved whole by ``verify``
                saver.point(it, points, t_solver, time.perf_counter() - t0)
    except StopIteration:
        say(f"the solver stopped after {it:,} iterations")
    except KeyboardInterrupt:
        say("interrupted: returning what was measured so far")
        return points, t_solver, True
    return points, t_solver, False


def _measure(
    stepper: _Stepper, tree: Tree, truth: GroundTruth, it: int, t_solver: float, t0: float, last: bool
) -> VerifyPoint:
    """The measures of the stepper's average strategies after ``it`` iterations (``seconds``: wall
    time since ``t0``, as the float measures end). In a game without a value, at the ``last``
    point, NashConv and the largest information-set regret also exactly: on
    leduc_poker(players=3) (1.8 million nodes) the exact evaluation took about 37 s against
    0.13 s in floats, too much for every point of a run."""
    prof = stepper.profile()
    ex = exploitability(tree, prof)
    reg = infoset_regret(tree, prof, validate=False)
    values = [float(v) for v in ex.values]
    gap = values[0] - float(truth.value) if truth.value is not None else None
    pt = VerifyPoint(
        it,
        stepper.traversals,
        time.perf_counter() - t0,
        ex.exploitability,
        values[0],
        gap,
        reg.max_regret,
        solver_seconds=t_solver,
    )
    pt.nash_conv, pt.values = float(ex.nash_conv), values
    for concept, target in truth.targets.items():
        setattr(pt, f"{concept}_distance", _distance(prof, target))
    if truth.perturbed is not None:
        for k, v in truth.perturbed.measure(prof).items():
            setattr(pt, k, v)
    solver = stepper.solver
    if solver is not None:
        pt.nodes_touched = getattr(solver, "nodes_touched", None)
        if hasattr(solver, "current_profile"):
            pt.current_exploitability = exploitability(tree, solver.current_profile(), validate=False).exploitability
    if last and truth.value is None:
        from seqform.verify.evaluate import evaluate

        exact = evaluate(tree, prof, exact=True)
        pt.nash_conv_exact, pt.max_infoset_regret_exact = str(exact.nash_conv), str(exact.max_regret)
    return pt


def _progress_line(pt: VerifyPoint) -> str:
    if pt.value_gap is None:
        return (
            f"iteration {pt.iteration:,}: NashConv {pt.nash_conv:.3e}, "
            f"max information-set regret {pt.max_infoset_regret:.3e}"
        )
    return (
        f"iteration {pt.iteration:,}: exploitability {pt.exploitability:.3e}, value gap {pt.value_gap:+.3e}, "
        f"max information-set regret {pt.max_infoset_regret:.3e}"
    )


class _Saver:
    """One run's link to its checkpoint (``verify``'s ``checkpoint``): ``restore`` loads the saved
    progress of run ``run`` of ``key`` into ``stepper``, ``point`` saves it after a measurement
    when the checkpoint is due."""

    def __init__(self, ck: VerifyCheckpoint, key: str, run: int, stepper: _Stepper, tree: Tree, say):
        self.ck, self.key, self.run, self.stepper, self.tree, self.say = ck, key, run, stepper, tree, say

    def restore(self) -> tuple | None:
        """(iteration, points, seconds in the solver, seconds elapsed) saved, or None."""
        state = self.ck.in_progress(self.key, self.run)
        if state is None:
            return None
        solver = solver_from_bytes(type(self.stepper.solver), self.ck.solver, self.tree, self.ck.path)
        self.stepper.restore(solver)
        points = _saved_points(state, self.ck)
        try:
            it, t_solver, elapsed = int(state["iteration"]), float(state["solver_seconds"]), float(state["seconds"])
        except (KeyError, TypeError, ValueError):
            raise CheckpointError(f"{self.ck.path}: not a seqform verify checkpoint (its run is malformed)") from None
        self.say(f"resuming from {self.ck.path} at iteration {it:,}")
        return it, points, t_solver, elapsed

    def point(self, it: int, points: list, t_solver: float, elapsed: float) -> None:
        if self.ck.due():
            state = {
                "iteration": it,
                "points": [asdict(p) for p in points],
                "solver_seconds": t_solver,
                "seconds": elapsed,
            }
            self.ck.save_progress(self.key, self.run, state, self.stepper.solver)


def _saved_points(run: Any, ck: VerifyCheckpoint) -> list:
    """The ``VerifyPoint`` s of a run saved in ``ck`` (``CheckpointError`` for a malformed one)."""
    try:
        if not isinstance(run["solver_seconds"], (int, float)):
            raise TypeError("solver_seconds")
        return [VerifyPoint(**p) for p in run["points"]]
    except (KeyError, TypeError, ValueError):
        raise CheckpointError(f"{ck.path}: not a seqform verify checkpoint (its points are malformed)") from None


def checkpoint_refusal(name: str, tree: Tree, eps: float | None = None) -> str | None:
    """Why the solver ``name`` cannot run with a checkpoint (it has no ``save`` and ``load``:
    OpenSpiel's, an extension's without them), or None when it can."""
    if name.startswith("openspiel-"):
        return f"solver {name!r} (OpenSpiel's) cannot be checkpointed: run it without a checkpoint"
    found = _builtin(name, eps, 0)
    cls = found[0] if found is not None else type(make_solver(name, tree, eps=eps))
    if callable(getattr(cls, "save", None)) and callable(getattr(cls, "load", None)):
        return None
    return f"solver {name!r} has no save/load, so it cannot be checkpointed: run it without a checkpoint"


def fingerprint(
    tree: Tree,
    solvers: Iterable[str],
    iterations: int,
    marks: list,
    *,
    eps: float | None,
    seed: int,
    seeds: int,
    params: dict | None,
    refined: Iterable[str],
) -> dict:
    """What makes two verify runs the same run (``seqform.study.verifycheckpoint``): the game
    (name and ``tree_digest``), the solvers, iterations, measuring points, seeds and options."""
    return {
        "game": tree.name,
        "tree": tree_digest(tree),
        "solvers": list(solvers),
        "iterations": int(iterations),
        "points": digest(np.asarray(marks, dtype=np.int64)),
        "eps": eps,
        "seed": int(seed),
        "seeds": int(seeds),
        "params": json.loads(json.dumps(params or {}, sort_keys=True, default=str)),
        "refined": sorted(refined),
    }


def _open_checkpoint(checkpoint, source, tree: Tree, iterations, marks, eps, seed, seeds, params, truth):
    """``verify``'s checkpoint: None, the open one it was given, or the file opened for this run."""
    if checkpoint is None:
        return None
    if not isinstance(source, str):
        raise CheckpointError(
            "a checkpoint needs a built-in solver named by a string (a solver object cannot be saved and resumed)"
        )
    why = checkpoint_refusal(source, tree, eps)
    if why is not None:
        raise CheckpointError(why)
    if isinstance(checkpoint, VerifyCheckpoint):
        return checkpoint
    refined = sorted(truth.targets) + (["perturbed"] if truth.perturbed is not None else [])
    fp = fingerprint(tree, [source], iterations, marks, eps=eps, seed=seed, seeds=seeds, params=params, refined=refined)
    return VerifyCheckpoint.open(checkpoint, fp)


def _exact_median(vals: list) -> str | None:
    """The exact median of rationals given as strings (the mean of the middle two for an even
    count), as a string; None when any is missing."""
    if not vals or any(v is None for v in vals):
        return None
    q = sorted(Fraction(v) for v in vals)
    k = len(q) // 2
    return str(q[k] if len(q) % 2 else (q[k - 1] + q[k]) / 2)


def _bands(runs: list) -> list:
    """Per checkpoint, the median of every measure across the runs, and the 10% and 90% quantiles
    of the banded ones (numpy's default linear interpolation)."""
    n = min(len(r) for r in runs)
    out = []
    for j in range(n):
        col = [r[j] for r in runs]

        def med(attr):
            vals = [getattr(p, attr) for p in col]
            return None if any(v is None for v in vals) else float(np.median(vals))

        pt = VerifyPoint(
            col[0].iteration,
            col[0].traversals,
            med("seconds"),
            med("exploitability"),
            med("value"),
            med("value_gap"),
            med("max_infoset_regret"),
            med("efpe_distance"),
            med("qpe_distance"),
            None if col[0].nodes_touched is None else int(med("nodes_touched")),
            med("current_exploitability"),
            len(runs),
        )
        for attr in (
            "perturbed_exploitability",
            "perturbed_value_gap",
            "perturbed_max_infoset_regret",
            "tremble_violation",
            "solver_seconds",
            "nash_conv",
        ):
            setattr(pt, attr, med(attr))
        if all(p.values is not None for p in col):
            pt.values = [float(v) for v in np.median([p.values for p in col], axis=0)]
        for attr in ("nash_conv_exact", "max_infoset_regret_exact"):
            setattr(pt, attr, _exact_median([getattr(p, attr) for p in col]))
        for attr in BANDED:
            vals = [getattr(p, attr) for p in col]
            if any(v is None for v in vals):  # no value gap without a game value
                continue
            setattr(pt, f"{attr}_q10", float(np.quantile(vals, 0.1)))
            setattr(pt, f"{attr}_q90", float(np.quantile(vals, 0.9)))
        out.append(pt)
    return out


__all__ = [
    "verify",
    "ground_truth",
    "GroundTruth",
    "VerifyReport",
    "VerifyPoint",
    "CellTimeout",
    "SOLVERS",
    "SAMPLED",
    "DETERMINISTIC",
    "all_solvers",
    "make_solver",
    "solver_parameters",
    "checkpoints",
    "checkpoint_refusal",
    "has_game_value",
    "solver_refusal",
    "nash_conv_lines",
    "no_value_line",
    "fingerprint",
]

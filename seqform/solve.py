"""``seqform.solve``: exact Nash equilibria of two-player games.

Zero-sum (constant-sum): game -> ``compile_tree`` -> ``sequence_form`` -> HiGHS LP -> exact
certificate -> ``Solution``. General-sum: game -> ``compile_tree`` -> the sequence-form LCP ->
Lemke's algorithm in exact arithmetic -> exact best responses -> ``GeneralSumSolution``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from seqform.errors import CertificateError, SolverError, TimeLimitError, UnsupportedGameError
from seqform.exact.backwardinduction import backward_induction, is_perfect_information
from seqform.exact.certificate import DEFAULT_EXACT_LIMIT, Certificate, ExactSequenceForm, certify, exact_bracket
from seqform.exact.rationals import fraction_of
from seqform.lp.sequenceform import sequence_form
from seqform.lp.zerosumlp import solve_lp
from seqform.model.game import Game
from seqform.model.limits import BYTES_PER_NODE, check_lp, memory_limit
from seqform.model.strategy import (
    Profile,
    behaviour_from_realization,
    behaviour_from_realization_exact,
    realization_plan_exact,
)
from seqform.model.tree import Tree, compile_tree
from seqform.result import Result, format_sizes, number, seconds_text, table
from seqform.verify.exploitability import exploitability as _exploitability


@dataclass(kw_only=True)
class Solution(Result):
    """A solved two-player zero-sum game. Values are player 0's.

    ``value``: the exact game value (Fraction) when ``certified``, else None; ``value_float``: the
    exact value's nearest float when certified, else the LP's value, or the exact bracket's
    midpoint when the LP's lies outside that bracket or the LP stopped at its time limit (a float
    we print never contradicts our own exact check). ``method``: "lp-simplex", "lp-ipm", ...,
    "backward-induction"; when the LP's basis failed its exact check, "lp-exact-simplex" (the
    simplex method went on from it in rational arithmetic) or "lcp" (the game was solved again
    by Lemke's algorithm); ``certificate.note`` says why. ``exploitability``: of the
    returned profile, (NashConv)/2 in floats, measured by best responses on the tree;
    ``exploitability_bound``: exact, rigorous upper bound (0 when certified; see ``certificate``).
    ``profile``: behavioural strategies (floats); ``realization``: the float plans [x, y];
    ``exact_realization``: the verified rational plans [x, y] (Fractions) or None.
    ``exact_behaviour``: per player, exact behavioural strategies (Fractions per sequence) defined
    at every information set, when the method has them (backward induction), else None. ``sizes``,
    ``seconds`` (build, solve, certify, exploitability, and total: the whole call, glue included)
    and the ``certificate`` with its details.

    At information sets a player's own play excludes (its plan gives them probability 0), the
    realization plans say nothing, and the strategies report:

    * backward induction (method "backward-induction"): the optimal action, as at every other
      information set (``exact_behaviour``): the profile is a subgame-perfect equilibrium,
      optimal in every subgame (Kuhn 1953, "Extensive Games and the Problem of Information";
      Selten 1975, "Reexamination of the Perfectness Concept for Equilibrium Points in Extensive
      Games");
    * every other method (the LP, "lp-..."; the LCP, "lcp"): the uniform distribution, derived
      from the plans (``seqform.model.strategy.behaviour_from_realization``). A Nash equilibrium
      says nothing off its own path; the refined equilibria of ``refinements`` choose there.

    The certificate verifies the realization plans, which is all a Nash equilibrium's value and
    exploitability depend on.
    """

    value_float: float
    exploitability: float
    exploitability_bound: Fraction | None
    profile: Profile
    realization: list
    exact_realization: list | None
    certificate: Certificate | None = None
    method: str = "lp"
    exact_behaviour: list | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # the common fields this result derives: the certificate's bracket and note, and the
        # certified strategies as exact behavioural strategies (Fractions): ``exact_behaviour``
        # when the method has it (backward induction: the optimal action at every information
        # set), else derived from ``exact_realization`` (uniform where a player's own plan does
        # not reach); None when not certified
        if self.certificate is not None:
            self.lower, self.upper = self.certificate.lower, self.certificate.upper
            self.notes = [self.certificate.note] if self.certificate.note else []
        if self.exact_profile is None and self.exact_realization is not None and self.tree is not None:
            if self.exact_behaviour is not None:
                self.exact_profile = Profile([list(b) for b in self.exact_behaviour])
            else:
                self.exact_profile = Profile(
                    [behaviour_from_realization_exact(self.tree, p, x) for p, x in enumerate(self.exact_realization)]
                )

    def json_fields(self) -> dict:
        out: dict = {"exploitability_bound": self.exploitability_bound}
        if self.certificate is not None:
            out["certificate"] = {
                "method": self.certificate.method,
                "basis_size": self.certificate.basis_size,
                "lower": self.certificate.lower,
                "upper": self.certificate.upper,
                "note": self.certificate.note,
            }
        return out

    def summary(self, rationals: bool = False) -> str:
        cert = self.certificate
        rows = [("game", self.game), ("sizes", format_sizes(self.sizes))]
        if self.certified:
            assert cert is not None
            rows.append(("value", number(self.value, rationals, "player 0")))
            how = {
                "backward-induction": "backward induction",
                "lcp": "the LP's basis did not certify; Lemke's algorithm in exact arithmetic",
                "exact-simplex": "the LP's basis did not certify; the simplex method in exact arithmetic from it",
                "abstraction": cert.note,
            }.get(cert.method, f"basis of {cert.basis_size:,} unknowns")
            rows.append(
                ("certificate", f"exact: both strategies verified, exact best responses meet at the value ({how})")
            )
        elif cert is None:
            rows.append(("value", f"{self.value_float:.12g}  (float, player 0; not certified: --no-certify)"))
        else:
            # the exact bracket is what is known: the float value shown lies inside it (solve)
            rows.append(
                (
                    "value",
                    f"{float(cert.lower):.12g} <= value <= {float(cert.upper):.12g}  (exact "
                    f"bracket, player 0; not certified; estimate {self.value_float:.12g})",
                )
            )
            rows.append(("certificate", f"none: {cert.note}"))
        rows.append(("exploitability", self._exploitability_text()))
        rows.append(("seconds", seconds_text(self.seconds)))
        return table(rows)

    def _exploitability_text(self) -> str:
        # the exact bound is what the certificate proves (the JSON's exploitability_bound); the
        # float best responses' measure, which rounding makes 1e-17 rather than 0, is a detail
        bound = self.exploitability_bound
        if bound is None:
            return f"{self.exploitability:.3g}  (float best responses; no exact bound: --no-certify)"
        if bound == 0:
            return "0  (exact)"
        return f"<= {float(bound):.3g}  (exact bound; float best responses measure {self.exploitability:.3g})"


def solve(
    game: Game | Tree,
    *,
    method: str = "auto",
    certify_exact: bool = True,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    time_limit: float | None = None,
    memory_limit_gib: float | None = None,
    progress: Callable[[str], None] | None = None,
    abstraction: bool | str = "auto",
) -> Solution | GeneralSumSolution:
    """Solve a two-player game: value and equilibrium strategies, certified exactly (a
    ``Solution`` for a constant-sum game, a ``GeneralSumSolution`` otherwise).

    The sequence-form LP (Koller, Megiddo & von Stengel 1996, "Efficient Computation of
    Equilibria for Extensive Two-Person Games") is solved by HiGHS; its optimal basis is then
    solved again in rational arithmetic and verified independently: both plans are exact
    realization plans and both exact best responses meet at the value
    (``seqform.exact.certificate``). A game of perfect information is solved by exact backward
    induction instead (Kuhn 1953, "Extensive Games and the Problem of Information"), and its
    pure strategies are verified the same way.

    Parameters
    ----------
    game : Game or Tree
        A two-player constant-sum game, or its compiled tree.
    method : str
        "lcp" (the sequence-form LCP by Lemke's algorithm, exact: ``seqform.exact.sequenceformlcp``;
        for any two-player game), "backward-induction" (games of perfect information only:
        ``seqform.exact.backwardinduction``, exact and linear in the tree, no LP), or the LP
        algorithm: "simplex", "ipm" (with crossover), "choose" (HiGHS decides). "auto": the LCP
        for a two-player game that is not constant-sum, backward induction for a game of perfect
        information, else "ipm" for dense LPs and "simplex" for the others
        (``seqform.lp.zerosumlp.auto_method``); for a game of imperfect information with more
        than two players, "cfr+-polish" (CFR+'s average polished on its support into an exact
        rational equilibrium, ``seqform.exact.nplayerpolish``, with support enumeration,
        ``seqform.exact.supportenumeration``, when the first polish fails; within ``time_limit``,
        default ``POLISH_SECONDS``; it may be asked for on any small game), or
        "support-enumeration" alone.
    certify_exact : bool
        Verify in rational arithmetic (``seqform.exact.certificate.certify``).
    exact_limit : int
        Most nonzeros the exact basis elimination may store; past it the float strategies are
        rounded and bracketed exactly instead.
    time_limit : float, optional
        Seconds HiGHS may take (for "cfr+-polish": CFR+ and the polish together).
    memory_limit_gib : float, optional
        Refuse a game whose tree or LP would need more (default:
        ``seqform.model.limits.memory_limit()``).
    progress : callable, optional
        ``progress(message)`` is told each step.
    abstraction : bool or "auto", default "auto"
        For a game that declares ordered signals (``seqform.model.game.Game.ordered_signals``,
        e.g. Leduc), solve the LP of its lossless abstraction (GameShrink: Gilpin & Sandholm
        2007, "Lossless Abstraction of Imperfect Information Games"; the ``lossless``
        extension) instead of the game's own, and certify the lifted strategies in the game
        itself with exact best responses. Strategies that do not certify fall back to the
        game's own LP. "auto": when the game's own LP has at least ``ABSTRACTION_MIN_ROWS``
        rows (below it the game's own LP is as fast); True: always; False: never.

    Returns
    -------
    Solution or GeneralSumSolution
        A ``seqform.Result``. For a constant-sum game solved by the LP or by backward induction,
        a ``Solution``: ``value`` (exact, player 0's) when ``certified``, ``profile``,
        ``exact_profile``, ``exploitability``, ``sizes``, ``seconds``, ``certificate``. For a
        game that is not constant-sum, or with ``method="lcp"``, a ``GeneralSumSolution``:
        ``values`` (exact, one per player), ``nash_conv``, ``profile``, ``exact_realization``.

    Raises
    ------
    UnsupportedGameError
        The game does not suit the method: the LP methods need two players and a constant sum,
        the LCP two players; a game of imperfect information with more than two players has more
        sequences and information sets than "cfr+-polish" takes.
    TooLargeError
        The tree or the LP would not fit in the memory limit (stating the estimate).
    SolverError
        HiGHS did not reach an optimum.

    Examples
    --------
    >>> import seqform
    >>> sol = seqform.solve(seqform.games.load("kuhn"))
    >>> sol.certified, sol.value
    (True, Fraction(-1, 18))
    """
    t0 = time.perf_counter()
    budget = memory_limit(memory_limit_gib)
    say = progress or (lambda msg: None)
    secs: dict = {}
    if isinstance(game, Tree):
        tree = game
    else:
        _check_lp_hint(game, method, budget)
        say(f"building {game.name}")
        tree = compile_tree(game, progress=lambda n: say(f"building: {n:,} nodes"), memory_limit_bytes=budget)
    zero_sum = tree.num_players == 2 and tree.constant_sum is not None
    if method == "lcp":
        return _solve_by_lcp(tree, t0, secs, say, budget)
    if method == "backward-induction" or (method == "auto" and is_perfect_information(tree)):
        if not zero_sum:
            return _solve_by_subgame_perfect(tree, t0, secs, say)
        return _solve_by_backward_induction(tree, certify_exact, t0, secs, say)
    if method == "auto" and tree.num_players == 2 and not zero_sum:  # general-sum, imperfect information
        return _solve_by_lcp(tree, t0, secs, say, budget)
    if method in ("cfr+-polish", "support-enumeration") or (method == "auto" and tree.num_players > 2):
        return _solve_by_polish(
            tree, t0, secs, say, time_limit, "support-enumeration" if method == "support-enumeration" else "cfr+-polish"
        )
    sf = sequence_form(tree)
    secs["build"] = time.perf_counter() - t0
    own_rows = sf.E.shape[0] + sf.F.shape[1]
    wanted = abstraction is True or (abstraction == "auto" and own_rows >= ABSTRACTION_MIN_ROWS)
    if wanted and zero_sum and not isinstance(game, Tree) and game.ordered_signals() is not None:
        options = dict(
            method=method,
            certify_exact=certify_exact,
            exact_limit=exact_limit,
            time_limit=time_limit,
            memory_limit_bytes=budget,
            progress=say,
        )
        reduced = _solve_by_abstraction(game, tree, sf, options, t0, secs)
        if reduced is not None:
            return reduced
    rows, cols = sf.E.shape[0] + sf.F.shape[1], sf.E.shape[1] + sf.F.shape[0]
    check_lp(tree.name, rows, cols, sf.E.nnz + sf.F.nnz + sf.A.nnz, budget, tree.num_nodes * BYTES_PER_NODE)
    say(f"solving LP ({cols:,} columns, {rows:,} rows)")
    lp = solve_lp(sf, method=method, time_limit=time_limit)
    secs["solve"] = lp.seconds
    cert = None
    if certify_exact or lp.stopped:  # a stopped LP's bracket is what the stop knows
        say("certifying in exact arithmetic" if not lp.stopped else f"{lp.stopped}: bracketing the value exactly")
        cert = certify(sf, lp, exact_limit)
        if cert.basis_failed and not cert.certified:  # the floats were wrong, not too large to check
            cert = _repaired(tree, sf, lp, cert, budget, say)
        secs["certify"] = cert.seconds
    # the bound is about the rounded (or the repaired) plans: return those, not the LP's floats;
    # player 1's payoff is constant_sum - player 0's: the LP value is player 0's in either case
    xs = [lp.x, lp.y]
    if cert is not None and cert.method in ("rounded", "lcp", "exact-simplex"):
        xs = [np.array([float(v) for v in cert.x]), np.array([float(v) for v in cert.y])]
    profile = Profile([behaviour_from_realization(tree, p, xs[p]) for p in range(2)])
    t_expl = time.perf_counter()
    expl = _exploitability(tree, profile).exploitability
    secs["exploitability"] = time.perf_counter() - t_expl
    # the parts above leave out the glue between them (LP matrix assembly, behavioural strategies):
    # "total" is the whole call
    secs["total"] = time.perf_counter() - t0
    repaired = cert is not None and cert.method in ("lcp", "exact-simplex")
    proved = cert if cert is not None and cert.certified else None
    how = {"lcp": "lcp", "exact-simplex": "lp-exact-simplex"}.get(cert.method if cert else "", f"lp-{lp.method}")
    return Solution(
        game=tree.name,
        value=proved.value if proved else None,
        value_float=_value_float(lp, cert),
        certified=proved is not None,
        exploitability=float(expl),
        exploitability_bound=None if cert is None else cert.exploitability,
        profile=profile,
        realization=xs if repaired else [lp.x, lp.y],
        exact_realization=[proved.x, proved.y] if proved else None,
        sizes=tree.sizes(),
        seconds=secs,
        certificate=cert,
        tree=tree,
        method=how,
    )


#: ``solve(abstraction="auto")`` solves a game that declares ordered signals through its lossless
#: abstraction when the game's own LP has at least this many rows. Measured with
#: bench/bench_solve.py: Leduc (1,562 rows) took 0.31 s through the abstraction, about what its
#: own LP takes (registry, GameShrink, the exact basis and the lift cost what the smaller LP saves);
#: Leduc with 5 ranks (4,602 rows) 0.71 s against 1.9 s.
ABSTRACTION_MIN_ROWS = 2_500


def _solve_by_abstraction(game: Game, tree: Tree, sf, options: dict, t0: float, secs: dict) -> Solution | None:
    """The game solved through the first registered abstraction that applies to it
    (``seqform.registry``: ``lossless`` registers GameShrink's), its lifted plans certified here,
    in the game's own tree: both plans exact realization plans and both exact best responses
    meeting (``seqform.exact.certificate.certify_plans``), so nothing about the abstraction is
    trusted. None when no abstraction applies or its plans do not certify: the caller then
    solves the game's own LP."""
    from seqform.exact.certificate import certify_plans
    from seqform.registry import registry

    say = options["progress"]
    for name, function in registry().abstractions.items():
        found = function(game, tree, **options)
        if found is None:
            continue
        secs.update(found.seconds)
        cert = None
        xs = [np.asarray([float(v) for v in plan]) for plan in found.plans]
        if options["certify_exact"]:
            if not found.exact:
                continue
            say("certifying the lifted strategies in exact arithmetic")
            t = time.perf_counter()
            try:
                cert = certify_plans(sf, found.plans[0], found.plans[1], "abstraction", note=found.note)
            except CertificateError as e:  # the lifted plans are not realization plans here
                say(f"the {name} abstraction's strategies are not this game's: {e}")
                continue
            secs["certify"] = time.perf_counter() - t
            if not cert.certified:
                say(f"the {name} abstraction's strategies did not certify: solving the game's own LP")
                continue
        return _abstraction_solution(tree, xs, cert, found, t0, secs)
    return None


def _abstraction_solution(tree: Tree, xs: list, cert: Certificate | None, found, t0: float, secs: dict) -> Solution:
    """The ``Solution`` of plans an abstraction found, certified (``cert``) or floats."""
    profile = Profile([behaviour_from_realization(tree, p, xs[p]) for p in range(2)])
    t = time.perf_counter()
    expl = _exploitability(tree, profile)
    secs["exploitability"] = time.perf_counter() - t
    secs["total"] = time.perf_counter() - t0
    value = float(cert.value) if cert is not None and cert.value is not None else float(expl.values[0])
    return Solution(
        game=tree.name,
        value=cert.value if cert is not None else None,
        value_float=value,
        certified=cert is not None,
        exploitability=float(expl.exploitability),
        exploitability_bound=None if cert is None else cert.exploitability,
        profile=profile,
        realization=xs,
        exact_realization=[cert.x, cert.y] if cert is not None else None,
        sizes=tree.sizes(),
        seconds=secs,
        certificate=cert,
        tree=tree,
        method=f"abstraction-lp-{found.lp_method}",
    )


def _value_float(lp, cert: Certificate | None) -> float:
    """The float value to report: the exact value's nearest float when certified; else the LP's,
    unless our own exact bracket contradicts it or the LP stopped at its time limit, and then
    the bracket's midpoint rounded, which lies between the bracket's ends rounded (a bracket
    may be narrower than the gap between floats), so a float we print never contradicts our
    exact check."""
    if cert is None:
        return lp.value
    if cert.certified and cert.value is not None:  # (a certified bracket has its value)
        return float(cert.value)
    if lp.stopped or not cert.lower <= Fraction(lp.value) <= cert.upper:
        return float((cert.lower + cert.upper) / 2)
    return lp.value


#: The exact simplex that repairs a basis that did not certify (``_repaired_by_simplex``) may
#: take this many pivots per row of the LP before the repair falls back to Lemke's algorithm.
#: Measured with payoffs spread over 1 to 10^16 or 10^300 (``bench/bench_wide_payoffs.py``):
#: Liar's Dice 1x3 (287 rows) needed 179 to 556 pivots, Leduc with 2 ranks (642 rows) 2,162.
SIMPLEX_REPAIR_PIVOTS_PER_ROW = 10

#: The exact repair by Lemke's algorithm (``_repaired_by_lcp``, when the exact simplex did not
#: finish) pivots a dense
#: integer tableau only while it has at most this many entries (about 2 (sequences + information
#: sets)^2); past it the float path's end must verify, else the exact bracket is reported.
#: Measured on 2 busy cores with payoffs spread over 1 to 10^300: Liar's Dice 1x2 (94 sequences
#: and information sets) in 7 s, FlipIt of depth 3 (392) in 69 s; Liar's Dice 1x3 (572) did not
#: finish in 600 s.
LCP_REPAIR_ENTRIES = 400_000


def _repaired(tree: Tree, sf, lp, cert: Certificate, budget: int, say) -> Certificate:
    """The game solved again exactly when the LP's basis did not certify (``cert``): payoffs
    whose magnitudes span more than a float LP resolves (10^16 beside single digits: HiGHS
    drops or rounds the small ones) leave HiGHS at a basis that is not optimal in rationals.
    First the exact simplex from HiGHS's basis (``_repaired_by_simplex``); if it does not finish,
    Lemke's algorithm (``_repaired_by_lcp``)."""
    out = _repaired_by_simplex(sf, lp, cert, say)
    return out if out.certified else _repaired_by_lcp(tree, sf, out, budget, say)


def _repaired_by_simplex(sf, lp, cert: Certificate, say) -> Certificate:
    """The LP solved in rational arithmetic by the primal simplex, from the basis HiGHS returned
    (``seqform.exact.exactsimplex``; Applegate, Cook, Dash & Espinoza 2007, "Exact solutions to
    linear programming problems"), its plans verified like any basis (``certify_plans``).
    Returns that certificate, or ``cert`` with a note when the simplex does not finish."""
    from seqform.exact.certificate import ExactSequenceForm, certify_plans, repair_basis
    from seqform.exact.exactsimplex import PivotLimit
    from seqform.exact.sparselu import TooLarge

    t = time.perf_counter()
    rows = sf.E.shape[0] + sf.F.shape[1]
    say("the LP's basis did not certify: pivoting from it in exact arithmetic")
    try:
        ex = ExactSequenceForm(sf)
        x, y, pivots = repair_basis(
            sf,
            lp,
            max_pivots=SIMPLEX_REPAIR_PIVOTS_PER_ROW * rows,
            ex=ex,
            progress=lambda k: say(f"exact simplex: {k:,} pivots"),
        )
        out = certify_plans(
            sf,
            x,
            y,
            "exact-simplex",
            ex=ex,
            seconds=cert.seconds + time.perf_counter() - t,
            note=f"the LP's basis did not certify ({cert.note}); the exact simplex reached an "
            f"optimal basis from it in {pivots:,} pivots",
        )
    except (PivotLimit, TooLarge, CertificateError) as e:
        cert.note += f"; the exact simplex from HiGHS's basis did not finish: {e}"
        return cert
    return out if out.certified else cert


def _repaired_by_lcp(tree: Tree, sf, cert: Certificate, budget: int, say) -> Certificate:
    """The game solved again exactly when the LP's basis did not certify (``cert``): payoffs
    whose magnitudes span more than a float LP resolves (10^16 beside single digits: HiGHS
    drops or rounds the small ones) leave HiGHS at a basis that is not optimal in rationals.
    Lemke's algorithm on the sequence-form LCP (``seqform.exact.sequenceformlcp``: its path in
    floating point with the end solved and checked exactly, else integer pivoting, nothing
    rounded) finds a Nash equilibrium, and in a zero-sum game every Nash equilibrium is a pair
    of optimal strategies (von Neumann's minimax theorem), so its plans, verified by exact best
    responses like any basis (``certify_plans``), give the exact value. Returns that
    certificate, or ``cert`` with a note when the repair does not apply (too large, or it fails)."""
    from seqform.exact.certificate import certify_plans
    from seqform.exact.sequenceformlcp import solve_lcp
    from seqform.model.limits import BYTES_PER_LCP_ENTRY, TooLargeError

    t = time.perf_counter()
    say("solving the game again exactly by Lemke's algorithm")
    # the dense tableau's bytes at LCP_REPAIR_ENTRIES (check_lcp's estimate), within the budget
    limit = min(budget, LCP_REPAIR_ENTRIES * BYTES_PER_LCP_ENTRY)
    # integer pivoting all along when its tableau fits (the float path is what a wide range of
    # magnitudes defeats); past that, the float path, whose end is checked exactly
    n = int(sum(tree.num_sequences)) + sum(len(tree.player_infosets[p]) for p in range(2))
    method = "exact" if 2 * n * n <= LCP_REPAIR_ENTRIES else "auto"
    try:
        eq = solve_lcp(tree, method=method, memory_limit_bytes=limit, progress=say)
        out = certify_plans(
            sf,
            eq.plans[0],
            eq.plans[1],
            "lcp",
            seconds=cert.seconds + time.perf_counter() - t,
            note=f"the LP's basis did not certify ({cert.note}); solved again exactly by Lemke's "
            f"algorithm, {eq.pivots:,} pivots",
        )
    except (TooLargeError, SolverError, CertificateError, OverflowError) as e:
        # OverflowError: the floating-point path cannot hold payoffs near 10^300 once they are
        # brought to a common denominator
        why = f"Lemke's floating-point path cannot hold these payoffs ({e})" if isinstance(e, OverflowError) else e
        # the double oracle solves restricted games small enough for the exact repair, and
        # certified Liar's Dice 1x3 with payoffs spread over 1 to 10^300 where this could not
        cert.note += (
            f"; no exact repair: {why}; the double oracle (seqform solve --method doracle) may still certify it"
        )
        return cert
    return out if out.certified else cert


@dataclass(kw_only=True)
class GeneralSumSolution(Result):
    """A Nash equilibrium of a game that need not be two-player zero-sum: the sequence-form LCP
    solved by Lemke's algorithm in exact arithmetic (``seqform.exact.sequenceformlcp``; method
    "lcp"), or, for a game of perfect information with any number of players, a subgame-perfect
    equilibrium by backward induction (method "backward-induction"; no pivots), or, for a small
    game of imperfect information with more than two players, CFR+'s average polished into an
    exact equilibrium (method "cfr+-polish": ``seqform.exact.nplayerpolish``; no pivots).

    ``values``: each player's exact expected payoff (Fractions); ``value`` is player 0's.
    ``certified``: every player's exact best response gains exactly 0 over the profile
    (``nash_conv`` is then exactly 0). ``exact_realization``: the rational plans, one per player;
    ``profile``: float behavioural strategies; ``exact_behaviour``: per player, exact behavioural
    strategies defined at every information set (backward induction), else None. ``pivots``:
    Lemke's complementary pivots; ``lcp_size``: (equations, variables); ``prior_seed``: the seed
    of the prior behind the covering vector; ``lcp_path``: "floating point" (the path followed in
    floats, its final basis solved and checked exactly) or "exact" (integer pivoting all along).

    At information sets a player's own play excludes, backward induction's ``profile`` and
    ``exact_profile`` play the optimal action, so the profile is subgame perfect (Kuhn 1953,
    "Extensive Games and the Problem of Information"; Selten 1975, "Reexamination of the
    Perfectness Concept for Equilibrium Points in Extensive Games"); the LCP's are uniform there,
    derived from the plans, which say nothing off the player's own path (nor does a Nash
    equilibrium)."""

    values: list
    nash_conv: Fraction
    profile: Profile
    exact_realization: list
    pivots: int | None = None
    lcp_size: tuple | None = None
    prior_seed: int | None = None
    method: str = "lcp"
    lcp_path: str | None = None
    exact_behaviour: list | None = field(default=None, repr=False)
    notes: tuple[str, ...] | list[str] = ("general-sum: value is player 0's payoff; values lists every player's",)
    #: an equilibrium whose probabilities are irrational, exact in a real number field
    #: (``seqform.exact.nplayeralgebraic.AlgebraicEquilibrium``); ``values`` and
    #: ``exact_realization`` then hold ``AlgebraicNumber``s where irrational, and ``exact_profile``
    #: is None (``profile``, in floats, is what ``--strategy`` writes)
    algebraic: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # the common fields this result derives: player 0's value, the exploitability (NashConv / N,
        # OpenSpiel's definition, as a float), and the exact behavioural strategies
        # (``exact_behaviour`` when the method has it, backward induction: the optimal action
        # everywhere; else derived from ``exact_realization``, uniform where a player's own plan
        # does not reach)
        self.value = self.values[0]
        self.value_float = float(self.values[0])
        self.exploitability = float(self.nash_conv) / len(self.values)
        if self.exact_profile is None and self.algebraic is None:
            if self.exact_behaviour is not None:
                self.exact_profile = Profile([list(b) for b in self.exact_behaviour])
            elif self.tree is not None:
                self.exact_profile = Profile(
                    [behaviour_from_realization_exact(self.tree, p, x) for p, x in enumerate(self.exact_realization)]
                )

    def json_fields(self) -> dict:
        return {
            "values": list(self.values),
            "values_float": [float(v) for v in self.values],
            "nash_conv": self.nash_conv,
            "pivots": self.pivots,
            "lcp_size": None if self.lcp_size is None else list(self.lcp_size),
            "prior_seed": self.prior_seed,
            "lcp_path": self.lcp_path,
            **({"algebraic": self._algebraic_json()} if self.algebraic is not None else {}),
        }

    def _algebraic_json(self) -> dict:
        """The number field and the exact behavioural strategies of an irrational equilibrium."""
        from seqform.exact.algebraic import AlgebraicNumber

        eq = self.algebraic
        alpha = AlgebraicNumber.of(eq.field.alpha()).to_json()
        return {
            "field": {"minimal_polynomial": alpha["minimal_polynomial"], "interval": alpha["interval"]},
            "behaviour": [eq.numbers(b) for b in eq.behaviour],
        }

    def summary(self, rationals: bool = False) -> str:
        rows = [("game", self.game), ("sizes", format_sizes(self.sizes))]
        for p, v in enumerate(self.values):
            rows.append(("value", number(v, rationals, f"player {p}")))
        if self.method == "lcp":
            assert self.pivots is not None and self.lcp_size is not None
            how = f"Lemke's algorithm, {self.pivots:,} pivots on an LCP of {self.lcp_size[0]:,} equations" + (
                " (path in floating point, final basis solved exactly)" if self.lcp_path == "floating point" else ""
            )
        elif self.method in ("cfr+-polish", "support-enumeration"):
            how = (
                "CFR+'s average polished on its support"
                if self.method == "cfr+-polish"
                else "support enumeration, the support's equations solved"
            )
            if self.algebraic is not None:
                from seqform.exact.algebraic import polynomial_text

                field = polynomial_text(self.algebraic.field.minpoly.coeffs())
                how += f"; irrational, exact in Q(alpha), alpha a root of {field}"
            else:
                how += " into exact rationals"
            how += " (a Nash equilibrium; not a refinement)"
        else:
            how = "backward induction: subgame perfect"
        rows.append(
            (
                "certificate",
                f"exact: each player's exact best response gains exactly 0 (NashConv "
                f"{number(self.nash_conv, rationals)}); {how}",
            )
        )
        # certified: every exact gain is 0, so NashConv / N is exactly 0 (the JSON's nash_conv)
        rows.append(("exploitability", number(self.nash_conv / len(self.values), rationals, "exact")))
        rows.append(("seconds", seconds_text(self.seconds)))
        return table(rows)


def _general_sum_solution(
    tree: Tree, plans: list, what: str, t0: float, secs: dict, say, behaviour: list | None = None, **found
) -> GeneralSumSolution:
    """The exact plans ``plans`` (one per player) certified by exact best responses
    (``seqform.verify.evaluate``: an evaluation independent of how they were found, which must
    gain exactly 0 for every player) and returned as a ``GeneralSumSolution``; ``behaviour``: the
    method's own exact behavioural strategies, whose plans are ``plans`` (else they are derived
    from the plans); ``found`` are the method's own fields (``method``, ``pivots``, ...).
    ``what`` names the method in an error."""
    from seqform.verify.evaluate import evaluate

    exact_profile = Profile(
        behaviour
        if behaviour is not None
        else [behaviour_from_realization_exact(tree, p, x) for p, x in enumerate(plans)]
    )
    say("certifying in exact arithmetic: exact best responses")
    t = time.perf_counter()
    ev = evaluate(tree, exact_profile, exact=True)
    secs["certify"] = time.perf_counter() - t
    if any(g != 0 for g in ev.gains):
        # both methods end at an exact equilibrium: a gain is a defect, not a tolerance
        raise SolverError(
            f"{what} on {tree.name} failed its verification: best responses gain {', '.join(str(g) for g in ev.gains)}"
        )
    profile = Profile([np.array([float(v) for v in b]) for b in exact_profile.behaviour])
    secs["total"] = time.perf_counter() - t0
    return GeneralSumSolution(
        game=tree.name,
        values=[fraction_of(v) for v in ev.values],
        certified=True,
        nash_conv=Fraction(0),
        profile=profile,
        exact_realization=[[fraction_of(v) for v in x] for x in plans],
        sizes=tree.sizes(),
        seconds=secs,
        tree=tree,
        exact_behaviour=behaviour,
        **found,
    )


def _check_lp_hint(game: Game, method: str, budget: int) -> None:
    """A game that knows its sequence-form LP's size without being built (an optional
    ``lp_size_hint()``: rows, columns and the nonzeros of E and F, a lower bound of the LP's) is
    refused at once, with the LP's estimate, when even that much could not fit."""
    hint = getattr(game, "lp_size_hint", None)
    if method in ("lcp", "backward-induction") or not callable(hint):
        return
    sizes = hint()
    if sizes is not None:
        rows, cols, nonzeros = sizes
        check_lp(game.name, rows, cols, nonzeros, budget, what="the sequence-form LP (counting its constraints alone)")


def _solve_by_lcp(tree: Tree, t0: float, secs: dict, say, budget: int) -> GeneralSumSolution:
    """``solve`` for a two-player game by the sequence-form LCP (exact), certified by exact best
    responses."""
    from seqform.exact.sequenceformlcp import solve_lcp

    secs["build"] = time.perf_counter() - t0
    t = time.perf_counter()
    eq = solve_lcp(tree, memory_limit_bytes=budget, progress=say)
    secs["solve"] = time.perf_counter() - t
    return _general_sum_solution(
        tree,
        eq.plans,
        "the LCP equilibrium",
        t0,
        secs,
        say,
        method="lcp",
        pivots=eq.pivots,
        lcp_size=eq.size,
        prior_seed=eq.seed,
        lcp_path=eq.path,
    )


def _solve_by_subgame_perfect(tree: Tree, t0: float, secs: dict, say) -> GeneralSumSolution:
    """``solve`` for a game of perfect information that is not two-player constant-sum: a pure
    subgame-perfect equilibrium by backward induction (``seqform.exact.backwardinduction``),
    certified by exact best responses of every player, whose values must be backward induction's.
    Its behaviour is backward induction's own, the optimal action at every information set."""
    from seqform.exact.backwardinduction import subgame_perfect

    secs["build"] = time.perf_counter() - t0
    say("solving by backward induction (every player maximises its own payoff)")
    t = time.perf_counter()
    sp = subgame_perfect(tree)
    secs["solve"] = time.perf_counter() - t
    plans = [realization_plan_exact(tree, p, sp.behaviour[p]) for p in range(tree.num_players)]
    sol = _general_sum_solution(
        tree,
        plans,
        "backward induction",
        t0,
        secs,
        say,
        method="backward-induction",
        behaviour=_exact_behaviour(sp.behaviour),
    )
    if sol.values != [fraction_of(v) for v in sp.values]:
        raise SolverError(
            f"backward induction on {tree.name} failed its verification: values {sp.values}, evaluated {sol.values}"
        )
    return sol


#: CFR+ iterations after which the average is polished, in turn, for a game of more than two players
POLISH_AFTER = (500, 2000, 8000)
#: seconds for CFR+ and the polish together when ``solve`` is given no time limit
POLISH_SECONDS = 60.0
#: when the first polish fails, support enumeration gets this share of the time left, at most
#: ``ENUMERATION_SECONDS``, before CFR+ goes on
ENUMERATION_SHARE, ENUMERATION_SECONDS = 1 / 3, 20.0


def _solve_by_polish(
    tree: Tree, t0: float, secs: dict, say, time_limit: float | None, method: str = "cfr+-polish"
) -> GeneralSumSolution:
    """``solve`` for a game of imperfect information with more than two players: CFR+ for any
    number of players (``seqform.iterative.cfr``), its average polished on its support into an
    exact equilibrium (``seqform.exact.nplayerpolish``) after each of ``POLISH_AFTER``
    iterations; when the first polish fails, support enumeration (``seqform.exact.supportenumeration``)
    for a share of the time left (``ENUMERATION_SHARE``); then certified by exact best responses.
    ``method`` "support-enumeration" runs the enumeration alone. Refused at once when the game has
    more sequences and information sets than the polish's dense systems take; a ``SolverError``
    (``TimeLimitError`` at the time limit) names what was found when nothing certifies."""
    from seqform.exact.nplayerpolish import MAX_UNKNOWNS, polish
    from seqform.exact.supportenumeration import enumerate_equilibrium
    from seqform.iterative.cfr import RegretMinimizer

    secs["build"] = time.perf_counter() - t0
    unknowns = sum(tree.num_sequences) + sum(tree.num_infosets)
    if unknowns > MAX_UNKNOWNS:
        raise UnsupportedGameError(
            f"{tree.name!r} has {tree.num_players} players and {unknowns:,} sequences and information sets; "
            f"exact equilibria of games of more than two players are found for at most {MAX_UNKNOWNS:,} "
            "(seqform verify measures iterative solvers on it by NashConv)"
        )
    limit = POLISH_SECONDS if time_limit is None else float(time_limit)

    def left() -> float:
        return limit - (time.perf_counter() - t0)

    tried: list[str] = []
    timed_out = False
    if method == "support-enumeration":
        say("support enumeration: pure profiles first, then small balanced supports")
        found = enumerate_equilibrium(tree, time_limit=max(left(), 0.0))
        if found.status == "certified":
            return _polished_solution(tree, found, "support-enumeration", t0, secs, say)
        tried.append(f"support enumeration: {found.reason}")
        timed_out = found.status == "time_limit"
    else:
        solver, done, polished = RegretMinimizer(tree, "cfr+"), 0, "the polish did not start"
        for k, target in enumerate(POLISH_AFTER):
            say(f"CFR+ for {tree.num_players} players: {target:,} iterations")
            solver.step(target - done)
            done = target
            if left() <= 0:
                timed_out = True
                break
            say("polishing the CFR+ average on its support into an exact equilibrium")
            found = polish(tree, solver.average_profile(), time_limit=left())
            if found.status == "certified":
                return _polished_solution(tree, found, "cfr+-polish", t0, secs, say)
            polished = f"the polish: {found.reason}"
            timed_out = found.status == "time_limit"
            if k == 0 and left() > 0:
                say("support enumeration: pure profiles first, then small balanced supports")
                budget = min(left() * ENUMERATION_SHARE, ENUMERATION_SECONDS)
                enum = enumerate_equilibrium(tree, time_limit=budget)
                if enum.status == "certified":
                    return _polished_solution(tree, enum, "support-enumeration", t0, secs, say)
                tried.append(f"support enumeration ({budget:.3g} s): {enum.reason}")
        tried.insert(0, f"CFR+ ran {done:,} iterations; {polished}" if done else "CFR+ did not start")
    what = "; ".join(tried)
    if timed_out or left() <= 0:
        raise TimeLimitError(f"no exact equilibrium of {tree.name} within the time limit of {limit:g} s: {what}")
    raise SolverError(f"no exact equilibrium of {tree.name} found: {what}")


def _polished_solution(tree: Tree, found, method: str, t0: float, secs: dict, say) -> GeneralSumSolution:
    """The ``GeneralSumSolution`` of a certified ``PolishResult`` (``seqform.exact.nplayerpolish``):
    rational (checked again by exact best responses, ``_general_sum_solution``) or algebraic."""
    secs["solve"] = time.perf_counter() - t0 - secs["build"]
    if found.algebraic is not None:
        return _algebraic_solution(tree, found.algebraic, t0, secs, say, method)
    behaviour = [list(b) for b in found.profile.behaviour]
    plans = [realization_plan_exact(tree, p, behaviour[p]) for p in range(tree.num_players)]
    what = "the support enumeration's equilibrium" if method == "support-enumeration" else "the polished CFR+ average"
    return _general_sum_solution(tree, plans, what, t0, secs, say, method=method, behaviour=behaviour)


def _algebraic_solution(tree: Tree, eq, t0: float, secs: dict, say, method: str) -> GeneralSumSolution:
    """A ``GeneralSumSolution`` of an equilibrium certified in a real number field
    (``seqform.exact.nplayeralgebraic``: its exact best responses, compared by exact signs in
    Q(alpha), gain exactly 0), checked once more by an evaluation in floats (``seqform.verify.evaluate``),
    which must find NashConv below 1e-9 times the payoff range."""
    from seqform.verify.evaluate import evaluate

    say("checking the algebraic equilibrium in floating point")
    t = time.perf_counter()
    profile = Profile([np.array([float(v) for v in b]) for b in eq.behaviour])
    ev = evaluate(tree, profile)
    span = float(np.ptp(tree.payoff)) or 1.0
    if not float(ev.nash_conv) <= 1e-9 * span:
        raise SolverError(
            f"the algebraic equilibrium of {tree.name} failed its float check: NashConv {float(ev.nash_conv):.3g}"
        )
    secs["certify"] = time.perf_counter() - t
    secs["total"] = time.perf_counter() - t0
    return GeneralSumSolution(
        game=tree.name,
        values=eq.numbers(eq.values),
        certified=True,
        nash_conv=Fraction(0),
        profile=profile,
        exact_realization=[eq.numbers(x) for x in eq.plans],
        sizes=tree.sizes(),
        seconds=secs,
        tree=tree,
        method=method,
        algebraic=eq,
    )


def _exact_behaviour(behaviour: list) -> list:
    """Backward induction's pure behaviour (ints 0/1 per sequence, per player) as Fractions."""
    return [[Fraction(int(v)) for v in b] for b in behaviour]


def _solve_by_backward_induction(tree: Tree, certify_exact: bool, t0: float, secs: dict, say) -> Solution:
    """``solve`` for a game of perfect information: exact backward induction, then the same
    independent verification as an LP's solution (exact plans, exact best responses meet). The
    strategies are backward induction's behaviour, the optimal action at every information set
    (not re-derived from the plans, which would be uniform where a player's own play cuts a node
    off)."""
    sf = sequence_form(tree)  # checks two players, constant sum
    secs["build"] = time.perf_counter() - t0
    say("solving by backward induction")
    t = time.perf_counter()
    bi = backward_induction(tree)
    plans = [realization_plan_exact(tree, p, bi.behaviour[p]) for p in range(2)]
    xs = [np.asarray(x, dtype=np.float64) for x in plans]
    secs["solve"] = time.perf_counter() - t
    cert = value = exact = bound = None
    if certify_exact:
        say("certifying in exact arithmetic")
        t = time.perf_counter()
        bad, lower, upper = exact_bracket(tree, ExactSequenceForm(sf), plans[0], plans[1])
        if bad or lower != upper or lower != bi.value:
            # backward induction is exact: a failure here is a defect, not a tolerance
            raise SolverError(
                f"backward induction on {tree.name} failed its verification: "
                f"{bad or f'best responses {lower} and {upper}, value {bi.value}'}"
            )
        value = fraction_of(bi.value)
        exact = [[fraction_of(v) for v in x] for x in plans]
        bound = Fraction(0)
        secs["certify"] = time.perf_counter() - t
        cert = Certificate(
            True, value, value, value, bound, exact[0], exact[1], "backward-induction", seconds=secs["certify"]
        )
    profile = Profile([np.asarray(b, dtype=np.float64) for b in bi.behaviour])
    t = time.perf_counter()
    expl = _exploitability(tree, profile).exploitability
    secs["exploitability"] = time.perf_counter() - t
    secs["total"] = time.perf_counter() - t0
    return Solution(
        game=tree.name,
        value=value,
        value_float=float(bi.value),
        certified=cert is not None,
        exploitability=float(expl),
        exploitability_bound=bound,
        profile=profile,
        realization=xs,
        exact_realization=exact,
        sizes=tree.sizes(),
        seconds=secs,
        certificate=cert,
        tree=tree,
        method="backward-induction",
        exact_behaviour=_exact_behaviour(bi.behaviour),
    )

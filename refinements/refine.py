"""``refinements.efpe(game)``, ``refinements.qpe(game)``: refined equilibria of two-player games,
exactly in the limit eps -> 0 or at a chosen tremble ``eps``.

Zero-sum: game -> tree -> sequence form -> perturbed LP -> (HiGHS at eps | trembling-LP limit) ->
checks. General-sum: game -> tree -> perturbed sequence-form LCP (``refinements.generalsum``) ->
checks. More than two players: ``refinements.nplayerrefine`` (exact perturbed equilibria, and their
limit where they are rational functions of eps).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from seqform.errors import UnsupportedGameError
from seqform.exact.certificate import ExactSequenceForm, exact_bracket
from seqform.exact.rationals import fraction_of
from seqform.lp.sequenceform import sequence_form
from seqform.model.game import Game
from seqform.model.strategy import Profile, behaviour_from_realization, behaviour_from_realization_exact
from seqform.model.tree import Tree, compile_tree
from seqform.solve import solve as nash_solve
from seqform.verify.exploitability import exploitability as _exploitability
from seqform.verify.infosetregret import infoset_regret

from . import perturbation as _pert
from .definitioncertificate import certify_efpe, certify_qpe
from .errors import PerturbationError
from .generalsum import refine_general_sum
from .iterativerefinement import exact_plans
from .iterativerefinement import refine as iterative_refine
from .limitcertificate import leading_terms, limit_behaviour, limit_regrets, max_regret
from .perturbedlp import build, solve_at
from .refinedsolution import RefinedSolution
from .trembling import search
from .tremblingbestresponse import perturbed_measures

CONCEPTS = {"efpe": _pert.efpe, "qpe": _pert.qpe}


def _tree(game: Game | Tree) -> Tree:
    return game if isinstance(game, Tree) else compile_tree(game)


def refine(
    game: Game | Tree,
    perturbation: str | Callable = "efpe",
    eps: float | None = None,
    *,
    shrink: Fraction = Fraction(1, 10),
    tries: int = 6,
    order: int | None = None,
    exact_limit: int = 2_000_000,
    cross_check: bool = False,
    progress: Callable[[str], None] | None = None,
) -> RefinedSolution:
    """Compute a refined equilibrium of a two-player zero-sum game from perturbed polytopes.

    The perturbation puts lower bounds, polynomial in the tremble eps, on both players'
    sequence-form polytopes. With ``eps=None`` the result is the exact limit eps -> 0 of the
    perturbed games' equilibria, found by the trembling LP (Farina, Gatti & Sandholm 2018,
    "Practical Exact Algorithm for Trembling-Hand Equilibrium Refinements in Games";
    ``refinements.trembling.search``). Its certificate: the limit's exact best responses meet, so
    it is a Nash equilibrium and its value is the game value (certified), and every
    information-set regret (Kroer, Farina & Sandholm 2017, "Smoothing Method for Approximate
    Extensive-Form Perfect Equilibrium", section 4) is exactly zero under the limit beliefs. With
    a number ``eps``, it is the perturbed game's equilibrium at that eps (HiGHS, then made exact at
    that eps): the ground truth for solvers of the perturbed game.

    A game of more than two players (``perturbation`` "efpe" or "qpe") goes to
    ``refinements.nplayerrefine.refine_nplayer``: the perturbed game's exact equilibrium at ``eps``,
    or, with ``eps=None``, the limit certified where the perturbed equilibria on one support are
    rational functions of eps (``refinements.nplayerlimit``); ``shrink``, ``tries``, ``order``,
    ``exact_limit`` and ``cross_check`` do not apply there.

    Parameters
    ----------
    game : Game or Tree
        A two-player zero-sum game, or its compiled tree.
    perturbation : str or callable, default "efpe"
        "efpe", "qpe", or a function ``tree -> Perturbation`` (e.g. one built with
        ``refinements.perturbation.custom``).
    eps : float, optional
        None for the exact limit; else the tremble, 0 < eps < 1.
    shrink : Fraction, default Fraction(1, 10)
        The trembling LP's factor between successive eps (limit only).
    tries : int, default 6
        How many eps the trembling LP tries before giving up (limit only).
    order : int, optional
        The power-series order of the basis test (default: enough for the game; limit only).
    exact_limit : int, default 2000000
        Most nonzeros an exact basis elimination may store (limit only).
    cross_check : bool, default False
        Also solve the plain Nash LP (``seqform.solve``, certified) and require the same value: a
        second computation of the value by another path (about one certified Nash solve; limit
        only).
    progress : callable, optional
        ``progress(message)`` is told each step.

    Returns
    -------
    RefinedSolution
        A ``seqform.Result``: ``value``, ``certified``, ``exact_profile`` (limit), ``profile``,
        ``max_infoset_regret``, ``exploitability``, ``notes``; at a fixed eps also
        ``tremble_violation``.

    Raises
    ------
    PerturbationError
        A perturbation or eps that does not define a perturbed game (an unknown concept name, a
        malformed perturbation, or an eps that leaves a player no strategy).
    RefinementError
        No basis stayed optimal as eps shrank within ``tries``, or the exact basis test needs more
        than ``exact_limit`` nonzeros.
    UnsupportedGameError
        The game has one player, or more than two with a custom perturbation.
    SolverError
        At a fixed eps: HiGHS fails, or iterative refinement does not reach an exactly optimal
        basis.

    Examples
    --------
    >>> import seqform, refinements
    >>> sol = refinements.refine(seqform.games.load("kuhn"), "qpe")
    >>> sol.certified, sol.value, sol.max_infoset_regret
    (True, Fraction(-1, 18), Fraction(0, 1))
    """
    say = progress or (lambda m: None)
    secs: dict = {}
    t0 = time.perf_counter()
    tree = _tree(game)
    make = CONCEPTS.get(perturbation) if isinstance(perturbation, str) else perturbation
    if make is None:
        raise PerturbationError(f"unknown refinement {perturbation!r}; choose one of {', '.join(CONCEPTS)}")
    if tree.num_players > 2 and isinstance(perturbation, str):
        # more players: exact perturbed equilibria and their rational limit (refinements.nplayerrefine)
        from .nplayerrefine import refine_nplayer

        return refine_nplayer(tree, perturbation, eps, progress=say)
    if tree.num_players != 2:
        raise UnsupportedGameError(
            f"{tree.name!r} has {tree.num_players} players; the refined equilibria (EFPE, "
            "QPE) are computed for two-player games, zero-sum or general-sum"
            + (", and for more players with the built-in efpe or qpe perturbation" if tree.num_players > 2 else "")
        )
    if tree.constant_sum is None:
        return refine_general_sum(tree, make(tree), eps, progress=say)
    sf = sequence_form(tree)
    pert = make(tree)
    plp = build(sf, pert)
    secs["build"] = time.perf_counter() - t0
    if eps is not None:
        return _fixed(tree, sf, plp, float(eps), secs, say, t0)
    res = search(
        plp, pert.suggested_eps(tree), shrink=shrink, tries=tries, order=order, exact_limit=exact_limit, progress=say
    )
    secs.update({"lp": res.seconds["lp"], "refine": res.seconds["refine"], "series": res.seconds["exact"]})
    t1 = time.perf_counter()
    test = res.test
    assert test.x is not None and test.y is not None  # an accepted (optimal) basis test has its series
    leads = [leading_terms(test.x, tree.num_sequences[0]), leading_terms(test.y, tree.num_sequences[1])]
    beh = [limit_behaviour(tree, p, *leads[p]) for p in range(2)]
    x0, y0 = test.x.terms[0], test.y.terms[0]
    ex = ExactSequenceForm(sf)
    bad, lower, upper = exact_bracket(tree, ex, x0, y0)
    say("certifying: information-set regrets under the limit beliefs")
    regrets = limit_regrets(tree, beh, leads)
    mx, arg, pos = max_regret(regrets)
    # each concept by its definition, the trembling LP's series (truncated: a polynomial family,
    # a witness of its own) as the witness
    family = [[[fraction_of(v) for v in term] for term in ser.terms] for ser in (test.x, test.y)]
    say("certifying: each concept by its definition")
    K = len(family[0]) - 1
    certificates = {"efpe": certify_efpe(tree, family, K), "qpe": certify_qpe(tree, family, K)}
    secs["certify"] = time.perf_counter() - t1
    nash = None
    if cross_check:
        say("cross-checking: the plain Nash LP's certified value")
        nash = nash_solve(tree)
        secs["nash"] = nash.seconds.get("solve", 0.0) + nash.seconds.get("certify", 0.0)
    notes = [
        f"basis from eps={res.eps} proved optimal for all sufficiently small eps > 0 ({test.order} series terms; every "
        f"sign decided by order {test.deepest}; {test.zero_to_order} quantities vanish to order "
        f"{test.order} and are taken as zero)"
    ]
    notes += [f"eps={e}: {why}" for e, why in res.tried]
    if bad:
        notes.append(f"limit plans invalid: {bad}")
    value = fraction_of(lower) if not bad and lower == upper else None
    # information sets that chance never reaches have no beliefs, even with trembles: no regret
    unreached = sum(r is None for r in regrets)
    if unreached:
        notes.append(
            f"{unreached} information sets are unreachable by chance (probability-zero outcomes): "
            f"no regret is defined there"
        )
    own = certificates.get(pert.name)
    certified = value is not None and pos == 0 and (own is None or own.holds)
    for name, c in certificates.items():
        notes.append(
            f"{name} by definition, with the trembling LP's series (exact through order {K}) as witness: "
            + ("holds" if c.holds else "fails: " + (c.reason or "at {}, {} does worse than {}".format(*c.failures[0])))
            + (f" ({c.ties_to_order} comparisons equal through order {K}, taken as ties)" if c.ties_to_order else "")
        )
    if nash is not None:
        certified = certified and nash.certified and value == nash.value
        if value is not None and nash.certified and value != nash.value:
            notes.append(f"limit value {value} differs from the Nash LP's certified value {nash.value}")
    fprof = Profile([np.array([float(v) for v in b]) for b in beh])
    expl = _exploitability(tree, fprof).exploitability
    secs["total"] = time.perf_counter() - t0
    return RefinedSolution(
        game=tree.name,
        concept=pert.name,
        eps=None,
        value=value,
        value_float=float(lower),
        certified=certified,
        nash_value=nash.value if nash is not None else None,
        exploitability=float(expl),
        max_infoset_regret=mx,
        positive_regret_infosets=pos,
        infoset_regret=regrets,
        profile=fprof,
        exact_profile=Profile([[fraction_of(v) for v in b] for b in beh]),
        exact_realization=[[fraction_of(v) for v in x0], [fraction_of(v) for v in y0]],
        sizes=tree.sizes(),
        seconds=secs,
        basis_eps=res.eps,
        tremble_violation=None,
        notes=notes,
        tree=tree,
        lp=plp,
        basis=res.basis,
        certificates=certificates,
        series=family,
    )


def _fixed(tree: Tree, sf, plp, eps: float, secs: dict, say, t_start: float) -> RefinedSolution:
    """The perturbed game's equilibrium at ``eps``: HiGHS's basis, made exactly optimal at the
    rational eps by iterative refinement (float tolerances cannot resolve ``eps^depth``), then its
    exact plans; with the check that every tremble bound holds."""
    plp.pert.check(tree, eps)
    say(f"solving the perturbed LP at eps={eps:g}")
    r = solve_at(plp, eps)
    secs["solve"] = r.highs.seconds
    t0 = time.perf_counter()
    q = Fraction(str(eps))
    cs, rs, rounds = iterative_refine(plp, q, r.highs)
    x, y, value = exact_plans(plp, q, (cs, rs))
    secs["refine"] = time.perf_counter() - t0
    prof = Profile([behaviour_from_realization(tree, p, np.array([float(v) for v in z])) for p, z in ((0, x), (1, y))])
    reg = infoset_regret(tree, prof)
    expl = _exploitability(tree, prof).exploitability
    notes = [f"exact at eps={q} (iterative refinement: {rounds} rounds)"]
    # the certificate, independent of the LP: both trembling best responses (dynamic programming
    # over the perturbed polytopes) meet at the LP's value
    t1 = time.perf_counter()
    exact_prof = Profile(
        [behaviour_from_realization_exact(tree, p, [fraction_of(v) for v in z]) for p, z in ((0, x), (1, y))]
    )
    m = perturbed_measures(tree, plp.pert, q, exact_prof, fraction_of(value))
    secs["certify"] = time.perf_counter() - t1
    certified = m.exploitability == 0 and m.value_gap == 0 and m.tremble_violation <= 0
    notes.append(
        "certified: the trembling best responses meet at the value"
        if certified
        else f"not certified: perturbed exploitability {m.exploitability}, value gap {m.value_gap}"
    )
    secs["total"] = time.perf_counter() - t_start
    return RefinedSolution(
        game=tree.name,
        concept=plp.pert.name,
        eps=eps,
        value=value,
        value_float=float(value),
        certified=certified,
        nash_value=None,
        exploitability=float(expl),
        max_infoset_regret=reg.max_regret,
        positive_regret_infosets=reg.count_positive(1e-9),
        infoset_regret=reg.regret.tolist(),
        profile=prof,
        exact_profile=exact_prof if certified else None,
        exact_realization=[x, y],
        sizes=tree.sizes(),
        seconds=secs,
        basis_eps=None,
        tremble_violation=float(m.tremble_violation),
        notes=notes,
        tree=tree,
        lp=plp,
        basis=(cs, rs),
    )


def efpe(game: Game | Tree, eps: float | None = None, **kwargs) -> RefinedSolution:
    """Compute an extensive-form perfect equilibrium (EFPE) of a two-player zero-sum game.

    Uses the perturbation of Farina & Gatti 2017, "Extensive-Form Perfect Equilibrium Computation in
    Two-Player Games": both players play every action with probability at least eps wherever its
    information set is reached. Returns the exact limit eps -> 0, or the eps-perturbed game's
    equilibrium when ``eps`` is given. Same as ``refine(game, "efpe", eps, **kwargs)``.

    {sections}
    Examples
    --------
    >>> import seqform, refinements
    >>> sol = refinements.efpe(seqform.games.load("threat_zero_sum"))
    >>> sol.certified, sol.value
    (True, Fraction(0, 1))
    """
    return refine(game, "efpe", eps, **kwargs)


def qpe(game: Game | Tree, eps: float | None = None, **kwargs) -> RefinedSolution:
    """Compute a quasi-perfect equilibrium (QPE) of a two-player zero-sum game.

    Uses the perturbation of Miltersen & Sorensen 2010, "Computing a Quasi-Perfect Equilibrium of a
    Two-Player Game": both players' realization plans satisfy ``x[s] >= eps^|s|``, with ``|s|`` the
    number of the player's own actions in sequence ``s``. Returns the exact limit eps -> 0, or the
    eps-perturbed game's equilibrium when ``eps`` is given. Same as
    ``refine(game, "qpe", eps, **kwargs)``.

    {sections}
    Examples
    --------
    The exact limit, and the perturbed game at one fixed tremble:

    >>> import seqform, refinements
    >>> sol = refinements.qpe(seqform.games.load("kuhn"))
    >>> sol.certified, sol.value
    (True, Fraction(-1, 18))
    >>> sol = refinements.qpe(seqform.games.load("kuhn"), eps=0.01)
    >>> sol.eps, sol.method, sol.tremble_violation < 1e-9
    (0.01, 'perturbed-lp', True)
    """
    return refine(game, "qpe", eps, **kwargs)


# The two wrappers take and return the same things; one text serves both.
_WRAPPER_SECTIONS = """    Parameters
    ----------
    game : Game or Tree
        A two-player zero-sum game, or its compiled tree.
    eps : float, optional
        None for the exact limit eps -> 0; else the tremble.
    **kwargs
        As for ``refine``: ``shrink``, ``tries``, ``order``, ``exact_limit``, ``cross_check``,
        ``progress``.

    Returns
    -------
    RefinedSolution
        As for ``refine``: ``value``, ``certified``, ``exact_profile`` (limit), ``profile``,
        ``max_infoset_regret``, ``exploitability``, ``notes``; at a fixed eps also
        ``tremble_violation``.

    Raises
    ------
    RefinementError
        As for ``refine``: no basis stayed optimal as eps shrank.
    PerturbationError
        As for ``refine``: an eps whose lower bounds no realization plan meets (for EFPE, an
        eps above 1/n at an information set with n actions).
    UnsupportedGameError
        The game has one player (more than two: see ``refine``).
    SolverError
        As for ``refine``, at a fixed eps.
"""
for _wrapper in (efpe, qpe):
    if _wrapper.__doc__:  # None under python -OO
        _wrapper.__doc__ = _wrapper.__doc__.replace("    {sections}\n", _WRAPPER_SECTIONS + "\n")

"""The one result type every solver returns or extends, and the one JSON shape built from it.

Like scipy's ``OptimizeResult``, ``Result`` fixes what every solver's answer has, whatever
the algorithm (the LP, the trembling LP of ``refinements``, double oracle, GameShrink, EFCE
sampling):

* ``game``, ``method``: what was solved, and how;
* ``value`` (exact, a Fraction, when known), ``value_float``, ``certified`` (True only when
  exact checks proved the value and the profile: both exact best responses meet);
* ``lower`` / ``upper``: exact bounds on the value when the solver has them;
* ``exploitability`` of the returned profile;
* ``profile`` (float behavioural strategies) and ``exact_profile`` (Fractions, when certified),
  on ``tree``;
* ``sizes``, ``seconds`` (a dict of named parts in seconds, with ``total``), ``notes``.

``Result`` is a dataclass whose fields are keyword-only with the defaults below; every solver's
result class is a dataclass that extends it, adding its own fields (also keyword-only) and
filling the common ones it derives from them in ``__post_init__``. A result is complete when
its solver returns it: callers (the command line, the extensions' plugins) do not change it,
they build a new one with ``dataclasses.replace`` or add keys to the JSON they print.

``to_json()`` builds every ``--json`` of the command line, with a solver's own keys from
``json_fields()``; ``to_json(strategy=True)`` adds ``"strategy"`` in the form ``seqform
evaluate`` reads (``seqform.io.strategyjson``). ``summary()`` is the text the command line
prints for it. The JSON Schemas of the commands' ``--json`` are in ``seqform.schemas``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from seqform.exact.rationals import rational_str

if TYPE_CHECKING:
    from seqform.model.strategy import Profile
    from seqform.model.tree import Tree


@dataclass(kw_only=True)
class Result:
    """See the module docstring. Values are player 0's in two-player zero-sum games."""

    game: str = ""
    method: str = ""
    #: the exact value (player 0's) when known
    value: Fraction | None = None
    value_float: float | None = None
    certified: bool = False
    #: exact bounds on the value, when the solver has them
    lower: Fraction | None = None
    upper: Fraction | None = None
    #: of the returned profile (a float, or a Fraction when the solver measures it exactly)
    exploitability: float | Fraction | None = None
    profile: Profile | None = field(default=None, repr=False)
    exact_profile: Profile | None = field(default=None, repr=False)
    tree: Tree | None = field(default=None, repr=False)
    #: the game's sizes (``Tree.sizes()``: counts, and per-player lists of counts)
    sizes: dict[str, Any] = field(default_factory=dict)
    #: seconds per named part of the run, and ``total``
    seconds: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] | list[str] = ()

    def strategy_profile(self) -> Profile | None:
        """The profile a ``--strategy`` prints: the exact one when there is one, else the float one
        (``None`` when the solver has none on a tree)."""
        return self.exact_profile if self.exact_profile is not None else self.profile

    def strategy_on_tree(self) -> tuple[Tree | None, Profile | None]:
        """``(tree, strategy_profile())``: the profile ``to_json(strategy=True)`` writes and the
        tree it is on (a solver whose strategies live elsewhere builds that tree here)."""
        return self.tree, self.strategy_profile()

    def json_fields(self) -> dict:
        """A solver's own keys, added to (or replacing) the common ones in ``to_json``."""
        return {}

    def to_json(self, strategy: bool = False) -> dict:
        """A JSON-ready dict: the common keys, then ``json_fields()``; rationals as strings such
        as ``"-1/18"``. With ``strategy``, ``"strategy"`` is the profile in seqform's strategy
        JSON (readable by ``seqform evaluate``)."""
        out = {
            "game": self.game,
            "method": self.method,
            "value": self.value,
            "value_float": self.value_float,
            "certified": bool(self.certified),
            "lower": self.lower,
            "upper": self.upper,
            "exploitability": self.exploitability,
            "sizes": self.sizes,
            "seconds": self.seconds,
            "notes": list(self.notes),
        }
        out.update(self.json_fields())
        if strategy:
            tree, prof = self.strategy_on_tree()
            if prof is not None and tree is not None:
                from seqform.io.strategyjson import profile_to_json

                out["strategy"] = profile_to_json(tree, prof)
            else:
                out["strategy"] = None
        return jsonable(out)

    def summary(self) -> str:
        """The text the command line prints for this result (no trailing newline): the common
        lines here; a solver's result class prints its own."""
        lines = [f"game            {self.game}"]
        if self.method:
            lines.append(f"method          {self.method}")
        if self.value is not None:
            lines.append(f"value           {self.value}  (= {float(self.value):.12g}, player 0)")
        elif self.lower is not None or self.upper is not None:
            lines.append(f"value           {_f(self.lower)} <= value <= {_f(self.upper)}  (exact bounds, player 0)")
        elif self.value_float is not None:
            lines.append(f"value           {self.value_float:.12g}  (float, player 0)")
        if self.exploitability is not None:
            lines.append(f"exploitability  {float(self.exploitability):.3g}")
        lines.append(seconds_line(self.seconds))
        return "\n".join(lines)


def _f(x) -> str:
    return "?" if x is None else f"{float(x):.12g}"


def seconds_line(seconds: dict, label: str = "seconds         ") -> str:
    """``seconds`` as the command line's text prints it: ``label`` then ``part 0.123, ...``."""
    return label + ", ".join(f"{k} {v:.3f}" for k, v in seconds.items())


def format_sizes(sizes: dict) -> str:
    """A two-player tree's ``sizes()`` in one line, as the command line prints them."""
    return (
        f"{sizes['histories']:,} histories, {sizes['terminals']:,} terminals, "
        f"information sets {sizes['infosets'][0]:,} / {sizes['infosets'][1]:,}, "
        f"sequences {sizes['sequences'][0]:,} / {sizes['sequences'][1]:,}"
    )


def jsonable(x):
    """``x`` with Fractions as strings, numpy scalars and arrays as Python numbers and lists,
    tuples as lists, recursively (what ``json.dumps`` accepts)."""
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, Fraction):
        return rational_str(x)
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


# format_sizes and seconds_line are the text helpers of the results' summary(): importable, not
# part of the public API
__all__ = ["Result", "jsonable"]

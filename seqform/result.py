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
prints for it: aligned columns (``table``), decimals first and exact rationals beside them
only when short or asked for (``number``), the JSON keeping every rational whole. The JSON
Schemas of the commands' ``--json`` are in ``seqform.schemas``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from seqform.errors import Remedy
from seqform.exact.algebraic import AlgebraicNumber
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

    def summary(self, rationals: bool = False) -> str:
        """The text the command line prints for this result (no trailing newline): the common
        lines here; a solver's result class prints its own. Numbers are decimals, with the exact
        rational beside them when it is short or ``rationals`` asks (``number``)."""
        rows = [("game", self.game or "?")]
        if self.method:
            rows.append(("method", self.method))
        if self.value is not None:
            rows.append(("value", number(self.value, rationals, "player 0")))
        elif self.lower is not None or self.upper is not None:
            rows.append(("value", f"{_f(self.lower)} <= value <= {_f(self.upper)}  (exact bounds, player 0)"))
        elif self.value_float is not None:
            rows.append(("value", f"{self.value_float:.12g}  (float, player 0)"))
        if self.exploitability is not None:
            rows.append(("exploitability", number(self.exploitability, rationals, digits=3)))
        rows.append(("seconds", seconds_text(self.seconds)))
        return table(rows)


def _f(x) -> str:
    return "?" if x is None else f"{float(x):.12g}"


#: the longest exact rational the text output shows beside its decimal unasked (``number``)
RATIONAL_LIMIT = 15


def number(x, rationals: bool = False, detail: str = "", digits: int = 12) -> str:
    """``x`` as the command line's text shows a number: its decimal (``digits`` significant
    digits) first; for an exact ``x`` (Fraction or int) that is not an integer, the rational
    beside it, ``-0.0555555555556  (= -1/18)``, when it has at most ``RATIONAL_LIMIT``
    characters or ``rationals`` asks, else its length and how to see it (``rationals=True``;
    the command line's ``--rationals``, through ``seqform.errors.Remedy``).
    ``detail`` is added inside the parentheses (``"player 0"``). ``None`` is ``?``."""
    if x is None:
        return "?"
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        x = Fraction(int(x))
    if isinstance(x, AlgebraicNumber):
        return f"{float(x):.{digits}g}  (= {x.closed_form()}{', ' + detail if detail else ''})"
    if not isinstance(x, Fraction):
        text = f"{float(x):.{digits}g}"
        return f"{text}  ({detail})" if detail else text
    if x.denominator == 1 and (rationals or len(str(x.numerator)) <= RATIONAL_LIMIT):
        return f"{x.numerator}  ({detail})" if detail else str(x.numerator)
    exact = rational_str(x)
    if rationals or len(exact) <= RATIONAL_LIMIT:
        return f"{float(x):.{digits}g}  (= {exact}{', ' + detail if detail else ''})"
    # the rational itself would bury the line: say it is there and how to see it
    hidden = f"exact: a {len(exact):,}-character rational, {Remedy('rationals', True)}"
    return f"{float(x):.{digits}g}  ({detail + '; ' if detail else ''}{hidden})"


def probability(x, rationals: bool = False) -> str:
    """A probability in a strategy as the command line prints it: ``0``, ``1``, or its decimal
    to 6 digits with the exact rational beside it when short or asked for, ``0.666667 (2/3)``."""
    if isinstance(x, str):  # the strategy JSON's form
        x = Fraction(x)
    if isinstance(x, AlgebraicNumber):
        return f"{float(x):.6g} ({x.closed_form()})"
    if not isinstance(x, Fraction) or x.denominator == 1:
        return f"{float(x):.6g}"
    exact = rational_str(x)
    return f"{float(x):.6g} ({exact})" if rationals or len(exact) <= RATIONAL_LIMIT else f"{float(x):.6g}"


def table(rows: list[tuple[str, str]], indent: str = "", min_width: int = 16) -> str:
    """``rows`` of ``(label, text)`` as aligned lines: every text starts in one column, two
    spaces past the longest label and at least ``min_width`` in (the column every result's
    summary shares unless a label is longer); a row with label ``""`` continues the one before.
    A text with line breaks continues in that column too."""
    width = max(max((len(label) for label, _ in rows), default=0) + 2, min_width)
    lines = []
    for label, text in rows:
        first, *more = str(text).split("\n")
        lines.append(f"{indent}{label:<{width}}{first}".rstrip())
        lines.extend(f"{indent}{'':<{width}}{line}".rstrip() for line in more)
    return "\n".join(lines)


def seconds_text(seconds: dict) -> str:
    """``seconds`` as the command line's text prints it: ``part 0.123, ...``."""
    return ", ".join(f"{k} {v:.3f}" for k, v in seconds.items())


def seconds_line(seconds: dict, label: str = "seconds         ") -> str:
    """``label`` then ``seconds_text(seconds)``."""
    return label + seconds_text(seconds)


def format_sizes(sizes: dict) -> str:
    """A tree's ``sizes()`` in one line, as the command line prints them: per player, players
    separated by " / "."""
    per = {k: " / ".join(f"{v:,}" for v in sizes[k]) for k in ("infosets", "sequences")}
    return (
        f"{sizes['histories']:,} histories, {sizes['terminals']:,} terminals, "
        f"information sets {per['infosets']}, sequences {per['sequences']}"
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
    if isinstance(x, AlgebraicNumber):
        return x.to_json()
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


# format_sizes, number, table, seconds_text and seconds_line are the text helpers of the results'
# summary(): importable, not part of the public API
__all__ = ["Result", "jsonable"]

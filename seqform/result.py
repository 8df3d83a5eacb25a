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
* ``sizes``, ``seconds`` (a dict of named parts and ``total``), ``notes``.

Solver result classes are dataclasses that extend ``Result``: the fields they do not define
take the class defaults below. ``to_json()`` builds every ``--json`` of the command line, with a
solver's own keys from ``json_fields()``; ``to_json(strategy=True)`` adds ``"strategy"`` in the
form ``seqform evaluate`` reads (``seqform.io.strategyjson``).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from seqform.exact.rationals import rational_str


class Result:
    """See the module docstring. Values are player 0's in two-player zero-sum games."""

    # Defaults for what a solver's result class does not define. Looked up on the instance only
    # (``__getattr__``), never as class attributes: a dataclass would take those as its fields'
    # defaults.
    _DEFAULTS = {"game": "", "method": "", "value": None, "value_float": None, "certified": False,
                 "lower": None, "upper": None, "exploitability": None, "profile": None,
                 "exact_profile": None, "tree": None, "sizes": {}, "seconds": {}, "notes": ()}

    def __getattr__(self, name: str):
        try:
            default = Result._DEFAULTS[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}") from None
        return dict(default) if isinstance(default, dict) else default

    def strategy_profile(self):
        """The profile a ``--strategy`` prints: the exact one when there is one, else the float one
        (``None`` when the solver has none on a tree)."""
        return self.exact_profile if self.exact_profile is not None else self.profile

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
            prof = self.strategy_profile()
            if prof is not None and self.tree is not None:
                from seqform.io.strategyjson import profile_to_json
                out["strategy"] = profile_to_json(self.tree, prof)
            else:
                out["strategy"] = None
        return jsonable(out)


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


__all__ = ["Result", "jsonable"]

"""JSON Schemas (draft 2020-12) of every command's ``--json`` output, shipped with the package.

One schema per command: ``solve`` (also ``--refine`` and ``--method doracle``), ``evaluate``,
``convert``, ``verify``, ``info``, ``games``, ``study``, ``study report``, ``efce sample``,
``efce maxent``, ``efce welfare``, ``efce ranges`` and ``shrink``. Each states the keys the
command always prints (``required``) and the type of every key it may print; exact rationals are
strings such as ``"-1/18"`` (``$defs/rational``), and ``seconds`` an object of numbers (with
``total`` in a solver's result). Objects allow keys the schema does not list
(``additionalProperties: true``): a later version may add keys, never rename or retype one.

>>> import seqform.schemas
>>> seqform.schemas.load("solve")["title"]
'seqform solve --json'
>>> seqform.schemas.load("efce sample")["$id"]
'urn:seqform:schemas:efce-sample'

Validate an output with the ``jsonschema`` package (``docs/json-output.md``)::

    import jsonschema, seqform.schemas
    jsonschema.Draft202012Validator(seqform.schemas.load("solve")).validate(output)
"""

from __future__ import annotations

import json
from importlib import resources

from seqform.errors import SeqformError


def commands() -> list[str]:
    """The commands that have a schema, as ``load`` takes them (``"solve"``, ``"efce sample"``, ...)."""
    files = resources.files(__name__).iterdir()
    return sorted(f.name[: -len(".schema.json")].replace("-", " ") for f in files if f.name.endswith(".schema.json"))


def load(command: str) -> dict:
    """The JSON Schema (a dict) of ``seqform COMMAND --json``: ``command`` as typed after
    ``seqform``, its words separated by spaces or hyphens (``"solve"``, ``"efce welfare"``,
    ``"study-report"``). ``SeqformError`` names the commands that have one when it has none."""
    name = "-".join(command.split()).replace("_", "-")
    path = resources.files(__name__).joinpath(f"{name}.schema.json")
    if not path.is_file():
        raise SeqformError(f"no JSON Schema for {command!r}; the commands with one: {', '.join(commands())}")
    return json.loads(path.read_text(encoding="utf-8"))


__all__ = ["commands", "load"]

"""Front doors that import their modules when a name is first used (PEP 562).

A package's ``__init__.pyi`` declares what it exports, as ``from .module import Name as Name``
lines: type checkers read it as the package's interface, and ``lazy_exports`` reads the same
lines at run time, so the declaration is written once. ``import refinements`` then costs a few
milliseconds, and the extensions' command-line plugins (which every ``seqform`` command loads)
no longer import the algorithms of commands that are not run.
"""

from __future__ import annotations

import ast
import importlib
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _declared(stub: Path) -> dict[str, tuple[str, str]]:
    """Exported name -> (relative module, its name there), from the stub's ``from .module import
    Name as Name`` lines and ``alias = Name`` assignments."""
    names: dict[str, tuple[str, str]] = {}
    for node in ast.parse(stub.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = ("." + node.module, alias.name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in names:
            for target in node.targets:  # an alias of an exported name: ``solve = double_oracle``
                if isinstance(target, ast.Name):
                    names[target.id] = names[node.value.id]
    return names


class _FrontDoor(types.ModuleType):
    """A package whose exported names win over its submodules of the same name.

    Importing the submodule ``refinements.refine`` makes Python set the package's attribute of that
    name to the module; an eager import of the function from it would have replaced the module by
    the function at once, so the function is what users call as ``refinements.refine()``. Here the
    function is bound only when first asked for, so the submodule must not take its place in between."""

    def __setattr__(self, name: str, value: Any) -> None:
        exports = self.__dict__.get("_lazy_exports", {})
        if name in exports and isinstance(value, types.ModuleType) and value.__name__ == f"{self.__name__}.{name}":
            return  # reachable as sys.modules[...]; the attribute keeps the exported name
        super().__setattr__(name, value)


def lazy_exports(package: str, init_file: str) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for package ``package`` whose ``__init__.py`` is
    ``init_file``, from the ``__init__.pyi`` beside it."""
    where = _declared(Path(init_file).with_suffix(".pyi"))
    module = sys.modules[package]
    module.__dict__["_lazy_exports"] = where
    module.__class__ = _FrontDoor

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        source, original = where[name]
        value = getattr(importlib.import_module(source, package), original)
        vars(sys.modules[package])[name] = value  # the next lookup is an ordinary attribute
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__, list(where)

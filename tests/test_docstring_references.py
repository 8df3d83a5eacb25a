"""Docstrings name our modules, classes and functions by names that exist.

Every module of ``seqform``, ``refinements``, ``lossless``, ``doracle`` and ``efce`` is found by
``pkgutil.walk_packages`` (an import error while walking fails the test, and the modules found must
be exactly the ``.py`` files on disk: nothing is skipped silently). Each module's source is parsed,
and the docstrings of the module and of every class, function and method in it (nested ones too)
are read. In them, every double-backticked token is checked by two rules:

1. **Qualified names resolve.** A token that starts with a dotted name whose first part is one of
   the five packages and which has at least one dot (``seqform.model.tree.compile_tree``,
   ``seqform.solve(game)``, ``efce.SamplerOptions(...)``: the dotted part before any ``(``, ``[``,
   space or other character) must resolve: the longest prefix that is an importable module is
   imported, then the rest is looked up with ``getattr`` (a dataclass field or an annotated
   attribute of a class counts). A token that is not a Python name at all (``NOT_PYTHON``: an
   entry-point group) is listed with the reason.

2. **Module names are qualified.** A token that is a bare word, or a dotted name, whose first part
   is the basename of one of our modules or subpackages (``bestresponse``, ``treemodel``,
   ``regret.infoset_regret``, ``colgen``) and is not one of the five packages, is a reference by
   an unqualified module name: it must be written fully qualified (``efce.treemodel``), because
   the reader cannot tell which package it means, and a rename leaves it stale without a trace.
   It is allowed only where the word is a name in the docstring's own scope, where it reads as
   that name rather than as a module:

   * any docstring of a module: the module's names (imported, defined or assigned at its top
     level: ``shrink`` in ``lossless`` is the function ``lossless.shrink``), every function,
     class and method it defines at any depth, the attributes and fields of its classes, every
     parameter of its functions and every attribute they set on ``self`` (``game``, ``tree``,
     ``exact`` are parameters and fields before they are modules);
   * a class's docstring and its methods': the class's attributes and fields, inherited ones too;
   * a function's or method's docstring: its parameters, the names bound in its body, and the
     attributes of the classes its return annotation names (a result's fields).

   A name bound to a module (a package's submodule, ``import x.y as z``) does not count: that
   is the module reference the rule is about. Former module names (``FORMER``: renamed, see
   CHANGELOG.md) are checked as if they were still modules, so a stale ``regret`` is caught.
   Words in ``NOT_MODULES`` are never module references (listed with the reason): the built-in
   games' names (``kuhn``: a GAME argument) and the command line's commands (``solve``,
   ``shrink``: ``seqform solve``), each also the name of the module that defines it.
"""

import ast
import builtins
import importlib
import pkgutil
import re
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("seqform", "refinements", "lossless", "doracle", "efce")
TOKEN = re.compile(r"``(.+?)``", re.S)
QUALIFIED = re.compile(rf"(?:{'|'.join(PACKAGES)})(?:\.\w+)+")
NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
# qualified-looking tokens that are not Python names
NOT_PYTHON = {
    "seqform.extensions": "the entry-point group of extensions (pyproject.toml), not a module",
}
# bare words that are basenames of our modules but never mean the module where they appear
NOT_MODULES = {
    "__init__": "a file name, not a reference",
    "__main__": "a file name, not a reference",
}
NOT_MODULES.update(
    {
        g: "a built-in game's name (a GAME argument), the same word as its module"
        for g in importlib.import_module("seqform.games").available()
    }
)


def _commands() -> set:
    """The ``seqform`` command line's commands, the core's and the installed extensions'."""
    import argparse

    from seqform.cli.main import build_parser

    return {name for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction) for name in a.choices}


NOT_MODULES.update(
    {c: "a command of the command line (``seqform solve``), the same word as a module" for c in _commands()}
)


def _walk(package: str) -> list:
    errors = []
    pkg = importlib.import_module(package)
    names = [package] + [m.name for m in pkgutil.walk_packages(pkg.__path__, package + ".", onerror=errors.append)]
    assert not errors, f"walking {package} failed to import {errors}"
    return names


MODULES = [name for pkg in PACKAGES for name in _walk(pkg)]


def _path(module: str) -> Path:
    base = ROOT.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def test_the_walk_finds_every_module_on_disk():
    on_disk = {
        p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".").removesuffix(".__init__")
        for pkg in PACKAGES
        for p in (ROOT / pkg).rglob("*.py")
    }
    assert set(MODULES) == on_disk


# former module names (CHANGELOG.md): a docstring that still says them is stale
FORMER = {"bestresponse", "strategyio", "rationalsolve", "regret", "convergence", "certify", "seed001_leduc"}
BASENAMES = ({m.rsplit(".", 1)[-1] for m in MODULES if "." in m} | FORMER) - set(PACKAGES)


def _bound(body: list) -> set:
    """Names bound by the statements ``body`` (not looking into nested functions or classes)."""
    out = set()
    for node in body:
        for sub in (
            ast.walk(node) if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else [node]
        ):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(sub.name)
            elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                out.update((a.asname or a.name).split(".")[0] for a in sub.names)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                out.add(sub.id)
    return out


def _defs(body: list):
    """The classes and functions defined by ``body``, also under ``if``, ``try`` and ``with``."""
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            blocks = [node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])]
            blocks += [h.body for h in getattr(node, "handlers", [])]
            for block in blocks:
                yield from _defs(block)


def _params(fn) -> set:
    a = fn.args
    return {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x is not None}


def _class_names(cls) -> set:
    """Every attribute and field of ``cls``, inherited ones included."""
    return set(dir(cls)) | {n for c in cls.__mro__ for n in getattr(c, "__annotations__", {})}


def _returned(fn, mod) -> set:
    """The attributes of the classes ``fn``'s return annotation names (looked up in ``mod``)."""
    out = set()
    for node in ast.walk(fn.returns) if fn.returns is not None and mod is not None else ():
        cls = getattr(mod, node.id, None) if isinstance(node, ast.Name) else None
        if isinstance(cls, type):
            out |= _class_names(cls)
    return out


def _docstrings(module: str):
    """(where, docstring, names in its scope) for the module and each class and function in it."""
    tree = ast.parse(_path(module).read_text())
    # a ``__main__`` runs when imported: its names are read from its source alone
    mod = None if module.endswith(".__main__") else importlib.import_module(module)
    module_scope = set(dir(builtins)) | set(dir(mod) if mod else ()) | _bound(tree.body)
    # a name bound to a module (a package's submodule, ``import x.y as z``) is still a module
    module_scope -= {n for n in module_scope if isinstance(getattr(mod, n, None), types.ModuleType)}
    for node in ast.walk(tree):  # what the module defines at any depth, and its functions' parameters
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            module_scope.add(node.name)
        if isinstance(node, ast.ClassDef):
            module_scope |= _bound(node.body)
            cls = getattr(mod, node.name, None)
            module_scope |= _class_names(cls) if isinstance(cls, type) else set()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            module_scope |= _params(node)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            module_scope.add(node.attr)
    out = []

    def visit(node, where: str, scope: set, owner):
        doc = ast.get_docstring(node, clean=False)
        if doc:
            out.append((where, doc, scope))
        for child in _defs(node.body):
            inner = scope | _bound(child.body)
            obj = getattr(owner, child.name, None) if owner is not None else None
            if isinstance(child, ast.ClassDef):
                inner |= _class_names(obj) if isinstance(obj, type) else set()
            else:
                inner |= _params(child) | _returned(child, mod)
            visit(child, f"{where}.{child.name}", inner, obj)

    visit(tree, module, module_scope, mod)
    return out


DOCSTRINGS = [d for m in MODULES for d in _docstrings(m)]


def _tokens(doc: str) -> list:
    return [" ".join(t.split()) for t in TOKEN.findall(doc)]


def resolve(dotted: str):
    """The object ``dotted`` names: its longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        name = ".".join(parts[:k])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and not name.startswith(e.name) and e.name != name:
                raise  # the module exists but needs a module that is missing
            continue
        for i in range(k, len(parts)):
            attr = parts[i]
            if hasattr(obj, attr):
                obj = getattr(obj, attr)
            elif isinstance(obj, type) and i == len(parts) - 1 and attr in _class_names(obj):
                return obj  # a dataclass field or an annotated attribute without a class-level value
            else:
                raise AttributeError(f"{'.'.join(parts[:i])} has no {attr!r}")
        return obj
    raise ModuleNotFoundError(dotted)


def test_qualified_references_resolve():
    bad = []
    for where, doc, _ in DOCSTRINGS:
        for tok in _tokens(doc):
            m = QUALIFIED.match(tok)
            if not m or m.group(0) in NOT_PYTHON:
                continue
            try:
                resolve(m.group(0))
            except (ImportError, AttributeError) as e:
                bad.append(f"{where}: ``{tok}``: {e}")
    assert not bad, "\n".join(bad)


def unqualified(tok: str, scope: set) -> bool:
    """Whether the docstring token ``tok`` names one of our modules by its bare basename (rule 2)."""
    if not NAME.fullmatch(tok):
        return False
    first = tok.split(".")[0]
    return first in BASENAMES and first not in scope and first not in NOT_MODULES


def test_module_names_are_qualified():
    bad = []
    for where, doc, scope in DOCSTRINGS:
        for tok in _tokens(doc):
            if unqualified(tok, scope):
                first = tok.split(".")[0]
                which = ", ".join(sorted(m for m in MODULES if m.rsplit(".", 1)[-1] == first)) or "a former module"
                bad.append(f"{where}: ``{tok}``: qualify the module ({which})")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "tok, scope, flagged",
    [
        ("treemodel", set(), True),
        ("efce.treemodel", set(), False),
        ("bestresponse.exploitability", set(), True),
        ("regret", set(), True),
        ("regret", {"regret"}, False),  # a former module; in scope, a name
        ("shrink", set(), False),
        ("kuhn", set(), False),  # a command, a game
        ("sparselu.SparseLU", set(), True),
        ("TooLarge", set(), False),
        ("leduc(ranks=5)", set(), False),
        ("game", {"game"}, False),
        ("game", set(), True),
    ],
)
def test_the_module_name_rule(tok, scope, flagged):
    assert unqualified(tok, scope) == flagged


@pytest.mark.parametrize(
    "dotted, ok",
    [
        ("seqform.model.tree.compile_tree", True),
        ("seqform.solve", True),
        ("seqform.Solution.value", True),
        ("seqform.model.tree.Tree.is_narrow", True),
        ("seqform.no_such_thing", False),
        ("seqform.study.convergence", False),
    ],
)
def test_the_resolver(dotted, ok):
    if ok:
        resolve(dotted)
    else:
        with pytest.raises((ImportError, AttributeError)):
            resolve(dotted)

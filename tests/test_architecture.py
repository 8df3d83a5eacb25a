"""The layout's rules (ARCHITECTURE.md), read from the source: the core never imports an
extension, the core's layers import only downwards, no package imports in a circle, and no two
modules share a name for different things."""

import ast
import collections
import pathlib

import networkx as nx

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXTENSIONS = {"refinements", "lossless", "doracle", "efce"}
PACKAGES = ["seqform", *sorted(EXTENSIONS)]
# the core's layers, lowest first: a module may import its own layer and the layers below it
LAYERS = [
    {"errors", "registry", "silence", "spawnpool", "installation", "lazyexports"},
    {"model"},
    {"games"},
    {"lp"},
    {"exact"},
    {"iterative"},
    {"verify"},
    {"io"},
    {"solve", "result", "schemas"},
    {"study"},
    {"cli", "__main__", "__init__"},
]
LAYER_OF = {name: k for k, names in enumerate(LAYERS) for name in names}
# the same role in every extension: what it registers with the core
SHARED_NAMES = {"__init__", "errors", "plugin"}


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports(path: pathlib.Path) -> set:
    """Every module ``path`` imports, at the top or inside a function, as absolute names."""
    here = module_name(path).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # "from pkg import module"
    return out


def sources(package: str) -> list:
    return sorted((ROOT / package).rglob("*.py"))


def test_the_core_never_imports_an_extension():
    bad = [(module_name(p), m) for p in sources("seqform") for m in imports(p) if m.split(".")[0] in EXTENSIONS]
    assert not bad, bad


def layer(module: str) -> int:
    parts = module.split(".")
    return LAYER_OF[parts[1] if len(parts) > 1 else "__init__"]


def test_every_core_module_is_in_a_layer():
    for p in sources("seqform"):
        layer(module_name(p))  # KeyError names a module ARCHITECTURE.md does not place


def test_the_core_imports_only_downwards():
    known = {module_name(p) for p in sources("seqform")}
    bad = []
    for p in sources("seqform"):
        me = module_name(p)
        if me == "seqform":
            continue  # the package's front door re-exports from every layer
        for m in imports(p):
            if m in known and m != "seqform" and layer(m) > layer(me):
                bad.append(f"{me} -> {m}")
    assert not bad, "\n".join(bad)


def test_no_import_circles():
    G = nx.DiGraph()
    known = {module_name(p) for pkg in PACKAGES for p in sources(pkg)}
    for pkg in PACKAGES:
        for p in sources(pkg):
            me = module_name(p)
            for m in imports(p):
                # a package's __init__ re-exports its modules: an edge into it is not a circle
                if m in known and m != me and m not in PACKAGES and not me.endswith("__init__"):
                    G.add_edge(me, m)
    G.remove_nodes_from([n for n in list(G) if n in PACKAGES])
    cycles = list(nx.simple_cycles(G))
    assert not cycles, cycles


def test_no_two_modules_share_a_name():
    by_name = collections.defaultdict(list)
    for pkg in PACKAGES:
        for p in sources(pkg):
            if p.stem not in SHARED_NAMES:
                by_name[p.stem].append(module_name(p))
    clashes = {k: v for k, v in by_name.items() if len(v) > 1}
    assert not clashes, clashes


def test_architecture_md_names_every_core_package():
    text = (ROOT / "ARCHITECTURE.md").read_text()
    for d in sorted(p for p in (ROOT / "seqform").iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        assert f"`{d.name}/`" in text, d.name
    for ext in EXTENSIONS:
        assert f"`{ext}`" in text, ext


def _calls_and_imports(path: pathlib.Path) -> set:
    """The names ``path`` imports (``imports``) and every attribute it reads (``x.attr``)."""
    attrs = {n.attr for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Attribute)}
    return imports(path) | attrs


def test_every_lp_and_mip_goes_through_the_one_door_to_highs():
    """``seqform/lp/highs.py`` maps HiGHS's statuses to our errors and stops, handles Ctrl-C and
    routes its log: nothing else imports highspy or calls scipy's HiGHS front ends."""
    bad = []
    for pkg in PACKAGES:
        for p in sources(pkg):
            if p.parent == ROOT / "seqform" / "lp":
                continue
            used = _calls_and_imports(p)
            hits = sorted(m for m in used if m.split(".")[0] == "highspy" or m.split(".")[-1] in ("linprog", "milp"))
            if hits:
                bad.append(f"{module_name(p)}: {', '.join(hits)}")
    assert not bad, "\n".join(bad)


def test_one_rounding_policy():
    """Floats become rationals only through ``seqform/exact/rationals.py``."""
    bad = [
        module_name(p)
        for pkg in PACKAGES
        for p in sources(pkg)
        if p != ROOT / "seqform" / "exact" / "rationals.py" and "limit_denominator" in _calls_and_imports(p)
    ]
    assert not bad, bad


def test_no_private_name_is_imported_from_another_module():
    """A name that starts with one underscore is its module's own: no other module imports it."""
    ours = set(PACKAGES)
    bad = []
    for pkg in PACKAGES:
        for p in sources(pkg):
            here = module_name(p).split(".")
            base_here = here if p.name == "__init__.py" else here[:-1]
            for node in ast.walk(ast.parse(p.read_text())):
                if not isinstance(node, ast.ImportFrom):
                    continue
                base = base_here[: len(base_here) - node.level + 1] if node.level else []
                mod = ".".join(base + ([node.module] if node.module else []))
                if mod.split(".")[0] not in ours:
                    continue
                bad.extend(
                    f"{module_name(p)} imports {mod}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                )
    assert not bad, "\n".join(bad)

"""Extensions reach the core through ``seqform.registry`` and entry points, never by being
imported: a fresh process finds every extension's games and commands, and a third-party package
that declares an entry point adds a game the same way."""

import json
import subprocess
import sys
import textwrap


def run_python(code: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300, **kw
    )


def test_extension_games_load_without_importing_the_extension():
    r = run_python("""
        import json, sys
        import seqform
        g = seqform.games.load("four_card")        # lossless's, never imported here by hand
        h = seqform.games.load("job_market")       # efce's
        print(json.dumps([g.name, h.name, sorted(seqform.registry.registry().loaded)]))
    """)
    assert r.returncode == 0, r.stderr
    names, loaded = json.loads(r.stdout)[:2], json.loads(r.stdout)[2]
    assert names[0] and names[1]
    assert loaded == ["doracle", "efce", "lossless", "refinements"]


def test_importing_the_core_imports_no_extension():
    r = run_python("""
        import sys
        import seqform, seqform.cli
        print(sorted(m for m in ("refinements", "lossless", "doracle", "efce") if m in sys.modules))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_a_third_party_package_adds_a_game_through_an_entry_point(tmp_path):
    pkg = tmp_path / "thirdparty_games"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        textwrap.dedent("""
        from seqform.games import explicit

        def matching_pennies():
            def leaf(u):
                return ("leaf", (u, -u))
            def second(a, b):
                return ("decision", 1, "J", ("H", "T"), (leaf(a), leaf(b)))
            return explicit.TreeGame(("decision", 0, "I", ("H", "T"), (second(1, -1), second(-1, 1))),
                                     name="matching_pennies")

        def register(registry):
            registry.add_game("matching_pennies", matching_pennies)
    """)
    )
    dist = tmp_path / "thirdparty_games-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: thirdparty-games\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[seqform.extensions]\nthirdparty = thirdparty_games:register\n")
    env_code = f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
    r = run_python(
        env_code
        + textwrap.dedent("""
        import json, seqform
        sol = seqform.solve(seqform.games.load("matching_pennies"))
        print(json.dumps({"value": str(sol.value), "certified": sol.certified}))
    """)
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"value": "0", "certified": True}


def test_core_games_do_not_load_the_extensions():
    """A built-in game and its solve import no extension: the registry is asked only for names
    the core does not have (loading every plugin cost Kuhn's solve 20x its time)."""
    r = run_python("""
        import sys, seqform
        seqform.solve(seqform.games.load("kuhn"))
        print(sorted(m for m in ("refinements", "lossless", "doracle", "efce") if m in sys.modules))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"

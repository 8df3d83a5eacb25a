#!/usr/bin/env python3
"""Benchmark seqform's CFR+ and best response against OpenSpiel (C++ and Python) and LiteEFG.

Everything runs in ONE process (this script), one measurement after the other, single-threaded
(LiteEFG at its default of 1 native thread). Per game (default Leduc, then Kuhn):

1. CFR+ for ``--iterations`` iterations (default 1,000), from a fresh solver:

   * ``seqform``: ``RegretMinimizer(tree, "cfr+").step(n)``;
   * ``OpenSpiel C++``: ``pyspiel.CFRPlusSolver(game)``, ``evaluate_and_update_policy()`` n times;
   * ``OpenSpiel Python``: ``open_spiel.python.algorithms.cfr.CFRPlusSolver``, the same loop
     (``--python-iterations``, default the same n, run once);
   * ``LiteEFG``: ``LiteEFG.OpenSpielEnv(game)`` with its baseline ``LiteEFG.baselines.CFRplus.graph``
     and the loop of its own ``baselines.utils.train``: ``graph.update_graph(env)`` (alternating
     updates, player 1 then 2) and ``env.update_strategy(graph.current_strategy())`` (which
     accumulates the averages) per iteration; the average is its ``"linear-avg-iterate"``, the one
     ``train`` uses for CFR+.

   Only the iteration loop is timed (``time.perf_counter`` around it); set-up (loading or compiling
   the game, building the solver; for LiteEFG converting the OpenSpiel game to its game file, done
   in a temporary ``HOME`` so nothing is cached in the user's ``~/game_instances``) is timed
   separately. Iterations per second is the median over ``--repeats`` fresh runs (default 3;
   OpenSpiel Python once). The exploitability of each solver's average strategy after the run is
   in OpenSpiel's convention, NashConv / 2 (the mean over the two players of the best-response
   gain): seqform ``exploitability(tree, profile).exploitability``, OpenSpiel
   ``pyspiel.exploitability`` (C++) and ``open_spiel.python.algorithms.exploitability`` (Python).
   LiteEFG's ``env.exploitability(strategy, "linear-avg-iterate")`` returns one best-response gain
   per player, and its ``train`` prints their SUM, which is NashConv; the table shows sum / 2, and
   it is cross-checked with ``pyspiel.exploitability`` on the strategy ``env.get_strategy`` returns.

2. One exploitability computation on the same strategy, seqform's average after the n iterations
   of part 1 (as a ``Profile``; for OpenSpiel converted once, untimed, with
   ``seqform.io.openspiel.to_openspiel_policy`` and ``pyspiel.TabularPolicy``): median and minimum
   over repeats (after one untimed warm-up call) of seqform ``exploitability(tree, profile,
   validate=False)``, OpenSpiel C++ ``pyspiel.exploitability(game, policy)`` and OpenSpiel Python
   ``exploitability.exploitability(game, policy)``. LiteEFG's ``env.exploitability`` is timed on its
   own average strategy (it cannot take another solver's strategy); its cost does not depend on
   the strategy's values.

3. Ratios: peer time / seqform time (seqform's speed-up), and peer exploitability / seqform
   exploitability (above 1: seqform's average strategy is the less exploitable one).

Also measured (notes section): how sensitive CFR+'s exploitability after n iterations is to
rounding (``--perturbed-runs`` runs, default 10): seqform again with its accumulated regrets
multiplied by (1 + 1e-15 e), e standard normal per entry, after iteration 1. OpenSpiel's CFR+
iterates are seqform's to about 1e-12 for the first hundred Leduc iterations and then drift
apart by amounts of this size; the band says how far apart two correct implementations may end.

Usage (from the repository root)::

    python bench/bench_cfr.py                                   # leduc and kuhn, 1,000 iterations
    python bench/bench_cfr.py --games kuhn --iterations 20 --no-write

Writes ``bench/results/cfr-YYYY-MM-DD.md`` and ``.json`` (``--out-dir``, ``--no-write``). A peer that
is not installed gets a row saying so.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import importlib.metadata as md
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_solve import machine_info, split_games, write_results  # noqa: E402

GAMES = "leduc,kuhn"
SOLVERS = ("seqform", "OpenSpiel C++", "OpenSpiel Python", "LiteEFG")
# what the project's targets quote (Leduc)
TARGET_RATE = 2500.0
TARGET_EXPL_MS = 2.0
REPORTED = {"LiteEFG": "LiteEFG 1.0 482 it/s", "OpenSpiel C++": "OpenSpiel C++ 82 it/s"}
REPORTED_EXPL_MS = "OpenSpiel C++ 85 ms"
PERTURBATION = 1e-15


# ==============================================================================================
# helpers
# ==============================================================================================


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def version(pkg: str) -> str | None:
    try:
        return md.version(pkg)
    except md.PackageNotFoundError:
        return None


def timed_calls(fn, max_repeats: int, budget: float, min_repeats: int = 3) -> dict:
    """Call ``fn`` once untimed (warm-up), then up to ``max_repeats`` times (at least
    ``min_repeats``, stopping once ``budget`` seconds are spent): median and min in ms."""
    fn()
    times = []
    start = time.perf_counter()
    while len(times) < max_repeats and (len(times) < min_repeats or time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return {"median_ms": statistics.median(times) * 1e3, "min_ms": min(times) * 1e3, "repeats": len(times)}


def _cpu_ticks() -> dict:
    """{pid: (utime + stime clock ticks, command line)} of every process, from /proc."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            out[int(d)] = (int(fields[11]) + int(fields[12]), cmd[:120])  # utime, stime (fields 14, 15)
        except (OSError, IndexError, ValueError):
            pass
    return out


def other_cpu(before: dict, after: dict, seconds: float, threshold: float = 0.05) -> list:
    """Other processes that used more than ``threshold`` of a core on average between two
    ``_cpu_ticks`` snapshots ``seconds`` apart (a process started in between counts in full):
    [(pid, share of a core, command line)], busiest first."""
    try:
        hz = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return []
    me = os.getpid()
    busy = []
    for pid, (ticks, cmd) in after.items():
        share = (ticks - before.get(pid, (0, ""))[0]) / hz / max(seconds, 1e-9)
        if pid != me and share > threshold:
            busy.append((pid, round(share, 2), cmd))
    return sorted(busy, key=lambda b: -b[1])


def busy_processes(window: float = 1.0) -> list:
    """Other processes using over 10 % of a core over a ``window``-second sample."""
    try:
        a = _cpu_ticks()
        time.sleep(window)
        return other_cpu(a, _cpu_ticks(), window, 0.10)
    except OSError:
        return []


def openspiel_name(spec: str) -> str | None:
    import seqform
    from seqform.io.openspiel import openspiel_name as name

    try:
        return name(seqform.games.load(spec))
    except Exception:  # noqa: BLE001  (no OpenSpiel counterpart)
        return None


# ==============================================================================================
# part 1: CFR+ iterations
# ==============================================================================================


def run_seqform(spec: str, n: int) -> dict:
    import seqform
    from seqform.iterative.cfr import RegretMinimizer
    from seqform.model.tree import compile_tree
    from seqform.verify.exploitability import exploitability

    t0 = time.perf_counter()
    tree = compile_tree(seqform.games.load(spec))
    t_compile = time.perf_counter() - t0
    t0 = time.perf_counter()
    solver = RegretMinimizer(tree, "cfr+")
    t_setup = time.perf_counter() - t0
    t0 = time.perf_counter()
    solver.step(n)
    secs = time.perf_counter() - t0
    profile = solver.average_profile()
    expl = exploitability(tree, profile, validate=False).exploitability
    return {
        "seconds": secs,
        "setup_seconds": t_compile + t_setup,
        "compile_seconds": t_compile,
        "exploitability": expl,
        "_tree": tree,
        "_profile": profile,
    }


def _run_openspiel(name: str, n: int, make_solver, exploitability_of) -> dict:
    """n CFR+ iterations of an OpenSpiel solver (set-up timed apart) and its average's exploitability."""
    import pyspiel

    t0 = time.perf_counter()
    game = pyspiel.load_game(name)
    solver = make_solver(game)
    setup = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(n):
        solver.evaluate_and_update_policy()
    secs = time.perf_counter() - t0
    return {
        "seconds": secs,
        "setup_seconds": setup,
        "exploitability": float(exploitability_of(game, solver.average_policy())),
    }


def run_openspiel_cpp(name: str, n: int) -> dict:
    import pyspiel

    return _run_openspiel(name, n, pyspiel.CFRPlusSolver, pyspiel.exploitability)


def run_openspiel_python(name: str, n: int) -> dict:
    from open_spiel.python.algorithms import cfr, exploitability

    return _run_openspiel(name, n, cfr.CFRPlusSolver, exploitability.exploitability)


def liteefg_setup(name: str):
    """(env, graph, set-up seconds): LiteEFG's OpenSpiel environment and CFR+ baseline graph.
    The game file LiteEFG writes under ``~/game_instances`` goes to a temporary HOME instead,
    and its progress prints are swallowed."""
    import LiteEFG as leg
    import pyspiel
    from LiteEFG.baselines.CFRplus import graph as CFRPlusGraph

    old_home = os.environ.get("HOME")
    with tempfile.TemporaryDirectory(prefix="liteefg-home-") as home:
        os.environ["HOME"] = home
        try:
            t0 = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                env = leg.OpenSpielEnv(pyspiel.load_game(name), traverse_type="Enumerate", regenerate=True)
                graph = CFRPlusGraph()
                env.set_graph(graph)
            setup = time.perf_counter() - t0
        finally:
            if old_home is None:
                os.environ.pop("HOME", None)
            else:
                os.environ["HOME"] = old_home
    return env, graph, setup


def run_liteefg(name: str, n: int) -> dict:
    import LiteEFG as leg
    import pyspiel

    env, graph, setup = liteefg_setup(name)
    t0 = time.perf_counter()
    for _ in range(n):  # the loop of LiteEFG.baselines.utils.train
        graph.update_graph(env)
        env.update_strategy(graph.current_strategy(), update_best=False)
    secs = time.perf_counter() - t0
    gains = [float(x) for x in env.exploitability(graph.current_strategy(), "linear-avg-iterate")]
    policy, _ = env.get_strategy(graph.current_strategy(), "linear-avg-iterate")
    cross = float(pyspiel.exploitability(pyspiel.load_game(name), policy.to_dict()))
    return {
        "seconds": secs,
        "setup_seconds": setup,
        "exploitability": sum(gains) / 2,
        "liteefg_reported": sum(gains),
        "liteefg_per_player": gains,
        "openspiel_exploitability_of_its_policy": cross,
        "threads": leg.get_threads(),
        "_env": env,
        "_graph": graph,
    }


def measure(kind: str, spec: str, name: str | None, n: int, repeats: int) -> dict:
    """Run one solver ``repeats`` times from scratch; a row for the table (plus private objects
    from the last run, keys starting with '_')."""
    row: dict = {"game": spec, "solver": kind, "iterations": n, "repeats": repeats}
    try:
        if kind != "seqform" and name is None:
            raise LookupError(f"n/a: no OpenSpiel counterpart of {spec!r}")
        fn = {
            "seqform": lambda: run_seqform(spec, n),
            "OpenSpiel C++": lambda: run_openspiel_cpp(name, n),
            "OpenSpiel Python": lambda: run_openspiel_python(name, n),
            "LiteEFG": lambda: run_liteefg(name, n),
        }[kind]
        runs = []
        for _ in range(repeats):
            runs.append(fn())
    except ImportError as e:
        row.update(status="not installed", error=f"{type(e).__name__}: {e}")
        return row
    except LookupError as e:
        row.update(status="n/a", error=str(e))
        return row
    except Exception as e:  # noqa: BLE001  (a failed peer is a row, not a crash)
        row.update(status="error", error=f"{type(e).__name__}: {e}"[:300])
        return row
    last = runs[-1]
    rates = [n / r["seconds"] if r["seconds"] > 0 else float("inf") for r in runs]
    expls = [r["exploitability"] for r in runs]
    row.update(
        status="ok",
        rate=statistics.median(rates),
        rates=rates,
        seconds=[r["seconds"] for r in runs],
        setup_seconds=statistics.median(r["setup_seconds"] for r in runs),
        exploitability=expls[-1],
        exploitability_all_runs=expls,
        deterministic=max(expls) - min(expls) <= 1e-15 * max(1.0, abs(expls[-1])),
    )
    for k, v in last.items():
        if k not in ("seconds", "setup_seconds", "exploitability"):
            row[k] = v
    return row


def rounding_sensitivity(tree, n: int, runs: int, base: float) -> dict:
    """seqform's CFR+ again ``runs`` times, each with its accumulated regrets multiplied by
    (1 + PERTURBATION * e), e standard normal per entry (seeded), after iteration 1: the
    exploitabilities after n iterations, against the unperturbed run's ``base``."""
    import numpy as np

    from seqform.iterative.cfr import RegretMinimizer
    from seqform.verify.exploitability import exploitability

    rng = np.random.default_rng(20261122)
    vals = []
    for _ in range(runs):
        s = RegretMinimizer(tree, "cfr+")
        s.step(1)
        for p in (0, 1):
            s.regret[p] *= 1.0 + PERTURBATION * rng.standard_normal(len(s.regret[p]))
        s.step(max(0, n - 1))
        vals.append(exploitability(tree, s.average_profile(), validate=False).exploitability)
    out = {"perturbation": PERTURBATION, "runs": runs, "base": base, "exploitabilities": vals}
    if vals:
        lo, hi = min(vals + [base]), max(vals + [base])
        out.update(
            low=lo,
            high=hi,
            median=statistics.median(vals),
            low_pct=(lo / base - 1) * 100 if base > 0 else 0.0,
            high_pct=(hi / base - 1) * 100 if base > 0 else 0.0,
        )
    return out


# ==============================================================================================
# part 2: one exploitability computation
# ==============================================================================================


def time_exploitability(spec: str, name: str | None, base: dict, lite: dict | None) -> list:
    rows = []
    tree, profile = base["_tree"], base["_profile"]
    from seqform.verify.exploitability import exploitability

    r = {
        "game": spec,
        "solver": "seqform",
        "call": "exploitability(tree, profile, validate=False)",
        "strategy": "seqform's average",
        "status": "ok",
        "value": exploitability(tree, profile, validate=False).exploitability,
    }
    r.update(timed_calls(lambda: exploitability(tree, profile, validate=False), 1000, 3.0))
    r["validate_true"] = timed_calls(lambda: exploitability(tree, profile, validate=True), 1000, 2.0)
    rows.append(r)
    say(f"  {spec}: exploitability seqform {r['median_ms']:.3f} ms")

    pol = None
    for kind in ("OpenSpiel C++", "OpenSpiel Python"):
        r = {"game": spec, "solver": kind, "strategy": "seqform's average"}
        try:
            if name is None:
                raise LookupError(f"n/a: no OpenSpiel counterpart of {spec!r}")
            import pyspiel

            game = pyspiel.load_game(name)
            if pol is None:
                from seqform.io.openspiel import to_openspiel_policy

                t0 = time.perf_counter()
                pol = to_openspiel_policy(tree, profile, game)
                cpol = pyspiel.TabularPolicy(pol.to_dict())
                conv = time.perf_counter() - t0
            if kind == "OpenSpiel C++":
                r["call"] = "pyspiel.exploitability(game, pyspiel.TabularPolicy)"
                r["conversion_seconds"] = conv
                r["value"] = float(pyspiel.exploitability(game, cpol))
                r.update(timed_calls(lambda: pyspiel.exploitability(game, cpol), 50, 5.0))
            else:
                from open_spiel.python.algorithms import exploitability as pexp

                r["call"] = "open_spiel.python.algorithms.exploitability.exploitability(game, TabularPolicy)"
                r["value"] = float(pexp.exploitability(game, pol))
                r.update(timed_calls(lambda: pexp.exploitability(game, pol), 20, 5.0))
            r["status"] = "ok"
        except ImportError as e:
            r.update(status="not installed", error=f"{type(e).__name__}: {e}")
        except LookupError as e:
            r.update(status="n/a", error=str(e))
        except Exception as e:  # noqa: BLE001
            r.update(status="error", error=f"{type(e).__name__}: {e}"[:300])
        rows.append(r)
        if r["status"] == "ok":
            say(f"  {spec}: exploitability {kind} {r['median_ms']:.3f} ms")

    r = {
        "game": spec,
        "solver": "LiteEFG",
        "strategy": "LiteEFG's own linear average",
        "call": 'env.exploitability(strategy, "linear-avg-iterate")',
    }
    if lite and lite.get("status") == "ok":
        env, graph = lite["_env"], lite["_graph"]
        gains = env.exploitability(graph.current_strategy(), "linear-avg-iterate")
        r.update(status="ok", value=sum(gains) / 2)
        r.update(timed_calls(lambda: env.exploitability(graph.current_strategy(), "linear-avg-iterate"), 1000, 3.0))
        say(f"  {spec}: exploitability LiteEFG {r['median_ms']:.3f} ms")
    else:
        r.update(status=(lite or {}).get("status", "n/a"), error=(lite or {}).get("error", ""))
    rows.append(r)
    return rows


# ==============================================================================================
# report
# ==============================================================================================


def _fmt_rate(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}" if x >= 10 else f"{x:,.2f}"


def _fmt_x(x: float) -> str:
    return f"{x:,.0f}x" if x >= 10 else f"{x:.1f}x" if x >= 1 else f"{x:.2f}x"


def _fmt_ms(x: float) -> str:
    return f"{x:,.1f}" if x >= 10 else f"{x:.3f}"


def cfr_table(rows: list) -> list:
    out = [
        "| game | solver | iterations | it/s | set-up s | exploitability | seqform speed-up | "
        "peer expl. / seqform expl. | notes |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        base = next((b for b in rows if b["game"] == r["game"] and b["solver"] == "seqform"), None)
        if r["status"] != "ok":
            out.append(f"| {r['game']} | {r['solver']} | - | {r['status']} | - | - | - | - | {r.get('error', '')} |")
            continue
        notes = []
        if r["solver"] == "LiteEFG":
            notes.append(
                f"LiteEFG reports NashConv {r['liteefg_reported']:.6g} (sum of the per-player gains); "
                f"shown: / 2; pyspiel.exploitability of its policy {r['openspiel_exploitability_of_its_policy']:.6g}"
            )
        if r["repeats"] > 1:
            notes.append(f"median of {r['repeats']} runs ({', '.join(_fmt_rate(x) for x in r['rates'])} it/s)")
        else:
            notes.append("1 run")
        if not r.get("deterministic", True):
            notes.append("exploitability differs between runs")
        ok = base is not None and base["status"] == "ok"
        if r["solver"] == "seqform" or not ok:
            speed, eratio = "-", "-"
        else:
            speed = _fmt_x(base["rate"] / r["rate"])
            eratio = (
                f"{r['exploitability'] / base['exploitability']:.3f}"
                if r["iterations"] == base["iterations"] and base["exploitability"] > 0
                else "- (other iteration count)"
            )
        out.append(
            f"| {r['game']} | {r['solver']} | {r['iterations']:,} | {_fmt_rate(r['rate'])} | "
            f"{r['setup_seconds']:.3f} | {r['exploitability']:.6g} | {speed} | {eratio} | {'; '.join(notes)} |"
        )
    return out


def expl_table(rows: list) -> list:
    out = [
        "| game | solver | strategy | median ms | min ms | repeats | exploitability | seqform speed-up | call |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        base = next((b for b in rows if b["game"] == r["game"] and b["solver"] == "seqform"), None)
        if r["status"] != "ok":
            out.append(f"| {r['game']} | {r['solver']} | - | {r['status']} | - | - | - | - | {r.get('error', '')} |")
            continue
        speed = "-" if r["solver"] == "seqform" else _fmt_x(r["median_ms"] / base["median_ms"])
        out.append(
            f"| {r['game']} | {r['solver']} | {r['strategy']} | {_fmt_ms(r['median_ms'])} | "
            f"{_fmt_ms(r['min_ms'])} | {r['repeats']} | {r['value']:.6g} | {speed} | `{r['call']}` |"
        )
    return out


def targets(cfr_rows: list, expl_rows: list, n: int, sens: dict) -> list:
    def get(rows, solver, game="leduc"):
        return next((r for r in rows if r["game"] == game and r["solver"] == solver and r["status"] == "ok"), None)

    out = []
    s = get(cfr_rows, "seqform")
    band = ""
    if s is not None and sens.get("leduc", {}).get("runs"):
        d = sens["leduc"]
        band = f" {d['low']:.6g} .. {d['high']:.6g} ({d['low_pct']:+.1f} % .. {d['high_pct']:+.1f} %, Notes)"
    out.append(
        (
            f"CFR+ on Leduc >= {TARGET_RATE:,.0f} it/s",
            None if s is None else s["rate"] >= TARGET_RATE,
            "-" if s is None else f"{_fmt_rate(s['rate'])} it/s",
        )
    )
    for peer in ("OpenSpiel C++", "LiteEFG"):
        p = get(cfr_rows, peer)
        met = None if s is None or p is None or p["iterations"] != n else s["exploitability"] <= p["exploitability"]
        ev = "-"
        if met is not None:
            ev = (
                f"seqform {s['exploitability']:.6g} vs {p['exploitability']:.6g} "
                f"({(s['exploitability'] / p['exploitability'] - 1) * 100:+.1f} %)"
            )
            if band:
                inside = sens["leduc"]["low"] <= p["exploitability"] <= sens["leduc"]["high"]
                ev += f"; {peer}'s value is {'inside' if inside else 'outside'} seqform's rounding band{band}"
        out.append((f"exploitability after {n:,} iterations (Leduc) no worse than {peer}'s", met, ev))
    e = get(expl_rows, "seqform")
    out.append(
        (
            f"one exploitability computation on Leduc <= {TARGET_EXPL_MS:g} ms",
            None if e is None else e["median_ms"] <= TARGET_EXPL_MS,
            "-" if e is None else f"{e['median_ms']:.3f} ms median",
        )
    )
    return out


def report(info: dict, args, cfr_rows: list, expl_rows: list, sens: dict, started: str) -> str:
    pk = info["packages"]
    la0 = ", ".join(f"{x:.2f}" for x in info["loadavg_start"])
    la1 = ", ".join(f"{x:.2f}" for x in info.get("loadavg_end", []))
    busy = info.get("busy_at_start", [])
    busy_txt = (
        "none: the machine was otherwise idle"
        if not busy
        else "; ".join(f"pid {p} at {s:.0%} of a core (`{c}`)" for p, s, c in busy)
    )
    during = info.get("busy_during_run", [])
    during_txt = (
        "none: the machine was otherwise idle throughout"
        if not during
        else "; ".join(f"pid {p} {s:.0%} of a core on average (`{c}`)" for p, s, c in during)
    )
    busy_end = info.get("busy_at_end", [])
    busy_end_txt = (
        "none" if not busy_end else "; ".join(f"pid {p} at {s:.0%} of a core (`{c}`)" for p, s, c in busy_end)
    )
    lines = [
        f"# CFR+ and exploitability: seqform against OpenSpiel and LiteEFG, {started}",
        "",
        f"- machine: {info['cpu']}, {info['cores']} cores ({info.get('cores_available', '?')} available), "
        f"{info.get('ram_gib', '?')} GiB RAM; {info['platform']}",
        f"- Python {info['python']}; seqform {pk.get('seqform')}, "
        f"open_spiel {pk.get('open_spiel') or 'not installed'}, "
        f"LiteEFG {info.get('liteefg') or 'not installed'}, numpy {pk.get('numpy')}, scipy {pk.get('scipy')}",
        f"- other processes using over 10 % of a core (1 s sample) at start: {busy_txt}; at end: {busy_end_txt}",
        f"- other processes using over 5 % of a core averaged over the whole run "
        f"({info.get('run_seconds', 0):.0f} s, from /proc CPU times): {during_txt}",
        f"- load average (1, 5, 15 min) at start: {la0}; at end: {la1}",
        "- everything ran in this one process, one measurement after the other, single-threaded "
        f"(LiteEFG native threads: {info.get('liteefg_threads', '-')}); command: `{' '.join(info.get('argv', []))}`",
        "",
        "## CFR+ iterations",
        "",
        "Columns: *it/s* = iterations / seconds of the iteration loop only (median over fresh runs; "
        "one CFR+ iteration updates both players, alternating); *set-up s* = loading/compiling the game "
        "and building the solver (LiteEFG: converting the OpenSpiel game to its game file, building the "
        "graph), not in it/s; *exploitability* = of the solver's average strategy after the iterations, "
        "OpenSpiel's convention NashConv / 2 for every solver (LiteEFG reports NashConv, converted); "
        "*seqform speed-up* = seqform it/s / peer it/s; *peer expl. / seqform expl.* above 1 means "
        "seqform's average strategy is the less exploitable. Averages: seqform and OpenSpiel weight "
        "iteration t's strategy by t (linear averaging, CFR+); LiteEFG's `linear-avg-iterate` weights "
        "the strategies after each iteration's updates by t.",
        "",
        *cfr_table(cfr_rows),
        "",
        "## One exploitability computation",
        "",
        "On seqform's average strategy after the CFR+ run above (for OpenSpiel converted once, untimed, "
        "to a TabularPolicy); LiteEFG on its own average strategy (its cost does not depend on the "
        "values). Median and minimum over repeats after one warm-up call; *seqform speed-up* = peer "
        "median / seqform median.",
        "",
        *expl_table(expl_rows),
        "",
        "## Targets",
        "",
        "| target | met | measured |",
        "|---|---|---|",
    ]
    for name, met, ev in targets(cfr_rows, expl_rows, args.iterations, sens):
        lines.append(f"| {name} | {'-' if met is None else ('yes' if met else 'NO')} | {ev} |")
    lines += [
        "",
        f"Figures the targets quote (reported elsewhere, other machines), to set beside the peers "
        f"measured here: CFR+ on Leduc {', '.join(REPORTED.values())}; one exploitability "
        f"computation {REPORTED_EXPL_MS}.",
        "",
        "## Notes",
        "",
    ]
    for spec, d in sens.items():
        base = next((r for r in cfr_rows if r["game"] == spec and r["solver"] == "seqform"), None)
        if base is None or base["status"] != "ok":
            continue
        if not d.get("runs"):
            continue
        lines.append(
            f"- Rounding band ({spec}): seqform's CFR+ run {d['runs']} more times, each with its "
            f"accumulated regrets multiplied by (1 + {PERTURBATION:g} e), e standard normal per entry, "
            f"after iteration 1, ends after {args.iterations:,} iterations at exploitabilities "
            f"{d['low']:.6g} .. {d['high']:.6g} (median {d['median']:.6g}; {d['low_pct']:+.1f} % .. "
            f"{d['high_pct']:+.1f} % from the unperturbed {base['exploitability']:.6g}). CFR+ amplifies "
            f"rounding: differences of this size between implementations of the same algorithm "
            f"(summation order) say nothing about their quality."
        )
    for r in cfr_rows:
        if r["solver"] == "seqform" and r["status"] == "ok":
            lines.append(
                f"- seqform {r['game']}: compiling the tree {r['compile_seconds']:.3f} s of the "
                f"{r['setup_seconds']:.3f} s set-up."
            )
    for r in expl_rows:
        if r["solver"] == "seqform" and r["status"] == "ok":
            lines.append(
                f"- seqform {r['game']}: with `validate=True` (checks the profile first) "
                f"{_fmt_ms(r['validate_true']['median_ms'])} ms median."
            )
        if r["solver"] == "OpenSpiel C++" and r["status"] == "ok":
            lines.append(
                f"- OpenSpiel {r['game']}: converting seqform's profile to a pyspiel.TabularPolicy "
                f"took {r['conversion_seconds'] * 1e3:.1f} ms (not timed above)."
            )
    return "\n".join(lines) + "\n"


def strip_private(rows: list) -> list:
    return [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", default=GAMES, help=f"games, comma-separated (default {GAMES})")
    ap.add_argument("--iterations", type=int, default=1000, help="CFR+ iterations per run (default 1000)")
    ap.add_argument(
        "--python-iterations",
        type=int,
        default=None,
        help="iterations for OpenSpiel's Python CFR+ (default: --iterations)",
    )
    ap.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="fresh runs per solver for the iteration rate, median shown (OpenSpiel Python: 1)",
    )
    ap.add_argument(
        "--perturbed-runs",
        type=int,
        default=10,
        help="seqform runs with rounding-size perturbations, for the rounding band (default 10)",
    )
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true", help="print only; write no results files")
    args = ap.parse_args(argv)
    n, n_py = args.iterations, args.python_iterations or args.iterations

    info = machine_info()
    info["liteefg"] = version("LiteEFG")
    info["argv"] = [Path(sys.argv[0]).name] + (argv if argv is not None else sys.argv[1:])
    info["busy_at_start"] = busy_processes()
    ticks0, wall0 = _cpu_ticks(), time.perf_counter()
    started = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    say(f"CFR+ benchmark on {info['cpu']}, load {info['loadavg_start']}, busy: {info['busy_at_start'] or 'none'}")

    cfr_rows, expl_rows, sens = [], [], {}
    for spec in split_games(args.games):
        name = openspiel_name(spec)
        rows = {}
        for kind in SOLVERS:
            iters, reps = (n_py, 1) if kind == "OpenSpiel Python" else (n, args.repeats)
            say(f"{spec}: {kind}, {iters} iterations x {reps} ...")
            rows[kind] = measure(kind, spec, name, iters, reps)
            r = rows[kind]
            say(
                f"  {r['status']}"
                + (
                    f": {_fmt_rate(r['rate'])} it/s, exploitability {r['exploitability']:.6g}"
                    if r["status"] == "ok"
                    else f": {r.get('error')}"
                )
            )
        cfr_rows += rows.values()
        base = rows["seqform"]
        if base["status"] == "ok":
            say(f"{spec}: rounding band, {args.perturbed_runs} perturbed seqform runs ...")
            sens[spec] = rounding_sensitivity(base["_tree"], n, args.perturbed_runs, base["exploitability"])
            expl_rows += time_exploitability(spec, name, base, rows["LiteEFG"])
        if rows["LiteEFG"].get("threads") is not None:
            info["liteefg_threads"] = rows["LiteEFG"]["threads"]
    info["loadavg_end"] = list(os.getloadavg())
    info["run_seconds"] = time.perf_counter() - wall0
    info["busy_during_run"] = other_cpu(ticks0, _cpu_ticks(), info["run_seconds"])
    info["busy_at_end"] = busy_processes()
    text = report(info, args, cfr_rows, expl_rows, sens, started)
    print(text)
    if not args.no_write:
        payload = {
            "started": started,
            "machine": info,
            "iterations": n,
            "python_iterations": n_py,
            "repeats": args.repeats,
            "process": "all measurements in one process, sequentially",
            "cfr": strip_private(cfr_rows),
            "exploitability": strip_private(expl_rows),
            "rounding_sensitivity": sens,
            "targets": [{"target": t, "met": m, "measured": e} for t, m, e in targets(cfr_rows, expl_rows, n, sens)],
        }
        stem = write_results(args.out_dir, "cfr", text, payload)
        say(f"wrote {stem}.md and {stem}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())

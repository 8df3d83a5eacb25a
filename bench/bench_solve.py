#!/usr/bin/env python3
"""Benchmark ``seqform.solve`` against OpenSpiel's and Gambit's sequence-form LPs.

Every measurement runs in a fresh subprocess (this script re-invoked with ``--child``), so each
run's peak memory is its own (the child's ``ru_maxrss`` taken with ``os.wait4``, which also
works for a child that was killed) and a run over the time cap (``--cap``, default 300 s) is
killed and reported as a timeout. An address-space cap (``--mem-cap``, default 8 GiB) turns a
runaway allocation into a ``MemoryError`` in that child instead of an OOM on a shared machine.

Solvers per game:

* ``seqform-float``: ``seqform.solve(load(spec), certify_exact=False)`` (build + HiGHS LP);
* ``seqform-exact``: ``seqform.solve(load(spec), certify_exact=True)`` (build + LP + rational
  certificate);
* ``openspiel``: ``open_spiel.python.algorithms.sequence_form_lp.solve_zero_sum_game`` on the
  matching OpenSpiel game (cvxpy + ECOS, its default); where OpenSpiel has no such game
  (``leduc`` with 5 or 6 ranks) it solves seqform's ``.efg`` file loaded with
  ``pyspiel.load_efg_game`` instead, marked "via .efg";
* ``gambit-float`` / ``gambit-rational``: ``pygambit.nash.lp_solve(rational=False/True)`` on the
  ``.efg`` written by ``seqform.io.efgwrite.write_efg`` (file loading timed separately, not included).

Usage (from the repository root)::

    python bench/bench_solve.py                       # all games, all solvers
    python bench/bench_solve.py --games kuhn,leduc --cap 60 --skip-peers

It prints a markdown table and writes ``bench/results/solve-YYYY-MM-DD.md`` and ``.json``
(``--out-dir`` to change, ``--no-write`` to skip). See ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_GAMES = [
    "kuhn",
    "leduc",
    "leduc(ranks=5)",
    "leduc(ranks=6)",
    "liars_dice(1,3)",
    "liars_dice(1,6)",
    "goofspiel(5)",
]
SEQFORM = ("seqform-float", "seqform-exact")
PEERS = ("openspiel", "gambit-float", "gambit-rational")
RESULT_TAG = "BENCH_RESULT "
AGREE_TOL = 1e-6


# ==============================================================================================
# children: one measurement each, result printed as one JSON line
# ==============================================================================================


def _rss_kib(field: str = "VmRSS") -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def openspiel_game(spec: str):
    """(OpenSpiel game string, how) for a seqform game name, or (None, reason)."""
    from seqform.games import load

    g = load(spec)
    kind = type(g).__name__
    if kind == "Kuhn":
        return "kuhn_poker", "native"
    if kind == "Leduc":
        if (g.ranks, g.suits) == (3, 2):
            return "leduc_poker", "native"
        return None, "no deck parameter in OpenSpiel's leduc_poker"
    if kind == "LiarsDice":
        return f"liars_dice(numdice={g.dice},dice_sides={g.sides})", "native"
    if kind == "Goofspiel":
        if not g.imp_info:
            return None, "seqform's imp_info=False goofspiel differs from OpenSpiel's"
        return (
            f"turn_based_simultaneous_game(game=goofspiel(num_cards={g.cards},imp_info=True,"
            f"points_order={g.points_order},returns_type={g.returns}))"
        ), "native"
    return None, f"no OpenSpiel counterpart for {kind}"


def _child(kind: str, spec: str, efg: str | None) -> dict:
    out: dict = {"kind": kind, "game": spec}
    t_import = time.perf_counter()
    if kind in SEQFORM:
        import seqform
        from seqform.games import load

        out["rss_after_import_mib"] = (_rss_kib() or 0) / 1024
        out["import_seconds"] = time.perf_counter() - t_import
        t0 = time.perf_counter()
        sol = seqform.solve(load(spec), certify_exact=(kind == "seqform-exact"))
        out["seconds"] = time.perf_counter() - t0
        out["breakdown"] = dict(sol.seconds)
        out["value_float"] = sol.value_float
        out["value"] = str(sol.value) if sol.value is not None else None
        out["certified"] = sol.certified
        out["sizes"] = sol.sizes
        out["exploitability"] = sol.exploitability
    elif kind == "openspiel":
        import pyspiel
        from open_spiel.python.algorithms import sequence_form_lp

        try:
            import cvxpy

            out["lp_solver"] = "ECOS" if "ECOS" in cvxpy.installed_solvers() else None
        except ImportError:
            out["lp_solver"] = None
        if out["lp_solver"] is None:
            raise RuntimeError("cvxpy's ECOS solver (OpenSpiel's default) is not installed: pip install ecos")
        out["rss_after_import_mib"] = (_rss_kib() or 0) / 1024
        out["import_seconds"] = time.perf_counter() - t_import
        t0 = time.perf_counter()
        name, how = openspiel_game(spec)
        if name is not None:
            game = pyspiel.load_game(name)
            out["openspiel_game"] = name
        else:
            if efg is None:
                raise RuntimeError(f"n/a: {how}")
            game = pyspiel.load_efg_game(Path(efg).read_text())
            out["openspiel_game"] = f"efg_game (seqform's .efg; {how})"
        out["load_seconds"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = sequence_form_lp.solve_zero_sum_game(game)
        out["seconds"] = time.perf_counter() - t0
        out["value_float"] = float(res[0])
    elif kind in ("gambit-float", "gambit-rational"):
        import pygambit as gbt

        out["rss_after_import_mib"] = (_rss_kib() or 0) / 1024
        out["import_seconds"] = time.perf_counter() - t_import
        t0 = time.perf_counter()
        g = gbt.read_efg(efg)
        out["load_seconds"] = time.perf_counter() - t0
        out["rss_after_load_mib"] = (_rss_kib() or 0) / 1024
        t0 = time.perf_counter()
        res = gbt.nash.lp_solve(g, rational=(kind == "gambit-rational"))
        out["seconds"] = time.perf_counter() - t0
        if not res.equilibria:
            raise RuntimeError("lp_solve returned no equilibrium")
        v = res.equilibria[0].payoff("Player 1")
        if kind == "gambit-rational":
            out["value"] = str(v)
            out["value_float"] = float(Fraction(str(v)))
        else:
            out["value_float"] = float(v)
    else:
        raise SystemExit(f"unknown child kind {kind!r}")
    out["peak_rss_mib"] = (_rss_kib("VmHWM") or 0) / 1024
    return out


def child_main(args) -> int:
    if args.mem_cap_gib > 0:
        lim = int(args.mem_cap_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    try:
        res = _child(args.child, args.game, args.efg)
        res["status"] = "ok"
    except MemoryError:
        res = {"status": "MemoryError", "error": f"MemoryError (address space capped at {args.mem_cap_gib:g} GiB)"}
    except Exception as e:  # reported, not raised: the parent keeps going
        msg = f"{type(e).__name__}: {e}"
        status = "n/a" if str(e).startswith("n/a") else "error"
        res = {"status": status, "error": msg[:500]}
    res.setdefault("peak_rss_mib", (_rss_kib("VmHWM") or 0) / 1024)
    sys.stdout.flush()
    print("\n" + RESULT_TAG + json.dumps(res), flush=True)
    return 0


# ==============================================================================================
# parent: run the children, collect, report
# ==============================================================================================


def run_child(kind: str, spec: str, efg: str | None, cap: float, mem_cap: float, log_dir: Path) -> dict:
    """Run one measurement in a fresh interpreter; kill it after ``cap`` seconds."""
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        kind,
        "--game",
        spec,
        "--mem-cap-gib",
        str(mem_cap),
    ]
    if efg:
        cmd += ["--efg", efg]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    stem = f"{kind}-{''.join(c if c.isalnum() else '_' for c in spec)}"
    out_path, err_path = log_dir / f"{stem}.out", log_dir / f"{stem}.err"
    t0 = time.perf_counter()
    with open(out_path, "w") as fo, open(err_path, "w") as fe:
        proc = subprocess.Popen(cmd, stdout=fo, stderr=fe, cwd=str(ROOT), env=env, start_new_session=True)
        status = rusage = None
        timed_out = False
        hwm_at_kill = None
        while True:
            pid, st, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status, rusage = st, ru
                break
            if time.perf_counter() - t0 > cap:
                timed_out = True
                hwm_at_kill = _proc_hwm(proc.pid)
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                _, status, rusage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    peak = rusage.ru_maxrss / 1024 if rusage is not None else None  # KiB on Linux
    res = None
    for line in out_path.read_text(errors="replace").splitlines():
        if line.startswith(RESULT_TAG):
            res = json.loads(line[len(RESULT_TAG) :])
    if timed_out:
        res = {"status": "timeout", "error": f"killed after the {cap:g} s cap"}
        if hwm_at_kill:
            peak = max(peak or 0, hwm_at_kill)
    elif res is None:
        rc = proc.returncode
        tail = err_path.read_text(errors="replace").strip().splitlines()[-3:]
        if rc < 0 and -rc == signal.SIGKILL:
            res = {"status": "killed", "error": "killed by SIGKILL (likely the OOM killer)"}
        else:
            res = {"status": "crashed", "error": f"exit code {rc}: {' | '.join(tail)}"[:500]}
    res["wall_seconds"] = wall
    res["peak_rss_mib"] = peak if peak is not None else res.get("peak_rss_mib")
    res["kind"], res["game"] = kind, spec
    return res


def _proc_hwm(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def machine_info() -> dict:
    info: dict = {"python": platform.python_version(), "platform": platform.platform()}
    try:
        with open("/proc/cpuinfo") as f:
            models = [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")]
        info["cpu"] = models[0] if models else platform.processor()
    except OSError:
        info["cpu"] = platform.processor()
    info["cores"] = os.cpu_count()
    try:
        info["cores_available"] = len(os.sched_getaffinity(0))
    except AttributeError:
        pass
    try:
        with open("/proc/meminfo") as f:
            for ln in f:
                if ln.startswith("MemTotal:"):
                    info["ram_gib"] = round(int(ln.split()[1]) / 2**20, 1)
    except OSError:
        pass
    info["loadavg_start"] = list(os.getloadavg())
    import importlib.metadata as md

    vers = {}
    for pkg in ("numpy", "scipy", "highspy", "python-flint", "open_spiel", "pygambit", "cvxpy", "ecos"):
        try:
            vers[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            vers[pkg] = None
    try:
        import seqform

        vers["seqform"] = seqform.__version__
    except Exception:  # noqa: BLE001
        vers["seqform"] = None
    info["packages"] = vers
    return info


def _write_efg_file(spec: str, directory: Path) -> tuple:
    from seqform.games import load
    from seqform.io.efgwrite import write_efg
    from seqform.model.tree import compile_tree

    path = directory / ("".join(c if c.isalnum() else "_" for c in spec) + ".efg")
    t0 = time.perf_counter()
    write_efg(compile_tree(load(spec)), path)
    return str(path), time.perf_counter() - t0, path.stat().st_size


def _repeated(kind: str, spec: str, efg, times: int, args, tmp: Path, say) -> dict:
    """Run one solver ``times`` times (stopping at the first failure), each in a fresh process."""
    reps = []
    for _ in range(max(1, times)):
        say(f"  {spec}: {kind} ...")
        r = run_child(kind, spec, efg, args.cap, args.mem_cap_gib, tmp)
        reps.append(r)
        say(f"    {_brief(r)}")
        if r["status"] != "ok":
            break
    return _combine(reps)


def bench_game(spec: str, args, tmp: Path, say) -> dict:
    rec: dict = {"game": spec, "runs": {}}
    for kind in SEQFORM:
        rec["runs"][kind] = _repeated(kind, spec, None, args.repeat, args, tmp, say)
    ok = rec["runs"]["seqform-float"]
    rec["sizes"] = ok.get("sizes") or rec["runs"]["seqform-exact"].get("sizes")
    if not args.skip_peers:
        efg = None
        try:
            efg, secs, size = _write_efg_file(spec, tmp)
            rec["efg"] = {"write_seconds": secs, "bytes": size}
        except Exception as e:  # noqa: BLE001
            rec["efg"] = {"error": f"{type(e).__name__}: {e}"}
        for kind in PEERS:
            if kind not in args.peers:
                continue
            if kind.startswith("gambit") and efg is None:
                rec["runs"][kind] = {"status": "error", "error": "no .efg file"}
                continue
            prev = rec["runs"].get("gambit-float", {})
            if kind == "gambit-rational" and prev.get("status") == "timeout" and not args.no_skip_implied:
                rec["runs"][kind] = {
                    "status": "timeout",
                    "skipped": True,
                    "wall_seconds": prev["wall_seconds"],
                    "peak_rss_mib": None,
                    "error": "not run: the float LP already timed out and the rational one is "
                    "slower (--no-skip-implied runs it anyway)",
                }
                say(f"  {spec}: {kind} skipped (float LP timed out)")
                continue
            rec["runs"][kind] = _repeated(kind, spec, efg, args.peer_repeat, args, tmp, say)
    rec["agree"] = _agreement(rec)
    return rec


def _combine(reps: list) -> dict:
    """One record from repeated runs: best (min) time, all times, worst peak memory."""
    oks = [r for r in reps if r["status"] == "ok"]
    if not oks:
        return reps[-1]
    best = dict(min(oks, key=lambda r: r["seconds"]))
    best["all_seconds"] = [r["seconds"] for r in oks]
    best["median_seconds"] = statistics.median(best["all_seconds"])
    best["peak_rss_mib"] = max(r["peak_rss_mib"] or 0 for r in oks)
    if len(oks) < len(reps):
        best["note"] = f"a repeat failed: {reps[-1].get('error')}"
    return best


def _brief(r: dict) -> str:
    if r["status"] == "ok":
        v = r.get("value") or f"{r.get('value_float'):.9g}"
        return f"ok {r['seconds']:.3f} s, peak {r['peak_rss_mib']:.0f} MiB, value {v}"
    return f"{r['status']}: {r.get('error')}"


def _agreement(rec: dict) -> dict:
    """Each solver's value against seqform's certified value (else its float value), to 1e-6."""
    runs = rec["runs"]
    ref = None
    ex = runs.get("seqform-exact", {})
    if ex.get("status") == "ok" and ex.get("value") is not None:
        ref = float(Fraction(ex["value"]))
    elif runs.get("seqform-float", {}).get("status") == "ok":
        ref = runs["seqform-float"]["value_float"]
    out = {"reference": ref}
    for kind, r in runs.items():
        if r.get("status") == "ok" and ref is not None:
            out[kind] = abs(r["value_float"] - ref) <= AGREE_TOL
            if kind == "gambit-rational" and ex.get("value") is not None:
                out[kind] = r.get("value") == ex["value"]
    return out


# ---------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------


def _t(r: dict | None) -> str:
    if not r:
        return "-"
    st = r.get("status")
    if st == "ok":
        return f"{r['seconds']:.3f}"
    if st == "timeout":
        return "timeout (not run)" if r.get("skipped") else "timeout"
    if st == "n/a":
        return "n/a"
    if st in ("MemoryError", "killed"):
        return "OOM"
    return st or "-"


def _m(r: dict | None) -> str:
    if not r or r.get("peak_rss_mib") is None:
        return "-"
    s = f"{r['peak_rss_mib']:.0f}"
    return s if r.get("status") == "ok" else f"{s}{'+' if r.get('status') in ('timeout', 'MemoryError') else ''}"


def _ratio(peer: dict | None, base: dict | None) -> str:
    if not peer or not base or base.get("status") != "ok":
        return "-"
    if peer.get("status") == "ok":
        return f"{peer['seconds'] / base['seconds']:.1f}x"
    if peer.get("status") == "timeout":
        return f">{peer['wall_seconds'] / base['seconds']:.0f}x"
    return "-"


def _sizes(s: dict | None) -> str:
    if not s:
        return "-"
    return (
        f"{s['histories']:,} / {s['terminals']:,} / {s['infosets'][0]:,}+{s['infosets'][1]:,} / "
        f"{s['sequences'][0]:,}+{s['sequences'][1]:,}"
    )


def _value(rec: dict) -> str:
    ex = rec["runs"].get("seqform-exact", {})
    if ex.get("status") == "ok" and ex.get("value") is not None:
        v = ex["value"]
        return v if len(v) <= 16 else f"{float(Fraction(v)):.10g} (exact, see below)"
    fl = rec["runs"].get("seqform-float", {})
    return f"{fl['value_float']:.9g}" if fl.get("status") == "ok" else "-"


def _agree_str(rec: dict) -> str:
    ag = rec["agree"]
    checked = {k: v for k, v in ag.items() if k != "reference"}
    if len(checked) <= 2 and all(k in SEQFORM for k in checked):
        return "yes" if all(checked.values()) else "NO"
    bad = [k for k, v in checked.items() if not v]
    return "yes" if not bad else "NO: " + ", ".join(bad)


def table(records: list, skip_peers: bool) -> str:
    if skip_peers:
        head = [
            "game",
            "histories / terminals / infosets / sequences",
            "value (P1)",
            "seqform float s",
            "seqform certified s",
            "peak MiB float / cert",
            "values agree",
        ]
    else:
        head = [
            "game",
            "histories / terminals / infosets / sequences",
            "value (P1)",
            "seqform float s",
            "seqform certified s",
            "OpenSpiel s",
            "gambit float s",
            "gambit rational s",
            "OS / sf-float",
            "gambit-float / sf-float",
            "gambit-rational / sf-cert",
            "peak MiB sf-float / sf-cert / OS / gb-float / gb-rat",
            "values agree",
        ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for rec in records:
        R = rec["runs"]
        sf, se = R.get("seqform-float"), R.get("seqform-exact")
        row = [rec["game"], _sizes(rec.get("sizes")), _value(rec), _t(sf), _t(se)]
        if skip_peers:
            row += [f"{_m(sf)} / {_m(se)}"]
        else:
            os_, gf, gr = R.get("openspiel"), R.get("gambit-float"), R.get("gambit-rational")
            os_t = _t(os_)
            if os_ and os_.get("status") == "ok" and str(os_.get("openspiel_game", "")).startswith("efg_game"):
                os_t += " (via .efg)"
            row += [
                os_t,
                _t(gf),
                _t(gr),
                _ratio(os_, sf),
                _ratio(gf, sf),
                _ratio(gr, se),
                " / ".join(_m(r) for r in (sf, se, os_, gf, gr)),
            ]
        row.append(_agree_str(rec))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def targets(records: list) -> list:
    """The team's targets: (description, met: True/False/None when not measured, evidence)."""
    by = {r["game"]: r["runs"] for r in records}

    def sec(game, kind):
        r = by.get(game, {}).get(kind)
        return r["seconds"] if r and r.get("status") == "ok" else None

    def mem(game, kind):
        r = by.get(game, {}).get(kind)
        return r.get("peak_rss_mib") if r and r.get("status") == "ok" else None

    out = []
    f, o = sec("leduc", "seqform-float"), sec("leduc", "openspiel")
    out.append(
        ("Leduc build+float solve <= 0.15 s", None if f is None else f <= 0.15, "-" if f is None else f"{f:.3f} s")
    )
    out.append(
        (
            "Leduc >= 3x faster than OpenSpiel's LP",
            None if f is None or o is None else o / f >= 3,
            "-" if f is None or o is None else f"{o:.3f} / {f:.3f} = {o / f:.1f}x",
        )
    )
    c = sec("leduc", "seqform-exact")
    out.append(("certified Leduc <= 3 s", None if c is None else c <= 3, "-" if c is None else f"{c:.3f} s"))
    f5, o5 = sec("leduc(ranks=5)", "seqform-float"), sec("leduc(ranks=5)", "openspiel")
    o5r = by.get("leduc(ranks=5)", {}).get("openspiel")
    if o5 is None and o5r and o5r.get("status") == "timeout" and f5:
        out.append(
            (
                "leduc(ranks=5) >= 5x faster than OpenSpiel",
                True,
                f"OpenSpiel timed out after {o5r['wall_seconds']:.0f} s; seqform {f5:.3f} s",
            )
        )
    else:
        out.append(
            (
                "leduc(ranks=5) >= 5x faster than OpenSpiel",
                None if f5 is None or o5 is None else o5 / f5 >= 5,
                "-" if f5 is None or o5 is None else f"{o5:.3f} / {f5:.3f} = {o5 / f5:.1f}x",
            )
        )
    m5 = [mem("leduc(ranks=5)", k) for k in SEQFORM]
    m5v = [m for m in m5 if m is not None]
    out.append(
        (
            "leduc(ranks=5) seqform peak memory < 300 MB",
            None if not m5v else max(m5v) * 1.048576 < 300,
            "-"
            if not m5v
            else f"float {_fmt_mib(m5[0])}, certified {_fmt_mib(m5[1])} (= {max(m5v) * 1.048576:.0f} MB)",
        )
    )
    l6f, l6c = sec("liars_dice(1,6)", "seqform-float"), sec("liars_dice(1,6)", "seqform-exact")
    out.append(
        (
            "liars_dice(1,6) solved <= 10 s (float solve)",
            None if l6f is None else l6f <= 10,
            "-" if l6f is None else f"float {l6f:.2f} s; certified {'-' if l6c is None else f'{l6c:.2f} s'}",
        )
    )
    l3 = sec("liars_dice(1,3)", "seqform-exact")
    out.append(
        ("liars_dice(1,3) certified <= 1 s", None if l3 is None else l3 <= 1, "-" if l3 is None else f"{l3:.3f} s")
    )
    return out


def _fmt_mib(m):
    return "-" if m is None else f"{m:.0f} MiB"


def _breakdown(records: list) -> str:
    lines = [
        "| game | run | total s | build s | solve s | certify s | other s | import s | RSS after import MiB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for rec in records:
        for kind in SEQFORM:
            r = rec["runs"].get(kind)
            if not r or r.get("status") != "ok":
                continue
            b = r.get("breakdown", {})
            parts = [b.get("build", 0.0), b.get("solve", 0.0), b.get("certify", 0.0)]
            other = r["seconds"] - sum(parts)
            cert = f"{b['certify']:.3f}" if "certify" in b else "-"
            lines.append(
                f"| {rec['game']} | {kind} | {r['seconds']:.3f} | {parts[0]:.3f} | {parts[1]:.3f} | "
                f"{cert} | {other:.3f} | {r.get('import_seconds', 0):.2f} | "
                f"{r.get('rss_after_import_mib', 0):.0f} |"
            )
    lines.append("")
    lines.append(
        "build: game -> tree -> sequence form; solve: HiGHS; certify: exact rational certificate; "
        "other: the rest of `seqform.solve` (behavioural strategies, exploitability check)."
    )
    return "\n".join(lines)


def _failures(records: list) -> str:
    out = []
    for rec in records:
        for kind, r in rec["runs"].items():
            if r.get("status") != "ok":
                out.append(f"- {rec['game']} / {kind}: **{r.get('status')}**: {r.get('error')}")
            elif kind == "openspiel" and str(r.get("openspiel_game", "")).startswith("efg_game"):
                out.append(f"- {rec['game']} / openspiel: solved {r['openspiel_game']}")
            elif kind.startswith("gambit"):
                pass
    for rec in records:
        for kind in ("gambit-float", "gambit-rational"):
            r = rec["runs"].get(kind)
            if r and r.get("status") == "ok":
                out.append(f"- {rec['game']} / {kind}: .efg load {r['load_seconds']:.2f} s (excluded from the time)")
    return "\n".join(out) if out else "- none"


def report(records: list, info: dict, args, started: str) -> str:
    pk = info["packages"]
    la0 = ", ".join(f"{x:.2f}" for x in info["loadavg_start"])
    la1 = ", ".join(f"{x:.2f}" for x in info.get("loadavg_end", []))
    hdr = [
        f"# seqform solve benchmark, {started}",
        "",
        f"- machine: {info['cpu']}, {info['cores']} cores ({info.get('cores_available', '?')} available), "
        f"{info.get('ram_gib', '?')} GiB RAM; {info['platform']}",
        f"- load average (1, 5, 15 min) at start: {la0}; at end: {la1} "
        f"(the machine is shared: other people's jobs run concurrently)",
        f"- Python {info['python']}; " + ", ".join(f"{k} {v or 'not installed'}" for k, v in pk.items()),
        f"- per-run time cap {args.cap:g} s, address-space cap {args.mem_cap_gib:g} GiB; seqform runs repeated "
        f"{args.repeat}x (best shown), peers {args.peer_repeat}x; each run in a fresh process",
        f"- command: `{' '.join(info.get('argv', []))}`",
        "",
        "Times in seconds, wall clock inside the child (imports excluded; seqform includes building the tree "
        "from the game; OpenSpiel includes its LP construction from the game; Gambit excludes loading the "
        ".efg). Peak memory: the child process's peak RSS in MiB (interpreter and imports included). "
        "Ratios: peer time / seqform time (float for OpenSpiel and Gambit float, certified for Gambit "
        "rational). \"values agree\": every solver's value within 1e-6 of seqform's certified value "
        "(Gambit rational: exactly equal).",
        "",
        table(records, args.skip_peers),
        "",
    ]
    hdr += ["## Targets", "", "| target | met | measured |", "|---|---|---|"]
    for name, met, ev in targets(records):
        hdr.append(f"| {name} | {'-' if met is None else ('yes' if met else 'NO')} | {ev} |")
    hdr.append("")
    long = [
        (r["game"], r["runs"]["seqform-exact"]["value"])
        for r in records
        if r["runs"].get("seqform-exact", {}).get("status") == "ok"
        and len(r["runs"]["seqform-exact"].get("value") or "") > 16
    ]
    if long:
        hdr += ["## Exact values (player 1, certified)", ""]
        hdr += [f"- {g}: `{v}`" for g, v in long]
        hdr.append("")
    hdr += [
        "## Where seqform's time goes",
        "",
        _breakdown(records),
        "",
        "## Failures and notes",
        "",
        _failures(records),
        "",
    ]
    return "\n".join(hdr)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--games",
        default=",".join(DEFAULT_GAMES),
        help=f"games to run, separated by ';' or by ',' outside parentheses (default: {';'.join(DEFAULT_GAMES)})",
    )
    ap.add_argument("--cap", type=float, default=300.0, help="time cap per run in seconds (default 300)")
    ap.add_argument(
        "--mem-cap-gib", type=float, default=8.0, help="address-space limit per run in GiB, 0 for none (default 8)"
    )
    ap.add_argument("--skip-peers", action="store_true", help="run seqform only (no OpenSpiel, no Gambit)")
    ap.add_argument("--peers", default=",".join(PEERS), help=f"which peers to run (default: {','.join(PEERS)})")
    ap.add_argument("--repeat", type=int, default=3, help="runs per seqform measurement; the best is shown")
    ap.add_argument("--peer-repeat", type=int, default=1, help="runs per peer measurement; the best is shown")
    ap.add_argument(
        "--no-skip-implied",
        action="store_true",
        help="run Gambit's rational LP even when its float LP timed out on the same game",
    )
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"), help="where to write the results")
    ap.add_argument("--no-write", action="store_true", help="print only; write no results files")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    # child mode (internal)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--game", help=argparse.SUPPRESS)
    ap.add_argument("--efg", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child_main(args)

    games = split_games(args.games)
    args.peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    unknown = [p for p in args.peers if p not in PEERS]
    if unknown:
        ap.error(f"unknown peer(s) {', '.join(unknown)}; choose from {', '.join(PEERS)}")
    say = (lambda m: None) if args.quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    info = machine_info()
    info["argv"] = [Path(sys.argv[0]).name] + (argv if argv is not None else sys.argv[1:])
    now = _dt.datetime.now()
    started = now.strftime("%Y-%m-%d %H:%M")
    say(f"benchmark on {info['cpu']}, {info['cores']} cores, load {info['loadavg_start']}")
    records = []
    with tempfile.TemporaryDirectory(prefix="seqform-bench-") as tmpd:
        tmp = Path(tmpd)
        for spec in games:
            say(f"{spec}")
            records.append(bench_game(spec, args, tmp, say))
    info["loadavg_end"] = list(os.getloadavg())
    text = report(records, info, args, started)
    print(text)
    if not args.no_write:
        payload = {
            "started": started,
            "machine": info,
            "cap_seconds": args.cap,
            "mem_cap_gib": args.mem_cap_gib,
            "repeat": args.repeat,
            "peer_repeat": args.peer_repeat,
            "skip_peers": args.skip_peers,
            "games": records,
            "targets": [{"target": n, "met": m, "measured": e} for n, m, e in targets(records)],
        }
        stem = write_results(args.out_dir, "solve", text, payload)
        say(f"wrote {stem}.md and {stem}.json")
    return 0


def write_results(out_dir: str, kind: str, text: str, payload: dict) -> Path:
    """Write ``OUT_DIR/KIND-YYYY-MM-DD.md`` (the report) and ``.json`` (the data); return the stem."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{kind}-{_dt.date.today().isoformat()}"
    stem.with_suffix(".md").write_text(text)
    stem.with_suffix(".json").write_text(json.dumps(payload, indent=1, default=str))
    return stem


def split_games(text: str) -> list:
    """Split "kuhn,leduc(ranks=5),liars_dice(1,3)" at commas outside parentheses (or at ';')."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in ",;" and depth == 0:
            if "".join(cur).strip():
                out.append("".join(cur).strip())
            cur = []
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Which HiGHS lever solves the abstract sequence-form LP of Rhode Island Hold'em fastest: methods
(dual and primal simplex, IPX with and without crossover, "choose", PDLP, HiPO), options (presolve,
simplex strategy and scaling, parallelism, IPM tolerance), the LP's form (player 0's LP as
``seqform.lp.zerosumlp`` builds it, player 1's LP of the transposed game, the sparsified LP of
``lossless.sparsifiedlp``) and a warm start from a short CFR+ run, side by side in one run.

Each cell is a fresh process (``bench/isolated.py``), one at a time, capped by HiGHS's
``time_limit`` (``--cap``; the process is killed 120 s after that). The model goes to HiGHS exactly
as ``seqform.lp.highs.solve_highs`` gives it (its helpers ``_started``, ``_pass_model`` and
``_run_interruptibly``), so that the counts HiGHS keeps (simplex, IPM, crossover, PDLP
iterations; infeasibilities) can be read back; "auto" is ``seqform.lp.zerosumlp.auto_method``'s
choice with the options ``solve_highs`` adds ("ipm": crossover on). The quality of every solution
is measured by the bracket of vector-form best responses to its plans
(``lossless.vectorbestresponse.bracket``: lower <= value <= upper, rigorous float bounds).

HiPO (HiGHS's newer interior point method) needs the package ``highspy-extras``, which exists
for highspy 1.15.1 only: ``--hipo-path DIR`` names a directory holding highspy 1.15.1 and
highspy-extras 1.15.1 (``pip install --no-deps --target DIR highspy==1.15.1 highspy-extras==1.15.1``),
put first on the HiPO cells' PYTHONPATH; the cell "ipx@1.15" runs the default IPX there as the
control for the version change.

Usage (from the repository root)::

    python bench/bench_lp_levers.py --games "rhode_island(ranks=3,suits=2)" --cap 180
    python bench/bench_lp_levers.py --games "rhode_island(ranks=4,suits=4)" --levers auto dual --cap 600 --tag 44

Writes ``bench/results/lp-levers-YYYY-MM-DD[-TAG].md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_solve import machine_info  # noqa: E402
from bench.isolated import TAG, run_isolated  # noqa: E402

GAMES = ["rhode_island(ranks=3,suits=2)"]

#: name -> (form, HiGHS solver or "auto", options, needs HiPO's environment)
LEVERS: dict[str, tuple[str, str, dict, bool]] = {
    "auto": ("p0", "auto", {}, False),
    "dual": ("p0", "simplex", {}, False),
    "primal": ("p0", "simplex", {"simplex_strategy": 4}, False),
    "ipx": ("p0", "ipm", {}, False),
    "ipx-nocross": ("p0", "ipm", {"run_crossover": "off"}, False),
    "choose": ("p0", "choose", {}, False),
    "pdlp-1e-8": ("p0", "pdlp", {"pdlp_optimality_tolerance": 1e-8}, False),
    "hipo": ("p0", "hipo", {}, True),
    "hipo-nocross": ("p0", "hipo", {"run_crossover": "off"}, True),
    "ipm@1.15": ("p0", "ipm", {}, True),
    "ipx@1.15": ("p0", "ipx", {}, True),
    "dual-presolve-off": ("p0", "simplex", {"presolve": "off"}, False),
    "ipx-presolve-off": ("p0", "ipm", {"presolve": "off"}, False),
    "dual-pami-t2": ("p0", "simplex", {"simplex_strategy": 2, "parallel": "on", "threads": 2}, False),
    "dual-sip-t2": ("p0", "simplex", {"simplex_strategy": 3, "parallel": "on", "threads": 2}, False),
    "dual-scale0": ("p0", "simplex", {"simplex_scale_strategy": 0}, False),
    "dual-scale4": ("p0", "simplex", {"simplex_scale_strategy": 4}, False),
    "ipx-tol1e-6": ("p0", "ipm", {"ipm_optimality_tolerance": 1e-6}, False),
    "ipx-parallel-t2": ("p0", "ipm", {"parallel": "on", "threads": 2}, False),
    "ipx-t1": ("p0", "ipm", {"threads": 1}, False),
    "p1-dual": ("p1", "simplex", {}, False),
    "p1-ipx": ("p1", "ipm", {}, False),
    "sparsified-dual": ("sparsified", "simplex", {}, False),
    "sparsified-ipx": ("sparsified", "ipm", {}, False),
    "warm-cfr-crossover": ("p0", "crossover", {}, False),
    "warm-cfr-dual": ("p0", "simplex", {}, False),
}
WARM = ("warm-cfr-crossover", "warm-cfr-dual")


# --------------------------------------------------------------------------------------------- child


def _lp_arrays(form: str, ab):
    """The LP HiGHS sees, as ``solve_lp`` (forms "p0", "p1") or ``solve_sparsified`` give it:
    ``(K, cost, col_lower, col_upper, row_lower, row_upper, split)``, where ``split(col, row_dual)``
    returns (player 0's plan, player 1's plan, sign of the objective as player 0's value)."""
    import numpy as np
    import scipy.sparse as sp

    from lossless.abstractlp import abstract_sequence_form
    from lossless.sparsifiedlp import sparsified_lp
    from seqform.lp.highs import INF
    from seqform.lp.sequenceform import SequenceForm
    from seqform.lp.zerosumlp import lp_matrix

    if form == "sparsified":
        lp = sparsified_lp(ab)
        n = lp.columns
        cost = np.zeros(n)
        cost[lp.n_x] = 1.0
        lo = np.concatenate([np.zeros(lp.n_x), np.full(lp.n_q + lp.n_aux, -INF)])
        rlo = np.concatenate([lp.e, np.zeros(lp.n_y), np.zeros(lp.n_aux)])
        rhi = np.concatenate([lp.e, np.full(lp.n_y, INF), np.zeros(lp.n_aux)])

        def split_s(col, dual):
            y = -np.asarray(dual)[lp.m_e : lp.m_e + lp.n_y]
            return np.asarray(col)[: lp.n_x], (y if y[0] >= 0 else -y), 1.0

        return lp.K, cost, lo, np.full(n, INF), rlo, rhi, split_s, None
    sf = abstract_sequence_form(ab)
    if form == "p1":  # the transposed game: player 1 maximises -A^T
        sf = SequenceForm(None, sf.F, sf.f, sf.E, sf.e, sp.csr_matrix(-sf.A.T))
    K = lp_matrix(sf)
    m1, n1 = sf.E.shape
    n2, m2 = sf.F.shape[1], sf.F.shape[0]
    cost = np.zeros(n1 + m2)
    cost[n1] = 1.0
    lo = np.concatenate([np.zeros(n1), np.full(m2, -INF)])
    rlo = np.concatenate([sf.e, np.zeros(n2)])
    rhi = np.concatenate([sf.e, np.full(n2, INF)])

    def split(col, dual):
        y = -np.asarray(dual)[m1:]
        y = y if y[0] >= 0 else -y
        x = np.asarray(col)[:n1]
        return (x, y, 1.0) if form == "p0" else (y, x, -1.0)

    return K, cost, lo, np.full(n1 + m2, INF), rlo, rhi, split, sf


def _info(h) -> dict:
    info = h.getInfo()
    keys = (
        "simplex_iteration_count",
        "ipm_iteration_count",
        "crossover_iteration_count",
        "pdlp_iteration_count",
        "max_primal_infeasibility",
        "max_dual_infeasibility",
        "primal_dual_objective_error",
    )
    out = {k: getattr(info, k) for k in keys if hasattr(info, k)}
    out = {k: (int(v) if "count" in k else float(v)) for k, v in out.items()}
    out["objective"] = float(info.objective_function_value)
    out["basis_valid"] = bool(h.getBasis().valid)
    return out


def child(cell: dict) -> dict:
    import highspy
    import numpy as np

    import lossless
    import seqform
    from lossless.sequencelayout import sequence_layout
    from lossless.vectorbestresponse import behaviour_from_plan, bracket
    from seqform.lp.highs import _pass_model, _run_interruptibly, _started, new_highs
    from seqform.lp.zerosumlp import auto_method

    form, solver, options, _ = LEVERS[cell["lever"]]
    out: dict = {"status": "ok", "highspy": new_highs().version(), "load_start": list(os.getloadavg())}
    game = seqform.games.load(cell["game"])
    sh = lossless.shrink(game, nonzeros=False, build_abstract=False)
    t0 = time.perf_counter()
    K, cost, lo, hi, rlo, rhi, split, sf = _lp_arrays(form, sh.abstraction)
    out.update(build_s=time.perf_counter() - t0, rows=K.shape[0], columns=K.shape[1], nnz=int(K.nnz))
    if solver == "auto":
        solver = auto_method(K)
        out["auto_chose"] = solver
    own = {"solver": solver if solver != "crossover" else "simplex"}
    if solver == "ipm":
        own["run_crossover"] = "on"  # as solve_highs sets it
    warm = None
    if cell["lever"] in WARM:
        warm = _warm_solution(sh.abstraction, sf, K, cost, cell["warm_seconds"], out)
    h, t0 = _started(False, cell["cap"], {**own, **options})
    c0 = time.process_time()
    _pass_model(h, K, cost, lo, hi, rlo, rhi, True, np.zeros(K.shape[1], dtype=np.int32))
    if warm is not None and cell["lever"] == "warm-cfr-crossover":
        st = h.crossover(warm)
        out["crossover_status"] = str(st)
        out["after_crossover"] = _info(h) | {"seconds": time.perf_counter() - t0}
        out["after_crossover"]["model_status"] = h.modelStatusToString(h.getModelStatus())
    elif warm is not None:
        out["set_solution_status"] = str(h.setSolution(warm))
    if cell["lever"] != "warm-cfr-crossover" or h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        _run_interruptibly(h)  # for the crossover cell: the simplex from crossover's basis, if not optimal yet
    out["seconds"] = time.perf_counter() - t0
    out["cpu_s"] = time.process_time() - c0  # all threads' CPU time: steadier than seconds on a shared machine
    out["highs_run_s"] = h.getRunTime()
    out["model_status"] = h.modelStatusToString(h.getModelStatus())
    out.update(_info(h))
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        out["status"] = out["model_status"]
    sol = h.getSolution()
    if sol.value_valid and sol.dual_valid:
        x, y, sign = split(sol.col_value, sol.row_dual)
        out["value"] = sign * out["objective"]
        lay = sequence_layout(sh.abstraction)
        b = bracket(lay, behaviour_from_plan(lay, 0, x), behaviour_from_plan(lay, 1, y))
        out.update(lower=b.lower, upper=b.upper)
    out["load_end"] = list(os.getloadavg())
    return out


def _warm_solution(ab, sf, K, cost, seconds: float, out: dict):
    """A primal-dual point of the LP "p0" from CFR+'s average profile after ``seconds``: x and
    y from the behaviours; q (the LP's free columns) and the duals of E x = e from the best
    responses (``_infoset_values``); column duals as cost - K^T row_dual, in HiGHS's signs."""
    import highspy
    import numpy as np

    from lossless.sequencelayout import sequence_layout
    from lossless.vectorbestresponse import plan_from_behaviour
    from lossless.vectorcfr import cfr_plus

    lay = sequence_layout(ab)
    t0 = time.perf_counter()
    cfr = cfr_plus(lay, seconds=seconds, bracket_every=10**9)
    x = plan_from_behaviour(lay, 0, cfr.behaviours[0])[0]
    y = plan_from_behaviour(lay, 1, cfr.behaviours[1])[0]
    out.update(
        cfr_s=time.perf_counter() - t0,
        cfr_iterations=cfr.iterations,
        cfr_lower=float(cfr.lower),
        cfr_upper=float(cfr.upper),
    )
    # player 1's best response to x: q with F^T q <= A^T x, q[I] the value of infoset I
    q = _infoset_values(sf.F, sf.A.T.tocsr() @ x, np.minimum)
    # player 0's best response to y: p with E^T p >= A y (the duals of E x = e)
    p = _infoset_values(sf.E, sf.A.tocsr() @ y, np.maximum)
    col = np.concatenate([x, q])
    # HiGHS's signs for this maximisation, checked against IPX's duals: +p on E x = e, -y on the rest
    row_dual = np.concatenate([p, -y])
    col_dual = cost - K.T @ row_dual
    sol = highspy.HighsSolution()
    sol.col_value = col
    sol.row_value = K @ col
    sol.row_dual = row_dual
    sol.col_dual = col_dual
    sol.value_valid = True
    sol.dual_valid = True
    return sol


def _infoset_values(C, payoff, pick):
    """Per row of the constraint matrix ``C`` (row 0 the root, row r's -1 entry its parent
    sequence, its +1 entries its actions), the best response value: ``v[r] = pick over actions s
    of (payoff[s] + sum of v over the rows whose parent sequence is s)``; rows in decreasing order
    of their parent sequence (sequence ids grow along every path, so children come first)."""
    import numpy as np

    C = C.tocsr()
    m = C.shape[0]
    parent = np.full(m, -1)
    acts: list = [None] * m
    for r in range(m):
        lo, hi = C.indptr[r], C.indptr[r + 1]
        cols, vals = C.indices[lo:hi], C.data[lo:hi]
        neg = cols[vals < 0]
        parent[r] = neg[0] if len(neg) else -1
        acts[r] = cols[vals > 0]
    seq_val = np.asarray(payoff, dtype=float).copy()
    v = np.zeros(m)
    for r in sorted(range(m), key=lambda r: -parent[r] if r else 1):  # root last
        v[r] = pick.reduce(seq_val[acts[r]])
        if parent[r] >= 0:
            seq_val[parent[r]] += v[r]
    return v


# -------------------------------------------------------------------------------------------- parent


def _fmt(v, spec):
    return "-" if v is None else format(v, spec)


def markdown(rep: dict) -> str:
    lines = [
        f"# HiGHS's levers on the abstract LP of Rhode Island Hold'em ({rep['date']})",
        "",
        f"Command: `{rep['command']}`",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in rep["machine"].items()),
        "",
        f"`uptime` at the start: `{rep['uptime_start']}`; at the end: `{rep.get('uptime_end', '-')}`",
        "",
        "Each row is a fresh process, one at a time, on a machine whose 2 cores were shared with other work "
        "(load: the 1-minute load average at the cell's start and end). seconds: HiGHS's solve, passing the model "
        "included (wall clock); CPU s: the process's CPU time over the same span, all threads (for a one-thread "
        "solver the steadier figure on a shared machine); "
        'ratio: to the row "auto" (seqform\'s default) of the same game; iterations: simplex / IPM / '
        "crossover / PDLP; value: player 0's; bracket width: upper - lower of the vector-form best responses to the "
        "solution's plans (rigorous; 0 up to float error at an exact equilibrium).",
        "",
        "| game | form | lever | options | seconds | CPU s | ratio | simplex it | IPM it | crossover it | PDLP it | "
        "value | diff to auto | bracket width | status | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    ref = {}
    for r in rep["rows"]:
        if r["lever"] == "auto" and r.get("status") == "ok":
            ref[r["game"]] = r
    for r in rep["rows"]:
        a = ref.get(r["game"])
        secs = r.get("seconds")
        ratio = secs / a["seconds"] if a and secs and r.get("status") == "ok" else None
        diff = r["value"] - a["value"] if a and "value" in r else None
        width = r["upper"] - r["lower"] if "lower" in r else None
        form, solver, opts, _ = LEVERS[r["lever"]]
        method = r.get("auto_chose", solver)
        opt = ", ".join(f"{k}={v}" for k, v in opts.items()) or "-"
        if r["lever"] in WARM:
            opt = f"CFR+ {r.get('cfr_s', 0):.0f} s ({r.get('cfr_iterations', 0)} it), then {method}"
        status = r.get("status", "-")
        if status not in ("ok",) and r.get("error"):
            status += ": " + r["error"][:80]
        load = f"{r['load_start'][0]:.2f}/{r['load_end'][0]:.2f}" if "load_end" in r else "-"
        lines.append(
            f"| {r['game']} | {form} | {r['lever']} ({method}) | {opt} | {_fmt(secs, '.1f')} | "
            f"{_fmt(r.get('cpu_s'), '.1f')} | {_fmt(ratio, '.2f')} | "
            f"{r.get('simplex_iteration_count', '-')} | {r.get('ipm_iteration_count', '-')} | "
            f"{r.get('crossover_iteration_count', '-')} | {r.get('pdlp_iteration_count', '-')} | "
            f"{_fmt(r.get('value'), '.10f')} | {_fmt(diff, '.1e')} | {_fmt(width, '.1e')} | {status} | {load} |"
        )
    sizes = {}
    for r in rep["rows"]:
        if "rows" in r:
            sizes[(r["game"], LEVERS[r["lever"]][0])] = (r["rows"], r["columns"], r["nnz"])
    lines += ["", "LP sizes:", "", "| game | form | rows | columns | nonzeros |", "|---|---|---|---|---|"]
    for (g, f), (m, n, z) in sizes.items():
        lines.append(f"| {g} | {f} | {m:,} | {n:,} | {z:,} |")
    if rep.get("notes"):
        lines += ["", "Notes:", ""] + [f"- {n}" for n in rep["notes"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=GAMES)
    ap.add_argument("--levers", nargs="+", default=list(LEVERS), choices=list(LEVERS), metavar="LEVER")
    ap.add_argument("--cap", type=float, default=600.0, help="HiGHS's time_limit per cell (seconds)")
    ap.add_argument("--warm-seconds", type=float, default=10.0, help="CFR+'s run before the warm-start cells")
    ap.add_argument("--hipo-path", default="", help="directory with highspy 1.15.1 and highspy-extras (HiPO cells)")
    ap.add_argument("--tag", default="")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--rerender", metavar="JSON", help="write the Markdown of an earlier run's JSON again and stop")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(TAG + json.dumps(child(json.loads(args.child))), flush=True)
        return 0
    if args.rerender:
        path = Path(args.rerender)
        path.with_suffix(".md").write_text(markdown(json.loads(path.read_text())))
        return 0
    command = "python bench/bench_lp_levers.py " + " ".join(
        f'"{a}"' if "(" in a else a for a in (sys.argv[1:] if argv is None else argv)
    )
    stem = Path(args.out_dir) / f"lp-levers-{_dt.date.today().isoformat()}{'-' + args.tag if args.tag else ''}"
    uptime = lambda: subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()  # noqa: E731
    rep = {
        "date": _dt.date.today().isoformat(),
        "command": command,
        "machine": machine_info(),
        "uptime_start": uptime(),
        "cap": args.cap,
        "rows": [],
    }
    for spec in args.games:
        for lever in args.levers:
            needs_hipo = LEVERS[lever][3]
            if needs_hipo and not args.hipo_path:
                continue
            cell = {"game": spec, "lever": lever, "cap": args.cap, "warm_seconds": args.warm_seconds}
            env = {"PYTHONPATH": args.hipo_path + os.pathsep + str(ROOT)} if needs_hipo else None
            res = run_isolated(
                [str(Path(__file__).resolve()), "--child", json.dumps(cell)], args.cap + 120 + args.warm_seconds, env
            )
            res.update(game=spec, lever=lever)
            rep["rows"].append(res)
            brief = {k: res.get(k) for k in ("status", "seconds", "value", "model_status", "error")}
            print(f"{spec} {lever}: {json.dumps(brief)}", file=sys.stderr, flush=True)
            rep["uptime_end"] = uptime()
            if not args.no_write:
                stem.parent.mkdir(parents=True, exist_ok=True)
                stem.with_suffix(".md").write_text(markdown(rep))
                stem.with_suffix(".json").write_text(json.dumps(rep, indent=1))
    print(markdown(rep))
    return 0


if __name__ == "__main__":
    sys.exit(main())

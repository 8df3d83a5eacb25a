#!/usr/bin/env python3
"""Benchmark seqform's CFR+ against OpenSpiel's CFRPlusSolver on a game of more than two players
(default three-player Leduc, OpenSpiel's ``leduc_poker(players=3)``): iterations and seconds to
NashConv <= ``--target`` (default 1e-3). There is no game value: NashConv, the sum over the players
of their best-response gains, is the measure.

Each solver runs in its own fresh process (``bench/isolated.py``), one after the other:

1. ``seqform``: the game is read through ``seqform.from_openspiel`` and compiled (set-up, timed
   apart), then ``RegretMinimizer(tree, "cfr+")`` steps ``--openspiel-iterations`` iterations, then
   ``--every`` at a time. Only ``step`` is timed (``time.perf_counter``). After each chunk, untimed,
   the float NashConv of the average strategy (``seqform.exploitability(...).nash_conv``); the run
   stops at the first measured point at or below the target (or at ``--max-iterations``). That
   final average strategy is then evaluated exactly (``seqform.evaluate(..., exact=True)``: every
   float probability read as the rational it is), and its exact NashConv is reported.
2. ``OpenSpiel C++``: ``pyspiel.CFRPlusSolver(game)``, ``evaluate_and_update_policy()``
   ``--openspiel-iterations`` times (timed), then ``pyspiel.nash_conv`` of its average policy.
   Its average policy is compared entry by entry with seqform's after the same number of
   iterations (saved by part 1 as an OpenSpiel ``TabularPolicy`` array): OpenSpiel's CFR+ updates
   players 0, 1, ..., N-1 in turn, each against the others' newest strategies, as seqform's does,
   so the iterates agree up to rounding, except where an exact tie between regrets is resolved by
   rounding one way here and the other there (three-player Leduc has one early on: the averages
   then differ visibly, the NashConv barely). Its seconds to the target are its measured seconds per
   iteration times seqform's iterations to the target: an extrapolation (a full OpenSpiel run to the
   target takes hours), labelled as such.
3. ``OpenSpiel Python`` (``--python-iterations``, default 0: off): the Python
   ``open_spiel.python.algorithms.cfr.CFRPlusSolver``, the same way.

Usage (from the repository root)::

    python bench/bench_cfr_nplayer.py                         # leduc_poker(players=3), target 1e-3
    python bench/bench_cfr_nplayer.py --game 'kuhn_poker(players=3)' --target 1e-3 --every 50 --no-write

Writes ``bench/results/cfr-nplayer-YYYY-MM-DD.md`` and ``.json`` (``--out-dir``, ``--no-write``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_solve import machine_info, write_results  # noqa: E402
from bench.isolated import TAG, run_isolated  # noqa: E402


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def emit(result: dict) -> None:
    print(TAG + json.dumps(result), flush=True)


# ==============================================================================================
# children
# ==============================================================================================


def child_seqform(a: argparse.Namespace) -> None:
    import numpy as np
    import pyspiel

    import seqform
    from seqform.io.openspiel import to_openspiel_policy
    from seqform.iterative.cfr import RegretMinimizer
    from seqform.model.tree import compile_tree

    game = pyspiel.load_game(a.game)
    t0 = time.perf_counter()
    tree = compile_tree(seqform.from_openspiel(game))
    t_compile = time.perf_counter() - t0
    t0 = time.perf_counter()
    solver = RegretMinimizer(tree, "cfr+")
    t_setup = time.perf_counter() - t0
    say(f"seqform: compiled {tree.num_nodes} nodes in {t_compile:.1f} s, solver built in {t_setup:.1f} s")
    seconds, trajectory, reached = 0.0, [], None
    chunk = a.openspiel_iterations
    while solver.iteration < a.max_iterations:
        chunk = min(chunk, a.max_iterations - solver.iteration)
        t0 = time.perf_counter()
        solver.step(chunk)
        seconds += time.perf_counter() - t0
        if solver.iteration == a.openspiel_iterations:  # untimed: the point OpenSpiel is compared at
            pol = to_openspiel_policy(tree, solver.average_profile(), game)
            np.save(a.policy_file, pol.action_probability_array)
        nc = seqform.exploitability(tree, solver.average_profile(), validate=False).nash_conv
        trajectory.append((solver.iteration, seconds, nc))
        say(f"seqform: {solver.iteration} iterations, {seconds:.1f} s, NashConv {nc:.3e}")
        if nc <= a.target:
            reached = solver.iteration
            break
        chunk = a.every
    t0 = time.perf_counter()
    ev = seqform.evaluate(tree, solver.average_profile(), exact=True)
    t_exact = time.perf_counter() - t0
    emit(
        {
            "status": "ok",
            "nodes": int(tree.num_nodes),
            "leaves": int(len(tree.terminals)),
            "sequences": [int(n) for n in tree.num_sequences],
            "compile_seconds": t_compile,
            "setup_seconds": t_setup,
            "iterations": solver.iteration,
            "reached_at": reached,
            "seconds": seconds,
            "trajectory": trajectory,
            # the rational has thousands of digits: its size, not its digits
            "nash_conv_exact_bits": [int(x).bit_length() for x in (ev.nash_conv.numerator, ev.nash_conv.denominator)],
            "nash_conv_exact_float": float(ev.nash_conv),
            "exact_seconds": t_exact,
        }
    )


def child_openspiel(a: argparse.Namespace, python: bool) -> None:
    import numpy as np
    import pyspiel
    from open_spiel.python import policy as os_policy

    game = pyspiel.load_game(a.game)
    n = a.python_iterations if python else a.openspiel_iterations
    t0 = time.perf_counter()
    if python:
        from open_spiel.python.algorithms import cfr as os_cfr

        solver = os_cfr.CFRPlusSolver(game)
    else:
        solver = pyspiel.CFRPlusSolver(game)
    t_setup = time.perf_counter() - t0
    t0 = time.perf_counter()
    for i in range(n):
        solver.evaluate_and_update_policy()
        say(f"OpenSpiel {'Python' if python else 'C++'}: iteration {i + 1}, {time.perf_counter() - t0:.1f} s")
    seconds = time.perf_counter() - t0
    if python:
        avg = solver.average_policy()
        nc = float(pyspiel.nash_conv(game, os_policy.python_policy_to_pyspiel_policy(avg)))
    else:
        tab = solver.tabular_average_policy()
        nc = float(pyspiel.nash_conv(game, tab))
        avg = os_policy.pyspiel_policy_to_python_policy(game, tab)
    out = {"status": "ok", "setup_seconds": t_setup, "iterations": n, "seconds": seconds, "nash_conv": nc}
    if n == a.openspiel_iterations and os.path.exists(a.policy_file):
        ours = np.load(a.policy_file)
        out["max_abs_difference"] = float(np.abs(ours - avg.action_probability_array).max())
    emit(out)


# ==============================================================================================
# the parent
# ==============================================================================================


def report(a: argparse.Namespace, res: dict, info: dict, command: str) -> str:
    s, c, py = res["seqform"], res["OpenSpiel C++"], res.get("OpenSpiel Python")
    lines = [
        f"# CFR+ on {a.game}: seqform against OpenSpiel, NashConv <= {a.target:g}",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {info.get('cpu')}, {info.get('cores')} cores, Python {info.get('python')}; load average "
        f"{info['loadavg_start'][0]:.2f} at the start and {res['loadavg_end'][0]:.2f} at the end. "
        "The machine was shared and busy (other work ran throughout): the seconds below are from a busy machine; "
        "the ratios between solvers measured the same way are the more reliable figures.",
        "",
    ]
    if s.get("status") != "ok":
        return "\n".join([*lines, f"seqform's run failed: {s}", ""])
    per_it = s["seconds"] / s["iterations"]
    lines += [
        f"Game: {s['nodes']:,} nodes, {s['leaves']:,} leaves, sequences per player {s['sequences']}. "
        f"seqform compiled it in {s['compile_seconds']:.1f} s (through `seqform.from_openspiel`) and built "
        f"the solver in {s['setup_seconds']:.1f} s (not in the times below).",
        "",
        "| solver | iterations to NashConv <= target | seconds to target | ms per iteration | NashConv at the end "
        "| largest difference from seqform's average |",
        "|---|---|---|---|---|---|",
    ]
    reached = s["reached_at"]
    lines.append(
        f'| seqform `RegretMinimizer(tree, "cfr+")` | {reached if reached else "not within " + str(s["iterations"])} '
        f"| {s['seconds']:.1f} (measured) | {1e3 * per_it:.1f} | {s['nash_conv_exact_float']:.3e} (exact) | |"
    )
    for name, r in (("OpenSpiel C++ `pyspiel.CFRPlusSolver`", c), ("OpenSpiel Python `CFRPlusSolver`", py)):
        if r is None:
            continue
        if r.get("status") != "ok":
            lines.append(f"| {name} | run failed: {r.get('error', r)} | | | | |")
            continue
        their = r["seconds"] / r["iterations"]
        extra = f"{their * reached:.0f} (extrapolated: {reached} x its ms per iteration)" if reached else "n/a"
        lines.append(
            f"| {name} | {reached if reached else 'n/a'} (assumed: the same algorithm) | {extra} | {1e3 * their:.1f} "
            f"(over {r['iterations']} iterations) | {r['nash_conv']:.3e} after {r['iterations']} "
            f"| {r.get('max_abs_difference', float('nan')):.1e} after {r['iterations']} |"
        )
    lines += [""]
    if c.get("status") == "ok":
        lines += [
            f"seqform is {c['seconds'] / c['iterations'] / per_it:.1f} times as fast per iteration as OpenSpiel C++. "
            f"OpenSpiel C++'s average strategy after {c['iterations']} iterations differs from seqform's by at most "
            f"{c.get('max_abs_difference', float('nan')):.1e} (any action of any information state), and its NashConv "
            f"there is {c['nash_conv']:.6e} against seqform's "
            f"{next((nc for it, _, nc in s['trajectory'] if it == c['iterations']), float('nan')):.6e}.",
            "",
        ]
    lines += [
        f"seqform's final average strategy, evaluated exactly (`seqform.evaluate(..., exact=True)`, "
        f"{s['exact_seconds']:.1f} s): NashConv {s['nash_conv_exact_float']:.9e} (a rational of "
        f"{s['nash_conv_exact_bits'][0]} / {s['nash_conv_exact_bits'][1]} bits, numerator / denominator; "
        f"the float measure at the stopping point is {s['trajectory'][-1][2]:.9e}).",
        "",
        "seqform's trajectory (float NashConv of the average strategy, untimed; seconds inside `step` only):",
        "",
        "| iterations | seconds | NashConv |",
        "|---|---|---|",
    ]
    lines += [f"| {it} | {sec:.1f} | {nc:.3e} |" for it, sec, nc in s["trajectory"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="leduc_poker(players=3)", help="an OpenSpiel game string")
    ap.add_argument("--target", type=float, default=1e-3, help="NashConv to reach (default 1e-3)")
    ap.add_argument("--every", type=int, default=250, help="iterations between NashConv measurements")
    ap.add_argument("--max-iterations", type=int, default=100_000)
    ap.add_argument("--openspiel-iterations", type=int, default=20, help="iterations OpenSpiel C++ runs")
    ap.add_argument("--python-iterations", type=int, default=0, help="iterations OpenSpiel Python runs (0: off)")
    ap.add_argument("--cap", type=float, default=4 * 3600, help="seconds each child may run")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--child", choices=["seqform", "openspiel", "openspiel-python"], help=argparse.SUPPRESS)
    ap.add_argument("--policy-file", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        {"seqform": child_seqform, "openspiel": lambda x: child_openspiel(x, False)}.get(
            a.child, lambda x: child_openspiel(x, True)
        )(a)
        return 0
    command = "python bench/bench_cfr_nplayer.py " + " ".join(argv if argv is not None else sys.argv[1:])
    info = machine_info()
    with tempfile.TemporaryDirectory() as tmp:
        opts = [
            "--game", a.game, "--target", str(a.target), "--every", str(a.every),
            "--max-iterations", str(a.max_iterations), "--openspiel-iterations", str(a.openspiel_iterations),
            "--python-iterations", str(a.python_iterations), "--policy-file", str(Path(tmp) / "seqform.npy"),
        ]  # fmt: skip
        me = str(Path(__file__).resolve())
        res = {"seqform": run_isolated([me, "--child", "seqform", *opts], a.cap, echo=True)}
        res["OpenSpiel C++"] = run_isolated([me, "--child", "openspiel", *opts], a.cap, echo=True)
        if a.python_iterations:
            res["OpenSpiel Python"] = run_isolated([me, "--child", "openspiel-python", *opts], a.cap, echo=True)
    res["loadavg_end"] = list(os.getloadavg())
    text = report(a, res, info, command)
    print(text)
    if not a.no_write:
        stem = write_results(a.out_dir, "cfr-nplayer", text, {"machine": info, "args": vars(a), "results": res})
        say(f"wrote {stem}.md and .json")
    return 0


if __name__ == "__main__":
    sys.exit(main())

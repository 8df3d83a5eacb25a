#!/usr/bin/env python3
"""A/B of two source trees of seqform on this machine: the same measurement in alternating fresh
processes, old tree then new tree, so that a shared machine's drift hits both alike. For checking
that a change made no hot path slower (the benches compare against peers, this against ourselves).

    git worktree add /tmp/old <commit>
    python bench/ab_trees.py --old /tmp/old --new . solve leduc "leduc(ranks=5)"
    python bench/ab_trees.py --old /tmp/old --new . cfr kuhn leduc --reps 12
    python bench/ab_trees.py --old /tmp/old --new . startup import help "solve kuhn" --reps 15

``solve``: ``seqform.solve(load(spec), certify_exact=...)`` wall time, float and certified.
``cfr``: CFR+ iterations per second over 1,000 iterations. ``startup``: the wall time of a fresh
process that runs ``import seqform`` (``import``), ``seqform --help`` (``help``) or a command
(``"solve kuhn"``, with ``--quiet``), start to exit. Prints min and median per tree.
Each child checks that ``seqform`` came from the tree asked for (an editable install would
otherwise serve the new tree's modules under the old package).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CHILD = r"""
import json, os, sys, time
import seqform
from seqform.games import load
what, spec, arg = sys.argv[1], sys.argv[2], sys.argv[3]
tree_dir = os.path.dirname(seqform.__file__)
if what == "solve":
    t0 = time.perf_counter()
    seqform.solve(load(spec), certify_exact=arg == "1")
    value = time.perf_counter() - t0
else:
    if os.path.exists(os.path.join(tree_dir, "cfr.py")):
        from seqform.cfr import RegretMinimizer            # the layout before issue 20
    else:
        from seqform.iterative.cfr import RegretMinimizer
    s = RegretMinimizer(seqform.compile_tree(load(spec)), "cfr+")
    t0 = time.perf_counter()
    s.step(1000)
    value = 1000 / (time.perf_counter() - t0)
print(json.dumps({"value": value, "file": seqform.__file__}))
"""

# a whole process is what is timed: its output goes to a buffer, then the JSON line
STARTUP_CHILD = r"""
import contextlib, io, json, sys
what = sys.argv[1]
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    import seqform
    if what != "import":
        from seqform.cli import main
        try:
            main(["--help"] if what == "help" else what.split() + ["--quiet"])
        except SystemExit:
            pass
print(json.dumps({"file": seqform.__file__}))
"""


def run_child(what: str, spec: str, arg: str, path: str) -> tuple:
    """One fresh process on the tree ``path``: (its JSON line, the wall seconds it took)."""
    env = {**os.environ, "PYTHONPATH": path}
    cmd = (
        [sys.executable, "-c", STARTUP_CHILD, spec]
        if what == "startup"
        else [sys.executable, "-c", CHILD, what, spec, arg]
    )
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd="/")
    wall = time.perf_counter() - t0
    if r.returncode:
        raise RuntimeError(r.stderr[-2000:])
    return json.loads(r.stdout), wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="the old source tree (e.g. a git worktree)")
    ap.add_argument("--new", default=".", help="the new source tree (default: here)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("what", choices=["solve", "cfr", "startup"])
    ap.add_argument("games", nargs="+", help="games (solve, cfr) or what to start (startup: import, help, a command)")
    args = ap.parse_args()
    trees = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    args_list = ["0", "1"] if args.what == "solve" else ["-"] if args.what == "cfr" else ["start"]
    out: dict = {}
    for spec in args.games:
        for arg in args_list:
            for _ in range(args.reps):
                for name, path in trees.items():
                    try:
                        d, wall = run_child(args.what, spec, arg, path)
                    except RuntimeError as e:
                        print(e, file=sys.stderr)
                        return 1
                    d.setdefault("value", wall)
                    if not d["file"].startswith(path):
                        print(f"{name}: seqform came from {d['file']}, not {path}", file=sys.stderr)
                        return 1
                    out.setdefault((spec, arg, name), []).append(d["value"])
    unit = "it/s" if args.what == "cfr" else "s"
    for (spec, arg, name), v in sorted(out.items()):
        kind = {"0": "float", "1": "certified", "-": "cfr+", "start": "startup"}[arg]
        print(
            f"{spec:18s} {kind:9s} {name}: min {min(v):.4g} median {statistics.median(v):.4g} {unit}  ({len(v)} runs)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

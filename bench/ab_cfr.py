#!/usr/bin/env python3
"""A/B of the CFR family's speed: ``seqform/iterative/cfr.py`` at a git revision against the working
tree's, on one game, alternating the two (CPU seconds an iteration of CFR+, minimum and median).
Alternating on one machine in one process makes the comparison robust to a shared machine's load,
which a side-by-side bench of different days is not.

Usage (from the repository root)::

    python bench/ab_cfr.py leduc --repeats 14 --rev HEAD
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def old_module(rev: str):
    """``seqform.iterative.cfr`` as it was at ``rev``, imported under the name ``cfr_at_rev``."""
    src = subprocess.run(
        ["git", "show", f"{rev}:seqform/iterative/cfr.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "cfr_at_rev.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("cfr_at_rev", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["cfr_at_rev"] = mod  # dataclasses look their module up by name
    spec.loader.exec_module(mod)
    return mod


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("game")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--rev", default="HEAD")
    args = ap.parse_args(argv)
    import seqform
    from seqform.iterative.cfr import RegretMinimizer as New

    Old = old_module(args.rev).RegretMinimizer
    tree = seqform.compile_tree(seqform.games.load(args.game))
    ms: dict = {args.rev: [], "working tree": []}
    for r in range(args.repeats):
        pair = [(args.rev, Old), ("working tree", New)]
        for name, cls in pair if r % 2 == 0 else pair[::-1]:
            s = cls(tree, "cfr+")
            t = time.process_time()
            s.step(args.iterations)
            ms[name].append((time.process_time() - t) / args.iterations * 1e3)
    for name, v in ms.items():
        v.sort()
        print(f"{args.game} {name}: CFR+ ms an iteration (CPU) min {v[0]:.4f} median {v[len(v) // 2]:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""How fast the sampling algorithm's Markov chains move on a game: seconds per Gibbs sweep of every
chain, per statistics pass and per best-deviation search, at a few sample sizes (the costs behind
issue 26's one-hour target: a fresh sample costs ``thin`` sweeps plus one statistics pass).

Usage (from the repository root)::

    python bench/efce_sweep_speed.py                          # indian_poker(cards=8)
    python bench/efce_sweep_speed.py --game "grid_game(size=20)" --sizes 1000,4000
    python bench/efce_sweep_speed.py --chunk 256                # chains per vectorised step
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="indian_poker(cards=8)")
    ap.add_argument("--sizes", default="1000,4000,16000", help="numbers of chains")
    ap.add_argument("--repeat", type=int, default=3, help="sweeps timed per size")
    ap.add_argument(
        "--chunk", type=int, default=None, help="chains per vectorised step, tree model only (default: the model's)"
    )
    args = ap.parse_args(argv)
    import efce
    import seqform
    from efce.models import make_model

    del efce
    game = seqform.games.load(args.game)
    rng = np.random.default_rng(0)
    model = make_model(game, np.zeros(game.num_players), None, rng, None)
    print(f"{game.name}, lambda = 0, one process")
    print("| chains | seconds per sweep | profile-sweeps per second | statistics (s) | best deviation (s) |")
    print("|---|---|---|---|---|")
    for n in (int(x) for x in args.sizes.split(",")):
        S = model.new_profiles(n, rng)
        kw = {} if args.chunk is None else {"chunk": args.chunk}
        model.sweep(S, rng, **kw)
        t = time.perf_counter()
        for _ in range(args.repeat):
            model.sweep(S, rng, **kw)
        sweep = (time.perf_counter() - t) / args.repeat
        t = time.perf_counter()
        stats = model.statistics(S)
        st = time.perf_counter() - t
        t = time.perf_counter()
        model.best_deviation(stats, np.ones(n))
        bd = time.perf_counter() - t
        print(f"| {n:,} | {sweep:.3f} | {n / sweep:,.0f} | {st:.3f} | {bd:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Dudik & Gordon 2009, Figure 4 (right): equilibrium payoffs of Indian poker for several weight vectors w
(eq. 2) and several MCMC seeds, with the sampling algorithm (``efce.sampling``).

Each run is time-limited. The payoffs are the final sample's estimates. They are plotted in the
seed's projection: payoffs sum to 0, so w and w - w_3 (1, 1, 1) are equivalent, and each point
is drawn at (player 1's payoff, player 2's payoff).

Usage (from the repository root)::

    python bench/efce_weights.py                          # C=3, w in {0, 100 e_1, 100 e_2, 100 e_3}, 2 seeds
    python bench/efce_weights.py --cards 4 --seeds 0,1,2 --time-limit 120
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

WEIGHTS = ((0, 0, 0), (100, 0, 0), (0, 100, 0), (0, 0, 100))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=3)
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--check", type=int, default=500, help="profiles per validation sample")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    from efce.games import indian_poker
    from efce.sampling import SamplerOptions, sample_efce, validated_regret

    game = indian_poker(args.cards)
    rows = []
    for w in WEIGHTS:
        for seed in [int(x) for x in args.seeds.split(",") if x]:
            res = sample_efce(
                game,
                w if any(w) else None,
                seed=seed,
                time_limit=args.time_limit,
                max_rounds=10**6,
                target=1e-3,
                options=SamplerOptions(expectations="mcmc"),
            )
            val = validated_regret(game, res, samples=args.check, seed=1000 + seed)
            rows.append(
                {
                    "weights": list(w),
                    "seed": seed,
                    "payoffs": [float(x) for x in res.payoffs],
                    "rounds": res.rounds,
                    "regret": float(res.max_regret),
                    "seconds": res.seconds["total"],
                    "validated": val.validated,
                    "validated_stderr": val.stderr,
                    "fresh_max": val.found,
                }
            )
            print(
                f"w={w} seed={seed}: payoffs {[round(x, 3) for x in rows[-1]['payoffs']]}, "
                f"{res.rounds} rounds, regret {res.max_regret:.3g}",
                file=sys.stderr,
                flush=True,
            )
    day = _dt.date.today().isoformat()
    lines = [
        f"# Indian poker (C={args.cards}): EFCE payoffs for several weight vectors ({day})",
        "",
        f"Sampling algorithm, each run until its estimated regret is at most 1e-3 r_max ({6e-3:g} for Indian "
        f"poker) or for {args.time_limit:g} s; payoffs are the final sample's estimates.",
        "",
        f"*fresh max*: the largest regret on a fresh sample of {args.check} profiles; *validated*: that "
        "deviation's regret on a second fresh sample, +- one standard error.",
        "",
        "| w | seed | payoffs (players 0, 1, 2) | rounds | last estimated regret | fresh max | validated |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {tuple(r['weights'])} | {r['seed']} | {', '.join(f'{x:.3f}' for x in r['payoffs'])} | "
            f"{r['rounds']} | {r['regret']:.3g} | {r['fresh_max']:.3g} | "
            f"{r['validated']:.3g} +- {r['validated_stderr']:.2g} |"
        )
    md = "\n".join(lines) + "\n"
    print(md)
    if not args.no_write:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out = Path(args.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        stem = out / f"efce-weights-C{args.cards}-{day}"
        fig, ax = plt.subplots(figsize=(5.5, 5))
        colours = {(0, 0, 0): "k", (100, 0, 0): "tab:red", (0, 100, 0): "tab:green", (0, 0, 100): "tab:blue"}
        for r in rows:
            w = tuple(r["weights"])
            ax.scatter(
                r["payoffs"][0], r["payoffs"][1], c=colours[w], marker="s" if not any(w) else "D", label=f"w = {w}"
            )
        handles, labels = ax.get_legend_handles_labels()
        keep = dict(zip(labels, handles))
        ax.legend(keep.values(), keep.keys(), fontsize=8)
        ax.set_xlabel("player 0's payoff")
        ax.set_ylabel("player 1's payoff")
        ax.set_title(f"Indian poker C={args.cards}: EFCE payoffs (Dudik & Gordon 2009, Figure 4 right)")
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        fig.savefig(f"{stem}.png", dpi=120)
        plt.close(fig)
        Path(f"{stem}.md").write_text(md)
        Path(f"{stem}.json").write_text(json.dumps(rows, indent=1))
        print(f"wrote {stem}.md, .json, .png", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

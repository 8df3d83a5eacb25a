#!/usr/bin/env python3
"""Support-restricted LPs for the abstract LP of Rhode Island Hold'em: can a smaller LP, on the
sequences an equilibrium uses, replace HiGHS's solve of the whole LP?

All in one process, one after the other, on ``lossless``'s abstract sequence form (the LP
``seqform.lp.zerosumlp`` solves, "auto" method):

* ``full``: the whole LP; its optimal vertex's supports S0, S1 (sequences of positive weight);
* ``support, both restricted``: the LP of the restricted game where each player may only use
  its sequences in S0 and S1 (the best case of a double oracle: the supports given by an oracle);
* ``support, columns only``: two LPs, each player's plan restricted to its support but every
  sequence of the opponent kept as a constraint (Bosansky et al. 2014's restricted game with all
  best responses of the opponent; each LP's value then bounds the game's value);
* ``double oracle``: the restricted game grown by both players' pure best responses (vector form,
  ``lossless.vectorbestresponse``), from the supports of ``--cfr`` seconds of vector-form CFR+
  (behaviour probabilities above ``--threshold``), for at most ``--rounds`` rounds;
* ``column generation``: the two columns-only LPs of the previous point, from the same CFR+
  supports, each grown by the support of its player's best response to the other LP's plan.

Every row's bracket is certified by vector-form best responses (rigorous float bounds on the game
value: lower <= value <= upper). Wall seconds and the process's CPU seconds (all threads) are both
given: on a shared machine the CPU seconds are the steadier figure.

Usage (from the repository root)::

    python bench/bench_support_lp.py --game "rhode_island(ranks=3,suits=2)" --cfr 10 --rounds 15

Writes ``bench/results/support-lp-DAY.md`` and ``.json``.

References:

- Bosansky, Kiekintveld, Lisy & Pechoucek (2014), "An Exact Double-Oracle Algorithm for Zero-Sum
  Extensive-Form Games with Imperfect Information", JAIR.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.report import finish, start  # noqa: E402


class Setup:
    """The abstract game's sequence form, layout and card matrices, and the LPs on supports."""

    def __init__(self, spec: str):
        import lossless
        import seqform
        from lossless.abstractlp import abstract_sequence_form
        from lossless.cardmatrices import card_matrices
        from lossless.sequencelayout import sequence_layout

        sh = lossless.shrink(seqform.games.load(spec), nonzeros=False, build_abstract=False)
        self.sf = abstract_sequence_form(sh.abstraction)
        self.lay = sequence_layout(sh.abstraction)
        self.cards = card_matrices(self.lay)
        self.A, self.AT = self.sf.A.tocsr(), sp.csr_matrix(-self.sf.A.T)
        self.E, self.F = self.sf.E.tocsc(), self.sf.F.tocsc()
        self.n = (self.E.shape[1], self.F.shape[1])

    def lp(self, form: str, S0=None, S1=None):
        """Player 0's LP (form "p0") or player 1's (form "p1", the transposed game), with the LP's
        player on its support and the opponent's rows on theirs (None: all). Returns (value for
        player 0, the LP player's plan over all its sequences, the other's from the duals)."""
        from seqform.lp.sequenceform import SequenceForm
        from seqform.lp.zerosumlp import solve_lp

        own, opp = (S0, S1) if form == "p0" else (S1, S0)
        E, e, F, f, A = (
            (self.E, self.sf.e, self.F, self.sf.f, self.A)
            if form == "p0"
            else (self.F, self.sf.f, self.E, self.sf.e, self.AT)
        )
        i = np.arange(E.shape[1]) if own is None else np.flatnonzero(own)
        j = np.arange(F.shape[1]) if opp is None else np.flatnonzero(opp)
        res = solve_lp(SequenceForm(None, E[:, i], e, F[:, j], f, A[i][:, j].tocsr()), method="auto")
        x = np.zeros(E.shape[1])
        x[i] = res.x
        y = np.zeros(F.shape[1])
        y[j] = res.y
        return (res.value if form == "p0" else -res.value), x, y

    def support(self, p: int, behaviour) -> np.ndarray:
        from lossless.vectorbestresponse import plan_from_behaviour

        return plan_from_behaviour(self.lay, p, behaviour)[0] > 0

    def responses(self, x, y):
        """(lower, upper, player 0's pure best response's support, player 1's)."""
        from lossless.vectorbestresponse import behaviour_from_plan, best_response

        br1 = best_response(self.lay, 1, behaviour_from_plan(self.lay, 0, x), self.cards)
        br0 = best_response(self.lay, 0, behaviour_from_plan(self.lay, 1, y), self.cards)
        lower, upper = -br1.value - br1.error, br0.value + br0.error
        return lower, upper, self.support(0, br0.behaviour), self.support(1, br1.behaviour)


class Clock:
    def __init__(self):
        self.t, self.c = time.perf_counter(), time.process_time()

    def read(self) -> dict:
        return {"seconds": time.perf_counter() - self.t, "cpu_seconds": time.process_time() - self.c}


def cfr_supports(s: Setup, seconds: float, threshold: float) -> tuple:
    """Each player's sequences reached by the CFR+ average's actions of probability > threshold
    (closed: every information set they reach keeps its likeliest action)."""
    from lossless.vectorcfr import cfr_plus

    cfr = cfr_plus(s.lay, seconds=seconds, bracket_every=10**9)
    sup = tuple(s.support(p, np.where(b > threshold, b, 0.0)) for p, b in enumerate(cfr.behaviours))
    return sup, {"cfr_iterations": cfr.iterations, "cfr_lower": float(cfr.lower), "cfr_upper": float(cfr.upper)}


def grow(s: Setup, S0, S1, rounds: int, both: bool, say) -> list:
    """Rounds of the double oracle (``both``: the restricted game) or of two-sided column generation."""
    out = []
    for k in range(rounds):
        clock = Clock()
        if both:
            v, x, y = s.lp("p0", S0, S1)
            v1 = v
        else:
            v, x, _ = s.lp("p0", S0, None)
            v1, y, _ = s.lp("p1", None, S1)
        lp = clock.read()
        lower, upper, b0, b1 = s.responses(x, y)
        new0, new1 = b0 & ~S0, b1 & ~S1
        row = {
            "round": k,
            "sizes": [int(S0.sum()), int(S1.sum())],
            "lp_values": [v, v1],
            "lower": lower,
            "upper": upper,
            "added": [int(new0.sum()), int(new1.sum())],
            "lp": lp,
            "round_time": clock.read(),
        }
        out.append(row)
        say(f"  round {k}: supports {row['sizes']} bracket width {upper - lower:.3e} LP cpu {lp['cpu_seconds']:.1f} s")
        if upper - lower < 1e-9 or not (new0.any() or new1.any()):
            break
        S0, S1 = S0 | new0, S1 | new1
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="rhode_island(ranks=3,suits=2)")
    ap.add_argument("--cfr", type=float, default=10.0, help="seconds of vector-form CFR+ for the first supports")
    ap.add_argument("--threshold", type=float, default=0.02, help="behaviour probability kept in the CFR+ supports")
    ap.add_argument("--rounds", type=int, default=15, help="rounds of the double oracle at most")
    ap.add_argument("--cg-rounds", type=int, default=3, help="rounds of column generation at most")
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args(argv)

    def say(m: str) -> None:
        print(m, file=sys.stderr, flush=True)

    day, out, lines = start(args.out_dir, f"Support-restricted LPs on {args.game}'s abstract LP")
    lines += [f"- load average at start: {', '.join(f'{v:.2f}' for v in os.getloadavg())}"]
    s = Setup(args.game)
    data: dict = {"game": args.game, "sequences": list(s.n), "lp_rows": s.E.shape[0] + s.F.shape[1]}
    clock = Clock()
    v, x, y = s.lp("p0")
    data["full"] = {"value": v, **clock.read(), **dict(zip(("lower", "upper"), s.responses(x, y)[:2]))}
    say(f"full LP: {data['full']}")
    S0, S1 = x > 1e-9, y > 1e-9  # the vertex's supports (HiGHS's zeros are within 1e-9)
    clock = Clock()
    _, xr, yr = s.lp("p0", S0, S1)
    data["both"] = {"sizes": [int(S0.sum()), int(S1.sum())], **clock.read()}
    data["both"].update(zip(("lower", "upper"), s.responses(xr, yr)[:2]))
    clock = Clock()
    _, xc, _ = s.lp("p0", S0, None)
    _, yc, _ = s.lp("p1", None, S1)
    data["columns"] = {**clock.read(), **dict(zip(("lower", "upper"), s.responses(xc, yc)[:2]))}
    say(f"on the vertex's supports: {data['both']} / {data['columns']}")
    for key, both, rounds in (("double_oracle", True, args.rounds), ("column_generation", False, args.cg_rounds)):
        clock = Clock()
        (T0, T1), info = cfr_supports(s, args.cfr, args.threshold)
        say(f"{key}: CFR+ {info}")
        data[key] = {**info, "rounds": grow(s, T0, T1, rounds, both, say)}
        data[key]["total"] = clock.read()
    lines += [f"- load average at end: {', '.join(f'{v:.2f}' for v in os.getloadavg())}", ""]
    lines += markdown(data)
    finish(out, f"support-lp-{day}", lines, data)
    return 0


def markdown(d: dict) -> list:
    n0, n1 = d["sequences"]
    full = d["full"]

    def row(name, sizes, secs, cpu, lower, upper, note=""):
        sz = "all" if sizes is None else f"{sizes[0]:,} ({sizes[0] / n0:.0%}) / {sizes[1]:,} ({sizes[1] / n1:.0%})"
        return (
            f"| {name} | {sz} | {secs:.1f} | {cpu:.1f} | {lower:.10f} | {upper:.10f} | {upper - lower:.2e} | {note} |"
        )

    out = [
        f"Abstract LP: {d['lp_rows']:,} rows; {n0:,} and {n1:,} sequences. Exact value of the LP "
        f"(float): {full['value']:.10f}. Bracket: the vector-form best responses to the row's plans.",
        "",
        "| LP | supports (player 0 / player 1) | seconds | CPU s | lower | upper | width | note |",
        "|---|---|---|---|---|---|---|---|",
        row("full", None, full["seconds"], full["cpu_seconds"], full["lower"], full["upper"]),
    ]
    b, c = d["both"], d["columns"]
    out.append(
        row(
            "the vertex's supports, both restricted", b["sizes"], b["seconds"], b["cpu_seconds"], b["lower"], b["upper"]
        )
    )
    out.append(
        row(
            "the vertex's supports, columns only (2 LPs)",
            b["sizes"],
            c["seconds"],
            c["cpu_seconds"],
            c["lower"],
            c["upper"],
        )
    )
    for key, name in (("double_oracle", "double oracle"), ("column_generation", "column generation (2 LPs a round)")):
        r = d[key]
        last = r["rounds"][-1]
        note = (
            f"CFR+ {r['cfr_iterations']} it; {len(r['rounds'])} rounds; LP CPU "
            f"{sum(x['lp']['cpu_seconds'] for x in r['rounds']):.1f} s; widths "
            + ", ".join(f"{x['upper'] - x['lower']:.2g}" for x in r["rounds"])
        )
        out.append(
            row(
                name,
                last["sizes"],
                r["total"]["seconds"],
                r["total"]["cpu_seconds"],
                last["lower"],
                last["upper"],
                note,
            )
        )
    return out


if __name__ == "__main__":
    raise SystemExit(main())

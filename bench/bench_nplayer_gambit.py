"""seqform.solve against pygambit's enumpoly_solve on small games of three or more players.

For every game, in two fresh processes each killed after ``--cap`` seconds:

* pygambit: ``gbt.nash.enumpoly_solve(game)`` (defaults: behaviour form, ``maxregret=1e-4``) on
  the game as seqform's ``.efg`` writer writes it; every profile it returns is converted with
  ``seqform.from_pygambit_behavior`` and evaluated by ``seqform.evaluate`` exactly (its float
  probabilities at their binary values; an information set whose binary values do not sum to
  exactly 1 is renormalised exactly, and counted) and in floats. A profile is "not Nash" when its
  exact NashConv exceeds ``--tol`` (default 1e-6) times the game's payoff range (largest minus
  smallest payoff of any player); a profile whose largest gain of one player exceeds 1e-4 times
  the range fails Gambit's own acceptance criterion too (the ``maxregret`` of enumpoly_solve).
* seqform: ``seqform.solve(game)`` ("cfr+-polish": CFR+, the polish, support enumeration when the
  first polish fails, exact best responses; irrational equilibria in their number field), with
  ``time_limit`` a little under the cap; certified or not, the reason when not, the exact values
  and the exact profile (strategy JSON, so a test can check it independently).

The games: every game of three or more players in pygambit's catalogue (``gbt.catalog``;
strategic-form ones become an extensive form in which each player moves once without seeing the
others' moves, which has the same equilibria), the games of three or more players with perfect
recall copied from Gambit's repository into ``bench/gambit_games/`` (its README says from where),
seqform's ``selten_horse``, ``selten_fig3`` and
``kuhn(players=3)``, and ``--random N`` random three-player general-sum games with a chance move
at the root (this module's ``random_efg``: seeded, perfect recall by construction, at most
``--max-seqs`` sequences per player, sizes cycling through smaller bounds up to it: enumpoly
finishes within a minute on games of up to about 8 sequences per player), plus one random game
whose payoffs repeat (``DEGENERATE``).

Run from the repository root:

    python bench/bench_nplayer_gambit.py                       # default set, cap 60 s per run
    python bench/bench_nplayer_gambit.py --games "selten_horse;random/3/8" --cap 20 --no-write

Game names: ``catalog/SLUG`` (a pygambit catalogue entry), ``gambit/NAME``
(``bench/gambit_games/NAME.efg``), ``random/SEED/MAXSEQS[/BOUND]`` (payoffs in [-BOUND, BOUND],
default 100: with few distinct payoffs enumpoly rarely finishes), or any name ``seqform.games.load``
accepts; separate them by ``;``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from isolated import TAG, run_isolated  # noqa: E402

BUILTINS = ["selten_horse", "selten_fig3", "kuhn(players=3)"]
RANDOM_SIZES = (5, 6, 7, 8, 12, 20)  # cycled, each capped by --max-seqs
GAMBIT_GAMES = Path(__file__).resolve().parent / "gambit_games"  # copied from Gambit's repository
#: a game whose payoffs repeat (bound 5): enumpoly does not finish on it, where the same kind of game
#: with payoffs up to 100 takes a second
DEGENERATE = "random/0/6/5"
GAMBIT_MAXREGRET = 1e-4  # enumpoly_solve's default acceptance (times the payoff range)


# ----------------------------------------------------------------------------------------------
# games
# ----------------------------------------------------------------------------------------------


def random_efg(seed: int, max_seqs: int = 20, players: int = 3, payoff_bound: int = 100) -> str:
    """The ``.efg`` text of a random general-sum game of ``players`` players: a chance move at the
    root (two or three outcomes, small rational probabilities), then decision nodes of random
    players with 2 or 3 actions, integer payoffs in [-payoff_bound, payoff_bound] drawn
    independently per player. A node joins an existing information set only if it has the same
    player and the same own history (the player's (information set, action) pairs from the root),
    so the game has perfect recall; each own history has two possible information sets, so nodes
    the player cannot tell apart are common. No player gets more than ``max_seqs`` sequences (the
    empty one included)."""
    rng = random.Random(seed)
    seqs = [1] * players
    infosets: dict = {}  # (player, own history, bucket) -> (number, actions)
    count = [0] * players
    outcomes = [0]
    names = " ".join(f'"P{p + 1}"' for p in range(players))
    lines = [
        f'EFG 2 R "random {seed} (at most {max_seqs} sequences)" {{ {names} }}',
        '""',
        "",
    ]

    def terminal() -> None:
        outcomes[0] += 1
        pay = ", ".join(str(rng.randint(-payoff_bound, payoff_bound)) for _ in range(players))
        lines.append(f't "" {outcomes[0]} "" {{ {pay} }}')

    def decision(depth: int, own: tuple) -> None:
        if depth >= 6 or (depth >= 2 and rng.random() < 0.25):
            return terminal()
        p = rng.randrange(players)
        key = (p, own[p], rng.randrange(2))
        if key not in infosets:
            k = rng.choice((2, 2, 3))
            if seqs[p] + k > max_seqs:
                return terminal()
            count[p] += 1
            seqs[p] += k
            infosets[key] = (count[p], k)
        num, k = infosets[key]
        acts = " ".join(f'"{chr(97 + a)}{num}"' for a in range(k))
        lines.append(f'p "" {p + 1} {num} "" {{ {acts} }} 0')
        for a in range(k):
            decision(depth + 1, own[:p] + (own[p] + ((num, a),),) + own[p + 1 :])

    k = rng.choice((2, 3))
    probs = rng.choice(
        [(Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 3), Fraction(2, 3))]
        if k == 2
        else [(Fraction(1, 3),) * 3, (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))]
    )
    lines.append('c "" 1 "" { ' + " ".join(f'"{chr(65 + j)}" {q}' for j, q in enumerate(probs)) + " } 0")
    for _ in range(k):
        decision(0, ((),) * players)
    return "\n".join(lines) + "\n"


def nfg_as_efg(gambit_game) -> str:
    """The ``.efg`` text of a pygambit strategic-form game: player 1 moves at the root, every later
    player at one information set over all the nodes of its level, so no player sees another's
    move (the same pure strategies, payoffs and equilibria)."""
    players = list(gambit_game.players)
    strategies = [list(p.strategies) for p in players]
    names = " ".join(f'"P{i + 1}"' for i in range(len(players)))
    lines = [f'EFG 2 R "{gambit_game.title}" {{ {names} }}', '""', ""]
    outcome = [0]

    def walk(level: int, chosen: tuple) -> None:
        if level == len(players):
            outcome[0] += 1
            pay = ", ".join(str(Fraction(str(gambit_game[chosen][p]))) for p in players)
            lines.append(f't "" {outcome[0]} "" {{ {pay} }}')
            return
        acts = " ".join(f'"{s.label or f"s{j + 1}"}"' for j, s in enumerate(strategies[level]))
        lines.append(f'p "" {level + 1} 1 "" {{ {acts} }} 0')
        for s in strategies[level]:
            walk(level + 1, chosen + (s,))

    walk(0, ())
    return "\n".join(lines) + "\n"


def catalog_games(min_players: int = 3) -> list:
    """The slugs of pygambit's catalogue games with at least ``min_players`` players."""
    import pygambit as gbt

    out = []
    for slug in gbt.catalog.games()["Game"]:
        try:
            g = gbt.catalog.load(slug)
        except Exception:  # a catalogue entry this pygambit cannot read is not ours to judge
            continue
        if len(g.players) >= min_players:
            out.append(f"catalog/{slug}")
    return out


def default_games(n_random: int, max_seqs: int, seed: int = 0) -> list:
    """The default set: the catalogue's games of three or more players, the built-ins, and
    ``n_random`` random games (seeds ``seed``, ``seed+1``, ...; sizes cycling through RANDOM_SIZES)."""
    sizes = [min(s, max_seqs) for s in RANDOM_SIZES]
    rand = [f"random/{seed + j}/{sizes[j % len(sizes)]}" for j in range(n_random)]
    repo = [f"gambit/{p.stem}" for p in sorted(GAMBIT_GAMES.glob("*.efg"))]
    return catalog_games() + repo + BUILTINS + [DEGENERATE] + rand


def load_game(name: str):
    """The seqform ``Game`` a game name stands for (see the module docstring)."""
    import seqform
    from seqform.io.efgread import parse_efg

    if name.startswith("random/"):
        seed, mx, *bound = name.split("/")[1:]
        return parse_efg(random_efg(int(seed), int(mx), payoff_bound=int(bound[0]) if bound else 100), filename=name)
    if name.startswith("gambit/"):
        return seqform.read_efg(str(GAMBIT_GAMES / f"{name[len('gambit/') :]}.efg"))
    if name.startswith("catalog/"):
        from importlib.resources import as_file, files

        slug = name[len("catalog/") :]
        base = files("pygambit") / "catalog_data"
        if (base / f"{slug}.efg").is_file():
            with as_file(base / f"{slug}.efg") as path:
                return seqform.read_efg(str(path))
        import pygambit as gbt

        return parse_efg(nfg_as_efg(gbt.catalog.load(slug)), filename=name)
    return seqform.games.load(name)


# ----------------------------------------------------------------------------------------------
# the children
# ----------------------------------------------------------------------------------------------


def payoff_range(tree) -> Fraction:
    vals = [Fraction(v) for row in tree.payoff_exact for v in row]
    return max(vals) - min(vals) if vals else Fraction(0)


def check_profile(tree, gprof, rng: Fraction, tol: float) -> dict:
    """One enumpoly profile judged by seqform's exact and float evaluations."""
    import math

    import seqform
    from seqform.io.strategyjson import profile_to_json

    undefined = []
    for i, I in enumerate(_gambit_infosets(tree, gprof.game)):
        s = math.fsum(float(gprof[a]) for a in I.actions)
        if abs(s - 1.0) > 1e-9:
            undefined.append(tree.infoset_label(i))
    prof = seqform.from_pygambit_behavior(tree, gprof, undefined="normalize")
    ex = seqform.evaluate(tree, prof, exact=True)
    fl = seqform.evaluate(tree, prof, exact=False)
    gains = [br - v for br, v in zip(ex.best_response_values, ex.values)]
    scaled = ex.nash_conv / rng if rng else Fraction(0)
    return {
        "nash_conv_exact": str(ex.nash_conv),
        "nash_conv": float(ex.nash_conv),
        "nash_conv_float": float(fl.nash_conv),
        "nash_conv_over_range": float(scaled),
        "max_gain": float(max(gains)),
        "not_nash": bool(scaled > Fraction(tol)),
        "fails_gambit_criterion": bool(rng and max(gains) > Fraction(GAMBIT_MAXREGRET) * rng),
        "renormalised": len(ex.renormalised),
        "undefined_infosets": undefined,
        "values": [float(v) for v in ex.values],
        "profile": profile_to_json(tree, prof, exact=False),
    }


def _gambit_infosets(tree, gambit_game) -> list:
    from seqform.io.strategyjson import _gambit_infosets as gi

    return gi(tree, gambit_game)


def child_enumpoly(name: str, tol: float) -> dict:
    import pygambit as gbt

    import seqform
    from seqform.io.efgwrite import efg_string

    tree = seqform.compile_tree(load_game(name))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "game.efg"
        path.write_text(efg_string(tree))
        g = gbt.read_efg(str(path))
        t0 = time.perf_counter()
        res = gbt.nash.enumpoly_solve(g)
        secs = time.perf_counter() - t0
    rng = payoff_range(tree)
    eqs = [check_profile(tree, p, rng, tol) for p in res.equilibria]
    return {"status": "ok", "seconds": secs, "equilibria": eqs, "pygambit": gbt.__version__}


def child_seqform(name: str, cap: float) -> dict:
    import seqform
    from seqform.errors import SeqformError
    from seqform.io.strategyjson import profile_to_json

    tree = seqform.compile_tree(load_game(name))
    out: dict = {
        "players": tree.num_players,
        "sequences": list(tree.num_sequences),
        "infosets": [len(x) for x in tree.player_infosets],
        "nodes": len(tree.parent),
        "payoff_range": str(payoff_range(tree)),
    }
    t0 = time.perf_counter()
    try:
        sol = seqform.solve(tree, time_limit=max(1.0, min(cap - 10.0, 0.85 * cap)))
    except SeqformError as e:
        out.update(status="failed", seconds=time.perf_counter() - t0, error=f"{type(e).__name__}: {e}")
        return out
    out.update(
        status="ok",
        seconds=time.perf_counter() - t0,
        method=sol.method,
        certified=bool(sol.certified),
        # an irrational value as its closed form (radicals for a quadratic), else as a rational
        values=[v.closed_form() if hasattr(v, "closed_form") else str(v) for v in sol.values],
        irrational=getattr(sol, "algebraic", None) is not None,
        nash_conv=str(sol.nash_conv),
        profile=profile_to_json(tree, sol.exact_profile, exact=True) if sol.exact_profile is not None else None,
    )
    return out


def child_main(args) -> int:
    res = (
        child_enumpoly(args.child_game, args.tol)
        if args.child == "enumpoly"
        else child_seqform(args.child_game, args.cap)
    )
    print(TAG + json.dumps(res))
    return 0


# ----------------------------------------------------------------------------------------------
# the parent
# ----------------------------------------------------------------------------------------------


def run(names: list, cap: float, tol: float, quiet: bool = False, on_row=None) -> list:
    """One row per game: the seqform run (which also measures the game) and the enumpoly run."""
    rows = []
    here = str(Path(__file__).resolve())
    for name in names:
        row: dict = {"game": name}
        for which in ("seqform", "enumpoly"):
            args = [here, "--child", which, "--child-game", name, "--cap", str(cap), "--tol", repr(tol)]
            row[which] = run_isolated(args, cap)
            if not quiet:
                r = row[which]
                print(f"{name}: {which} {r.get('status')} {r.get('wall_seconds', 0):.1f} s", file=sys.stderr)
        rows.append(row)
        if on_row:
            on_row(rows)
    return rows


def _fmt_s(r: dict, cap: float) -> str:
    if r.get("status") == "timeout":
        return f"> {cap:g}"
    return f"{r['seconds']:.2f}" if "seconds" in r else "-"


def _short(s: str, n: int = 40) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def table(rows: list, cap: float, tol: float) -> list:
    out = [
        "| game | players | sequences | enumpoly s | #eq | #not Nash | worst NashConv / range | "
        "seqform s | certified | values |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        s, e = row["seqform"], row["enumpoly"]
        seqs = "/".join(map(str, s.get("sequences", []))) or "?"
        if e.get("status") == "ok":
            eqs = e["equilibria"]
            bad = sum(q["not_nash"] for q in eqs)
            worst = max((q["nash_conv_over_range"] for q in eqs), default=0.0)
            ecells = [_fmt_s(e, cap), str(len(eqs)), str(bad), f"{worst:.2g}" if eqs else "-"]
        else:
            ecells = [_fmt_s(e, cap), e.get("status", "?"), "-", "-"]
        if s.get("status") == "ok":
            how = {"support-enumeration": "support enumeration"}.get(s.get("method", ""), "")
            how = ", ".join(x for x in (how, "irrational" if s.get("irrational") else "") if x)
            cert = "yes" + (f" ({how})" if how else "")
            if not s["certified"]:
                cert = f"no (NashConv {_short(s['nash_conv'], 20)})"
            vals = ", ".join(_short(v, 22) for v in s["values"])
        else:
            cert = f"no: {s.get('status')}"
            vals = "-"
        out.append(
            f"| {row['game']} | {s.get('players', '?')} | {seqs} | "
            + " | ".join(ecells)
            + f" | {_fmt_s(s, cap)} | {cert} | {vals} |"
        )
    return out


def findings(rows: list, tol: float) -> list:
    out = ["", "## Findings", ""]
    none = True
    for row in rows:
        e, s = row["enumpoly"], row["seqform"]
        for j, q in enumerate(e.get("equilibria", []) if e.get("status") == "ok" else []):
            if q["not_nash"] or q["undefined_infosets"]:
                none = False
                what = "not Nash" if q["not_nash"] else "Nash"
                out.append(
                    f"- {row['game']}, enumpoly profile {j + 1}: {what}: exact NashConv {q['nash_conv']:.6g} "
                    f"({q['nash_conv_over_range']:.3g} of the payoff range; "
                    f"float evaluation {q['nash_conv_float']:.6g}; "
                    f"largest gain of one player {q['max_gain']:.3g}"
                    + ("; fails Gambit's own maxregret 1e-4" if q["fails_gambit_criterion"] else "")
                    + (
                        f"; not a distribution at {', '.join(q['undefined_infosets'])} (normalised)"
                        if q["undefined_infosets"]
                        else ""
                    )
                    + ")"
                )
        found = e.get("status") == "ok" and any(not q["not_nash"] for q in e["equilibria"])
        if found and not (s.get("status") == "ok" and s.get("certified")):
            none = False
            why = s.get("error") or (
                f"not certified, NashConv {s.get('nash_conv')}" if s.get("status") == "ok" else s.get("status")
            )
            out.append(
                f"- {row['game']}: enumpoly found an equilibrium, seqform certified none: {_short(str(why), 400)}"
            )
        if e.get("status") not in ("ok",):
            out.append(f"- {row['game']}: enumpoly {e.get('status')}: {_short(str(e.get('error')), 300)}")
    if none:
        out.append(
            "- none: every enumpoly profile is Nash within the tolerance, and seqform certified an "
            "equilibrium wherever enumpoly found one"
        )
    return out


def markdown(head: list, rows: list, cap: float, tol: float, loads: tuple) -> list:
    lines = list(head)
    lines += [
        f"- load average (1, 5, 15 min): at the start {loads[0]}, at the end "
        f"{loads[1]} ({os.cpu_count()} cores, shared)",
        f"- cap {cap:g} s per run (a fresh process each, killed at the cap); "
        f"not Nash: exact NashConv > {tol:g} x payoff range",
        "",
        "enumpoly: `pygambit.nash.enumpoly_solve(game)` with its defaults on the game as seqform's `.efg` writer "
        "writes it, timed around the call; each profile converted by `seqform.from_pygambit_behavior` and evaluated "
        "by `seqform.evaluate` exactly (floats at their binary values). seqform: `seqform.solve(game)` (CFR+, the "
        "polish, support enumeration when the first polish fails, exact best responses; an irrational equilibrium "
        "certified in its number field), timed around the call. Values: seqform's exact values, one per player "
        "(an irrational one by radicals).",
        "",
    ]
    return lines + table(rows, cap, tol) + findings(rows, tol)


def _partial(out: Path, day: str, lines: list, data: dict) -> None:
    """The files of a run still under way (``report.finish`` without printing)."""
    (out / f"nplayer-gambit-{day}.md").write_text("\n".join(lines) + "\n")
    (out / f"nplayer-gambit-{day}.json").write_text(json.dumps(data, indent=1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", help="games separated by ';' (default: the catalogue's, the built-ins, --random N)")
    ap.add_argument("--random", type=int, default=6, help="random games in the default set (default 6)")
    ap.add_argument("--max-seqs", type=int, default=20, help="most sequences per player of a random game")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first random game")
    ap.add_argument("--cap", type=float, default=60.0, help="seconds per run (default 60)")
    ap.add_argument("--tol", type=float, default=1e-6, help="not Nash: NashConv above TOL x payoff range")
    ap.add_argument("--out-dir", default=str(Path(__file__).resolve().parent / "results"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--child", choices=("enumpoly", "seqform"), help=argparse.SUPPRESS)
    ap.add_argument("--child-game", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child_main(args)
    if args.cap <= 0 or args.tol < 0 or args.random < 0 or args.max_seqs < 3:
        print("bench_nplayer_gambit: --cap must be > 0, --tol >= 0, --random >= 0, --max-seqs >= 3", file=sys.stderr)
        return 2
    names = (
        [g.strip() for g in args.games.split(";") if g.strip()]
        if args.games
        else default_games(args.random, args.max_seqs, args.seed)
    )
    load0 = tuple(round(x, 2) for x in os.getloadavg())
    from report import finish, start

    day, out, head = start(args.out_dir, "seqform.solve and pygambit's enumpoly_solve, three or more players")

    def write(rows: list) -> None:
        lines = markdown(head, rows, args.cap, args.tol, (load0, tuple(round(x, 2) for x in os.getloadavg())))
        data = {"cap": args.cap, "tol": args.tol, "load_start": load0, "rows": rows}
        if args.no_write:
            return
        finish(out, f"nplayer-gambit-{day}", lines, data) if len(rows) == len(names) else _partial(
            out, day, lines, data
        )

    rows = run(names, args.cap, args.tol, args.quiet, on_row=write)  # after every game: a stopped run keeps its rows
    if args.no_write:
        print("\n".join(markdown(head, rows, args.cap, args.tol, (load0, tuple(round(x, 2) for x in os.getloadavg())))))
    return 0


if __name__ == "__main__":
    sys.exit(main())

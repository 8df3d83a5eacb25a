"""``seqform study``: run a verification study (``seqform.study.studyrunner``), and ``seqform
study report`` to draw and summarise its table (``seqform.study.studyreport``)."""

from __future__ import annotations

import json
import os
import signal

from seqform.cli.common import JSON_HELP, QUIET_HELP
from seqform.errors import SeqformError


def add_parser(sub) -> None:
    sp = sub.add_parser(
        "study",
        help="run a verification study (games x solvers x parameters x seeds) into one table; "
        "`seqform study report TABLE` draws and summarises it",
        description="seqform study STUDY.toml [--out DIR] [--workers N | --ray [ADDRESS]]: run every "
        "cell of the study not yet in DIR. seqform study report TABLE [--out DIR]: plots "
        "and a markdown summary of a study's table.",
    )
    sp.add_argument("study", metavar="STUDY.toml|report", help="the study file, or `report` followed by a TABLE")
    sp.add_argument(
        "table",
        nargs="?",
        metavar="TABLE",
        help="with report: a study's results.parquet (or .csv), or its output directory",
    )
    sp.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="where the table goes (default: study-NAME in the current directory); with report: where "
        "plots and summary go (default: beside the table)",
    )
    sp.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="processes of the local pool, or CPUs of a local Ray runtime (default: the machine's CPUs)",
    )
    sp.add_argument(
        "--ray",
        nargs="?",
        const=True,
        default=None,
        metavar="ADDRESS",
        help="run the cells as Ray tasks: alone, on a local Ray runtime; with ADDRESS, on that cluster "
        '(pip install "seqform[distributed]")',
    )
    sp.add_argument(
        "--levels",
        default="0.1,0.01,0.001",
        metavar="L1,L2,...",
        help="with report: the exploitability levels of the summary's time-to-level columns",
    )
    sp.add_argument("--json", action="store_true", help=JSON_HELP)
    sp.add_argument("--quiet", action="store_true", help=QUIET_HELP + " (and no progress bar)")
    sp.set_defaults(func=cmd_study, memory_limit=None)


def check(args) -> None:
    if args.study == "report":
        if not args.table:
            raise SeqformError("study report needs a TABLE: a study's results.parquet or its output directory")
        if args.workers is not None or args.ray is not None:
            raise SeqformError("--workers and --ray apply to running a study, not to its report")
        try:
            levels = [float(x) for x in args.levels.split(",") if x.strip()]
        except ValueError:
            raise SeqformError(f"--levels takes comma-separated numbers, not {args.levels!r}") from None
        if not levels or any(not lv > 0 for lv in levels):
            raise SeqformError(f"--levels takes positive numbers, not {args.levels!r}")
        args.levels = levels
    else:
        if args.table:
            raise SeqformError(f"unexpected argument {args.table!r}: seqform study STUDY.toml takes one study file")
        if args.workers is not None and args.workers < 1:
            raise SeqformError(f"--workers must be at least 1, got {args.workers}")


def _terminate(signum, frame):
    raise KeyboardInterrupt


def cmd_study(args) -> int:
    from seqform.cli.common import Progress
    from seqform.study.studytable import require_pyarrow

    require_pyarrow()  # before the study file is read or a cell runs
    prog = Progress(args.quiet)
    if args.study == "report":
        from seqform.study.studyreport import report

        got = report(args.table, args.out, args.levels)
        if args.json:
            print(json.dumps(got))
        elif not args.quiet:
            print(f"wrote {got['summary']} and {len(got['plots'])} plot(s): {', '.join(got['plots'])}")
        return 0
    from seqform.study.studyrunner import run_study
    from seqform.study.studyspec import load_study

    spec = load_study(args.study)
    signal.signal(signal.SIGTERM, _terminate)  # stop the workers and keep a consistent table, as Ctrl-C does
    out = args.out or os.path.join(os.getcwd(), f"study-{spec.name}")
    res = run_study(spec, out, workers=args.workers, ray=args.ray, progress=not args.quiet, say=prog)
    if args.json:
        print(json.dumps(res.to_json()))
    elif not args.quiet:
        print(
            f"study {res.study}: {res.cells} cells, {res.skipped} already done, {res.ok} run, {res.failed} failed "
            f"({res.retried} retries) in {res.seconds:.1f} s on {res.workers} {res.executor} worker(s); "
            f"table: {os.path.join(res.out, 'results.parquet')} ({res.rows} rows)"
        )
    return 1 if res.failed else 0

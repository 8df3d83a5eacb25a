"""What every fuzz test of an input format asserts of one run of the command line, and the tiers.

A run of ``seqform ARGV`` (in this process, ``seqform.cli.main.main``) on any input either
succeeds (status 0; with ``--json``, exactly one JSON object on standard output) or refuses it
(status 2, nothing on standard output, one line on standard error starting ``seqform: error:``);
never a traceback, and never more than ``CPU_SECONDS`` of CPU (a hang guard, measured on the
process's own CPU clock, ``ITIMER_PROF``, so that a busy machine does not fail it).

Tiers: each fuzz test runs a few examples by default (the suite's budget); the environment variable
``SEQFORM_FUZZ_EXAMPLES`` sets every fuzz test's number of examples for a long run::

    SEQFORM_FUZZ_EXAMPLES=5000 python -m pytest tests/fuzz -p no:cacheprovider
"""

from __future__ import annotations

import contextlib
import json
import os
import signal

from hypothesis import HealthCheck, Phase, settings

from seqform.cli.main import main

#: the most CPU one input under 10 kB may take, whatever it is
CPU_SECONDS = 10.0


def examples(default: int, share: float = 1.0) -> int:
    """The suite's ``default``, or in a long run ``share`` of ``SEQFORM_FUZZ_EXAMPLES`` (a test
    whose inputs cost a hundred times more than the others' takes a share of 0.01)."""
    env = os.environ.get("SEQFORM_FUZZ_EXAMPLES", "").strip()
    return max(default, int(int(env) * share)) if env else default


def fuzz_settings(default: int, share: float = 1.0) -> settings:
    """Hypothesis settings of a fuzz test: ``examples(default, share)`` examples, no deadline (the
    CPU guard is the limit), no example database (the explicit ``@example``s keep what was found),
    and no explain phase: its line tracer (before Python 3.12) makes the failing input's first
    rerun several times slower, so a 2-second input passed the 10-second guard only untraced."""
    return settings(
        max_examples=examples(default, share),
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        phases=[p for p in Phase if p is not Phase.explain],
    )


class CpuTimeout(Exception):
    """An input took more than the CPU guard."""


@contextlib.contextmanager
def cpu_guard(seconds: float = CPU_SECONDS):
    """Fail (``CpuTimeout``) once the block has used ``seconds`` of this process's CPU time: the
    profiling timer counts CPU, not the wall clock, and leaves pytest-timeout's real-time alarm
    alone."""
    if not hasattr(signal, "setitimer"):  # pragma: no cover (not Unix)
        yield
        return

    def on_prof(signum, frame):
        raise CpuTimeout(f"more than {seconds} s of CPU")

    old = signal.signal(signal.SIGPROF, on_prof)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``(status, stdout, stderr)`` of ``seqform ARGV`` in this process, under the CPU guard."""
    capsys.readouterr()
    with cpu_guard():
        try:
            status = main(list(argv))
        except SystemExit as e:  # argparse's refusals
            status = e.code
    out, err = capsys.readouterr()
    return status, out, err


def check_run(status: int, out: str, err: str, json_output: bool) -> dict | None:
    """Assert the contract of the module docstring; the JSON object printed, if any."""
    assert "Traceback" not in err and "Traceback" not in out, err
    assert status in (0, 2), (status, err)
    if status == 2:
        assert out == "", out
        assert err.startswith("seqform: error: ") and err.endswith("\n"), err
        assert err.count("\n") == 1 and err[:-1].isprintable(), repr(err)
        return None
    if json_output:
        assert out.endswith("\n") and out.count("\n") == 1, out[:500]
        obj = json.loads(out)
        assert isinstance(obj, dict)
        return obj
    return None

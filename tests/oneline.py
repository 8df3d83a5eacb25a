"""The shape of every refusal on the command line, checked one way by every test that expects one:
exit status 2, exactly one line on standard error, no traceback, and the words the line must
contain (the problem, the flag or the file)."""

from __future__ import annotations

import subprocess


def one_line_error(r: subprocess.CompletedProcess, *words: str) -> str:
    """The one line of the refusal ``r`` (a finished ``seqform`` run), checked; it contains ``words``."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]

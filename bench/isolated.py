"""Run one benchmark measurement in a fresh Python process and collect its result line.

The child prints one line ``RESULT {json}``; the parent waits with ``os.wait4`` so that the
child's own peak memory (``ru_maxrss``) is known, and kills the whole process group after
``cap`` seconds. Output goes through temporary files, so a chatty child cannot block on a pipe.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TAG = "RESULT "
ROOT = Path(__file__).resolve().parent.parent


def run_isolated(args: list, cap: float, env_extra: dict | None = None, echo: bool = False) -> dict:
    """Run ``python ARGS...`` from the repository root; return the child's result dict (or a
    ``status`` of "timeout" / "crashed" with an ``error``) with ``wall_seconds`` and
    ``peak_rss_mib`` added. ``echo``: copy the child's stderr (its progress) to ours as whole
    lines arrive, for runs that last hours."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(env_extra or {})
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            [sys.executable, *args], stdout=out, stderr=err, cwd=str(ROOT), env=env, text=True, start_new_session=True
        )
        timed_out = False
        shown = 0
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if echo:
                shown = _echo(err.fileno(), shown)
            if pid:
                break
            if time.perf_counter() - t0 > cap:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                _, status, ru = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    res = next((json.loads(ln[len(TAG) :]) for ln in stdout.splitlines() if ln.startswith(TAG)), None)
    if res is None:
        rc = os.waitstatus_to_exitcode(status)
        res = {
            "status": "timeout" if timed_out else "crashed",
            "error": f"killed after {cap:g} s" if timed_out else f"exit {rc}: {stderr.strip()[-400:]}",
        }
    res.update(wall_seconds=time.perf_counter() - t0, peak_rss_mib=ru.ru_maxrss / 1024)
    return res


def _echo(fd: int, start: int) -> int:
    """Write the complete lines of the file ``fd`` from byte ``start`` on to our stderr; return
    where the next read starts (after the last newline, so no line or character is split)."""
    chunk = os.pread(fd, 1 << 20, start)
    end = chunk.rfind(b"\n") + 1 or (len(chunk) if len(chunk) == 1 << 20 else 0)  # a 1 MiB line: show it
    if end:
        sys.stderr.write(chunk[:end].decode("utf-8", "replace"))
        sys.stderr.flush()
    return start + end

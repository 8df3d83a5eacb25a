"""Watching a command-line process's output from a test without depending on the machine's speed.

``Watched(args)`` starts ``python -m seqform ARGS`` with both streams read continuously by threads
(raw bytes: progress lines end in carriage returns, so ``readline`` would wait for a newline that
comes only at the end). ``wait_for(text)`` returns as soon as ``text`` has appeared on standard
error, and fails at once, showing what was printed, if the process ends first; its limit only
bounds a hang. Tests then interrupt or kill the process at a point its own output defines.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable


class _Reader(threading.Thread):
    def __init__(self, stream):
        super().__init__(daemon=True)
        self.fd, self.chunks = stream.fileno(), []

    def run(self) -> None:
        while chunk := os.read(self.fd, 65536):
            self.chunks.append(chunk)

    def text(self) -> str:
        return b"".join(self.chunks).decode(errors="replace")


class Watched:
    """``python -m seqform *args`` with SIGINT at its default action (a test runner may ignore it)."""

    def __init__(self, *args: str, cwd=None, env=None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "seqform", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self.out, self.err = _Reader(self.proc.stdout), _Reader(self.proc.stderr)
        self.out.start()
        self.err.start()

    def wait_for(self, text: str, limit: float = 300) -> None:
        """Return once ``text`` is on standard error; fail if the process ends first or after
        ``limit`` seconds (a hang, not a slow machine: the limit is far above any normal run)."""
        end = time.monotonic() + limit
        while text not in self.err.text():
            if self.proc.poll() is not None:
                self.err.join(5)
                if text in self.err.text():
                    return
                raise AssertionError(f"ended (status {self.proc.returncode}) before {text!r}:\n{self.err.text()}")
            if time.monotonic() > end:
                self.proc.kill()
                raise AssertionError(f"no {text!r} after {limit:g} s:\n{self.err.text()}")
            time.sleep(0.05)

    def interrupt(self, limit: float = 300) -> tuple[int, str, str]:
        """SIGINT, then ``(status, stdout, stderr)`` once the process has ended."""
        self.proc.send_signal(signal.SIGINT)
        return self.finish(limit)

    def finish(self, limit: float = 300) -> tuple[int, str, str]:
        try:
            status = self.proc.wait(limit)
        finally:
            self.proc.kill()
        self.out.join(10)
        self.err.join(10)
        return status, self.out.text(), self.err.text()


def kill_when(args: list[str], ready: Callable[[], bool]) -> None:
    """Start ``python -m seqform ARGS``, poll ``ready()`` until it holds, then SIGKILL the process;
    fail if the process ended first (the test meant to kill a run in progress)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "seqform", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while proc.poll() is None and not ready():
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"

"""Peak memory of a sampling run, measured only when asked (``efce.SamplerOptions.measure_memory``):
``tracemalloc`` slows every allocation and is process-wide, so it is opt-in, never stops a trace
the caller started, and is always stopped by the run that started it, however the run ends."""

from __future__ import annotations

import tracemalloc


class MemoryTrace:
    """``tracemalloc`` over a run when ``enabled``: started unless the caller already traces
    (that trace is read, never stopped), and stopped on exit by the run that started it, however
    the run ends. ``peak``: bytes, set on exit (None when not enabled)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.started = False
        self.peak: int | None = None

    def __enter__(self) -> MemoryTrace:
        if self.enabled and not tracemalloc.is_tracing():
            tracemalloc.start()
            self.started = True
        return self

    def current(self) -> int | None:
        """Bytes traced now (None when not enabled)."""
        return tracemalloc.get_traced_memory()[0] if self.enabled and tracemalloc.is_tracing() else None

    def __exit__(self, *exc) -> None:
        if self.enabled and tracemalloc.is_tracing():
            self.peak = tracemalloc.get_traced_memory()[1]
        if self.started:
            tracemalloc.stop()

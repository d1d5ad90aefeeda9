"""Event-loop lag, measured from inside the loop: how late a short sleep wakes up; and
the garbage collector's pauses, the usual suspect when it is late.

If anything blocks the loop (a bot thinking in the wrong place, a slow encode, a full
collection), every table stalls; this makes it visible in ``GET /api/stats`` and in the
load benchmark.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections import deque

INTERVAL = 0.05  # seconds between samples
SAMPLES = 1200  # the last minute


class LagMonitor:
    def __init__(self) -> None:
        self.samples: deque[tuple[float, float]] = deque(maxlen=SAMPLES)  # (when, lag)
        self.collections: deque[tuple[float, float]] = deque(maxlen=SAMPLES)  # (when, pause)
        self._gc_start = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="lag-monitor")
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._gc_start = now
        elif info["generation"] == 2:
            self.collections.append((now, now - self._gc_start))

    async def stop(self) -> None:
        gc.callbacks.remove(self._on_gc)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:  # perf_counter, not loop.time(): uvloop's clock ticks in milliseconds
            start = time.perf_counter()
            await asyncio.sleep(INTERVAL)
            now = time.perf_counter()
            self.samples.append((now, max(0.0, now - start - INTERVAL)))

    def percentiles(self, seconds: float) -> dict[str, float]:
        """Loop lag p50, p99 and max over the last ``seconds`` (at most a minute), and the
        longest full collection, in ms."""
        since = time.perf_counter() - seconds
        ordered = sorted(lag for when, lag in self.samples if when >= since)
        pauses = [pause for when, pause in self.collections if when >= since]

        def at(q: float) -> float:
            return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)

        return {
            "p50": at(0.5) if ordered else 0.0,
            "p99": at(0.99) if ordered else 0.0,
            "max": at(1.0) if ordered else 0.0,
            "samples": len(ordered),
            "full_gc_count": len(pauses),
            "full_gc_max": round(max(pauses, default=0.0) * 1000, 3),
        }

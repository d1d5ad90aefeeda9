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
from typing import NamedTuple

INTERVAL = 0.05  # seconds between samples
SAMPLES = 1200  # the last minute


class Sample(NamedTuple):
    when: float
    lag: float  # how late the sleep woke up, seconds
    gc_time: float  # seconds spent in young collections (generations 0 and 1) meanwhile
    gc_longest: float  # the longest of those


class LagMonitor:
    def __init__(self) -> None:
        self.samples: deque[Sample] = deque(maxlen=SAMPLES)
        self.collections: deque[tuple[float, float]] = deque(maxlen=SAMPLES)  # (when, pause)
        self._gc_start = 0.0
        self._young_time = 0.0  # since the last sample
        self._young_longest = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="lag-monitor")
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._gc_start = now
            return
        pause = now - self._gc_start
        if info["generation"] == 2:
            self.collections.append((now, pause))
        else:  # many a second: summed up per sample, not kept one by one
            self._young_time += pause
            self._young_longest = max(self._young_longest, pause)

    async def stop(self) -> None:
        """Stop sampling; nothing to do unless it started (a start may fail before)."""
        task, self._task = self._task, None
        if task is None:
            return
        gc.callbacks.remove(self._on_gc)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _run(self) -> None:
        while True:  # perf_counter, not loop.time(): uvloop's clock ticks in milliseconds
            start = time.perf_counter()
            await asyncio.sleep(INTERVAL)
            now = time.perf_counter()
            lag = max(0.0, now - start - INTERVAL)
            self.samples.append(Sample(now, lag, self._young_time, self._young_longest))
            self._young_time = self._young_longest = 0.0

    def percentiles(self, seconds: float) -> dict[str, float]:
        """Loop lag p50, p99 and max over the last ``seconds`` (at most a minute); the
        number and the longest of full collections, the longest young one, and the time
        all collections took, in ms."""
        since = time.perf_counter() - seconds
        window = [sample for sample in self.samples if sample.when >= since]
        ordered = sorted(sample.lag for sample in window)
        pauses = [pause for when, pause in self.collections if when >= since]

        def at(q: float) -> float:
            return ms(ordered[min(len(ordered) - 1, int(q * len(ordered)))]) if ordered else 0.0

        return {
            "p50": at(0.5),
            "p99": at(0.99),
            "max": at(1.0),
            "samples": len(ordered),
            "full_gc_count": len(pauses),
            "full_gc_max": ms(max(pauses, default=0.0)),
            "young_gc_max": ms(max((sample.gc_longest for sample in window), default=0.0)),
            "gc_total": ms(sum(pauses) + sum(sample.gc_time for sample in window)),
        }


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)

"""Reviews off the event loop: ``ai.review.review`` runs in a process pool (spawn, niced,
each worker ending with the server), and reports its progress on one queue that a thread
of the server reads and hands to the loop.  The loop only awaits futures."""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.queues import Queue
from typing import Any

from ai import review as ai_review

from ..bots import EXIT_TIMEOUT, _join_or_kill, die_with_parent

Progress = Callable[[float], None]  # the share done, 0..1, on the event loop

_progress: Queue[tuple[str, float] | None] | None = None  # a worker's end of the queue


class OverBudget(Exception):
    """The review took more CPU seconds than one match may (ANALYSIS_CPU_SECONDS)."""


class ReviewPool:
    """``workers`` processes; created and closed with the app."""

    def __init__(self, workers: int, nice: int, cpu_seconds: float) -> None:
        context = multiprocessing.get_context("spawn")  # the server runs a loop and threads
        self._queue: Queue[tuple[str, float] | None] = context.Queue()
        self._cpu_seconds = cpu_seconds
        self._executor = functools.partial(
            ProcessPoolExecutor, workers, mp_context=context, initializer=_start_worker,
            initargs=(os.getpid(), nice, self._queue))
        self._pool = self._executor()
        self._listeners: dict[str, Progress] = {}
        self._reader: threading.Thread | None = None

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._reader = threading.Thread(target=self._read, args=(loop,), daemon=True,
                                        name="analysis-progress")
        self._reader.start()

    def _read(self, loop: asyncio.AbstractEventLoop) -> None:
        while (item := self._queue.get()) is not None:
            loop.call_soon_threadsafe(self._report, *item)

    def _report(self, key: str, share: float) -> None:
        if (listener := self._listeners.get(key)) is not None:
            listener(share)

    async def review(self, key: str, record: Mapping[str, Any], seed: int, samples: int,
                     progress: Progress) -> dict[str, Any]:
        """``review_json`` of the record's review; ``progress`` hears of each decision."""
        self._listeners[key] = progress
        try:
            try:
                return await self._submit(key, record, seed, samples)
            except BrokenProcessPool:  # a worker died (killed, out of memory): the pool
                self._renew()  # takes no more work; a new one takes this review once more
                return await self._submit(key, record, seed, samples)
        except BrokenProcessPool:
            self._renew()  # for the jobs after this one, which fails
            raise
        finally:
            del self._listeners[key]

    async def _submit(self, key: str, record: Mapping[str, Any], seed: int,
                      samples: int) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, review_record, key, dict(record), seed,
                                          samples, self._cpu_seconds)

    def _renew(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._executor()

    async def close(self, timeout: float = EXIT_TIMEOUT) -> None:
        """Stop the workers (a review in hand is killed after ``timeout``: its job stays
        pending in the database and is taken up again) and the progress reader."""
        processes = self._pool._processes  # as BotRunner.close (Python 3.11); None if closed
        workers = list(processes.values()) if processes else []
        self._pool.shutdown(wait=False, cancel_futures=True)
        await asyncio.to_thread(_join_or_kill, workers, timeout)
        if self._reader is not None:
            self._queue.put(None)
            await asyncio.to_thread(self._reader.join, timeout)
            self._reader = None


def _start_worker(parent: int, nice: int, queue: Queue[tuple[str, float] | None]) -> None:
    """Pool initializer: lower this worker's priority below the tables' and bots', end it
    with the server, keep the progress queue."""
    global _progress
    os.nice(nice)
    die_with_parent(parent)
    _progress = queue


def review_record(key: str, record: dict[str, Any], seed: int, samples: int,
                  cpu_seconds: float) -> dict[str, Any]:
    """In a worker: the review of ``record``, stopped with OverBudget past ``cpu_seconds``
    of this process's CPU time (checked after each decision)."""
    start = time.process_time()

    def progress(done: int, total: int) -> None:
        if time.process_time() - start > cpu_seconds:
            raise OverBudget(f"over {cpu_seconds:g} CPU seconds")
        if _progress is not None:
            _progress.put((key, done / total))

    return ai_review.review_json(ai_review.review(record, seed=seed, samples=samples,
                                                  progress=progress))

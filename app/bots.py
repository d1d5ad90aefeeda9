"""Bot decisions off the event loop: hard levels in a process pool, the rest in threads.

``ai.decide`` is a pure function of picklable inputs, so the same call runs in either
executor; the loop only awaits the future, and other tables keep moving meanwhile.
When more searches wait for the pool than it has processes, each gets a share of the
time budget instead of the whole: under load hard bots think less rather than make
their tables wait (docs/benchmarks-server.md measures both).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor, wait
from multiprocessing.connection import wait as wait_ready
from multiprocessing.process import BaseProcess

import ai
from ai.hard import DEFAULT_BUDGET_S
from engine import Action, Observation

from .metrics import BOT_DECISION
from .sections import BotSettings

PARENT_CHECK = 0.5  # seconds between a pool worker's looks at whether the server is alive
EXIT_TIMEOUT = 1.0  # seconds the pool's processes get to exit at shutdown before a kill
# A search's least share of the budget, however long the pool's queue (its searching
# ends at 40 ms: a whole deal or two on the first trick).
MIN_BUDGET_S = 0.1


class BotRunner:
    """Owns the executors; created with the app and shut down with it."""

    def __init__(self, settings: BotSettings) -> None:
        self._process_levels = settings.process_levels
        self._threads = ThreadPoolExecutor(settings.bot_threads, thread_name_prefix="bot")
        # spawn, not fork: forking a process that runs an event loop and threads is unsafe.
        self._size = settings.bot_processes
        self._searching = 0  # searches handed to the pool and not yet answered
        self._pool = ProcessPoolExecutor(
            self._size, mp_context=multiprocessing.get_context("spawn"),
            initializer=die_with_parent, initargs=(os.getpid(),),
        )

    async def start(self) -> None:
        """Start every pool process now, from a thread: the pool starts them on demand in
        the submitting thread, which would otherwise be the event loop, mid-game."""
        await asyncio.to_thread(self._spawn)

    def _spawn(self) -> None:
        wait([self._pool.submit(time.sleep, 0.2) for _ in range(self._size)])

    def _executor(self, level: str) -> Executor:
        return self._pool if level in self._process_levels else self._threads

    async def decide(self, level: str, observation: Observation, seed: int) -> Action:
        loop = asyncio.get_running_loop()
        executor = self._executor(level)
        in_pool = executor is self._pool
        self._searching += in_pool
        try:
            with BOT_DECISION.labels(level).time():
                budget = self.budget_s() if in_pool else DEFAULT_BUDGET_S
                return await loop.run_in_executor(executor, ai.decide, level, observation,
                                                  seed, budget)
        finally:
            self._searching -= in_pool

    def budget_s(self) -> float:
        """A search's time budget: the whole while the pool has a process for every search
        asked of it, else an even share of the pool's time, so that the last in line still
        answers within about one whole budget."""
        share = DEFAULT_BUDGET_S * self._size / max(self._size, self._searching)
        return max(MIN_BUDGET_S, share)

    async def close(self, timeout: float = EXIT_TIMEOUT) -> None:
        """Stop both executors.  The pool's processes get ``timeout`` seconds to finish a
        search and exit, then are killed: none outlives the server, and the interpreter,
        which waits for the pool at exit, is not held up by a long search."""
        self._threads.shutdown(wait=False, cancel_futures=True)
        # The pool's own record, read before shutdown drops it: Python 3.11 has no public
        # way to reach the processes (3.14 adds kill_workers()).
        workers = list(self._pool._processes.values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        await asyncio.to_thread(_join_or_kill, workers, timeout)


def _join_or_kill(workers: Sequence[BaseProcess], timeout: float) -> None:
    """Wait up to ``timeout`` seconds for every worker to exit, then kill the rest.  On
    their sentinels, not join(): the pool's own thread joins (reaps) them meanwhile."""
    deadline = time.monotonic() + timeout
    running = workers
    while running and (left := deadline - time.monotonic()) > 0:
        ended = wait_ready([worker.sentinel for worker in running], left)
        running = [worker for worker in running if worker.sentinel not in ended]
    for worker in running:
        worker.kill()


def die_with_parent(parent: int) -> None:
    """Pool initializer: end this worker once the server is gone.  A worker holds both ends
    of its own pipes, so a server killed with SIGKILL would leave it (and multiprocessing's
    resource tracker, which exits when the last worker does) waiting for work forever."""
    threading.Thread(target=_exit_when_orphaned, args=(parent,), name="parent-watch",
                     daemon=True).start()


def _exit_when_orphaned(parent: int) -> None:
    # Comparing with the pid given at creation also catches a parent that died before the
    # worker started: it was then adopted at once.
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    os._exit(1)

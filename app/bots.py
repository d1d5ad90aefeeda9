"""Bot decisions off the event loop: hard levels in a process pool, the rest in threads.

``ai.decide`` is a pure function of picklable inputs, so the same call runs in either
executor; the loop only awaits the future, and other tables keep moving meanwhile.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor, wait

import ai
from engine import Action, Observation

from .config import Settings
from .metrics import BOT_DECISION


class BotRunner:
    """Owns the executors; created with the app and shut down with it."""

    def __init__(self, settings: Settings) -> None:
        self._process_levels = settings.process_levels
        self._threads = ThreadPoolExecutor(settings.bot_threads, thread_name_prefix="bot")
        # spawn, not fork: forking a process that runs an event loop and threads is unsafe.
        self._size = settings.bot_processes
        self._processes = ProcessPoolExecutor(
            self._size, mp_context=multiprocessing.get_context("spawn")
        )

    async def start(self) -> None:
        """Start every pool process now, from a thread: the pool starts them on demand in
        the submitting thread, which would otherwise be the event loop, mid-game."""
        await asyncio.to_thread(self._spawn)

    def _spawn(self) -> None:
        wait([self._processes.submit(time.sleep, 0.2) for _ in range(self._size)])

    def _executor(self, level: str) -> Executor:
        return self._processes if level in self._process_levels else self._threads

    async def decide(self, level: str, observation: Observation, seed: int) -> Action:
        loop = asyncio.get_running_loop()
        with BOT_DECISION.labels(level).time():
            return await loop.run_in_executor(
                self._executor(level), ai.decide, level, observation, seed
            )

    async def close(self) -> None:
        """Stop both executors and wait (in a thread) until the pool's processes are gone,
        so none outlives the server."""
        self._threads.shutdown(wait=False, cancel_futures=True)
        await asyncio.to_thread(self._processes.shutdown, wait=True, cancel_futures=True)

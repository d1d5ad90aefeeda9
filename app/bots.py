"""Bot decisions off the event loop: hard levels in a process pool, the rest in threads.

``ai.decide`` is a pure function of picklable inputs, so the same call runs in either
place, and other tables keep moving meanwhile.  A table starts a decision with
:meth:`BotRunner.think` and is called back with the move on the loop.  The quick levels'
threads are the runner's own (:class:`_Thinkers`): a decision is one queue put and, on
the way back, one wake of the loop for every decision answered since it last looked,
where an executor's future made each one a concurrent future, an asyncio future, a task
and a wake of its own (docs/benchmarks-server.md, "A third sitting").
When more searches wait for the pool than it has processes, each gets a share of the
time budget instead of the whole: under load hard bots think less rather than make
their tables wait (docs/benchmarks-server.md measures both).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ProcessPoolExecutor, wait
from multiprocessing.connection import wait as wait_ready
from multiprocessing.process import BaseProcess
from typing import Any

import ai
from ai.hard import DEFAULT_BUDGET_S
from engine import Action, Observation

from .metrics import BOT_DECISION
from .sections import BotSettings

log = logging.getLogger(__name__)

PARENT_CHECK = 0.5  # seconds between a pool worker's looks at whether the server is alive
EXIT_TIMEOUT = 1.0  # seconds the pool's processes get to exit at shutdown before a kill
# A search's least share of the budget, however long the pool's queue (its searching
# ends at 40 ms: a whole deal or two on the first trick).
MIN_BUDGET_S = 0.1

# Called on the loop with the move, or with what the bot raised instead.
Answer = Callable[[Action | None, BaseException | None], None]


class Thinking:
    """A decision under way; :meth:`cancel` drops its answer (and its search, if queued)."""

    __slots__ = ("answer", "cancelled", "level", "loop", "observation", "seed", "started",
                 "task")

    def __init__(self, level: str, observation: Observation, seed: int, answer: Answer,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.level, self.observation, self.seed, self.answer = level, observation, seed, answer
        self.loop = loop
        self.started = time.perf_counter()
        self.cancelled = False
        self.task: asyncio.Task[None] | None = None  # a pool search's

    def cancel(self) -> None:
        self.cancelled = True
        if self.task is not None:
            self.task.cancel()


class _Thinkers:
    """The threads of the quick levels, fed by one queue.  Answers are gathered in a deque
    and handed to the loop in one callback for all those that came while it was busy."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._jobs: queue.SimpleQueue[Thinking | None] = queue.SimpleQueue()
        self._answers: collections.deque[tuple[Thinking, Action | None, BaseException | None]]
        self._answers = collections.deque()
        self._waking = False  # a delivery is scheduled on the loop and has not begun
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._timed: dict[str, Any] = {}  # level -> its BOT_DECISION child

    def submit(self, job: Thinking) -> None:
        if self._closed:
            raise RuntimeError("the bots are stopped")
        if not self._threads:  # started on first use, as an executor's
            self._threads = [threading.Thread(target=self._work, name=f"bot_{index}",
                                              daemon=True) for index in range(self._size)]
            for thread in self._threads:
                thread.start()
        self._jobs.put(job)

    def close(self) -> None:
        """Drop the decisions not started; each thread ends after the one it has."""
        self._closed = True
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job.cancelled = True
        for _ in self._threads:
            self._jobs.put(None)

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            if job.cancelled:
                continue
            action: Action | None = None
            error: BaseException | None = None
            try:
                action = ai.decide(job.level, job.observation, job.seed, DEFAULT_BUDGET_S)
            except Exception as exc:  # answered on the loop: the table plays on
                error = exc
            self._answers.append((job, action, error))
            if not self._waking:
                self._waking = True
                try:
                    job.loop.call_soon_threadsafe(self._deliver)
                except RuntimeError:  # that loop is closed: nobody waits for the answer
                    self._waking = False

    def _deliver(self) -> None:
        """On the loop: every answer in, to its table (unless cancelled meanwhile)."""
        self._waking = False  # before reading: an answer added later schedules another
        answers = self._answers
        while answers:
            job, action, error = answers.popleft()
            if not job.cancelled:
                timed = self._timed.get(job.level)
                if timed is None:
                    timed = self._timed[job.level] = BOT_DECISION.labels(job.level)
                timed.observe(time.perf_counter() - job.started)
                try:
                    job.answer(action, error)
                except Exception:  # one table's bug must not keep the others' answers
                    log.exception("a bot's answer could not be delivered")


class BotRunner:
    """Owns the executors; created with the app and shut down with it."""

    def __init__(self, settings: BotSettings) -> None:
        self._process_levels = settings.process_levels
        self._threads = _Thinkers(settings.bot_threads)
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

    def think(self, level: str, observation: Observation, seed: int,
              answer: Answer) -> Thinking:
        """Start a bot's decision; ``answer`` is called on the loop with it, unless the
        decision is cancelled first."""
        job = Thinking(level, observation, seed, answer, asyncio.get_running_loop())
        if level in self._process_levels:
            self._searching += 1  # counted at once: the budget of searches asked with it
            job.task = asyncio.create_task(_answered(self._search(job), job))
            job.task.add_done_callback(self._searched)  # even if cancelled before it began
        else:
            self._threads.submit(job)
        return job

    async def decide(self, level: str, observation: Observation, seed: int) -> Action:
        """A decision awaited (what :meth:`think` does, for callers that wait)."""
        future: asyncio.Future[Action] = asyncio.get_running_loop().create_future()

        def answer(action: Action | None, error: BaseException | None) -> None:
            if future.done():
                return
            if error is not None:
                future.set_exception(error)
            else:
                assert action is not None
                future.set_result(action)

        job = self.think(level, observation, seed, answer)
        try:
            return await future
        finally:
            job.cancel()  # nothing if answered: else (cancelled) its search is dropped

    async def _search(self, job: Thinking) -> Action:
        """A search in the pool, on its share of the time budget."""
        loop = asyncio.get_running_loop()
        with BOT_DECISION.labels(job.level).time():
            return await loop.run_in_executor(self._pool, ai.decide, job.level,
                                              job.observation, job.seed, self.budget_s())

    def _searched(self, _task: asyncio.Task[None]) -> None:
        self._searching -= 1

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
        self._threads.close()
        # The pool's own record, read before shutdown drops it: Python 3.11 has no public
        # way to reach the processes (3.14 adds kill_workers()).
        workers = list(self._pool._processes.values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        await asyncio.to_thread(_join_or_kill, workers, timeout)


async def _answered(search: Coroutine[None, None, Action], job: Thinking) -> None:
    """Run a pool search and answer its table, unless cancelled meanwhile."""
    try:
        action = await search
    except Exception as exc:
        if not job.cancelled:
            job.answer(None, exc)
    else:
        if not job.cancelled:
            job.answer(action, None)


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

"""Who runs which analysis job.  Alone, :class:`LocalQueue`: this process's tasks take the
match ids in order.  In a cluster, :class:`SaqQueue`: saq's Redis queue, one job per match
(its key), taken by the saq worker of any node.  While a job runs, its worker touches it
(saq's heartbeat) every third of ``ANALYSIS_RETRY_SECONDS``; a job untouched for that long
(its node died) is swept by a live node's worker and retried.  saq's sweep can lose a job
(:class:`_Queue`), so every node with workers also queues again, as often, each job pending
in the database that saq no longer holds.  docs/analysis.md, "In the server", says why saq
and how."""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, Protocol, TypeVar

from saq import Job, Worker
from saq.queue.redis import RedisQueue
from saq.types import Context, PartialTimersDict, WorkerInfo

from ..cancelled import pause, raise_if_cancelled, stop_tasks
from ..sections import AnalysisSettings
from ..shared import UNREACHABLE
from ..storage import StorageError

logger = logging.getLogger(__name__)
T = TypeVar("T")

Run = Callable[[str], Coroutine[Any, Any, None]]  # one job, by match id, to its end
Pending = Callable[[], Awaitable[list[str]]]  # the jobs pending in the database, by match id
RETRY_PAUSE = 1.0  # seconds a worker waits after Redis failed it, before it tries again
ATTEMPTS = 3  # a job's runs at most (saq's retries): it outlives two nodes dying under it


class JobQueue(Protocol):
    async def start(self) -> None: ...
    async def put(self, match_id: str) -> None: ...
    async def close(self) -> None: ...


class LocalQueue:
    """``workers`` tasks of this process take the ids in order (none: jobs only queue)."""

    def __init__(self, run: Run, workers: int) -> None:
        self._run = run
        self._workers = workers
        self._ids: asyncio.Queue[str] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        self._tasks = [asyncio.create_task(self._work(), name=f"analysis-{i}")
                       for i in range(self._workers)]

    async def put(self, match_id: str) -> None:
        self._ids.put_nowait(match_id)

    async def _work(self) -> None:
        while True:
            match_id = await self._ids.get()
            try:
                await self._run(match_id)
            except StorageError:  # pending in the database: the next start resumes it
                logger.exception("analysis of %s interrupted", match_id)
            except Exception:
                logger.exception("analysis of %s dropped", match_id)

    async def close(self) -> None:
        await stop_tasks(self._tasks, "analysis queue")


class SaqQueue:
    """The cluster's queue: saq's queue ``name`` (``Keys.analysis``, app/shared/keys.py)
    on the cluster's Redis and, with workers, a saq worker of ``ANALYSIS_WORKERS`` jobs at
    a time, which also queues again the ``pending`` jobs that saq lost."""

    def __init__(self, run: Run, settings: AnalysisSettings, name: str,
                 pending: Pending) -> None:
        assert settings.redis_url is not None
        self._run = run
        self._pending = pending
        self._heartbeat = math.ceil(settings.analysis_retry_seconds)
        self._queue = _Queue.from_url(settings.redis_url, name=name)
        self._worker = (_Worker(self._queue, [("analyse", self._analyse)], id=settings.node_id,
                                concurrency=settings.analysis_workers,
                                timers=PartialTimersDict(schedule=1, worker_info=10, abort=1,
                                                         sweep=self._heartbeat))
                        if settings.analysis_workers else None)
        self._task: asyncio.Task[None] | None = None
        self._lost: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        await self._queue.connect()
        if self._worker is not None:
            self._task = asyncio.create_task(self._worker.start(), name="analysis-worker")
            self._lost = [asyncio.create_task(self._requeue_lost(), name="analysis-lost")]

    async def put(self, match_id: str) -> None:
        """Queue the match's job, unless saq holds it already (queued or running)."""
        await self._queue.enqueue("analyse", key=match_id, match_id=match_id,
                                  heartbeat=self._heartbeat, timeout=0, retries=ATTEMPTS,
                                  retry_delay=RETRY_PAUSE, ttl=-1)

    async def _requeue_lost(self) -> None:
        """Every heartbeat, queue again the jobs pending in the database whose saq job is
        gone (a job that saq holds, queued, running or waiting for its retry, is left to
        saq).  A job that ended between the two reads is queued for nothing: its row says
        it is over, and :meth:`Analyses.run` returns at once."""
        while True:
            await pause(self._heartbeat)
            try:
                match_ids = await self._pending()
                held = await self._queue.jobs(match_ids) if match_ids else []
                for match_id, job in zip(match_ids, held, strict=False):
                    if job is None:
                        logger.warning("the analysis of %s was lost by the queue: queued "
                                       "again", match_id)
                        await self.put(match_id)
            except (StorageError, *UNREACHABLE) as error:  # the next look retries
                raise_if_cancelled(error)
                logger.warning("the analysis queue: lost jobs not looked for: %s", error)
            except Exception:  # a defect: logged, and the next look goes on
                logger.exception("the analysis queue: lost jobs not looked for")

    async def _analyse(self, context: Context, *, match_id: str) -> None:
        """saq's job: run it, touching it meanwhile.  Whatever it raises (a storage
        failure) makes saq retry it."""
        job = context.get("job")
        assert job is not None
        run = asyncio.create_task(self._run(match_id))
        try:
            while not run.done():
                await asyncio.wait([run], timeout=self._heartbeat / 3)
                if not run.done():  # Redis down: the job goes on, and is touched later
                    await _unless_down(job.update(), None)
            run.result()
        finally:
            run.cancel()

    async def close(self) -> None:
        """Stop the worker: saq queues its jobs in hand again, for any node."""
        await stop_tasks(self._lost, "analysis queue")
        self._lost = []
        if self._worker is not None:
            await self._worker.stop()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        await self._queue.disconnect()


class _Queue(RedisQueue):
    """saq's Redis queue, patient while Redis is down, as the rest of the server is: saq's
    worker would dequeue again at once, in a loop, and log its upkeep's every failure as an
    error (its schedule, sweep, stats, and check of the jobs in hand for aborts), and its
    disconnect would fail.

    saq 0.26.4's sweep aborts a job it finds in the running list while not running (a
    worker has just taken it: saq marks it running a moment later) or untouched for its
    heartbeat, then reads it again to retry it.  A live worker confirms the abort by
    ending the job, which deletes it (``ttl=-1``): that read raises RuntimeError, the
    sweep stops there and the job is never retried (:meth:`SaqQueue._requeue_lost` queues
    it again)."""

    async def dequeue(self, timeout: float = 0.0, poll_interval: float = 0.0) -> Job | None:
        try:
            return await super().dequeue(timeout, poll_interval)
        except UNREACHABLE as error:
            _down(error)
            await asyncio.sleep(RETRY_PAUSE)
            return None

    async def schedule(self, lock: int = 1) -> list[str]:
        return await _unless_down(super().schedule(lock), [])

    async def sweep(self, lock: int = 60, abort: float = 5.0) -> list[str]:
        try:
            return await _unless_down(super().sweep(lock, abort), [])
        except RuntimeError as error:  # the next sweep goes on with the others
            if "doesn't exist" not in str(error):  # saq's Job.refresh's, for a job gone
                raise
            logger.info("the analysis queue's sweep: %s: its worker ended it", error)
            return []

    async def write_worker_info(self, worker_id: str, info: WorkerInfo, ttl: int) -> None:
        await _unless_down(super().write_worker_info(worker_id, info, ttl), None)

    async def jobs(self, job_keys: Iterable[str]) -> list[Job | None]:
        return await _unless_down(super().jobs(job_keys), [])

    async def disconnect(self) -> None:
        """saq's, which unsubscribes first, so fails with Redis down: then the client's."""
        try:
            await super().disconnect()
        except UNREACHABLE:
            await self.redis.aclose()


def _down(error: Exception) -> None:
    logger.warning("the analysis queue: Redis failed: %s", error)


async def _unless_down(step: Awaitable[T], default: T) -> T:
    """What ``step`` gives, or ``default`` if Redis failed it."""
    try:
        return await step
    except UNREACHABLE as error:
        _down(error)
        return default


class _Worker(Worker[Context]):
    """A saq worker inside the server: the server's, not the worker's, are the signals."""

    SIGNALS = []  # noqa: RUF012 (saq's class attribute)

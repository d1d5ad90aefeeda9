"""The analysis jobs: a POST asks (one row per match, so one job), a worker runs it, every
GET reads the row.  Which worker runs a job is the queue's business (:mod:`.queues`): this
node's own tasks, or whichever node's saq worker takes it from the cluster's Redis."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import Any

from ai import review as ai_review

from .. import problems
from ..db import analyses as rows
from ..db import problems as problem_rows
from ..db import queries
from ..db.analyses import AnalysisRow, Requester
from ..db.session import Database, StorageError
from ..limiter import Hit, Limit, Limited, Limiter
from ..sections import AnalysisSettings
from ..shared import UNREACHABLE, RedisShared, Shared
from .admission import Admission
from .pool import ReviewPool
from .queues import JobQueue, LocalQueue, SaqQueue

logger = logging.getLogger(__name__)

STEP = 0.01  # progress is written to the row each time it gains this much


class MatchNotFound(Exception):
    pass


class MatchNotOver(Exception):
    pass


class TooManyForYou(Exception):
    """This address asked for ANALYSES_PER_ADDRESS new analyses within the window."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(retry_after)
        self.retry_after = retry_after


class Analyses:
    """This server's analyses: asked for and read by the routes, run by ``queue``'s
    workers through :meth:`run`."""

    def __init__(self, settings: AnalysisSettings, database: Database, limiter: Limiter,
                 shared: Shared) -> None:
        self._database = database
        self._limiter = limiter
        self._per_address = Limit.attempts("analyses", settings.analyses_per_address,
                                           settings.analysis_window)
        self._seed = settings.analysis_seed
        self._samples = settings.analysis_samples or ai_review.DEFAULT_SAMPLES
        self._admit = Admission(settings.analysis_queue_max, settings.analysis_slots)
        self._pool = (ReviewPool(settings.analysis_workers, settings.analysis_nice,
                                 settings.analysis_cpu_seconds)
                      if settings.analysis_workers else None)
        self.queue: JobQueue = (SaqQueue(self.run, settings, shared.keys.analysis)
                                if isinstance(shared, RedisShared) else
                                LocalQueue(self.run, settings.analysis_workers))

    async def start(self) -> None:
        """Start the pool and the queue; alone, take up the jobs a stop interrupted (in a
        cluster saq's queue still holds them: docs/analysis.md)."""
        if self._pool is not None:
            self._pool.start()
        await self.queue.start()
        if isinstance(self.queue, LocalQueue):
            try:
                pending = await rows.pending(self._database)
            except StorageError as error:  # the server starts all the same; GET says 503
                logger.warning("analyses: the jobs in hand are not resumed: %s", error)
                pending = []
            for match_id in pending:
                await self.queue.put(match_id)

    async def close(self) -> None:
        await self.queue.close()
        if self._pool is not None:
            await self._pool.close()

    async def request(self, match_id: str, address: str | None,
                      player_id: str | None = None) -> AnalysisRow:
        """The match's job, queued if it is the first request (idempotent).  A new one is
        refused with TooManyForYou past ANALYSES_PER_ADDRESS of ``address``'s within the
        window, with QueueFull while ANALYSIS_QUEUE_MAX jobs wait or run, and with
        SlotsFull while ``player_id`` or ``address`` holds its share of them
        (:mod:`.admission`); asking for a job that exists costs nothing.  In a cluster, a
        pending job is queued again, which saq ignores while it holds the job: a job that
        Redis lost (or gave up on) is taken up again by the next request.  (The limiter
        raises one of app.shared.UNREACHABLE while a cluster's Redis is down.)"""
        over = await rows.match_over(self._database, match_id)
        if over is None:
            raise MatchNotFound(match_id)
        if not over:
            raise MatchNotOver(match_id)
        row = await rows.get(self._database, match_id)
        created = False
        if row is None:  # only a new job is counted, admitted and inserted
            row, created = await self._create(match_id, address, player_id)
        if created or (isinstance(self.queue, SaqQueue) and row.status in rows.PENDING):
            await self.queue.put(match_id)
        return row

    async def _create(self, match_id: str, address: str | None,
                      player_id: str | None) -> tuple[AnalysisRow, bool]:
        """The new job, counted on ``address``'s window before it is made and given back
        if it is not (refused, failed, or made meanwhile by another request)."""
        asked: list[Hit] = []
        if address is not None:
            try:
                asked = await self._limiter.take([(self._per_address, address)])
            except Limited as limited:
                raise TooManyForYou(limited.retry_after) from None
        try:
            row, created = await rows.create(self._database, match_id, self._seed,
                                             self._samples, Requester(player_id, address),
                                             self._admit)
        except BaseException:  # refused (QueueFull, SlotsFull), failed or cancelled
            with contextlib.suppress(*UNREACHABLE):  # the refusal is the answer
                await self._limiter.give_back(asked)
            raise
        if not created:
            await self._limiter.give_back(asked)
        return row, created

    async def get(self, match_id: str) -> AnalysisRow | None:
        return await rows.get(self._database, match_id)

    async def run(self, match_id: str) -> None:
        """Run one job to its end (done or failed), unless it is over already.  Storage
        errors propagate: the job stays pending, for a retry."""
        if self._pool is None:
            raise RuntimeError("this node has no analysis workers")
        row = await rows.get(self._database, match_id)
        if row is None or not await rows.start(self._database, match_id):
            return
        reporter = _Reporter(self._database, match_id)
        try:
            record = await self._record(match_id)
            result = await self._pool.review(match_id, record, row.seed, row.samples,
                                             reporter.report)
        except (StorageError, asyncio.CancelledError):
            raise
        except Exception as error:  # the match's record or its review failed: this job is over
            logger.exception("analysis of %s failed", match_id)
            await reporter.close()
            await rows.fail(self._database, match_id, f"{type(error).__name__}: {error}")
            return
        await reporter.close()
        if await rows.finish(self._database, match_id, result):
            await self._keep_problems(match_id, record, result)

    async def _keep_problems(self, match_id: str, record: Mapping[str, Any],
                             result: dict[str, Any]) -> None:
        """The review's mistakes as problems (app/problems.py), once it is stored; a
        failure here leaves the review as it is, and is only logged."""
        try:
            drafts = await asyncio.to_thread(problems.drafts, match_id, record, result)
            await problem_rows.store(self._database, match_id, drafts)
        except Exception:
            logger.exception("the problems of %s were not kept", match_id)

    async def _record(self, match_id: str) -> Mapping[str, Any]:
        async with self._database.read() as session:
            log = await queries.get_log(session, match_id)
        if log is None:
            raise MatchNotFound(match_id)
        return log.record(public=True)


class _Reporter:
    """Writes a job's progress to its row, one write at a time, each time it gained STEP,
    so that the pool's reports never queue up writes."""

    def __init__(self, database: Database, match_id: str) -> None:
        self._database = database
        self._match_id = match_id
        self._latest = self._written = 0.0
        self._task: asyncio.Task[None] | None = None

    def report(self, share: float) -> None:
        self._latest = share
        if self._task is None and share - self._written >= STEP:
            self._task = asyncio.create_task(self._write())

    async def _write(self) -> None:
        try:
            while self._latest - self._written >= STEP:
                share = self._latest
                await rows.set_progress(self._database, self._match_id, share)
                self._written = share
        except StorageError:
            logger.warning("progress of the analysis of %s not written", self._match_id)
        finally:
            self._task = None

    async def close(self) -> None:
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

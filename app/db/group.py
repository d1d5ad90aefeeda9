"""Group commit: the match log's writes of every table in one transaction at a time.

Each table waits for its own write before it tells anyone (docs/storage.md), so with one
transaction a write the database commits one write at a time: SQLite's single writer, or
PostgreSQL's commit latency, became every action's queue.  Here the writes that arrive
while a transaction commits are gathered into the next one, so each commit carries every
table that waited for it, and each write's caller is answered only once the transaction
that holds it has committed.

A write the database refuses (a bug: a misplaced action, a fenced match) must not take
the others down with it: the transaction is rolled back, that write alone is answered
with its error, and the rest are written again without it.  A database that cannot be
reached fails the whole batch with :class:`StorageUnavailable`: each table's journal
retries its own write, as for a write of its own (every log write is idempotent).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncConnection

from ..metrics import LOG_BATCH, LOG_WRITE
from ..storage import StorageUnavailable

Work = Callable[[AsyncConnection], Awaitable[None]]
Begin = Callable[[], AbstractAsyncContextManager[AsyncConnection]]
MAX_BATCH = 256  # writes in one transaction: bounds its time, and a refusal's retries


@dataclass(slots=True)
class _Write:
    work: Work
    done: asyncio.Future[None]
    queued: float


class GroupCommit:
    """Runs each :meth:`write` inside a shared transaction of ``begin`` (which commits on
    exit), one transaction at a time, the next gathering what came in meanwhile."""

    def __init__(self, begin: Begin) -> None:
        self._begin = begin
        self._pending: list[_Write] = []
        self._flusher: asyncio.Task[None] | None = None

    async def write(self, work: Work) -> None:
        """Run ``work`` on the next transaction; return once it has committed, or raise
        what refused it (its own error, or the batch's if the database is unavailable)."""
        done = asyncio.get_running_loop().create_future()
        self._pending.append(_Write(work, done, time.perf_counter()))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="log-group-commit")
        await done

    async def close(self) -> None:
        """Stop (the database is going): writes still queued fail as unavailable."""
        if self._flusher is not None:
            self._flusher.cancel()
            await asyncio.gather(self._flusher, return_exceptions=True)
        _fail(self._pending, StorageUnavailable("the database is closing"))
        self._pending.clear()

    async def _flush(self) -> None:
        while self._pending:
            batch = self._pending[:MAX_BATCH]
            del self._pending[:MAX_BATCH]
            try:
                await self._commit(batch)
            except BaseException as exc:  # cancelled (close): nobody is left waiting
                _fail(batch, StorageUnavailable(f"the log's writer stopped: {exc!r}"))
                raise

    async def _commit(self, batch: list[_Write]) -> None:
        """Write ``batch`` in one transaction; a write that raises is answered alone with
        its error and the others written again without it."""
        while batch:
            LOG_BATCH.observe(len(batch))
            culprit: _Write | None = None
            try:
                async with self._begin() as conn:
                    for write in batch:
                        culprit = write
                        await write.work(conn)
                    culprit = None
            except Exception as exc:
                if culprit is None or isinstance(exc, StorageUnavailable):
                    _fail(batch, exc)  # the database, not one write: all are retried
                    return
                _fail([culprit], exc)
                batch = [write for write in batch if write is not culprit]
                continue
            now = time.perf_counter()
            for write in batch:
                LOG_WRITE.observe(now - write.queued)
                if not write.done.done():
                    write.done.set_result(None)
            return


def _fail(writes: list[_Write], exc: BaseException) -> None:
    for write in writes:
        if not write.done.done():
            write.done.set_exception(exc)

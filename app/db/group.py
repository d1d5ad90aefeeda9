"""Group commit: the match log's writes of every table in one transaction at a time.

Each table waits for its own write before it tells anyone (docs/storage.md), so with one
transaction a write the database commits one write at a time: SQLite's single writer, or
PostgreSQL's commit latency, became every action's queue.  Here the writes that arrive
while a transaction commits are gathered into the next one, so each commit carries every
table that waited for it, and each write's caller is answered only once the transaction
that holds it has committed.

A write that inserts a row (an action, a deal) names it (:class:`Row`): the batch's rows
go into one multi-row ``INSERT ... ON CONFLICT DO NOTHING RETURNING`` their keys, and each
write's own check then learns whether its row went in (a retry finds it there already).
A batch is plain synchronous work on a connection, handed to the database whole
(:meth:`app.db.session.Database.transaction`): on SQLite it runs in the log's own thread
in one go, so a transaction is not a string of trips through a busy event loop.

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
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from ..metrics import LOG_BATCH, LOG_WRITE
from ..storage import StorageUnavailable

Work = Callable[[Connection, bool], None]  # (its row went in) -> None
# Runs its argument in one transaction, committed; raises what refused it.
Transaction = Callable[[Callable[[Connection], None]], Awaitable[None]]
MAX_BATCH = 64  # writes in one transaction: bounds the work done at once (on the loop, for
# PostgreSQL: its rows are bound in one go), the transaction's time, and a refusal's retries


@dataclass(frozen=True, slots=True)
class Row:
    """A write's row: ``statement`` an ``INSERT ... ON CONFLICT DO NOTHING RETURNING`` the
    key columns (the same object for every row it may carry), ``key`` this row's key."""

    statement: Any
    values: dict[str, Any]
    key: tuple[Any, ...]


@dataclass(slots=True)
class _Write:
    work: Work
    row: Row | None
    done: asyncio.Future[None]
    queued: float

    def run(self, conn: Connection, inserted: set[tuple[Any, ...]] | None) -> None:
        """The write in the batch's transaction; ``inserted`` the keys the batch's rows
        put in, None to insert its own row first (a batch written one row at a time)."""
        if self.row is None:
            self.work(conn, True)
        elif inserted is None:
            self.work(conn, conn.execute(self.row.statement, self.row.values).first() is not None)
        else:
            self.work(conn, self.row.key in inserted)


@dataclass(slots=True)
class _Attempt:
    """One transaction's go at a batch, its rows in one statement if ``together``;
    ``culprit`` is the write whose work raised, None if the statement or the commit did."""

    batch: list[_Write]
    together: bool
    culprit: _Write | None = field(default=None)

    def __call__(self, conn: Connection) -> None:
        inserted = _insert(conn, self.batch) if self.together else None
        for write in self.batch:
            self.culprit = write
            write.run(conn, inserted)
        self.culprit = None


class GroupCommit:
    """Runs each :meth:`write` inside a shared ``transaction``, one transaction at a time,
    the next gathering what came in meanwhile."""

    def __init__(self, transaction: Transaction) -> None:
        self._transaction = transaction
        self._pending: list[_Write] = []
        self._flusher: asyncio.Task[None] | None = None

    async def write(self, work: Work, row: Row | None = None) -> None:
        """Insert ``row`` (if any) and run ``work`` on the next transaction; return once it
        has committed, or raise what refused it (its own error, or the batch's if the
        database is unavailable)."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self._pending.append(_Write(work, row, done, time.perf_counter()))
        flusher = self._flusher  # one of a loop that has stopped (tests, tools) is not ours
        if flusher is None or flusher.done() or flusher.get_loop() is not loop:
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
        """Write ``batch`` in one transaction, its rows in one statement.  If that statement
        is refused, the batch is written again one row at a time; a write that raises is
        answered alone with its error and the others written again without it."""
        together = True
        while batch:
            LOG_BATCH.observe(len(batch))
            attempt = _Attempt(batch, together)
            try:
                await self._transaction(attempt)
            except Exception as exc:
                culprit = attempt.culprit
                if isinstance(exc, StorageUnavailable):
                    _fail(batch, exc)  # the database, not one write: all are retried
                    return
                if culprit is None and together:
                    together = False  # which row the statement refused: one at a time
                    continue
                if culprit is None:
                    _fail(batch, exc)
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


def _insert(conn: Connection, batch: list[_Write]) -> set[tuple[Any, ...]]:
    """Every row of ``batch``, one statement for each kind; the keys that went in."""
    by_statement: dict[int, list[Row]] = {}
    for write in batch:
        if write.row is not None:
            by_statement.setdefault(id(write.row.statement), []).append(write.row)
    inserted: set[tuple[Any, ...]] = set()
    for rows in by_statement.values():
        # One row goes as one execution: a list of one takes SQLAlchemy's longer path of
        # many rows (insertmanyvalues), for nothing.
        result = conn.execute(rows[0].statement,
                              rows[0].values if len(rows) == 1 else [r.values for r in rows])
        inserted.update(tuple(key) for key in result)
    return inserted


def _fail(writes: list[_Write], exc: BaseException) -> None:
    for write in writes:
        if not write.done.done():
            write.done.set_exception(exc)

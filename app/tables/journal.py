"""A table's writes to its match log, kept in order and retried until each one succeeds.

The table logs before it tells anyone, so a write that fails must neither be dropped
nor skipped: the table holds (takes no move, refuses actions with ``storage_unavailable``)
while any write waits, and goes on only once the log holds everything, in order.  Any
failure counts, not only :class:`StorageUnavailable`: a write the storage refused is
retried too (and logged as the bug it is), because moving on without it would tell
players of an action that a restart would not bring back.  Every storage write is
idempotent for this reason (docs/storage.md).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from ..metrics import STORAGE_FAILURES
from ..storage import Fenced, StorageUnavailable

log = logging.getLogger(__package__)

Write = Callable[[], Awaitable[None]]
RETRY_FIRST, RETRY_MAX = 0.1, 5.0  # seconds between retries of a failed write


class Journal:
    """Storage writes of one table.  :meth:`write` answers whether the write is done;
    once it has said False, the table is ``behind`` until it calls :meth:`caught_up`
    after ``on_drained`` (called from the retry task when nothing waits any more).

    A write refused as ``Fenced`` (a cluster node whose table another node has taken
    over) is not retried: nothing more is written, and ``on_fenced`` tells the table."""

    def __init__(self, on_drained: Callable[[], None], on_fenced: Callable[[], None]) -> None:
        self._on_drained = on_drained
        self._on_fenced = on_fenced
        self._waiting: list[Write] = []
        self._retrying: asyncio.Task[None] | None = None
        self.behind = False
        self._lost = False  # fenced: no write will ever be done

    async def write(self, write: Write) -> bool:
        """Do ``write`` now, or queue it behind those still waiting (False then)."""
        if not self.behind:
            try:
                await write()
                return True
            except Fenced:
                self._fenced()
                return False
            except Exception as exc:
                _report(exc, "a write failed; the table holds until it is written")
                self.behind = True
        elif self._lost:
            return False
        self._waiting.append(write)
        if self._retrying is None or self._retrying.done():
            self._retrying = asyncio.create_task(self._retry())
        return False

    def _fenced(self) -> None:
        log.warning("another node holds the table now; this one lets it go")
        self.behind = self._lost = True
        self._waiting.clear()
        self._on_fenced()

    def caught_up(self) -> bool:
        """The table's turn after ``on_drained``: True (and no longer behind) if nothing
        was queued since; else the retry task is already at it and will call again."""
        if self._waiting:
            return False
        self.behind = False
        return True

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The retry task, while it runs: shutdown lets it finish within its budget."""
        return None if self._retrying is None or self._retrying.done() else self._retrying

    async def _retry(self) -> None:
        """Redo the waiting writes in order, backing off while they fail."""
        delay = RETRY_FIRST
        while self._waiting:
            await asyncio.sleep(delay)
            try:
                await self._waiting[0]()
            except Fenced:
                self._fenced()
                return
            except Exception as exc:
                _report(exc, "a retried write failed")
                delay = min(2 * delay, RETRY_MAX)
                continue
            self._waiting.pop(0)
            delay = RETRY_FIRST
        self._on_drained()


def _report(exc: Exception, what: str) -> None:
    """Unavailable storage is an outage (a warning); anything else is a bug to fix."""
    if isinstance(exc, StorageUnavailable):
        STORAGE_FAILURES.labels("unavailable").inc()
        log.warning("%s: %s", what, exc)
    else:
        STORAGE_FAILURES.labels("refused").inc()
        log.error("%s, refused: %r", what, exc, exc_info=exc)

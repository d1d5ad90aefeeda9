"""Where tables write what happened, in the manner of boardgame.io's storage interface.

The table actor calls these methods (and awaits them) before it tells any client, so a
database implementation can slot in later and rebuild unfinished tables from the log:
a match is its options, its seed and the ordered list of accepted actions.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class LoggedAction:
    """One accepted action; ``by`` says who chose it: the player, a bot, or the timer."""

    version: int
    seat: int
    action: int
    by: str


@dataclass(slots=True)
class StoredMatch:
    """Everything needed to rebuild a table's match: replay ``actions`` on ``Match(seed)``."""

    table_id: str
    meta: dict[str, Any]  # variant, options, seed, seats, start version; forfeit if one
    actions: list[LoggedAction] = field(default_factory=list)
    deal_results: list[dict[str, Any]] = field(default_factory=list)
    record: dict[str, Any] | None = None  # belote-record/1, once finished (in memory)
    finished_at: float | None = None  # epoch seconds, once won or forfeited

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


def left_seat(meta: dict[str, Any], seat: int, version: int) -> dict[str, Any]:
    """``meta`` after the seat's human left: ``left`` lists such seats, ``version`` is
    the table's version after the last change that is not an action.  Idempotent."""
    left = meta.get("left", [])
    return meta | {"left": left if seat in left else [*left, seat], "version": version}


class StorageError(Exception):
    """The storage refused an operation (a duplicate or misplaced entry: a caller's bug)."""


class StorageUnavailable(StorageError):
    """The storage cannot be reached or written now: tables hold their next action and
    refuse others until a retried write succeeds."""


class Storage(Protocol):
    """Every method may raise :class:`StorageUnavailable`; the table retries it."""


    async def create_match(self, table_id: str, meta: dict[str, Any]) -> None: ...

    async def append_action(self, table_id: str, entry: LoggedAction) -> None: ...

    async def leave_seat(self, table_id: str, seat: int, version: int) -> None:
        """The seat's human left during the match for good: a bot plays it from ``version``."""
        ...

    async def finish_deal(self, table_id: str, index: int, result: dict[str, Any]) -> None: ...

    async def finish_match(self, table_id: str, record: dict[str, Any]) -> None: ...

    async def load_unfinished(self) -> list[StoredMatch]: ...

    async def load_finished(self, since: float) -> list[StoredMatch]:
        """Matches won or forfeited at or after ``since`` (epoch seconds), so a restart
        shows their tables' results for the rest of ``finished_table_ttl``."""
        ...


class MemoryStorage:
    """The in-process implementation: for tests, and for running without a database.
    It forgets the oldest finished matches beyond ``keep_finished``, so memory stays
    bounded on a long-running server."""

    def __init__(self, keep_finished: int = 1000) -> None:
        self.matches: dict[str, StoredMatch] = {}
        self._finished: deque[str] = deque()
        self._keep_finished = keep_finished

    async def create_match(self, table_id: str, meta: dict[str, Any]) -> None:
        self.matches[table_id] = StoredMatch(table_id, dict(meta))

    async def append_action(self, table_id: str, entry: LoggedAction) -> None:
        self.matches[table_id].actions.append(entry)

    async def leave_seat(self, table_id: str, seat: int, version: int) -> None:
        self.matches[table_id].meta = left_seat(self.matches[table_id].meta, seat, version)

    async def finish_deal(self, table_id: str, index: int, result: dict[str, Any]) -> None:
        results = self.matches[table_id].deal_results
        if index != len(results):
            raise ValueError(f"deal {index} finished out of order (have {len(results)})")
        results.append(result)

    async def finish_match(self, table_id: str, record: dict[str, Any]) -> None:
        stored = self.matches[table_id]
        stored.record = record
        if "abandoned" not in record:
            stored.finished_at = time.time()
        if "forfeit" in record:
            stored.meta = stored.meta | {"forfeit": record["forfeit"]}
        self._finished.append(table_id)
        if len(self._finished) > self._keep_finished:
            del self.matches[self._finished.popleft()]

    async def load_unfinished(self) -> list[StoredMatch]:
        return [m for m in self.matches.values() if m.record is None]

    async def load_finished(self, since: float) -> list[StoredMatch]:
        return [m for m in self.matches.values()
                if m.finished_at is not None and m.finished_at >= since]

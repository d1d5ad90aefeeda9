"""Where tables write what happened, in the manner of boardgame.io's storage interface.

The table actor calls these methods (and awaits them) before it tells any client, so a
database implementation can slot in later and rebuild unfinished tables from the log:
a match is its options, its seed and the ordered list of accepted actions.
"""

from __future__ import annotations

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
    meta: dict[str, Any]  # variant, options, seed, seats, start version
    actions: list[LoggedAction] = field(default_factory=list)
    deal_results: list[dict[str, Any]] = field(default_factory=list)
    record: dict[str, Any] | None = None  # belote-record/1, once finished

    @property
    def finished(self) -> bool:
        return self.record is not None


class Storage(Protocol):
    async def create_match(self, table_id: str, meta: dict[str, Any]) -> None: ...

    async def append_action(self, table_id: str, entry: LoggedAction) -> None: ...

    async def finish_deal(self, table_id: str, index: int, result: dict[str, Any]) -> None: ...

    async def finish_match(self, table_id: str, record: dict[str, Any]) -> None: ...

    async def load_unfinished(self) -> list[StoredMatch]: ...


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

    async def finish_deal(self, table_id: str, index: int, result: dict[str, Any]) -> None:
        results = self.matches[table_id].deal_results
        if index != len(results):
            raise ValueError(f"deal {index} finished out of order (have {len(results)})")
        results.append(result)

    async def finish_match(self, table_id: str, record: dict[str, Any]) -> None:
        self.matches[table_id].record = record
        self._finished.append(table_id)
        if len(self._finished) > self._keep_finished:
            del self.matches[self._finished.popleft()]

    async def load_unfinished(self) -> list[StoredMatch]:
        return [m for m in self.matches.values() if not m.finished]

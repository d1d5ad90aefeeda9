"""Where tables write what happened, in the manner of boardgame.io's storage interface.

The table actor calls these methods (and awaits them) before it tells any client, and
tells each write where it goes: a match is its metadata (seed included), its deals as
dealt, each deal's actions in order, their results and how it ended
(:mod:`app.matchlog`).  A storage only keeps what it is told; after a restart it hands
back each match rebuilt by :func:`app.matchlog.replay`.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol, TypeVar

from engine import Match
from engine.cards import Card
from engine.scoring import DealResult

from .matchlog import DealLog, LoggedAction, MatchEnd, MatchMeta, last_version, replay
from .vocabulary import EndReason

T = TypeVar("T")
logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """A logged match as a restart needs it: its metadata and its engine match, replayed
    (the next deal already dealt from the seed if the log stopped between two)."""

    table_id: str
    meta: MatchMeta
    match: Match
    version: int  # the table's version at its last logged change
    finished_at: float | None = None  # epoch seconds, once won or forfeited

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


class StorageError(Exception):
    """The storage refused an operation (a duplicate or misplaced entry: a caller's bug)."""


class StorageUnavailable(StorageError):
    """The storage cannot be reached or written now: tables hold their next action and
    refuse others until a retried write succeeds."""


class Fenced(StorageError):
    """Another node of the cluster has taken the match over (docs/cluster.md): this node's
    writes to its log are refused for good, and its table must go."""


class Storage(Protocol):
    """Every method may raise :class:`StorageUnavailable`; the table retries it.  Every
    write is idempotent (the same call twice leaves one entry), because a write whose
    answer was lost is retried."""

    async def create_match(self, table_id: str, meta: MatchMeta) -> None: ...

    async def start_deal(self, table_id: str, index: int, dealer: int,
                         deck: Sequence[Card]) -> None: ...

    async def append_action(self, table_id: str, deal_index: int, seq: int,
                            entry: LoggedAction) -> None:
        """``entry`` is action ``seq`` (from 0) of deal ``deal_index``."""
        ...

    async def finish_deal(self, table_id: str, index: int, result: DealResult) -> None: ...

    async def leave_seat(self, table_id: str, seat: int, version: int) -> None:
        """The seat's human left during the match for good: a bot plays it from ``version``."""
        ...

    async def finish_match(self, table_id: str, end: MatchEnd) -> None: ...

    async def load_unfinished(self) -> list[StoredMatch]: ...

    async def load_finished(self, since: float) -> list[StoredMatch]:
        """Matches won or forfeited at or after ``since`` (epoch seconds), so a restart
        shows their tables' results for the rest of ``finished_table_ttl``."""
        ...


def replayed(builds: Iterable[tuple[str, Callable[[], StoredMatch]]]) -> list[StoredMatch]:
    """Each match ``build`` replays, by table id.  A log that no longer replays (edited by
    hand, a bug of an older version) or whose metadata is not a table's is left as it is
    and reported, so that one damaged match keeps no other table from coming back."""
    stored = []
    for table_id, build in builds:
        try:
            stored.append(build())
        except ValueError as exc:  # RecordError, IllegalActionError, ValidationError
            logger.error("match %s not restored, its log does not replay: %s", table_id, exc)
    return stored


async def redo_cut_writes(storage: Storage, table_id: str, match: Match,
                          deals_logged: int, results_logged: int) -> bool:
    """Write what a replayed ``match`` holds beyond its log: the deal dealt after the last
    logged one, the results a stop cut off, the end if it was won.  False if it is over."""
    for index in range(deals_logged, len(match.deals)):
        deal = match.deals[index]
        await storage.start_deal(table_id, index, deal.dealer, deal.deck)
    for index in range(results_logged, len(match.results)):
        await storage.finish_deal(table_id, index, match.results[index])
    if match.is_over:
        await storage.finish_match(table_id, MatchEnd(EndReason.WON, match.totals, match.winner))
        return False
    return True


@dataclass(slots=True)
class MemoryLog:
    """One match in :class:`MemoryStorage`, kept as the database keeps it."""

    meta: MatchMeta
    deals: list[DealLog] = field(default_factory=list)
    results: list[DealResult] = field(default_factory=list)
    end: MatchEnd | None = None
    finished_at: float | None = None

    @property
    def actions(self) -> list[LoggedAction]:
        return [entry for deal in self.deals for entry in deal.actions]

    def stored(self, table_id: str) -> StoredMatch:
        match = replay(self.meta.match_options(), self.deals, seed=self.meta.seed)
        version = max(self.meta.version, last_version(d.actions for d in self.deals))
        return StoredMatch(table_id, self.meta, match, version, self.finished_at)


class MemoryStorage:
    """The in-process implementation: for tests, and for running without a database.
    It checks each write's place as the database's keys do, and forgets the oldest
    finished matches beyond ``keep_finished``, so memory stays bounded."""

    def __init__(self, keep_finished: int = 1000) -> None:
        self.matches: dict[str, MemoryLog] = {}
        self._finished: deque[str] = deque()
        self._keep_finished = keep_finished

    async def create_match(self, table_id: str, meta: MatchMeta) -> None:
        known = self.matches.get(table_id)
        if known is not None and known.meta != meta:
            raise StorageError(f"match {table_id!r} is logged with other metadata")
        if known is None:
            self.matches[table_id] = MemoryLog(meta)

    async def start_deal(self, table_id: str, index: int, dealer: int,
                         deck: Sequence[Card]) -> None:
        deals = self.matches[table_id].deals
        _place(deals, index, DealLog(dealer, list(deck)), f"deal {index}")

    async def append_action(self, table_id: str, deal_index: int, seq: int,
                            entry: LoggedAction) -> None:
        actions = self.matches[table_id].deals[deal_index].actions
        _place(actions, seq, entry, f"action {seq} of deal {deal_index}")

    async def finish_deal(self, table_id: str, index: int, result: DealResult) -> None:
        logged = self.matches[table_id]
        if index >= len(logged.deals):
            raise StorageError(f"no deal {index} to finish")
        _place(logged.results, index, result, f"result of deal {index}")

    async def leave_seat(self, table_id: str, seat: int, version: int) -> None:
        logged = self.matches[table_id]
        logged.meta = logged.meta.left_seat(seat, version)

    async def finish_match(self, table_id: str, end: MatchEnd) -> None:
        logged = self.matches[table_id]
        if logged.end is not None:
            return
        logged.end, logged.finished_at = end, time.time()
        if end.forfeit is not None:
            logged.meta = logged.meta.model_copy(update={"forfeit": end.forfeit})
        self._finished.append(table_id)
        if len(self._finished) > self._keep_finished:
            del self.matches[self._finished.popleft()]

    async def load_unfinished(self) -> list[StoredMatch]:
        return replayed((i, partial(m.stored, i)) for i, m in self.matches.items()
                        if m.end is None)

    async def load_finished(self, since: float) -> list[StoredMatch]:
        return replayed((i, partial(m.stored, i)) for i, m in self.matches.items()
                        if m.end is not None and m.end.reason != EndReason.ABANDONED
                        and m.finished_at is not None and m.finished_at >= since)


def _place(entries: list[T], index: int, entry: T, what: str) -> None:
    """Append ``entry`` at ``index``; the same entry there already is a retry."""
    if index == len(entries):
        entries.append(entry)
    elif index > len(entries) or entries[index] != entry:
        raise StorageError(f"{what} is out of place or differs from the log")

""":class:`app.storage.Storage` on the database, for the table server.

The table tells each write where it goes, so this adapter keeps nothing of its own: each
method is one short transaction of :class:`Repository`, idempotent, so that the table
can simply retry one whose answer it never got.  After a restart it replays each match
once (:meth:`MatchLog.replay` with the seed) and redoes the writes a stop cut off.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from functools import partial

from engine.cards import Card
from engine.scoring import DealResult

from ..matchlog import LoggedAction, MatchEnd, MatchMeta, last_version
from ..storage import StoredMatch, redo_cut_writes, replayed
from .leagues import count_league_match
from .match_end import MatchEndSubscriber
from .match_log import MatchLog
from .ratings import rate_match
from .repository import Repository
from .reputation import count_reputation
from .session import Database, StorageError
from .tallies import tally_match
from .tournaments import record_round_match

# Who hears that a match ended, in this order, in the transaction that ends it
# (docs/storage.md, "The end of a match"): ratings first, for whatever reads them; then
# a tournament round's result and the league points (docs/tournaments.md); the players'
# reputation (docs/community.md).
MATCH_END: tuple[MatchEndSubscriber, ...] = (rate_match, tally_match, record_round_match,
                                             count_league_match, count_reputation)


class DatabaseStorage:
    """What tables call; every method is one or two short transactions.

    With ``fencing`` (a cluster node, docs/cluster.md) each write carries the epoch this
    node holds the match at (``epochs``: 0 for the matches it started, the one
    :meth:`claim` got for those it took over), and fails with ``Fenced`` once another node
    has taken the match.  ``subscribers`` hear of each match's end (:data:`MATCH_END`
    unless told otherwise)."""

    def __init__(self, db: Database, *, fencing: bool = False,
                 subscribers: Sequence[MatchEndSubscriber] = MATCH_END) -> None:
        self.repo = Repository(db, subscribers)
        self.epochs: dict[str, int] | None = {} if fencing else None

    def _epoch(self, table_id: str) -> int | None:
        """The epoch to check, None when alone; -1 (always refused) for a match this node
        does not hold."""
        return None if self.epochs is None else self.epochs.get(table_id, -1)

    async def create_match(self, table_id: str, meta: MatchMeta) -> None:
        if self.epochs is not None:
            self.epochs[table_id] = 0
        try:
            await self.repo.create_match(
                table_id, meta.variant, meta.options, meta.seats, meta=meta
            )
        except StorageError:  # perhaps committed by an attempt whose answer was lost
            log = await self.repo.load(table_id)
            if log is None or log.match.meta != meta.stored() or log.deals:
                raise

    async def start_deal(self, table_id: str, index: int, dealer: int,
                         deck: Sequence[Card]) -> None:
        await self.repo.start_deal(table_id, index, dealer, deck, epoch=self._epoch(table_id))

    async def append_action(self, table_id: str, deal_index: int, seq: int,
                            entry: LoggedAction) -> None:
        await self.repo.append_action(table_id, deal_index, seq, entry,
                                      epoch=self._epoch(table_id))

    async def finish_deal(self, table_id: str, index: int, result: DealResult) -> None:
        await self.repo.finish_deal(table_id, index, result, epoch=self._epoch(table_id))

    async def leave_seat(self, table_id: str, seat: int, version: int) -> None:
        await self.repo.leave_seat(table_id, seat, version, epoch=self._epoch(table_id))

    async def finish_match(self, table_id: str, end: MatchEnd) -> None:
        await self.repo.finish_match(table_id, end, epoch=self._epoch(table_id))

    async def claim(self, table_id: str) -> StoredMatch | None:
        """Take over a match still on (a cluster node whose owner died or handed it over):
        its epoch raised, so the former owner can no longer write; then its log, read after
        that, replayed.  None if it is finished, unknown, or its log does not replay."""
        assert self.epochs is not None, "claim is for a cluster node"
        epoch = await self.repo.claim(table_id)
        if epoch is None:
            return None
        self.epochs[table_id] = epoch
        log = await self.repo.load(table_id)
        found = [] if log is None else replayed([(table_id, partial(_stored, log))])
        if log is None or not found or not await self._repair(log, found[0]):
            return None
        return found[0]

    async def _repair(self, log: MatchLog, stored: StoredMatch) -> bool:
        """Redo the writes a stop cut short; False if the match turns out won."""
        results = sum(1 for deal in log.deals if deal.outcome is not None)
        return await redo_cut_writes(self, stored.table_id, stored.match, len(log.deals),
                                     results)

    def forget(self, table_id: str) -> None:
        """This node no longer holds the match."""
        if self.epochs is not None:
            self.epochs.pop(table_id, None)

    async def load_unfinished(self) -> list[StoredMatch]:
        """Every match still on, replayed; the writes a stop cut short are redone (the
        next deal's row, results, the end of a match whose last action won it)."""
        logs = {log.match.id: log for log in await self.repo.load_unfinished()}
        stored = []
        for match in replayed((table_id, partial(_stored, log)) for table_id, log in logs.items()):
            if await self._repair(logs[match.table_id], match):
                stored.append(match)
        return stored

    async def load_finished(self, since: float) -> list[StoredMatch]:
        """Recently finished matches, for their tables' results after a restart."""
        logs = await self.repo.load_finished(datetime.fromtimestamp(since, UTC))
        return replayed((log.match.id, partial(_stored, log)) for log in logs)


def _stored(log: MatchLog) -> StoredMatch:
    meta = MatchMeta.model_validate(log.match.meta)
    match = log.replay(seed=meta.seed)
    version = max(meta.version, last_version(log.actions))
    finished = log.match.finished_at
    return StoredMatch(log.match.id, meta, match, version,
                       None if finished is None else finished.timestamp())

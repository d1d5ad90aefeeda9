""":class:`app.storage.Storage` on the database, for the table server.

The interface logs actions without deal boundaries, so this adapter keeps, per table, a
shadow :class:`engine.Match` built like the table's own (same options and seed): it says
which deal and place each action takes, and which dealer and deck a new deal has, so the
log holds what ``belote-record/1`` needs.  A failed write drops the shadow, since the
write may have committed or not: the next call rebuilds it from the log.  Every write is
idempotent, so the table can simply retry one whose answer it never got: an action whose
version is already logged is not written twice, a match already created with the same
metadata or already finished is left as it is.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from engine import Match, Options
from engine.record import RecordError

from ..storage import LoggedAction, StoredMatch
from .repository import BOT, MatchLog, Repository, Seat, deck_text
from .session import Database, StorageError

logger = logging.getLogger(__name__)


def logged_actions(log: MatchLog) -> list[LoggedAction]:
    return [LoggedAction(a.version or 0, a.seat, a.action, a.actor or "")
            for deal in log.actions for a in deal]


def seat_of(entry: dict[str, Any]) -> Seat:
    """A seat of the table's ``meta["seats"]`` (the record's seats, plus the guest id)."""
    kind = entry["kind"]
    player_id = None if kind == BOT else entry.get("player_id")
    return Seat(kind, entry["name"], player_id, entry.get("level"))


class DatabaseStorage:
    """What tables call; every method is one or two short transactions."""

    def __init__(self, db: Database) -> None:
        self.repo = Repository(db)
        self._shadows: dict[str, Match] = {}
        self._versions: dict[str, int] = {}  # the last logged action's table version

    async def _shadow(self, table_id: str) -> Match:
        shadow = self._shadows.get(table_id)
        if shadow is None:
            log = await self.repo.load(table_id)
            if log is None or log.match.finished_at is not None:
                raise StorageError(f"table {table_id!r} is not logged here, or is finished")
            shadow = await self._restore(log)
        return shadow

    async def create_match(self, table_id: str, meta: dict[str, Any]) -> None:
        options = Options.make(meta["variant"], **meta.get("options", {}))
        seats = [seat_of(s) for s in meta["seats"]]
        try:
            await self.repo.create_match(
                table_id, options.variant, options.changed(), seats, meta=meta
            )
        except StorageError:  # perhaps committed by an attempt whose answer was lost
            log = await self.repo.load(table_id)
            if log is None or log.match.meta != meta or any(log.actions):
                raise
            await self._restore(log)
            return
        shadow = Match(options, seed=meta["seed"])
        await self._catch_up(table_id, shadow, logged_deals=0)
        self._shadows[table_id] = shadow
        self._versions[table_id] = 0

    async def append_action(self, table_id: str, entry: LoggedAction) -> None:
        shadow = await self._shadow(table_id)
        if entry.version <= self._versions[table_id]:
            return  # a retry of a write that did commit
        index = len(shadow.deals) - 1
        seq = len(shadow.deals[index].history)
        try:
            shadow.apply_action(entry.action, entry.seat)
            await self.repo.append_action(
                table_id, index, seq, entry.seat, entry.action,
                actor=entry.by, version=entry.version,
            )
            self._versions[table_id] = entry.version
            await self._catch_up(table_id, shadow, logged_deals=index + 1)
        except BaseException:
            del self._shadows[table_id]
            raise

    async def leave_seat(self, table_id: str, seat: int, version: int) -> None:
        await self.repo.leave_seat(table_id, seat, version)

    async def _catch_up(self, table_id: str, shadow: Match, logged_deals: int) -> None:
        """Log the deals the shadow has dealt beyond ``logged_deals``."""
        for index in range(logged_deals, len(shadow.deals)):
            deal = shadow.deals[index]
            await self.repo.start_deal(table_id, index, deal.dealer, deal.deck)

    async def finish_deal(self, table_id: str, index: int, result: dict[str, Any]) -> None:
        shadow = await self._shadow(table_id)
        if index >= len(shadow.results) or shadow.results[index].to_dict() != result:
            raise StorageError(f"table {table_id!r}: deal {index} result differs from the log")
        await self.repo.finish_deal(table_id, index, shadow.results[index])

    async def finish_match(self, table_id: str, record: dict[str, Any]) -> None:
        if table_id not in self._shadows:  # perhaps finished by an attempt whose answer was lost
            log = await self.repo.load(table_id)
            if log is not None and log.match.finished_at is not None:
                return
        shadow = await self._shadow(table_id)
        forfeit = record.get("forfeit")
        if "abandoned" in record:
            reason, winner = "abandoned", None
        elif forfeit is not None:
            reason, winner = "forfeit", forfeit["winner"]
        else:
            reason, winner = "won", shadow.winner
        await self.repo.finish_match(table_id, shadow.totals, winner, reason=reason,
                                     forfeit=forfeit)
        del self._shadows[table_id]
        del self._versions[table_id]

    async def load_unfinished(self) -> list[StoredMatch]:
        """Every match still on, its shadow rebuilt; writes a crash cut short are redone.

        A log that no longer replays (edited by hand, a bug of an older version) is left
        as it is and reported, so that one damaged match does not keep every other table
        from coming back."""
        stored = []
        for log in await self.repo.load_unfinished():
            try:
                shadow = await self._restore(log)
            except (ValueError, KeyError) as exc:  # RecordError, IllegalActionError, meta
                logger.error("match %s not restored, its log does not replay: %s",
                                log.match.id, exc)
                continue
            if shadow.is_over:  # the crash came between the last action and finish_match
                await self.repo.finish_match(log.match.id, shadow.totals, shadow.winner)
                del self._shadows[log.match.id], self._versions[log.match.id]
                continue
            stored.append(StoredMatch(
                log.match.id, log.match.meta, actions=logged_actions(log),
                deal_results=[r.to_dict() for r in shadow.results],
            ))
        return stored

    async def load_finished(self, since: float) -> list[StoredMatch]:
        """Recently finished matches, for their tables' results after a restart."""
        logs = await self.repo.load_finished(datetime.fromtimestamp(since, UTC))
        return [StoredMatch(log.match.id, log.match.meta, actions=logged_actions(log),
                            finished_at=log.match.finished_at.timestamp())
                for log in logs if log.match.finished_at is not None]

    async def _restore(self, log: MatchLog) -> Match:
        """The shadow of a logged match, with the deal rows and results a crash or a
        failed write left out written now."""
        table_id = log.match.id
        shadow = self._rebuild(log)
        await self._catch_up(table_id, shadow, logged_deals=len(log.deals))
        for index, result in enumerate(shadow.results):
            if index >= len(log.deals) or log.deals[index].outcome is None:
                await self.repo.finish_deal(table_id, index, result)
        self._shadows[table_id] = shadow
        self._versions[table_id] = max(
            (a.version or 0 for deal in log.actions for a in deal), default=0
        )
        return shadow

    @staticmethod
    def _rebuild(log: MatchLog) -> Match:
        meta = log.match.meta
        shadow = Match(Options.make(log.match.variant, **log.match.options), seed=meta["seed"])
        for deal, actions in zip(log.deals, log.actions, strict=True):
            dealt = deck_text(shadow.deals[deal.idx].deck)
            if dealt != deal.deck:
                raise RecordError(deal.idx, 0, f"the seed deals {dealt}, the log {deal.deck}")
            for row in actions:
                shadow.apply_action(row.action, row.seat)
        return shadow


"""Writes of the match log, and the reads a restart starts from (:mod:`.match_log`).

Every write is one short transaction through :meth:`Database.write`, but the frequent
ones (a deal dealt, an action, a deal's result), which share the transactions of the
group commit (:attr:`Database.log`); the hot one, :meth:`Repository.append_action`, is a
single INSERT, awaited by the table before it tells any client (so an accepted action is
never lost) without blocking the event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from engine import Options
from engine.cards import Card
from engine.scoring import DealResult

from ..matchlog import LoggedAction, MatchEnd, MatchMeta, Seat, deck_text
from ..storage import Fenced
from . import models
from .group import Row
from .match_end import MatchEnded, MatchEndSubscriber
from .match_log import MatchLog, load_logs, seat_of
from .session import Database, StorageError, backend_insert, dialect_insert


def now() -> datetime:
    return datetime.now(UTC)


class Repository:
    """The table server's writes, and what it reads back after a restart.

    ``subscribers`` hear of each match's end in the transaction that ends it, in order
    (:mod:`app.db.match_end`); without any, only the log is written."""

    def __init__(self, db: Database, subscribers: Sequence[MatchEndSubscriber] = ()) -> None:
        self.db = db
        self.subscribers = tuple(subscribers)
        # Built once, so that the group commit puts every table's rows in one statement.
        insert_into = backend_insert(db.url.get_backend_name())
        a, d = models.Action, models.Deal
        self._new_action = (insert_into(a).on_conflict_do_nothing()
                            .returning(a.match_id, a.deal_idx, a.seq))
        self._new_deal = insert_into(d).on_conflict_do_nothing().returning(d.match_id, d.idx)
        # A deal's result: the columns set are the parameters' (result_columns), so one
        # statement, compiled once, instead of one built and compiled a deal.
        self._deal_result = update(d).where(d.match_id == bindparam("deal_match"),
                                            d.idx == bindparam("deal_idx"))

    async def create_match(
        self,
        match_id: str,
        variant: str,
        options: dict[str, Any],
        seats: Sequence[Seat],
        *,
        meta: MatchMeta | None = None,
        started_at: datetime | None = None,
    ) -> None:
        """The match, its seats and its human players (created or renamed) at once.
        ``meta`` is the table server's (None for a match that was not a table's)."""
        if len(seats) != 4:
            raise ValueError("a match has four seats")
        players = [s.player_id for s in seats if s.player_id is not None]
        if len(players) != len(set(players)):
            raise ValueError("a player sits at one seat of a match")
        flags = Options.make(variant, **options).changed()  # ValueError on a bad flag
        at = started_at or now()
        async with self.db.write() as conn:
            for seat in seats:
                if seat.player_id is not None:
                    await self._upsert_player(conn, seat.player_id, seat.name, at)
            await conn.execute(
                insert(models.Match),
                {"id": match_id, "variant": variant, "options": flags,
                 "meta": {} if meta is None else meta.stored(),
                 "private": meta is not None and meta.table.private,
                 "started_at": at, "total0": 0, "total1": 0},
            )
            await conn.execute(
                insert(models.MatchSeat),
                [{"match_id": match_id, "seat": i, "player_id": s.player_id, "name": s.name,
                  "kind": s.kind.value, "level": s.level, "started_at": at}
                 for i, s in enumerate(seats)],
            )

    async def _upsert_player(
        self, conn: AsyncConnection, player_id: str, name: str, at: datetime
    ) -> None:
        stmt = dialect_insert(conn)(models.Player).values(id=player_id, name=name, created_at=at)
        await conn.execute(
            stmt.on_conflict_do_update(index_elements=["id"], set_={"name": name})
        )

    async def start_deal(
        self, match_id: str, index: int, dealer: int, deck: Sequence[Card],
        *, at: datetime | None = None, epoch: int | None = None,
    ) -> None:
        """A deal as dealt: its dealer and deck fix every hand (RECORD.md).  The same deal
        again is a retry, and leaves the row as it is.  Group-committed, as the actions."""
        d = models.Deal
        text = deck_text(deck)
        row = Row(self._new_deal, {"match_id": match_id, "idx": index, "dealer": dealer,
                                   "deck": text, "started_at": at or now()}, (match_id, index))

        def check(conn: Connection, inserted: bool) -> None:
            _fence(conn, match_id, epoch)
            if not inserted:
                logged = conn.execute(select(d.dealer, d.deck).where(
                    d.match_id == match_id, d.idx == index)).one()
                if tuple(logged) != (dealer, text):
                    raise StorageError(f"match {match_id!r}: deal {index} is logged otherwise")

        await self.db.log.write(check, row)

    async def append_action(
        self, match_id: str, deal_index: int, seq: int, entry: LoggedAction,
        *, at: datetime | None = None, epoch: int | None = None,
    ) -> None:
        """One accepted engine action, ``seq`` its place in the deal's history (from 0).

        The same action at its place again is a retry and leaves the log as it is; any
        other at a taken place raises StorageError, so a log can never hold two different
        actions at one place.  Written with every table's writes that waited with it
        (:class:`app.db.group.GroupCommit`: one multi-row INSERT, after which each checks
        its fence, in a cluster), it returns once their transaction has committed.
        """
        a = models.Action
        row = Row(self._new_action, {
            "match_id": match_id, "deal_idx": deal_index, "seq": seq, "seat": entry.seat,
            "action": entry.action, "actor": entry.by, "version": entry.version,
            "at": at or now()}, (match_id, deal_index, seq))

        def check(conn: Connection, inserted: bool) -> None:
            _fence(conn, match_id, epoch)
            if not inserted:
                logged = conn.execute(select(a.seat, a.action, a.actor, a.version).where(
                    a.match_id == match_id, a.deal_idx == deal_index, a.seq == seq)).one()
                if LoggedAction(*logged) != entry:
                    raise StorageError(
                        f"match {match_id!r}: deal {deal_index} action {seq} is logged otherwise")

        await self.db.log.write(check, row)

    async def leave_seat(
        self, match_id: str, seat: int, version: int, *, epoch: int | None = None
    ) -> None:
        """Note in ``meta`` that a human left during the match (the seats row keeps who
        played, for history): a restart must give the seat to a bot."""
        async with self.db.write() as conn:
            await conn.run_sync(_fence, match_id, epoch)
            meta = (await _meta(conn, match_id)).left_seat(seat, version)
            await conn.execute(
                update(models.Match).where(models.Match.id == match_id)
                .values(meta=meta.stored())
            )

    async def finish_deal(
        self, match_id: str, index: int, result: DealResult, *, at: datetime | None = None,
        epoch: int | None = None,
    ) -> None:
        """Store a deal's result, the facts history and stats read without replaying.
        Group-committed, as the actions."""
        values = {"deal_match": match_id, "deal_idx": index, "finished_at": at or now(),
                  **result_columns(result)}

        def work(conn: Connection, _: bool) -> None:
            _fence(conn, match_id, epoch)
            done = conn.execute(self._deal_result, values)
            if done.rowcount != 1:
                raise StorageError(f"match {match_id!r} has no deal {index}")

        await self.db.log.write(work)

    async def finish_match(
        self, match_id: str, end: MatchEnd, *, at: datetime | None = None,
        epoch: int | None = None,
    ) -> None:
        """Close a match (won, forfeit or abandoned): it is no longer recovered at start.
        A forfeit goes into ``meta`` too, for the table shown after a restart.  A match
        already closed is left as it is (a retry).  The write that closes it tells the
        :attr:`subscribers` (ratings, tallies) in the same transaction, so exactly once,
        whoever closes it; one that raises fails the write, and the match stays on."""
        m = models.Match
        async with self.db.write() as conn:
            await conn.run_sync(_fence, match_id, epoch)
            finished_at = at or now()
            values: dict[str, Any] = {"finished_at": finished_at, "end_reason": end.reason.value,
                                      "total0": end.totals[0], "total1": end.totals[1],
                                      "winner": end.winner}
            if end.forfeit is not None:
                meta = await _meta(conn, match_id)
                values["meta"] = meta.model_copy(update={"forfeit": end.forfeit}).stored()
            closed = (await conn.execute(
                update(m).where(m.id == match_id, m.end_reason.is_(None)).values(**values)
                .returning(m.variant, m.private, m.meta)
            )).first()
            if closed is not None:  # this write ends it: heard here, once
                ended = await _ended(conn, match_id, end, finished_at, *closed)
                for subscriber in self.subscribers:
                    await subscriber(conn, ended)
            elif not await conn.scalar(select(m.id).where(m.id == match_id)):
                raise StorageError(f"no match {match_id!r}")

    async def claim(self, match_id: str) -> int | None:
        """Take a match still on over for a node of the cluster: its epoch raised, so that
        the writes of the node that had it are refused from now on.  The new epoch, or
        None if the match is finished or unknown."""
        m = models.Match
        async with self.db.write() as conn:
            epoch: int | None = await conn.scalar(
                update(m).where(m.id == match_id, m.finished_at.is_(None))
                .values(epoch=m.epoch + 1).returning(m.epoch))
        return epoch

    async def load(self, match_id: str) -> MatchLog | None:
        async with self.db.read() as session:
            logs = await load_logs(session, [match_id])
        return logs[0] if logs else None

    async def load_finished(self, since: datetime) -> list[MatchLog]:
        """Matches won or forfeited at or after ``since``, oldest first."""
        async with self.db.read() as session:
            ids = await session.scalars(
                select(models.Match.id)
                .where(models.Match.finished_at >= since,
                       models.Match.end_reason != "abandoned")
                .order_by(models.Match.finished_at, models.Match.id)
            )
            return await load_logs(session, list(ids))

    async def unfinished_ids(self) -> list[str]:
        """The ids of the matches still on (a cluster finds orphans among them)."""
        async with self.db.read() as session:
            ids = await session.scalars(
                select(models.Match.id).where(models.Match.finished_at.is_(None)))
            return list(ids)

    async def is_unfinished(self, match_id: str) -> bool:
        """Whether ``match_id`` is a match still on (one row read by its key)."""
        async with self.db.read() as session:
            found = await session.scalar(
                select(models.Match.id).where(models.Match.id == match_id,
                                              models.Match.finished_at.is_(None)))
            return found is not None

    async def load_unfinished(self) -> list[MatchLog]:
        """Every match still on, oldest first, to rebuild its table with ``replay()``."""
        async with self.db.read() as session:
            ids = await session.scalars(
                select(models.Match.id)
                .where(models.Match.finished_at.is_(None))
                .order_by(models.Match.started_at, models.Match.id)
            )
            return await load_logs(session, list(ids))


async def _ended(conn: AsyncConnection, match_id: str, end: MatchEnd, finished_at: datetime,
                 variant: str, private: bool, meta: dict[str, Any]) -> MatchEnded:
    """The match that ``conn``'s write has just closed, for its subscribers.  ``meta`` is
    read as stored (a match that was no table's has none, an old row may lack fields)."""
    s = models.MatchSeat
    seats = await conn.execute(select(s.kind, s.name, s.player_id, s.level)
                               .where(s.match_id == match_id).order_by(s.seat))
    return MatchEnded(match_id, variant, bool((meta.get("table") or {}).get("rated")), private,
                      tuple(seat_of(*row) for row in seats), tuple(meta.get("left", ())), end,
                      finished_at)


async def _meta(conn: AsyncConnection, match_id: str) -> MatchMeta:
    """The match's ``meta``, read in the write that changes it."""
    meta: dict[str, Any] | None = await conn.scalar(
        select(models.Match.meta).where(models.Match.id == match_id))
    if meta is None:
        raise StorageError(f"no match {match_id!r}")
    return MatchMeta.model_validate(meta)


def _fence(conn: Connection, match_id: str, epoch: int | None) -> None:
    """In a cluster, refuse a write of a node whose hold on the match has passed to another
    (``Fenced``).  The row stays share-locked until the write commits, so a takeover (an
    UPDATE of the epoch) waits for it and then reads a log that holds it."""
    if epoch is None:
        return
    m = models.Match
    held = conn.scalar(select(m.epoch).where(m.id == match_id).with_for_update(read=True))
    if held != epoch:
        raise Fenced(f"match {match_id!r} is another node's now (epoch {held}, not {epoch})")


def result_columns(result: DealResult) -> dict[str, Any]:
    """A DealResult as the ``deals`` row's columns."""
    return {
        "outcome": result.outcome, "contract": result.contract, "bidder": result.bidder,
        "multiplier": result.multiplier,
        "card_points0": result.card_points[0], "card_points1": result.card_points[1],
        "declarations0": result.declarations[0], "declarations1": result.declarations[1],
        "belot0": result.belot[0], "belot1": result.belot[1], "valat": result.valat,
        "score0": result.score[0], "score1": result.score[1], "hanging": result.hanging,
        "value": result.value,
    }

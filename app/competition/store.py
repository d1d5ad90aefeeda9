"""The tournaments' reads and writes (the rows of :mod:`app.db.tournaments`).  Each write
is one transaction that locks the tournament's row first (PostgreSQL; SQLite takes one
writer at a time), so entries, the start and each round's advance are decided once
whichever request or node asks (docs/tournaments.md, "A director per tournament")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from ..db import models
from ..db.session import Database, StorageError, dialect_insert
from ..db.tournaments import Entrant, Entry, RoundTable, Tournament
from ..errors import ErrorCode
from ..tables import TableError
from .models import Format, Status
from .standings import Played

T = Tournament


class Refused(TableError):
    """A refused tournament call: its code and message, answered as a table's refusal is."""


@dataclass(frozen=True, slots=True)
class Loaded:
    """A tournament with its entries and every round's tables, read together."""

    tournament: Tournament
    entries: list[Entry]
    tables: list[RoundTable]

    def played(self) -> list[Played]:
        """The round tables as the standings read them."""
        return [Played(t.round, t.seats, t.ended_at is not None, (t.total0, t.total1),
                       t.winner, t.left, t.scores) for t in self.tables]

    def round_tables(self, round_: int) -> list[RoundTable]:
        return [t for t in self.tables if t.round == round_]


async def create(db: Database, row: dict[str, Any]) -> None:
    async with db.write() as conn:
        await conn.execute(insert(T).values(**row))


async def load(db: Database, tournament_id: str) -> Loaded | None:
    async with db.read() as session:
        return await load_in(session, tournament_id)


async def load_in(session: AsyncSession, tournament_id: str) -> Loaded | None:
    tournament = await session.get(T, tournament_id)
    if tournament is None:
        return None
    entries = await session.scalars(select(Entry).where(Entry.tournament_id == tournament_id)
                                    .order_by(Entry.entry))
    tables = await session.scalars(select(RoundTable)
                                   .where(RoundTable.tournament_id == tournament_id)
                                   .order_by(RoundTable.round, RoundTable.idx))
    return Loaded(tournament, list(entries), list(tables))


async def page(db: Database, status: Status | None, offset: int,
               limit: int) -> tuple[list[tuple[Tournament, int]], bool]:
    """Tournaments newest first (of ``status``), each with its count of entries; and
    whether more follow."""
    count = (select(func.count()).where(Entry.tournament_id == T.id, Entry.withdrawn.is_(False))
             .scalar_subquery())
    query = select(T, count).order_by(T.created_at.desc(), T.id.desc())
    if status is not None:
        query = query.where(T.status == status.value)
    async with db.read() as session:
        rows = list(await session.execute(query.offset(offset).limit(limit + 1)))
    return [(row[0], row[1]) for row in rows[:limit]], len(rows) > limit


async def _locked(conn: AsyncConnection, tournament_id: str) -> Any:
    """The tournament's row, locked until the transaction ends; refused if unknown."""
    row = (await conn.execute(select(T.status, T.max_entries, T.director, T.round, T.rounds)
                              .where(T.id == tournament_id).with_for_update())).first()
    if row is None:
        raise Refused(ErrorCode.NO_TOURNAMENT, f"no tournament {tournament_id!r}")
    return row


async def enter(db: Database, tournament_id: str, members: list[dict[str, Any]],
                players: Sequence[str], director: str | None = None) -> int:
    """A new entry of ``members``, its ``players`` entered once each; the director alone
    (``director``: who asks, for a bot entry) may add entries without players.  Refused
    once started, full, or when a player has an entry already."""
    async with db.write() as conn:
        row = await _locked(conn, tournament_id)
        if director is not None and director != row.director:
            raise Refused(ErrorCode.NOT_DIRECTOR, "only the tournament's director may add bots")
        if row.status != Status.UPCOMING:
            raise Refused(ErrorCode.TOURNAMENT_STARTED, "entries are closed: it has started")
        held = await conn.scalar(select(func.count()).where(
            Entry.tournament_id == tournament_id, Entry.withdrawn.is_(False)))
        if held >= row.max_entries:
            raise Refused(ErrorCode.TOURNAMENT_FULL, f"the tournament has its "
                          f"{row.max_entries} entries")
        return await add_entry(conn, tournament_id, members, players)


async def add_entry(conn: AsyncConnection, tournament_id: str, members: list[dict[str, Any]],
                    players: Sequence[str]) -> int:
    """Insert an entry (the tournament's row locked by the caller); its number."""
    number = (await conn.scalar(select(func.max(Entry.entry))
                                .where(Entry.tournament_id == tournament_id)) or 0) + 1
    for player in players:
        done = await conn.execute(dialect_insert(conn)(Entrant).values(
            tournament_id=tournament_id, player_id=player, entry=number)
            .on_conflict_do_nothing())
        if done.rowcount != 1:
            raise Refused(ErrorCode.ALREADY_ENTERED, f"player {player!r} has an entry already")
    await conn.execute(insert(Entry).values(tournament_id=tournament_id, entry=number,
                                            members=members, withdrawn=False,
                                            created_at=func.now()))
    return number


async def withdraw(db: Database, tournament_id: str, player_id: str) -> None:
    """The player's entry goes: deleted before the start, kept in the standings but
    paired no more after it (a pair withdraws together)."""
    async with db.write() as conn:
        row = await _locked(conn, tournament_id)
        entry = await conn.scalar(select(Entrant.entry).where(
            Entrant.tournament_id == tournament_id, Entrant.player_id == player_id))
        if entry is None:
            raise Refused(ErrorCode.NOT_ENTERED, "you have no entry in this tournament")
        if row.status == Status.FINISHED:
            raise Refused(ErrorCode.TOURNAMENT_OVER, "the tournament is over")
        mine = (Entry.tournament_id == tournament_id) & (Entry.entry == entry)
        if row.status == Status.UPCOMING:
            await conn.execute(delete(Entrant).where(Entrant.tournament_id == tournament_id,
                                                     Entrant.entry == entry))
            await conn.execute(delete(Entry).where(mine))
        else:
            await conn.execute(update(Entry).where(mine).values(withdrawn=True))


async def start(db: Database, tournament_id: str, director: str | None) -> bool:
    """Mark the tournament running (its director's call, or ``None``: its start time
    came); the director's next pass pairs its first round.  False if it was no longer
    upcoming (started already: by its time, or another node), or if its time came
    without an entry (it is finished then)."""
    async with db.write() as conn:
        row = await _locked(conn, tournament_id)
        if director is not None and director != row.director:
            raise Refused(ErrorCode.NOT_DIRECTOR, "only the tournament's director may start it")
        if row.status != Status.UPCOMING:
            if director is None:
                return False
            raise Refused(ErrorCode.TOURNAMENT_STARTED, "it has started already")
        entries = await conn.scalar(select(func.count()).where(Entry.tournament_id
                                                               == tournament_id))
        if not entries and director is not None:
            raise Refused(ErrorCode.TOO_FEW_ENTRIES, "a tournament starts with an entry")
        # Its time came and nobody entered: it ends there, without a round.
        status, at = (Status.RUNNING, None) if entries else (Status.FINISHED, func.now())
        await conn.execute(update(T).where(T.id == tournament_id)
                           .values(status=status.value, finished_at=at))
    return bool(entries)


async def due(db: Database, now: datetime) -> tuple[list[str], list[str]]:
    """The upcoming tournaments whose start time came, and the running ones."""
    async with db.read() as session:
        rows = await session.execute(select(T.id, T.status).where(or_(
            T.status == Status.RUNNING.value,
            (T.status == Status.UPCOMING.value) & (T.starts_at <= now))))
        pairs = list(rows)
    return ([i for i, s in pairs if s == Status.UPCOMING],
            [i for i, s in pairs if s == Status.RUNNING])


async def begin_round(db: Database, tournament_id: str, round_: int, ends_at: datetime,
                      tables: list[tuple[list[int], int]],
                      fillers: list[list[dict[str, Any]]]) -> bool:
    """Round ``round_`` begins: the bots that fill the field entered, its tables (each the
    entries at seats 0-3 and its seed) written, its time limit set; False if it had begun
    already (another node's pass)."""
    async with db.write() as conn:
        row = await _locked(conn, tournament_id)
        if row.status != Status.RUNNING or row.round != round_ - 1:
            return False
        for members in fillers:
            await add_entry(conn, tournament_id, members, ())
        for index, (seats, seed) in enumerate(tables):
            await conn.execute(insert(RoundTable).values(
                tournament_id=tournament_id, round=round_, idx=index, seats=seats, seed=seed,
                total0=0, total1=0, left=[], scores=[]))
        await conn.execute(update(T).where(T.id == tournament_id)
                           .values(round=round_, round_ends_at=ends_at))
    return True


async def made(db: Database, tournament_id: str, round_: int, index: int,
               table_id: str | None, at: datetime) -> bool:
    """Note the table made for a round's table (None: forget a table that was lost before
    its match began); False if another was noted meanwhile."""
    r = RoundTable
    async with db.write() as conn:
        done = await conn.execute(update(r).where(
            r.tournament_id == tournament_id, r.round == round_, r.idx == index,
            r.ended_at.is_(None),
            r.table_id.is_(None) if table_id is not None else r.table_id.is_not(None))
            .values(table_id=table_id, made_at=at if table_id else None))
    return bool(done.rowcount == 1)


async def decide(db: Database, tournament_id: str, round_: int, index: int,
                 values: dict[str, Any]) -> bool:
    """A round table's result decided at the time limit; False if its match ended first."""
    r = RoundTable
    async with db.write() as conn:
        done = await conn.execute(update(r).where(
            r.tournament_id == tournament_id, r.round == round_, r.idx == index,
            r.ended_at.is_(None)).values(**values))
    return bool(done.rowcount == 1)


async def finish(db: Database, tournament_id: str, at: datetime) -> None:
    async with db.write() as conn:
        await conn.execute(update(T).where(T.id == tournament_id,
                                           T.status == Status.RUNNING.value)
                           .values(status=Status.FINISHED.value, finished_at=at,
                                   round_ends_at=None))


@dataclass(frozen=True, slots=True)
class Begun:
    """A round table's match as the log has it: each finished deal's score, and the seats
    whose human left (bots now)."""

    scores: list[list[int]]
    left: list[int]


async def matches_of(db: Database, table_ids: Sequence[str]) -> dict[str, Begun]:
    """Of these tables, those whose match began, as the log has them (whichever node
    holds the table)."""
    if not table_ids:
        return {}
    d, m = models.Deal, models.Match
    async with db.read() as session:
        metas = await session.execute(select(m.id, m.meta).where(m.id.in_(table_ids)))
        begun = {match: Begun([], list(meta.get("left", ()))) for match, meta in metas}
        rows = await session.execute(select(d.match_id, d.score0, d.score1)
                                     .where(d.match_id.in_(begun), d.outcome.is_not(None))
                                     .order_by(d.match_id, d.idx))
        for match, score0, score1 in rows:
            begun[match].scores.append([score0 or 0, score1 or 0])
    return begun


async def held_here(db: Database, table_ids: Sequence[str]) -> tuple[set[str], dict[str, set[str]]]:
    """Of these round tables (a node's, their matches on): those whose result is written
    already (decided at the round's time limit, by whichever node directs the
    tournament), and for each of the others the players of its tournament who withdrew."""
    r = RoundTable
    async with db.read() as session:
        rows = [(str(table), tournament, ended) for table, tournament, ended in
                await session.execute(select(r.table_id, r.tournament_id, r.ended_at)
                                      .where(r.table_id.in_(table_ids)))]
        open_ = {table: tournament for table, tournament, ended in rows if ended is None}
        gone = await session.execute(
            select(Entrant.tournament_id, Entrant.player_id)
            .join(Entry, (Entry.tournament_id == Entrant.tournament_id)
                  & (Entry.entry == Entrant.entry))
            .where(Entry.withdrawn.is_(True), Entrant.tournament_id.in_(set(open_.values()))))
        withdrawn: dict[str, set[str]] = {}
        for tournament, player in gone:
            withdrawn.setdefault(tournament, set()).add(player)
    decided = {table for table, _, ended in rows if ended is not None}
    return decided, {table: withdrawn.get(t, set()) for table, t in open_.items()}


async def check_shown(session: AsyncSession, match_id: str) -> None:
    """Refuse (``decks_hidden``) the decks of a table of a duplicate round still on: they
    are the other tables' next deals, so no record, replay or review shows them yet."""
    r = RoundTable
    if await session.scalar(
            select(func.count()).select_from(r).join(T, T.id == r.tournament_id)
            .where(r.table_id == match_id, T.format == Format.DUPLICATE.value,
                   T.status == Status.RUNNING.value, T.round == r.round)):
        raise Refused(ErrorCode.DECKS_HIDDEN, "this round's decks are shown once every "
                      "table of the round has played them")


async def check_decks(db: Database, match_id: str) -> None:
    """:func:`check_shown` in a session of its own; refused (503) while the database
    cannot say."""
    try:
        async with db.read() as session:
            await check_shown(session, match_id)
    except StorageError:
        raise Refused(ErrorCode.STORAGE_UNAVAILABLE, "the database cannot be read now, "
                      "try again later") from None

"""The community's queries (issue #32): friend requests and friends, blocks, reports.
Who may do what is app/community/'s; this module reads and writes rows."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import and_, delete, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from . import models
from .session import Database, dialect_insert
from .social_models import Block, FriendRequest, Report


@dataclass(frozen=True, slots=True)
class Named:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Friends:
    """A player's friends (both asked), the requests made to it, those it made."""

    friends: list[Named]
    incoming: list[Named]
    outgoing: list[Named]


@dataclass(frozen=True, slots=True)
class ReportRow:
    id: int
    reporter: str
    player: str
    match: str | None
    reason: str
    text: str
    at: datetime


async def names(db: Database, ids: Collection[str]) -> dict[str, str]:
    """The names of the known players among ``ids`` (an account's is its username)."""
    if not ids:
        return {}
    p = models.Player
    async with db.read() as session:
        rows = await session.execute(select(p.id, p.name).where(p.id.in_(list(ids))))
    return {row.id: row.name for row in rows}


async def is_account(db: Database, player_id: str) -> bool:
    a = models.Account
    async with db.read() as session:
        return await session.scalar(select(a.player_id).where(a.player_id == player_id)) \
            is not None


async def _add_pair(conn: AsyncConnection, model: type[FriendRequest] | type[Block],
                    row: dict[str, object]) -> None:
    """Insert the pair's row unless it is there already."""
    await conn.execute(dialect_insert(conn)(model).values(**row, at=datetime.now(UTC))
                       .on_conflict_do_nothing())


async def ask_friend(db: Database, asker: str, asked: str) -> bool:
    """``asker`` asks ``asked``; True if they are friends now (``asked`` had asked too)."""
    r = FriendRequest
    async with db.write() as conn:
        await _add_pair(conn, r, {"asker": asker, "asked": asked})
        back = await conn.scalar(select(r.asker).where(r.asker == asked, r.asked == asker))
    return back is not None


async def unfriend(db: Database, one: str, other: str) -> None:
    """No friendship, nor request either way, between the two."""
    r = FriendRequest
    async with db.write() as conn:
        await conn.execute(delete(r).where(or_(and_(r.asker == one, r.asked == other),
                                               and_(r.asker == other, r.asked == one))))


async def friends_of(db: Database, player_id: str) -> Friends:
    r, p = FriendRequest, models.Player
    async with db.read() as session:
        mine = {row.asked: row.name for row in await session.execute(
            select(r.asked, p.name).join(p, p.id == r.asked).where(r.asker == player_id))}
        theirs = {row.asker: row.name for row in await session.execute(
            select(r.asker, p.name).join(p, p.id == r.asker).where(r.asked == player_id))}
    both = mine.keys() & theirs.keys()

    def listed(found: dict[str, str], keep: Collection[str]) -> list[Named]:
        return sorted((Named(i, found[i]) for i in keep), key=lambda n: (n.name.lower(), n.id))

    return Friends(listed(mine, both), listed(theirs, theirs.keys() - both),
                   listed(mine, mine.keys() - both))


async def friend_ids(db: Database, player_id: str) -> set[str]:
    """The ids of the player's friends (both asked)."""
    found = await friends_of(db, player_id)
    return {f.id for f in found.friends}


async def block(db: Database, blocker: str, blocked: str) -> None:
    """Block, and end any friendship or request between the two."""
    r = FriendRequest
    async with db.write() as conn:
        await _add_pair(conn, Block, {"blocker": blocker, "blocked": blocked})
        await conn.execute(delete(r).where(or_(and_(r.asker == blocker, r.asked == blocked),
                                               and_(r.asker == blocked, r.asked == blocker))))


async def unblock(db: Database, blocker: str, blocked: str) -> None:
    async with db.write() as conn:
        await conn.execute(delete(Block).where(Block.blocker == blocker,
                                               Block.blocked == blocked))


async def blocked_by(db: Database, blocker: str) -> list[Named]:
    b, p = Block, models.Player
    async with db.read() as session:
        rows = await session.execute(select(b.blocked, p.name).join(p, p.id == b.blocked)
                                     .where(b.blocker == blocker).order_by(b.at, b.blocked))
    return [Named(row.blocked, row.name) for row in rows]


async def blocking_pairs(db: Database, ids: Collection[str]) -> set[frozenset[str]]:
    """The pairs among ``ids`` of whom one blocks the other."""
    if len(ids) < 2:
        return set()
    b = Block
    async with db.read() as session:
        rows = await session.execute(select(b.blocker, b.blocked).where(
            b.blocker.in_(list(ids)), b.blocked.in_(list(ids))))
    return {frozenset(row) for row in rows}


class BlockBook:
    """The blocks as tables read them (app/tables/config.py, ``Blocks``)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def apart(self, player_ids: Collection[str]) -> set[frozenset[str]]:
        return await blocking_pairs(self._db, player_ids)


async def blocks_either(db: Database, one: str, other: str) -> bool:
    return bool(await blocking_pairs(db, {one, other}))


async def report(db: Database, reporter: str, player: str, match: str | None, reason: str,
                 text: str) -> int:
    async with db.write() as conn:
        result = await conn.execute(insert(Report).values(
            reporter=reporter, player=player, match=match, reason=reason, text=text,
            at=datetime.now(UTC)).returning(Report.id))
        return int(result.scalar_one())


async def reports(db: Database, limit: int) -> list[ReportRow]:
    """The newest reports first, for an operator."""
    r = Report
    async with db.read() as session:
        rows = await session.execute(select(r.id, r.reporter, r.player, r.match, r.reason,
                                             r.text, r.at).order_by(r.at.desc(), r.id.desc())
                                     .limit(limit))
    return [ReportRow(*row) for row in rows]

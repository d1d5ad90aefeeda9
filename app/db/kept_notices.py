"""The notices kept for a player who had no personal channel open (issue #32;
docs/community.md, "Notices kept"): written by app/community/notices.py, read when a
channel opens and by ``GET /api/me/notices``, deleted when dismissed.  A player keeps
the newest :data:`KEPT` of them, none older than :data:`KEPT_FOR`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, insert, select

from .session import Database
from .social_models import KeptNotice

KEPT = 20  # notices per player, the newest
KEPT_FOR = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class Kept:
    id: int
    body: str  # the notice's JSON


async def keep(db: Database, player_id: str, body: str) -> int:
    """Keep a notice for the player; its older ones beyond the newest :data:`KEPT`, and
    those expired, go."""
    n = KeptNotice
    now = datetime.now(UTC)
    async with db.write() as conn:
        result = await conn.execute(insert(n).values(player_id=player_id, body=body, at=now)
                                    .returning(n.id))
        kept = int(result.scalar_one())
        newest = (select(n.id).where(n.player_id == player_id)
                  .order_by(n.at.desc(), n.id.desc()).limit(KEPT))
        await conn.execute(delete(n).where(n.player_id == player_id, n.id.not_in(newest)))
        await conn.execute(delete(n).where(n.player_id == player_id, n.at < now - KEPT_FOR))
    return kept


async def unread(db: Database, player_id: str) -> list[Kept]:
    """The player's kept notices not expired, oldest first."""
    n = KeptNotice
    since = datetime.now(UTC) - KEPT_FOR
    async with db.read() as session:
        rows = await session.execute(select(n.id, n.body).where(
            n.player_id == player_id, n.at >= since).order_by(n.at, n.id))
    return [Kept(row.id, row.body) for row in rows]


async def dismiss(db: Database, player_id: str, notice_id: int) -> None:
    """The player read the notice: it is not kept any more (nothing if it was not)."""
    n = KeptNotice
    async with db.write() as conn:
        await conn.execute(delete(n).where(n.player_id == player_id, n.id == notice_id))

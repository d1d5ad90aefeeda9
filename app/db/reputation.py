"""Reputations counted as each match ends (a subscriber to its end: :mod:`.match_end`), and
read for a profile or the rated queue.  A human seat counts the match as finished, or as
left when its player left for good, lost it on the timer (a forfeit), or let the timer
or a covering bot make at least :data:`~app.reputation.INACTIVE_SHARE` of its actions."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ..reputation import INACTIVE_SHARE, Reputation
from ..vocabulary import Actor
from . import models
from .match_end import MatchEnded
from .session import Database, dialect_insert
from .social_models import Reputation as Row

ABSENT = (Actor.TIMEOUT.value, Actor.COVER.value)


async def count_reputation(conn: AsyncConnection, ended: MatchEnded) -> None:
    """Count a match that ``conn``'s transaction is closing in each human's reputation."""
    a = models.Action
    acted: Counter[int] = Counter()
    absent: Counter[int] = Counter()
    for seat, actor, count in await conn.execute(
            select(a.seat, a.actor, func.count()).where(a.match_id == ended.match_id)
            .group_by(a.seat, a.actor)):
        acted[seat] += count
        if actor in ABSENT:
            absent[seat] += count
    forfeit = ended.end.forfeit.seat if ended.end.forfeit is not None else None
    for seat, sitting in enumerate(ended.seats):
        if sitting.player_id is None:
            continue
        left = (seat in ended.left or seat == forfeit
                or absent[seat] >= INACTIVE_SHARE * max(1, acted[seat]))
        table = Row.__table__
        stmt = dialect_insert(conn)(table).values(
            player_id=sitting.player_id, finished=int(not left), left=int(left))
        await conn.execute(stmt.on_conflict_do_update(
            index_elements=["player_id"],
            set_={"finished": table.c.finished + stmt.excluded.finished,
                  "left": table.c.left + stmt.excluded.left}))


async def reputations(db: Database, player_ids: list[str]) -> dict[str, Reputation]:
    """Each player's reputation; a player with no row yet has a new player's."""
    if not player_ids:
        return {}
    async with db.read() as session:
        rows = await session.execute(select(Row.player_id, Row.finished, Row.left)
                                     .where(Row.player_id.in_(player_ids)))
    found = {row.player_id: Reputation(row.finished, row.left) for row in rows}
    return {p: found.get(p, Reputation()) for p in player_ids}

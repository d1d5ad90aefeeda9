"""The leagues' seasons in the database: the cluster's one job that closes a season at its
end (each group's zones moved to the players' next divisions) and opens the next, run by
every node's director pass and done once (a conditional write under the season's row
lock); and a player's league as ``GET /api/leagues/{variant}`` shows it."""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import groupby
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from ..db import models
from ..db.leagues import LeagueLine, LeaguePlace, LeagueSeason, placed
from ..db.session import Database, dialect_insert
from .leagues import DIVISIONS, moved, zones

L = LeagueLine


async def keep_seasons(db: Database, days: float, now: datetime) -> None:
    """Open the first season, or close the one past its end and open the next."""
    async with db.read() as session:
        current = (await session.execute(select(LeagueSeason.season, LeagueSeason.ends_at)
                                         .order_by(LeagueSeason.season.desc())
                                         .limit(1))).first()
    if current is not None and now < current.ends_at:
        return
    async with db.write() as conn:
        if current is None:
            await _open(conn, 1, now, days)
            return
        closed = await conn.execute(update(LeagueSeason).where(
            LeagueSeason.season == current.season, LeagueSeason.closed_at.is_(None))
            .values(closed_at=now))
        if closed.rowcount == 1:  # this pass closes it: once
            await _move(conn, current.season)
            await _open(conn, current.season + 1, max(now, current.ends_at), days)


async def _open(conn: AsyncConnection, season: int, start: datetime, days: float) -> None:
    await conn.execute(dialect_insert(conn)(LeagueSeason).values(
        season=season, starts_at=start, ends_at=start + timedelta(days=days), closed_at=None)
        .on_conflict_do_nothing())


async def _move(conn: AsyncConnection, season: int) -> None:
    """Each group's zones: the next division of every player of the season."""
    rows = await conn.execute(select(L.variant, L.division, L.grp, L.player_id)
                              .where(L.season == season)
                              .order_by(L.variant, L.division, L.grp, L.points.desc(),
                                        L.matches.desc(), L.joined_at))
    for (variant, division, _), group in groupby(rows, key=lambda r: (r[0], r[1], r[2])):
        players = [row.player_id for row in group]
        for rank, player in enumerate(players, 1):
            stmt = dialect_insert(conn)(LeaguePlace).values(
                player_id=player, variant=variant, division=moved(division, rank, len(players)))
            await conn.execute(stmt.on_conflict_do_update(
                index_elements=["player_id", "variant"],
                set_={"division": stmt.excluded.division}))


async def league(db: Database, variant: str, player_id: str) -> dict[str, Any]:
    """The caller's league in ``variant`` this season: their division and group ranked,
    the zones; before their first rated match of the season, the division they would
    start in and no group."""
    async with db.read() as session:
        season = (await session.execute(select(LeagueSeason.season, LeagueSeason.ends_at)
                                        .where(LeagueSeason.closed_at.is_(None))
                                        .order_by(LeagueSeason.season.desc())
                                        .limit(1))).first()
        if season is None:
            return {"season": None, "ends_at": None, "division": None, "group": [],
                    "zones": {"promotion": 0, "demotion": 0}, "divisions": DIVISIONS}
        mine = (await session.execute(select(L.division, L.grp).where(
            L.variant == variant, L.season == season.season, L.player_id == player_id)
        )).first()
        group: list[dict[str, Any]] = []
        if mine is None:
            division = await placed(await session.connection(), variant, player_id)
        else:
            division = mine.division
            rows = await session.execute(
                select(L.player_id, models.Player.name, L.points, L.matches)
                .join(models.Player, models.Player.id == L.player_id, isouter=True)
                .where(L.variant == variant, L.season == season.season,
                       L.division == division, L.grp == mine.grp)
                .order_by(L.points.desc(), L.matches.desc(), L.joined_at))
            group = [{"rank": rank, "player": row.player_id, "name": row.name,
                      "points": row.points, "matches": row.matches}
                     for rank, row in enumerate(rows, 1)]
    up, down = zones(len(group))
    return {"season": season.season, "ends_at": season.ends_at, "division": division,
            "group": group, "zones": {"promotion": up if division > 1 else 0,
                                      "demotion": down if division < DIVISIONS else 0},
            "divisions": DIVISIONS}


async def divisions(session: AsyncSession, player_id: str) -> dict[str, int]:
    """The player's division in each variant's league this season, where they played."""
    open_ = select(func.max(LeagueSeason.season)).where(LeagueSeason.closed_at.is_(None))
    rows = await session.execute(select(L.variant, L.division).where(
        L.player_id == player_id, L.season == open_.scalar_subquery()))
    return {variant: division for variant, division in rows}

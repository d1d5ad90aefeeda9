"""Seasonal leagues in the database (migration 0014; docs/tournaments.md, "Leagues"): a
player's line in a season's group, the division they are placed in next, and the seasons
closed.  League points grow in the transaction that ends a rated match
(:func:`count_league_match`, a subscriber to the end of a match), so once per match.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Integer, SmallInteger, String, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import Mapped, mapped_column

from ..competition import leagues as rules
from ..vocabulary import EndReason
from . import models
from .match_end import MatchEnded
from .models import Base
from .session import dialect_insert


class LeagueLine(Base):
    """A player's season in a variant: the division and group they play in, and points."""

    __tablename__ = "league_lines"

    variant: Mapped[str] = mapped_column(String(16), primary_key=True)
    season: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    division: Mapped[int] = mapped_column(SmallInteger)
    grp: Mapped[int] = mapped_column(SmallInteger)
    points: Mapped[int] = mapped_column(Integer, default=0)
    matches: Mapped[int] = mapped_column(Integer, default=0)
    joined_at: Mapped[datetime]

    __table_args__ = (Index("ix_league_lines_group", "variant", "season", "division", "grp",
                            "points"),)


class LeaguePlace(Base):
    """The division a player starts their next season of a variant in (moved at each
    season's end); none yet: placed by their rating."""

    __tablename__ = "league_places"

    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    variant: Mapped[str] = mapped_column(String(16), primary_key=True)
    division: Mapped[int] = mapped_column(SmallInteger)


class LeagueSeason(Base):
    """A season of every variant's league: opened by the cluster's job, closed by it once
    its zones moved (the conditional update of ``closed_at`` makes that happen once)."""

    __tablename__ = "league_seasons"

    season: Mapped[int] = mapped_column(Integer, primary_key=True)
    starts_at: Mapped[datetime]
    ends_at: Mapped[datetime]
    closed_at: Mapped[datetime | None]


async def count_league_match(conn: AsyncConnection, ended: MatchEnded) -> None:
    """League points for each account at a rated match that ended by play or forfeit:
    :data:`rules.WIN_POINTS` a win, :data:`rules.PLAY_POINTS` a loss, nothing to one who
    left; a player's first match of the season places them in a division and a group."""
    if not ended.rated or ended.end.reason == EndReason.ABANDONED:
        return
    season = await conn.scalar(select(func.max(LeagueSeason.season))
                               .where(LeagueSeason.closed_at.is_(None)))
    if season is None:  # no season open yet (the job opens one at a node's start)
        return
    for seat, sitting in enumerate(ended.seats):
        if sitting.player_id is None:
            continue
        points = (0 if seat in ended.left else
                  rules.WIN_POINTS if ended.end.winner == seat % 2 else rules.PLAY_POINTS)
        await _add(conn, ended.variant, season, sitting.player_id, points, ended.finished_at)


async def _add(conn: AsyncConnection, variant: str, season: int, player_id: str, points: int,
               at: datetime) -> None:
    line = LeagueLine
    key = (line.variant == variant) & (line.season == season) & (line.player_id == player_id)
    if await conn.scalar(select(line.points).where(key)) is None:
        division = await placed(conn, variant, player_id)
        await conn.execute(dialect_insert(conn)(line).values(
            variant=variant, season=season, player_id=player_id, division=division,
            grp=await _group(conn, variant, season, division), points=0, matches=0,
            joined_at=at).on_conflict_do_nothing())
    await conn.execute(update(line).where(key).values(
        points=line.points + points, matches=line.matches + 1))


async def placed(conn: AsyncConnection, variant: str, player_id: str) -> int:
    """The division a player starts a season in: where the last season's end moved them,
    or by their hidden rating."""
    place = await conn.scalar(select(LeaguePlace.division).where(
        LeaguePlace.player_id == player_id, LeaguePlace.variant == variant))
    if place is not None:
        return int(place)
    r = models.PlayerRating
    mu = await conn.scalar(select(r.mu).where(r.player_id == player_id, r.variant == variant))
    return rules.division_of(mu)


async def _group(conn: AsyncConnection, variant: str, season: int, division: int) -> int:
    """The division's last group, or a new one once it holds :data:`rules.GROUP_SIZE`."""
    line = LeagueLine
    last = (await conn.execute(
        select(line.grp, func.count()).where(line.variant == variant, line.season == season,
                                             line.division == division)
        .group_by(line.grp).order_by(line.grp.desc()).limit(1))).first()
    if last is None:
        return 0
    return int(last[0]) + (last[1] >= rules.GROUP_SIZE)

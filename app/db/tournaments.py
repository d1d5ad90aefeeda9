"""Tournaments in the database (migration 0014; docs/tournaments.md): a tournament, its
entries (a pair of seats' holders, or one for rotating partners), the players entered
(one entry each), and each round's tables with their results.

Everything a director needs is here, so that any node takes a tournament over from the
rows alone.  A round table's result is written by :func:`record_round_match`, a
subscriber to the end of a match (:mod:`app.db.match_end`), in the transaction that ends
the match: a round's result is kept exactly once, whichever node ends the match.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import Mapped, mapped_column

from . import models
from .match_end import MatchEnded
from .models import Base


class Tournament(Base):
    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    variant: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]]  # the flags that differ from the variant's defaults
    format: Mapped[str] = mapped_column(String(10))  # swiss, duplicate
    teams: Mapped[str] = mapped_column(String(10))  # fixed, rotating
    rounds: Mapped[int] = mapped_column(SmallInteger)
    rated: Mapped[bool] = mapped_column(Boolean)
    turn_seconds: Mapped[float] = mapped_column(Float)
    round_seconds: Mapped[int] = mapped_column(Integer)  # a round's time limit
    max_entries: Mapped[int] = mapped_column(SmallInteger)
    bot_level: Mapped[str] = mapped_column(String(16))  # partners and fillers the server adds
    director: Mapped[str] = mapped_column(String(64))  # the creator's player id
    director_name: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(10))  # upcoming, running, finished
    round: Mapped[int] = mapped_column(SmallInteger, default=0)  # the round on (0: none yet)
    round_ends_at: Mapped[datetime | None]
    starts_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]

    __table_args__ = (Index("ix_tournaments_status", "status", "created_at", "id"),)


class Entry(Base):
    """One entry: ``members`` are its seats' holders, each ``{"player_id", "name"}`` or
    ``{"level", "name"}`` (a bot); two for a fixed pair, one for rotating partners."""

    __tablename__ = "tournament_entries"

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    entry: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    members: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    withdrawn: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime]


class Entrant(Base):
    """A player entered in a tournament, once: the key refuses a second entry."""

    __tablename__ = "tournament_players"

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    entry: Mapped[int] = mapped_column(SmallInteger)


class RoundTable(Base):
    """A table of a round: ``seats`` holds the entry at each seat (for a fixed pair the
    pair's first member sits at seats 0/1, its second at 2/3); ``table_id`` once made;
    the result once its match ended, or was decided at the round's time limit."""

    __tablename__ = "tournament_tables"

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    round: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    idx: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    seats: Mapped[list[int]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)  # a duplicate round's: one for all its tables
    table_id: Mapped[str | None] = mapped_column(String(64), index=True)
    made_at: Mapped[datetime | None]  # when table_id was set
    ended_at: Mapped[datetime | None]
    reason: Mapped[str | None] = mapped_column(String(16))  # won, forfeit, abandoned, time
    total0: Mapped[int] = mapped_column(Integer, default=0)
    total1: Mapped[int] = mapped_column(Integer, default=0)
    winner: Mapped[int | None] = mapped_column(SmallInteger)  # None once ended: a draw
    left: Mapped[list[int]] = mapped_column(JSON, default=list)  # seats whose human left
    scores: Mapped[list[list[int]]] = mapped_column(JSON, default=list)  # each deal's score


async def record_round_match(conn: AsyncConnection, ended: MatchEnded) -> None:
    """Keep the result of a round table's match (a subscriber to its end): totals, winner,
    who left, and each deal's score for a duplicate round.  Not a round's table, or
    already decided (at the round's time limit): nothing."""
    t = RoundTable
    held = await conn.scalar(select(t.round).where(t.table_id == ended.match_id,
                                                    t.ended_at.is_(None)))
    if held is None:
        return
    await conn.execute(update(t).where(t.table_id == ended.match_id, t.ended_at.is_(None))
                       .values(**result_values(ended.end.reason.value, ended.end.totals,
                                               ended.end.winner, list(ended.left),
                                               await deal_scores(conn, ended.match_id),
                                               ended.finished_at)))


async def deal_scores(conn: AsyncConnection, match_id: str) -> list[list[int]]:
    """Each finished deal's score of the match, in order (a deal thrown in scores 0-0)."""
    d = models.Deal
    rows = await conn.execute(select(d.score0, d.score1)
                              .where(d.match_id == match_id, d.outcome.is_not(None))
                              .order_by(d.idx))
    return [[score0 or 0, score1 or 0] for score0, score1 in rows]


def result_values(reason: str, totals: tuple[int, int] | list[int], winner: int | None,
                  left: list[int], scores: list[list[int]], at: datetime) -> dict[str, Any]:
    """A round table's result columns."""
    return {"ended_at": at, "reason": reason, "total0": totals[0], "total1": totals[1],
            "winner": winner, "left": left, "scores": scores}

"""History reads for the REST API: match lists, one match, its record, a player's stats
(the leaderboard and a player's profile are :mod:`.players`').

Lists page by a cursor on ``(started_at, id)``, newest first, so a page costs the same
at any depth and stays stable while new matches start (an offset would shift).

Statements are built once (``@cache``, their values bound by name): building SQLAlchemy
expressions costs more Python time than running these short indexed queries.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, Protocol

from sqlalchemy import Select, and_, bindparam, func, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from ..contracts import result_fields
from . import models
from .match_log import MatchLog, load_logs, row_result
from .models import UTCDateTime
from .schemas import (
    DealOut,
    MatchDetail,
    MatchPage,
    MatchSummary,
    PlayerStats,
    SeatOut,
    VariantStats,
)

Rows = Select[*tuple[Any, ...]]  # a statement, whatever its columns


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a page ends: the last match's start and id."""

    started_at: datetime
    id: str

    def encode(self) -> str:
        raw = json.dumps([self.started_at.isoformat(), self.id]).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str) -> Cursor:
        """ValueError for anything :meth:`encode` did not make."""
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            started, match_id = json.loads(raw)
            at = datetime.fromisoformat(started)
        except (binascii.Error, ValueError, TypeError) as e:
            raise ValueError("bad cursor") from e
        if not isinstance(match_id, str) or at.tzinfo is None:
            raise ValueError("bad cursor")
        return cls(at, match_id)


@dataclass(frozen=True, slots=True)
class MatchFilter:
    player: str | None = None
    variant: str | None = None
    finished: bool | None = None
    since: datetime | None = None  # started at or after
    until: datetime | None = None  # started before
    cursor: Cursor | None = None
    limit: int = 20
    viewer: str | None = None  # the player asking, known by its bearer token


def shows_private(player: str | None, viewer: str | None) -> bool:
    """Private matches are never listed nor counted, except in a player's own history
    asked for with that player's token: their ids are the link that lets anyone watch."""
    return player is not None and player == viewer


class _MatchFields(Protocol):
    """What a match summary reads: a ``matches`` row or a Match."""

    id: str
    variant: str
    started_at: datetime
    finished_at: datetime | None
    end_reason: str | None
    total0: int
    total1: int
    winner: int | None


async def list_matches(session: AsyncSession, f: MatchFilter) -> MatchPage:
    """One page of matches, newest first, with their seats."""
    values = {"player": f.player, "variant": f.variant, "since": f.since, "until": f.until,
              "after": f.cursor and f.cursor.started_at, "after_id": f.cursor and f.cursor.id}
    statement = _filtered(not shows_private(f.player, f.viewer), f.finished,
                          frozenset(k for k, v in values.items() if v is not None))
    rows = await session.execute(statement, {
        "limit": f.limit + 1, **{k: v for k, v in values.items() if v is not None}})
    matches: dict[str, tuple[Any, list[SeatOut]]] = {}  # in the page's order
    for row in rows:
        _, seats = matches.setdefault(row.id, (row, []))
        if row.seat is not None:
            seats.append(SeatOut(seat=row.seat, kind=row.kind, name=row.name,
                                 player_id=row.player_id, level=row.level))
    page = list(matches.values())
    last = page[f.limit - 1][0] if len(page) > f.limit else None
    return MatchPage(
        items=[_summary(m, seats) for m, seats in page[: f.limit]],
        next_cursor=Cursor(last.started_at, last.id).encode() if last else None)


@cache
def _filtered(public: bool, finished: bool | None, given: frozenset[str]) -> Rows:
    """The page's statement for the filters ``given`` (their values bound by name): a row
    per match and seat."""
    m = models.Match
    stmt = select(m.id, m.variant, m.started_at, m.finished_at, m.end_reason, m.total0,
                  m.total1, m.winner)
    # A player's matches are walked in the player's own seats index, whose copy of the
    # start orders them (models.MatchSeat); anyone's, in the matches' index.
    at, ident = m.started_at, m.id
    if "player" in given:
        seats = models.MatchSeat
        stmt = stmt.join(seats, seats.match_id == m.id).where(
            seats.player_id == bindparam("player"))
        at, ident = seats.started_at, seats.match_id
    if public:
        stmt = stmt.where(~m.private)
    if "variant" in given:
        stmt = stmt.where(m.variant == bindparam("variant"))
    if finished is not None:
        stmt = stmt.where(m.finished_at.is_not(None) if finished else m.finished_at.is_(None))
    if "since" in given:
        stmt = stmt.where(at >= bindparam("since", type_=UTCDateTime()))
    if "until" in given:
        stmt = stmt.where(at < bindparam("until", type_=UTCDateTime()))
    if "after" in given:
        # A row-value comparison: both databases walk the index from the cursor on.
        stmt = stmt.where(tuple_(at, ident) < tuple_(
            bindparam("after", type_=UTCDateTime()), bindparam("after_id")))
    # The page's matches, then their seats joined in the same statement.
    page = stmt.order_by(at.desc(), ident.desc()).limit(bindparam("limit")).subquery()
    s = models.MatchSeat
    return (select(page, s.seat, s.kind, s.name, s.player_id, s.level)
            .outerjoin(s, s.match_id == page.c.id)
            .order_by(page.c.started_at.desc(), page.c.id.desc(), s.seat))


async def _seats(session: AsyncSession, match_ids: Sequence[str]) -> dict[str, list[SeatOut]]:
    out: dict[str, list[SeatOut]] = {i: [] for i in match_ids}
    if match_ids:
        rows = await session.execute(_seats_statement(), {"ids": list(match_ids)})
        for match_id, seat, kind, name, player_id, level in rows:
            out[match_id].append(
                SeatOut(seat=seat, kind=kind, name=name, player_id=player_id, level=level))
    return out


@cache
def _seats_statement() -> Rows:
    s = models.MatchSeat
    return (select(s.match_id, s.seat, s.kind, s.name, s.player_id, s.level)
            .where(s.match_id.in_(bindparam("ids", expanding=True)))
            .order_by(s.match_id, s.seat))


def _summary(m: _MatchFields, seats: list[SeatOut]) -> MatchSummary:
    return MatchSummary(
        id=m.id, variant=m.variant, started_at=m.started_at, finished_at=m.finished_at,
        end_reason=m.end_reason, totals=(m.total0, m.total1), winner=m.winner, seats=seats,
    )


async def get_match(session: AsyncSession, match_id: str) -> MatchDetail | None:
    """A match with its seats and every deal's result; None if unknown."""
    m = await session.get(models.Match, match_id)
    if m is None:
        return None
    seats = await _seats(session, [match_id])
    deals = await session.scalars(
        select(models.Deal).where(models.Deal.match_id == match_id).order_by(models.Deal.idx)
    )
    summary = _summary(m, seats[match_id])
    return MatchDetail(**summary.model_dump(), options=m.options, deals=[_deal(d) for d in deals])


def _deal(d: models.Deal) -> DealOut:
    result = row_result(d)
    return DealOut.model_validate({
        "index": d.idx, "dealer": d.dealer, "started_at": d.started_at,
        "finished_at": d.finished_at, **(result_fields(result) if result else {}),
    })


async def get_log(session: AsyncSession, match_id: str) -> MatchLog | None:
    """A match's log, from which its public record and replay are made (docs/storage.md)."""
    logs = await load_logs(session, [match_id])
    return logs[0] if logs else None


async def player_stats(
    session: AsyncSession, player_id: str, viewer: str | None = None
) -> PlayerStats | None:
    """A player's finished matches by variant: wins, points, own contracts; None if unknown.
    Private matches count only when the player asks (``viewer``).  Read from the
    player's tallies (app/db/tallies.py)."""
    player = await session.get(models.Player, player_id)
    if player is None:
        return None
    rows = await session.execute(_stats_statement(shows_private(player_id, viewer)),
                                 {"player": player_id})
    return PlayerStats(
        id=player.id, name=player.name, created_at=player.created_at,
        by_variant=[VariantStats(
            variant=variant, matches=n, wins=wins, points_for=pf, points_against=pa,
            contracts_made=made, contracts_failed=failed, contracts_hanging=hanging)
            for variant, n, wins, pf, pa, made, failed, hanging in rows])


def tallied(table: Any, private: bool) -> Any:
    """The player's (bound as ``player``) rows of a tally table, private ones if asked."""
    mine = table.player_id == bindparam("player")
    return mine if private else and_(mine, ~table.private)


@cache
def _stats_statement(private: bool) -> Rows:
    t = models.PlayerTally
    return (select(t.variant, *(func.sum(c) for c in (
                t.matches, t.wins, t.points_for, t.points_against, t.contracts_made,
                t.contracts_failed, t.contracts_hanging)))
            .where(tallied(t, private)).group_by(t.variant).order_by(t.variant))

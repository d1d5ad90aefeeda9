"""History reads for the REST API: match lists, one match, its record, a player's stats.

Lists page by a cursor on ``(started_at, id)``, newest first, so a page costs the same
at any depth and stays stable while new matches start (an offset would shift).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, and_, case, func, literal, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from engine.scoring import FAILED, HANGING, MADE

from . import models
from .models import UTCDateTime
from .repository import MatchLog, load_logs, row_result
from .schemas import (
    DealOut,
    MatchDetail,
    MatchPage,
    MatchSummary,
    PlayerStats,
    SeatOut,
    VariantStats,
)


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


def _filtered(f: MatchFilter) -> Select[models.Match]:
    m = models.Match
    stmt = select(m)
    if not shows_private(f.player, f.viewer):
        stmt = stmt.where(~m.private)
    if f.player is not None:
        seats = models.MatchSeat
        stmt = stmt.where(m.id.in_(select(seats.match_id).where(seats.player_id == f.player)))
    if f.variant is not None:
        stmt = stmt.where(m.variant == f.variant)
    if f.finished is not None:
        stmt = stmt.where(m.finished_at.is_not(None) if f.finished else m.finished_at.is_(None))
    if f.since is not None:
        stmt = stmt.where(m.started_at >= f.since)
    if f.until is not None:
        stmt = stmt.where(m.started_at < f.until)
    if f.cursor is not None:
        # A row-value comparison: both databases walk the index from the cursor on.
        stmt = stmt.where(tuple_(m.started_at, m.id) < tuple_(
            literal(f.cursor.started_at, UTCDateTime()), literal(f.cursor.id)
        ))
    return stmt.order_by(m.started_at.desc(), m.id.desc())


async def list_matches(session: AsyncSession, f: MatchFilter) -> MatchPage:
    """One page of matches, newest first, with their seats."""
    rows = list(await session.scalars(_filtered(f).limit(f.limit + 1)))
    page, more = rows[: f.limit], len(rows) > f.limit
    seats = await _seats(session, [m.id for m in page])
    items = [_summary(m, seats.get(m.id, [])) for m in page]
    last = page[-1] if more else None
    return MatchPage(
        items=items, next_cursor=Cursor(last.started_at, last.id).encode() if last else None
    )


async def _seats(session: AsyncSession, match_ids: Sequence[str]) -> dict[str, list[SeatOut]]:
    out: dict[str, list[SeatOut]] = {i: [] for i in match_ids}
    if match_ids:
        rows = await session.scalars(
            select(models.MatchSeat)
            .where(models.MatchSeat.match_id.in_(match_ids))
            .order_by(models.MatchSeat.match_id, models.MatchSeat.seat)
        )
        for s in rows:
            out[s.match_id].append(
                SeatOut(seat=s.seat, kind=s.kind, name=s.name, player_id=s.player_id,
                        level=s.level)
            )
    return out


def _summary(m: models.Match, seats: list[SeatOut]) -> MatchSummary:
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
        "finished_at": d.finished_at, **(result.to_dict() if result else {}),
    })


async def get_log(session: AsyncSession, match_id: str) -> MatchLog | None:
    """A match's log, from which its public record and replay are made (docs/storage.md)."""
    logs = await load_logs(session, [match_id])
    return logs[0] if logs else None


async def player_stats(
    session: AsyncSession, player_id: str, viewer: str | None = None
) -> PlayerStats | None:
    """A player's finished matches by variant: wins, points, own contracts; None if unknown.
    Private matches count only when the player asks (``viewer``)."""
    player = await session.get(models.Player, player_id)
    if player is None:
        return None
    m, s, d = models.Match, models.MatchSeat, models.Deal
    team = s.seat % 2
    own = case((team == 0, m.total0), else_=m.total1)
    other = case((team == 0, m.total1), else_=m.total0)
    mine = and_(s.player_id == player_id, m.finished_at.is_not(None))
    if not shows_private(player_id, viewer):
        mine = and_(mine, ~m.private)
    totals = await session.execute(
        select(
            m.variant,
            func.count(),
            func.sum(case((m.winner == team, 1), else_=0)),
            func.sum(own),
            func.sum(other),
        )
        .select_from(s)
        .join(m, m.id == s.match_id)
        .where(mine)
        .group_by(m.variant)
    )
    stats = {
        variant: VariantStats(
            variant=variant, matches=n, wins=wins, points_for=pf, points_against=pa,
            contracts_made=0, contracts_failed=0, contracts_hanging=0,
        )
        for variant, n, wins, pf, pa in totals
    }
    contracts = await session.execute(
        select(m.variant, d.outcome, func.count())
        .select_from(s)
        .join(m, m.id == s.match_id)
        .join(d, and_(d.match_id == s.match_id, d.bidder == s.seat))
        .where(mine, d.outcome.in_((MADE, FAILED, HANGING)))
        .group_by(m.variant, d.outcome)
    )
    field = {MADE: "contracts_made", FAILED: "contracts_failed", HANGING: "contracts_hanging"}
    for variant, outcome, n in contracts:
        setattr(stats[variant], field[str(outcome)], n)
    return PlayerStats(
        id=player.id, name=player.name, created_at=player.created_at,
        by_variant=[stats[v] for v in sorted(stats)],
    )

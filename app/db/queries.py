"""History reads for the REST API: match lists, one match, its record, a player's stats,
the leaderboard and a player's profile.

Lists page by a cursor on ``(started_at, id)``, newest first, so a page costs the same
at any depth and stays stable while new matches start (an offset would shift); the
leaderboard likewise on ``(value, id)``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, and_, case, func, literal, select, tuple_, union_all
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from engine.options import VARIANTS
from engine.scoring import FAILED, HANGING, MADE

from .. import ratings
from ..models import RatingView
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


# ------------------------------------------------------------------ the leaderboard

HISTORY = 200  # ratings after each match, per variant, in a profile
RECENT = 20  # matches in a profile



@dataclass(frozen=True, slots=True)
class BoardCursor:
    """Where a leaderboard page ends: the last row's value, id and rank."""

    value: int
    player_id: str
    rank: int

    def encode(self) -> str:
        raw = json.dumps([self.value, self.player_id, self.rank]).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str) -> BoardCursor:
        """ValueError for anything :meth:`encode` did not make."""
        try:
            value, player_id, rank = json.loads(
                base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        except (binascii.Error, ValueError, TypeError) as e:
            raise ValueError("bad cursor") from e
        if not (isinstance(value, int) and isinstance(player_id, str)
                and isinstance(rank, int) and rank >= 1):
            raise ValueError("bad cursor")
        return cls(value, player_id, rank)


@dataclass(frozen=True, slots=True)
class BoardRow:
    rank: int
    id: str
    name: str
    rating: RatingView
    wins: int


async def leaderboard(session: AsyncSession, variant: str, limit: int,
                      after: BoardCursor | None) -> tuple[list[BoardRow], BoardCursor | None]:
    """Ranked (not provisional) players of ``variant``, by value then id, both descending:
    one range of ``ix_ratings_board`` from the cursor on (keyset, never an offset)."""
    r, p = models.PlayerRating, models.Player
    stmt = (select(r.player_id, p.name, r.mu, r.sigma, r.matches, r.wins)
            .join(p, p.id == r.player_id)
            .where(r.variant == variant, r.ranked.is_(True)))
    if after is not None:
        stmt = stmt.where(tuple_(r.value, r.player_id)
                          < tuple_(literal(after.value), literal(after.player_id)))
    rows = (await session.execute(
        stmt.order_by(r.value.desc(), r.player_id.desc()).limit(limit + 1))).all()
    first = 1 if after is None else after.rank + 1
    board = [BoardRow(first + i, pid, name, RatingView.of(ratings.Rating(mu, sigma), n), wins)
             for i, (pid, name, mu, sigma, n, wins) in enumerate(rows[:limit])]
    last = board[-1] if len(rows) > limit else None
    return board, None if last is None else BoardCursor(last.rating.value, last.id, last.rank)


# ------------------------------------------------------------------ a profile


@dataclass(frozen=True, slots=True)
class Profile:
    id: str
    name: str
    account: bool
    since: float
    ratings: dict[str, RatingView | None]
    rank: dict[str, int | None]
    history: dict[str, list[dict[str, Any]]]
    stats: PlayerStats
    bots: dict[str, dict[str, dict[str, dict[str, int]]]]
    matches: list[MatchSummary]


async def profile(session: AsyncSession, player_id: str, viewer: str | None) -> Profile | None:
    """Everything a player's page shows; None if no such player.  Private matches count
    (stats, bots, matches) only when the player asks, as the stats route does."""
    p, a, r = models.Player, models.Account, models.PlayerRating
    # The player (kept in the session: player_stats gets it from there), whether it is
    # an account, and its ratings, in one query.
    found = (await session.execute(
        select(p, a.player_id, r).outerjoin(a, a.player_id == p.id)
        .outerjoin(r, r.player_id == p.id).where(p.id == player_id))).all()
    stats = await player_stats(session, player_id, viewer) if found else None
    if stats is None:
        return None
    rows = {row.variant: row for _, _, row in found if row is not None}
    views: dict[str, RatingView | None] = {
        v: None if v not in rows else
        RatingView.of(ratings.Rating(rows[v].mu, rows[v].sigma), rows[v].matches)
        for v in VARIANTS}
    ranks: dict[str, int | None] = dict.fromkeys(VARIANTS)
    if any(row.ranked for row in rows.values()):
        ranks.update(await _ranks(session, player_id))
    page = await list_matches(session, MatchFilter(
        player=player_id, limit=RECENT, viewer=viewer))
    history = await _history(session, player_id) if rows else {v: [] for v in VARIANTS}
    return Profile(
        id=player_id, name=stats.name, account=found[0][1] is not None,
        since=stats.created_at.timestamp(), ratings=views, rank=ranks,
        history=history, stats=stats,
        bots=await _bots(session, player_id, viewer), matches=page.items)


async def _ranks(session: AsyncSession, player_id: str) -> dict[str, int]:
    """The player's place on each board it is ranked on: one more than the ranked rows
    ahead of it (a count over the board's index range)."""
    me, other = aliased(models.PlayerRating), aliased(models.PlayerRating)
    rows = await session.execute(
        select(me.variant, func.count(other.player_id))
        .select_from(me)
        .outerjoin(other, and_(other.variant == me.variant, other.ranked.is_(True),
                               tuple_(other.value, other.player_id)
                               > tuple_(me.value, me.player_id)))
        .where(me.player_id == player_id, me.ranked.is_(True))
        .group_by(me.variant))
    return {variant: ahead + 1 for variant, ahead in rows}


async def _history(session: AsyncSession, player_id: str) -> dict[str, list[dict[str, Any]]]:
    """The rating after each of the last HISTORY rated matches per variant, oldest first:
    one bounded index range per variant, in one query."""
    h = models.RatingChange
    ranges = [select(h.variant, h.match_id, h.at, h.value, h.mu, h.sigma)
              .where(h.player_id == player_id, h.variant == variant)
              .order_by(h.at.desc(), h.match_id.desc()).limit(HISTORY).subquery()
              for variant in VARIANTS]
    rows = await session.execute(union_all(*(select(r) for r in ranges)))
    out: dict[str, list[dict[str, Any]]] = {v: [] for v in VARIANTS}
    for variant, match, at, value, mu, sigma in rows:
        out[variant].append({"match": match, "at": _aware(at).timestamp(), "value": value,
                             "mu": round(mu, 3), "sigma": round(sigma, 3)})
    for points in out.values():
        points.sort(key=lambda point: (point["at"], point["match"]))
    return out


def _aware(at: datetime | str) -> datetime:
    """A time read through a union, which leaves SQLite's text as it is: as UTC."""
    if isinstance(at, str):
        at = datetime.fromisoformat(at)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


async def _bots(session: AsyncSession, player_id: str,
                viewer: str | None) -> dict[str, dict[str, dict[str, dict[str, int]]]]:
    """Finished matches with a bot of each level as partner or opponent, and those won:
    a match counts once per level and side, however many such bots sat in it."""
    m = models.Match
    me, bot = aliased(models.MatchSeat), aliased(models.MatchSeat)
    team = me.seat % 2
    side = case((bot.seat % 2 == team, "with"), else_="against")
    mine = and_(me.player_id == player_id, m.finished_at.is_not(None))
    if not shows_private(player_id, viewer):
        mine = and_(mine, ~m.private)
    rows = await session.execute(
        select(m.variant, bot.level, side, func.count(func.distinct(m.id)),
               func.count(func.distinct(case((m.winner == team, m.id)))))
        .select_from(me)
        .join(m, m.id == me.match_id)
        .join(bot, and_(bot.match_id == me.match_id, bot.kind == "bot"))
        .where(mine)
        .group_by(m.variant, bot.level, side))
    out: dict[str, dict[str, dict[str, dict[str, int]]]] = {
        v: {level: {s: {"played": 0, "won": 0} for s in ("with", "against")}
            for level in ratings.BOT_RATINGS[v]} for v in VARIANTS}
    for variant, level, where, played, won in rows:
        if variant in out and level in out[variant]:
            out[variant][level][where] = {"played": played, "won": won}
    return out

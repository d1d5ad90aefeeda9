"""Ratings for everyone to read: the leaderboard of a variant and a player's profile.

The leaderboard pages by a cursor on ``(value, id)``, as match lists do on their start
(:mod:`.queries`).  The statements a profile runs are built once (``@cache``, their
values bound by name): building SQLAlchemy expressions costs more Python time than
running these short indexed queries, and a profile runs five or six of them
(docs/ratings.md).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

from sqlalchemy import and_, bindparam, func, literal, select, tuple_, union_all
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from engine.variants import VARIANTS

from .. import ratings
from ..models import RatingView
from . import models
from .queries import MatchFilter, Rows, list_matches, player_stats, shows_private, tallied
from .schemas import MatchSummary, PlayerStats

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
    # The player (kept in the session: player_stats gets it from there), whether it is
    # an account, and its ratings, in one query.
    found = (await session.execute(_player_statement(), {"player": player_id})).all()
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


@cache
def _player_statement() -> Rows:
    p, a, r = models.Player, models.Account, models.PlayerRating
    return (select(p, a.player_id, r).outerjoin(a, a.player_id == p.id)
            .outerjoin(r, r.player_id == p.id).where(p.id == bindparam("player")))


async def _ranks(session: AsyncSession, player_id: str) -> dict[str, int]:
    """The player's place on each board it is ranked on: one more than the ranked rows
    ahead of it (a count over the board's index range)."""
    rows = await session.execute(_ranks_statement(), {"player": player_id})
    return {variant: ahead + 1 for variant, ahead in rows}


@cache
def _ranks_statement() -> Rows:
    me, other = aliased(models.PlayerRating), aliased(models.PlayerRating)
    return (select(me.variant, func.count(other.player_id))
            .select_from(me)
            .outerjoin(other, and_(other.variant == me.variant, other.ranked.is_(True),
                                   tuple_(other.value, other.player_id)
                                   > tuple_(me.value, me.player_id)))
            .where(me.player_id == bindparam("player"), me.ranked.is_(True))
            .group_by(me.variant))


async def _history(session: AsyncSession, player_id: str) -> dict[str, list[dict[str, Any]]]:
    """The rating after each of the last HISTORY rated matches per variant, oldest first:
    one bounded index range per variant, in one query."""
    rows = await session.execute(_history_statement(), {"player": player_id})
    out: dict[str, list[dict[str, Any]]] = {v: [] for v in VARIANTS}
    for variant, match, at, value, mu, sigma in rows:
        out[variant].append({"match": match, "at": _aware(at).timestamp(), "value": value,
                             "estimate": ratings.estimate(ratings.Rating(mu, sigma)),
                             "mu": round(mu, 3), "sigma": round(sigma, 3)})
    for points in out.values():
        points.sort(key=lambda point: (point["at"], point["match"]))
    return out


@cache
def _history_statement() -> Any:
    h = models.RatingChange
    ranges = [select(h.variant, h.match_id, h.at, h.value, h.mu, h.sigma)
              .where(h.player_id == bindparam("player"), h.variant == variant)
              .order_by(h.at.desc(), h.match_id.desc()).limit(HISTORY).subquery()
              for variant in VARIANTS]
    return union_all(*(select(r) for r in ranges))


def _aware(at: datetime | str) -> datetime:
    """A time read through a union, which leaves SQLite's text as it is: as UTC."""
    if isinstance(at, str):
        at = datetime.fromisoformat(at)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


async def _bots(session: AsyncSession, player_id: str,
                viewer: str | None) -> dict[str, dict[str, dict[str, dict[str, int]]]]:
    """Finished matches with a bot of each level as partner or opponent, and those won:
    a match counts once per level and side, however many such bots sat in it (the
    player's tallies)."""
    rows = await session.execute(_bots_statement(shows_private(player_id, viewer)),
                                 {"player": player_id})
    out: dict[str, dict[str, dict[str, dict[str, int]]]] = {
        v: {level: {s: {"played": 0, "won": 0} for s in ("with", "against")}
            for level in ratings.BOT_RATINGS[v]} for v in VARIANTS}
    for variant, level, where, played, won in rows:
        if variant in out and level in out[variant]:
            out[variant][level][where] = {"played": played, "won": won}
    return out


@cache
def _bots_statement(private: bool) -> Rows:
    b = models.BotTally
    return (select(b.variant, b.level, b.side, func.sum(b.played), func.sum(b.won))
            .where(tallied(b, private)).group_by(b.variant, b.level, b.side))

"""Ratings in the database: the update at a rated match's end, inside the transaction
that closes the match, so that a match rates once whatever retries, restarts or
takeovers write its end again; and what tables read (a seat's rating, a match's rating
changes).  The leaderboard and profiles are read in :mod:`app.db.queries`
(docs/ratings.md, "On the server").
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import and_, select, update
from sqlalchemy import insert as insert_
from sqlalchemy.ext.asyncio import AsyncConnection

from .. import ratings
from ..matchlog import MatchEnd
from ..models import RatingChangeOut, RatingView
from ..vocabulary import EndReason
from . import models
from .session import Database

# ------------------------------------------------------------------ the update


def loser(end: MatchEnd, left: Iterable[int]) -> int | None:
    """The team that lost a finished match: the other one of a won match, the team that
    left of a forfeited or abandoned one; None when nobody can be blamed (an abandoned
    match whose leavers were on both teams, or on neither)."""
    if end.reason != EndReason.ABANDONED:
        return None if end.winner is None else 1 - end.winner
    teams = {seat % 2 for seat in left}
    return teams.pop() if len(teams) == 1 else None


async def rate_match(conn: AsyncConnection, match_id: str, end: MatchEnd, at: datetime,
                     insert: Any) -> None:
    """Rate a rated match that ``conn``'s transaction is closing (called once per match:
    by the write that set its end).  Each account seat's rating row is locked, updated,
    and its new value logged; bots count at their level's fixed rating and never move.
    ``insert``: the dialect's, with ``on_conflict_do_nothing``."""
    m, s = models.Match, models.MatchSeat
    variant, meta = (await conn.execute(select(m.variant, m.meta).where(m.id == match_id))).one()
    meta = meta or {}
    if not (meta.get("table") or {}).get("rated"):
        return
    lost = loser(end, meta.get("left", ()))
    if lost is None:
        return
    seats = (await conn.execute(select(s.seat, s.player_id, s.level)
                                .where(s.match_id == match_id).order_by(s.seat))).all()
    players = {seat: player for seat, player, _ in seats if player is not None}
    held = await _locked(conn, variant, players.values(), at, insert)
    before = {seat: held[player][0] if player in held else
              ratings.bot_rating(variant, level) if level is not None else ratings.NEW
              for seat, player, level in seats}
    teams = ((before[0], before[2]), (before[1], before[3]))
    after = (ratings.rate(teams, winner=1 - lost) if end.reason == EndReason.WON
             else ratings.forfeit(teams, left=lost))
    for seat, player in players.items():
        new = after[seat % 2][seat // 2]
        _, matches, wins = held[player]
        matches += 1
        r = models.PlayerRating
        await conn.execute(
            update(r)
            .where(r.player_id == player, r.variant == variant)
            .values(mu=new.mu, sigma=new.sigma, value=ratings.display(new), matches=matches,
                    wins=wins + (seat % 2 != lost), updated_at=at,
                    ranked=not ratings.provisional(new, matches)))
        await conn.execute(insert_(models.RatingChange).values(
            match_id=match_id, player_id=player, variant=variant, seat=seat,
            mu_before=before[seat].mu, sigma_before=before[seat].sigma, mu=new.mu,
            sigma=new.sigma, value=ratings.display(new), matches=matches, at=at))


async def _locked(conn: AsyncConnection, variant: str, players: Iterable[str],
                  at: datetime, insert: Any) -> dict[str, tuple[ratings.Rating, int, int]]:
    """Each player's rating row in ``variant`` (made at NEW if missing), locked until the
    transaction ends: two matches of one player ending at once rate one after the other."""
    r = models.PlayerRating
    ids = sorted(set(players))
    if not ids:
        return {}
    new = ratings.NEW
    await conn.execute(insert(r).values([
        {"player_id": p, "variant": variant, "mu": new.mu, "sigma": new.sigma,
         "value": ratings.display(new), "matches": 0, "wins": 0, "ranked": False,
         "updated_at": at} for p in ids]).on_conflict_do_nothing())
    rows = await conn.execute(
        select(r.player_id, r.mu, r.sigma, r.matches, r.wins)
        .where(r.player_id.in_(ids), r.variant == variant)
        .order_by(r.player_id).with_for_update())
    return {p: (ratings.Rating(mu, sigma), matches, wins) for p, mu, sigma, matches, wins in rows}


# ------------------------------------------------------------------ what tables show


class RatingStore:
    """What a table reads: a seat's rating (and whether its player is an account), and
    a finished match's rating changes."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def seat(self, player_id: str, variant: str) -> RatingView | None:
        """The player's rating in ``variant`` (a new player's if unrated); None for a
        guest (no account).  StorageError (or StorageUnavailable) if it cannot be read."""
        a, r = models.Account, models.PlayerRating
        async with self.db.read() as session:
            row = (await session.execute(
                select(a.player_id, r.mu, r.sigma, r.matches).select_from(a)
                .outerjoin(r, and_(r.player_id == a.player_id, r.variant == variant))
                .where(a.player_id == player_id))).first()
        if row is None:
            return None
        _, mu, sigma, matches = row
        return (RatingView.of(ratings.NEW, 0) if mu is None
                else RatingView.of(ratings.Rating(mu, sigma), matches))

    async def changes(self, match_id: str) -> list[RatingChangeOut]:
        """Each account seat's rating before and after the match, by seat ([] if unrated)."""
        h = models.RatingChange
        async with self.db.read() as session:
            rows = await session.scalars(select(h).where(h.match_id == match_id)
                                         .order_by(h.seat))
            return [change_out(row) for row in rows]


def change_out(row: models.RatingChange) -> RatingChangeOut:
    before = ratings.Rating(row.mu_before, row.sigma_before)
    return RatingChangeOut(seat=row.seat, player=row.player_id,
                           before=RatingView.of(before, row.matches - 1),
                           after=RatingView.of(ratings.Rating(row.mu, row.sigma), row.matches))

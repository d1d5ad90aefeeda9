"""Ratings in the database: the update at a rated match's end, inside the transaction
that closes the match, so that a match rates once whatever retries, restarts or
takeovers write its end again; what tables read (a seat's rating, a match's rating
changes); and the accounts an operator should look at.  The leaderboard and profiles are
read in :mod:`app.db.players` (docs/ratings.md, "On the server" and "Integrity").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, func, select, update
from sqlalchemy import insert as insert_
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import aliased

from .. import integrity, ratings
from ..models import RatingChangeOut, RatingView
from ..vocabulary import Actor
from . import models
from .match_end import MatchEnded
from .session import Database, dialect_insert

# ------------------------------------------------------------------ the update


async def rate_match(conn: AsyncConnection, ended: MatchEnded) -> None:
    """Rate a rated match that ``conn``'s transaction is closing (a subscriber to its end:
    :mod:`app.db.match_end`), by the rules of :mod:`app.integrity`: who is blamed, who
    really played, how often its opposing accounts met today.  Each account seat's rating
    row is locked; the counts of wins of the winners it rates grow even when repeats damp
    the match to nothing (the operator's flag reads them), but such a match is not counted
    as a rated match; each rating that moves is updated and its new value logged.  Bots
    count at their level's fixed rating and never move."""
    if not ended.rated:
        return
    end, match_id, variant, at = ended.end, ended.match_id, ended.variant, ended.finished_at
    judged = integrity.verdict(end.reason, end.winner, ended.left,
                               None if end.forfeit is None else end.forfeit.seat)
    if judged is None:
        return
    players = {i: seat.player_id for i, seat in enumerate(ended.seats)
               if seat.player_id is not None}
    held = await _locked(conn, variant, players.values(), at)
    rated = integrity.rated_seats(judged, players, await _own_actions(conn, match_id),
                                  first_deal=await _deals(conn, match_id) <= 1)
    if not rated:
        return
    await _count_wins(conn, variant, [players[seat] for seat in judged.winning
                                      if seat in players and seat in rated], judged.walkover)
    factor = integrity.repeat_factor(await _met(conn, variant, players, at))
    if factor == 0:
        return
    before = {i: held[players[i]][0] if i in players else
              ratings.bot_rating(variant, seat.level) if seat.level is not None else ratings.NEW
              for i, seat in enumerate(ended.seats)}
    teams = ((before[0], before[2]), (before[1], before[3]))
    after = integrity.settle(teams, judged, rated, factor)
    r = models.PlayerRating
    for seat, new in after.items():
        player = players.get(seat)
        if player is None:
            continue
        _, matches, wins = held[player]
        matches += 1
        won = seat in judged.winning
        await conn.execute(
            update(r)
            .where(r.player_id == player, r.variant == variant)
            .values(mu=new.mu, sigma=new.sigma, value=ratings.display(new), matches=matches,
                    wins=wins + won, updated_at=at,
                    ranked=not ratings.provisional(new, matches)))
        await conn.execute(insert_(models.RatingChange).values(
            match_id=match_id, player_id=player, variant=variant, seat=seat,
            mu_before=before[seat].mu, sigma_before=before[seat].sigma, mu=new.mu,
            sigma=new.sigma, value=ratings.display(new), matches=matches, at=at))


async def _own_actions(conn: AsyncConnection, match_id: str) -> dict[int, int]:
    """How many of the match's actions each seat's human chose by themselves."""
    a = models.Action
    rows = await conn.execute(
        select(a.seat, func.count()).where(a.match_id == match_id, a.actor == Actor.PLAYER)
        .group_by(a.seat))
    return {seat: count for seat, count in rows}


async def _deals(conn: AsyncConnection, match_id: str) -> int:
    """How many deals the match started."""
    return await conn.scalar(select(func.count()).select_from(models.Deal)
                             .where(models.Deal.match_id == match_id)) or 0


async def _met(conn: AsyncConnection, variant: str, players: dict[int, str],
               at: datetime) -> int:
    """The most rated matches of ``variant`` any two of these opposing accounts played
    against each other within the repeat window before ``at``."""
    sides = [[p for seat, p in players.items() if seat % 2 == team] for team in (0, 1)]
    if not all(sides):
        return 0
    h, other = models.RatingChange, aliased(models.RatingChange)
    since = at - timedelta(seconds=integrity.REPEAT_WINDOW_SECONDS)
    counts = await conn.scalars(
        select(func.count()).select_from(h)
        .join(other, other.match_id == h.match_id)
        .where(h.player_id.in_(sides[0]), h.variant == variant, h.at > since,
               other.player_id.in_(sides[1]), (h.seat + other.seat) % 2 == 1)
        .group_by(h.player_id, other.player_id))
    return max(counts, default=0)


async def _count_wins(conn: AsyncConnection, variant: str, winners: list[str],
                      walkover: bool) -> None:
    """The winners' wins at rated tables, counted whether or not repeats damp the match's
    change to nothing (the operator's flag reads them: app/integrity.py, ``flagged``)."""
    if not winners:
        return
    r = models.PlayerRating
    await conn.execute(
        update(r).where(r.player_id.in_(winners), r.variant == variant)
        .values(table_wins=r.table_wins + 1, forfeit_wins=r.forfeit_wins + int(walkover)))


async def _locked(conn: AsyncConnection, variant: str, players: Iterable[str],
                  at: datetime) -> dict[str, tuple[ratings.Rating, int, int]]:
    """Each player's rating row in ``variant`` (made at NEW if missing), locked until the
    transaction ends: two matches of one player ending at once rate one after the other."""
    r = models.PlayerRating
    ids = sorted(set(players))
    if not ids:
        return {}
    new = ratings.NEW
    await conn.execute(dialect_insert(conn)(r).values([
        {"player_id": p, "variant": variant, "mu": new.mu, "sigma": new.sigma,
         "value": ratings.display(new), "matches": 0, "wins": 0, "ranked": False,
         "updated_at": at} for p in ids]).on_conflict_do_nothing())
    rows = await conn.execute(
        select(r.player_id, r.mu, r.sigma, r.matches, r.wins)
        .where(r.player_id.in_(ids), r.variant == variant)
        .order_by(r.player_id).with_for_update())
    return {p: (ratings.Rating(mu, sigma), matches, wins) for p, mu, sigma, matches, wins in rows}


# ------------------------------------------------------------------ for the operator


@dataclass(frozen=True, slots=True)
class FlaggedAccount:
    """An account whose wins at rated tables in a variant are mostly walkovers."""

    player_id: str
    name: str
    variant: str
    forfeit_wins: int  # wins the other team gave by leaving or timing out
    table_wins: int  # every win at a rated table, whether or not it moved the rating
    matches: int  # rated matches that moved (or could have moved) the rating
    value: int  # the rating shown


async def flagged_accounts(db: Database, variant: str | None = None) -> list[FlaggedAccount]:
    """The accounts :func:`app.integrity.flagged` picks out, most walkovers first."""
    r, a = models.PlayerRating, models.Account
    query = (select(r.player_id, a.username, r.variant, r.forfeit_wins, r.table_wins,
                    r.matches, r.value)
             .join(a, a.player_id == r.player_id)
             .where(r.forfeit_wins >= integrity.FLAG_MIN_FORFEIT_WINS)
             .order_by(r.forfeit_wins.desc(), r.player_id, r.variant))
    if variant is not None:
        query = query.where(r.variant == variant)
    async with db.read() as session:
        rows = (await session.execute(query)).all()
    return [FlaggedAccount(*row) for row in rows if integrity.flagged(row[3], row[4])]


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

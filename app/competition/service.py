"""What the tournament routes do, between the request and the rows: a new tournament's
checks, an entry's members, and a tournament as the API shows it."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

from ai import Level
from engine import Options

from ..accounts.service import Caller
from ..db import accounts as account_rows
from ..db import models
from ..db.session import Database
from ..db.tournaments import RoundTable
from ..errors import ErrorCode
from ..sections import TableSettings
from . import store
from .director import bot_member
from .models import (
    EntryCreate,
    EntryOut,
    Format,
    Member,
    RoundTableOut,
    StandingOut,
    Status,
    Teams,
    TournamentCreate,
    TournamentOut,
)
from .standings import standings
from .store import Refused


async def create(db: Database, caller: Caller, body: TournamentCreate,
                 settings: TableSettings) -> str:
    """A new tournament directed by ``caller`` (an account); its id."""
    if caller.kind != "account":
        raise Refused(ErrorCode.ACCOUNT_REQUIRED, "tournaments are made by accounts")
    try:
        options = Options.for_room(body.variant, **body.options)
    except ValueError as exc:
        raise Refused(ErrorCode.BAD_OPTIONS, str(exc)) from None
    if body.format == Format.DUPLICATE and not options.reshuffle_each_deal:
        raise Refused(ErrorCode.DUPLICATE_NEEDS_SHUFFLE, "duplicate deals shuffled decks")
    at = datetime.now(UTC)
    if body.starts_at is not None and (body.starts_at.tzinfo is None or body.starts_at <= at):
        raise Refused(ErrorCode.BAD_START, "starts_at needs a timezone and a time to come")
    turn = body.turn_seconds or settings.turn_seconds(body.rated)
    if body.rated and turn < settings.rated_min_turn_seconds:
        raise Refused(ErrorCode.RATED_TURN_TOO_SHORT, "a rated tournament's turns last at "
                      f"least {settings.rated_min_turn_seconds:g} seconds")
    tournament_id = secrets.token_urlsafe(9)
    await store.create(db, {
        "id": tournament_id, "name": body.name, "variant": body.variant.value,
        "options": options.changed(), "format": body.format.value, "teams": body.teams.value,
        "rounds": body.rounds, "rated": body.rated, "turn_seconds": turn,
        "round_seconds": body.round_minutes * 60, "max_entries": body.max_entries,
        "bot_level": body.bot_level.value, "director": caller.player.id,
        "director_name": caller.player.name, "status": Status.UPCOMING.value, "round": 0,
        "starts_at": body.starts_at, "created_at": at})
    return tournament_id


async def enter(db: Database, caller: Caller, tournament_id: str, body: EntryCreate) -> int:
    """The caller's entry (with a partner, or a bot partner for a fixed pair), or the
    director's bot entry."""
    loaded = await _loaded(db, tournament_id)
    t = loaded.tournament
    pairs = t.teams == Teams.FIXED
    if body.bot is not None:
        if body.partner is not None:
            raise Refused(ErrorCode.BAD_ENTRY, "an entry is a bot or has a partner, not both")
        return await store.enter(db, tournament_id, [bot_member(body.bot.value)] *
                                 (2 if pairs else 1), (), director=caller.player.id)
    if t.rated and caller.kind != "account":
        raise Refused(ErrorCode.ACCOUNT_REQUIRED, "a rated tournament takes accounts only")
    me: dict[str, Any] = {"player_id": caller.player.id, "name": caller.player.name}
    if not pairs:
        if body.partner is not None:
            raise Refused(ErrorCode.BAD_ENTRY, "partners rotate: an entry is one player")
        return await store.enter(db, tournament_id, [me], [caller.player.id])
    if body.partner is None:
        return await store.enter(db, tournament_id, [me, bot_member(t.bot_level)],
                                 [caller.player.id])
    if body.partner == caller.player.id:
        raise Refused(ErrorCode.BAD_ENTRY, "a partner is someone else")
    partner = await _partner(db, body.partner, t.rated)
    return await store.enter(db, tournament_id, [me, partner],
                             [caller.player.id, body.partner])


async def _partner(db: Database, player_id: str, rated: bool) -> dict[str, Any]:
    """A partner as an entry's member: a known player (an account for a rated one)."""
    account = await account_rows.account_of(db, player_id)
    if account is not None:
        return {"player_id": player_id, "name": account.username}
    async with db.read() as session:
        player = await session.get(models.Player, player_id)
    if player is None or rated:
        raise Refused(ErrorCode.PLAYER_NOT_FOUND if player is None else
                      ErrorCode.ACCOUNT_REQUIRED, f"no such partner {player_id!r}"
                      if player is None else "a rated tournament takes accounts only")
    return {"player_id": player_id, "name": player.name}


async def _loaded(db: Database, tournament_id: str) -> store.Loaded:
    loaded = await store.load(db, tournament_id)
    if loaded is None:
        raise Refused(ErrorCode.NO_TOURNAMENT, f"no tournament {tournament_id!r}")
    return loaded


async def shown(db: Database, tournament_id: str) -> TournamentOut:
    """The tournament as ``GET /api/tournaments/{id}`` answers it, standings live."""
    loaded = await _loaded(db, tournament_id)
    t = loaded.tournament
    lines = standings([e.entry for e in loaded.entries], loaded.played(),
                      t.format == Format.DUPLICATE)
    return TournamentOut(
        id=t.id, name=t.name, variant=t.variant, options=t.options, format=Format(t.format),
        teams=Teams(t.teams), rated=t.rated, status=Status(t.status), round=t.round,
        rounds=t.rounds, round_ends_at=t.round_ends_at, starts_at=t.starts_at,
        max_entries=t.max_entries, turn_seconds=t.turn_seconds,
        round_minutes=t.round_seconds // 60, bot_level=Level(t.bot_level), director=t.director,
        director_name=t.director_name, created_at=t.created_at, finished_at=t.finished_at,
        entries=[EntryOut(entry=e.entry, members=[Member(**m) for m in e.members],
                          withdrawn=e.withdrawn) for e in loaded.entries],
        tables=[_table(rt) for rt in loaded.tables],
        standings=[StandingOut(rank=line.rank, entry=line.entry, points=line.points,
                               played=line.played, wins=line.wins, diff=line.diff,
                               field=round(line.field_score, 1)) for line in lines])


def _table(rt: RoundTable) -> RoundTableOut:
    status = "over" if rt.ended_at else "playing" if rt.table_id else "waiting"
    return RoundTableOut(round=rt.round, index=rt.idx, id=rt.table_id, seats=rt.seats,
                         status=status, totals=[rt.total0, rt.total1], winner=rt.winner,
                         reason=rt.reason, left=rt.left)

"""Match history: lists, one match, its record and replay, a player's stats.  Queries live in
:mod:`app.db.queries`; this module only reads parameters and maps "not found" to 404."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from sqlalchemy.ext.asyncio import AsyncSession

from engine.variants import VARIANTS

from ...competition.store import check_shown
from ...db import queries
from ...db.match_log import MatchLog
from ...db.schemas import MatchDetail, MatchPage, PlayerStats
from ...db.session import StorageUnavailable
from ...errors import ErrorCode
from ...replays import MatchReplay, match_replay
from ..deps import DatabaseDep, ViewerDep
from ..errors import ApiError, error_responses


async def get_session(database: DatabaseDep) -> AsyncIterator[AsyncSession]:
    """A session for one request; a database that cannot be reached answers 503."""
    try:
        async with database.read() as session:
            yield session
    except StorageUnavailable:
        raise ApiError(ErrorCode.STORAGE_UNAVAILABLE,
                       "the match history is unavailable, try again later") from None


SessionDep = Annotated[AsyncSession, Depends(get_session)]

_errors = error_responses({
    404: "No such match or player",
    422: "A bad filter or cursor",
    503: "The database is unavailable",
})
router = APIRouter(prefix="/api", tags=["history"], responses=_errors)


@router.get("/matches")
async def list_matches(
    session: SessionDep,
    viewer: ViewerDep,
    player: Annotated[str | None, Query(max_length=64, description="A player's id.")] = None,
    variant: Annotated[str | None, Query(pattern=f"^({'|'.join(VARIANTS)})$")] = None,
    finished: Annotated[bool | None, Query(description="Only finished, or only on.")] = None,
    since: Annotated[datetime | None, Query(description="Started at or after.")] = None,
    until: Annotated[datetime | None, Query(description="Started before.")] = None,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> MatchPage:
    """Matches newest first; follow ``next_cursor`` for older ones.  Private matches are
    left out, except from ``player``'s own list asked for with that player's token."""
    for name, at in (("since", since), ("until", until)):
        if at is not None and at.tzinfo is None:
            raise ApiError(ErrorCode.BAD_FILTER, f"{name} needs a timezone (e.g. Z)")
    if since is not None and until is not None and since > until:
        raise ApiError(ErrorCode.BAD_FILTER, "since is after until")
    try:
        after = None if cursor is None else queries.Cursor.decode(cursor)
    except ValueError:
        raise ApiError(ErrorCode.BAD_CURSOR, "cursor is not one this server gave") from None
    f = queries.MatchFilter(player, variant, finished, since, until, after, limit,
                            viewer=viewer.id if viewer else None)
    return await queries.list_matches(session, f)


@router.get("/matches/{match_id}")
async def get_match(session: SessionDep, match_id: str) -> MatchDetail:
    """A match with its seats, every deal's result and the totals."""
    detail = await queries.get_match(session, match_id)
    if detail is None:
        raise ApiError(ErrorCode.MATCH_NOT_FOUND, f"no match {match_id!r}")
    return detail


@router.get("/matches/{match_id}/record")
async def get_record(session: SessionDep, match_id: str) -> dict[str, Any]:
    """The ``belote-record/1`` document; a deal still in progress is left out, and in a
    cut-only match so are the thrown-in deals it is cut from (docs/storage.md)."""
    return (await _log(session, match_id)).record(public=True)


@router.get("/matches/{match_id}/replay")
async def get_replay(session: SessionDep, match_id: str) -> MatchReplay:
    """Every deal of the record route's record as frames (hands, auction, tricks with
    winners, announcements, result, running totals), worked out by the engine from it."""
    log = await _log(session, match_id)
    return match_replay(match_id, log.seats, log.replay(public=True))


async def _log(session: AsyncSession, match_id: str) -> MatchLog:
    await check_shown(session, match_id)  # a duplicate round's decks wait for its end
    log = await queries.get_log(session, match_id)
    if log is None:
        raise ApiError(ErrorCode.MATCH_NOT_FOUND, f"no match {match_id!r}")
    return log


@router.get("/players/{player_id}/stats")
async def player_stats(session: SessionDep, viewer: ViewerDep, player_id: str) -> PlayerStats:
    """A player's finished matches by variant: wins, points, contracts made and failed
    (private matches only for the player's own token)."""
    stats = await queries.player_stats(session, player_id, viewer.id if viewer else None)
    if stats is None:
        raise ApiError(ErrorCode.PLAYER_NOT_FOUND, f"no player {player_id!r}")
    return stats

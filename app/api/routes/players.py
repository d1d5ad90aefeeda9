"""Ratings for everyone to read: the leaderboard of a variant and a player's profile.
The queries are :mod:`app.db.players`'; this module reads parameters and maps misses."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from engine.variants import DEFAULT_VARIANT, Variant

from ...competition.seasons import divisions
from ...db import players
from ...db.schemas import MatchSummary, PlayerStats
from ...errors import ErrorCode
from ...models import RatingView
from ..deps import CommunityDep, ViewerDep
from ..errors import ApiError, error_responses
from .history import SessionDep

router = APIRouter(prefix="/api", tags=["players"], responses=error_responses({
    404: "No such player (`player_not_found`)",
    422: "A bad variant, limit or cursor (`bad_cursor`)",
    503: "The database is unavailable"}))


class BoardEntry(BaseModel):
    rank: int = Field(description="Place on the board, from 1 (ties ordered by id).")
    id: str
    name: str
    rating: RatingView
    wins: int = Field(description="Rated matches won in the variant.")


class Leaderboard(BaseModel):
    variant: str
    players: list[BoardEntry]
    next: str | None = Field(description="Pass as `cursor` for the next page; null on the last.")


class HistoryPoint(BaseModel):
    match: str
    at: float = Field(description="Epoch seconds.")
    value: int = Field(description="The conservative value after the match (as ranked).")
    estimate: int = Field(description="The rating shown after the match (RatingView).")
    mu: float
    sigma: float


class SideRecord(BaseModel):
    played: int
    won: int


class ReputationOut(BaseModel):
    value: int = Field(description="0 to 100; 100 for a new player (docs/community.md).")
    finished: int = Field(description="Matches finished at their seat.")
    left: int = Field(description="Matches left, or played mostly by the timer.")


class PlayerProfile(BaseModel):
    id: str
    name: str
    account: bool
    since: float = Field(description="When the player first appeared (epoch seconds).")
    ratings: dict[str, RatingView | None] = Field(description="By variant; null if unrated.")
    rank: dict[str, int | None] = Field(description="Leaderboard place; null if provisional.")
    history: dict[str, list[HistoryPoint]] = Field(
        description="The rating after each rated match, oldest first, the last 200.")
    stats: PlayerStats
    bots: dict[str, dict[str, dict[str, SideRecord]]] = Field(
        description="By variant and bot level: matches with such a bot as partner "
        "(`with`) or opponent (`against`), and those won.")
    matches: list[MatchSummary] = Field(description="The last 20, newest first.")
    divisions: dict[str, int] = Field(
        default_factory=dict, description="By variant: the league division of the current "
        "season, 1 the top (docs/tournaments.md, \"Leagues\"); absent before a first "
        "rated match of the season.")
    reputation: ReputationOut


@router.get("/leaderboard")
async def leaderboard(
    session: SessionDep,
    variant: Variant = DEFAULT_VARIANT,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
) -> Leaderboard:
    """Players past the provisional stage, by rating (the conservative value) then id,
    a page at a time; follow ``next``."""
    try:
        after = None if cursor is None else players.BoardCursor.decode(cursor)
    except ValueError:
        raise ApiError(ErrorCode.BAD_CURSOR,
                       "cursor is malformed: pass a `next` as it came") from None
    rows, last = await players.leaderboard(session, variant.value, limit, after)
    return Leaderboard(
        variant=variant.value,
        players=[BoardEntry(rank=r.rank, id=r.id, name=r.name, rating=r.rating, wins=r.wins)
                 for r in rows],
        next=None if last is None else last.encode())


@router.get("/players/{player_id}")
async def player_profile(session: SessionDep, viewer: ViewerDep, community: CommunityDep,
                         player_id: Annotated[str, Path(max_length=64)]) -> PlayerProfile:
    """A player's page: ratings, ranks, rating history, stats, record with and against
    each bot level, last matches (private matches only for the player's own token)."""
    found = await players.profile(session, player_id, viewer.id if viewer else None)
    if found is None:
        raise ApiError(ErrorCode.PLAYER_NOT_FOUND,
                       f"no player {player_id!r}")
    reputation = await community.reputation(player_id)
    return PlayerProfile.model_validate(
        {f.name: getattr(found, f.name) for f in dataclasses.fields(found)}
        | {"divisions": await divisions(session, player_id)}
        | {"reputation": ReputationOut(value=reputation.value, finished=reputation.finished,
                                       left=reputation.left)})

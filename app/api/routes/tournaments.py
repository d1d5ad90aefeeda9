"""Tournaments (docs/tournaments.md): each route reads its parameters and hands them to
:mod:`app.competition.service` or :mod:`app.competition.store`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import APIRouter, Query, Response, status

from ...competition import service, store
from ...competition.models import (
    EntryCreate,
    Format,
    Status,
    Teams,
    TournamentCreate,
    TournamentOut,
    TournamentPage,
    TournamentSummary,
)
from ...db.session import StorageError
from ...errors import ErrorCode
from ..deps import CallerDep, DatabaseDep, TableSettingsDep
from ..errors import ApiError, error_responses

_errors = error_responses({
    401: "Missing or invalid token",
    403: "Not the director, or a guest where an account is needed",
    404: "No such tournament, player or entry",
    409: "The tournament's state does not allow it",
    422: "A value the route does not take",
    503: "The database is unavailable",
})
router = APIRouter(prefix="/tournaments", tags=["tournaments"], responses=_errors)
PAGE = 20


@contextmanager
def answering() -> Iterator[None]:
    """A database that fails answers 503 (a refusal of the tournament's own, its code)."""
    try:
        yield
    except StorageError:
        raise ApiError(ErrorCode.STORAGE_UNAVAILABLE,
                       "tournaments are unavailable, try again later") from None


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_tournament(body: TournamentCreate, caller: CallerDep, db: DatabaseDep,
                            settings: TableSettingsDep) -> TournamentOut:
    """A new tournament, directed by its creator (an account)."""
    with answering():
        return await service.shown(db, await service.create(db, caller, body, settings))


@router.get("")
async def list_tournaments(
    db: DatabaseDep,
    state: Annotated[Status | None, Query(alias="status")] = None,
    cursor: Annotated[int, Query(ge=0, le=100_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = PAGE,
) -> TournamentPage:
    """Tournaments newest first, of one status if asked (upcoming, running, finished)."""
    with answering():
        rows, more = await store.page(db, state, cursor, limit)
    return TournamentPage(
        tournaments=[TournamentSummary(
            id=t.id, name=t.name, variant=t.variant, format=Format(t.format),
            teams=Teams(t.teams), rated=t.rated, status=Status(t.status), round=t.round,
            rounds=t.rounds, entries=count, max_entries=t.max_entries, starts_at=t.starts_at,
            created_at=t.created_at)
            for t, count in rows],
        next_cursor=cursor + limit if more else None)


@router.get("/{tournament_id}")
async def get_tournament(tournament_id: str, db: DatabaseDep) -> TournamentOut:
    """The tournament: entries, every round's tables, the standings as they are now."""
    with answering():
        return await service.shown(db, tournament_id)


@router.post("/{tournament_id}/entries", status_code=status.HTTP_201_CREATED)
async def enter(tournament_id: str, body: EntryCreate, caller: CallerDep,
                db: DatabaseDep) -> TournamentOut:
    """Join (alone, or with ``partner``), or (the director) add a ``bot`` entry."""
    with answering():
        await service.enter(db, caller, tournament_id, body)
        return await service.shown(db, tournament_id)


@router.delete("/{tournament_id}/entries", status_code=status.HTTP_204_NO_CONTENT)
async def withdraw(tournament_id: str, caller: CallerDep, db: DatabaseDep) -> Response:
    """Withdraw the caller's entry (with its partner): gone before the start, paired no
    more after it."""
    with answering():
        await store.withdraw(db, tournament_id, caller.player.id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{tournament_id}/start")
async def start(tournament_id: str, caller: CallerDep, db: DatabaseDep) -> TournamentOut:
    """Start now (the director): the first round is paired and seated within a second."""
    with answering():
        await store.start(db, tournament_id, caller.player.id)
        return await service.shown(db, tournament_id)

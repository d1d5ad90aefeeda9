"""Problems from one's own mistakes (issue #35): the caller's own and a public set, each a
position to solve; an attempt answers whether it was right, with the analysis's answer and
its reason, and is counted for the caller (docs/protocol.md, "Problems").  A problem is
made when its match's analysis is done (app/problems.py); this module maps the store to
HTTP.  Before the attempt a problem shows only the seat's view and its choices."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from ... import problems
from ...db import problems as store
from ...db.problems import NO_TRIES, ProblemRow, Tries
from ...errors import ErrorCode
from ...storage import StorageUnavailable
from ..deps import DatabaseDep, PlayerDep, ViewerDep
from ..errors import ApiError, error_responses

router = APIRouter(prefix="/api", tags=["problems"], responses=error_responses({
    404: "No such problem the caller may see (`problem_not_found`)",
    422: "A value the route does not take; an action not among the options "
         "(`not_an_option`)",
    503: "The database is unavailable (`storage_unavailable`)"}))
ProblemId = Annotated[str, Path(max_length=16)]
Limit = Annotated[int, Query(ge=1, le=50)]
Offset = Annotated[int, Query(ge=0, le=10_000)]


class Problem(BaseModel):
    id: str
    kind: str = Field(description="`card` or `bid`: what to find.")
    variant: str
    deal: int = Field(description="The deal's place in its match, from 0.")
    seat: int
    position: dict[str, Any] = Field(
        description="The seat's view then, as a table sends it to that seat (without the "
        "last deal's trick and announcements), and the table's `table_direction`.")
    options: list[str] = Field(description="The choices: its legal cards, or calls.")
    played_at: str = Field(description="When its match ended.")
    attempts: int = Field(description="The caller's attempts (0 without a token).")
    solved: bool = Field(description="Whether one of them was right.")


class ProblemPage(BaseModel):
    problems: list[Problem]
    next_offset: int | None = Field(description="The next page's `offset`; null: the last.")


class Attempt(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: str = Field(max_length=32, description="One of the problem's `options`.")


class Choice(BaseModel):
    action: str
    value: float = Field(description="Its value in the analysis (`unit`).")
    loss: float = Field(description="What it gives up to the best value.")


class Answer(BaseModel):
    right: bool
    action: str
    loss: float | None = Field(description="The action's loss; null: a call the "
                               "analysis did not value (beyond the best it lists).")
    best: str
    played: str = Field(description="What was played: the mistake.")
    played_loss: float = Field(description="The analysis's loss for what was played.")
    grade: str
    unit: str | None = Field(description="The values' unit, when the analysis names one "
                             "(docs/analysis.md: card points of the deal's score lead).")
    choices: list[Choice] = Field(description="The reason: every valued choice, best first.")
    match_id: str = Field(description="Its match, to replay it now that it is solved.")
    attempts: int
    solved: bool


def problem_view(row: ProblemRow, tries: Tries) -> Problem:
    return Problem(id=row.id, kind=row.kind, variant=row.variant, deal=row.deal,
                   seat=row.seat, position=row.position, options=row.answer["options"],
                   played_at=row.played_at.isoformat(), attempts=tries.attempts,
                   solved=tries.solved)


async def _page(database: DatabaseDep, player_id: str | None, viewer: str | None,
                limit: int, offset: int) -> ProblemPage:
    try:
        rows = await store.page(database, player_id=player_id, limit=limit + 1,
                                offset=offset)
        tries = {} if viewer is None else await store.tries(
            database, viewer, [r.id for r in rows[:limit]])
    except StorageUnavailable:
        raise _unavailable() from None
    return ProblemPage(
        problems=[problem_view(r, tries.get(r.id, NO_TRIES)) for r in rows[:limit]],
        next_offset=offset + limit if len(rows) > limit else None)


@router.get("/me/problems")
async def my_problems(player: PlayerDep, database: DatabaseDep, limit: Limit = 20,
                      offset: Offset = 0) -> ProblemPage:
    """The caller's own problems, newest first: its analysed decisions that lost at
    least a mistake's worth."""
    return await _page(database, player.id, player.id, limit, offset)


@router.get("/problems")
async def public_problems(viewer: ViewerDep, database: DatabaseDep, limit: Limit = 20,
                          offset: Offset = 0) -> ProblemPage:
    """The public set, newest first: bots' mistakes in analysed matches that are not
    private.  With a token, the caller's attempts at each."""
    return await _page(database, None, viewer.id if viewer else None, limit, offset)


@router.get("/problems/{problem_id}")
async def get_problem(problem_id: ProblemId, viewer: ViewerDep,
                      database: DatabaseDep) -> Problem:
    """One problem: a public one, or the caller's own."""
    row = await _visible(database, problem_id, viewer.id if viewer else None)
    try:
        tries = NO_TRIES if viewer is None else (
            await store.tries(database, viewer.id, [row.id])).get(row.id, NO_TRIES)
    except StorageUnavailable:
        raise _unavailable() from None
    return problem_view(row, tries)


@router.post("/problems/{problem_id}/attempts")
async def attempt(problem_id: ProblemId, body: Attempt, player: PlayerDep,
                  database: DatabaseDep) -> Answer:
    """An attempt: whether it was right, the best choice and the reason (every valued
    choice's loss, from the analysis); counted for the caller."""
    row = await _visible(database, problem_id, player.id)
    answer = row.answer
    if body.action not in answer["options"]:
        raise ApiError(ErrorCode.NOT_AN_OPTION, f"{body.action!r} is not one of "
                       f"{', '.join(answer['options'])}")
    right, loss = problems.judge(answer, body.action)
    try:
        tries = await store.attempt(database, row.id, player.id, right)
    except StorageUnavailable:
        raise _unavailable() from None
    return Answer(right=right, action=body.action, loss=loss, best=answer["best"],
                  played=answer["played"], played_loss=answer["loss"],
                  grade=answer["grade"], unit=answer.get("unit"),
                  choices=[Choice.model_validate(c) for c in answer["choices"]],
                  match_id=row.match_id, attempts=tries.attempts, solved=tries.solved)


async def _visible(database: DatabaseDep, problem_id: str, player_id: str | None
                   ) -> ProblemRow:
    """The problem if the caller may see it (public, or its own); 404 otherwise, alike."""
    try:
        row = await store.get(database, problem_id)
    except StorageUnavailable:
        raise _unavailable() from None
    if row is None or not (row.public or (player_id is not None
                                          and row.player_id == player_id)):
        raise ApiError(ErrorCode.PROBLEM_NOT_FOUND, f"no problem {problem_id!r}")
    return row


def _unavailable() -> ApiError:
    return ApiError(ErrorCode.STORAGE_UNAVAILABLE, "problems cannot be read now, try again "
                    "later", {"Retry-After": "1"})

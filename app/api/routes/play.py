"""Play now: ``POST /api/quickplay`` (a started table against bots) and the queue for
people, ``/api/queue`` (app/matchmaking/; docs/protocol.md, "Play now")."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, status
from pydantic import BaseModel, ConfigDict, Field

from ai import Level
from engine.variants import DEFAULT_VARIANT, Variant

from ...accounts.service import Caller
from ...errors import ErrorCode
from ...matchmaking import Entry, Matchmaker
from ...models import TablePublic
from ...tables import TableError
from ..deps import AddressDep, CallerDep, CommunityDep, MatchmakerDep, PlayerDep
from ..errors import error_responses

router = APIRouter(tags=["play now"], responses=error_responses({
    401: "Missing or invalid token",
    422: "A value the route does not take (`fields` says which)",
    503: "Shutting down, or (a cluster) Redis out of reach"}))

DEFAULT_WAIT, MAX_WAIT = 20.0, 300.0  # seconds before bots fill a queued player's table



class QuickPlay(BaseModel):
    model_config = ConfigDict(extra="forbid")
    variant: Variant = DEFAULT_VARIANT
    level: Level = Field(default=Level.NORMAL, description="The three bots' level.")
    rated: bool = Field(default=False, description="A rated match (accounts only).")


class QueueJoin(BaseModel):
    model_config = ConfigDict(extra="forbid")
    variant: Variant = DEFAULT_VARIANT
    wait_seconds: float = Field(
        default=DEFAULT_WAIT, ge=0, le=MAX_WAIT,
        description="How long to wait for other people before bots fill the empty seats.")
    rated: bool = Field(default=False, description="Wait for rated players only, for a "
                        "rated match (accounts only).")
    partner: str | None = Field(
        default=None, min_length=1, max_length=64,
        description="A player to sit with as a team (seats 0 and 2, or 1 and 3): seated "
        "once the partner, naming the caller, waits too.")


class QueueStatus(BaseModel):
    """Where the caller stands in the queue; fields that do not apply are left out."""

    status: Literal["waiting", "seated", "failed", "left"]
    variant: str | None = None
    rated: bool | None = Field(default=None, description="Waiting: for a rated match.")
    since: float | None = Field(default=None, description="Waiting: when it began (epoch s).")
    deadline: float | None = Field(
        default=None, description="Waiting: when bots fill the empty seats (epoch s).")
    waited: float | None = Field(
        default=None, description="Waiting: seconds waited so far (for a client whose "
        "clock differs from the server's).")
    players: int | None = Field(
        default=None, description="Waiting: players in this variant's queue, the caller too.")
    table_id: str | None = Field(default=None, description="Seated: the table to open.")
    code: str | None = Field(default=None, description="Failed: the error code, as "
                             "`POST /api/tables` would have answered.")
    message: str | None = None


RATED_ERRORS = error_responses({403: "A rated match for a guest (`account_required`)"})


@router.post("/quickplay", status_code=status.HTTP_201_CREATED, responses=error_responses({
    429: "Too many tables: on the server, or open ones of the player or address"}
    ) | RATED_ERRORS)
async def quickplay(body: QuickPlay, caller: CallerDep, matchmaker: MatchmakerDep,
                    address: AddressDep) -> TablePublic:
    """A table started at once: the caller in seat 0, three bots of ``level``.  The same
    limits as `POST /api/tables`."""
    check_rated(body.rated, caller)
    table = await matchmaker.quickplay(caller.player, body.variant, body.level, address,
                                       body.rated)
    return table.info()


def check_rated(rated: bool, caller: Caller) -> None:
    """A rated match is for accounts: a guest is refused before anything is made."""
    if rated and caller.kind != "account":
        raise TableError(ErrorCode.ACCOUNT_REQUIRED, "rated matches are for accounts: sign "
                         "up or log in")


@router.post("/queue", response_model_exclude_none=True, responses=error_responses({
    403: "A rated match for a guest (`account_required`) or a player of too low a "
         "reputation (`reputation_too_low`), or a partner of whom one blocks the other "
         "(`player_blocked`)",
    429: "A partner prompted past the caller's rate of invitations (`too_many_requests`)"}))
async def join_queue(body: QueueJoin, caller: CallerDep, matchmaker: MatchmakerDep,
                     community: CommunityDep, address: AddressDep) -> QueueStatus:
    """Wait for other people who want a game of ``variant``: four of them are seated
    together at once; when the caller's ``wait_seconds`` are over, bots fill the empty
    seats.  Poll `GET /api/queue` (at least every 15 s: it keeps the place) to learn the
    table.  Asking again for the same variant keeps the place; another variant moves.
    Two players who name each other ``partner`` sit at one table as a team; a partner
    who is the caller's friend is sent a `queue_partner` notice (counted as an
    invitation: `INVITATIONS_PER_PLAYER`).  The queue never seats together two players
    of whom one blocks the other."""
    check_rated(body.rated, caller)
    prompt = False
    if body.partner is not None:
        await community.check_partner(caller.player, body.partner)
        prompt = await community.will_prompt(caller.player, body.partner)
    reputation = await community.rated_reputation(caller.player) if body.rated else 100
    entry = await matchmaker.join(caller.player, body.variant, body.wait_seconds, address,
                                  body.rated, body.partner, reputation)
    if prompt and body.partner is not None and entry.status == "waiting":
        await community.prompt_partner(caller.player, body.partner, body.variant, body.rated)
    return await _status(matchmaker, entry)


@router.get("/queue", response_model_exclude_none=True, responses=error_responses({
    404: "Not in the queue (`not_queued`): never joined, left, or stopped polling"}))
async def queue_status(player: PlayerDep, matchmaker: MatchmakerDep) -> QueueStatus:
    """Where the caller stands: ``waiting``, ``seated`` (with ``table_id``: open it and
    connect) or ``failed`` (the table could not be made: ``code``)."""
    entry = await matchmaker.status(player)
    if entry is None:
        raise TableError(ErrorCode.NOT_QUEUED, "you are not in the queue")
    return await _status(matchmaker, entry)


@router.delete("/queue", response_model_exclude_none=True)
async def leave_queue(player: PlayerDep, matchmaker: MatchmakerDep) -> QueueStatus:
    """Leave the queue: ``left``; or, when a table was made for the caller already,
    ``seated`` with its id (too late to leave the queue: leave the seat instead)."""
    entry = await matchmaker.leave(player)
    return QueueStatus(status="left") if entry is None else await _status(matchmaker, entry)


async def _status(matchmaker: Matchmaker, entry: Entry) -> QueueStatus:
    if entry.status == "seated":
        return QueueStatus(status="seated", table_id=entry.table_id)
    if entry.status == "failed":
        return QueueStatus(status="failed", code=entry.code, message=entry.message)
    # Waiting, or popped and being seated this moment: the player still waits.
    now = matchmaker.clock.time()
    return QueueStatus(status="waiting", variant=entry.variant, rated=entry.rated,
                       since=entry.since, deadline=entry.deadline,
                       waited=max(0.0, now - entry.since),
                       players=max(1, await matchmaker.queue.waiting(entry.line)))

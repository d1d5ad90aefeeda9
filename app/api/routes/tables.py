"""Tables and seats.  Each route forwards one command to the table's actor."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Response, status

from engine import Options

from ...competition.store import check_decks
from ...errors import ErrorCode
from ...models import BotCreate, TableCreate, TablePage, TablePublic
from ...tables import (
    AddBot,
    LeaveSeat,
    Rematch,
    RemoveBot,
    SitDown,
    StartMatch,
    TableConfig,
    TableError,
)
from ...vocabulary import TableStatus
from ..deps import (
    AddressDep,
    CallerDep,
    CallerViewDep,
    ClusterDep,
    CommunityDep,
    DatabaseDep,
    LobbyDep,
    PlayerDep,
    SeatPath,
    TableDep,
    TableSettingsDep,
)
from ..errors import error_responses
from .play import check_rated

_errors = error_responses({
    401: "Missing or invalid token",
    403: "Not your seat, or not allowed",
    404: "No such table or seat",
    409: "The table's state does not allow it",
    422: "A value the route does not take (`fields` says which)",
})
router = APIRouter(prefix="/tables", tags=["tables"], responses=_errors)
PAGE, MAX_PAGE = 50, 100  # tables on a page of the list: by default, at most


@router.get("", response_model=TablePage)
async def list_tables(
    lobby: LobbyDep,
    cluster: ClusterDep,
    community: CommunityDep,
    viewer: CallerViewDep,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
    cursor: Annotated[int | None, Query(ge=0, description="A page's `next_cursor`.")] = None,
    status: Annotated[Literal["waiting", "playing"], Query(
        description="`waiting`: open tables to sit at; `playing`: public matches in "
        "progress to watch, the caller's friends' first (with an account's token).")] =
        "waiting",
) -> Response:
    """Public tables still waiting for players, or (``status=playing``) public matches
    in progress, newest first, a page at a time (in a cluster: those of every node)."""
    if status == "playing":
        page, total, next_cursor = await community.watch.page(
            cursor, limit, await community.friend_ids(viewer))
    elif cluster is None:
        page, total, next_cursor = lobby.open_tables(cursor, limit)
    else:
        page, total, next_cursor = await cluster.open_tables(cursor, limit)
    # Joined from each table's JSON as the lobby keeps it: nothing is validated again here.
    body = b'{"tables":[%b],"total":%d,"next_cursor":%b}' % (
        b",".join(page), total, b"null" if next_cursor is None else str(next_cursor).encode())
    return Response(body, media_type="application/json")


@router.post("", status_code=status.HTTP_201_CREATED,
             responses=error_responses({
                 403: "A rated table for a guest (`account_required`)",
                 422: "A value the route does not take, an unknown flag or value "
                      "(`bad_options`), a rated table made private (`rated_private`) or "
                      "with turns shorter than `RATED_MIN_TURN_SECONDS` "
                      "(`rated_turn_too_short`)",
                 429: "Too many tables: on the server, or open ones of the player or address",
                 503: "Shutting down, or (a cluster) Redis out of reach"}))
async def create_table(
    body: TableCreate, caller: CallerDep, lobby: LobbyDep, settings: TableSettingsDep,
    cluster: ClusterDep, address: AddressDep,
) -> TablePublic:
    """Open a table; the creator may then sit, add bots and start it.  A player, and a
    client address, may hold only so many open tables (429, with Retry-After when one
    of theirs is waiting and will expire).  A rated table is an account's, public, and
    its turns last at least the rated floor (its default turn is raised to it)."""
    if body.rated and body.private:
        raise TableError(ErrorCode.RATED_PRIVATE, "a rated table cannot be private")
    check_rated(body.rated, caller)
    try:
        options = Options.for_room(body.variant, **body.options)
    except ValueError as exc:
        raise TableError(ErrorCode.BAD_OPTIONS, str(exc)) from None
    config = TableConfig(
        name=body.name,
        options=options,
        turn_seconds=body.turn_seconds or settings.turn_seconds(body.rated),
        private=body.private,
        timeout_forfeits=body.timeout_forfeits,
        spectator_chat=body.spectator_chat,
        rated=body.rated,
        bot_pace=body.bot_pace,
    )
    table = lobby.create(caller.player, config, address)
    if cluster is not None:  # the other nodes must find it before its creator's socket
        await cluster.own(table)
    return table.info()


@router.get("/{table_id}")
async def get_table(table: TableDep) -> TablePublic:
    """A table's settings, seats and status (private tables too, by id)."""
    return table.info()


@router.put("/{table_id}/seats/{seat}")
async def take_seat(table: TableDep, seat: SeatPath, player: PlayerDep) -> TablePublic:
    """Sit in an empty seat before the match starts."""
    result: TablePublic = await table.submit(SitDown(player, seat))
    return result


@router.delete("/{table_id}/seats/{seat}")
async def leave_seat(table: TableDep, seat: SeatPath, player: PlayerDep) -> TablePublic:
    """Leave your seat: it empties before the match, a bot takes it during the match."""
    result: TablePublic = await table.submit(LeaveSeat(player, seat))
    return result


@router.put("/{table_id}/seats/{seat}/bot")
async def add_bot(
    table: TableDep, seat: SeatPath, body: BotCreate, player: PlayerDep
) -> TablePublic:
    """Put a bot in an empty seat (the creator only, before the match)."""
    result: TablePublic = await table.submit(AddBot(player, seat, body.level))
    return result


@router.delete("/{table_id}/seats/{seat}/bot")
async def remove_bot(table: TableDep, seat: SeatPath, player: PlayerDep) -> TablePublic:
    """Take a bot out of its seat before the match."""
    result: TablePublic = await table.submit(RemoveBot(player, seat))
    return result


@router.post("/{table_id}/start")
async def start_match(table: TableDep, player: PlayerDep) -> TablePublic:
    """Start the match once all four seats hold a player or a bot."""
    result: TablePublic = await table.submit(StartMatch(player))
    return result


@router.post("/{table_id}/rematch")
async def rematch(table: TableDep, player: PlayerDep) -> TablePublic:
    """After the match: a new table with the same settings and bots, the caller in the
    same seat; the table's other players are sent its id and join it the same way."""
    result: TablePublic = await table.submit(Rematch(player))
    return result


@router.get("/{table_id}/record")
async def match_record(table: TableDep, db: DatabaseDep) -> dict[str, Any]:
    """The finished match as ``belote-record/1`` (RECORD.md); it shows every deck, so
    only once the match is over (a duplicate round's table: once the round is)."""
    if table.status != TableStatus.OVER:
        raise TableError(ErrorCode.NOT_OVER, "the record is available once the match is over")
    if table.config.seated_only:  # a duplicate round's table (docs/tournaments.md)
        await check_decks(db, table.id)
    return table.record()

"""Before and around the match: taking and leaving seats, bots, the start, the rematch.

Each handler takes the table and its command; the actor calls it, one command at a time.
"""

from __future__ import annotations

import logging

from ..auth import Player
from ..errors import ErrorCode
from ..events import RatingsEvent, RematchEvent, SeatEvent
from ..models import RatingView, TablePublic
from ..storage import StorageError
from ..vocabulary import SeatKind, TableStatus
from .commands import AddBot, LeaveSeat, LoadRatings, Rematch, RemoveBot, SitDown, StartMatch
from .context import TableContext
from .errors import TableError
from .presence import release
from .seats import Seat
from .status import LOG_DOWN

log = logging.getLogger(__package__)


async def sit_down(table: TableContext, command: SitDown) -> TablePublic:
    player, seat = command.player, command.seat
    if seat_at(table, seat).kind != SeatKind.EMPTY:
        raise TableError(ErrorCode.SEAT_TAKEN, f"seat {seat} is taken")
    if table.status != TableStatus.WAITING:
        raise TableError(ErrorCode.NOT_WAITING, "the match has already started")
    if seat_of(table, player) is not None:
        raise TableError(ErrorCode.ALREADY_SEATED, "you already have a seat at this table")
    rating = await seat_rating(table, player.id)
    if rating is None and table.config.rated:
        raise TableError(ErrorCode.ACCOUNT_REQUIRED, "a rated table seats accounts only")
    client = table.audience.get(player.id)
    here = client is not None
    table.seats[seat] = Seat(kind=SeatKind.HUMAN, player=player, connected=here,
                             returning=command.arriving and not here,
                             account=rating is not None, rating=rating)
    if client is not None:
        client.seat = seat
    await load_blocks(table)
    return table.changed(SeatEvent(seat=seat))


async def leave_seat(table: TableContext, command: LeaveSeat) -> TablePublic:
    if not seat_at(table, command.seat).holds(command.player):
        raise TableError(ErrorCode.NOT_YOUR_SEAT, "only the seat's own player may leave")
    if table.status not in (TableStatus.WAITING, TableStatus.PLAYING):
        raise TableError(ErrorCode.GAME_OVER, "the match is over")
    if table.journal.behind:
        raise TableError(ErrorCode.STORAGE_UNAVAILABLE, LOG_DOWN)
    return await release(table, command.seat)


async def add_bot(table: TableContext, command: AddBot) -> TablePublic:
    check_manager(table, command.player)
    if seat_at(table, command.seat).kind != SeatKind.EMPTY:
        raise TableError(ErrorCode.SEAT_TAKEN, f"seat {command.seat} is taken")
    table.seats[command.seat] = Seat(kind=SeatKind.BOT, level=command.level)
    return table.changed(SeatEvent(seat=command.seat))


async def remove_bot(table: TableContext, command: RemoveBot) -> TablePublic:
    check_manager(table, command.player)
    if seat_at(table, command.seat).kind != SeatKind.BOT:
        raise TableError(ErrorCode.NOT_A_BOT, f"seat {command.seat} holds no bot")
    table.seats[command.seat] = Seat()
    return table.changed(SeatEvent(seat=command.seat))


async def start_match(table: TableContext, command: StartMatch) -> TablePublic:
    check_manager(table, command.player)
    if any(s.kind == SeatKind.EMPTY for s in table.seats):
        raise TableError(ErrorCode.SEATS_EMPTY, "every seat needs a player or a bot")
    if not command.house and not any(s.kind == SeatKind.HUMAN for s in table.seats):
        raise TableError(ErrorCode.NO_HUMANS, "a match needs at least one human")
    return await table.start()


async def rematch(table: TableContext, command: Rematch) -> TablePublic:
    """Seat a player of this finished match at a new table with the same settings and
    bots, in the same seat.  The first to ask creates it and everyone here is told its
    id (event ``rematch``); the others asking join that one while it is waiting.  A
    player who was the only human (Play now, or a table filled with bots) finds the new
    match started at once: there is nobody to wait for (issue #35)."""
    player = command.player
    if table.status != TableStatus.OVER:
        raise TableError(ErrorCode.NOT_OVER, "a rematch follows a finished match")
    seat = seat_of(table, player)
    if seat is None:
        raise TableError(ErrorCode.NOT_ALLOWED, "only a player of the match may ask for a rematch")
    new = table.rematch
    if new is None or new.status != TableStatus.WAITING:
        new = table.rematch = table.services.create(player, table.config)
        level = table.services.settings.cover_level
        for index, held in enumerate(table.seats):
            if held.kind == SeatKind.BOT:
                await new.submit(AddBot(player, index, held.level or level))
        new_id = new.id
        table.audience.broadcast(lambda viewer: RematchEvent(table_id=new_id))
    if new.seats[seat].holds(player):  # asked twice: already there
        return new.info()
    result: TablePublic = await new.submit(SitDown(player, seat))
    alone = all(held.kind == SeatKind.BOT or held.holds(player) for held in table.seats)
    if alone:
        result = await new.submit(StartMatch(player))
    return result


async def load_blocks(table: TableContext) -> None:
    """Who of the seated players blocks whom, for the chat; read as each sits down, and
    kept as it was while the database cannot say."""
    book = table.services.blocks
    ids = [held.player.id for held in table.seats if held.player is not None]
    if book is None or len(ids) < 2:
        return
    try:
        table.chat.apart = await book.apart(ids)
    except StorageError as exc:
        log.warning("blocks not read: %s", exc)


async def seat_rating(table: TableContext, player_id: str) -> RatingView | None:
    """The player's rating in the table's variant, None for a guest.  Unreadable, an
    unrated table seats the player without one; a rated table refuses (503)."""
    book = table.services.ratings
    try:
        if book is None:
            raise StorageError("no ratings here")
        return await book.seat(player_id, table.config.options.variant)
    except StorageError as exc:
        if table.config.rated:
            raise TableError(ErrorCode.STORAGE_UNAVAILABLE, "ratings cannot be read now, "
                             "try again later") from None
        log.debug("seat without its rating: %s", exc)
        return None


async def load_ratings(table: TableContext, command: LoadRatings) -> None:
    """The seats' ratings read again; once a rated match is over, its changes, each seat
    shown at its new rating, and (``announce``) everyone told: event ``ratings``.  The
    blocks between the seated players too (a table restored or moved)."""
    await load_blocks(table)
    for held in table.seats:
        if held.player is not None:
            rating = await seat_rating(table, held.player.id)
            held.account, held.rating = rating is not None, rating
    if not (table.config.rated and table.status == TableStatus.OVER) or table.rating_changes:
        return
    book = table.services.ratings
    if table.journal.behind:  # the end is not written yet: again once it is
        table.ratings_due = command.announce
        return
    try:
        changes = [] if book is None else await book.changes(table.id)
    except StorageError as exc:
        log.warning("rating changes not read: %s", exc)
        return
    if not changes:
        return
    table.rating_changes = changes
    for change in changes:
        table.seats[change.seat].rating = change.after
    if command.announce:
        event = RatingsEvent(changes=changes)
        table.audience.broadcast(lambda viewer: event)


def seat_at(table: TableContext, seat: int) -> Seat:
    if not 0 <= seat < 4:
        raise TableError(ErrorCode.NO_SEAT, f"no seat {seat}: seats are 0 to 3")
    return table.seats[seat]


def seat_of(table: TableContext, player: Player) -> int | None:
    return next((i for i, s in enumerate(table.seats) if s.holds(player)), None)


def check_manager(table: TableContext, player: Player) -> None:
    """Bots and the start are the table's creator's, while waiting: a stranger who takes a
    seat of a public table must not fill it with bots and start it."""
    if player.id != table.owner.id:
        raise TableError(ErrorCode.NOT_ALLOWED, "only the table's creator may")
    if table.status != TableStatus.WAITING:
        raise TableError(ErrorCode.NOT_WAITING, "the match has already started")

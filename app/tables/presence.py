"""Sockets arriving and leaving, and the grace an absent player's seat is kept for.

Presence changes no version: a bot covers an absent player's turns, and the player takes
them back by reconnecting (or acting) within ``reconnect_grace``; after it, the seat goes.
"""

from __future__ import annotations

from functools import partial

from ..auth import Player
from ..errors import ErrorCode
from ..events import PresenceEvent, SeatEvent
from ..models import TablePublic
from ..vocabulary import OPEN, SeatKind, TableStatus
from .clients import Client
from .commands import Attach, Detach, GraceOver, TakeBack
from .context import TableContext
from .errors import TableError
from .seats import Seat


async def attach(table: TableContext, command: Attach) -> None:
    client = command.client
    seat = next((i for i, s in enumerate(table.seats) if s.holds(client.player)), None)
    watching = table.audience.spectators_besides(client.player.id)
    if seat is None and table.config.seated_only:
        raise TableError(ErrorCode.SEATED_ONLY, "only this table's players may watch it")
    if seat is None and watching >= table.services.settings.max_spectators:
        raise TableError(ErrorCode.TOO_MANY_SPECTATORS, "this table has enough spectators")
    table.audience.join(client)
    client.seat = seat
    if seat is not None:
        arrive(table, seat, client)
    table.audience.snapshot(client, table.chat.recent(client))


async def detach(table: TableContext, command: Detach) -> None:
    client = command.client
    if not table.audience.leave(client):
        return  # already replaced by a newer socket
    seat = client.seat
    if seat is None or table.status not in OPEN:
        return
    table.seats[seat].connected = False
    await_return(table, client.player, seat)
    if table.match is not None and table.match.current_player() == seat:
        table.turns.schedule()
    table.audience.broadcast(lambda viewer: PresenceEvent(seat=seat))


async def take_back(table: TableContext, command: TakeBack) -> None:
    """The player asks to play their own turns again, ending the autoplay."""
    seat = command.client.seat
    if seat is not None and table.seats[seat].autoplay:
        arrive(table, seat, None)


async def grace_over(table: TableContext, command: GraceOver) -> None:
    held = table.seats[command.seat]
    if held.holds(command.player) and not held.connected and table.status in OPEN:
        if not table.journal.behind:
            await release(table, command.seat)
        else:  # the release is logged: wait for the log like everything else
            await_return(table, command.player, command.seat)


async def release(table: TableContext, seat: int) -> TablePublic:
    """The seat's player is gone for good: an empty seat before the match, a bot during it."""
    held = table.seats[seat]
    if held.grace is not None:
        held.grace.cancel()
    if held.player is not None:
        client = table.audience.get(held.player.id)
        if client is not None:
            client.seat = None
        table.audience.forget(held.player.id)
    if table.status == TableStatus.WAITING:
        table.seats[seat] = Seat()
    else:
        table.seats[seat] = Seat(kind=SeatKind.BOT, level=table.services.settings.cover_level)
        storage = table.services.storage
        await table.write(partial(storage.leave_seat, table.id, seat, table.version + 1))
    if not any(s.kind == SeatKind.HUMAN for s in table.seats):
        await table.close("no players left")
        return table.info()
    return table.changed(SeatEvent(seat=seat))


def arrive(table: TableContext, seat: int, client: Client | None) -> None:
    """The seat's player is here and playing again: back from a bot's cover."""
    held = table.seats[seat]
    if held.grace is not None:
        held.grace.cancel()
        held.grace = None
    was_away = held.autoplay or not held.connected
    held.connected, held.autoplay, held.missed, held.returning = True, False, 0, False
    if was_away:
        if table.match is not None and table.match.current_player() == seat:
            table.turns.schedule()
        table.audience.broadcast(lambda viewer: PresenceEvent(seat=seat), skip=client)


def await_return(table: TableContext, player: Player, seat: int) -> None:
    """Keep the seat for its absent player ``reconnect_grace`` seconds more."""
    services = table.services
    table.seats[seat].grace = services.clock.call_later(
        services.settings.reconnect_grace, partial(table.post, GraceOver(player, seat)))

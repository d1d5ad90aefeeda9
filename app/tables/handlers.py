"""Which handler applies each command a table's actor takes from its queue."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from . import play, presence, seating
from .commands import (
    AddBot,
    Attach,
    BotMove,
    Detach,
    Expire,
    GraceOver,
    LeaveSeat,
    LoadBlocks,
    LoadRatings,
    Logged,
    Moved,
    PlayAction,
    Rematch,
    RemoveBot,
    Say,
    SitDown,
    StartMatch,
    TakeBack,
    TurnTimeout,
)
from .context import TableContext


async def _say(table: TableContext, command: Say) -> None:
    table.chat.say(command)


async def _load_blocks(table: TableContext, command: LoadBlocks) -> None:
    await seating.load_blocks(table)


async def _expire(table: TableContext, command: Expire) -> None:
    if table.status == command.status:
        await table.close("expired")


async def _moved(table: TableContext, command: Moved) -> None:
    """Another node holds the table now: it goes from here without a word to the log,
    and its clients, told the server is restarting, reconnect and reach that node."""
    table.let_go()


Handler = Callable[[TableContext, Any], Awaitable[Any]]
HANDLERS: dict[type, Handler] = {
    SitDown: seating.sit_down,
    LeaveSeat: seating.leave_seat,
    AddBot: seating.add_bot,
    RemoveBot: seating.remove_bot,
    StartMatch: seating.start_match,
    Rematch: seating.rematch,
    Attach: presence.attach,
    Detach: presence.detach,
    TakeBack: presence.take_back,
    Say: _say,
    GraceOver: presence.grace_over,
    PlayAction: play.play_action,
    BotMove: play.bot_move,
    TurnTimeout: play.turn_timeout,
    Logged: play.logged,
    Expire: _expire,
    Moved: _moved,
    LoadRatings: seating.load_ratings,
    LoadBlocks: _load_blocks,
}

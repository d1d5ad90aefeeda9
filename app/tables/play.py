"""The match itself: a player's action, a bot's move, a turn that times out, and an
action held while the log could not be written, applied once it is (:func:`logged`).

What happens when a card arrives is :func:`play_action`: one answer per action id;
checked, logged, and only then applied and told to everyone (:func:`apply`).
"""

from __future__ import annotations

import logging
import time
from functools import partial

from engine import Action, IllegalActionError, parse_action

from ..errors import ErrorCode
from ..events import ForfeitEvent, PresenceEvent, StorageEvent
from ..matchlog import LoggedAction
from ..metrics import ACTION_BROADCAST, ACTIONS
from ..models import Forfeit
from ..protocol import Ack, Error
from ..views import action_events, results, trick_event
from ..vocabulary import Actor, TableStatus
from .clients import Client
from .commands import BotMove, LoadRatings, Logged, PlayAction, TurnTimeout
from .context import Held, TableContext
from .presence import arrive
from .status import LOG_DOWN

log = logging.getLogger(__package__)


async def play_action(table: TableContext, command: PlayAction) -> None:
    """One answer per action id, always: a repeat gets the first answer again, and a
    repeat of the held action (resent after a reconnect) waits for the log with it."""
    client, action_id = command.client, command.id
    player_id = client.player.id
    if table.held is not None and table.held.reply == (player_id, action_id):
        return
    answer = table.audience.answer(player_id, action_id)
    if answer is None:
        answer = await _try(table, client, action_id, command.version, command.action)
        if answer is None:
            return  # held: answered once logged
        if client.seat is not None:
            table.audience.remember(player_id, action_id, answer)
            return
    client.send(answer)


async def bot_move(table: TableContext, command: BotMove) -> None:
    seat, action, by = command.seat, command.action, command.by
    # A cover move decided before its player came back is dropped: the player's snapshot
    # already shows the turn as theirs.
    back = by == Actor.COVER and not table.seats[seat].covered
    if command.version != table.version or not table.moving or back:
        return
    assert table.match is not None
    legal = table.match.legal_actions()
    if action not in legal:
        log.error("table %s: bot chose illegal %r for seat %d", table.id, action, seat)
        action = legal[0]
    await apply(table, seat, action, by)  # held if the log is down: applied later


async def turn_timeout(table: TableContext, command: TurnTimeout) -> None:
    seat = command.seat
    if command.version != table.version or not table.moving:
        return
    held = table.seats[seat]
    held.missed += 1
    if table.config.timeout_forfeits:
        table.forfeit = Forfeit(seat=seat, winner=1 - seat % 2)
        table.version += 1
        await table.finish()
        table.audience.broadcast(lambda viewer: ForfeitEvent(seat=seat))
        return
    if held.missed >= table.services.settings.missed_turns_to_bot and not held.autoplay:
        held.autoplay = True
        table.audience.broadcast(lambda viewer: PresenceEvent(seat=seat))
    table.turns.time_out(seat, table.services.settings.cover_level)


async def logged(table: TableContext, command: Logged) -> None:
    """Everything is written: apply the held action, if any, and move on."""
    if not table.journal.caught_up():
        return  # more was queued meanwhile: the journal calls again once it is written
    table.audience.broadcast(lambda viewer: StorageEvent(available=True))
    if table.ratings_due:
        table.ratings_due = False
        table.post(LoadRatings(announce=True))
    held, table.held = table.held, None
    if held is None:
        table.turns.schedule()
        return
    await applied(table, held.seat, held.action, held.by)
    if held.reply is not None:
        player_id, action_id = held.reply
        table.audience.remember(player_id, action_id, acted(table, held.seat, action_id))


async def _try(table: TableContext, client: Client, action_id: str, version: int,
               text: str) -> str | None:
    """The answer to a new action: a refusal, the acknowledgement, or None if held."""

    def error(code: str, message: str) -> str:
        return Error(id=action_id, code=code, message=message).model_dump_json()

    seat = client.seat
    if seat is None:
        return error(ErrorCode.NOT_SEATED, "only a seated player may act")
    if table.status == TableStatus.WAITING:
        return error(ErrorCode.NOT_STARTED, "the match has not started")
    if table.status != TableStatus.PLAYING:
        return error(ErrorCode.GAME_OVER, "the match is over")
    if table.journal.behind:
        return error(ErrorCode.STORAGE_UNAVAILABLE, LOG_DOWN)
    if version != table.version:
        return error(ErrorCode.STALE_VERSION,
                     f"the table is at version {table.version}, not {version}")
    try:
        action = parse_action(text)
    except ValueError as exc:
        return error(ErrorCode.UNKNOWN_ACTION, str(exc))
    try:
        if not await apply(table, seat, action, Actor.PLAYER, (client.player.id, action_id)):
            return None
    except IllegalActionError as exc:
        return error(exc.code, str(exc))
    return acted(table, seat, action_id)


def acted(table: TableContext, seat: int, action_id: str) -> str:
    """The seat's player acted: awake again; the acknowledgement to send."""
    held = table.seats[seat]
    if held.autoplay:
        arrive(table, seat, None)
    held.missed = 0
    return Ack(id=action_id, version=table.version).model_dump_json()


async def apply(
    table: TableContext, seat: int, action: Action, by: Actor, reply: tuple[str, str] | None = None
) -> bool:
    """Check an action, log it, and only then apply it and tell everyone.

    Logging first keeps the engine and the log equal: if the write fails the match is
    untouched, so a restart loses nothing anyone was told, and the action is held until
    the retried write succeeds (False is returned), then applied.  A failed write cannot
    be rolled back from the engine, which has no undo for bids.  IllegalActionError
    (raised before the write) changes nothing.
    """
    assert table.match is not None and table.match.deal is not None
    started = time.perf_counter()
    deal = table.match.deal
    if seat != deal.to_move or action not in deal.legal_actions():
        deal.copy().apply(action, seat)  # the engine's own checks, on a copy: its error
    index, seq = len(table.match.deals) - 1, len(deal.history)  # its place in the log
    entry = LoggedAction(seat, action, by, table.version + 1)
    storage = table.services.storage
    if not await table.write(partial(storage.append_action, table.id, index, seq, entry)):
        table.held = Held(seat, action, by, reply)
        return False
    await applied(table, seat, action, by)
    ACTION_BROADCAST.observe(time.perf_counter() - started)
    return True


async def applied(table: TableContext, seat: int, action: Action, by: Actor) -> None:
    """A logged action: apply it, log the deal result and the next deal it produced, tell
    everyone."""
    match = table.match
    assert match is not None
    finished, dealt = len(match.results), len(match.deals)
    match.apply_action(action, seat)
    table.version += 1
    ACTIONS.inc()
    for index in range(finished, len(match.results)):
        result = match.results[index]
        await table.write(partial(table.services.storage.finish_deal, table.id, index, result))
    for index in range(dealt, len(match.deals)):
        await table.log_deal(index)
    if match.is_over:
        await table.finish()
    event_for = action_events(seat, action, by, trick_event(match, action),
                              results(match, finished))
    table.turns.schedule()
    table.audience.broadcast(event_for)

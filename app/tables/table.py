"""The table actor: one table's seats, match, version and timers, changed by its own task.

How it works (one command at a time, the version, the log written before a move is
applied, the restart) is told in the package's docstring, :mod:`app.tables`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from engine import Action, IllegalActionError, Match, Options, parse_action, write_record
from engine.errors import UnknownActionError
from engine.observation import Observation

from ..auth import Player
from ..bots import BotRunner
from ..config import Settings
from ..logs import MATCH_ID, TABLE_ID
from ..metrics import ACTION_BROADCAST, ACTIONS
from ..models import Forfeit, TablePublic
from ..protocol import (
    CLOSE_NO_TABLE,
    CLOSE_REPLACED,
    CLOSE_RESTART,
    Ack,
    Error,
    State,
)
from ..storage import LoggedAction, Storage, StorageUnavailable, StoredMatch
from ..views import action_event, spectator_view
from .clients import Client
from .commands import (
    AddBot,
    Attach,
    BotMove,
    Command,
    Detach,
    Expire,
    GraceOver,
    LeaveSeat,
    Logged,
    PlayAction,
    Rematch,
    RemoveBot,
    SitDown,
    StartMatch,
    Stop,
    TakeBack,
    TurnTimeout,
)
from .errors import TableError, shutting_down
from .journal import Journal, Write
from .seats import Seat

log = logging.getLogger(__package__)  # "app.tables", as operators see it (docs/operations.md)

WAITING, PLAYING, OVER, CLOSED = "waiting", "playing", "over", "closed"
ANSWERS_KEPT = 64  # per player: how many past action ids a repeat is still answered for
LOG_DOWN = "the match log cannot be written now; the table goes on once it can"


@dataclass(frozen=True, slots=True)
class TableConfig:
    name: str
    options: Options
    turn_seconds: float
    private: bool
    timeout_forfeits: bool


@dataclass(frozen=True, slots=True)
class Services:
    """What tables share: settings, the bot executors, storage, and the lobby's index."""

    settings: Settings
    bots: BotRunner
    storage: Storage
    discard: Callable[[str], None]
    create: Callable[[Player, TableConfig], Table]  # the lobby's, for rematches


@dataclass(frozen=True, slots=True)
class Held:
    """An accepted action whose log write failed: applied once the write succeeds, and
    answered then to the player who sent it (``reply``: the player's id and action id),
    on whichever socket the player has by then."""

    seat: int
    action: Action
    by: str
    reply: tuple[str, str] | None


class Table:
    """One table and its actor task.  Use :meth:`submit` (awaits the answer) or
    :meth:`post` (fire and forget); never touch the state from outside."""

    def __init__(self, table_id: str, config: TableConfig, owner: Player, services: Services):
        self.id = table_id
        self.config = config
        self.owner = owner
        self.seats = [Seat() for _ in range(4)]
        self.match: Match | None = None
        self.status = WAITING
        self.version = 0
        self.forfeit: Forfeit | None = None
        self.rematch: Table | None = None  # the new table a finished match's players go to
        self.deadline: float | None = None  # wall-clock time the current human turn ends
        self.seed = secrets.randbits(63)
        self._services = services
        self._settings = services.settings
        self._clients: dict[str, Client] = {}  # by player id: one socket per player
        self._answers: dict[str, OrderedDict[str, str]] = {}  # player id -> action id -> reply
        self._record_seats: list[dict[str, Any]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._expiry: asyncio.TimerHandle | None = None
        self._thinking: asyncio.Task[None] | None = None
        self._turn: tuple[int, int, float] | None = None  # version, seat, wall-clock end
        self._journal = Journal(partial(self.post, Logged()))
        self._held: Held | None = None
        self._stopping = False
        self._queue: asyncio.Queue[tuple[Command, asyncio.Future[Any] | None]] = asyncio.Queue()
        self._task = asyncio.create_task(self._run(), name=f"table-{table_id}")
        self._expiry = asyncio.get_running_loop().call_later(
            self._settings.waiting_table_ttl, self.post, Expire(WAITING)
        )

    # ------------------------------------------------------------- entry points

    async def submit(self, command: Command) -> Any:
        """Queue ``command`` and wait for the actor's answer (or its TableError)."""
        if self.status == CLOSED:
            raise TableError("no_table", "the table is closed", 404)
        if self._stopping:
            raise shutting_down()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((command, future))
        return await future

    def post(self, command: Command) -> None:
        """Queue ``command`` without waiting; ignored once the table is closed or stopping."""
        if self.status != CLOSED and not self._stopping:
            self._queue.put_nowait((command, None))

    async def stop(self, timeout: float) -> None:
        """Server shutdown: finish the commands already queued and the writes kept for a
        retry, within ``timeout`` seconds, then close sockets; storage keeps the match for
        the restart.  New commands are refused with ``shutting_down`` meanwhile."""
        self._stopping = True
        self._queue.put_nowait((Stop(), None))
        deadline = asyncio.get_running_loop().time() + timeout
        await self._finish_by(self._task, deadline)
        retrying = self._journal.task  # perhaps started by the actor's last commands
        if retrying is not None:
            await self._finish_by(retrying, deadline)
        self._cancel_timers()
        for client in self._clients.values():
            client.close(CLOSE_RESTART, "server restarting")

    def _tag_logs(self) -> None:
        """Mark the running task's log lines with this table's ids (each task has its own
        context); the match is logged under the table's id once started."""
        TABLE_ID.set(self.id)
        MATCH_ID.set(None if self.match is None else self.id)

    async def _finish_by(self, task: asyncio.Task[None], deadline: float) -> None:
        """Let ``task`` end by ``deadline`` (loop time); past it, cancel it."""
        left = max(0.0, deadline - asyncio.get_running_loop().time())
        done, _ = await asyncio.wait({task}, timeout=left)
        if not done:
            log.error("shutdown timed out; the log keeps what was written before")
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    @property
    def connections(self) -> int:
        return len(self._clients)

    def info(self) -> TablePublic:
        match = self.match
        return TablePublic(
            id=self.id,
            name=self.config.name,
            variant=self.config.options.variant,
            options=self.config.options.applicable(),
            turn_seconds=self.config.turn_seconds,
            private=self.config.private,
            timeout_forfeits=self.config.timeout_forfeits,
            status=self.status,  # type: ignore[arg-type]
            version=self.version,
            owner=self.owner.id,
            seats=[seat.public() for seat in self.seats],
            totals=None if match is None else match.totals,
            winner=self.forfeit.winner if self.forfeit else None if match is None else match.winner,
            forfeit=self.forfeit,
            rematch=None if self.rematch is None else self.rematch.id,
        )

    def record(self) -> dict[str, Any]:
        """The match so far as ``belote-record/1``; it holds every deck, so only the REST
        layer's finished-match export may hand it out."""
        if self.match is None:
            raise TableError("not_started", "the match has not started")
        extra: dict[str, Any] = {"id": self.id, "seats": self._record_seats}
        if self.forfeit is not None:
            extra["forfeit"] = self.forfeit.model_dump()
        return write_record(self.match, **extra)

    # ------------------------------------------------------------- the actor

    async def _run(self) -> None:
        self._tag_logs()
        while self.status != CLOSED:
            command, future = await self._queue.get()
            if isinstance(command, Stop):
                break
            try:
                result = await self._handle(command)
            except TableError as exc:
                if future is not None and not future.done():
                    future.set_exception(exc)
            except Exception:  # a bug must not take the table down with it
                log.exception("table %s failed on %r", self.id, command)
                if future is not None and not future.done():
                    future.set_exception(TableError("internal", "internal error", 500))
                self._recover(command)
            else:
                if future is not None and not future.done():
                    future.set_result(result)
        while not self._queue.empty():
            _, future = self._queue.get_nowait()
            if future is not None and not future.done():
                future.set_exception(shutting_down() if self._stopping else TableError(
                    "no_table", "the table is closed", 404))

    def _recover(self, command: Command) -> None:
        """After a bug: answer the action that met it, and make sure the game moves on."""
        if isinstance(command, PlayAction) and command.client.seat is not None:
            error = Error(id=command.id, code="internal", message="internal error")
            self._remember(command.client.player.id, command.id, error.model_dump_json())
        with contextlib.suppress(Exception):
            self._schedule_turn()

    async def _handle(self, command: Command) -> Any:
        match command:
            case SitDown(player, seat):
                return await self._sit(player, seat)
            case LeaveSeat(player, seat):
                if not self._seat(seat).holds(player):
                    raise TableError("not_your_seat", "only the seat's own player may leave", 403)
                if self.status not in (WAITING, PLAYING):
                    raise TableError("game_over", "the match is over")
                if self._journal.behind:
                    raise TableError("storage_unavailable", LOG_DOWN, 503)
                return await self._release(seat)
            case AddBot(player, seat, level):
                self._check_manager(player)
                if self._seat(seat).kind != "empty":
                    raise TableError("seat_taken", f"seat {seat} is taken")
                self.seats[seat] = Seat(kind="bot", level=level)
                return self._changed({"kind": "seat", "seat": seat})
            case RemoveBot(player, seat):
                self._check_manager(player)
                if self._seat(seat).kind != "bot":
                    raise TableError("not_a_bot", f"seat {seat} holds no bot")
                self.seats[seat] = Seat()
                return self._changed({"kind": "seat", "seat": seat})
            case StartMatch(player):
                return await self._start(player)
            case Rematch(player):
                return await self._rematch(player)
            case Attach(client):
                return self._attach(client)
            case Detach(client):
                return self._detach(client)
            case PlayAction(client, action_id, version, text):
                return await self._play(client, action_id, version, text)
            case TakeBack(client):
                if client.seat is not None and self.seats[client.seat].autoplay:
                    self._arrive(client.seat, None)
                return None
            case BotMove(version, seat, action, by):
                # A cover move decided before its player came back is dropped: the
                # player's snapshot already shows the turn as theirs.
                back = by == "cover" and not self.seats[seat].covered
                if version == self.version and self._moving and not back:
                    await self._bot_move(seat, action, by)
                return None
            case TurnTimeout(version, seat):
                if version == self.version and self._moving:
                    await self._timeout(seat)
                return None
            case GraceOver(player, seat):
                held = self.seats[seat]
                if held.holds(player) and not held.connected and self.status in (WAITING, PLAYING):
                    if not self._journal.behind:
                        await self._release(seat)
                    else:  # the release is logged: wait for the log like everything else
                        self._await_return(player, seat)
                return None
            case Logged():
                return await self._logged()
            case Expire(status):
                if self.status == status:
                    await self._close("expired")
                return None

    # ------------------------------------------------------------- seats

    def _seat(self, seat: int) -> Seat:
        if not 0 <= seat < 4:
            raise TableError("no_seat", f"no seat {seat}: seats are 0 to 3", 404)
        return self.seats[seat]

    def _seat_of(self, player: Player) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.holds(player)), None)

    def _check_manager(self, player: Player) -> None:
        """Bots and the start are the table's creator's, while waiting: a stranger who
        takes a seat of a public table must not fill it with bots and start it."""
        if player.id != self.owner.id:
            raise TableError("not_allowed", "only the table's creator may", 403)
        if self.status != WAITING:
            raise TableError("not_waiting", "the match has already started")

    async def _sit(self, player: Player, seat: int) -> TablePublic:
        if self._seat(seat).kind != "empty":
            raise TableError("seat_taken", f"seat {seat} is taken")
        if self.status != WAITING:
            raise TableError("not_waiting", "the match has already started")
        if self._seat_of(player) is not None:
            raise TableError("already_seated", "you already have a seat at this table")
        client = self._clients.get(player.id)
        self.seats[seat] = Seat(kind="human", player=player, connected=client is not None)
        if client is not None:
            client.seat = seat
        return self._changed({"kind": "seat", "seat": seat})

    async def _release(self, seat: int) -> TablePublic:
        """The seat's player is gone for good: an empty seat before the match, a bot during it."""
        held = self.seats[seat]
        if held.grace is not None:
            held.grace.cancel()
        client = self._clients.get(held.player.id) if held.player else None
        if client is not None:
            client.seat = None
        if held.player is not None:
            self._answers.pop(held.player.id, None)
        if self.status == WAITING:
            self.seats[seat] = Seat()
        else:
            self.seats[seat] = Seat(kind="bot", level=self._settings.cover_level)
            storage = self._services.storage
            await self._write(partial(storage.leave_seat, self.id, seat, self.version + 1))
        if not any(s.kind == "human" for s in self.seats):
            await self._close("no players left")
            return self.info()
        return self._changed({"kind": "seat", "seat": seat})

    async def _start(self, player: Player) -> TablePublic:
        self._check_manager(player)
        if any(s.kind == "empty" for s in self.seats):
            raise TableError("seats_empty", "every seat needs a player or a bot")
        if not any(s.kind == "human" for s in self.seats):
            raise TableError("no_humans", "a match needs at least one human")
        record_seats = [
            {"name": s.player.name, "kind": "human"} if s.player else
            {"name": "Bot", "kind": "bot", "level": s.level}
            for s in self.seats
        ]
        config = self.config
        try:  # seats are fixed from now on: logging them here is all a restart needs
            await self._services.storage.create_match(self.id, {
                "variant": config.options.variant,
                "options": config.options.changed(),
                "seed": self.seed,
                "seats": [  # the record's seats, plus who the humans are (not in the record)
                    entry | ({"player_id": s.player.id} if s.player else {})
                    for entry, s in zip(record_seats, self.seats, strict=True)
                ],
                "version": self.version + 1,
                "table": {"name": config.name, "turn_seconds": config.turn_seconds,
                          "private": config.private, "timeout_forfeits": config.timeout_forfeits},
                "owner": {"id": self.owner.id, "name": self.owner.name},
            })
        except StorageUnavailable:
            raise TableError("storage_unavailable", LOG_DOWN, 503) from None
        self.match = Match(config.options, seed=self.seed)
        self.status = PLAYING
        self._tag_logs()
        log.info("match started: %s", config.options.variant)
        self._record_seats = record_seats
        for index, held in enumerate(self.seats):  # the grace runs for those not here yet
            if held.player is not None and not held.connected:
                self._await_return(held.player, index)
        return self._changed({"kind": "start"})

    async def _rematch(self, player: Player) -> TablePublic:
        """Seat a player of this finished match at a new table with the same settings and
        bots, in the same seat.  The first to ask creates it and everyone here is told its
        id (event ``rematch``); the others asking join that one while it is waiting."""
        if self.status != OVER:
            raise TableError("not_over", "a rematch follows a finished match")
        seat = self._seat_of(player)
        if seat is None:
            raise TableError("not_allowed", "only a player of the match may ask for a rematch", 403)
        new = self.rematch
        if new is None or new.status != WAITING:
            new = self.rematch = self._services.create(player, self.config)
            level = self._settings.cover_level
            for index, held in enumerate(self.seats):
                if held.kind == "bot":
                    await new.submit(AddBot(player, index, held.level or level))
            new_id = new.id
            self._broadcast(lambda viewer: {"kind": "rematch", "table_id": new_id})
        if new.seats[seat].holds(player):  # asked twice: already there
            return new.info()
        result: TablePublic = await new.submit(SitDown(player, seat))
        return result

    def resume(self, stored: StoredMatch) -> None:
        """Rebuild a started match from its log after a restart: same seats, match, version
        and turn, with a fresh deadline.  Each human gets ``reconnect_grace`` to come back;
        until then a turn of theirs waits on its timer rather than on a cover bot.  A
        finished match's table shows its result for what is left of its time."""
        meta = stored.meta
        self.seed = meta["seed"]
        self.match = Match(self.config.options, seed=self.seed)
        for entry in stored.actions:
            self.match.apply_action(entry.action, entry.seat)
        self.version = max(meta["version"], stored.actions[-1].version if stored.actions else 0)
        self._record_seats = [
            {k: v for k, v in entry.items() if k != "player_id"} for entry in meta["seats"]
        ]
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        finished = stored.finished_at is not None
        for index, entry in enumerate(meta["seats"]):
            if index in meta.get("left", []):
                self.seats[index] = Seat(kind="bot", level=self._settings.cover_level)
            elif entry["kind"] == "human":
                player = Player(entry["player_id"], entry["name"])
                self.seats[index] = Seat(kind="human", player=player, returning=not finished)
                if not finished:
                    self._await_return(player, index)
            else:
                self.seats[index] = Seat(kind="bot", level=entry["level"])
        if stored.finished_at is None:
            self.status = PLAYING
            self._schedule_turn()
            return
        self.status = OVER
        if "forfeit" in meta:  # the timeout that forfeited was the table's last version
            self.forfeit = Forfeit(**meta["forfeit"])
            self.version += 1
        left = stored.finished_at + self._settings.finished_table_ttl - time.time()
        self._expiry = asyncio.get_running_loop().call_later(
            max(0.0, left), self.post, Expire(OVER))

    def _changed(self, event: dict[str, Any]) -> TablePublic:
        """An accepted change: the next version, the next turn, and everyone told."""
        self.version += 1
        self._schedule_turn()
        self._broadcast(lambda viewer: event)
        return self.info()

    # ------------------------------------------------------------- sockets

    def _attach(self, client: Client) -> None:
        seat = self._seat_of(client.player)
        watching = sum(c.seat is None and c.player.id != client.player.id
                       for c in self._clients.values())
        if seat is None and watching >= self._settings.max_spectators:
            raise TableError("too_many_spectators", "this table has enough spectators")
        old = self._clients.get(client.player.id)
        if old is not None:
            old.close(CLOSE_REPLACED, "replaced by a newer connection")
        self._clients[client.player.id] = client
        client.seat = seat
        if client.seat is not None:
            self._arrive(client.seat, client)
        client.send(self._state(client, "snapshot", None))

    def _arrive(self, seat: int, client: Client | None) -> None:
        """The seat's player is here and playing again: back from a bot's cover."""
        held = self.seats[seat]
        if held.grace is not None:
            held.grace.cancel()
            held.grace = None
        was_away = held.autoplay or not held.connected
        held.connected, held.autoplay, held.missed, held.returning = True, False, 0, False
        if was_away:
            if self.match is not None and self.match.current_player() == seat:
                self._schedule_turn()
            self._broadcast(lambda viewer: {"kind": "presence", "seat": seat}, skip=client)

    def _await_return(self, player: Player, seat: int) -> None:
        """Keep the seat for its absent player ``reconnect_grace`` seconds more."""
        self.seats[seat].grace = asyncio.get_running_loop().call_later(
            self._settings.reconnect_grace, self.post, GraceOver(player, seat)
        )

    def _detach(self, client: Client) -> None:
        if self._clients.get(client.player.id) is not client:
            return  # already replaced by a newer socket
        del self._clients[client.player.id]
        seat = client.seat
        if seat is None or self.status not in (WAITING, PLAYING):
            return
        held = self.seats[seat]
        held.connected = False
        self._await_return(client.player, seat)
        if self.match is not None and self.match.current_player() == seat:
            self._schedule_turn()
        self._broadcast(lambda viewer: {"kind": "presence", "seat": seat})

    # ------------------------------------------------------------- play

    async def _play(self, client: Client, action_id: str, version: int, text: str) -> None:
        """One answer per action id, always: a repeat gets the first answer again, and a
        repeat of the held action (resent after a reconnect) waits for the log with it."""
        player_id = client.player.id
        if self._held is not None and self._held.reply == (player_id, action_id):
            return
        kept = self._answers.get(player_id)
        answer = None if kept is None else kept.get(action_id)
        if answer is None:
            answer = await self._try_play(client, action_id, version, text)
            if answer is None:
                return  # held: answered once logged
            if client.seat is not None:
                self._remember(player_id, action_id, answer)
                return
        client.send(answer)

    def _remember(self, player_id: str, action_id: str, answer: str) -> None:
        """Send a seated player the answer to an action, on the socket they have now, and
        keep it (the last ``ANSWERS_KEPT``) so a repeat of its id gets the same one.
        Only seated players' answers are kept: a spectator's are refusals, cheap to redo."""
        answers = self._answers.setdefault(player_id, OrderedDict())
        answers[action_id] = answer
        if len(answers) > ANSWERS_KEPT:
            answers.popitem(last=False)
        client = self._clients.get(player_id)
        if client is not None:
            client.send(answer)

    async def _try_play(
        self, client: Client, action_id: str, version: int, text: str
    ) -> str | None:
        def error(code: str, message: str) -> str:
            return Error(id=action_id, code=code, message=message).model_dump_json()

        seat = client.seat
        if seat is None:
            return error("not_seated", "only a seated player may act")
        if self.status == WAITING:
            return error("not_started", "the match has not started")
        if self.status != PLAYING:
            return error("game_over", "the match is over")
        if self._journal.behind:
            return error("storage_unavailable", LOG_DOWN)
        if version != self.version:
            return error("stale_version", f"the table is at version {self.version}, not {version}")
        try:
            action = parse_action(text)
        except ValueError as exc:
            return error(UnknownActionError.code, str(exc))
        try:
            if not await self._apply(seat, action, "player", (client.player.id, action_id)):
                return None  # held: answered once logged
        except IllegalActionError as exc:
            return error(exc.code, str(exc))
        return self._acted(seat, action_id)

    def _acted(self, seat: int, action_id: str) -> str:
        """The seat's player acted: awake again; the acknowledgement to send."""
        held = self.seats[seat]
        if held.autoplay:
            self._arrive(seat, None)
        held.missed = 0
        return Ack(id=action_id, version=self.version).model_dump_json()

    @property
    def _moving(self) -> bool:
        """Whether moves are taken: a match on, and no write waiting for the storage."""
        return self.status == PLAYING and not self._journal.behind

    async def _apply(
        self, seat: int, action: Action, by: str, reply: tuple[str, str] | None = None
    ) -> bool:
        """Check an action, log it, and only then apply it and tell everyone.

        Logging first keeps the engine and the log equal: if the write fails the match is
        untouched, so a restart loses nothing anyone was told, and the action is held
        until the retried write succeeds (False is returned), then applied.  A failed
        write cannot be rolled back from the engine, which has no undo for bids.
        IllegalActionError (raised before the write) changes nothing.
        """
        assert self.match is not None and self.match.deal is not None
        started = time.perf_counter()
        self.match.deal.copy().apply(action, seat)  # the engine's own checks, on a copy
        entry = LoggedAction(self.version + 1, seat, action, by)
        if not await self._write(partial(self._services.storage.append_action, self.id, entry)):
            self._held = Held(seat, action, by, reply)
            return False
        await self._applied(seat, action, by)
        ACTION_BROADCAST.observe(time.perf_counter() - started)
        return True

    async def _applied(self, seat: int, action: Action, by: str) -> None:
        """A logged action: apply it, log the deal results it produced, tell everyone."""
        match = self.match
        assert match is not None
        finished = len(match.results)
        match.apply_action(action, seat)
        self.version += 1
        ACTIONS.inc()
        storage = self._services.storage
        results = [r.to_dict() for r in match.results[finished:]]
        for index, result in enumerate(results, finished):
            await self._write(partial(storage.finish_deal, self.id, index, result))
        if match.is_over:
            await self._finish()
        self._schedule_turn()
        extra: dict[str, Any] = {"by": by}
        if results:
            extra["deal_results"] = results
        self._broadcast(lambda viewer: action_event(seat, action, viewer) | extra)

    async def _bot_move(self, seat: int, action: Action, by: str) -> None:
        assert self.match is not None
        legal = self.match.legal_actions()
        if action not in legal:
            log.error("table %s: bot chose illegal %r for seat %d", self.id, action, seat)
            action = legal[0]
        await self._apply(seat, action, by)  # held if the log is down: applied later

    async def _timeout(self, seat: int) -> None:
        held = self.seats[seat]
        held.missed += 1
        if self.config.timeout_forfeits:
            self.forfeit = Forfeit(seat=seat, winner=1 - seat % 2)
            self.version += 1
            await self._finish()
            self._broadcast(lambda viewer: {"kind": "forfeit", "seat": seat})
            return
        if held.missed >= self._settings.missed_turns_to_bot and not held.autoplay:
            held.autoplay = True
            self._broadcast(lambda viewer: {"kind": "presence", "seat": seat})
        self._cancel_turn()
        self._think(seat, self._settings.cover_level, "timeout", 0)

    async def _finish(self) -> None:
        log.info("match over at version %d", self.version)
        self.status = OVER
        self._cancel_turn()
        await self._write(partial(self._services.storage.finish_match, self.id, self.record()))
        if self._expiry is not None:
            self._expiry.cancel()
        self._expiry = asyncio.get_running_loop().call_later(
            self._settings.finished_table_ttl, self.post, Expire(OVER)
        )

    async def _close(self, reason: str) -> None:
        if self.status == PLAYING:  # a write that fails is retried after the table is gone
            record = self.record() | {"abandoned": reason}
            await self._write(partial(self._services.storage.finish_match, self.id, record))
        self.status = CLOSED
        self._cancel_timers()
        for client in self._clients.values():
            client.close(CLOSE_NO_TABLE, f"table closed: {reason}")
        self._services.discard(self.id)

    # ------------------------------------------------------------- turns

    def _schedule_turn(self) -> None:
        """Start whatever moves the game on: a bot thinking, or the human's turn timer."""
        self._cancel_turn()
        seat = None if self.match is None or not self._moving else self.match.current_player()
        if seat is None:
            return
        held = self.seats[seat]
        if held.kind == "bot":
            assert held.level is not None
            self._think(seat, held.level, "bot", self._settings.bot_delay)
        elif held.covered:
            self._think(seat, self._settings.cover_level, "cover", self._settings.bot_delay)
        else:
            # The same turn keeps its deadline, so reconnecting cannot buy more time.
            if self._turn is None or self._turn[:2] != (self.version, seat):
                self._turn = (self.version, seat, time.time() + self.config.turn_seconds)
            self.deadline = self._turn[2]
            self._timer = asyncio.get_running_loop().call_later(
                max(0.0, self.deadline - time.time()), self.post, TurnTimeout(self.version, seat)
            )

    def _think(self, seat: int, level: str, by: str, delay: float) -> None:
        assert self.match is not None
        observation = self.match.observation(seat)
        self._thinking = asyncio.create_task(
            self._decide(self.version, seat, level, by, delay, observation)
        )

    async def _decide(
        self, version: int, seat: int, level: str, by: str, delay: float, observation: Observation
    ) -> None:
        """Off the actor: wait the human-like pause, let a bot decide, post the move."""
        self._tag_logs()
        if delay:
            await asyncio.sleep(delay)
        seed = (self.seed + version) % (1 << 63)
        try:
            action = await self._services.bots.decide(level, observation, seed)
        except Exception:  # a broken bot must not freeze the table
            log.exception("table %s: %s bot failed for seat %d", self.id, level, seat)
            action = observation.legal_actions[0]
        self.post(BotMove(version, seat, action, by))

    # ------------------------------------------------------------- storage down

    async def _write(self, write: Write) -> bool:
        """Do a storage write, or keep it for the journal's retries (False then).  While
        writes wait, no move is taken and players' actions are refused with
        ``storage_unavailable``; nothing is applied that the log does not hold."""
        was_behind = self._journal.behind
        written = await self._journal.write(write)
        if not was_behind and self._journal.behind:
            self._cancel_turn()
            self._broadcast(lambda viewer: {"kind": "storage", "available": False})
        return written

    async def _logged(self) -> None:
        """Everything is written: apply the held action, if any, and move on."""
        if not self._journal.caught_up():
            return  # more was queued meanwhile: the journal calls again once it is written
        self._broadcast(lambda viewer: {"kind": "storage", "available": True})
        held, self._held = self._held, None
        if held is None:
            self._schedule_turn()
            return
        await self._applied(held.seat, held.action, held.by)
        if held.reply is not None:
            player_id, action_id = held.reply
            self._remember(player_id, action_id, self._acted(held.seat, action_id))

    def _cancel_turn(self) -> None:
        self.deadline = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._thinking is not None:
            self._thinking.cancel()
            self._thinking = None

    def _cancel_timers(self) -> None:
        self._cancel_turn()
        if self._expiry is not None:
            self._expiry.cancel()
        for seat in self.seats:
            if seat.grace is not None:
                seat.grace.cancel()

    # ------------------------------------------------------------- messages

    def _view(self, seat: int | None) -> dict[str, Any] | None:
        if self.match is None:
            return None
        if seat is None:
            return spectator_view(self.match)
        return self.match.observation(seat).to_dict()

    def _state(self, client: Client, kind: str, event: dict[str, Any] | None,
               info: TablePublic | None = None) -> str:
        """A snapshot or event for ``client`` alone, built from its seat's view now."""
        return State(
            type=kind,  # type: ignore[arg-type]
            version=self.version,
            event=event,
            table=info or self.info(),
            seat=client.seat,
            view=self._view(client.seat),
            turn=self.match.current_player() if self.status == PLAYING and self.match else None,
            deadline=None if self.deadline is None else int(self.deadline * 1000),
        ).model_dump_json()

    def _broadcast(
        self, event_for: Callable[[int | None], dict[str, Any]], skip: Client | None = None
    ) -> None:
        if not self._clients:
            return
        info = self.info()
        for client in self._clients.values():
            if client is not skip:
                client.send(self._state(client, "event", event_for(client.seat), info))

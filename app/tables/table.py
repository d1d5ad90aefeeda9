"""The table actor: one table's seats, match, version and timers, changed by its own task.

How it works (one command at a time, the version, the log written before a move is
applied, the restart) is told in the package's docstring, :mod:`app.tables`.  This module
holds the actor and the table's life (start to close); each command has its handler
(:mod:`.handlers`) in :mod:`.seating` (seats, bots, the start, rematch), :mod:`.presence`
(sockets, grace) or :mod:`.play` (actions, bots' moves, timeouts), which see the table
as a :class:`.context.TableContext` and import nothing from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from functools import partial
from typing import Any

from engine import Match, write_record

from ..auth import Player
from ..errors import ErrorCode
from ..events import Event, StartEvent, StorageEvent
from ..logs import MATCH_ID, TABLE_ID
from ..matchlog import MatchEnd, MatchMeta, Owner
from ..models import Forfeit, RatingChangeOut, TablePublic
from ..protocol import CloseCode, Error
from ..storage import StorageUnavailable, StoredMatch
from ..vocabulary import EndReason, SeatKind, TableStatus
from . import presence
from .audience import Audience
from .chat import Chat
from .clock import Timer
from .commands import Command, Expire, LoadRatings, Logged, Moved, PlayAction, Stop
from .config import Joinable, Services, TableConfig
from .context import Held
from .errors import TableError, shutting_down
from .handlers import HANDLERS
from .journal import Journal, Write
from .seats import Seat
from .status import LOG_DOWN
from .turns import Turns

log = logging.getLogger(__package__)  # "app.tables", as operators see it (docs/operations.md)


class Table:
    """One table and its actor task.  Use :meth:`submit` (awaits the answer) or
    :meth:`post` (fire and forget); never touch the state from outside.  The handlers of
    the modules named above work on the attributes below, on the actor only."""

    def __init__(self, table_id: str, config: TableConfig, owner: Player, services: Services):
        self.id = table_id
        self.config = config
        self._options = config.options.applicable()  # shown by every message: made once
        self.owner = owner
        self.seats = [Seat() for _ in range(4)]
        self.match: Match | None = None
        self.status = TableStatus.WAITING
        self.version = 0
        self.forfeit: Forfeit | None = None
        self.rematch: Joinable | None = None  # the new table a finished match's players go to
        self.seed = secrets.randbits(63)
        self.created_at = services.clock.time()  # wall clock: the lobby's order, any node
        self.services = services
        self.settings = services.settings
        self.clock = services.clock
        self.audience = Audience(self)
        self.chat = Chat(self.audience, self.clock, config.spectator_chat)
        self.turns = Turns(self)
        self.journal = Journal(partial(self.post, Logged()), partial(self.post, Moved()))
        self.held: Held | None = None  # the action whose log write waits
        self.meta: MatchMeta | None = None  # as logged at the start
        self.rating_changes: list[RatingChangeOut] | None = None  # a rated match's, once over
        self.ratings_due = False  # the match ended while its end's write waited
        self._stopping = False
        self._queue: asyncio.Queue[tuple[Command, asyncio.Future[Any] | None]] = asyncio.Queue()
        self._task = asyncio.create_task(self._run(), name=f"table-{table_id}")
        self._expiry: Timer | None = self.clock.call_later(
            self.settings.waiting_table_ttl, partial(self.post, Expire(TableStatus.WAITING)))

    # ------------------------------------------------------------- entry points

    async def submit(self, command: Command) -> Any:
        """Queue ``command`` and wait for the actor's answer (or its TableError)."""
        if self.status == TableStatus.CLOSED:
            raise TableError(ErrorCode.NO_TABLE, "the table is closed")
        if self._stopping:
            raise shutting_down()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((command, future))
        return await future

    def post(self, command: Command) -> None:
        """Queue ``command`` without waiting; ignored once the table is closed or stopping."""
        if self.status != TableStatus.CLOSED and not self._stopping:
            self._queue.put_nowait((command, None))

    async def stop(self, timeout: float) -> None:
        """Server shutdown: finish the commands already queued and the writes kept for a
        retry, within ``timeout`` seconds, then close sockets; storage keeps the match for
        the restart.  New commands are refused with ``shutting_down`` meanwhile."""
        self._stopping = True
        self._queue.put_nowait((Stop(), None))
        deadline = asyncio.get_running_loop().time() + timeout
        await _finish_by(self._task, deadline)
        retrying = self.journal.task  # perhaps started by the actor's last commands
        if retrying is not None:
            await _finish_by(retrying, deadline)
        self._cancel_timers()
        self.audience.close_all(CloseCode.RESTART, "server restarting")

    @property
    def connections(self) -> int:
        return len(self.audience)

    @property
    def moving(self) -> bool:
        """Whether moves are taken: a match on, and no write waiting for the storage."""
        return self.status == TableStatus.PLAYING and not self.journal.behind

    def info(self) -> TablePublic:
        """Built for every message the table sends, without validation: every field is
        the table's own, already typed (validating cost as much as the rest)."""
        match, variant = self.match, self.config.options.variant
        return TablePublic.model_construct(
            id=self.id,
            name=self.config.name,
            variant=variant,
            options=self._options,
            turn_seconds=float(self.config.turn_seconds),
            private=self.config.private,
            timeout_forfeits=self.config.timeout_forfeits,
            spectator_chat=self.config.spectator_chat,
            bot_pace=self.config.bot_pace,
            status=self.status,
            version=self.version,
            owner=self.owner.id,
            seats=[seat.public(variant) for seat in self.seats],
            totals=None if match is None else match.totals,
            winner=self.forfeit.winner if self.forfeit else None if match is None else match.winner,
            forfeit=self.forfeit,
            rematch=None if self.rematch is None else self.rematch.id,
            node=self.settings.node_id,
            rated=self.config.rated,
            rating_changes=self.rating_changes,
        )

    def record(self) -> dict[str, Any]:
        """The match so far as ``belote-record/1``; it holds every deck, so only the REST
        layer's finished-match export may hand it out."""
        if self.match is None or self.meta is None:
            raise TableError(ErrorCode.NOT_STARTED, "the match has not started")
        extra: dict[str, Any] = {"id": self.id,
                                 "seats": [s.record_entry() for s in self.meta.seats]}
        if self.forfeit is not None:
            extra["forfeit"] = self.forfeit.model_dump()
        return write_record(self.match, **extra)

    def tag_logs(self) -> None:
        """Mark the running task's log lines with this table's ids (each task has its own
        context); the match is logged under the table's id once started."""
        TABLE_ID.set(self.id)
        MATCH_ID.set(None if self.match is None else self.id)

    # ------------------------------------------------------------- the actor

    async def _run(self) -> None:
        self.tag_logs()
        while self.status != TableStatus.CLOSED:
            command, future = await self._queue.get()
            if isinstance(command, Stop):
                break
            try:
                result = await HANDLERS[type(command)](self, command)
            except TableError as exc:
                if future is not None and not future.done():
                    future.set_exception(exc)
            except Exception:  # a bug must not take the table down with it
                log.exception("table %s failed on %r", self.id, command)
                if future is not None and not future.done():
                    future.set_exception(TableError(ErrorCode.INTERNAL, "internal error"))
                self._recover(command)
            else:
                if future is not None and not future.done():
                    future.set_result(result)
        while not self._queue.empty():
            _, future = self._queue.get_nowait()
            if future is not None and not future.done():
                future.set_exception(shutting_down() if self._stopping else TableError(
                    ErrorCode.NO_TABLE, "the table is closed"))

    def _recover(self, command: Command) -> None:
        """After a bug: answer the action that met it, and make sure the game moves on."""
        if isinstance(command, PlayAction) and command.client.seat is not None:
            error = Error(id=command.id, code=ErrorCode.INTERNAL, message="internal error")
            self.audience.remember(command.client.player.id, command.id,
                                   error.model_dump_json())
        with contextlib.suppress(Exception):
            self.turns.schedule()

    # ------------------------------------------------------------- the table's life

    async def start(self) -> TablePublic:
        """The match begins: logged, then its first deal dealt."""
        config, owner = self.config, self.owner
        meta = MatchMeta(
            variant=config.options.variant,
            options=config.options.changed(),
            seed=self.seed,
            seats=[seat.logged() for seat in self.seats],
            version=self.version + 1,
            table=config.meta(),
            owner=Owner(id=owner.id, name=owner.name),
        )
        try:  # seats are fixed from now on: logging them here is all a restart needs
            await self.services.storage.create_match(self.id, meta)
        except StorageUnavailable:
            raise TableError(ErrorCode.STORAGE_UNAVAILABLE, LOG_DOWN) from None
        self.match = Match(config.options, seed=self.seed)
        self.status = TableStatus.PLAYING
        self.tag_logs()
        log.info("match started: %s", config.options.variant)
        self.meta = meta
        await self.log_deal(0)
        for index, held in enumerate(self.seats):  # the grace runs for those not here yet
            if held.player is not None and not held.connected:
                presence.await_return(self, held.player, index)
        return self.changed(StartEvent())

    def changed(self, event: Event) -> TablePublic:
        """An accepted change: the next version, the next turn, and everyone told."""
        self.version += 1
        self.turns.schedule()
        self.audience.broadcast(lambda viewer: event)
        return self.info()

    async def finish(self) -> None:
        """The match is over (won, or forfeited): logged, and shown for a while."""
        log.info("match over at version %d", self.version)
        self.status = TableStatus.OVER
        self.turns.cancel()
        await self._log_end(EndReason.FORFEIT if self.forfeit else EndReason.WON)
        self._expire_in(self.settings.finished_table_ttl, TableStatus.OVER)
        if self.config.rated:  # after the events of the move (or timeout) that ended it
            self.post(LoadRatings(announce=True))

    async def close(self, reason: str) -> None:
        if self.status == TableStatus.PLAYING:  # a failed write is retried after the table goes
            await self._log_end(EndReason.ABANDONED)
        self.status = TableStatus.CLOSED
        self._cancel_timers()
        self.audience.close_all(CloseCode.NO_TABLE, f"table closed: {reason}")
        self.services.discard(self.id)

    def let_go(self) -> None:
        """Close the table here only: the log, and another node, keep it (docs/cluster.md)."""
        self.status = TableStatus.CLOSED
        self._cancel_timers()
        self.audience.close_all(CloseCode.RESTART, "the table moved to another server")
        self.services.discard(self.id)
        self._queue.put_nowait((Stop(), None))  # ends the actor if it waits for commands

    async def _log_end(self, reason: EndReason) -> None:
        assert self.match is not None
        winner = (None if reason == EndReason.ABANDONED else
                  self.forfeit.winner if self.forfeit else self.match.winner)
        end = MatchEnd(reason, self.match.totals, winner, self.forfeit)
        await self.write(partial(self.services.storage.finish_match, self.id, end))

    async def log_deal(self, index: int) -> None:
        """Log a deal as the match dealt it (from the seed): its dealer and deck."""
        assert self.match is not None
        deal = self.match.deals[index]
        await self.write(partial(self.services.storage.start_deal, self.id, index,
                                 deal.dealer, deal.deck))

    def resume(self, stored: StoredMatch, turn: tuple[int, int, float] | None = None) -> None:
        """Rebuild a started match from its log after a restart: same seats, match, version
        and turn, with a fresh deadline unless ``turn`` carries the one it had (a table
        taken over by another node).  Each human gets ``reconnect_grace`` to come back;
        until then a turn of theirs waits on its timer rather than on a cover bot.  A
        finished match's table shows its result for what is left of its time."""
        meta = self.meta = stored.meta
        self.seed, self.match, self.version = meta.seed, stored.match, stored.version
        finished = stored.finished_at is not None
        for index, entry in enumerate(meta.seats):
            if index in meta.left:
                self.seats[index] = Seat(kind=SeatKind.BOT, level=self.settings.cover_level)
            elif entry.kind == SeatKind.HUMAN:
                if entry.player_id is None:
                    raise ValueError(f"seat {index}: a table's human has a player id")
                player = Player(entry.player_id, entry.name)
                self.seats[index] = Seat(kind=SeatKind.HUMAN, player=player, returning=not finished)
                if not finished:
                    presence.await_return(self, player, index)
            else:
                self.seats[index] = Seat(kind=SeatKind.BOT, level=entry.level)
        self.post(LoadRatings())
        if stored.finished_at is None:
            self.status = TableStatus.PLAYING
            self._expire_in(None, TableStatus.PLAYING)
            if turn is not None:
                self.turns.carry(turn)
            self.turns.schedule()
            return
        self.status = TableStatus.OVER
        if meta.forfeit is not None:  # the timeout that forfeited was the table's last version
            self.forfeit = meta.forfeit
            self.version += 1
        left = stored.finished_at + self.settings.finished_table_ttl - self.clock.time()
        self._expire_in(max(0.0, left), TableStatus.OVER)

    def _expire_in(self, seconds: float | None, status: TableStatus) -> None:
        """Close the table ``seconds`` from now if it is still ``status`` (None: never)."""
        if self._expiry is not None:
            self._expiry.cancel()
        self._expiry = None if seconds is None else self.clock.call_later(
            seconds, partial(self.post, Expire(status)))

    def _cancel_timers(self) -> None:
        self.turns.cancel()
        self._expire_in(None, self.status)
        for seat in self.seats:
            if seat.grace is not None:
                seat.grace.cancel()

    # ------------------------------------------------------------- the log

    async def write(self, write: Write) -> bool:
        """Do a storage write, or keep it for the journal's retries (False then).  While
        writes wait, no move is taken and players' actions are refused with
        ``storage_unavailable``; nothing is applied that the log does not hold."""
        was_behind = self.journal.behind
        written = await self.journal.write(write)
        if not was_behind and self.journal.behind:
            self.turns.cancel()
            self.audience.broadcast(lambda viewer: StorageEvent(available=False))
        return written


async def _finish_by(task: asyncio.Task[None], deadline: float) -> None:
    """Let ``task`` end by ``deadline`` (loop time); past it, cancel it."""
    left = max(0.0, deadline - asyncio.get_running_loop().time())
    done, _ = await asyncio.wait({task}, timeout=left)
    if not done:
        log.error("shutdown timed out; the log keeps what was written before")
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

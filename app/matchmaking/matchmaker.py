"""The matchmaker: quickplay, and the queue's calls (join, status, leave), as the routes
(app/api/routes/play.py) make them.  It has no loop of its own: a group forms when a
player joins and whenever a waiting player asks how things stand (the client polls every
second).  A poll is also how a player stays in the queue: one who has not asked for
:data:`~.lines.ALIVE` seconds is gone (a closed tab) and is never seated.

Whichever node pops a group makes its table on itself and writes the table's id in each
player's entry; the players read it from any node.  A group's match starts once all its
players' sockets are at the table, or ``QUEUE_START_WAIT`` seconds after it was made, so
that no bot plays the first call of a player still on the way."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Collection, Sequence
from typing import Protocol

from ai import Level

from ..auth import Player
from ..cancelled import stop_tasks
from ..cluster import Cluster
from ..errors import ErrorCode
from ..sections import TableSettings
from ..shared import RedisShared, Shared
from ..storage import StorageError
from ..tables import Lobby, Table, TableError
from ..tables.clock import Clock
from ..tables.errors import shutting_down
from ..vocabulary import TableStatus
from .lines import Apart, Entry
from .redis_store import RedisQueue
from .seating import Member, abandon, everyone_here, open_table, start
from .store import MemoryQueue, Queue

log = logging.getLogger(__name__)

HERE_POLL = 0.1  # seconds between two looks at who is at a group's table
# Seconds after being seated during which joining again answers that table, not a new wait.
REJOIN_AFTER = 30.0
QUEUE_LEVEL = Level.NORMAL  # the bots that fill a group's empty seats


class Neighbours(Protocol):
    """What the queue asks of the community (app/community/): who must not sit together,
    and how a seated player is told."""

    async def apart(self, player_ids: Collection[str]) -> Apart:
        """The pairs among ``player_ids`` of whom one blocks the other."""
        ...

    async def seated(self, player_id: str, table_id: str) -> None:
        """Tell the player (its personal channel) the queue seated it at ``table_id``."""
        ...


class Matchmaker:
    """Quickplay and the queue of one server (or node); its routes: app/api/routes/play.py."""

    def __init__(self, queue: Queue, lobby: Lobby, cluster: Cluster | None,
                 settings: TableSettings, clock: Clock, neighbours: Neighbours) -> None:
        self.queue, self.lobby, self.cluster = queue, lobby, cluster
        self.settings, self.clock, self.neighbours = settings, clock, neighbours
        self._starting: set[asyncio.Task[None]] = set()
        self._blocks_known = True  # whether the last reading of the blocks worked

    @classmethod
    def of(cls, lobby: Lobby, cluster: Cluster | None, shared: Shared, settings: TableSettings,
           clock: Clock, neighbours: Neighbours) -> Matchmaker:
        """The queue where the shared state is: in Redis for a node of a cluster, else in
        this process."""
        queue: Queue = RedisQueue(shared) if isinstance(shared, RedisShared) else MemoryQueue()
        return cls(queue, lobby, cluster, settings, clock, neighbours)

    async def quickplay(self, player: Player, variant: str, level: Level,
                        address: str | None, rated: bool = False) -> Table:
        """A started table: the player in seat 0, bots of ``level`` in the others."""
        group = [Member(player, address)]
        table, owner = await open_table(self.lobby, self.cluster, self.settings, group,
                                        variant, level, rated)
        return await start(table, owner, group, level)

    async def join(self, player: Player, variant: str, wait: float,
                   address: str | None, rated: bool = False,
                   partner: str | None = None, reputation: int = 100) -> Entry:
        """Queue the player for ``variant`` (``rated``: with rated players only); bots
        fill the seats ``wait`` seconds on.  With a ``partner`` who names the player too,
        both sit at one table as a team; until the partner waits, the player waits."""
        if self.lobby.stopping:
            raise shutting_down()
        now = self.clock.time()
        held = await self.queue.touch(player.id, now)
        if held is not None and held.status == "seated" and held.seen > now - REJOIN_AFTER:
            return held  # asked twice (a double click, a retry): one table is enough
        entry = await self.queue.join(Entry(player_id=player.id, name=player.name,
                                            address=address, variant=variant, rated=rated,
                                            since=now, deadline=now + wait, seen=now,
                                            partner=partner, reputation=reputation))
        if entry.status == "waiting":
            await self.form(entry.line)
            entry = await self.queue.touch(player.id, now) or entry
        return entry

    async def status(self, player: Player) -> Entry | None:
        """The player's entry, after seating whatever group can sit now; None if the
        player is not in the queue (never was, left, or stopped asking)."""
        entry = await self.queue.touch(player.id, self.clock.time())
        if entry is not None and entry.status == "waiting":
            await self.form(entry.line)
            entry = await self.queue.touch(player.id, self.clock.time())
        return entry

    async def leave(self, player: Player) -> Entry | None:
        return await self.queue.leave(player.id)

    async def form(self, variant: str) -> None:
        """Seat every group of the queue ``variant`` (a :func:`line`) that can sit now,
        each at a table of its own made here."""
        if self.lobby.stopping:
            return  # another node, or this one after its restart, seats them
        failed: TableError | None = None
        now = self.clock.time()
        apart = await self._apart(variant)
        for group in await self.queue.pop(variant, now, apart):
            try:
                await self._seat(group)
            except TableError as exc:  # the other groups are seated all the same
                failed = failed or exc
        if failed is not None:
            raise failed

    async def _apart(self, variant: str) -> Apart:
        """Who of those waiting must not sit together.  While the database cannot say,
        nobody: a match could not be logged then anyway (said once per outage)."""
        try:
            apart = await self.neighbours.apart(await self.queue.waiting_ids(variant))
        except StorageError as exc:
            if self._blocks_known:
                log.warning("queue: blocks unknown, seating as if none: %s", exc)
            self._blocks_known = False
            return ()
        self._blocks_known = True
        return apart

    async def _seat(self, entries: list[Entry]) -> None:
        group = [Member(entry.player, entry.address, entry.seat or 0) for entry in entries]
        try:
            table, owner = await open_table(self.lobby, self.cluster, self.settings, group,
                                            entries[0].variant, QUEUE_LEVEL, entries[0].rated)
        except Exception as exc:  # each player is told; none is left waiting for ever
            if not isinstance(exc, TableError):
                log.exception("no table for a group of the queue")
                exc = TableError(ErrorCode.INTERNAL, "internal error")
            await self.queue.settle([e.model_copy(update={
                "status": "failed", "code": exc.code, "message": str(exc)}) for e in entries])
            return
        try:
            await self.queue.settle([e.model_copy(update={"status": "seated",
                                                          "table_id": table.id})
                                     for e in entries])
        except TableError:  # nobody can learn of the table (Redis went away): it goes
            await abandon(table, group)
            raise
        for entry in entries:
            await self.neighbours.seated(entry.player_id, table.id)
        task = asyncio.create_task(self._start_when_here(table, owner, group),
                                   name=f"queue-start-{table.id}")
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)

    async def _start_when_here(self, table: Table, owner: Player,
                               group: Sequence[Member]) -> None:
        """Start the group's match once its players are all at the table, or once
        ``queue_start_wait`` has passed (those still away are then covered, as at any
        start)."""
        waited = asyncio.Event()
        timer = self.clock.call_later(self.settings.queue_start_wait, waited.set)
        try:
            while not waited.is_set() and not everyone_here(table):
                if table.status != TableStatus.WAITING:
                    return  # its owner started it, or it closed
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waited.wait(), HERE_POLL)
        finally:
            timer.cancel()
        if table.status == TableStatus.WAITING:
            with contextlib.suppress(TableError):  # started meanwhile, or closed
                await start(table, owner, group, QUEUE_LEVEL)

    async def close(self) -> None:
        await stop_tasks(list(self._starting), "matchmaking")

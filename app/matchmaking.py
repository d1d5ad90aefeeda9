"""Play now: a started table against bots at once (quickplay), or a queue that seats the
players who ask for the same variant together, bots filling the seats nobody took once
a player's wait is over (docs/protocol.md, "Play now").

- :func:`open_table` then :func:`start` are the one place a group of players becomes a
  started table: the lobby's ``create`` (its limits), the cluster's lease, then the
  table's own commands (sit, add a bot, start), as ``POST /api/tables`` and the seat
  routes do.
- :class:`Queue` is what the queue needs from where it lives: :class:`MemoryQueue` in
  the process when the server runs alone, :class:`RedisQueue` when it is a node of a
  cluster (docs/cluster.md), where one script pops whole groups atomically, so that two
  nodes never seat one player twice.
- :class:`Matchmaker` puts the two together.  It has no loop of its own: a group forms
  when a player joins and whenever a waiting player asks how things stand (the client
  polls every second).  A poll is also how a player stays in the queue: one who has not
  asked for :data:`ALIVE` seconds is gone (a closed tab) and is never seated.

Whichever node pops a group makes its table on itself and writes the table's id in each
player's entry; the players read it from any node.  A group's match starts once all its
players' sockets are at the table, or :data:`START_WAIT` seconds after it was made, so
that no bot plays the first call of a player still on the way.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, cast

from pydantic import BaseModel
from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError

from ai import Level
from engine import Options
from engine.variants import VARIANTS

from .auth import Player
from .cancelled import stop_tasks
from .cluster import Cluster
from .cluster.node import Unavailable
from .config import Settings
from .errors import ErrorCode
from .names import MAX_NAME
from .tables import AddBot, LeaveSeat, Lobby, SitDown, StartMatch, Table, TableConfig, TableError
from .tables.clock import Clock
from .tables.errors import shutting_down
from .vocabulary import SeatKind, TableStatus

log = logging.getLogger(__name__)

ALIVE = 15.0  # seconds a waiting player stays in the queue without asking how it stands
START_WAIT = 10.0  # seconds a group's table waits for its players' sockets before it starts
HERE_POLL = 0.1  # seconds between two looks at who is at a group's table
FORMING_TTL = 30.0  # seconds a popped entry may wait for its table (its node may die)
SETTLED_TTL = 600.0  # seconds a player can still read which table they were seated at
# Seconds after being seated during which joining again answers that table, not a new wait.
REJOIN_AFTER = 30.0
QUEUE_LEVEL = Level.NORMAL  # the bots that fill a group's empty seats
# Refusals of the lobby that concern one holder: another player of a group may own it.
HOLDER_LIMITS = frozenset({ErrorCode.TOO_MANY_TABLES_FOR_YOU,
                           ErrorCode.TOO_MANY_TABLES_FOR_ADDRESS})

Status = Literal["waiting", "forming", "seated", "failed"]


class Entry(BaseModel):
    """A player in the queue, as either backend keeps it (JSON in Redis).  Times are
    the clock's (epoch seconds).  ``forming``: popped, its table being made."""

    player_id: str
    name: str
    address: str | None = None
    variant: str
    rated: bool = False  # rated players wait in a line of their own (accounts only)
    since: float
    deadline: float  # bots fill the empty seats from then on
    seen: float  # the player's last join or poll
    status: Status = "waiting"
    table_id: str | None = None  # seated
    code: str | None = None  # failed: why, as POST /api/tables would have said
    message: str | None = None

    @property
    def player(self) -> Player:
        return Player(self.player_id, self.name)

    @property
    def line(self) -> str:
        """The queue the entry waits in: its variant's, rated or not."""
        return line(self.variant, self.rated)


def line(variant: str, rated: bool) -> str:
    return f"{variant}+rated" if rated else variant


LINES = [line(variant, rated) for variant in VARIANTS for rated in (False, True)]


# ------------------------------------------------------------------ a group's table


@dataclass(frozen=True, slots=True)
class Member:
    """A player of a group, with the client address they asked from."""

    player: Player
    address: str | None = None


async def open_table(lobby: Lobby, cluster: Cluster | None, settings: Settings,
                     group: Sequence[Member], variant: str, level: Level,
                     rated: bool = False) -> tuple[Table, Player]:
    """A new table of ``variant`` with ``group`` in seats 0, 1, ... in order and bots of
    ``level`` in the others, not started yet; with its owner, the first player of the
    group the lobby lets hold one more table (the same refusals as POST /api/tables when
    none may).  Leased to this node in a cluster, before anyone hears of it."""
    names = ", ".join(member.player.name for member in group)
    config = TableConfig(
        name=names if len(names) <= MAX_NAME else names[:MAX_NAME - 1] + "…",
        options=Options.make(variant),
        turn_seconds=settings.turn_seconds(rated),
        private=False,
        timeout_forfeits=False,
        rated=rated,
    )
    table, owner = _create(lobby, group, config)
    if cluster is not None:
        await cluster.own(table)
    try:
        for seat, member in enumerate(group):
            await table.submit(SitDown(member.player, seat, arriving=True))
        await fill_with_bots(table, owner, level)
    except TableError:
        await abandon(table, group)
        raise
    return table, owner


def _create(lobby: Lobby, group: Sequence[Member], config: TableConfig) -> tuple[Table, Player]:
    refused: TableError | None = None
    for member in group:
        try:
            return lobby.create(member.player, config, member.address), member.player
        except TableError as exc:
            if exc.code not in HOLDER_LIMITS:
                raise
            refused = refused or exc
    assert refused is not None, "a group has a player"
    raise refused


async def fill_with_bots(table: Table, owner: Player, level: Level) -> None:
    for seat, held in enumerate(table.info().seats):
        if held.kind == SeatKind.EMPTY:
            await table.submit(AddBot(owner, seat, level))


async def start(table: Table, owner: Player, group: Sequence[Member], level: Level) -> Table:
    """Start a group's table, bots in any seat a player left meanwhile; refused (the log
    is down, say), the players leave it and it closes."""
    try:
        await fill_with_bots(table, owner, level)
        await table.submit(StartMatch(owner))
    except TableError:
        await abandon(table, group)
        raise
    return table


async def abandon(table: Table, group: Sequence[Member]) -> None:
    """The group leaves its table (closed once its last human is gone)."""
    for seat, member in enumerate(group):
        with contextlib.suppress(TableError):
            await table.submit(LeaveSeat(member.player, seat))


def everyone_here(table: Table) -> bool:
    """Whether every human seated at the table has a socket open there."""
    return all(seat.connected for seat in table.info().seats if seat.kind == SeatKind.HUMAN)


# ------------------------------------------------------------------ the queue's backends


class Queue(Protocol):
    """Where the queue lives.  Every call is atomic: :meth:`pop` takes each entry it
    returns out of the queue in the same step as it reads it.  A "variant" here is a
    :func:`line`: rated players of a variant wait apart from the others."""

    async def join(self, entry: Entry) -> Entry:
        """Put ``entry`` in its variant's queue and return it, or the entry the player
        has already if it waits for that variant (its place kept) or is being seated."""
        ...

    async def touch(self, player_id: str, now: float) -> Entry | None:
        """The player's entry, marked seen at ``now`` if waiting; None if none."""
        ...

    async def leave(self, player_id: str) -> Entry | None:
        """Take the player out if waiting (or failed): None then; else the entry that
        stays (``forming`` or ``seated``: too late to leave)."""
        ...

    async def pop(self, variant: str, now: float) -> list[list[Entry]]:
        """Take the groups that can sit now out of ``variant``'s queue, in order of arrival:
        four at a time, then, when the oldest left has waited until its deadline, it and
        all the others left.  Players not seen since ``now - ALIVE`` are dropped."""
        ...

    async def settle(self, group: Sequence[Entry]) -> None:
        """Record the outcome of popped entries (``seated`` or ``failed``)."""
        ...

    async def waiting(self, variant: str) -> int:
        """How many players wait for ``variant``."""
        ...


class MemoryQueue:
    """The queue of a server running alone; the event loop makes each call atomic."""

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        self._arrivals: dict[str, int] = {}  # the queue's order
        self._arrived = itertools.count()
        self._settled: deque[Entry] = deque()  # forgotten SETTLED_TTL after their last poll

    async def join(self, entry: Entry) -> Entry:
        held = self._entries.get(entry.player_id)
        if held is not None and (held.status == "forming" or (
                held.status == "waiting" and held.line == entry.line)):
            return held
        self._entries[entry.player_id] = entry
        self._arrivals[entry.player_id] = next(self._arrived)
        return entry

    async def touch(self, player_id: str, now: float) -> Entry | None:
        held = self._entries.get(player_id)
        if held is not None and held.status == "waiting":
            held.seen = now
        return held

    async def leave(self, player_id: str) -> Entry | None:
        held = self._entries.get(player_id)
        if held is not None and held.status in ("forming", "seated"):
            return held
        self._entries.pop(player_id, None)
        self._arrivals.pop(player_id, None)
        return None

    async def pop(self, variant: str, now: float) -> list[list[Entry]]:
        while self._settled and self._settled[0].seen < now - SETTLED_TTL:
            settled = self._settled.popleft()
            if self._entries.get(settled.player_id) is settled:
                del self._entries[settled.player_id], self._arrivals[settled.player_id]
        queue = sorted((e for e in self._entries.values()
                        if e.status == "waiting" and e.line == variant),
                       key=lambda e: self._arrivals[e.player_id])
        ready = []
        for entry in queue:
            if entry.seen < now - ALIVE:
                del self._entries[entry.player_id], self._arrivals[entry.player_id]
            else:
                ready.append(entry)
        groups = _groups(ready, now)
        for group in groups:
            for entry in group:
                entry.status = "forming"
        return [[e.model_copy() for e in group] for group in groups]

    async def settle(self, group: Sequence[Entry]) -> None:
        for entry in group:
            self._entries[entry.player_id] = entry
            self._settled.append(entry)

    async def waiting(self, variant: str) -> int:
        return sum(e.status == "waiting" and e.line == variant
                   for e in self._entries.values())


def _groups(ready: list[Entry], now: float) -> list[list[Entry]]:
    """The groups ``ready`` (in order of arrival) makes: four at a time, then the rest if its
    oldest has waited its time.  (The Redis script does the same.)"""
    groups = [ready[i:i + 4] for i in range(0, len(ready) - len(ready) % 4, 4)]
    rest = ready[len(ready) - len(ready) % 4:]
    if rest and rest[0].deadline <= now:
        groups.append(rest)
    return groups


# KEYS: the player's entry, then (join) the variant's queue and the count of arrivals
# (a queue's order: the nodes' clocks may differ), then (join, leave) every variant's
# queue.  ARGV: the player's id, (join) the entry, its variant, its time to live in ms.
_JOIN = """
local raw = redis.call('GET', KEYS[1])
if raw then
  local held = cjson.decode(raw)
  local line = held.variant
  if held.rated then line = line .. '+rated' end
  if held.status == 'forming' or (held.status == 'waiting' and line == ARGV[3]) then
    return raw
  end
end
for i = 4, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
return ARGV[2]
"""
_TOUCH = """
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local held = cjson.decode(raw)
if held.status ~= 'waiting' then return raw end
held.seen = tonumber(ARGV[1])
raw = cjson.encode(held)
redis.call('SET', KEYS[1], raw, 'KEEPTTL')
return raw
"""
_LEAVE = """
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local held = cjson.decode(raw)
if held.status == 'forming' or held.status == 'seated' then return raw end
for i = 2, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('DEL', KEYS[1])
return false
"""
# KEYS[1]: the variant's queue (player ids in order of arrival).  ARGV: now, the oldest ``seen``
# still alive, the entries' key prefix (a group's entries are known only once the queue
# is read: one Redis, not Redis Cluster, holds a cluster's keys), how long a popped entry
# may wait for its table (ms).
_POP = """
local now, alive = tonumber(ARGV[1]), tonumber(ARGV[2])
local ready = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local key = ARGV[3] .. id
  local raw = redis.call('GET', key)
  local held = raw and cjson.decode(raw)
  if held and held.status == 'waiting' and held.seen >= alive then
    table.insert(ready, {id, key, held})
  else
    redis.call('ZREM', KEYS[1], id)
    if held and held.status == 'waiting' then redis.call('DEL', key) end
  end
end
local groups = {}
local function take(first, last)
  local group = {}
  for i = first, last do
    local id, key, held = ready[i][1], ready[i][2], ready[i][3]
    held.status = 'forming'
    local raw = cjson.encode(held)
    redis.call('SET', key, raw, 'PX', ARGV[4])
    redis.call('ZREM', KEYS[1], id)
    table.insert(group, raw)
  end
  table.insert(groups, group)
end
local n, i = #ready, 1
while n - i + 1 >= 4 do take(i, i + 3); i = i + 4 end
if i <= n and ready[i][3].deadline <= now then take(i, n) end
return groups
"""


class RedisQueue:
    """The queue of a cluster: each player's entry under ``<prefix>queue:player:<id>``
    (JSON), and each variant's waiting players in order of arrival in the sorted set
    ``<prefix>queue:waiting:<variant>``.  Every call is one script, so one step for
    Redis; a Redis that does not answer is ``cluster_unavailable`` (503)."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self._redis = redis
        self._entries = f"{prefix}queue:player:"
        self._queues = f"{prefix}queue:waiting:"
        self._arrivals = f"{prefix}queue:arrivals"
        self._join = redis.register_script(_JOIN)
        self._touch = redis.register_script(_TOUCH)
        self._leave = redis.register_script(_LEAVE)
        self._pop = redis.register_script(_POP)

    def _every_queue(self) -> list[str]:
        return [self._queues + name for name in LINES]

    async def join(self, entry: Entry) -> Entry:
        ttl = _ms(entry.deadline - entry.since + ALIVE + SETTLED_TTL)
        raw = await self._call(self._join, [self._entries + entry.player_id,
                                            self._queues + entry.line, self._arrivals,
                                            *self._every_queue()],
                               [entry.player_id, entry.model_dump_json(), entry.line, ttl])
        return Entry.model_validate_json(cast(str, raw))

    async def touch(self, player_id: str, now: float) -> Entry | None:
        raw = await self._call(self._touch, [self._entries + player_id], [now])
        return None if raw is None else Entry.model_validate_json(cast(str, raw))

    async def leave(self, player_id: str) -> Entry | None:
        raw = await self._call(self._leave, [self._entries + player_id, *self._every_queue()],
                               [player_id])
        return None if raw is None else Entry.model_validate_json(cast(str, raw))

    async def pop(self, variant: str, now: float) -> list[list[Entry]]:
        groups = await self._call(self._pop, [self._queues + variant],
                                  [now, now - ALIVE, self._entries, _ms(FORMING_TTL)])
        return [[Entry.model_validate_json(raw) for raw in group]
                for group in cast(list[list[str]], groups)]

    async def settle(self, group: Sequence[Entry]) -> None:
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for entry in group:
                    pipe.set(self._entries + entry.player_id, entry.model_dump_json(),
                             px=_ms(SETTLED_TTL))
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise Unavailable(f"Redis: {exc}") from exc

    async def waiting(self, variant: str) -> int:
        try:
            return int(await self._redis.zcard(self._queues + variant))
        except (RedisError, OSError) as exc:
            raise Unavailable(f"Redis: {exc}") from exc

    @staticmethod
    async def _call(script: AsyncScript, keys: list[str], args: list[object]) -> object:
        try:
            return await script(keys=keys, args=args)  # type: ignore[arg-type]
        except (RedisError, OSError) as exc:
            raise Unavailable(f"Redis: {exc}") from exc


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


# ------------------------------------------------------------------ the matchmaker


class Matchmaker:
    """Quickplay and the queue of one server (or node); its routes: app/api/routes/play.py."""

    def __init__(self, queue: Queue, lobby: Lobby, cluster: Cluster | None, settings: Settings,
                 clock: Clock) -> None:
        self.queue, self.lobby, self.cluster = queue, lobby, cluster
        self.settings, self.clock = settings, clock
        self.start_wait = START_WAIT
        self._starting: set[asyncio.Task[None]] = set()

    @classmethod
    def of(cls, lobby: Lobby, cluster: Cluster | None, settings: Settings,
           clock: Clock) -> Matchmaker:
        """The queue in Redis for a node of a cluster, else in this process."""
        queue: Queue = MemoryQueue() if cluster is None else RedisQueue(
            cluster.redis, settings.redis_prefix)
        return cls(queue, lobby, cluster, settings, clock)

    async def quickplay(self, player: Player, variant: str, level: Level,
                        address: str | None, rated: bool = False) -> Table:
        """A started table: the player in seat 0, bots of ``level`` in the others."""
        group = [Member(player, address)]
        table, owner = await open_table(self.lobby, self.cluster, self.settings, group,
                                        variant, level, rated)
        return await start(table, owner, group, level)

    async def join(self, player: Player, variant: str, wait: float,
                   address: str | None, rated: bool = False) -> Entry:
        """Queue the player for ``variant`` (``rated``: with rated players only); bots
        fill the seats ``wait`` seconds on."""
        if self.lobby.stopping:
            raise shutting_down()
        now = self.clock.time()
        held = await self.queue.touch(player.id, now)
        if held is not None and held.status == "seated" and held.seen > now - REJOIN_AFTER:
            return held  # asked twice (a double click, a retry): one table is enough
        entry = await self.queue.join(Entry(player_id=player.id, name=player.name,
                                            address=address, variant=variant, rated=rated,
                                            since=now, deadline=now + wait, seen=now))
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
        for group in await self.queue.pop(variant, self.clock.time()):
            try:
                await self._seat(group)
            except TableError as exc:  # the other groups are seated all the same
                failed = failed or exc
        if failed is not None:
            raise failed

    async def _seat(self, entries: list[Entry]) -> None:
        group = [Member(entry.player, entry.address) for entry in entries]
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
        task = asyncio.create_task(self._start_when_here(table, owner, group),
                                   name=f"queue-start-{table.id}")
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)

    async def _start_when_here(self, table: Table, owner: Player,
                               group: Sequence[Member]) -> None:
        """Start the group's match once its players are all at the table, or once
        ``start_wait`` has passed (those still away are then covered, as at any start)."""
        waited = asyncio.Event()
        timer = self.clock.call_later(self.start_wait, waited.set)
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

"""This node's part in the cluster: its loop (leases renewed, presence and lobby
published, orphaned tables taken over), the takeover itself, and the hand-over at exit."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable
from typing import Any, cast

from ..cancelled import pause, stop_tasks
from ..db.storage import DatabaseStorage
from ..errors import ErrorCode
from ..sections import ClusterSettings
from ..shared import UNREACHABLE, Listener, RedisShared, nothing_missed
from ..storage import Fenced, StorageError
from ..tables import Lobby, Moved, Table, TableError
from ..vocabulary import TableStatus
from .leases import Leases
from .listing import Entry, Listing
from .outage import Outage
from .registry import Registry
from .relay import Relay, relay_mark
from .sweep import bucket, by_bucket, share

log = logging.getLogger(__name__)

LOBBY_EVERY = 0.25  # seconds between two looks for a change in this node's open tables
PARKED_MS = 60_000  # how long a waiting table handed over waits for a node to take it


class Unavailable(TableError):
    """The cluster cannot say where a table is now (Redis down, or its owner just died
    and its lease has not run out): the client should try again in a moment (503)."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.CLUSTER_UNAVAILABLE, message, retry_after=1)


class Cluster:
    """Started after the lobby; :meth:`hand_over` after the lobby stopped its tables."""

    def __init__(self, settings: ClusterSettings, lobby: Lobby, storage: DatabaseStorage,
                 key: str, shared: RedisShared) -> None:
        self.node_id = settings.node_id
        self.url = settings.advertised_url
        self.lobby, self.storage = lobby, storage
        self.shared, self.redis, self.keys = shared, shared.redis, shared.keys
        lease = settings.lease_seconds
        self.leases = Leases(shared, self.node_id, lease)
        self.registry = Registry(shared, lease)
        self.listing = Listing(shared, lease, settings.lobby_cache_seconds)
        self.live = Listing(shared, lease, settings.lobby_cache_seconds, shared.keys.live)
        self.mark = relay_mark(key)
        self.relay = Relay(self.mark)
        self.period = lease / 3
        self.seed_sweeps = settings.seed_sweeps  # between two readings of the log's matches
        self._redis = Outage(log, "Redis")  # whether Redis answered the last loop
        self._database = Outage(log, "database", answering=True)  # the last sweep's reading
        self._lease_ms = int(lease * 1000)
        self._held: set[str] = set()  # the tables this node holds a lease on
        self._adopting: dict[str, asyncio.Task[bool]] = {}
        self._nodes: tuple[float, dict[str, dict[str, Any]]] = (0.0, {})
        self._share: tuple[frozenset[str] | None, list[int]] = (None, [])  # buckets swept
        self._tasks: list[asyncio.Task[None]] = []
        self._released: Listener | None = None  # tables handed over at another's exit
        self._started_at = time.time()

    @property
    def available(self) -> bool:
        """Whether Redis answered this node's last loop (``/readyz`` says so)."""
        return self._redis.answering is True

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        self._tasks = [asyncio.create_task(self._loop(), name="cluster-loop"),
                       asyncio.create_task(self._lobby(), name="cluster-lobby"),
                       asyncio.create_task(self._sweeper(), name="cluster-sweeper")]
        self._listen()

    async def hand_over(self, drain: float) -> None:
        """At exit: park the waiting tables in Redis, stop (and log) every table within
        ``drain`` seconds, then give up the leases and tell the other nodes, which take
        the tables over at once instead of waiting for the leases to run out."""
        await self._stop()
        parked = {t.id: self.lobby.park(t) for t in self.lobby.tables.values()
                  if t.status == TableStatus.WAITING}
        with contextlib.suppress(*UNREACHABLE):
            await self._publish()  # the human turns' deadlines as they are now
        await self.lobby.stop(drain)
        held, self._held = sorted(self._held | parked.keys()), set()
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for table_id, text in parked.items():
                    pipe.set(self.keys.parked(table_id), text, px=PARKED_MS)
                await pipe.execute()
            await self.leases.release(held)
            for table_id in held:
                await self.shared.publish(self.keys.released, table_id)
            await self.listing.withdraw(self.node_id)
            await self.live.withdraw(self.node_id)
            await self.registry.leave(self.node_id)
        except UNREACHABLE as exc:  # the leases run out instead
            log.warning("hand-over incomplete, Redis: %s", exc)
        log.info("handed over %d tables", len(held))

    async def close(self) -> None:
        """After :meth:`hand_over` (or instead: a test's lifespan); before the shared
        state's close."""
        await self._stop()
        await self.relay.close()

    async def _stop(self) -> None:
        await stop_tasks(self._tasks, "cluster")
        self._tasks = []
        if self._released is not None:
            await self._released.close()
            self._released = None

    # ------------------------------------------------------------ asked by routes

    async def own(self, table: Table) -> None:
        """A table just made here: this node's from now on, before anyone hears of it;
        without Redis it goes at once (Unavailable)."""
        try:
            if not await self.leases.acquire(table.id):
                raise Unavailable(f"table {table.id} is held elsewhere")
        except UNREACHABLE as exc:
            table.let_go()
            raise Unavailable(f"Redis: {exc}") from exc
        except Unavailable:
            table.let_go()
            raise
        self._held.add(table.id)

    async def owner_url(self, table_id: str) -> str | None:
        """Where to pass on a call for ``table_id``: the owner's URL if another node holds
        it; None if this node does (taking it over first if nobody did) or nobody can
        (the call is then answered here: 404).  Unavailable if that cannot be known now."""
        if table_id in self.lobby.tables:
            return None
        try:
            url = await self._elsewhere(table_id)
            if url is None and not await self.adopt(table_id):
                url = await self._elsewhere(table_id)  # another node took it meanwhile
        except UNREACHABLE as exc:
            raise Unavailable(f"Redis: {exc}") from exc
        return url

    async def _elsewhere(self, table_id: str) -> str | None:
        """The URL of the live node that holds ``table_id``, None if none but this one
        does; Unavailable while its holder is dead and its lease has not run out."""
        [owner] = await self.leases.owners([table_id])
        if owner is None or owner == self.node_id:
            return None
        node = (await self.nodes()).get(owner) or (await self.nodes(fresh=True)).get(owner)
        if node is None:
            raise Unavailable(f"table {table_id} is moving to another server")
        url: str = node["url"]
        return url

    async def open_tables(self, before: int | None,
                          limit: int) -> tuple[list[bytes], int, int | None]:
        """The lobby of every live node (:meth:`Listing.page`); Unavailable without Redis."""
        try:
            return await self.listing.page(sorted(await self.nodes()), before, limit)
        except UNREACHABLE as exc:
            raise Unavailable(f"Redis: {exc}") from exc

    async def live_tables(self) -> list[Entry]:
        """The public matches in progress of every live node, newest first (each with
        its players' ids); Unavailable without Redis."""
        try:
            return await self.live.entries(sorted(await self.nodes()))
        except UNREACHABLE as exc:
            raise Unavailable(f"Redis: {exc}") from exc

    async def nodes(self, *, fresh: bool = False) -> dict[str, dict[str, Any]]:
        """The live nodes, read at most once a second unless ``fresh`` (a node that has
        just started may hold a table before this node's copy of the list knows it)."""
        read_at, nodes = self._nodes
        if fresh or time.monotonic() - read_at >= 1.0:
            nodes = await self.registry.nodes()
            self._nodes = time.monotonic(), nodes
        return nodes

    async def adopt(self, table_id: str) -> bool:
        """Take over a table whose owner is gone (or that this node's former self held):
        lease, then the log's epoch, then the match replayed from the log.  True if this
        node holds it now; one attempt at a time per table."""
        if table_id in self.lobby.tables:
            return True
        task = self._adopting.get(table_id)
        if task is None:  # shielded below: a caller that gives up leaves it to finish
            task = self._adopting[table_id] = asyncio.create_task(self._take_over(table_id))
            task.add_done_callback(lambda _: self._adopting.pop(table_id, None))
        return await asyncio.shield(task)

    async def _take_over(self, table_id: str) -> bool:
        if self.lobby.stopping or not await self._known(table_id):
            return False
        [owner] = await self.leases.owners([table_id])
        if owner != self.node_id and not await self.leases.acquire(table_id):
            return False
        self._held.add(table_id)
        try:
            stored = await self.storage.claim(table_id)
        except Fenced:  # another node claimed it right after: it is that node's
            stored = None
        if stored is None and (parked := await self.redis.getdel(self.keys.parked(table_id))):
            self.lobby.unpark(table_id, cast(str, parked))  # a waiting table handed over
            return True
        turn = None if stored is None else cast(str | None,
                                                 await self.redis.get(self.keys.turn(table_id)))
        if stored is None or not self.lobby.adopt(stored, _parse_turn(turn)):
            # Finished, never started (a waiting table lost), or a damaged log.
            self._held.discard(table_id)
            self.storage.forget(table_id)
            await self.leases.release([table_id])
            await cast(Awaitable[int], self.redis.srem(self.keys.started(bucket(table_id)),
                                                       table_id))
            return False
        log.info("took over table %s (epoch %s)", table_id, self.storage.epochs
                 and self.storage.epochs.get(table_id))
        return True

    async def _known(self, table_id: str) -> bool:
        """Whether ``table_id`` is a match on or a waiting table handed over: reads only, so
        that a call for an unknown id (a typo, or someone trying ids) costs no lease and no
        write to the log.  Redis first; then the log, the authority, for a match whose
        owner stopped before its loop published it (within LEASE_SECONDS / 3 of its start),
        which would otherwise be unknown here until the next reading of the log."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sismember(self.keys.started(bucket(table_id)), table_id)
            pipe.exists(self.keys.parked(table_id))
            started, parked = await pipe.execute()
        return bool(started) or bool(parked) or await self.storage.repo.is_unfinished(table_id)

    # ------------------------------------------------------------ the loop

    async def _loop(self) -> None:
        """Leases renewed, presence and lobby published: Redis alone, never the database,
        so that a stalled database cannot hold up a renewal.  (A lapsed lease would move
        the node's tables for nothing: their next owner could not read the log either.)"""
        while True:
            try:
                await self._tick()
                self._redis.answered()
            except UNREACHABLE as exc:
                self._redis.failed(exc)
            except Exception:  # a bug must not end the loop: leases would run out
                log.exception("cluster loop failed")
            await pause(self.period)

    async def _seed(self) -> None:
        """Matches on in the log, so that orphans are found even after Redis lost its
        data while their owner died (a crashed cluster restarting, say)."""
        await self._add_started(await self.storage.repo.unfinished_ids())

    async def _add_started(self, ids: list[str]) -> None:
        """``ids`` put in their buckets of the matches on."""
        if not ids:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for number, members in by_bucket(ids).items():
                pipe.sadd(self.keys.started(number), *members)
            await pipe.execute()

    async def _tick(self) -> None:
        tables = self.lobby.tables
        adopting = self._held & self._adopting.keys()  # leased, not in the lobby yet
        gone = self._held - tables.keys() - adopting  # closed here, or let go
        if gone:
            await self.leases.release(gone)
            for table_id in gone:
                self.storage.forget(table_id)
        self._held = set(tables) | adopting
        for table_id in await self.leases.renew(sorted(self._held)):
            log.warning("table %s is another node's now; letting it go", table_id)
            self._held.discard(table_id)
            table = tables.get(table_id)  # gone meanwhile if its own write was fenced
            if table is not None:
                table.post(Moved())
        await self.registry.beat({
            "id": self.node_id, "url": self.url, "started_at": self._started_at,
            "tables": len(tables), "sockets": sum(t.connections for t in tables.values()),
        })
        await self._publish()

    async def _publish(self) -> None:
        """The lobby's open tables, the matches on, and each human turn's deadline."""
        tables = list(self.lobby.tables.values())
        await self.listing.publish(self.node_id, self.lobby.listed())
        await self.live.publish(self.node_id, self.lobby.live())
        playing = [t for t in tables if t.status == TableStatus.PLAYING]
        async with self.redis.pipeline(transaction=False) as pipe:
            for number, members in by_bucket(t.id for t in playing).items():
                pipe.sadd(self.keys.started(number), *members)
            for table in playing:
                turn = table.turns.turn
                if turn is not None:
                    version, seat, deadline = turn
                    pipe.set(self.keys.turn(table.id), f"{version} {seat} {deadline}",
                             px=2 * self._lease_ms)
            await pipe.execute()

    async def _lobby(self) -> None:
        """The lobby's open tables, published as soon as they change (checked every
        LOBBY_EVERY): a table made here shows on every node within a moment, not a loop
        period.  The loop republishes them anyway, which keeps the key alive."""
        published: list[tuple[int, str]] | None = None
        while True:
            listed = self.lobby.listed()
            if listed != published:
                try:
                    await self.listing.publish(self.node_id, listed)
                    published = listed
                except UNREACHABLE:
                    pass  # Redis away: published again once it answers
                except Exception:  # a fault of ours: logged, and the loop goes on
                    log.exception("cluster: the lobby's tables not published")
            await pause(LOBBY_EVERY)

    async def _sweeper(self) -> None:
        """Take over the matches on whose owner is gone; every ``seed_sweeps`` sweeps, and at
        every sweep while the database does not answer, read them from the log first
        (:meth:`_seed`).  Apart from the loop, so that neither taking over many tables nor
        a database that stalls delays the renewal of this node's own leases."""
        sweeps = 0
        while True:
            try:
                if sweeps % self.seed_sweeps == 0 or self._database.answering is False:
                    await self._seed()
                    self._database.answered()
                await self._sweep()
            except StorageError as exc:
                self._database.failed(exc)
            except UNREACHABLE:
                pass  # the loop reports Redis's state
            except Exception:
                log.exception("cluster sweeper failed")
            sweeps += 1
            await pause(self.period)

    async def _sweep(self) -> None:
        """Orphans among this node's share of the matches on (:mod:`.sweep`) taken over in
        random order, so that the nodes sweeping a bucket at once share them."""
        nodes = frozenset(await self.nodes())
        if self._share[0] != nodes:
            self._share = nodes, share(self.node_id, nodes)
        async with self.redis.pipeline(transaction=False) as pipe:
            for number in self._share[1]:
                pipe.smembers(self.keys.started(number))
            buckets: list[set[str]] = await pipe.execute()
        ids = sorted(set().union(*buckets))
        owners = await self.leases.owners(ids)
        orphans = [t for t, owner in zip(ids, owners, strict=True) if owner is None
                   or (owner == self.node_id and t not in self.lobby.tables)]
        random.shuffle(orphans)
        for table_id in orphans:
            await self.adopt(table_id)

    def _listen(self) -> None:
        """Tables another node handed over at its exit: taken at once.  None is missed
        for good: a sweep finds them."""
        self._released = self.shared.subscribe(self.keys.released, self._take_released,
                                               nothing_missed, "cluster hand-over")

    async def _take_released(self, table_id: str) -> None:
        """A table another node handed over at its exit: taken now (or, the log out of
        reach, by a sweep later)."""
        await asyncio.sleep(random.uniform(0, 0.05))  # spread them among the nodes
        with contextlib.suppress(StorageError):
            await self.adopt(table_id)


def _parse_turn(text: str | None) -> tuple[int, int, float] | None:
    if text is None:
        return None
    version, seat, deadline = text.split()
    return int(version), int(seat), float(deadline)

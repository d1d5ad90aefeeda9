"""Where tables are created, found by id, listed, restored after a restart and stopped
together; and what one player or one client address may hold at once."""

from __future__ import annotations

import asyncio
import bisect
import logging
import math
import secrets
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from engine import Options

from ..auth import Player
from ..bots import BotRunner
from ..errors import ErrorCode
from ..matchlog import Owner, TableMeta
from ..matchlog import Seat as LoggedSeat
from ..sections import TableSettings
from ..storage import Storage, StoredMatch
from ..vocabulary import OPEN, SeatKind, TableStatus
from .clock import Clock, LoopClock
from .commands import LoadRatings
from .config import Blocks, Ratings, Services, TableConfig
from .errors import TableError, shutting_down
from .presence import await_return
from .seats import Seat
from .table import Table

log = logging.getLogger(__package__)


class Quota:
    """How many of something (sockets) each key (a player, an address) holds, up to a cap."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._held: Counter[str] = Counter()

    def take(self, key: str) -> bool:
        """One more for ``key``, unless it holds ``cap`` already; every True needs a release."""
        if self._held[key] >= self.cap:
            return False
        self._held[key] += 1
        return True

    def release(self, key: str) -> None:
        self._held[key] -= 1
        if self._held[key] <= 0:
            del self._held[key]

    def held(self, key: str) -> int:
        return self._held.get(key, 0)


@dataclass(frozen=True, slots=True)
class Listing:
    """The public waiting tables in creation order, as of ``built`` (time.monotonic()),
    tables created since then appended; ``numbers`` are their creation numbers, which the
    lobby's cursor searches."""

    built: float
    numbers: list[int]
    tables: list[Table]


class Lobby:
    """Every live table by id; creates tables within each holder's limits, lists the open
    ones (cheaply: every client in the lobby polls the list) and forgets closed ones.
    It also counts the open sockets that app/api/routes/ws.py admits."""

    def __init__(self, settings: TableSettings, bots: BotRunner, storage: Storage,
                 clock: Clock | None = None, ratings: Ratings | None = None,
                 blocks: Blocks | None = None) -> None:
        """``clock``: the tables' timers run on it (the loop's by default, tests move theirs);
        ``ratings``: where seats' ratings are read (none: no ratings shown, no rated seat)."""
        self.tables: dict[str, Table] = {}
        self.stopping = False
        self.sockets_by_address = Quota(settings.max_sockets_per_address)
        self.sockets_by_player = Quota(settings.max_sockets_per_player)
        self._services = Services(settings, bots, storage, self.discard, self.create,
                                  clock or LoopClock(), ratings, blocks)
        self._settings = settings
        self._created: dict[str, tuple[int, float]] = {}  # id -> number, time.monotonic()
        self._next_number = 0
        self._by_owner: dict[str, set[str]] = {}  # player id -> ids of the tables they made
        self._by_address: dict[str, set[str]] = {}  # client address -> ids made from it
        self._addresses: dict[str, str] = {}  # table id -> the address it was made from
        self._listing: Listing | None = None
        self._json: dict[str, tuple[int, bytes]] = {}  # table id -> (version, its JSON)

    def create(self, owner: Player, config: TableConfig, address: str | None = None) -> Table:
        """A new table of ``owner``, asked for from ``address`` (None: not over HTTP, as
        a rematch); refused while the server, the owner or the address holds too many,
        and when rated with turns shorter than the rated floor."""
        if self.stopping:
            raise shutting_down()
        floor = self._settings.rated_min_turn_seconds
        if config.rated and config.turn_seconds < floor:
            raise TableError(ErrorCode.RATED_TURN_TOO_SHORT, f"a rated table's turns last at least "
                             f"{floor:g} seconds")
        if len(self.tables) >= self._settings.max_tables:
            raise TableError(ErrorCode.TOO_MANY_TABLES, "the server is full; try again later")
        self._check_holder(self._by_owner.get(owner.id), self._settings.max_tables_per_player,
                           ErrorCode.TOO_MANY_TABLES_FOR_YOU, "you already have")
        if address is not None:
            self._check_holder(self._by_address.get(address),
                               self._settings.max_tables_per_address,
                               ErrorCode.TOO_MANY_TABLES_FOR_ADDRESS, "your network address has")
        table_id = secrets.token_urlsafe(9)  # unguessable: private tables are found by id
        table = Table(table_id, config, owner, self._services)
        self._add(table, address)
        return table

    async def restore(self) -> None:
        """Bring back every unfinished match from the log, as it was when the server stopped,
        and the tables of matches finished less than ``finished_table_ttl`` ago."""
        storage, settings = self._services.storage, self._services.settings
        recent = await storage.load_finished(time.time() - settings.finished_table_ttl)
        for stored in [*await storage.load_unfinished(), *recent]:
            self.adopt(stored)

    def adopt(self, stored: StoredMatch, turn: tuple[int, int, float] | None = None) -> bool:
        """The table of a logged match, rebuilt here (a restart, or a takeover from another
        node, which passes the human ``turn`` timed then).  A damaged log is reported and
        skipped (False): one stops no other."""
        meta = stored.meta
        restored = Table(stored.table_id, TableConfig.of(meta.table, meta.match_options()),
                         Player(meta.owner.id, meta.owner.name), self._services)
        try:
            restored.resume(stored, turn)
        except ValueError as exc:
            log.error("match %s not restored: %r", stored.table_id, exc)
            restored.let_go()
            return False
        self._add(restored, None)
        return True

    def park(self, table: Table) -> str:
        """A waiting table as JSON, for another node to :meth:`unpark` when this one stops
        (docs/cluster.md): only a started match is in the log, a waiting table travels
        whole."""
        config = table.config
        return Parked(
            variant=config.options.variant, options=config.options.changed(),
            table=config.meta(),
            owner=Owner(id=table.owner.id, name=table.owner.name),
            seats=[None if s.kind == SeatKind.EMPTY else s.logged() for s in table.seats],
            version=table.version, seed=table.seed, created_at=table.created_at,
        ).model_dump_json()

    def unpark(self, table_id: str, text: str) -> Table:
        """A waiting table another node parked, here; its humans get ``reconnect_grace``
        to come back, as after a restart."""
        parked = Parked.model_validate_json(text)
        config = TableConfig.of(parked.table, Options.make(parked.variant, **parked.options))
        table = Table(table_id, config, Player(parked.owner.id, parked.owner.name),
                      self._services)
        table.version, table.seed, table.created_at = (parked.version, parked.seed,
                                                       parked.created_at)
        for index, seat in enumerate(parked.seats):
            if seat is None:
                continue
            if seat.player_id is None:
                table.seats[index] = Seat(kind=SeatKind.BOT, level=seat.level)
            else:
                player = Player(seat.player_id, seat.name)
                table.seats[index] = Seat(kind=SeatKind.HUMAN, player=player)
                await_return(table, player, index)
        table.post(LoadRatings())
        self._add(table, None)
        return table

    def listed(self) -> list[tuple[int, str]]:
        """The public waiting tables as the cluster's lobby lists them: (created, epoch
        milliseconds; the table's JSON)."""
        return [(int(t.created_at * 1000), self._table_json(t).decode())
                for t in self.tables.values() if _listed(t)]

    def live(self) -> list[tuple[int, str, list[str]]]:
        """The public matches in progress, newest first: (created, epoch milliseconds;
        the table's JSON; the ids of its seated players), for the Watch list."""
        playing = [t for t in self.tables.values()
                   if t.status == TableStatus.PLAYING and not t.config.private]
        playing.sort(key=lambda t: t.created_at, reverse=True)
        return [(int(t.created_at * 1000), self._table_json(t).decode(),
                 [s.player.id for s in t.seats if s.player is not None]) for t in playing]

    def get(self, table_id: str) -> Table:
        if self.stopping:
            raise shutting_down()
        table = self.tables.get(table_id)
        if table is None:
            raise TableError(ErrorCode.NO_TABLE, f"no table {table_id!r}")
        return table

    def open_tables(self, before: int | None, limit: int) -> tuple[list[bytes], int, int | None]:
        """Public waiting tables, newest first, created before cursor ``before`` (None:
        from the newest), at most ``limit``, each as JSON; with the total of open tables
        and the next page's cursor (None after the last page).

        The list is rebuilt, in one pass over every table, at most every
        ``lobby_cache_seconds`` (new tables are added to it at once), and a table's JSON
        is made once per version of it: a lobby full of polling clients costs one build.
        The total may still count tables that started since the build; pages skip them."""
        listing = self._listing
        max_age = self._settings.lobby_cache_seconds
        if listing is None or time.monotonic() - listing.built >= max_age:
            listing = self._listing = self._build_listing()
        numbers, total = listing.numbers, len(listing.tables)
        end = total if before is None else bisect.bisect_left(numbers, before)
        page: list[bytes] = []
        for index in range(end - 1, -1, -1):
            if len(page) == limit:
                return page, total, numbers[index + 1]
            table = listing.tables[index]
            if table.status == TableStatus.WAITING:
                page.append(self._table_json(table))
        return page, total, None

    def discard(self, table_id: str) -> None:
        table = self.tables.pop(table_id, None)
        if table is None:
            return
        del self._created[table_id]
        self._json.pop(table_id, None)
        _unindex(self._by_owner, table.owner.id, table_id)
        address = self._addresses.pop(table_id, None)
        if address is not None:
            _unindex(self._by_address, address, table_id)

    async def stop(self, timeout: float | None = None) -> None:
        """Shutdown: no new tables; every table finishes what it holds, all within
        ``timeout`` seconds (the whole ``shutdown_timeout`` unless told)."""
        self.stopping = True
        budget = self._services.settings.shutdown_timeout if timeout is None else timeout
        await asyncio.gather(*(table.stop(budget) for table in list(self.tables.values())))
        for table_id in list(self.tables):
            self.discard(table_id)

    def _add(self, table: Table, address: str | None) -> None:
        """Index a new table: by id, creation number, owner, address, and in the listing."""
        self.tables[table.id] = table
        number, self._next_number = self._next_number, self._next_number + 1
        self._created[table.id] = number, time.monotonic()
        self._by_owner.setdefault(table.owner.id, set()).add(table.id)
        if address is not None:
            self._addresses[table.id] = address
            self._by_address.setdefault(address, set()).add(table.id)
        if self._listing is not None and _listed(table):  # numbers stay ascending
            self._listing.numbers.append(number)
            self._listing.tables.append(table)

    def _check_holder(self, held: set[str] | None, cap: int, code: ErrorCode,
                      who: str) -> None:
        """Refuse a new table to a holder (a player, an address) with ``cap`` open tables,
        waiting or playing (finished ones do not count); Retry-After is when the oldest
        of its waiting tables expires, if one is waiting."""
        open_ = [self.tables[i] for i in held or () if self.tables[i].status in OPEN]
        if len(open_) < cap:
            return
        waiting = [self._created[t.id][1] for t in open_ if t.status == TableStatus.WAITING]
        retry = None
        if waiting:
            expires = min(waiting) + self._settings.waiting_table_ttl
            retry = max(1, math.ceil(expires - time.monotonic()))
        raise TableError(code, f"{who} {cap} open tables: wait for one to end", retry)

    def _build_listing(self) -> Listing:
        listed = [t for t in self.tables.values() if _listed(t)]
        return Listing(time.monotonic(), [self._created[t.id][0] for t in listed], listed)

    def _table_json(self, table: Table) -> bytes:
        version, text = self._json.get(table.id, (-1, b""))
        if version != table.version:
            text = table.info().model_dump_json().encode()
            self._json[table.id] = table.version, text
        return text


class Parked(BaseModel):
    """A waiting table between two nodes (:meth:`Lobby.park`); None for an empty seat."""

    variant: str
    options: dict[str, Any]
    table: TableMeta
    owner: Owner
    seats: list[LoggedSeat | None]
    version: int
    seed: int
    created_at: float


def _listed(table: Table) -> bool:
    return table.status == TableStatus.WAITING and not table.config.private


def _unindex(index: dict[str, set[str]], key: str, table_id: str) -> None:
    held = index[key]
    held.discard(table_id)
    if not held:
        del index[key]

"""Where tables are created, found by id, restored after a restart and stopped together."""

from __future__ import annotations

import asyncio
import secrets

from engine import Options

from ..auth import Player
from ..bots import BotRunner
from ..config import Settings
from ..storage import Storage
from .errors import TableError, shutting_down
from .table import WAITING, Services, Table, TableConfig


class Lobby:
    """Every live table by id; creates tables and forgets closed ones."""

    def __init__(self, settings: Settings, bots: BotRunner, storage: Storage) -> None:
        self.tables: dict[str, Table] = {}
        self.stopping = False
        self._services = Services(settings, bots, storage, self.discard, self.create)

    def create(self, owner: Player, config: TableConfig) -> Table:
        if self.stopping:
            raise shutting_down()
        if len(self.tables) >= self._services.settings.max_tables:
            raise TableError("too_many_tables", "the server is full; try again later", 429)
        table_id = secrets.token_urlsafe(9)  # unguessable: private tables are found by id
        table = self.tables[table_id] = Table(table_id, config, owner, self._services)
        return table

    async def restore(self) -> None:
        """Bring back every unfinished match from the log, as it was when the server stopped."""
        for stored in await self._services.storage.load_unfinished():
            meta, table = stored.meta, stored.meta["table"]
            config = TableConfig(
                name=table["name"],
                options=Options.make(meta["variant"], **meta["options"]),
                turn_seconds=table["turn_seconds"],
                private=table["private"],
                timeout_forfeits=table["timeout_forfeits"],
            )
            owner = Player(meta["owner"]["id"], meta["owner"]["name"])
            restored = Table(stored.table_id, config, owner, self._services)
            restored.resume(stored)
            self.tables[stored.table_id] = restored

    def get(self, table_id: str) -> Table:
        if self.stopping:
            raise shutting_down()
        table = self.tables.get(table_id)
        if table is None:
            raise TableError("no_table", f"no table {table_id!r}", 404)
        return table

    def open_tables(self) -> list[Table]:
        return [t for t in self.tables.values() if t.status == WAITING and not t.config.private]

    def discard(self, table_id: str) -> None:
        self.tables.pop(table_id, None)

    async def stop(self, timeout: float | None = None) -> None:
        """Shutdown: no new tables; every table finishes what it holds, all within
        ``timeout`` seconds (the whole ``shutdown_timeout`` unless told)."""
        self.stopping = True
        budget = self._services.settings.shutdown_timeout if timeout is None else timeout
        await asyncio.gather(*(table.stop(budget) for table in list(self.tables.values())))
        self.tables.clear()

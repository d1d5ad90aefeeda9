"""A table whose database goes away: the action whose write failed is held (not applied),
others are refused with ``storage_unavailable``, and once the database is back the held
action is logged, applied and acknowledged, and the log still equals the engine.

The database is PostgreSQL behind a loopback TCP proxy that the test closes and reopens."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from sqlalchemy.engine import make_url

from app.bots import BotRunner
from app.db.repository import Repository
from app.db.session import Database
from app.db.storage import DatabaseStorage
from app.tables import Client, Lobby, PlayAction, Table
from engine import Options
from tests.actors import my_turn, next_message, solo_table
from tests.conftest import app_settings
from tests.test_db_support import run

pytestmark = pytest.mark.postgres

pytest_plugins = ["tests.test_db_support"]  # migrated_urls: the scratch PostgreSQL database

GUARD = 60  # seconds: a hang fails the test instead of blocking the suite
STALL_TIMEOUT = 1.5  # seconds: the tables' statement timeout here (the server's is 5)


class Proxy:
    """Forwards a loopback port to the database server; closing it cuts every connection
    and refuses new ones, as a database that went away does; stalling it keeps every
    connection open but carries nothing, as a hung server or network does."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0  # chosen on the first open, kept on reopening
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()

    def stall(self) -> None:
        self._flowing.clear()

    def flow(self) -> None:
        self._flowing.set()

    async def open(self) -> None:
        self._server = await asyncio.start_server(self._pipe, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:
            writer.close()
        self._writers.clear()
        await self._server.wait_closed()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        await self._flowing.wait()
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self._writers.add(up_writer)

        async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError):
                while data := await source.read(65536):
                    await self._flowing.wait()
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(copy(reader, up_writer), copy(up_reader, writer))


@dataclass
class Proxied:
    """A started solo table whose log goes to PostgreSQL through a proxy the test holds."""

    proxy: Proxy
    db: Database
    lobby: Lobby
    table: Table
    client: Client


@contextlib.asynccontextmanager
async def proxied_table(pg_url: str) -> AsyncIterator[Proxied]:
    url = make_url(pg_url)
    proxy = Proxy(url.host or "127.0.0.1", url.port or 5432)
    await proxy.open()
    db = Database(url.set(host="127.0.0.1", port=proxy.port).render_as_string(False),
                  statement_timeout=STALL_TIMEOUT)
    settings = app_settings()
    bots = BotRunner(settings.bots)
    await bots.start()
    try:
        lobby = Lobby(settings.tables, bots, DatabaseStorage(db))
        table, client = await solo_table(lobby, "proxied", Options.make("bulgarian"))
        yield Proxied(proxy, db, lobby, table, client)
        await lobby.stop()
    finally:
        proxy.flow()
        await bots.close()
        await db.dispose()
        with contextlib.suppress(AssertionError):
            await proxy.close()


async def scenario(pg_url: str) -> None:
    async with proxied_table(pg_url) as at:
        proxy, table, client = at.proxy, at.table, at.client
        state = await my_turn(client)
        version, legal = state["version"], state["view"]["legal_actions"]
        history = list(table.match.deal.history) if table.match and table.match.deal else []

        await proxy.close()
        await table.submit(PlayAction(client, "held", version, legal[0]))
        assert (await next_message(client))["event"] == {"kind": "storage", "available": False}
        await table.submit(PlayAction(client, "refused", version, legal[0]))
        refused = await next_message(client)
        assert (refused["type"], refused["id"], refused["code"]) == (
            "error", "refused", "storage_unavailable")
        assert table.version == version  # nothing applied that the log lacks
        assert table.match is not None and table.match.deal is not None
        assert table.match.deal.history == history

        await proxy.open()  # the retry task gets through: no command needed
        assert (await next_message(client))["event"] == {"kind": "storage", "available": True}
        applied = await next_message(client)
        assert applied["event"]["kind"] == "action" and applied["event"]["seat"] == 0
        assert applied["version"] == version + 1
        assert await next_message(client) == {"type": "ack", "id": "held",
                                              "version": version + 1}

        state = await my_turn(client)  # the bots played on; the log kept up
        log = await Repository(at.db).load(table.id)
        assert log is not None
        assert max(a.version or 0 for deal in log.actions for a in deal) == state["version"]
        assert log.replay().observation(0).to_dict() == table.match.observation(0).to_dict()


def test_actions_wait_for_an_unreachable_database(migrated_urls: dict[str, str]) -> None:
    run(asyncio.wait_for(scenario(migrated_urls["postgresql"]), GUARD))


async def stalled(pg_url: str) -> None:
    """A database that stops answering (connections open, nothing carried) is unavailable
    within the statement timeout: the table says so, holds the action, and goes on."""
    async with proxied_table(pg_url) as at:
        table, client = at.table, at.client
        state = await my_turn(client)
        version, legal = state["version"], state["view"]["legal_actions"]

        at.proxy.stall()
        await table.submit(PlayAction(client, "held", version, legal[0]))
        told = await asyncio.wait_for(next_message(client), 4 * STALL_TIMEOUT)
        assert told["event"] == {"kind": "storage", "available": False}
        assert table.version == version

        at.proxy.flow()
        assert (await next_message(client))["event"] == {"kind": "storage", "available": True}
        assert (await next_message(client))["version"] == version + 1
        assert await next_message(client) == {"type": "ack", "id": "held",
                                              "version": version + 1}


def test_a_stalled_database_is_unavailable_not_a_hang(migrated_urls: dict[str, str]) -> None:
    run(asyncio.wait_for(stalled(migrated_urls["postgresql"]), GUARD))

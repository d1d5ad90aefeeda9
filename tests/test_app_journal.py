"""Storage failures, told apart and survived: which database errors mean "retry", and a
table whose log refuses or loses writes never tells anyone of an action the log lacks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import exc

from app.bots import BotRunner
from app.db.session import unavailable
from app.matchlog import LoggedAction
from app.storage import Fenced, MemoryStorage, StorageError, StorageUnavailable
from app.tables import Lobby, PlayAction
from app.tables.journal import Journal
from engine import Options
from tests.actors import my_turn, next_message, solo_table
from tests.conftest import app_settings
from tests.waiting import eventually


class Said(Exception):
    """A driver error carrying the SQLSTATE the database sent, as asyncpg's do."""

    def __init__(self, sqlstate: str) -> None:
        super().__init__(f"SQLSTATE {sqlstate}")
        self.sqlstate = sqlstate


@pytest.mark.parametrize("sqlstate", [
    "57P03",  # cannot connect now: the server is starting up or shutting down
    "57P01",  # admin shutdown
    "57014",  # query cancelled (a statement timeout)
    "08006",  # connection failure
    "53300",  # too many connections
    "40001",  # serialization failure
    "40P01",  # deadlock
])
def test_what_the_database_says_decides_unavailable(sqlstate: str) -> None:
    assert unavailable(exc.DBAPIError("INSERT", {}, Said(sqlstate)))


@pytest.mark.parametrize("sqlstate", ["23505", "22003", "42P01"])
def test_a_refusal_is_not_an_outage(sqlstate: str) -> None:
    assert not unavailable(exc.DBAPIError("INSERT", {}, Said(sqlstate)))


def test_errors_without_a_sqlstate() -> None:
    assert unavailable(exc.OperationalError("INSERT", {}, Exception("database is locked")))
    assert unavailable(TimeoutError())
    assert unavailable(ConnectionResetError())
    assert not unavailable(exc.IntegrityError("INSERT", {}, Exception("UNIQUE failed")))


def test_a_fenced_write_is_never_retried_and_nothing_after_it_is_written() -> None:
    """A cluster node whose table another node took over: first an outage, then the
    retry is refused as Fenced; the journal gives up and tells the table, once."""
    async def scenario() -> None:
        tried: list[str] = []
        failures = {"a": [StorageUnavailable("down"), Fenced("another node's now")]}
        fenced: list[bool] = []
        journal = Journal(lambda: pytest.fail("nothing drains"), lambda: fenced.append(True))

        def write(name: str) -> Any:
            async def attempt() -> None:
                tried.append(name)
                if failures.get(name):
                    raise failures[name].pop(0)
            return attempt

        assert not await journal.write(write("a"))
        assert not await journal.write(write("b"))  # queued behind "a"
        await eventually(lambda: bool(fenced), 5, "the journal to be fenced")
        assert not await journal.write(write("c"))  # refused without a try
        await asyncio.sleep(0.3)  # past the first retry's pause: nothing more is tried
        assert tried == ["a", "a"] and fenced == [True] and journal.task is None

    asyncio.run(scenario())


def test_the_journal_keeps_failed_writes_in_order_until_each_succeeds() -> None:
    async def scenario() -> None:
        done: list[str] = []
        failures = {"a": [StorageError("refused"), StorageUnavailable("down")]}
        drained = asyncio.Event()
        journal = Journal(drained.set, lambda: pytest.fail("not fenced"))

        def write(name: str) -> Any:
            async def attempt() -> None:
                if failures.get(name):
                    raise failures[name].pop(0)
                done.append(name)
            return attempt

        assert not await journal.write(write("a"))
        assert journal.behind
        assert not await journal.write(write("b"))  # queued behind "a", never before it
        await asyncio.wait_for(drained.wait(), 5)
        assert done == ["a", "b"]
        assert journal.caught_up() and not journal.behind
        assert await journal.write(write("c"))
        assert done == ["a", "b", "c"]

    asyncio.run(scenario())


class FlakyStorage(MemoryStorage):
    """Fails the next ``refusals`` action writes with ``error``: by default one that is
    not an outage, as a bug would."""

    def __init__(self) -> None:
        super().__init__()
        self.refusals = 0
        self.error: StorageError = StorageError("refused, as a bug would be")

    async def append_action(self, table_id: str, deal_index: int, seq: int,
                            entry: LoggedAction) -> None:
        if self.refusals:
            self.refusals -= 1
            raise self.error
        await super().append_action(table_id, deal_index, seq, entry)


def test_a_refused_write_holds_the_action_and_never_acknowledges_it_unlogged() -> None:
    async def scenario() -> None:
        settings = app_settings()
        bots = BotRunner(settings.bots)
        await bots.start()
        storage = FlakyStorage()
        try:
            lobby = Lobby(settings.tables, bots, storage)
            table, client = await solo_table(lobby, "flaky", Options.make("bulgarian"))
            state = await my_turn(client)
            version, legal = state["version"], state["view"]["legal_actions"]
            storage.refusals = 2
            await table.submit(PlayAction(client, "held", version, legal[0]))
            assert (await next_message(client))["event"] == {"kind": "storage",
                                                             "available": False}
            assert table.version == version
            assert (await next_message(client))["event"] == {"kind": "storage",
                                                             "available": True}
            assert (await next_message(client))["version"] == version + 1
            assert await next_message(client) == {"type": "ack", "id": "held",
                                                  "version": version + 1}
            logged = storage.matches[table.id].actions
            assert logged[-1].version >= version + 1  # the log holds what was acknowledged
            await lobby.stop()
        finally:
            await bots.close()

    asyncio.run(asyncio.wait_for(scenario(), 30))

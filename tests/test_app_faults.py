"""What an adversarial pass found at the table, each held to its fix: the creator alone
manages a waiting table, a human who never comes is replaced after the grace, answers are
kept for seated players only, and one action id gets one answer across a reconnect."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from fastapi.testclient import TestClient

from ai import Level
from app.auth import Player
from app.bots import BotRunner
from app.matchlog import DealLog
from app.storage import MemoryLog, StorageUnavailable
from app.tables import (
    AddBot,
    Attach,
    Client,
    Lobby,
    PlayAction,
    SitDown,
    StartMatch,
    TableConfig,
)
from app.vocabulary import EndReason
from engine import Options
from tests.actors import ANA, PATIENCE, first_message, my_turn, next_message, solo_table
from tests.conftest import Rest, app_settings
from tests.test_app_journal import FlakyStorage
from tests.waiting import eventually

GUARD = 30  # seconds: a hang fails the test instead of blocking the suite


def test_only_the_creator_adds_bots_and_starts(client: TestClient, rest: Rest) -> None:
    ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
    table_id = rest.table(ana, [ana, "easy", "easy"])  # seat 3 still empty
    url = f"/api/tables/{table_id}"
    assert client.put(f"{url}/seats/3", headers=rest.auth(ivo)).status_code == 200
    assert client.get(url).json()["owner"] == ana["id"]
    for method, path, body in [("PUT", "/seats/1/bot", {"level": "hard"}),
                               ("DELETE", "/seats/1/bot", None), ("POST", "/start", None)]:
        refused = client.request(method, url + path, headers=rest.auth(ivo), json=body)
        assert refused.status_code == 403, (method, path)
        assert refused.json()["detail"]["code"] == "not_allowed"
    rest.start(table_id, ana)


def run_table(scenario: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(scenario, GUARD))


@contextlib.asynccontextmanager
async def lobby_on(storage: FlakyStorage, **settings: Any) -> AsyncIterator[Lobby]:
    """A lobby logging to ``storage``, its tables stopped and its bots closed after."""
    config = app_settings(**settings)
    bots = BotRunner(config.bots)
    await bots.start()
    lobby = Lobby(config.tables, bots, storage)
    try:
        yield lobby
    finally:
        await lobby.stop()
        await bots.close()


def test_a_human_who_never_connects_is_replaced_after_the_grace() -> None:
    async def scenario() -> None:
        storage = FlakyStorage()
        async with lobby_on(storage, reconnect_grace=0.3, bot_delay=0.05) as lobby:
            config = TableConfig("away", Options.make("bulgarian"), 600, False, False)
            table = lobby.create(ANA, config)
            await table.submit(SitDown(ANA, 0))
            for seat in (1, 2, 3):
                await table.submit(AddBot(ANA, seat, Level.EASY))
            await table.submit(StartMatch(ANA))  # Ana never opens a socket
            await eventually(lambda: table.status == "closed", PATIENCE,
                             "the table to close when Ana never came")
            end = storage.matches[table.id].end
            assert end is not None and end.reason == EndReason.ABANDONED

    run_table(scenario())


def test_answers_are_kept_for_seated_players_only() -> None:
    async def scenario() -> None:
        async with lobby_on(FlakyStorage()) as lobby:
            table, client = await solo_table(lobby, "kept", Options.make("bulgarian"))
            state = await my_turn(client)
            watcher = Client(Player("p-w", "W"), 10)
            await table.submit(Attach(watcher))
            await next_message(watcher)  # the snapshot
            for n in range(100):
                await table.submit(PlayAction(watcher, f"w{n}", state["version"], "AS"))
                refused = await next_message(watcher)
                assert refused["code"] == "not_seated"
            assert all(table.audience.answer("p-w", f"w{n}") is None for n in range(100))

    run_table(scenario())


def answers_once(message: dict[str, Any]) -> bool:
    return message.get("id") == "once"


def test_one_action_id_gets_one_answer_across_a_reconnect_in_an_outage() -> None:
    async def scenario() -> None:
        storage = FlakyStorage()
        async with lobby_on(storage) as lobby:
            table, client = await solo_table(lobby, "once", Options.make("bulgarian"))
            state = await my_turn(client)
            version, action = state["version"], state["view"]["legal_actions"][0]
            storage.refusals, storage.error = 3, StorageUnavailable("down")
            await table.submit(PlayAction(client, "once", version, action))  # held
            again = Client(ANA, 10_000)  # the player reconnects and resends the same id
            await table.submit(Attach(again))
            await table.submit(PlayAction(again, "once", version, action))
            answer = await first_message(again, answers_once, "the answer to 'once'")
            assert answer == {"type": "ack", "id": "once", "version": version + 1}
            await table.submit(PlayAction(again, "once", version, action))  # and once more
            assert await first_message(again, answers_once, "the answer again") == answer

    run_table(scenario())


def test_one_damaged_log_does_not_keep_the_others_from_coming_back() -> None:
    async def scenario() -> None:
        storage = FlakyStorage()
        async with lobby_on(storage) as lobby:
            table, _ = await solo_table(lobby, "fine", Options.make("bulgarian"))
        fine = storage.matches[table.id]  # a log whose deck is not the one its seed deals:
        storage.matches["odd"] = MemoryLog(fine.meta, [DealLog(fine.deals[0].dealer,
                                                               fine.deals[0].deck[::-1])])
        async with lobby_on(storage) as again:
            await again.restore()
            assert set(again.tables) == {table.id}

    run_table(scenario())

"""Helpers for tests that drive a table actor in process, without sockets."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ai import Level
from app.auth import Player
from app.tables import AddBot, Attach, Client, Lobby, SitDown, StartMatch, Table, TableConfig
from engine import Options
from tests.waiting import within

ANA = Player("p-ana", "Ana")
PATIENCE = 30  # seconds a test waits for one message, or for its turn, before it fails


async def solo_table(lobby: Lobby, name: str, options: Options,
                     **config: Any) -> tuple[Table, Client]:
    """A started table: Ana in seat 0 (attached, no socket) and three easy bots; ``config``:
    the table's other settings (TableConfig)."""
    table = lobby.create(ANA, TableConfig(name, options, 600, False, False, **config))
    await table.submit(SitDown(ANA, 0))
    for seat in (1, 2, 3):
        await table.submit(AddBot(ANA, seat, Level.EASY))
    client = Client(ANA, 10_000)
    await table.submit(Attach(client))
    await table.submit(StartMatch(ANA))
    return table, client


async def next_message(client: Client) -> dict[str, Any]:
    """The next message the table sent the client; it fails after ``PATIENCE`` seconds."""
    message = await within(client.outbox.get(), PATIENCE, "the table's next message")
    assert isinstance(message, str), message
    parsed: dict[str, Any] = json.loads(message)
    return parsed


async def first_message(client: Client, done: Callable[[dict[str, Any]], bool],
                        what: str) -> dict[str, Any]:
    """The first of the client's next messages for which ``done`` holds; it fails after
    ``PATIENCE`` seconds."""

    async def reading() -> dict[str, Any]:
        while not done(message := await next_message(client)):
            pass
        return message

    return await within(reading(), PATIENCE, what)


async def my_turn(client: Client) -> dict[str, Any]:
    """The next state in which the client's seat (0) has something to do."""
    return await first_message(
        client, lambda m: m.get("turn") == 0 and bool(m["view"]["legal_actions"]),
        "the client's seat (0) to have something to do")

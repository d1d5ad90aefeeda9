"""Helpers for tests that drive a table actor in process, without sockets."""

from __future__ import annotations

import json
from typing import Any

from app.auth import Player
from app.tables import AddBot, Attach, Client, Lobby, SitDown, StartMatch, Table, TableConfig
from engine import Options

ANA = Player("p-ana", "Ana")


async def solo_table(lobby: Lobby, name: str, options: Options) -> tuple[Table, Client]:
    """A started table: Ana in seat 0 (attached, no socket) and three easy bots."""
    table = lobby.create(ANA, TableConfig(name, options, 600, False, False))
    await table.submit(SitDown(ANA, 0))
    for seat in (1, 2, 3):
        await table.submit(AddBot(ANA, seat, "easy"))
    client = Client(ANA, 10_000)
    await table.submit(Attach(client))
    await table.submit(StartMatch(ANA))
    return table, client


async def next_message(client: Client) -> dict[str, Any]:
    message = await client.outbox.get()
    assert isinstance(message, str), message
    parsed: dict[str, Any] = json.loads(message)
    return parsed


async def my_turn(client: Client) -> dict[str, Any]:
    """The next state in which the client's seat (0) has something to do."""
    while True:
        message = await next_message(client)
        if message.get("turn") == 0 and message["view"]["legal_actions"]:
            return message

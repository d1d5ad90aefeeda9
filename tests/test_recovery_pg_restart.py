"""A routine PostgreSQL restart (``pg_ctl stop -m fast``, then ``start``) under busy tables.

While the database shuts down and starts it refuses connections with SQLSTATE 57P03;
that must read as "unavailable": each table holds, retries, and goes on by itself once
the database is back.  Nothing a player was told may be missing from the log, which a
``kill -9`` right after proves: whatever was broadcast or acknowledged must be there.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from app.db.migrate import scratch_database, upgrade
from tests.own_postgres import OwnPostgres, own_postgres
from tests.test_db_support import run
from tests.test_recovery import SEAT, Server, join, stored_log
from tests.waiting import eventually, received

pytestmark = [pytest.mark.postgres, pytest.mark.processes]

GUARD = 120  # seconds: a hang fails the test instead of blocking the suite
TABLES = 6
PROGRESS = 30  # seconds the tables get to move on once the database is back
BUSY = 10  # versions every table has reached before the database stops


@pytest.fixture(scope="module")
def database() -> Iterator[tuple[OwnPostgres, str]]:
    with own_postgres() as server, scratch_database(server.url, "belote_restart") as url:
        upgrade(url)
        yield server, url


@dataclass
class Player:
    """One table's human: plays at once, and notes what the server said."""

    table_id: str
    ws: ClientConnection
    rng: random.Random
    told: int = 0  # the highest version any message carried
    acked: set[int] = field(default_factory=set)
    over: bool = False
    outage: bool = False  # told the database is unavailable

    async def play(self) -> None:
        acted = -1
        with contextlib.suppress(ConnectionClosed):
            async for text in received(self.ws, PROGRESS, f"a frame from {self.table_id}"):
                message: dict[str, Any] = json.loads(text)
                if message["type"] == "ack":
                    self.acked.add(message["version"])
                if message["type"] not in ("snapshot", "event"):
                    continue
                if message.get("event") == {"kind": "storage", "available": False}:
                    self.outage = True
                self.told = max(self.told, message["version"])
                if message["table"]["status"] == "over":
                    self.over = True
                    return
                view, version = message["view"], message["version"]
                if message["turn"] == SEAT and view and view["legal_actions"] \
                        and version != acted:
                    acted = version
                    await self.ws.send(json.dumps({
                        "type": "action", "id": f"a{version}", "version": version,
                        "action": self.rng.choice(view["legal_actions"])}))


async def new_table(server: Server, http: httpx2.AsyncClient, index: int) -> Player:
    guest = (await http.post("/api/guests", json={"name": f"P{index}"})).json()
    auth = {"Authorization": f"Bearer {guest['token']}"}
    created = await http.post("/api/tables", headers=auth, json={
        "name": f"restart {index}", "options": {"target_score": 1000}})
    assert created.status_code == 201, created.text
    table_id = created.json()["id"]
    assert (await http.put(f"/api/tables/{table_id}/seats/{SEAT}", headers=auth)).is_success
    for seat in (1, 2, 3):
        assert (await http.put(f"/api/tables/{table_id}/seats/{seat}/bot",
                               json={"level": "easy"}, headers=auth)).is_success
    ws = await join(server, table_id, guest["token"])
    assert (await http.post(f"/api/tables/{table_id}/start", headers=auth)).is_success
    return Player(table_id, ws, random.Random(index))


async def logged(url: str, table_id: str) -> set[int]:
    """The versions of the actions the log holds for the table."""
    log = await stored_log(url, table_id)
    log.replay()  # it still replays
    return {a.version or 0 for deal in log.actions for a in deal}


async def scenario(pg: OwnPostgres, url: str, cwd: Path) -> None:
    server = Server(url, cwd)
    server.env["BOT_DELAY"] = "0.02"  # busy tables, not a flood
    await server.start()
    try:
        async with httpx2.AsyncClient(base_url=server.http) as http:
            players = [await new_table(server, http, i) for i in range(TABLES)]
        tasks = [asyncio.create_task(p.play()) for p in players]
        await eventually(lambda: all(p.told >= BUSY for p in players), PROGRESS,
                         "every table to get going")

        await asyncio.to_thread(pg.stop, "fast")
        # Writes meet a database that is down (and then starting, during pg.start).
        await eventually(lambda: all(p.outage for p in players), PROGRESS,
                         "every table to say the database is unavailable")
        await asyncio.to_thread(pg.start)
        back = {p.table_id: p.told for p in players}

        # Every table moves on by itself: none is frozen by the restart.
        def frozen() -> list[str]:
            return [p.table_id for p in players
                    if not p.over and p.told <= back[p.table_id] + 8]

        await eventually(lambda: not frozen(), PROGRESS,
                         lambda: f"the tables to move on after the restart: {frozen()}")

        # What anyone was told is in the log: kill the server where it stands.
        await server.kill()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for player in players:
            versions = await logged(url, player.table_id)
            assert max(versions) >= player.told, (player.table_id, player.told, max(versions))
            assert player.acked <= versions, player.acked - versions
    finally:
        await server.stop()


def test_tables_go_on_after_a_postgresql_restart(
    database: tuple[OwnPostgres, str], tmp_path: Path
) -> None:
    run(asyncio.wait_for(scenario(*database, tmp_path), GUARD))

"""Whose X-Forwarded-For a real ``python -m app`` believes: by default no one's, so a
client on the server's own host cannot pick its address and slip past the per-address
limits; with TRUSTED_PROXIES naming its proxy, each player behind it counts alone.  A
node believes the address another node relays with the cluster's mark, and only then."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import httpx2
import pytest
from starlette.requests import Request
from starlette.websockets import WebSocket

from app.api.deps import client_address
from app.cluster import Cluster
from app.cluster.relay import CLIENT, RELAY, relay_mark
from app.db.migrate import upgrade
from tests.test_recovery import LAST_RESORT, Server, guarded, running

pytestmark = pytest.mark.processes

LIMIT = 2  # MAX_TABLES_PER_ADDRESS here


async def created(server: Server, forwarded_for: list[str]) -> list[int]:
    """The status of a table's creation by a new guest for each X-Forwarded-For given."""
    statuses = []
    async with httpx2.AsyncClient(base_url=server.http, timeout=10) as http:
        for address in forwarded_for:
            guest = (await http.post("/api/guests", json={"name": "Ana"})).json()
            response = await http.post(
                "/api/tables", json={"name": "t"},
                headers={"Authorization": f"Bearer {guest['token']}",
                         "X-Forwarded-For": address})
            statuses.append(response.status_code)
            if response.status_code == 429:
                assert response.json()["detail"]["code"] == "too_many_tables_for_address"
    return statuses


async def both(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'proxies.db'}"
    await asyncio.to_thread(upgrade, url)
    trusting_none, trusting_local = Server(url, tmp_path), Server(url, tmp_path)
    for server in (trusting_none, trusting_local):
        server.env = {k: v for k, v in server.env.items()
                      if k not in ("TRUSTED_PROXIES", "FORWARDED_ALLOW_IPS")}
        server.env["MAX_TABLES_PER_ADDRESS"] = str(LIMIT)
    trusting_local.env["TRUSTED_PROXIES"] = "127.0.0.1, ::1"
    async with running(trusting_none), running(trusting_local):
        # Each request forges another address: all count under 127.0.0.1 all the same.
        forged = [f"203.0.113.{i}" for i in range(LIMIT + 1)]
        assert await created(trusting_none, forged) == [201] * LIMIT + [429]
        # Behind a trusted proxy: one player per address, each with its own limit.
        assert await created(trusting_local, forged) == [201] * (LIMIT + 1)
        assert await created(trusting_local, ["198.51.100.7"] * (LIMIT + 1)) == (
            [201] * LIMIT + [429])


@pytest.mark.timeout(guarded(2) + LAST_RESORT)
def test_x_forwarded_for_is_believed_from_trusted_proxies_only(tmp_path: Path) -> None:
    asyncio.run(asyncio.wait_for(both(tmp_path), guarded(2)))  # both servers' starts apart


MARK = relay_mark("the cluster's secret")
NODE = cast(Cluster, SimpleNamespace(mark=MARK))


@pytest.mark.parametrize("kind", ["http", "websocket"])
def test_a_node_believes_the_address_a_node_relays_with_the_mark(kind: str) -> None:
    def seen(**headers: str) -> str | None:
        scope = {"type": kind, "client": ("10.0.0.2", 5000),
                 "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
        return client_address(Request(scope) if kind == "http" else WebSocket(
            scope, receive=None, send=None), NODE)  # type: ignore[arg-type]

    assert seen() == "10.0.0.2"
    assert seen(**{RELAY: MARK, CLIENT: "203.0.113.9"}) == "203.0.113.9"
    assert seen(**{RELAY: relay_mark("a guess"), CLIENT: "203.0.113.9"}) == "10.0.0.2"
    assert seen(**{CLIENT: "203.0.113.9"}) == "10.0.0.2"

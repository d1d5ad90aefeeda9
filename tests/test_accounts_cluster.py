"""Accounts across two real nodes sharing Redis and PostgreSQL: a logout on one node
closes the socket held on the other at once, failed logins count on every node alike,
and a guest who signs up on one node loses its guest token on the other."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from app.protocol import CloseCode
from tests.cluster_nodes import Cluster, Node, cluster_of
from tests.waiting import within

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.processes]

GUARD = 60  # seconds for the test's coroutine
CLOSE = 10  # seconds the socket may take to close after the logout
SECRET = "correct horse battery staple"
ENV = {"ARGON2_MEMORY_KIB": "1024", "ARGON2_TIME_COST": "1",
       "LOGIN_FAILURES_PER_USERNAME": "3"}


async def call(http: httpx2.AsyncClient, method: str, node: Node, path: str,
               token: str | None = None, body: Any = None, status: int = 200) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = await http.request(method, node.http + path, json=body, headers=headers)
    assert response.status_code == status, f"{method} {path}: {response.text}"
    return response.json() if response.content else None


async def across_nodes(cluster: Cluster) -> None:
    a, b = cluster["A"], cluster["B"]
    credentials = {"username": "ana", "password": SECRET}
    async with httpx2.AsyncClient(timeout=10) as http:
        ana = await call(http, "POST", a, "/api/accounts", body=credentials, status=201)
        table = await call(http, "POST", a, "/api/tables", ana["token"], {"name": "t"},
                           status=201)
        session = await call(http, "POST", b, "/api/sessions", body=credentials, status=201)
        async with connect(a.ws(table["id"]), open_timeout=5, close_timeout=2) as socket:
            await socket.send(json.dumps({"type": "hello", "protocol": 1,
                                          "token": session["token"]}))
            assert json.loads(await socket.recv())["type"] == "welcome"
            await call(http, "DELETE", b, "/api/sessions", session["token"], status=204)
            with contextlib.suppress(ConnectionClosed):
                await within(_drain(socket), CLOSE, "the socket on A to close")
            assert socket.close_code == CloseCode.SESSION_ENDED
        await call(http, "GET", a, "/api/me", session["token"], status=401)
        await call(http, "GET", a, "/api/me", ana["token"])  # the other session goes on

        wrong = {"username": "ANA", "password": "not the password"}
        for node in (a, b, a):
            await call(http, "POST", node, "/api/sessions", body=wrong, status=401)
        response = await http.post(b.http + "/api/sessions", json=credentials)
        assert response.status_code == 429, response.text
        assert int(response.headers["Retry-After"]) > 0

        guest = await call(http, "POST", a, "/api/guests", body={"name": "Ivo"}, status=201)
        await call(http, "GET", b, "/api/me", guest["token"])
        await call(http, "POST", a, "/api/accounts", guest["token"],
                   {"username": "ivo", "password": SECRET}, status=201)
        await call(http, "GET", b, "/api/me", guest["token"], status=401)


async def _drain(socket: Any) -> None:
    while True:
        await socket.recv()


def test_accounts_across_nodes(tmp_path: Path) -> None:
    with cluster_of(tmp_path, "AB", env=ENV) as cluster:
        cluster.run(within(across_nodes(cluster), GUARD, "the test"))
        assert cluster.errors() == []

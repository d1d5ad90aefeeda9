"""Accounts across real nodes sharing Redis and PostgreSQL: a logout on one node closes
the socket held on the other at once, and so do logins on it that push the session out
(MAX_SESSIONS); failed logins count on every node alike (a burst spread over three nodes
too, and sign-ups), and a guest who signs up on one node loses its guest token on the
other."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from app.accounts.sessions import MAX_SESSIONS
from app.protocol import CloseCode
from tests.cluster_nodes import Cluster, Node, cluster_of
from tests.test_shared_keys import check_written
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

        bo = await call(http, "POST", a, "/api/accounts", status=201,
                        body={"username": "boris", "password": SECRET})
        async with connect(a.ws(table["id"]), open_timeout=5, close_timeout=2) as socket:
            await socket.send(json.dumps({"type": "hello", "protocol": 1,
                                          "token": bo["token"]}))
            assert json.loads(await socket.recv())["type"] == "welcome"
            for _ in range(MAX_SESSIONS):  # the oldest session, the socket's, ends
                await call(http, "POST", b, "/api/sessions", status=201,
                           body={"username": "boris", "password": SECRET})
            with contextlib.suppress(ConnectionClosed):
                await within(_drain(socket), CLOSE, "the socket on A to close")
            assert socket.close_code == CloseCode.SESSION_ENDED
        await call(http, "GET", a, "/api/me", bo["token"], status=401)

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
    await check_written(cluster.redis_url, cluster.prefix)


async def _drain(socket: Any) -> None:
    while True:
        await socket.recv()


def test_accounts_across_nodes(tmp_path: Path) -> None:
    with cluster_of(tmp_path, "AB", env=ENV) as cluster:
        cluster.run(within(across_nodes(cluster), GUARD, "the test"))
        assert cluster.errors() == []


async def bursts(cluster: Cluster) -> None:
    """60 wrong passwords and 30 sign-ups at once, spread over three nodes: each limit
    (the defaults: 10 failures per username at an address, 10 sign-ups per address)
    holds over the cluster, and the right password sent next is refused on every node."""
    nodes = [cluster["A"], cluster["B"], cluster["C"]]
    credentials = {"username": "ana", "password": SECRET}
    wrong = {"username": "ana", "password": "not the password"}
    async with httpx2.AsyncClient(timeout=30) as http:
        await call(http, "POST", nodes[0], "/api/accounts", body=credentials, status=201)
        answers = await asyncio.gather(*(
            http.post(nodes[i % 3].http + "/api/sessions", json=wrong) for i in range(60)))
        assert Counter(a.status_code for a in answers) == {401: 10, 429: 50}
        for node in nodes:
            await call(http, "POST", node, "/api/sessions", body=credentials, status=429)

        answers = await asyncio.gather(*(
            http.post(nodes[i % 3].http + "/api/accounts",
                      json={"username": f"lena{i}", "password": SECRET})
            for i in range(30)))
        # The account above was the address's first sign-up.
        assert Counter(a.status_code for a in answers) == {201: 9, 429: 21}


def test_bursts_stop_at_the_limits_across_three_nodes(tmp_path: Path) -> None:
    with cluster_of(tmp_path, "ABC", env=ENV | {"LOGIN_FAILURES_PER_USERNAME": "10"}) as cluster:
        cluster.run(within(bursts(cluster), GUARD, "the test"))
        assert cluster.errors() == []

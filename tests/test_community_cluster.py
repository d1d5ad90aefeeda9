"""The community across two real nodes sharing Redis and PostgreSQL: a friend request and
an invitation made on node A reach a personal socket open on node B; a friend online on
A shows online to a friend reading on B; a public match started on A is in B's Watch
list (``GET /api/tables?status=playing``), its player's friend told where it sits; two
partners queued on two nodes sit on one team; a notice told on A to a player offline
is sent when its channel opens on B; a block made on B reaches the chat of a match in
progress on A."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.asyncio.client import ClientConnection, connect

from tests.cluster_nodes import Cluster, Node, cluster_of
from tests.test_accounts_cluster import ENV, SECRET, call
from tests.test_shared_keys import check_written
from tests.waiting import eventually, within

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.processes]

GUARD = 90  # seconds for the test's coroutine
NOTICE = 10  # seconds a notice may take to arrive


def channel(node: Node) -> str:
    return f"ws://127.0.0.1:{node.port}/api/me/ws"


async def opened(socket: ClientConnection, token: str) -> None:
    await socket.send(json.dumps({"type": "hello", "protocol": 1, "token": token}))
    assert json.loads(await socket.recv())["type"] == "welcome"


async def notice(socket: ClientConnection, kind: str) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await socket.recv())
            if message["type"] == "notice" and message["kind"] == kind:
                return message
    return await within(read(), NOTICE, f"a {kind} notice")


async def across_nodes(cluster: Cluster) -> None:
    a, b = cluster["A"], cluster["B"]
    async with httpx2.AsyncClient(timeout=10) as http:
        ana = await call(http, "POST", a, "/api/accounts", status=201,
                         body={"username": "ana", "password": SECRET})
        bob = await call(http, "POST", b, "/api/accounts", status=201,
                         body={"username": "bob", "password": SECRET})
        async with connect(channel(b), open_timeout=5, close_timeout=2) as bob_ws:
            await opened(bob_ws, bob["token"])
            await call(http, "POST", a, "/api/friends", ana["token"], {"player": bob["id"]})
            assert (await notice(bob_ws, "friend_request"))["player"]["id"] == ana["id"]
            await call(http, "POST", b, "/api/friends", bob["token"], {"player": ana["id"]})
            async with connect(channel(a), open_timeout=5, close_timeout=2) as ana_ws:
                await opened(ana_ws, ana["token"])
                assert (await notice(bob_ws, "friend_online"))["online"] is True
                seen = await call(http, "GET", b, "/api/friends", bob["token"])
                assert seen["friends"][0]["online"] is True
            table = await call(http, "POST", a, "/api/tables", ana["token"], {"name": "t"},
                               status=201)
            await call(http, "PUT", a, f"/api/tables/{table['id']}/seats/0", ana["token"])
            await call(http, "POST", b, f"/api/tables/{table['id']}/invitations",
                       ana["token"], {"player": bob["id"]}, status=204)
            told = await notice(bob_ws, "invitation")
            assert told["table"] == table["id"] and told["player"]["id"] == ana["id"]
            for seat in (1, 2, 3):
                await call(http, "PUT", a, f"/api/tables/{table['id']}/seats/{seat}/bot",
                           ana["token"], {"level": "easy"})
            await call(http, "POST", a, f"/api/tables/{table['id']}/start", ana["token"])

            async def listed() -> bool:
                page = await call(http, "GET", b, "/api/tables?status=playing")
                return [t["id"] for t in page["tables"]] == [table["id"]]

            await eventually(listed, NOTICE, "the match started on A in B's Watch list")
            seen = await call(http, "GET", b, "/api/friends", bob["token"])
            assert seen["friends"][0]["table"] == table["id"]

            # Partners queued on two nodes sit on one team.
            cleo = await call(http, "POST", a, "/api/accounts", status=201,
                              body={"username": "cleo", "password": SECRET})
            dan = await call(http, "POST", b, "/api/accounts", status=201,
                             body={"username": "dan", "password": SECRET})
            first = await call(http, "POST", a, "/api/queue", cleo["token"],
                               {"partner": dan["id"], "wait_seconds": 0})
            assert first["status"] == "waiting"  # until her partner comes
            made = await call(http, "POST", b, "/api/queue", dan["token"],
                              {"partner": cleo["id"], "wait_seconds": 0})
            assert made["status"] == "seated"
            seats = (await call(http, "GET", a, f"/api/tables/{made['table_id']}"))["seats"]
            assert [seat.get("player") for seat in seats[::2]] == [cleo["id"], dan["id"]]

            # Told on A while Dan has no channel open anywhere: kept, sent when one opens
            # on B, dismissed on A.
            await call(http, "POST", a, "/api/friends", cleo["token"], {"player": dan["id"]})
            async with connect(channel(b), open_timeout=5, close_timeout=2) as dan_ws:
                await opened(dan_ws, dan["token"])
                kept = await notice(dan_ws, "friend_request")
                assert kept["player"]["id"] == cleo["id"]
            await call(http, "DELETE", a, f"/api/me/notices/{kept['id']}", dan["token"],
                       status=204)
            assert (await call(http, "GET", b, "/api/me/notices", dan["token"])) == {
                "notices": []}
            await block_during_a_match(http, a, b)
    await check_written(cluster.redis_url, cluster.prefix)


async def said(socket: ClientConnection) -> str:
    """The name of whoever said the next chat message the table socket reads."""
    async def read() -> str:
        while True:
            message = json.loads(await socket.recv())
            if message["type"] == "event" and message["event"]["kind"] == "chat":
                name: str = message["event"]["name"]
                return name
    return await within(read(), NOTICE, "a chat message")


async def block_during_a_match(http: httpx2.AsyncClient, a: Node, b: Node) -> None:
    """Eve blocks Fay through node B while both play at a table node A holds, Fay's
    socket on B: from then on neither reads the other's chat, the match going on."""
    eve, fay, gus = [await call(http, "POST", a, "/api/accounts", status=201,
                                body={"username": name, "password": SECRET})
                     for name in ("eve", "fay", "gus")]
    table = (await call(http, "POST", a, "/api/tables", eve["token"], {"name": "t"},
                        status=201))["id"]
    for seat, who in enumerate((eve, fay, gus)):
        await call(http, "PUT", a, f"/api/tables/{table}/seats/{seat}", who["token"])
    await call(http, "PUT", a, f"/api/tables/{table}/seats/3/bot", eve["token"],
               {"level": "easy"})
    await call(http, "POST", a, f"/api/tables/{table}/start", eve["token"])
    sockets = [connect(f"ws://127.0.0.1:{node.port}/api/tables/{table}/ws", open_timeout=5,
                       close_timeout=2) for node in (a, b, a)]
    async with sockets[0] as eve_ws, sockets[1] as fay_ws, sockets[2] as gus_ws:
        for socket, who in ((eve_ws, eve), (fay_ws, fay), (gus_ws, gus)):
            await opened(socket, who["token"])
        await fay_ws.send(json.dumps({"type": "chat", "phrase": "hello"}))
        assert [await said(eve_ws), await said(gus_ws)] == ["fay", "fay"]
        await call(http, "POST", b, "/api/blocks", eve["token"], {"player": fay["id"]},
                   status=204)
        for _ in range(3):  # B's word reaches A's table soon, not in a known order
            await fay_ws.send(json.dumps({"type": "chat", "phrase": "sorry"}))
            assert await said(gus_ws) == "fay"
            await gus_ws.send(json.dumps({"type": "chat", "phrase": "thanks"}))
            assert await said(gus_ws) == "gus"
            if await said(eve_ws) == "gus":  # Fay's "sorry" not read: blocked
                break
            assert await said(eve_ws) == "gus"
        else:
            raise AssertionError("Eve still reads Fay's chat after blocking her")


def test_the_community_across_nodes(tmp_path: Path) -> None:
    with cluster_of(tmp_path, "AB", env=ENV) as cluster:
        cluster.run(within(across_nodes(cluster), GUARD, "the test"))
        assert cluster.errors() == []

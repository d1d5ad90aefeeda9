"""The deployed server: ``python -m app`` started with the compose file's environment on a
scratch PostgreSQL database.  A smoke match with metrics and JSON logs; ``/readyz``
through a database outage; SIGTERM in the middle of a match."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import redis
from sqlalchemy.engine import make_url
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app.db.migrate import scratch_database, upgrade
from tests.services import free_port, redis_url
from tests.test_db_support import PG_SERVER, run
from tests.test_deploy_config import STRONG, compose_app
from tests.test_recovery import (
    LAST_RESORT,
    SEAT,
    SERVER_STOP,
    answering,
    guarded,
    logged_state,
    play,
    stored_log,
    terminate,
)
from tests.test_recovery_storage_down import Proxy
from tests.waiting import eventually, received

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.processes]

ROOT = Path(__file__).resolve().parents[1]
LOCAL_REDIS = redis_url()  # tests/services.py
REDIS_PREFIX = f"belote-deploy-{uuid.uuid4().hex[:12]}:"
PATIENCE = 30  # seconds a client waits for a frame, or /readyz for its answer
METRICS = ("belote_open_tables", "belote_connected_players", "belote_actions_total",
           'belote_bot_decision_seconds_bucket{le="+Inf",level="easy"}',
           "belote_action_broadcast_seconds_count", "belote_db_write_seconds_count")


@pytest.fixture(scope="module", autouse=True)
def redis_keys() -> Iterator[None]:
    """The compose app is a cluster node: its Redis keys go, by their prefix, at the end."""
    yield
    client = redis.Redis.from_url(LOCAL_REDIS)
    try:
        for key in client.scan_iter(f"{REDIS_PREFIX}*"):
            client.delete(key)
    finally:
        client.close()


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A scratch database of this module's own, migrated as the compose command does."""
    with scratch_database(PG_SERVER, "belote_deploy") as url:
        upgrade(url)
        yield url


class Deployed:
    """``python -m app`` with the compose app's environment, pointed at ``database_url``;
    only the pace of the test's bots and turns is added.  Its log goes to ``log``."""

    def __init__(self, database_url: str, log: Path) -> None:
        self.port = free_port()
        self.http = f"http://127.0.0.1:{self.port}"
        compose = {name: str(value) for name, value in compose_app()["environment"].items()}
        self.env = os.environ | compose | {
            "PYTHONPATH": str(ROOT),
            "DATABASE_URL": database_url,
            "REDIS_URL": LOCAL_REDIS,  # the machine's, for compose's `redis` service
            "REDIS_PREFIX": REDIS_PREFIX,
            "SECRET_KEY": STRONG,
            "LOG_LEVEL": "info",
            "BOT_DELAY": "0",
            "BOT_PROCESSES": "1",
            "DEFAULT_TURN_SECONDS": "600",
            "WS_RATE": "10000",
            "WS_BURST": "10000",
            "REST_RATE_PER_TOKEN": "100000/second",
            "REST_RATE_PER_ADDRESS": "100000/second",
        }
        self.log = log
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with self.log.open("a") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(self.port),
                env=self.env, cwd=self.log.parent, stderr=log,
            )
        await answering(self.process, f"{self.http}/healthz", self.log.read_text)

    async def stop(self) -> None:
        await terminate(self.process)


@contextlib.asynccontextmanager
async def running(server: Deployed) -> AsyncIterator[Deployed]:
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def new_match(server: Deployed) -> tuple[str, str, ClientConnection]:
    """A started table: the human at SEAT over a socket, easy bots elsewhere."""
    async with httpx2.AsyncClient(base_url=server.http) as http:
        guest = (await http.post("/api/guests", json={"name": "Ana"})).json()
        auth = {"Authorization": f"Bearer {guest['token']}"}
        created = await http.post("/api/tables", json={"name": "deploy"}, headers=auth)
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
        assert (await http.put(f"/api/tables/{table_id}/seats/{SEAT}",
                               headers=auth)).status_code == 200
        for seat in (1, 2, 3):
            assert (await http.put(f"/api/tables/{table_id}/seats/{seat}/bot",
                                   json={"level": "easy"}, headers=auth)).status_code == 200
        ws = await join(server, table_id, guest["token"])
        assert (await http.post(f"/api/tables/{table_id}/start",
                                headers=auth)).status_code == 200
    return table_id, guest["token"], ws


async def join(server: Deployed, table_id: str, token: str) -> ClientConnection:
    ws = await connect(f"ws://127.0.0.1:{server.port}/api/tables/{table_id}/ws")
    await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token}))
    return ws


async def play_acked(ws: ClientConnection, rng: random.Random, until: int,
                     acked: set[int]) -> dict[str, Any]:
    """Play random legal actions for the human, noting the version of every ack, up to
    its first turn at version ``until`` or later."""
    acted = -1
    async for text in received(ws, PATIENCE, "the server's next frame"):
        message: dict[str, Any] = json.loads(text)
        if message["type"] == "ack":
            acked.add(message["version"])
        if message["type"] not in ("snapshot", "event") or message["view"] is None:
            continue
        version, legal = message["version"], message["view"]["legal_actions"]
        if message["turn"] == SEAT and legal and version != acted:
            if version >= until:
                return message
            acted = version
            await ws.send(json.dumps({"type": "action", "id": f"a{version}",
                                      "version": version, "action": rng.choice(legal)}))
    raise AssertionError("the socket closed mid-match")


def metric(text: str, name: str) -> float:
    line = next(line for line in text.splitlines() if line.startswith(name + " "))
    return float(line.rsplit(" ", 1)[1])


async def smoke(pg_url: str, tmp_path: Path) -> None:
    server = Deployed(pg_url, tmp_path / "server.log")
    async with running(server):
        table_id, _, ws = await new_match(server)
        state = await play(ws, random.Random(3), until=40)  # several tricks, or the end
        assert state["version"] >= 40 or state["table"]["status"] == "over"
        async with httpx2.AsyncClient(base_url=server.http) as http:
            assert (await http.get("/readyz")).json() == {"status": "ready"}
            exposed = (await http.get("/metrics")).text
        await ws.close()
    for name in METRICS:
        assert metric(exposed, name) >= (1 if name.endswith(("total", "count", "}")) else 0)
    assert metric(exposed, "belote_open_tables") >= 1
    assert metric(exposed, "belote_connected_players") == 1
    assert metric(exposed, "belote_actions_total") >= state["version"] - 6  # seats, start

    lines = [json.loads(line) for line in server.log.read_text().splitlines()]
    started = [line for line in lines if line["message"].startswith("match started")]
    assert started and all(
        (line["table_id"], line["match_id"]) == (table_id, table_id) for line in started)
    assert any(line["logger"].startswith("uvicorn") for line in lines)  # one format for all


def test_a_match_on_the_compose_configuration(pg_url: str, tmp_path: Path) -> None:
    run(asyncio.wait_for(smoke(pg_url, tmp_path), guarded(1)))


async def readiness(pg_url: str, tmp_path: Path) -> None:
    url = make_url(pg_url)
    proxy = Proxy(url.host or "127.0.0.1", url.port or 5432)
    await proxy.open()
    behind = url.set(host="127.0.0.1", port=proxy.port).render_as_string(False)
    server = Deployed(behind, tmp_path / "server.log")
    try:
        async with running(server), httpx2.AsyncClient(base_url=server.http) as http:

            async def ready_is(status: int) -> dict[str, Any]:
                answers: list[httpx2.Response] = []

                async def answered() -> bool:
                    answers.append(await http.get("/readyz"))
                    return answers[-1].status_code == status

                await eventually(answered, PATIENCE, f"/readyz to answer {status}")
                body: dict[str, Any] = answers[-1].json()
                return body

            assert await ready_is(200) == {"status": "ready"}
            await proxy.close()
            down = await ready_is(503)
            assert (down["status"], down["code"]) == ("unready", "database_unavailable")
            assert (await http.get("/healthz")).status_code == 200  # alive all the same
            await proxy.open()
            assert await ready_is(200) == {"status": "ready"}
    finally:
        with contextlib.suppress(AssertionError):
            await proxy.close()


def test_readyz_follows_the_database(pg_url: str, tmp_path: Path) -> None:
    run(asyncio.wait_for(readiness(pg_url, tmp_path), guarded(1)))


async def sigterm(pg_url: str, tmp_path: Path) -> None:
    server = Deployed(pg_url, tmp_path / "server.log")
    rng = random.Random(11)
    acked: set[int] = set()
    await server.start()
    assert server.process is not None
    table_id, token, ws = await new_match(server)
    state = await play_acked(ws, rng, 24, acked)
    assert acked
    # An action in flight when the signal lands: answered before the close, or not at all.
    await ws.send(json.dumps({"type": "action", "id": "last", "version": state["version"],
                              "action": rng.choice(state["view"]["legal_actions"])}))
    server.process.send_signal(signal.SIGTERM)
    with contextlib.suppress(ConnectionClosed):
        async for text in received(ws, PATIENCE, "the socket to close at SIGTERM"):
            message = json.loads(text)
            if message["type"] == "ack":
                acked.add(message["version"])
    assert ws.close_code == 1012
    # Within SERVER_STOP: the interpreter's teardown after the app's shutdown takes
    # seconds of its own on a loaded machine.
    assert await asyncio.wait_for(server.process.wait(), SERVER_STOP) == 0

    version, view = await logged_state(pg_url, table_id)
    log = await stored_log(pg_url, table_id)
    logged = {(a.version, a.seat) for deal in log.actions for a in deal}
    assert {(v, SEAT) for v in acked} <= logged  # nothing acknowledged is lost
    assert version >= max(acked)
    assert version >= state["version"]

    async with running(server):
        ws = await join(server, table_id, token)
        frames = received(ws, PATIENCE, "the restarted server's next frame")
        await anext(frames)  # welcome
        after = json.loads(await anext(frames))
        assert after["type"] == "snapshot"
        assert after["seat"] == SEAT and after["version"] >= version
        # If bots were to act at the signal, they play on after the restart up to the
        # human's turn, which waits for the player: compare there with the log.
        while after["turn"] not in (SEAT, None):
            after = json.loads(await anext(frames))
        assert (after["version"], after["view"]) == await logged_state(pg_url, table_id)
        if after["version"] == version:
            assert after["view"] == view
        await ws.close()


@pytest.mark.timeout(guarded(2) + LAST_RESORT)
def test_sigterm_loses_nothing_and_the_match_resumes(pg_url: str, tmp_path: Path) -> None:
    run(asyncio.wait_for(sigterm(pg_url, tmp_path), guarded(2)))

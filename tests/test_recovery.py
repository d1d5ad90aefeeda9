"""Crash recovery against a real ``python -m app`` process on SQLite and on PostgreSQL:
part of a match over a real WebSocket, SIGKILL, a restart, and the same table again,
action for action; then the served record of the finished match replays to the stored
results with ``python -m engine replay``.  Also: a server refuses an unmigrated database."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.asyncio.client import ClientConnection, connect

from app.db.match_log import MatchLog
from app.db.repository import Repository
from app.db.session import Database
from tests.conftest import SERVER_START
from tests.services import free_port
from tests.test_db_support import run
from tests.waiting import Deadline, eventually, received, within

pytestmark = pytest.mark.processes

pytest_plugins = ["tests.test_db_support"]  # db_url: migrated SQLite, then PostgreSQL

ROOT = Path(__file__).resolve().parents[1]
GUARD = 60  # seconds: a hang fails the test instead of blocking the suite
SEAT = 0  # the human's; bots hold the other three
KILL_AT = 30  # the human's first turn at or after this version: mid-deal, mid-match
SERVER_STOP = 60  # seconds a server may take to exit on SIGTERM (SHUTDOWN_TIMEOUT is 10)
PATIENCE = 30  # seconds a client waits for its next frame
LAST_RESORT = 30  # seconds pytest-timeout leaves beyond a test's own bound (guarded())


def guarded(starts: int) -> float:
    """The bound of a test that starts a server ``starts`` times: GUARD for its own steps
    and SERVER_START for each start, which alone takes tens of seconds on a loaded
    machine (a bound on the whole that left the starts out failed the test there)."""
    return GUARD + starts * SERVER_START


async def answering(process: asyncio.subprocess.Process, url: str,
                    output: Callable[[], str] = lambda: "see the output above") -> None:
    """Return once the server ``process`` answers ``url`` with 200; fail with its
    ``output`` if it exits first or does not answer within SERVER_START seconds."""
    async with httpx2.AsyncClient() as http:

        async def answers() -> bool:
            assert process.returncode is None, f"the server exited: {output()}"
            with contextlib.suppress(httpx2.TransportError):
                return (await http.get(url)).status_code == 200
            return False

        await eventually(answers, SERVER_START, lambda: f"{url} to answer: {output()}")


async def terminate(process: asyncio.subprocess.Process | None) -> None:
    """Stop a server with SIGTERM; one still running SERVER_STOP seconds later is killed,
    and the test fails."""
    if process is None or process.returncode is not None:
        return
    process.terminate()
    try:
        await within(process.wait(), SERVER_STOP, "the server to exit on SIGTERM")
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


class Server:
    """``python -m app`` on a loopback port, configured through its environment."""

    def __init__(self, database_url: str, cwd: Path) -> None:
        self.port = free_port()
        self.http = f"http://127.0.0.1:{self.port}"
        self.env = os.environ | {
            "PYTHONPATH": str(ROOT),
            "DATABASE_URL": database_url,
            "SECRET_KEY": "recovery-test-secret-0123456789",  # tokens survive the restart
            "BOT_DELAY": "0",
            "BOT_PROCESSES": "1",
            "DEFAULT_TURN_SECONDS": "600",  # the human's timer never plays for the test
            "WS_RATE": "10000",  # the test acts as fast as the bots
            "WS_BURST": "10000",
            "REST_RATE_PER_TOKEN": "100000/second",
            "REST_RATE_PER_ADDRESS": "100000/second",
            "WS_PING_INTERVAL": "300",
            "WS_IDLE_TIMEOUT": "600",
            "LOG_LEVEL": "warning",
        }
        self.cwd = cwd  # away from the project's .env
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(self.port),
            env=self.env, cwd=self.cwd,
        )
        await answering(self.process, f"{self.http}/api/health")

    async def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> None:
        await terminate(self.process)


@contextlib.asynccontextmanager
async def running(server: Server) -> AsyncIterator[Server]:
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def join(server: Server, table_id: str, token: str) -> ClientConnection:
    ws = await connect(f"ws://127.0.0.1:{server.port}/api/tables/{table_id}/ws")
    await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token}))
    return ws


async def states(ws: ClientConnection) -> AsyncIterator[dict[str, Any]]:
    """The socket's state messages of a started match."""
    async for text in received(ws, PATIENCE, "the server's next frame"):
        state = json.loads(text)
        if state["type"] in ("snapshot", "event") and state["view"] is not None:
            yield state


async def play(ws: ClientConnection, rng: random.Random, until: int | None,
               pending: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play random legal actions for the human (from ``pending``, a state already read);
    return the state of its first turn at version ``until`` or later, or the final state
    (``until`` None, or the match over)."""
    acted = -1
    stream = states(ws)
    deadline = Deadline(GUARD, f"the human's turn at version {until} or the end")
    while True:
        deadline.check()
        state = pending if pending is not None else await anext(stream)
        pending = None
        if state["table"]["status"] == "over":
            return state
        version, legal = state["version"], state["view"]["legal_actions"]
        if state["turn"] == SEAT and legal and version != acted:
            if until is not None and version >= until:
                return state
            acted = version
            await ws.send(json.dumps({"type": "action", "id": f"a{version}", "version": version,
                                      "action": rng.choice(legal)}))


async def stored_log(database_url: str, table_id: str) -> MatchLog:
    """The table's match log as the database holds it now."""
    db = Database(database_url)
    try:
        log = await Repository(db).load(table_id)
    finally:
        await db.dispose()
    assert log is not None
    return log


async def logged_state(database_url: str, table_id: str) -> tuple[int, dict[str, Any]]:
    """The table version and the human's view, rebuilt from the log alone."""
    log = await stored_log(database_url, table_id)
    version = max(a.version or 0 for deal in log.actions for a in deal)
    view = json.loads(json.dumps(log.replay().observation(SEAT).to_dict()))
    return version, view


async def crash_and_resume(database_url: str, cwd: Path) -> None:
    server = Server(database_url, cwd)
    rng = random.Random(7)
    async with running(server):
        async with httpx2.AsyncClient(base_url=server.http) as http:
            guest = (await http.post("/api/guests", json={"name": "Ana"})).json()
            auth = {"Authorization": f"Bearer {guest['token']}"}
            table_id = (await http.post("/api/tables", json={"name": "crash"},
                                        headers=auth)).json()["id"]
            assert (await http.put(f"/api/tables/{table_id}/seats/{SEAT}",
                                   headers=auth)).status_code == 200
            for seat in (1, 2, 3):
                response = await http.put(f"/api/tables/{table_id}/seats/{seat}/bot",
                                          json={"level": "easy"}, headers=auth)
                assert response.status_code == 200
            ws = await join(server, table_id, guest["token"])
            assert (await http.post(f"/api/tables/{table_id}/start",
                                    headers=auth)).status_code == 200
            before = await play(ws, rng, until=KILL_AT)
        await server.kill()  # no shutdown of any kind: the log is all there is

    assert before["table"]["status"] == "playing"
    assert await logged_state(database_url, table_id) == (before["version"], before["view"])

    async with running(server):
        ws = await join(server, table_id, guest["token"])
        await ws.recv()  # welcome
        after = json.loads(await ws.recv())
        assert after["type"] == "snapshot"
        assert (after["version"], after["turn"], after["seat"]) == (before["version"], SEAT, SEAT)
        assert after["view"] == before["view"]  # the same hand, trick, auction, scores
        assert after["table"]["seats"] == before["table"]["seats"]  # bots keep their levels
        assert after["deadline"] > before["deadline"]  # a fresh turn, not the old one
        final = await play(ws, rng, until=None, pending=after)
        await ws.close()

        async with httpx2.AsyncClient(base_url=server.http) as http:
            record = (await http.get(f"/api/matches/{table_id}/record")).json()
            detail = (await http.get(f"/api/matches/{table_id}")).json()
    await check_record_replays(record, detail, final, cwd)


async def check_record_replays(record: dict[str, Any], detail: dict[str, Any],
                               final: dict[str, Any], cwd: Path) -> None:
    """The served record replays with the engine's CLI to the stored results."""
    path = cwd / "record.json"
    path.write_text(json.dumps(record))
    replay = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "engine", "replay", str(path),
        cwd=ROOT, stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await replay.communicate()
    assert replay.returncode == 0
    report = json.loads(out)
    assert detail["finished_at"] is not None and detail["end_reason"] == "won"
    assert report["deals"] == [{key: deal[key] for key in report["deals"][0]}
                               for deal in detail["deals"]]
    assert (list(report["totals"]), report["winner"]) == (detail["totals"], detail["winner"])
    assert detail["totals"] == final["view"]["totals"]


@pytest.mark.timeout(guarded(2) + LAST_RESORT)
def test_a_killed_server_resumes_its_tables_action_for_action(
    db_url: str, tmp_path: Path
) -> None:
    run(asyncio.wait_for(crash_and_resume(db_url, tmp_path), guarded(2)))


def test_the_server_refuses_an_unmigrated_database(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'empty.db'}", tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "app", "--port", str(server.port)], env=server.env,
        cwd=tmp_path, capture_output=True, text=True, timeout=GUARD, check=False,
    )
    assert result.returncode != 0
    assert "alembic upgrade head" in result.stderr

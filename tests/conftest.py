"""Fixtures shared by the table-server tests (tests/test_app_*.py): settings for fast
tables, an in-process client, a real uvicorn server on a free port, and small helpers.
Tables log to a MemoryStorage here; tests/test_recovery*.py run the database.  The test
tiers (markers, their guard, the run's PostgreSQL and Redis) are tests/tiers.py's."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx2
import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.bots import BotRunner
from app.config import Settings
from app.main import create_app, server_config
from app.storage import MemoryStorage
from tests.waiting import eventually_sync

if TYPE_CHECKING:
    from tests.cluster_nodes import Cluster

pytest_plugins = ["tests.tiers", "tests.scheduling"]

SERVER_START = 60  # seconds a server may take to answer before its test fails


@pytest.fixture(autouse=True)
def bot_pool_on_demand(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bots' process pool starts its process at the first decision sent to it (a hard
    bot's), not when an app or a lobby starts: most tests have no hard bot, and starting
    and stopping that process cost each of them about a second.  Servers run as processes
    (tests/test_recovery.py, test_deploy_*.py, e2e) still start it at once, and
    test_deploy_exit.py checks that they do; module-wide servers (``live``) too."""

    async def on_demand(self: BotRunner) -> None:
        return None

    monkeypatch.setattr(BotRunner, "start", on_demand)


def app_settings(**overrides: Any) -> Settings:
    """Bots answer at once and the rate limits stay out of the way, unless overridden;
    so do the per-address limits, since every test client has the same address."""
    values: dict[str, Any] = {
        "max_tables_per_address": 10_000,
        "max_sockets_per_address": 10_000,
        "analyses_per_address": 10_000,
        "rest_rate_per_token": "100000/second",
        "rest_rate_per_address": "100000/second",
        "secret_key": "test-secret-key-0123456789",
        "bot_delay": 0,
        "ws_rate": 10_000,
        "ws_burst": 10_000,
        "bot_processes": 1,
        "log_level": "warning",
        "database_url": "sqlite:///:memory:",  # history reads; tables log to MemoryStorage
        "argon2_memory_kib": 1024,  # passwords hashed in a millisecond, not the real cost
        "argon2_time_cost": 1,
        # Reviews run at the tables' priority: niced behind the suite's six workers on
        # two cores, one took minutes (tests/test_analysis_pool.py checks the niceness).
        "analysis_nice": 0,
    } | overrides
    return Settings(**values)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(app_settings(), MemoryStorage())) as test_client:
        yield test_client


@dataclass
class LiveServer:
    app: FastAPI
    port: int

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws(self, table_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/api/tables/{table_id}/ws"


def run_server(settings: Settings, app: FastAPI | None = None) -> Iterator[LiveServer]:
    """uvicorn configured as ``python -m app`` does, on a loopback port of its own, serving
    ``app`` (by default one whose tables log to a MemoryStorage)."""
    app = app or create_app(settings, MemoryStorage())
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(server_config(settings.server, app))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    eventually_sync(lambda: server.started or not thread.is_alive(), SERVER_START,
                    "uvicorn to start", poll=0.01)
    assert server.started, "uvicorn stopped before it started"
    try:
        yield LiveServer(app, sock.getsockname()[1])
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    yield from run_server(app_settings())


class Rest:
    """The REST calls a test table needs, over TestClient or a real httpx2 client."""

    def __init__(self, http: httpx2.Client) -> None:
        self.http = http

    def guest(self, name: str) -> dict[str, str]:
        response = self.http.post("/api/guests", json={"name": name})
        assert response.status_code == 201, response.text
        guest: dict[str, str] = response.json()
        return guest

    @staticmethod
    def auth(guest: dict[str, str]) -> dict[str, str]:
        return {"Authorization": f"Bearer {guest['token']}"}

    def table(self, owner: dict[str, str], seats: list[dict[str, str] | str],
              start: bool = False, **create: Any) -> str:
        """A table with ``seats``: a guest sits, a level string puts a bot in."""
        response = self.http.post("/api/tables", json={"name": "test"} | create,
                                  headers=self.auth(owner))
        assert response.status_code == 201, response.text
        table_id: str = response.json()["id"]
        for seat, who in enumerate(seats):
            self.sit(table_id, seat, who, owner)
        if start:
            self.start(table_id, owner)
        return table_id

    def sit(self, table_id: str, seat: int, who: dict[str, str] | str,
            owner: dict[str, str]) -> None:
        """``who`` sits at ``seat``: a guest, or a bot of that level put in by ``owner``."""
        if isinstance(who, str):
            response = self.http.put(f"/api/tables/{table_id}/seats/{seat}/bot",
                                     json={"level": who}, headers=self.auth(owner))
        else:
            response = self.http.put(f"/api/tables/{table_id}/seats/{seat}",
                                     headers=self.auth(who))
        assert response.status_code == 200, response.text

    def start(self, table_id: str, who: dict[str, str]) -> None:
        response = self.http.post(f"/api/tables/{table_id}/start", headers=self.auth(who))
        assert response.status_code == 200, response.text


@pytest.fixture
def rest(client: TestClient) -> Rest:
    return Rest(client)


@pytest.fixture(scope="module")
def live_rest(live: LiveServer) -> Iterator[Rest]:
    with httpx2.Client(base_url=live.http) as http:
        yield Rest(http)


@pytest.fixture
def make_cluster(tmp_path: Path) -> Iterator[Callable[..., Cluster]]:
    """``make_cluster("AB", env={...})``: a cluster's nodes (tests/cluster_nodes.py), started
    and ready, all gone at the end; for tests/test_cluster*.py."""
    from tests.cluster_nodes import cluster_of  # its imports only where a cluster runs

    with contextlib.ExitStack() as stack:

        def make(ids: str = "AB", **kwargs: Any) -> Cluster:
            return stack.enter_context(cluster_of(tmp_path, ids, **kwargs))

        yield make

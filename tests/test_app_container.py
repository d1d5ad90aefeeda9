"""The composition root (app/container.py): the services stop in the reverse order of
their building, alone and as a node of a cluster, also when a start fails half way; only
the container reads ``app.state``; only the root takes the whole ``Settings``, every other
module its section, each read from the environment under the variable's own name."""

from __future__ import annotations

import ast
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.accounts.service import Accounts
from app.analysis import Analyses
from app.bots import BotRunner
from app.cluster import Cluster
from app.config import Settings
from app.db.session import Database
from app.main import create_app
from app.matchmaking import Matchmaker
from app.monitor import LagMonitor
from app.shared import LocalShared, RedisShared
from app.storage import MemoryStorage
from app.tables import Lobby
from tests.cluster_nodes import REDIS_SERVER, ROOT, delete_keys
from tests.conftest import app_settings
from tests.waiting import eventually_sync

pytest_plugins = ["tests.test_db_support"]  # migrated_urls: the scratch PostgreSQL database

# What each service's close is, by the name the expected orders use.
CLOSES: dict[str, tuple[type, str]] = {
    "analyses": (Analyses, "close"), "accounts": (Accounts, "close"),
    "matchmaker": (Matchmaker, "close"), "lobby": (Lobby, "stop"),
    "cluster": (Cluster, "close"), "monitor": (LagMonitor, "stop"),
    "bots": (BotRunner, "close"), "shared": (LocalShared, "close"),
    "redis": (RedisShared, "close"), "database": (Database, "dispose"),
}


@pytest.fixture
def closed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the closes called, in order (each still does its work)."""
    calls: list[str] = []

    def recorded(name: str, close: Callable[..., Awaitable[None]]) -> Callable[..., Any]:
        async def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
            calls.append(name)
            await close(self, *args, **kwargs)
        return wrapper

    for name, (cls, method) in CLOSES.items():
        monkeypatch.setattr(cls, method, recorded(name, getattr(cls, method)))
    return calls


@pytest.fixture
def cluster_settings(migrated_urls: dict[str, str]) -> Iterator[Settings]:
    prefix = f"test-container-{uuid.uuid4().hex[:12]}:"
    yield app_settings(database_url=migrated_urls["postgresql"], redis_url=REDIS_SERVER,
                       redis_prefix=prefix, analysis_workers=0)
    delete_keys(REDIS_SERVER, prefix)
    delete_keys(REDIS_SERVER, f"saq:*{prefix}")


def test_alone_the_services_stop_in_the_reverse_order_of_their_building(
        closed: list[str]) -> None:
    with TestClient(create_app(app_settings(), MemoryStorage())) as client:
        assert client.get("/readyz").status_code == 200
        closed.clear()
    assert closed == ["analyses", "accounts", "matchmaker", "lobby", "monitor", "bots",
                      "shared", "database"]


@pytest.mark.postgres
@pytest.mark.redis
def test_a_node_stops_its_tables_before_it_lets_the_cluster_go(
        closed: list[str], cluster_settings: Settings) -> None:
    with TestClient(create_app(cluster_settings)) as client:
        # Ready once Redis has answered a round of the node's: on a loaded machine the
        # first may take longer than Redis's one-second timeout.
        eventually_sync(lambda: client.get("/readyz").status_code == 200, 30, "the node ready")
        closed.clear()
    assert closed == ["analyses", "accounts", "matchmaker", "lobby", "cluster", "monitor",
                      "bots", "redis", "database"]


def test_a_start_that_fails_half_way_closes_what_it_built(
        closed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(self: Accounts, *args: Any) -> None:
        raise RuntimeError("the accounts cannot start")

    monkeypatch.setattr(Accounts, "start", broken)
    with pytest.raises(RuntimeError, match="the accounts cannot start"), \
            TestClient(create_app(app_settings(), MemoryStorage())):
        pass
    assert closed == ["matchmaker", "lobby", "monitor", "bots", "shared", "database"]


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted((ROOT / "app").rglob("*.py")):
        yield str(path.relative_to(ROOT)), ast.parse(path.read_text(), str(path))


def _is_app(node: ast.expr) -> bool:
    """``app``, ``x.app`` or ``scope["app"]``."""
    return ((isinstance(node, ast.Name) and node.id == "app")
            or (isinstance(node, ast.Attribute) and node.attr == "app")
            or (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                and node.slice.value == "app"))


def test_only_the_container_touches_app_state() -> None:
    touching = {(name, node.lineno) for name, module in _modules() for node in ast.walk(module)
                if isinstance(node, ast.Attribute) and node.attr == "state"
                and _is_app(node.value)}
    assert {name for name, _ in touching} == {"app/container.py"}, sorted(touching)
    assert len(touching) == 2  # one write (the lifespan's), one read


def test_only_the_composition_root_takes_the_whole_settings() -> None:
    importing = {name for name, module in _modules() for node in ast.walk(module)
                 if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("config")
                 and any(alias.name == "Settings" for alias in node.names)}
    assert importing == {"app/container.py", "app/main.py"}


def test_each_section_reads_the_variables_by_their_own_names(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"MAX_TABLES": "7", "COVER_LEVEL": "easy", "WS_RATE": "3",
                        "BOT_THREADS": "5", "SESSION_DAYS": "9", "ANALYSIS_SLOTS": "2",
                        "NODE_ID": "node-7", "NODE_URL": "http://n7:80/", "LEASE_SECONDS": "2",
                        "REST_RATE_PER_TOKEN": "1/second", "LOG_FORMAT": "json",
                        "FORWARDED_ALLOW_IPS": "10.0.0.1"}.items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.tables.max_tables, settings.tables.cover_level) == (7, "easy")
    assert settings.tables.node_id == settings.cluster.node_id == "node-7"
    assert settings.sockets.ws_rate == 3 and settings.bots.bot_threads == 5
    assert settings.accounts.session_days == 9 and settings.analysis.analysis_slots == 2
    assert (settings.cluster.advertised_url, settings.cluster.lease_seconds) == ("http://n7:80", 2)
    assert settings.rest.rest_rate_per_token == "1/second"
    assert (settings.server.log_format, settings.server.trusted_proxies) == ("json", "10.0.0.1")


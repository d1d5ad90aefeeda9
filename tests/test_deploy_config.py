"""Deployment without a server process of its own: the compose file runs what
``make run`` runs and names only real settings, and its nodes believe the balancer alone
about players' addresses; secrets in production and in development; what a stopping
server answers, and what its tables finish first; the balancer's limit on REST calls."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from itertools import takewhile
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs pinned
from fastapi.testclient import TestClient
from limits import parse_many
from pydantic import ValidationError

import app.__main__ as entry_point
from app.api.errors import ErrorBody
from app.bots import BotRunner
from app.config import Settings, get_settings
from app.container import running
from app.main import create_app, server_config
from app.protocol import CloseCode
from app.storage import MemoryStorage
from app.tables import (
    Close,
    Lobby,
    PlayAction,
    TableError,
)
from engine import Options
from tests.actors import my_turn, solo_table
from tests.conftest import app_settings

ROOT = Path(__file__).resolve().parents[1]
STRONG = "7f3c9a51e0b24d6c8e1f2a3b4c5d6e7f8091a2b3c4d5e6f7"


def compose() -> dict[str, Any]:
    file: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return file


def compose_app() -> dict[str, Any]:
    app: dict[str, Any] = compose()["services"]["app"]
    return app


def run_steps() -> list[list[str]]:
    """The recipe of ``make run`` (what the README documents), without the venv prefix."""
    lines = (ROOT / "Makefile").read_text().split("\nrun:", 1)[1].splitlines()[1:]
    recipe = [line.strip() for line in takewhile(lambda line: line.startswith("\t"), lines)]
    return [shlex.split(step.replace("$(BIN)/", "")) for step in recipe
            if not step.startswith("@echo ")]  # what it says while it works


def compose_steps() -> list[list[str]]:
    """The app service's command: its own, or the image's CMD (``sh -c "a && exec b"``)."""
    command = compose_app().get("command")
    if command is None:
        cmd = next(line for line in (ROOT / "Dockerfile").read_text().splitlines()
                   if line.startswith("CMD "))
        shell, flag, command = json.loads(cmd.removeprefix("CMD "))
        assert (shell, flag) == ("sh", "-c")
    steps = [shlex.split(step) for step in str(command).split("&&")]
    return [step[1:] if step[0] == "exec" else step for step in steps]


def test_compose_runs_the_readme_run_command() -> None:
    make, compose = run_steps(), compose_steps()
    assert make == [["alembic", "upgrade", "head"], ["python", "-m", "app"]]
    assert len(compose) == len(make)
    assert compose[0] == make[0]
    assert compose[1][:3] == make[1]
    options = compose[1][3:]  # only where to listen: everything else is the environment
    assert options[::2] == ["--host", "--port"][: len(options) // 2]


def test_compose_environment_names_only_settings() -> None:
    environment = compose_app()["environment"]
    assert environment["ENVIRONMENT"] == "production"
    names = {name.lower() for name in environment}
    assert names <= set(Settings.model_fields)


def test_compose_nodes_believe_the_balancer_alone_about_addresses() -> None:
    """The nodes take a player's address from X-Forwarded-For only when nginx sent it:
    nginx's fixed address is TRUSTED_PROXIES, on a subnet where no other container can
    get it, and nginx sets the header to whoever connected, replacing the client's."""
    file = compose()
    balancer = ipaddress.ip_address(file["services"]["lb"]["networks"]["default"]["ipv4_address"])
    trusted = Settings(trusted_proxies=compose_app()["environment"]["TRUSTED_PROXIES"])
    assert trusted.trusted_proxies == str(balancer)
    (network,) = file["networks"]["default"]["ipam"]["config"]
    assert balancer in ipaddress.ip_network(network["subnet"])
    assert balancer not in ipaddress.ip_network(network["ip_range"])
    assert "ports" not in compose_app()  # nothing but the balancer reaches a node
    server = (ROOT / "deploy" / "nginx.conf").read_text().split("server {", 1)[1]
    forwarded = re.findall(r"^\s*proxy_set_header\s+X-Forwarded-For\s+(\S+);", server, re.M)
    assert forwarded == ["$remote_addr"]


def test_no_proxy_is_believed_unless_named(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn would believe 127.0.0.1 by default: any local client could pick its own
    address.  Named proxies are addresses or networks; uvicorn's FORWARDED_ALLOW_IPS is
    read as TRUSTED_PROXIES."""
    app = create_app(app_settings(), MemoryStorage())
    assert server_config(app_settings().server, app).proxy_headers is False
    named = app_settings(trusted_proxies=" 10.0.0.1, 192.168.0.0/16 ")
    config = server_config(named.server, app)
    assert config.proxy_headers is True
    assert config.forwarded_allow_ips == "10.0.0.1,192.168.0.0/16"
    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.delenv("TRUSTED_PROXIES", raising=False)
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    assert Settings().trusted_proxies == "*"
    for wrong in ["nginx", "10.0.0.1/8", "*, 10.0.0.1", "10.0.0.300"]:
        with pytest.raises(ValidationError, match="TRUSTED_PROXIES"):
            Settings(trusted_proxies=wrong)


WEAK = [(None, "is not set"), ("changeme", "is a known placeholder"),
        ("short-but-not-empty", "is too short (19 characters)"),
        ("0" * 32, "is a known placeholder")]


@pytest.mark.parametrize(("secret", "why"), WEAK)
def test_production_settings_refuse_a_missing_or_weak_secret(secret: str | None,
                                                             why: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(f"SECRET_KEY {why}")):
        Settings(environment="production", secret_key=secret or "")


@pytest.fixture
def production(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """The environment of a production server, away from any .env, with settings read
    afresh; ``python -m app`` may not get as far as serving."""

    def serve(settings: Settings) -> None:
        raise AssertionError(f"serving with SECRET_KEY={settings.secret_key!r}")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ENVIRONMENT", "production")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'never.db'}")
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.setattr(entry_point, "make_server", serve)
    get_settings.cache_clear()
    yield monkeypatch
    get_settings.cache_clear()


@pytest.mark.parametrize(("secret", "why"), WEAK)
def test_production_refuses_to_start_with_a_missing_or_weak_secret(
    secret: str | None, why: str, production: pytest.MonkeyPatch
) -> None:
    if secret is not None:
        production.setenv("SECRET_KEY", secret)
    with pytest.raises(SystemExit) as refused:
        entry_point.main(["--port", "0"])
    # A string exit code: printed to stderr, exit status 1, no traceback.
    message = refused.value.code
    assert isinstance(message, str) and message.startswith("refusing to start: ")
    assert f"SECRET_KEY {why}" in message
    assert "openssl rand" in message  # says how to make a good one


@pytest.mark.processes
def test_python_m_app_refuses_a_missing_secret_in_production(tmp_path: Path) -> None:
    """The same refusal end to end, from a real ``python -m app``: one line, no traceback."""
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env |= {"PYTHONPATH": str(ROOT), "ENVIRONMENT": "production",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'never.db'}"}
    result = subprocess.run(
        [sys.executable, "-m", "app", "--port", "0"], env=env, cwd=tmp_path,
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("refusing to start: ") and "SECRET_KEY" in result.stderr
    assert "Traceback" not in result.stderr


def test_production_takes_a_strong_secret() -> None:
    settings = Settings(environment="production", secret_key=STRONG)
    assert settings.token_key() == STRONG


def test_development_keeps_its_generated_secret(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no .env, and the default path: data/secret_key
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.delenv("ENVIRONMENT", raising=False)
    monkeypatch.delenv("SECRET_KEY_FILE", raising=False)
    path = tmp_path / "data" / "secret_key"
    assert not path.exists()  # settings alone (as alembic reads them) make no file
    first = Settings().token_key()
    again = Settings().token_key()  # as after a restart
    assert len(first) >= 32 and again == first
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_stopping_server_makes_no_tables_and_is_not_ready() -> None:
    app = create_app(app_settings(), MemoryStorage())
    with TestClient(app) as client:
        guest = client.post("/api/guests", json={"name": "Ana"}).json()
        auth = {"Authorization": f"Bearer {guest['token']}"}
        assert client.get("/readyz").status_code == 200
        assert client.portal is not None  # the app's loop, as the lifespan runs it
        client.portal.call(running(app).lobby.stop, 1)  # as SIGTERM starts it
        created = client.post("/api/tables", json={"name": "late"}, headers=auth)
        assert created.status_code == 503
        assert created.json()["detail"]["code"] == "shutting_down"
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["code"] == "shutting_down"
        assert client.get("/healthz").json() == {"status": "ok"}


async def drain() -> None:
    settings = app_settings()
    bots = BotRunner(settings.bots)
    await bots.start()
    storage = MemoryStorage()
    try:
        lobby = Lobby(settings.tables, bots, storage)
        table, client = await solo_table(lobby, "drain", Options.make("bulgarian"))
        state = await my_turn(client)
        table.post(PlayAction(client, "in-flight", state["version"],
                              state["view"]["legal_actions"][0]))
        await lobby.stop(5)  # the action was queued: it is handled, logged and answered
        outbox = [client.outbox.get_nowait() for _ in range(client.outbox.qsize())]
        ack = {"type": "ack", "id": "in-flight", "version": state["version"] + 1}
        assert json.dumps(ack, separators=(",", ":")) in outbox
        assert outbox[-1] == Close(CloseCode.RESTART, "server restarting")
        assert storage.matches[table.id].actions[-1].version == state["version"] + 1
        with pytest.raises(TableError, match="restarting"):
            await table.submit(PlayAction(client, "late", state["version"] + 1, "x"))
    finally:
        await bots.close()


def test_stopping_tables_finish_the_commands_in_hand() -> None:
    asyncio.run(asyncio.wait_for(drain(), 60))


def test_the_readme_lists_every_setting() -> None:
    readme = (ROOT / "README.md").read_text()
    assert [name for name in Settings.model_fields if f"`{name.upper()}`" not in readme] == []


Directive = tuple[str, list[str], list[Any]]  # name, arguments, the block's directives


def nginx_directives(text: str) -> list[Directive]:
    """deploy/nginx.conf as nested directives: enough of nginx's syntax for this file
    (words, quoted strings, blocks, comments)."""
    tokens = re.findall(r"'[^']*'|\"[^\"]*\"|#[^\n]*|[{};]|[^\s{};'\"]+", text)
    stack: list[list[Directive]] = [[]]
    words: list[str] = []
    for token in tokens:
        if token.startswith("#"):
            continue
        if token in (";", "{"):
            directive: Directive = (words[0], words[1:], [])
            stack[-1].append(directive)
            if token == "{":
                stack.append(directive[2])
            words = []
        elif token == "}":
            stack.pop()
        else:
            words.append(token.strip("'\""))
    assert len(stack) == 1 and not words, "unbalanced nginx.conf"
    return stack[0]


def found(directives: list[Directive], name: str, *args: str) -> list[Directive]:
    return [d for d in directives if d[0] == name and d[1][: len(args)] == list(args)]


def test_nginx_limits_rest_calls_per_address_above_the_nodes_limit() -> None:
    """The shipped balancer refuses a flood of REST calls per client address before the
    nodes see it (429 in the API's error shape, with Retry-After), at a rate and a burst
    above the nodes' own REST_RATE_PER_ADDRESS, so that in ordinary use the nodes' limits
    (per token too) answer first; sockets and the client's files are not held back."""
    (http,) = found(nginx_directives((ROOT / "deploy" / "nginx.conf").read_text()), "http")
    (zone,) = found(http[2], "limit_req_zone", "$binary_remote_addr")
    name = re.fullmatch(r"zone=(\w+):\d+m", zone[1][1])
    rate = re.fullmatch(r"rate=(\d+)r/s", zone[1][2])
    assert name and rate and found(http[2], "limit_req_status", "429")
    nodes = parse_many(Settings.model_fields["rest_rate_per_address"].default)
    assert int(rate[1]) >= min(item.amount / item.get_expiry() for item in nodes)

    (server,) = found(http[2], "server")
    locations = {" ".join(d[1]): d[2] for d in found(server[2], "location")}
    (limit,) = found(locations["/api/"], "limit_req")
    assert limit[1][0] == f"zone={name[1]}"
    burst = int(limit[1][1].removeprefix("burst="))
    assert burst >= max(item.amount for item in nodes if item.get_expiry() == 1)
    for other in ("~ ^/api/tables/[^/]+/ws$", "/"):
        assert not found(locations[other], "limit_req"), other

    assert found(server[2], "error_page", "429", "=", "@too_many_requests")
    refusal = locations["@too_many_requests"]
    assert found(refusal, "add_header", "Retry-After", "1", "always")
    (answer,) = found(refusal, "return", "429")
    assert ErrorBody.model_validate_json(answer[1][1]).detail.code == "too_many_requests"

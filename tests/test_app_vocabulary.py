"""``GET /api/protocol``: the words a client takes from the server instead of writing them
again (protocol version, close codes, bot levels, variants, the events' schema), and that
they are the ones the server itself uses and documents."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ai import LEVELS
from app import events
from app.errors import ErrorCode
from app.protocol import PROTOCOL_VERSION, CloseCode
from app.tables.chat import MAX_TEXT, PHRASES
from app.vocabulary import BotPace
from engine.variants import VARIANTS
from tests.conftest import Rest

DOCS = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"


@pytest.fixture
def served(client: TestClient) -> dict[str, Any]:
    response = client.get("/api/protocol")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_the_protocol_is_served_as_the_server_defines_it(served: dict[str, Any]) -> None:
    assert served == {
        "version": PROTOCOL_VERSION,
        "close_codes": {code.name: code.value for code in CloseCode},
        "final_close_codes": [4001, 4002, 4003, 4004, 4009, 4400],
        "levels": {"values": list(LEVELS), "default": "normal"},
        "bot_paces": {"values": list(BotPace), "default": "normal"},
        "variants": {"values": list(VARIANTS), "default": "bulgarian"},
        "chat": {"phrases": list(PHRASES), "max_text": MAX_TEXT},
        "events": events.schema(),
        "errors": {code.value: code.status for code in ErrorCode},
    }


def test_the_served_version_and_close_codes_are_the_socket_s(
        client: TestClient, rest: Rest, served: dict[str, Any]) -> None:
    ana = rest.guest("Ana")
    table_id = rest.table(ana, [])
    with client.websocket_connect(f"/api/tables/{table_id}/ws") as ws:
        ws.send_json({"type": "hello", "protocol": served["version"], "token": ana["token"]})
        assert ws.receive_json()["type"] == "welcome"
    for hello, name in (({"protocol": served["version"] + 1, "token": ana["token"]},
                         "BAD_HELLO"),
                        ({"protocol": served["version"], "token": "forged"}, "BAD_TOKEN")):
        with client.websocket_connect(f"/api/tables/{table_id}/ws") as ws:
            ws.send_json({"type": "hello"} | hello)
            assert ws.receive_json()["type"] == "error"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
        assert closed.value.code == served["close_codes"][name]
        assert closed.value.code in served["final_close_codes"]


def test_the_served_levels_and_variants_are_the_ones_the_tables_take(
        client: TestClient, rest: Rest, served: dict[str, Any]) -> None:
    for variant in served["variants"]["values"]:
        owner = rest.guest(f"Ana {variant}")  # one table each: a guest may open only three
        table_id = rest.table(owner, [owner, *served["levels"]["values"]], variant=variant)
        table = client.get(f"/api/tables/{table_id}").json()
        assert table["variant"] == variant
        assert [s["level"] for s in table["seats"][1:]] == served["levels"]["values"]
    ana = rest.guest("Ana")
    table_id = rest.table(ana, [])
    response = client.put(f"/api/tables/{table_id}/seats/0/bot", json={},
                          headers=rest.auth(ana))
    assert response.status_code == 200, response.text
    table = client.get(f"/api/tables/{table_id}").json()
    assert table["variant"] == served["variants"]["default"]
    assert table["seats"][0]["level"] == served["levels"]["default"]


def test_the_docs_list_every_close_code_the_server_sends() -> None:
    section = DOCS.read_text(encoding="utf-8").split("## 8. Close codes")[1].split("\n## ")[0]
    documented = {int(code) for code in re.findall(r"^\| (\d{4}) \|", section, re.MULTILINE)}
    assert documented == set(CloseCode)

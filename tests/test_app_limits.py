"""What one guest or one address may hold (issue 12): open tables per player and per
address, sockets per address and per player; and the lobby's list, paged and cached."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from app.container import running
from app.main import create_app
from app.protocol import CloseCode
from app.storage import MemoryStorage
from app.tables import Table
from app.tables.clock import Clock
from tests.conftest import Rest, app_settings
from tests.fake_clock import FakeClock
from tests.test_app_ws import TURN, my_turn, seated, until

ADDRESS = "testclient"  # the client address TestClient reports


@contextmanager
def app_client(clock: Clock | None = None, **settings: Any) -> Iterator[tuple[TestClient, Rest]]:
    with TestClient(create_app(app_settings(**settings), MemoryStorage(), clock)) as client:
        yield client, Rest(client)


def create(client: TestClient, rest: Rest, guest: dict[str, str], **body: Any) -> Any:
    return client.post("/api/tables", json={"name": "t"} | body, headers=rest.auth(guest))


def refused_with(response: Any, status: int, code: str) -> bool:
    return bool(response.status_code == status and response.json()["detail"]["code"] == code)


# ------------------------------------------------------------------ tables per holder


def test_a_player_holds_three_open_tables_at_most() -> None:
    with app_client(waiting_table_ttl=600) as (client, rest):
        ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
        mine = [rest.table(ana, [ana], start=False, private=i == 2) for i in range(3)]
        fourth = create(client, rest, ana)
        assert refused_with(fourth, 429, "too_many_tables_for_you")
        assert 590 <= int(fourth.headers["Retry-After"]) <= 600  # the oldest one's expiry
        assert create(client, rest, ivo).status_code == 201  # others are not held back
        # A table that ends (its last human leaves) gives the slot back.
        assert client.delete(f"/api/tables/{mine[0]}/seats/0",
                             headers=rest.auth(ana)).json()["status"] == "closed"
        assert create(client, rest, ana).status_code == 201


def test_playing_tables_count_finished_ones_do_not() -> None:
    clock = FakeClock()
    with app_client(clock, max_tables_per_player=1) as (client, rest):
        ana = rest.guest("Ana")
        # Ana is at the table: her first missed turn ends this match (the clock moves it).
        table_id = rest.table(ana, [ana, "easy", "easy", "easy"], turn_seconds=TURN,
                              timeout_forfeits=True)
        with seated(client, table_id, ana) as (ws, _):
            rest.start(table_id, ana)
            refused = create(client, rest, ana)
            assert refused_with(refused, 429, "too_many_tables_for_you")
            assert "Retry-After" not in refused.headers  # a match ends when it ends
            until(ws, my_turn(0))
            clock.advance(TURN)
            until(ws, lambda m: m["type"] == "event" and m["table"]["status"] == "over")
        assert create(client, rest, ana).status_code == 201


def test_an_address_holds_a_bounded_number_of_open_tables() -> None:
    with app_client(max_tables_per_address=4) as (client, rest):
        guests = [rest.guest(f"G{i}") for i in range(3)]
        for guest in guests[:2]:
            for _ in range(2):
                assert create(client, rest, guest).status_code == 201
        refused = create(client, rest, guests[2])
        assert refused_with(refused, 429, "too_many_tables_for_address")
        assert int(refused.headers["Retry-After"]) > 0


# ------------------------------------------------------------------ the lobby's list


def test_the_lobby_list_is_paged_with_a_total_and_a_cursor() -> None:
    with app_client(max_tables_per_player=100) as (client, rest):
        ana = rest.guest("Ana")
        created = [create(client, rest, ana, name=f"t{i}").json()["id"] for i in range(7)]
        create(client, rest, ana, private=True)
        seen: list[str] = []
        cursor = None
        for _ in range(len(created)):  # a cursor that never ends fails, it does not hang
            params: dict[str, Any] = {"limit": 3} | ({} if cursor is None else {"cursor": cursor})
            page = client.get("/api/tables", params=params).json()
            assert page["total"] == 7 and len(page["tables"]) <= 3
            seen += [t["id"] for t in page["tables"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert cursor is None, f"still a next page after {seen}"
        assert seen == created[::-1]  # each once, newest first, the private one never
        assert len(client.get("/api/tables").json()["tables"]) == 7
        for bad in ({"limit": 0}, {"limit": 101}, {"cursor": -1}, {"cursor": "x"}):
            assert client.get("/api/tables", params=bad).status_code == 422


def test_the_lobby_list_shows_new_tables_at_once_and_hides_started_ones() -> None:
    with app_client(lobby_cache_seconds=60) as (client, rest):
        ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
        first = rest.table(ana, [ana, "easy", "easy", "easy"])

        def listed() -> list[str]:
            return [t["id"] for t in client.get("/api/tables").json()["tables"]]

        assert listed() == [first]
        second = rest.table(ivo, [ivo])
        assert listed() == [second, first]  # not held back by the cache
        rest.start(first, ana)
        assert listed() == [second]
        client.put(f"/api/tables/{second}/seats/1/bot", json={"level": "easy"},
                   headers=rest.auth(ivo))
        seats = client.get("/api/tables").json()["tables"][0]["seats"]
        assert [seat["kind"] for seat in seats] == ["human", "bot", "empty", "empty"]


def test_many_readers_of_the_lobby_cost_one_build(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    info = Table.info

    def counted(table: Table) -> Any:
        built.append(table.id)
        return info(table)

    with app_client(max_tables_per_player=100) as (client, rest):
        ana = rest.guest("Ana")
        ids = [create(client, rest, ana).json()["id"] for _ in range(5)]
        monkeypatch.setattr(Table, "info", counted)
        for _ in range(20):
            assert len(client.get("/api/tables").json()["tables"]) == 5
        assert sorted(built) == sorted(ids)  # each table's JSON made once
        client.put(f"/api/tables/{ids[0]}/seats/1", headers=rest.auth(ana))
        new = create(client, rest, ana).json()["id"]
        built.clear()
        assert len(client.get("/api/tables").json()["tables"]) == 6
        assert sorted(built) == sorted([ids[0], new])  # only what changed is made again


# ------------------------------------------------------------------ sockets


def hello(ws: WebSocketTestSession, guest: dict[str, str]) -> dict[str, Any]:
    """Say hello; the welcome, or the refusal."""
    ws.send_json({"type": "hello", "protocol": 1, "token": guest["token"]})
    message: dict[str, Any] = ws.receive_json()
    return message


def assert_refused(ws: WebSocketTestSession, message: dict[str, Any] | None = None) -> None:
    message = message or ws.receive_json()
    assert message["type"] == "error" and message["code"] == "too_many_sockets", message
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == CloseCode.TOO_MANY


def test_sockets_per_address_count_before_hello_and_are_given_back() -> None:
    with app_client(max_sockets_per_address=2, ws_hello_timeout=5) as (client, rest):
        ana = rest.guest("Ana")
        table_id = rest.table(ana, [ana])
        url = f"/api/tables/{table_id}/ws"
        lobby = running(client.app).lobby  # type: ignore[arg-type]
        with client.websocket_connect(url), client.websocket_connect(url):  # silent ones
            with client.websocket_connect(url) as third:
                assert_refused(third)
            assert lobby.sockets_by_address.held(ADDRESS) == 2
        for first, code in (('{"type": "ping"}', "hello_expected"), ("{", "bad_json"),
                            ('{"type": "hello", "protocol": 1, "token": "x"}', "bad_token")):
            with client.websocket_connect(url) as ws:  # refused handshakes give theirs back
                ws.send_text(first)
                assert ws.receive_json()["code"] == code
        with client.websocket_connect(url) as ws:
            assert hello(ws, ana)["type"] == "welcome"
        assert lobby.sockets_by_address.held(ADDRESS) == 0


def test_sockets_per_player_across_tables() -> None:
    with app_client(max_sockets_per_player=2) as (client, rest):
        ana, eve = rest.guest("Ana"), rest.guest("Eve")
        tables = [rest.table(ana, [ana]) for _ in range(3)]
        urls = [f"/api/tables/{t}/ws" for t in tables]
        lobby = running(client.app).lobby  # type: ignore[arg-type]
        with client.websocket_connect(urls[0]) as one, client.websocket_connect(urls[1]) as two:
            assert hello(one, eve)["type"] == hello(two, eve)["type"] == "welcome"
            with client.websocket_connect(urls[2]) as three:
                assert_refused(three, hello(three, eve))
            with client.websocket_connect(urls[2]) as other:  # another player is not
                assert hello(other, ana)["type"] == "welcome"
            assert lobby.sockets_by_player.held(eve["id"]) == 2
        with client.websocket_connect(urls[2]) as again:
            assert hello(again, eve)["type"] == "welcome"
        assert lobby.sockets_by_player.held(eve["id"]) == 0

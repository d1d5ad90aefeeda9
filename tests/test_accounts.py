"""Accounts over REST and sockets, on SQLite and PostgreSQL: sign-up (a guest's too,
keeping its history), login, logout and a new password ending sessions at once (sockets
too), who am I, every refusal with its code, the limits, and no password anywhere."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2
import pytest
from alembic import command
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from sqlalchemy import insert, select, update
from starlette.websockets import WebSocketDisconnect

from ai import Level
from app.accounts import sessions
from app.accounts.sockets import SessionSockets
from app.auth import Player
from app.db import accounts as store
from app.db import models
from app.db.migrate import alembic_config
from app.db.repository import Repository
from app.main import create_app
from app.matchlog import MatchMeta, Owner, Seat, TableMeta
from app.protocol import CloseCode
from app.storage import MemoryStorage
from app.tables import Client, Close
from app.vocabulary import SeatKind
from tests.test_db_support import opened

from .conftest import LiveServer, Rest, app_settings, run_server
from .test_app_ws import seated
from .test_db_support import run

pytest_plugins = ["tests.test_db_support"]  # the database fixtures

SECRET = "correct horse battery staple"  # never to be seen outside a request's body
Account = dict[str, str]


def make_client(url: str, **overrides: Any) -> TestClient:
    return TestClient(create_app(app_settings(database_url=url, **limits(overrides)),
                                 MemoryStorage()))


def limits(overrides: dict[str, Any]) -> dict[str, Any]:
    return {"login_failures_per_address": 1000, "signups_per_address": 1000} | overrides


@contextmanager
def served(url: str, **overrides: Any) -> Iterator[LiveServer]:
    """A real uvicorn server: the bursts need calls that truly run at once."""
    yield from run_server(app_settings(database_url=url, **limits(overrides)))


def at(address: str) -> httpx2.AsyncClient:
    """A client whose calls come from ``address``: any of 127.0.0.0/8 reaches the server
    on loopback, each a client address of its own, no proxy header needed."""
    return httpx2.AsyncClient(transport=httpx2.AsyncHTTPTransport(local_address=address),
                              timeout=30)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with make_client(db_url) as test_client:
        yield test_client


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def sign_up(client: TestClient, username: str, password: str = SECRET,
            token: str | None = None) -> Account:
    response = client.post("/api/accounts", json={"username": username, "password": password},
                           headers=auth(token) if token else {})
    assert response.status_code == 201, response.text
    body: Account = response.json()
    return body


def log_in(client: TestClient, username: str, password: str = SECRET) -> Account:
    response = client.post("/api/sessions", json={"username": username, "password": password})
    assert response.status_code == 201, response.text
    body: Account = response.json()
    return body


def me(client: TestClient, token: str) -> Any:
    return client.get("/api/me", headers=auth(token))


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    detail: dict[str, Any] = response.json()["detail"]
    assert detail["code"] == code, detail
    return detail


def test_sign_up_log_in_me_and_log_out(client: TestClient) -> None:
    ana = sign_up(client, "Ana_77")
    assert set(ana) == {"id", "name", "token"} and ana["name"] == "Ana_77"
    assert me(client, ana["token"]).json() == {
        "id": ana["id"], "name": "Ana_77", "kind": "account", "username": "Ana_77"}
    again = log_in(client, "ANA_77")  # the username is found whatever its case
    assert again["id"] == ana["id"] and again["token"] != ana["token"]
    assert client.delete("/api/sessions", headers=auth(again["token"])).status_code == 204
    refused(me(client, again["token"]), 401, "bad_token")
    refused(client.delete("/api/sessions", headers=auth(again["token"])), 401, "bad_token")
    assert me(client, ana["token"]).status_code == 200  # the other session goes on


def test_logging_in_again_and_again_keeps_the_newest_sessions(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sessions, "MAX_SESSIONS", 2)
    first = sign_up(client, "lena")
    second, third = log_in(client, "lena"), log_in(client, "lena")
    refused(me(client, first["token"]), 401, "bad_token")  # the oldest ended
    assert me(client, second["token"]).status_code == 200
    assert me(client, third["token"]).status_code == 200


def test_a_session_pushed_out_by_the_cap_closes_its_sockets(client: TestClient) -> None:
    rest = Rest(client)
    first = sign_up(client, "nina")
    table_id = rest.table(first, [first, "easy", "easy", "easy"])
    with seated(client, table_id, first) as (ws, _):
        for _ in range(sessions.MAX_SESSIONS):
            log_in(client, "nina")
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert closed.value.code == CloseCode.SESSION_ENDED
    refused(me(client, first["token"]), 401, "bad_token")


def test_a_guest_is_a_guest(client: TestClient) -> None:
    guest = Rest(client).guest("Zoe")
    assert me(client, guest["token"]).json() == {
        "id": guest["id"], "name": "Zoe", "kind": "guest", "username": None}
    refused(client.delete("/api/sessions", headers=auth(guest["token"])), 403,
            "not_an_account")
    refused(client.put("/api/me/password", json={"old": SECRET, "new": SECRET + "!"},
                       headers=auth(guest["token"])), 403, "not_an_account")
    refused(client.get("/api/me"), 401, "missing_token")


async def guest_history(url: str, guest_id: str) -> None:
    """A private match the guest sat in: only its own token lists it."""
    bot = Seat(SeatKind.BOT, "Bot", level=Level.EASY)
    seats = (Seat(SeatKind.HUMAN, "Ivo", guest_id), bot, bot, bot)
    meta = MatchMeta(variant="bulgarian", seed=1, seats=list(seats), version=1,
                     table=TableMeta(name="ours", turn_seconds=30, private=True,
                                     timeout_forfeits=False),
                     owner=Owner(id=guest_id, name="Ivo"))
    async with opened(url) as db:
        await Repository(db).create_match("M1", "bulgarian", {}, seats, meta=meta,
                                          started_at=datetime(2026, 1, 1, tzinfo=UTC))


def listed(client: TestClient, player: str, token: str) -> list[str]:
    response = client.get("/api/matches", params={"player": player}, headers=auth(token))
    assert response.status_code == 200, response.text
    return [m["id"] for m in response.json()["items"]]


def test_a_guest_signs_up_keeping_its_id_and_history(client: TestClient, db_url: str) -> None:
    guest = Rest(client).guest("Ivo")
    run(guest_history(db_url, guest["id"]))
    assert listed(client, guest["id"], guest["token"]) == ["M1"]
    ivo = sign_up(client, "ivo", token=guest["token"])
    assert ivo["id"] == guest["id"] and ivo["name"] == "ivo"
    assert listed(client, ivo["id"], ivo["token"]) == ["M1"]  # the private match: its own
    assert listed(client, ivo["id"], log_in(client, "ivo")["token"]) == ["M1"]
    refused(me(client, guest["token"]), 401, "bad_token")  # the guest token acts no more
    refused(client.post("/api/accounts", json={"username": "ivo2", "password": SECRET},
                        headers=auth(ivo["token"])), 409, "already_an_account")
    refused(client.post("/api/accounts", json={"username": "ivo3", "password": SECRET},
                        headers=auth("forged")), 401, "bad_token")


def test_a_new_password_ends_the_other_sessions(client: TestClient) -> None:
    here = sign_up(client, "mira")
    there = log_in(client, "mira")
    change = {"old": SECRET, "new": "a brand new secret"}
    wrong = client.put("/api/me/password", json={"old": "not it at all", "new": "whatever1"},
                       headers=auth(here["token"]))
    refused(wrong, 401, "bad_credentials")
    assert me(client, there["token"]).status_code == 200  # a wrong old one changes nothing
    response = client.put("/api/me/password", json=change, headers=auth(here["token"]))
    assert response.status_code == 204, response.text
    refused(me(client, there["token"]), 401, "bad_token")
    assert me(client, here["token"]).status_code == 200
    refused(client.post("/api/sessions", json={"username": "mira", "password": SECRET}), 401,
            "bad_credentials")
    log_in(client, "mira", "a brand new secret")


def test_logout_and_a_new_password_close_the_sessions_sockets(client: TestClient) -> None:
    rest = Rest(client)
    ana, kept = sign_up(client, "ana"), log_in(client, "ana")
    table_id = rest.table(ana, [ana, "easy", "easy", "easy"])
    with seated(client, table_id, ana) as (ws, _), \
            seated(client, table_id, kept | {"id": ana["id"]}) as (other, _):
        with pytest.raises(WebSocketDisconnect) as replaced:
            ws.receive_json()  # the same player's newer socket took the seat
        assert replaced.value.code == CloseCode.REPLACED
        assert client.put("/api/me/password", json={"old": SECRET, "new": "new secret 2"},
                          headers=auth(ana["token"])).status_code == 204
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                other.receive_json()
        assert closed.value.code == CloseCode.SESSION_ENDED
    with seated(client, table_id, ana) as (ws, _):
        assert client.delete("/api/sessions", headers=auth(ana["token"])).status_code == 204
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert closed.value.code == CloseCode.SESSION_ENDED
    with client.websocket_connect(f"/api/tables/{table_id}/ws") as ws:
        ws.send_json({"type": "hello", "protocol": 1, "token": ana["token"]})
        assert ws.receive_json()["code"] == "bad_token"


@pytest.mark.parametrize(("username", "password", "code"), [
    ("ab", SECRET, "bad_username"),
    ("a" * 25, SECRET, "bad_username"),
    ("ana maria", SECRET, "bad_username"),
    ("аna", SECRET, "bad_username"),  # a Cyrillic а
    ("admin", SECRET, "reserved_username"),
    ("Root_1", SECRET, "reserved_username"),
    ("GUEST", SECRET, "reserved_username"),
    ("Bot2", SECRET, "reserved_username"),
    ("moderator-7", SECRET, "reserved_username"),
    ("ana", "short", "weak_password"),
    ("ana", "x" * 257, "weak_password"),
    ("anastasia", "ANASTASIA", "weak_password"),
    ("ana", "abc12345", "weak_password"),  # in the common-password list
    ("ana", "Password1", "weak_password"),
    ("anastasia", "Anastasia2024!", "weak_password"),  # the username and digits
    ("anastasia", "aisatsana", "weak_password"),  # reversed
    ("ivo", "ivoivoivo", "weak_password"),
])
def test_refused_sign_ups(client: TestClient, username: str, password: str, code: str) -> None:
    response = client.post("/api/accounts", json={"username": username, "password": password})
    detail = refused(response, 422, code)
    assert password not in response.text, detail


def test_usernames_are_unique_whatever_their_case(client: TestClient) -> None:
    sign_up(client, "Petar")
    for taken in ("petar", "PETAR"):
        refused(client.post("/api/accounts", json={"username": taken, "password": SECRET}),
                409, "username_taken")
    sign_up(client, "Petar_2")


def test_a_wrong_username_and_a_wrong_password_answer_alike(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    sign_up(client, "nadia")
    verified: list[str] = []
    verify = PasswordHasher.verify

    def counted(self: PasswordHasher, hash: str | bytes, password: str | bytes) -> bool:
        verified.append(str(password))
        return verify(self, hash, password)

    monkeypatch.setattr(PasswordHasher, "verify", counted)
    answers = []
    for username, password in (("nadia", "wrong password"), ("nobody", "wrong password")):
        response = client.post("/api/sessions", json={"username": username,
                                                      "password": password})
        answers.append((response.status_code, response.json(),
                        sorted(h for h in response.headers if h != "content-length")))
    assert answers[0] == answers[1]
    assert answers[0][1]["detail"]["code"] == "bad_credentials"
    assert verified == ["wrong password"] * 2  # the unknown user costs a hash too


def test_failed_logins_are_limited_per_username_and_address(db_url: str) -> None:
    with make_client(db_url, login_failures_per_username=3,
                     login_failures_per_address=5) as client:
        sign_up(client, "olga")
        sign_up(client, "olga2")
        for _ in range(3):
            refused(client.post("/api/sessions", json={"username": "OLGA", "password": "nope1234"}),
                    401, "bad_credentials")
        for password in ("nope1234", SECRET):  # even the right one, until the window ends
            response = client.post("/api/sessions", json={"username": "olga",
                                                          "password": password})
            refused(response, 429, "too_many_attempts")
            assert 0 < int(response.headers["Retry-After"]) <= 15 * 60
        log_in(client, "olga2")  # another username, from the same address
        for _ in range(2):
            refused(client.post("/api/sessions", json={"username": "olga2", "password": "x"}),
                    401, "bad_credentials")
        response = client.post("/api/sessions", json={"username": "olga2", "password": SECRET})
        refused(response, 429, "too_many_attempts")  # the address's 5 failures
        assert "Retry-After" in response.headers


def test_sign_ups_are_limited_per_address(db_url: str) -> None:
    with make_client(db_url, signups_per_address=2, signup_window=600) as client:
        sign_up(client, "first")
        refused(client.post("/api/accounts", json={"username": "first", "password": SECRET}),
                409, "username_taken")  # a refused one counts too
        response = client.post("/api/accounts", json={"username": "third", "password": SECRET})
        refused(response, 429, "too_many_attempts")
        assert 0 < int(response.headers["Retry-After"]) <= 600


def test_a_burst_of_wrong_passwords_stops_at_the_limit(db_url: str) -> None:
    """60 wrong passwords at once on one username: 10 are checked, the other 50 refused
    before any check, and the right one sent next is refused as well."""
    async def burst(server: LiveServer) -> None:
        async with at("127.0.0.1") as http:
            url = server.http + "/api/sessions"
            await http.post(server.http + "/api/accounts",
                            json={"username": "rada", "password": SECRET})
            wrong = {"username": "rada", "password": "not the password"}
            answers = await asyncio.gather(*(http.post(url, json=wrong) for _ in range(60)))
            assert Counter(a.status_code for a in answers) == {401: 10, 429: 50}
            right = await http.post(url, json={"username": "rada", "password": SECRET})
            refused(right, 429, "too_many_attempts")
            assert 0 < int(right.headers["Retry-After"]) <= 15 * 60

    with served(db_url) as server:
        run(burst(server))


def test_failures_from_one_address_do_not_lock_the_owner_out_at_another(db_url: str) -> None:
    """Per username at one address, then the slower limit on the username from every
    address (5 here): the owner's right password at another address gets in until the
    failures of all addresses together reach it."""
    async def body(server: LiveServer) -> None:
        url = server.http + "/api/sessions"
        right = {"username": "mira", "password": SECRET}
        wrong = {"username": "mira", "password": "not the password"}
        async with at("127.0.0.1") as owner, at("127.0.0.2") as attacker, \
                at("127.0.0.3") as other:
            assert (await owner.post(server.http + "/api/accounts", json=right)
                    ).status_code == 201
            for _ in range(3):
                assert (await attacker.post(url, json=wrong)).status_code == 401
            refused(await attacker.post(url, json=right), 429, "too_many_attempts")
            assert (await owner.post(url, json=right)).status_code == 201
            assert (await owner.post(url, json=wrong)).status_code == 401  # its own count
            # Logins that succeed give their attempt back: they use up no one's budget.
            for _ in range(6):
                assert (await owner.post(url, json=right)).status_code == 201
            assert (await other.post(url, json=wrong)).status_code == 401  # 5 in all now
            for client in (owner, other):
                refused(await client.post(url, json=right), 429, "too_many_attempts")

    with served(db_url, login_failures_per_username=3, login_failures_per_account=5) as server:
        run(body(server))


def test_no_password_in_logs_or_error_bodies(client: TestClient,
                                             caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    sign_up(client, "vera")
    bodies: list[dict[str, Any]] = [
        {"username": "vera", "password": SECRET, "extra": 1},
        {"username": "x", "password": SECRET},
        {"username": ["vera"], "password": SECRET},
        {"username": "vera", "password": [SECRET]},
        {"username": "vera", "password": SECRET + "x" * 300},
        {"password": SECRET},
    ]
    texts = [client.post(path, json=body).text for body in bodies
             for path in ("/api/accounts", "/api/sessions")]
    texts.append(client.post("/api/sessions", json={"username": "vera",
                                                    "password": SECRET[::-1]}).text)
    texts.append(client.put("/api/me/password", json={"old": SECRET[::-1], "new": [SECRET]},
                            headers=auth(log_in(client, "vera")["token"])).text)
    for text in texts:
        assert '"detail"' in text
        assert SECRET not in text and SECRET[::-1] not in text
    assert caplog.records  # the capture worked
    assert SECRET not in caplog.text and SECRET[::-1] not in caplog.text


GUEST_ROWS: dict[Any, list[dict[str, Any]]] = {
    models.Player: [{"id": "g-ana", "name": "Ana", "created_at": datetime(2026, 1, 1, tzinfo=UTC)}],
    models.Match: [{"id": "M1", "variant": "bulgarian", "options": {}, "meta": {"seed": 1},
                    "private": False, "started_at": datetime(2026, 1, 1, tzinfo=UTC),
                    "finished_at": datetime(2026, 1, 2, tzinfo=UTC), "end_reason": "won",
                    "total0": 151, "total1": 80, "winner": 0, "epoch": 2}],
    models.MatchSeat: [{"match_id": "M1", "seat": i, "player_id": "g-ana" if i == 0 else None,
                        "name": "Ana" if i == 0 else "Bot", "kind": "human" if i == 0 else "bot",
                        "level": None if i == 0 else "easy"} for i in range(4)],
}


async def rows_of(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """The rows of GUEST_ROWS's tables, in the columns it fills (later revisions add more)."""
    async with opened(url) as db, db.read() as session:
        return {model.__tablename__: sorted(tuple(row) for row in (await session.execute(
            select(*(model.__table__.c[column] for column in rows[0])))).all())
            for model, rows in GUEST_ROWS.items()}


async def fill(url: str) -> None:
    async with opened(url) as db, db.write() as conn:
        for model, rows in GUEST_ROWS.items():
            await conn.execute(insert(model), rows)


async def becomes_account(url: str) -> store.AccountRow | None:
    async with opened(url) as db:
        await store.create_account(db, "g-ana", "Ana", "ana", "argon2-hash")
        return await store.find_account(db, "ana")


def test_0004_keeps_the_guests_history(empty_url: str) -> None:
    """From revision 0003 with a guest's match, up to head: every row as it was, and the
    guest may then become an account; down again, the history is still whole."""
    config = alembic_config(empty_url)
    command.upgrade(config, "0003")
    run(fill(empty_url))
    before = run(rows_of(empty_url))
    command.upgrade(config, "head")
    assert run(rows_of(empty_url)) == before
    assert run(becomes_account(empty_url)) == store.AccountRow("g-ana", "Ana", "argon2-hash")
    command.downgrade(config, "0003")
    after = run(rows_of(empty_url))
    assert after["matches"] == before["matches"] and after["match_seats"] == before["match_seats"]


async def set_expiry(url: str, expires_at: datetime) -> None:
    async with opened(url) as db, db.write() as conn:
        await conn.execute(update(models.Session).values(expires_at=expires_at))


async def expiry(url: str) -> datetime:
    async with opened(url) as db, db.read() as session:
        return (await session.execute(select(models.Session.expires_at))).scalar_one()


def test_a_session_slides_while_used_and_lapses_unused(client: TestClient, db_url: str) -> None:
    lena = sign_up(client, "lena")
    now = datetime.now(UTC)
    run(set_expiry(db_url, now + timedelta(days=20)))  # last used ten days ago
    assert me(client, lena["token"]).status_code == 200
    assert run(expiry(db_url)) >= now + timedelta(days=29)
    run(set_expiry(db_url, now - timedelta(seconds=1)))
    refused(me(client, lena["token"]), 401, "bad_token")


def test_a_socket_of_a_session_ended_while_it_was_set_up_closes() -> None:
    sockets = SessionSockets()
    client = Client(Player("p", "ana"), 8)
    sockets.close("ended")  # the news came before the socket registered
    sockets.add("ended", client)
    assert client.closed and client.outbox.get_nowait() == Close(CloseCode.SESSION_ENDED,
                                                                 "session_ended")
    other = Client(Player("p", "ana"), 8)
    sockets.add("live", other)
    assert not other.closed

"""The table's chat over the socket: phrases and text reach the seated players, and the
spectators as the table's creator chose; text is checked (length, control characters),
rate-limited, refused with its own codes; a reconnecting client gets the recent messages;
nothing of it is logged, and the option survives a restart."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from app.bots import BotRunner
from app.main import create_app
from app.matchlog import MatchMeta
from app.storage import MemoryStorage
from app.tables import Lobby, Say
from app.tables.chat import BURST, KEPT, MAX_TEXT, PHRASES, RATE
from engine import Options
from tests.actors import first_message, my_turn, solo_table
from tests.conftest import Rest, app_settings
from tests.fake_clock import FakeClock
from tests.test_app_ws import Message, seated, until

INTERVAL = 1 / RATE  # seconds of the fake clock that give a player one more message


def is_chat(message: Message) -> bool:
    return bool(message["type"] == "event" and message["event"]["kind"] == "chat")


def answer(ws: WebSocketTestSession) -> Message:
    """The next chat event or error this socket gets."""
    return until(ws, lambda m: is_chat(m) or m["type"] == "error", "a chat event or an error")


def said(ws: WebSocketTestSession, **message: Any) -> Message:
    """Send a chat message; the event it comes back as."""
    ws.send_json({"type": "chat"} | message)
    reply = answer(ws)
    assert is_chat(reply), reply
    event: Message = reply["event"]
    return event


def refused(ws: WebSocketTestSession, message: Any) -> str:
    """Send ``message`` (a frame's text, or a chat message's fields); the error's code."""
    if isinstance(message, str):
        ws.send_text(message)
    else:
        ws.send_json({"type": "chat"} | message)
    reply = answer(ws)
    assert reply["type"] == "error", reply
    code: str = reply["code"]
    return code


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def client(clock: FakeClock) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings(), MemoryStorage(), clock)) as test_client:
        yield test_client


def test_phrases_and_text_reach_the_players_and_spectators(client: TestClient,
                                                           rest: Rest) -> None:
    ana, ivo, eve = rest.guest("Ana"), rest.guest("Ivo"), rest.guest("Eve")
    table_id = rest.table(ana, [ana, ivo, "easy", "easy"])
    assert client.get(f"/api/tables/{table_id}").json()["spectator_chat"] is True
    with seated(client, table_id, ana) as (a, _), seated(client, table_id, ivo) as (b, _), \
            seated(client, table_id, eve) as (e, watching):
        assert watching["seat"] is None and watching["chat"] == []
        event = said(a, phrase="good_luck")
        assert event == {"kind": "chat", "seat": 0, "player": ana["id"], "name": "Ana",
                         "phrase": "good_luck", "time": event["time"]}
        for ws in (b, e):
            assert answer(ws)["event"] == event
        # Text is trimmed and kept as written: markup is text like any other.
        event = said(b, text="  <b>well</b> played  ")
        assert (event["seat"], event["name"], event["text"]) == (1, "Ivo", "<b>well</b> played")
        assert "phrase" not in event
        assert answer(a)["event"] == answer(e)["event"] == event
        # The version stays: chat is not a change of the table.
        version = client.get(f"/api/tables/{table_id}").json()["version"]
        rest.start(table_id, ana)
        started = until(e, lambda m: m["type"] == "event" and m["event"]["kind"] == "start")
        assert started["version"] == version + 1


def test_spectators_read_nothing_when_the_creator_says_so(client: TestClient,
                                                          rest: Rest) -> None:
    ana, ivo, eve = rest.guest("Ana"), rest.guest("Ivo"), rest.guest("Eve")
    table_id = rest.table(ana, [ana, ivo, "easy", "easy"], spectator_chat=False)
    assert client.get(f"/api/tables/{table_id}").json()["spectator_chat"] is False
    with seated(client, table_id, ana) as (a, _), seated(client, table_id, ivo) as (b, _):
        said(a, text="before Eve came")
        assert answer(b)["event"]["text"] == "before Eve came"
        with seated(client, table_id, eve) as (e, watching):
            assert watching["chat"] == []
            said(a, phrase="hello")
            assert answer(b)["event"]["phrase"] == "hello"
            # Eve hears the next thing that is for her, a ping's answer, and no chat.
            e.send_json({"type": "ping", "id": "after"})
            reply = until(e, lambda m: m["type"] in ("pong", "error") or is_chat(m))
            assert reply["type"] == "pong", reply
            assert refused(e, {"phrase": "hello"}) == "not_seated"
        with seated(client, table_id, ivo) as (_, back):
            assert [line.get("text") or line.get("phrase") for line in back["chat"]] == [
                "before Eve came", "hello"]
    response = client.post("/api/tables", json={"name": "t", "spectator_chat": "maybe"},
                           headers=rest.auth(ana))
    assert response.status_code == 422
    assert response.json()["detail"]["fields"][0]["field"] == "body.spectator_chat"


def test_spectators_may_read_but_never_write(client: TestClient, rest: Rest) -> None:
    ana, eve = rest.guest("Ana"), rest.guest("Eve")
    table_id = rest.table(ana, [ana, "easy", "easy", "easy"])
    with seated(client, table_id, ana) as (a, _), seated(client, table_id, eve) as (e, _):
        assert refused(e, {"text": "psst, she has the jack"}) == "not_seated"
        assert refused(e, {"phrase": "hello"}) == "not_seated"
        a.send_json({"type": "ping", "id": "p"})
        assert until(a, lambda m: m["type"] == "pong" or is_chat(m))["type"] == "pong"


def test_text_is_checked(client: TestClient, rest: Rest) -> None:
    ana = rest.guest("Ana")
    table_id = rest.table(ana, [ana, "easy", "easy", "easy"])
    with seated(client, table_id, ana) as (a, _):
        for text, code in [("", "chat_empty"), (" \u3000 ", "chat_empty"),
                           ("x" * (MAX_TEXT + 1), "chat_too_long"),
                           ("é" * MAX_TEXT + "!", "chat_too_long"),
                           ("bell\x07", "chat_control"), ("two\nlines", "chat_control"),
                           ("\u202eevil", "chat_control")]:
            assert refused(a, {"text": text}) == code, text
        assert refused(a, {"phrase": "nonsense"}) == "unknown_phrase"
        # Characters are counted, not bytes: 200 four-byte ones and a decomposed accent.
        assert said(a, text="🂡" * MAX_TEXT)["text"] == "🂡" * MAX_TEXT
        assert said(a, text="e\u0301" * MAX_TEXT)["text"] == "é" * MAX_TEXT


def test_malformed_chat_messages_get_an_error_and_lose_nothing(client: TestClient,
                                                               rest: Rest) -> None:
    ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
    table_id = rest.table(ana, [ana, ivo, "easy", "easy"])
    with seated(client, table_id, ana) as (a, _), seated(client, table_id, ivo) as (b, _):
        said(a, phrase="hello")
        assert answer(b)["event"]["phrase"] == "hello"
        for frame in ['{"type": "chat"}', '{"type": "chat", "text": "hi", "phrase": "hello"}',
                      '{"type": "chat", "text": 5}', '{"type": "chat", "phrase": ["hello"]}',
                      '{"type": "chat", "text": "hi", "name": "Ivo"}',
                      '{"type": "chat", "text": "hi", "seat": 1}',
                      '{"type": "chat", "phrase": "hello", "player": "' + ivo["id"] + '"}']:
            assert refused(a, frame) == "bad_message", frame
        # The socket is fine, the seat is Ana's own, and Ivo heard none of the refused.
        event = said(a, text="still here")
        assert (event["seat"], event["player"], event["name"]) == (0, ana["id"], "Ana")
        assert answer(b)["event"] == event
    with seated(client, table_id, ana) as (_, again):
        assert [line.get("text") or line.get("phrase") for line in again["chat"]] == [
            "hello", "still here"]


def test_a_player_who_talks_too_fast_waits(client: TestClient, rest: Rest,
                                           clock: FakeClock) -> None:
    ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
    table_id = rest.table(ana, [ana, ivo, "easy", "easy"])
    with seated(client, table_id, ana) as (a, _), seated(client, table_id, ivo) as (b, _):
        for i in range(BURST):
            said(a, text=f"burst {i}")
        assert refused(a, {"phrase": "hurry"}) == "chat_too_fast"
        heard = [until(b, is_chat)["event"].get("text") for _ in range(BURST)]
        assert heard == [f"burst {i}" for i in range(BURST)]
        assert said(b, phrase="hurry")["seat"] == 1  # each player has their own pace
        assert answer(a)["event"]["seat"] == 1  # the refused one went to nobody
        clock.advance(INTERVAL)
        assert said(a, text="one more")["text"] == "one more"
        assert refused(a, {"text": "and another"}) == "chat_too_fast"
        assert answer(b)["event"]["text"] == "one more"


def test_a_reconnecting_client_gets_the_recent_messages(client: TestClient, rest: Rest,
                                                        clock: FakeClock) -> None:
    ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
    table_id = rest.table(ana, [ana, ivo, "easy", "easy"])
    with seated(client, table_id, ana) as (a, _):
        for i in range(KEPT + 3):
            said(a, text=f"line {i}")
            clock.advance(INTERVAL)
    with seated(client, table_id, ivo) as (_, snapshot):
        assert [line["text"] for line in snapshot["chat"]] == [
            f"line {i}" for i in range(3, KEPT + 3)]
        assert {line["seat"] for line in snapshot["chat"]} == {0}
        times = [line["time"] for line in snapshot["chat"]]
        assert times == sorted(times) and times[0] < times[-1]


def test_every_phrase_is_accepted(client: TestClient, rest: Rest, clock: FakeClock) -> None:
    ana = rest.guest("Ana")
    table_id = rest.table(ana, [ana, "easy", "easy", "easy"])
    served = client.get("/api/protocol").json()["chat"]
    assert served == {"phrases": list(PHRASES), "max_text": MAX_TEXT}
    with seated(client, table_id, ana) as (a, _):
        for phrase in served["phrases"]:
            assert said(a, phrase=phrase)["phrase"] == phrase
            clock.advance(INTERVAL)


def test_the_option_survives_a_restart_and_chat_is_not_logged() -> None:
    async def scenario() -> None:
        settings = app_settings()
        storage = MemoryStorage()
        bots = BotRunner(settings)
        await bots.start()
        try:
            lobby = Lobby(settings, bots, storage)
            table, client = await solo_table(lobby, "quiet", Options.make("bulgarian"),
                                             spectator_chat=False)
            await my_turn(client)  # the table waits for Ana: the log stands still
            log = storage.matches[table.id]
            before = (log.meta, len(log.actions), table.version)
            await table.submit(Say(client, "gl hf", None))
            event = await first_message(client, lambda m: m["event"] is not None and m[
                "event"]["kind"] == "chat", "the chat event")
            assert event["event"]["text"] == "gl hf" and event["version"] == before[2]
            assert (log.meta, len(log.actions), table.version) == before
            await lobby.stop()
            assert MatchMeta.model_validate(log.meta.stored()).table.spectator_chat is False
            again = Lobby(settings, bots, storage)
            await again.restore()
            assert again.get(table.id).info().spectator_chat is False
            await again.stop()
        finally:
            await bots.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))
    # A row written before the option existed loads with spectators reading.
    old = {"variant": "bulgarian", "seed": 1, "version": 5, "owner": {"id": "p", "name": "P"},
           "seats": [{"kind": "bot", "name": "Bot", "level": "easy"}] * 4,
           "table": {"name": "old", "turn_seconds": 30, "private": False,
                     "timeout_forfeits": False}}
    assert MatchMeta.model_validate(old).table.spectator_chat is True

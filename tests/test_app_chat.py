"""The table's chat over the socket: phrases and text reach the seated players, and the
spectators as the table's creator chose; text is checked (length, control characters and
line breaks, tag characters, marks piled up, nothing visible), over a real server too,
rate-limited, refused with its own codes; a reconnecting client gets the recent messages;
nothing of it is logged, and the option survives a restart."""

from __future__ import annotations

import asyncio
import json
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession

from app.bots import BotRunner
from app.main import create_app
from app.matchlog import MatchMeta
from app.storage import MemoryStorage
from app.tables import Lobby, Say
from app.tables.chat import BURST, KEPT, MAX_TEXT, PHRASES, RATE, clean_text
from app.tables.errors import TableError
from app.text import MAX_MARKS, TAG_FLAGS, TAGS
from engine import Options
from tests.actors import first_message, my_turn, solo_table
from tests.conftest import LiveServer, Rest, app_settings
from tests.fake_clock import FakeClock
from tests.test_app_live import GUARD, PATIENCE, join
from tests.test_app_ws import Message, seated, until
from tests.waiting import received

INTERVAL = 1 / RATE  # seconds of the fake clock that give a player one more message
ZALGO = "h" + "\u0336\u0334\u0337\u0321\u0322\u0327\u0328" + "i" + "\u030d\u030e\u0304" * 3
# Refused text, each with its code: what app/text.py refuses and what shows nothing.
MISLEADING = [("\u200b", "chat_empty"), ("\u200b\u2060\ufeff", "chat_empty"),
              ("\u3164\u2800", "chat_empty"), ("\u0301\u0308", "chat_empty"),
              ("one\u2028two", "chat_control"), ("one\u2029two", "chat_control"),
              ("hi\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065",
               "chat_control"),  # "hi", then "ignore" in tag characters
              ("\u2066hi\u2069", "chat_control"), (ZALGO, "chat_too_many_marks"),
              ("e" + "\u0301" * (MAX_MARKS + 1), "chat_too_many_marks")]
# Kept as written: scripts that stack marks, emoji built of joiners, selectors, tags.
KEPT_AS_WRITTEN = ["Tiếng Việt có dấu", "בְּרֵאשִׁית", "ที่นี่", "བསྒྲུབས",
                   "\U0001f468\u200d\U0001f469\u200d\U0001f467", "#\ufe0f\u20e3",
                   *TAG_FLAGS, "e" + "\u0301" * MAX_MARKS]


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
                           ("\u202eevil", "chat_control"), *MISLEADING]:
            assert refused(a, {"text": text}) == code, text
        assert refused(a, {"phrase": "nonsense"}) == "unknown_phrase"
        # Characters are counted, not bytes: 200 four-byte ones and a decomposed accent.
        assert said(a, text="🂡" * MAX_TEXT)["text"] == "🂡" * MAX_TEXT
        assert said(a, text="e\u0301" * MAX_TEXT)["text"] == "é" * MAX_TEXT


def test_misleading_text_is_refused_over_a_real_socket(live: LiveServer,
                                                       live_rest: Rest) -> None:
    """Each refused with its code, in the error shape, to its sender alone; the socket
    goes on and a plain message is heard by the other player."""
    ana, ivo = live_rest.guest("Ana"), live_rest.guest("Ivo")
    table_id = live_rest.table(ana, [ana, ivo, "easy", "easy"])

    async def next_chat_or_error(ws: Any) -> Message:
        async for frame in received(ws, PATIENCE, "a chat event or an error"):
            message: Message = json.loads(frame)
            if is_chat(message) or message["type"] == "error":
                return message
        raise AssertionError("the socket closed")

    async def scenario() -> None:
        a, b = await join(live, table_id, ana["token"]), await join(live, table_id, ivo["token"])
        try:
            for text, code in MISLEADING:
                await a.send(json.dumps({"type": "chat", "text": text}))
                error = await next_chat_or_error(a)
                assert error == {"type": "error", "code": code, "message": error["message"],
                                 "id": None}, text
            await a.send(json.dumps({"type": "chat", "text": "Tiếng Việt, gl hf 🏴\U000e0067"
                                     "\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"}))
            for ws in (a, b):
                event = (await next_chat_or_error(ws))["event"]
                assert (event["seat"], event["text"]) == (0, "Tiếng Việt, gl hf " + TAG_FLAGS[1])
        finally:
            await a.close()
            await b.close()

    asyncio.run(asyncio.wait_for(scenario(), GUARD))


def code_of(text: str) -> str | None:
    """The code ``text`` is refused with, None if it is kept."""
    try:
        clean_text(text)
    except TableError as exc:
        return exc.code
    return None


INVISIBLE = st.characters(categories=["Cf", "Mn", "Me", "Zs"]) | st.sampled_from(
    "\u115f\u1160\u3164\uffa0\u2800")
LETTERS = st.characters(categories=["Lu", "Ll", "Lo", "Nd"])
MARKS = st.characters(categories=["Mn", "Me"])


@given(st.text(INVISIBLE, max_size=40))
def test_text_that_shows_nothing_is_never_kept(text: str) -> None:
    assert code_of(text) in {"chat_empty", "chat_control", "chat_too_many_marks"}


@given(st.text(LETTERS, min_size=1, max_size=20), st.text(LETTERS, min_size=1, max_size=20),
       st.sampled_from(["\u2028", "\u2029", "\x85", *map(chr, TAGS)]))
def test_line_breaks_and_tag_characters_within_are_refused(before: str, after: str,
                                                           hidden: str) -> None:
    """Within the text: at its ends, line breaks are trimmed like any space."""
    assert code_of(before + hidden + after) == "chat_control"


@given(st.text(LETTERS, min_size=1, max_size=20), st.text(LETTERS, max_size=20),
       st.lists(MARKS, min_size=MAX_MARKS + 1, max_size=3 * MAX_MARKS))
def test_marks_piled_on_one_character_are_refused(before: str, after: str,
                                                  marks: list[str]) -> None:
    assert code_of(before + "".join(marks) + after) == "chat_too_many_marks"


@given(st.text(st.characters(categories=["L", "N", "P", "S", "Zs"]), max_size=MAX_TEXT))
def test_plain_text_is_kept_composed_and_trimmed(text: str) -> None:
    """Letters (precomposed ones carry at most a few marks), digits, punctuation, symbols
    and spaces: kept, unless it is all spaces or too long once composed."""
    kept = unicodedata.normalize("NFC", text).strip()
    if not kept:
        assert code_of(text) == "chat_empty"
    elif len(kept) > MAX_TEXT:
        assert code_of(text) == "chat_too_long"
    else:
        assert clean_text(text) == kept


@pytest.mark.parametrize("text", KEPT_AS_WRITTEN)
def test_scripts_that_stack_marks_and_emoji_are_kept(text: str) -> None:
    assert clean_text(text) == unicodedata.normalize("NFC", text)


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
        bots = BotRunner(settings.bots)
        await bots.start()
        try:
            lobby = Lobby(settings.tables, bots, storage)
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
            again = Lobby(settings.tables, bots, storage)
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

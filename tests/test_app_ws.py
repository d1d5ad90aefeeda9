"""The table socket in-process (TestClient): a whole match against bots, refused actions,
garbage frames, the handshake, spectators, a timer, a reconnection."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from app.main import create_app
from app.matchlog import replay
from app.protocol import CloseCode
from app.storage import MemoryStorage
from app.vocabulary import EndReason
from engine import write_record
from tests.conftest import Rest, app_settings
from tests.fake_clock import FakeClock
from tests.waiting import Deadline

Message = dict[str, Any]
# Seconds a test reads a socket for the message it expects, and for a whole match, before it
# fails.  A read itself cannot block for long: the server pings every WS_PING_INTERVAL.
PATIENCE = 30
MATCH_PATIENCE = 90
# Seconds of a turn, of the grace and of a result's display in the timer tests: time on a
# FakeClock that the test moves, so long enough that a test would fail on PATIENCE, not
# pass slowly, if the app kept real time.
TURN, GRACE, SHOWN = 60.0, 45.0, 600.0


@contextmanager
def seated(client: TestClient, table_id: str, guest: dict[str, str]) -> Iterator[
        tuple[WebSocketTestSession, Message]]:
    """A socket after the handshake, and the snapshot it got."""
    with client.websocket_connect(f"/api/tables/{table_id}/ws") as ws:
        ws.send_json({"type": "hello", "protocol": 1, "token": guest["token"]})
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome" and welcome["player"]["id"] == guest["id"]
        snapshot = ws.receive_json()
        assert snapshot["type"] == "snapshot"
        yield ws, snapshot


def until(ws: WebSocketTestSession, done: Any, what: str = "the message awaited") -> Message:
    """Read messages until ``done(message)``; fail after ``PATIENCE`` seconds."""
    deadline = Deadline(PATIENCE, lambda: f"{what}; the last message: {message}")
    message: Message = ws.receive_json()
    while not done(message):
        deadline.check()
        message = ws.receive_json()
    return message


def my_turn(seat: int) -> Any:
    return lambda m: m["type"] in ("event", "snapshot") and m["turn"] == seat and m["view"][
        "legal_actions"]


def event_past(version: int) -> Any:
    return lambda m: m["type"] == "event" and m["version"] > version


def play_to_the_end(ws: WebSocketTestSession, seat: int, first: Message) -> Message:
    """Play the first legal action whenever it is our turn; return the final event."""
    message, count = first, 0
    deadline = Deadline(MATCH_PATIENCE, lambda: f"the end of the match, at {message}")
    while message.get("table", {}).get("status") != "over":
        deadline.check()
        if my_turn(seat)(message):
            count += 1
            ws.send_json({"type": "action", "id": f"a{count}", "version": message["version"],
                          "action": message["view"]["legal_actions"][0]})
        message = ws.receive_json()
        assert message["type"] != "error", message
    return message


@pytest.mark.slow
def test_one_human_and_three_bots_play_a_whole_match() -> None:
    storage = MemoryStorage()
    with TestClient(create_app(app_settings(), storage)) as client:
        rest = Rest(client)
        ana = rest.guest("Ana")
        table_id = rest.table(ana, [ana, "easy", "normal", "hard"])
        with seated(client, table_id, ana) as (ws, snapshot):
            assert snapshot["view"] is None and snapshot["seat"] == 0
            rest.start(table_id, ana)
            start = until(ws, lambda m: m["type"] == "event" and m["event"]["kind"] == "start")
            final = play_to_the_end(ws, 0, start)
        table = final["table"]
        assert table["winner"] in (0, 1) and max(table["totals"]) >= 151
        record = client.get(f"/api/tables/{table_id}/record").json()
        assert record["format"] == "belote-record/1" and record["seats"][3]["level"] == "hard"
        stored = storage.matches[table_id]
        assert stored.end is not None and stored.end.winner == table["winner"]
        assert len(stored.deals) == len(stored.results) == len(record["deals"])
        logged = replay(stored.meta.match_options(), stored.deals)  # the log alone
        assert write_record(logged)["deals"] == record["deals"]
        assert {entry.by for entry in stored.actions} == {"player", "bot"}
        assert [e.version for e in stored.actions] == list(
            range(stored.meta.version + 1, table["version"] + 1))


def test_refused_actions_change_nothing(client: TestClient, rest: Rest) -> None:
    ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
    table_id = rest.table(ana, [ana, ivo, "easy", "easy"])
    with seated(client, table_id, ana) as (a, _), seated(client, table_id, ivo) as (b, _):
        early = {"type": "action", "id": "x", "version": 0, "action": "pass"}
        a.send_json(early)
        assert until(a, lambda m: m["type"] == "error")["code"] == "not_started"
        rest.start(table_id, ana)
        state = until(a, lambda m: m["type"] == "event" and m["event"]["kind"] == "start")
        theirs = until(b, lambda m: m["type"] == "event" and m["event"]["kind"] == "start")
        # Play until it is seat 0's turn with seat 1 waiting: bots fill the gaps, and Ivo
        # plays his turns at once (else his turn timer would, after 30 real seconds).
        while not my_turn(0)(state):
            if my_turn(1)(theirs):
                b.send_json({"type": "action", "id": f"b{theirs['version']}",
                             "version": theirs["version"],
                             "action": theirs["view"]["legal_actions"][0]})
            state = until(a, event_past(state["version"]))
            theirs = until(b, event_past(state["version"] - 1))  # the same event
        version = state["version"]
        legal = state["view"]["legal_actions"]

        def refused(ws: WebSocketTestSession, **action: Any) -> Message:
            ws.send_json({"type": "action"} | action)
            answer = until(ws, lambda m: m["type"] in ("error", "ack"))
            assert answer["type"] == "error", answer
            return answer

        assert refused(b, id="b1", version=version, action=legal[0])["code"] == "not_your_turn"
        assert refused(a, id="a1", version=version - 1, action=legal[0])["code"] == "stale_version"
        assert refused(a, id="a2", version=version, action="XX")["code"] == "unknown_action"
        illegal = {"AT", "redouble", "announce 7C 8C 9C"} - set(legal)
        assert refused(a, id="a3", version=version, action=sorted(illegal)[0])["code"] in {
            "illegal_bid", "wrong_phase", "illegal_announce", "card_not_held"}
        hand = state["view"]["hand"]
        not_held = next(c for c in ("7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC", "7D", "8D",
                                    "9D", "TD", "JD", "QD") if c not in hand)
        if state["view"]["phase"] == "play":
            assert refused(a, id="a4", version=version, action=not_held)["code"] == "card_not_held"
        # Nothing changed: the table is still at the same version, seat 0 to move.
        assert client.get(f"/api/tables/{table_id}").json()["version"] == version
        a.send_json({"type": "action", "id": "ok", "version": version, "action": legal[0]})
        event = until(a, lambda m: m["type"] == "event" and m["version"] == version + 1)
        assert event["event"]["seat"] == 0 and event["event"]["by"] == "player"
        ack = until(a, lambda m: m["type"] == "ack")
        assert ack == {"type": "ack", "id": "ok", "version": version + 1}
        # The same id again gets the original answer, and nothing is applied twice.
        a.send_json({"type": "action", "id": "ok", "version": version, "action": legal[0]})
        assert until(a, lambda m: m["type"] in ("ack", "error")) == ack
        a.send_json({"type": "action", "id": "a1", "version": 999, "action": "pass"})
        assert until(a, lambda m: m["type"] in ("ack", "error"))["code"] == "stale_version"


def test_garbage_frames_get_errors_and_the_socket_survives(client: TestClient,
                                                           rest: Rest) -> None:
    ana = rest.guest("Ana")
    table_id = rest.table(ana, [ana, "easy", "easy", "easy"])
    with seated(client, table_id, ana) as (ws, _):
        for frame, code in [("{", "bad_json"), ("[]", "bad_message"), ("null", "bad_message"),
                            ('{"type": "teleport"}', "unknown_type"),
                            ('{"type": "action", "id": 5}', "bad_message"),
                            ('{"type": "hello", "protocol": 1, "token": "t"}', "bad_message"),
                            ("[" * 2000 + "]" * 2000, "bad_json"),
                            ("\udcff".encode("utf-8", "surrogatepass").decode("latin-1"),
                             "bad_json")]:
            ws.send_text(frame)
            assert until(ws, lambda m: m["type"] == "error")["code"] == code, frame
        ws.send_json({"type": "ping", "id": "p1"})
        pong = until(ws, lambda m: m["type"] == "pong")
        assert pong["id"] == "p1" and isinstance(pong["time"], int)
        ws.send_text("x" * 5000)
        with pytest.raises(WebSocketDisconnect) as closed:
            until(ws, lambda m: False)
        assert closed.value.code == 1009
    with seated(client, table_id, ana) as (ws, _):
        ws.send_bytes(b"\x00\x01")
        with pytest.raises(WebSocketDisconnect) as closed:
            until(ws, lambda m: False)
        assert closed.value.code == 1003
    # The server is fine: the table still answers.
    assert client.get(f"/api/tables/{table_id}").status_code == 200


def test_floods_are_closed_with_policy_violation() -> None:
    with TestClient(create_app(app_settings(ws_rate=5, ws_burst=10), MemoryStorage())) as client:
        rest = Rest(client)
        ana = rest.guest("Ana")
        table_id = rest.table(ana, [ana])
        with seated(client, table_id, ana) as (ws, _):
            for i in range(50):
                ws.send_json({"type": "ping", "id": str(i)})
            with pytest.raises(WebSocketDisconnect) as closed:
                until(ws, lambda m: False)
            assert closed.value.code == CloseCode.POLICY


@pytest.mark.parametrize(("hello", "code"), [
    ({"type": "hello", "protocol": 2, "token": "?"}, CloseCode.BAD_HELLO),
    ({"type": "ping"}, CloseCode.BAD_HELLO),
    ({"type": "hello", "protocol": 1, "token": "forged"}, CloseCode.BAD_TOKEN),
    ("not json", CloseCode.BAD_HELLO),
])
def test_bad_handshakes_are_refused(client: TestClient, rest: Rest, hello: Any,
                                    code: int) -> None:
    ana = rest.guest("Ana")
    table_id = rest.table(ana, [ana])
    with client.websocket_connect(f"/api/tables/{table_id}/ws") as ws:
        ws.send_text(hello if isinstance(hello, str) else json.dumps(hello))
        assert ws.receive_json()["type"] == "error"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == code


def test_unknown_table_socket(client: TestClient, rest: Rest) -> None:
    ana = rest.guest("Ana")
    with client.websocket_connect("/api/tables/nope/ws") as ws:
        ws.send_json({"type": "hello", "protocol": 1, "token": ana["token"]})
        assert ws.receive_json()["code"] == "no_table"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == CloseCode.NO_TABLE


def test_spectator_sees_the_public_view(client: TestClient, rest: Rest) -> None:
    ana, eve = rest.guest("Ana"), rest.guest("Eve")
    table_id = rest.table(ana, [ana, "easy", "easy", "easy"], start=True)
    with seated(client, table_id, eve) as (ws, snapshot):
        assert snapshot["seat"] is None and snapshot["view"]["hand"] == []
        assert snapshot["view"]["legal_actions"] == [] and snapshot["turn"] == snapshot[
            "view"]["to_move"]
        ws.send_json({"type": "action", "id": "e", "version": snapshot["version"],
                      "action": "pass"})
        assert until(ws, lambda m: m["type"] == "error")["code"] == "not_seated"


def test_spectators_are_capped_players_are_not() -> None:
    with TestClient(create_app(app_settings(max_spectators=1), MemoryStorage())) as client:
        rest = Rest(client)
        ana, eve, bob = rest.guest("Ana"), rest.guest("Eve"), rest.guest("Bob")
        table_id = rest.table(ana, [ana])
        with seated(client, table_id, eve), seated(client, table_id, ana) as (_, mine):
            assert mine["seat"] == 0
            with client.websocket_connect(f"/api/tables/{table_id}/ws") as ws:
                ws.send_json({"type": "hello", "protocol": 1, "token": bob["token"]})
                ws.receive_json()  # welcome
                assert ws.receive_json()["code"] == "too_many_spectators"
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
                assert closed.value.code == CloseCode.CROWDED
            with seated(client, table_id, eve) as (_, again):  # a reconnect replaces
                assert again["seat"] is None


def test_one_socket_per_player_the_newest_wins(client: TestClient, rest: Rest) -> None:
    ana = rest.guest("Ana")
    table_id = rest.table(ana, [ana])
    with seated(client, table_id, ana) as (old, _), seated(client, table_id, ana) as (new, now):
        assert now["seat"] == 0
        with pytest.raises(WebSocketDisconnect) as closed:
            until(old, lambda m: False)
        assert closed.value.code == CloseCode.REPLACED
        new.send_json({"type": "ping"})
        assert until(new, lambda m: m["type"] == "pong")


def next_turn(ws: WebSocketTestSession, seat: int, state: Message) -> Message:
    """``state`` if the seat has something to do in it, else the next message where it does:
    its turn's timer runs from then."""
    return state if my_turn(seat)(state) else until(ws, my_turn(seat))


def test_timer_plays_for_a_sleeping_player_then_forfeit_option() -> None:
    settings = app_settings(missed_turns_to_bot=2)
    clock = FakeClock()
    with TestClient(create_app(settings, MemoryStorage(), clock)) as client:
        rest = Rest(client)
        ana = rest.guest("Ana")
        table_id = rest.table(ana, [ana, "easy", "easy", "easy"], turn_seconds=TURN)
        with seated(client, table_id, ana) as (ws, _):
            rest.start(table_id, ana)
            turn = until(ws, my_turn(0))
            assert turn["deadline"] == int((clock.now + TURN) * 1000)
            clock.advance(TURN)
            first = until(ws, lambda m: m["type"] == "event" and m["event"].get("seat") == 0)
            assert first["event"]["by"] == "timeout" and first["version"] == turn["version"] + 1
            # The second missed turn hands the seat to a bot until Ana says she is back.
            next_turn(ws, 0, first)
            clock.advance(TURN)
            autoplay = until(ws, lambda m: m["type"] == "event" and m["table"]["seats"][0][
                "autoplay"])
            assert autoplay["event"] == {"kind": "presence", "seat": 0}
            second = until(ws, lambda m: m["type"] == "event" and m["event"].get("seat") == 0)
            assert second["event"]["by"] == "timeout"  # the turn that timed out
            covered = until(ws, lambda m: m["type"] == "event" and m["event"].get("seat") == 0
                            and m["version"] > second["version"] + 1)
            assert covered["event"]["by"] == "cover"  # later turns: no waiting for Ana
            ws.send_json({"type": "resume"})
            back = until(ws, lambda m: m["type"] == "event" and not m["table"]["seats"][0][
                "autoplay"])
            assert back["table"]["seats"][0]["connected"]

        forfeit_table = rest.table(ana, [ana, "easy", "easy", "easy"], turn_seconds=TURN,
                                   timeout_forfeits=True)
        with seated(client, forfeit_table, ana) as (ws, _):
            rest.start(forfeit_table, ana)
            until(ws, my_turn(0))
            clock.advance(TURN)
            over = until(ws, lambda m: m["type"] == "event" and m["event"]["kind"] == "forfeit")
            assert over["table"]["status"] == "over"
            assert over["table"]["forfeit"] == {"seat": 0, "winner": 1}
            assert over["table"]["winner"] == 1 and over["deadline"] is None
        record = client.get(f"/api/tables/{forfeit_table}/record").json()
        assert record["forfeit"] == {"seat": 0, "winner": 1}


def test_reconnect_mid_trick_resumes_from_a_fresh_snapshot() -> None:
    storage = MemoryStorage()
    with TestClient(create_app(app_settings(), storage)) as client:
        rest = Rest(client)
        ana = rest.guest("Ana")
        table_id = rest.table(ana, [ana, "easy", "easy", "easy"])
        with seated(client, table_id, ana) as (ws, snapshot):
            # Started once Ana is here: before, bots cover her seat at full speed, and the
            # match could end before she connects (a loaded machine's connection).
            rest.start(table_id, ana)
            state = snapshot
            # Play until seat 0 has just played inside a trick that is not complete.
            deadline = Deadline(PATIENCE, "Ana to play inside a trick")
            while not (state["type"] == "event" and state["event"].get("seat") == 0 and
                       0 < len(state["view"]["trick"]["cards"]) < 4):
                deadline.check()
                if my_turn(0)(state):
                    ws.send_json({"type": "action", "id": str(state["version"]),
                                  "version": state["version"],
                                  "action": state["view"]["legal_actions"][0]})
                state = ws.receive_json()
            left_at = state["version"]
        # Ana is away: the bots, covering for her, keep the game moving.
        table = client.get(f"/api/tables/{table_id}").json()
        assert table["seats"][0]["connected"] is False
        with seated(client, table_id, ana) as (ws, snapshot):
            assert snapshot["seat"] == 0 and snapshot["version"] >= left_at
            assert snapshot["table"]["seats"][0]["connected"] is True
            assert len(snapshot["view"]["hand"]) == snapshot["view"]["hand_sizes"][0]
            play_to_the_end(ws, 0, snapshot)
        by = {entry.by for entry in storage.matches[table_id].actions if entry.seat == 0}
        assert by == {"player", "cover"}


def test_a_player_gone_past_the_grace_period_loses_the_seat_to_a_bot() -> None:
    clock = FakeClock()
    settings = app_settings(reconnect_grace=GRACE)  # < TURN: no turn times out meanwhile
    with TestClient(create_app(settings, MemoryStorage(), clock)) as client:
        rest = Rest(client)
        ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
        table_id = rest.table(ana, [ana, ivo, "easy", "easy"], turn_seconds=TURN)
        with seated(client, table_id, ana) as (ws, _):
            # Started once Ana is here, so that the match waits on her turns: started
            # before, its bots (covering both absent humans at full speed) could end it
            # before Ivo's grace ran out, and a finished match hands no seat to a bot.
            rest.start(table_id, ana)
            with seated(client, table_id, ivo):
                pass
            until(ws, lambda m: m["type"] == "event" and m["event"] == {
                "kind": "presence", "seat": 1} and not m["table"]["seats"][1]["connected"])
            clock.advance(GRACE)  # his grace began as he left
            gone = until(ws, lambda m: m["type"] == "event" and m["event"] == {
                "kind": "seat", "seat": 1})
            assert gone["table"]["seats"][1]["kind"] == "bot"
        with seated(client, table_id, ivo) as (_, snapshot):
            assert snapshot["seat"] is None  # a spectator now


def test_liveness_pings_and_silent_clients_are_closed() -> None:
    settings = app_settings(ws_ping_interval=0.1, ws_idle_timeout=0.35, ws_hello_timeout=0.2)
    with TestClient(create_app(settings, MemoryStorage())) as client:
        rest = Rest(client)
        ana = rest.guest("Ana")
        table_id = rest.table(ana, [ana])
        with seated(client, table_id, ana) as (ws, _):
            assert isinstance(until(ws, lambda m: m["type"] == "ping")["time"], int)
            ws.send_json({"type": "pong"})
            with pytest.raises(WebSocketDisconnect) as closed:
                until(ws, lambda m: False)  # then silence
            assert closed.value.code == CloseCode.TIMEOUT
        with client.websocket_connect(f"/api/tables/{table_id}/ws") as ws:
            assert ws.receive_json()["code"] == "hello_timeout"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == CloseCode.TIMEOUT


def test_tables_close_when_the_last_human_leaves_or_the_result_expires() -> None:
    storage = MemoryStorage()
    clock = FakeClock()
    settings = app_settings(finished_table_ttl=SHOWN)
    with TestClient(create_app(settings, storage, clock)) as client:
        rest = Rest(client)
        ana, eve = rest.guest("Ana"), rest.guest("Eve")
        table_id = rest.table(ana, [ana, "easy", "easy", "easy"], start=True,
                              turn_seconds=600)
        with seated(client, table_id, eve) as (ws, _):
            left = client.delete(f"/api/tables/{table_id}/seats/0", headers=rest.auth(ana))
            assert left.json()["status"] == "closed"
            with pytest.raises(WebSocketDisconnect) as closed:
                until(ws, lambda m: False)
            assert closed.value.code == CloseCode.NO_TABLE
        assert client.get(f"/api/tables/{table_id}").status_code == 404
        end = storage.matches[table_id].end
        assert end is not None and end.reason == EndReason.ABANDONED

        quick = rest.table(ana, [ana, "easy", "easy", "easy"], turn_seconds=TURN,
                           timeout_forfeits=True)
        with seated(client, quick, ana) as (playing, _), seated(client, quick, eve) as (ws, _):
            rest.start(quick, ana)
            until(playing, my_turn(0))
            clock.advance(TURN)  # Ana's turn times out: the match is over, forfeited
            until(ws, lambda m: m["type"] == "event" and m["table"]["status"] == "over")
            clock.advance(SHOWN - 1)
            assert client.get(f"/api/tables/{quick}").json()["status"] == "over"  # still shown
            clock.advance(1)
            with pytest.raises(WebSocketDisconnect) as closed:
                until(ws, lambda m: False)
            assert closed.value.code == CloseCode.NO_TABLE
        assert client.get(f"/api/tables/{quick}").status_code == 404

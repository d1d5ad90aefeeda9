"""The community (issue #32) on one server: friends (asked both ways), the personal channel
``/api/me/ws`` and what it is told (a friend request, a friend online, an invitation),
blocks, reports, guests refused where only accounts may act.  On SQLite and PostgreSQL;
across two nodes: tests/test_community_cluster.py."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from app.db import kept_notices
from app.main import create_app
from app.storage import MemoryStorage
from tests.conftest import Rest, app_settings
from tests.test_accounts import Account, auth, limits, refused, sign_up
from tests.test_app_ws import seated, until
from tests.test_rating_integrity import admin
from tests.waiting import clear_of_a_window_edge

pytest_plugins = ["tests.test_db_support"]  # the database fixtures


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    settings = app_settings(database_url=db_url, ws_ping_interval=0.2, max_tables_per_player=10,
                            bot_delay=60,  # the matches stay in progress: nobody plays
                            **limits({}))
    with TestClient(create_app(settings, MemoryStorage())) as test_client:
        yield test_client


@contextmanager
def channel(client: TestClient, who: dict[str, str]) -> Iterator[WebSocketTestSession]:
    """``who``'s personal socket, after the handshake."""
    with client.websocket_connect("/api/me/ws") as ws:
        ws.send_json({"type": "hello", "protocol": 1, "token": who["token"]})
        assert ws.receive_json()["player"]["id"] == who["id"]
        yield ws


def notice(ws: WebSocketTestSession, kind: str) -> dict[str, Any]:
    """The next notice of ``kind`` (pings read past)."""
    message: dict[str, Any] = until(ws, lambda m: m["type"] == "notice" and m["kind"] == kind,
                                    f"a {kind} notice")
    return message


def befriend(client: TestClient, asker: Account, asked: Account) -> Any:
    response = client.post("/api/friends", json={"player": asked["id"]},
                           headers=auth(asker["token"]))
    assert response.status_code == 200, response.text
    return response.json()


def friends(client: TestClient, who: Account) -> Any:
    response = client.get("/api/friends", headers=auth(who["token"]))
    assert response.status_code == 200, response.text
    return response.json()


def test_two_accounts_become_friends_and_are_told(client: TestClient) -> None:
    ana, bo = sign_up(client, "ana"), sign_up(client, "bob")
    with channel(client, bo) as bo_ws:
        assert befriend(client, ana, bo) == {"friends": False}
        told = notice(bo_ws, "friend_request")
        assert told["player"] == {"id": ana["id"], "name": "ana"} and not told["friends"]
        assert friends(client, ana)["outgoing"] == [{"id": bo["id"], "name": "bob"}]
        assert friends(client, bo)["incoming"] == [{"id": ana["id"], "name": "ana"}]
        assert befriend(client, bo, ana) == {"friends": True}
        assert friends(client, ana) == {"friends": [
            {"id": bo["id"], "name": "bob", "online": True, "table": None}],
            "incoming": [], "outgoing": []}
        with channel(client, ana):
            came = notice(bo_ws, "friend_online")
            assert came["player"]["id"] == ana["id"] and came["online"] is True
        assert notice(bo_ws, "friend_online")["online"] is False
    assert friends(client, ana)["friends"][0]["online"] is False
    response = client.delete(f"/api/friends/{bo['id']}", headers=auth(ana["token"]))
    assert response.status_code == 204
    assert friends(client, bo)["friends"] == []


def test_one_is_told_when_the_other_invites_it(client: TestClient) -> None:
    ana, bo = sign_up(client, "ana"), sign_up(client, "bob")
    befriend(client, ana, bo)
    befriend(client, bo, ana)
    table_id = Rest(client).table(ana, [ana])
    with channel(client, bo) as bo_ws:
        response = client.post(f"/api/tables/{table_id}/invitations",
                               json={"player": bo["id"]}, headers=auth(ana["token"]))
        assert response.status_code == 204, response.text
        told = notice(bo_ws, "invitation")
        assert told["table"] == table_id and told["player"]["id"] == ana["id"]
        assert told["variant"] == "bulgarian"
    # Only a seated player invites: Bo has no seat there.
    refused(client.post(f"/api/tables/{table_id}/invitations", json={"player": ana["id"]},
                        headers=auth(bo["token"])), 403, "not_seated_here")


def test_the_inviter_is_told_of_a_decline_while_the_invitation_stands(
        client: TestClient) -> None:
    ana, bo, cy = sign_up(client, "ana"), sign_up(client, "bob"), sign_up(client, "cyd")
    dan = sign_up(client, "dan")
    table_id = Rest(client).table(ana, [ana, cy])  # Cy keeps it open while Ana stands up

    def decline(who: Account, inviter: Account, table: str = table_id) -> Any:
        return client.delete(f"/api/tables/{table}/invitations/{inviter['id']}",
                             headers=auth(who["token"]))

    with channel(client, ana) as ana_ws:
        assert decline(bo, ana).status_code == 204
        told = notice(ana_ws, "invitation_declined")
        assert told["player"] == {"id": bo["id"], "name": "bob"}
        assert told["table"] == table_id
        # Ana up from her seat: the invitation is moot, and nobody is told of a decline.
        assert client.delete(f"/api/tables/{table_id}/seats/0",
                             headers=auth(ana["token"])).status_code == 200
        assert decline(bo, ana).status_code == 204
        Rest(client).sit(table_id, 0, ana, ana)
        assert decline(dan, ana).status_code == 204
        # Notices reach a channel in the order told: had Bo's been told, it came first.
        assert notice(ana_ws, "invitation_declined")["player"]["id"] == dan["id"]
    refused(decline(ana, ana), 422, "yourself")
    refused(decline(bo, ana, "nosuchtable"), 404, "no_table")


def test_invitations_have_a_rate_of_their_own(db_url: str) -> None:
    settings = app_settings(database_url=db_url, invitations_per_player="2/hour",
                            **limits({}))
    with TestClient(create_app(settings, MemoryStorage())) as client:
        ana, bo, cy = sign_up(client, "ana"), sign_up(client, "bob"), sign_up(client, "cyd")
        table_id = Rest(client).table(ana, [ana])

        def invite(who: Account, whom: Account) -> Any:
            return client.post(f"/api/tables/{table_id}/invitations",
                               json={"player": whom["id"]}, headers=auth(who["token"]))

        clear_of_a_window_edge(3600)
        # A refused invitation (Ana inviting herself) is not counted.
        refused(invite(ana, ana), 422, "yourself")
        assert [invite(ana, bo).status_code, invite(ana, cy).status_code] == [204, 204]
        response = invite(ana, bo)
        refused(response, 429, "too_many_requests")
        assert 1 <= int(response.headers["Retry-After"]) <= 3600
        # Per inviter: Cy, seated too, still invites.
        Rest(client).sit(table_id, 1, cy, ana)
        assert invite(cy, bo).status_code == 204


def settled(ws: WebSocketTestSession) -> None:
    """Once a ping is answered, the channel's opening (its friends told) is over: closing
    it then cancels no read of the database midway."""
    ws.send_json({"type": "ping", "id": "settled"})
    until(ws, lambda m: m["type"] == "pong")


def kept(client: TestClient, who: Account) -> list[dict[str, Any]]:
    response = client.get("/api/me/notices", headers=auth(who["token"]))
    assert response.status_code == 200, response.text
    notices: list[dict[str, Any]] = response.json()["notices"]
    return notices


def test_a_notice_told_offline_is_kept_until_dismissed(client: TestClient) -> None:
    ana, bo = sign_up(client, "ana"), sign_up(client, "bob")
    table_id = Rest(client).table(ana, [ana])
    with channel(client, bo) as bo_ws:  # online: told at once, nothing kept
        client.post(f"/api/tables/{table_id}/invitations", json={"player": bo["id"]},
                    headers=auth(ana["token"]))
        assert "id" not in notice(bo_ws, "invitation")
    assert kept(client, bo) == []
    # Offline: the invitation and the friend request are kept, oldest first.
    client.post(f"/api/tables/{table_id}/invitations", json={"player": bo["id"]},
                headers=auth(ana["token"]))
    befriend(client, ana, bo)
    found = kept(client, bo)
    assert [(n["kind"], n["player"]["id"]) for n in found] == [
        ("invitation", ana["id"]), ("friend_request", ana["id"])]
    assert found[0]["table"] == table_id and found[0]["id"] < found[1]["id"]
    with channel(client, ana) as ana_ws:  # Bo is offline: Ana coming online is not kept
        settled(ana_ws)
    assert len(kept(client, bo)) == 2
    # The next channel opened is sent them, with their ids, each time until dismissed.
    for _ in range(2):
        with channel(client, bo) as bo_ws:
            assert notice(bo_ws, "invitation")["id"] == found[0]["id"]
            assert notice(bo_ws, "friend_request")["id"] == found[1]["id"]
            settled(bo_ws)
    assert client.delete(f"/api/me/notices/{found[0]['id']}",
                         headers=auth(bo["token"])).status_code == 204
    # Another's notice is not the caller's to dismiss.
    assert client.delete(f"/api/me/notices/{found[1]['id']}",
                         headers=auth(ana["token"])).status_code == 204
    assert [n["id"] for n in kept(client, bo)] == [found[1]["id"]]
    with channel(client, bo) as bo_ws:
        assert notice(bo_ws, "friend_request")["id"] == found[1]["id"]
        settled(bo_ws)


def test_the_notices_kept_are_bounded_and_expire(client: TestClient,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    ana, bo = sign_up(client, "ana"), sign_up(client, "bob")
    table_id = Rest(client).table(ana, [ana])
    monkeypatch.setattr(kept_notices, "KEPT", 3)

    def invite(times: int) -> list[int]:
        for _ in range(times):
            client.post(f"/api/tables/{table_id}/invitations", json={"player": bo["id"]},
                        headers=auth(ana["token"]))
        return [n["id"] for n in kept(client, bo)]

    first = invite(3)
    assert len(first) == 3
    later = invite(2)
    assert later[0] == first[2] and len(later) == 3 and later == sorted(later)  # the newest
    monkeypatch.setattr(kept_notices, "KEPT_FOR", timedelta(0))  # a week later
    assert kept(client, bo) == []


def test_a_blocked_player_cannot_befriend_nor_invite_the_blocker(client: TestClient) -> None:
    ana, bo = sign_up(client, "ana"), sign_up(client, "bob")
    befriend(client, ana, bo)
    response = client.post("/api/blocks", json={"player": bo["id"]},
                           headers=auth(ana["token"]))
    assert response.status_code == 204, response.text
    assert friends(client, bo)["outgoing"] == friends(client, ana)["incoming"] == []
    assert client.get("/api/blocks", headers=auth(ana["token"])).json() == {
        "blocks": [{"id": bo["id"], "name": "bob"}]}
    refused(client.post("/api/friends", json={"player": ana["id"]},
                        headers=auth(bo["token"])), 403, "player_blocked")
    table_id = Rest(client).table(bo, [bo])
    refused(client.post(f"/api/tables/{table_id}/invitations", json={"player": ana["id"]},
                        headers=auth(bo["token"])), 403, "player_blocked")
    assert client.delete(f"/api/blocks/{bo['id']}",
                         headers=auth(ana["token"])).status_code == 204
    assert befriend(client, bo, ana) == {"friends": False}


def test_a_report_is_kept(client: TestClient) -> None:
    ana, bo = sign_up(client, "ana"), sign_up(client, "bob")
    response = client.post("/api/reports", json={
        "player": bo["id"], "match": "T1", "reason": "abuse", "text": " rude in chat "},
        headers=auth(ana["token"]))
    assert response.status_code == 201, response.text
    assert isinstance(response.json()["id"], int)
    refused(client.post("/api/reports", json={"player": bo["id"], "reason": "nonsense"},
                        headers=auth(ana["token"])), 422, "invalid_request")


def test_guests_and_oneself_are_refused(client: TestClient) -> None:
    guest = Rest(client).guest("Zoe")
    ana = sign_up(client, "ana")
    for call in (client.get("/api/friends", headers=auth(guest["token"])),
                 client.post("/api/friends", json={"player": ana["id"]},
                             headers=auth(guest["token"])),
                 client.get("/api/blocks", headers=auth(guest["token"])),
                 client.post("/api/reports", json={"player": ana["id"], "reason": "spam"},
                             headers=auth(guest["token"]))):
        refused(call, 403, "not_an_account")
    refused(client.post("/api/friends", json={"player": ana["id"]},
                        headers=auth(ana["token"])), 422, "yourself")
    refused(client.post("/api/friends", json={"player": "nobody"},
                        headers=auth(ana["token"])), 404, "player_not_found")
    refused(client.post("/api/friends", json={"player": guest["id"]},
                        headers=auth(ana["token"])), 404, "player_not_found")


def test_the_personal_channel_takes_pings_alone(client: TestClient) -> None:
    guest = Rest(client).guest("Zoe")  # a guest has a channel too (invitations, the queue)
    with channel(client, guest) as ws:
        ws.send_json({"type": "ping", "id": "p7"})
        assert until(ws, lambda m: m["type"] == "pong")["id"] == "p7"
        ws.send_json({"type": "resume"})
        assert until(ws, lambda m: m["type"] == "error")["code"] == "bad_message"


def watched(client: TestClient, token: str | None = None, **params: Any) -> list[str]:
    response = client.get("/api/tables", params={"status": "playing"} | params,
                          headers=auth(token) if token else {})
    assert response.status_code == 200, response.text
    return [table["id"] for table in response.json()["tables"]]


def test_a_started_public_table_is_in_the_live_list(client: TestClient) -> None:
    rest = Rest(client)
    ana, bob = sign_up(client, "ana"), sign_up(client, "bob")
    zoe = rest.guest("Zoe")
    waiting = rest.table(zoe, [zoe, "easy", "easy", "easy"])
    hidden = rest.table(zoe, [zoe, "easy", "easy", "easy"], start=True, private=True)
    older = rest.table(zoe, [zoe, "easy", "easy", "easy"], start=True)
    friends_table = rest.table(bob, [bob, "easy", "easy", "easy"], start=True)
    newest = rest.table(zoe, [zoe, "easy", "easy", "easy"], start=True)
    assert watched(client) == [newest, friends_table, older]
    assert waiting not in watched(client) and hidden not in watched(client)
    page = client.get("/api/tables", params={"status": "playing"}).json()
    shown = page["tables"][0]
    assert shown["status"] == "playing" and shown["variant"] == "bulgarian"
    assert shown["seats"][0]["name"] == "Zoe"
    assert page["total"] == 3
    befriend(client, ana, bob)
    befriend(client, bob, ana)
    assert watched(client, ana["token"]) == [friends_table, newest, older]  # friends first
    first = client.get("/api/tables", params={"status": "playing", "limit": 2},
                       headers=auth(ana["token"])).json()
    assert [t["id"] for t in first["tables"]] == [friends_table, newest]
    assert watched(client, ana["token"], limit=2, cursor=first["next_cursor"]) == [older]
    assert friends(client, ana)["friends"][0]["table"] == friends_table


@pytest.mark.processes
def test_an_operator_reads_the_reports(client: TestClient, db_url: str) -> None:
    ana, bob = sign_up(client, "ana"), sign_up(client, "bob")
    for text in ("first", "rude\tin\nchat"):
        client.post("/api/reports", json={"player": bob["id"], "match": "T1",
                                          "reason": "abuse", "text": text},
                    headers=auth(ana["token"]))
    header, *rows = admin(db_url, "reports", "--limit", "5")
    assert header == ["id", "at", "reporter", "player", "match", "reason", "text"]
    assert [(row[2], row[3], row[4], row[5], row[6]) for row in rows] == [
        (ana["id"], bob["id"], "T1", "abuse", "rude in chat"),
        (ana["id"], bob["id"], "T1", "abuse", "first")]


def said(ws: WebSocketTestSession) -> str:
    """The name of whoever said the next chat message ``ws`` reads."""
    message = until(ws, lambda m: m["type"] == "event" and m["event"]["kind"] == "chat",
                    "a chat message")
    name: str = message["event"]["name"]
    return name


def test_neither_of_two_who_block_reads_the_other(client: TestClient) -> None:
    ana, bob, cleo = sign_up(client, "ana"), sign_up(client, "bob"), sign_up(client, "cleo")
    response = client.post("/api/blocks", json={"player": bob["id"]},
                           headers=auth(ana["token"]))
    assert response.status_code == 204
    table_id = Rest(client).table(ana, [ana, bob, cleo])
    with seated(client, table_id, ana) as (ana_ws, _), \
            seated(client, table_id, bob) as (bob_ws, _), \
            seated(client, table_id, cleo) as (cleo_ws, _):
        bob_ws.send_json({"type": "chat", "phrase": "hello"})
        assert said(cleo_ws) == "bob"
        ana_ws.send_json({"type": "chat", "phrase": "hello"})
        assert said(cleo_ws) == "ana"
        cleo_ws.send_json({"type": "chat", "phrase": "thanks"})
        assert [said(ana_ws), said(ana_ws)] == ["ana", "cleo"]  # not Bob's, said first
        assert [said(bob_ws), said(bob_ws)] == ["bob", "cleo"]  # not Ana's


def test_a_block_made_during_a_match_stops_the_chat_at_once(client: TestClient) -> None:
    ana, bob, cleo = sign_up(client, "ana"), sign_up(client, "bob"), sign_up(client, "cleo")
    table_id = Rest(client).table(ana, [ana, bob, cleo, "easy"], start=True)
    with seated(client, table_id, ana) as (ana_ws, _), \
            seated(client, table_id, bob) as (bob_ws, _), \
            seated(client, table_id, cleo) as (cleo_ws, _):
        bob_ws.send_json({"type": "chat", "phrase": "hello"})
        assert said(ana_ws) == "bob"  # not blocked yet
        response = client.post("/api/blocks", json={"player": bob["id"]},
                               headers=auth(ana["token"]))
        assert response.status_code == 204
        assert [said(cleo_ws), said(bob_ws)] == ["bob", "bob"]
        bob_ws.send_json({"type": "chat", "phrase": "sorry"})
        assert said(cleo_ws) == "bob"
        ana_ws.send_json({"type": "chat", "phrase": "thanks"})
        assert said(cleo_ws) == "ana"
        cleo_ws.send_json({"type": "chat", "phrase": "good_luck"})
        assert said(cleo_ws) == "cleo"
        assert [said(ana_ws), said(ana_ws)] == ["ana", "cleo"]  # Bob's "sorry" not read
        assert [said(bob_ws), said(bob_ws)] == ["bob", "cleo"]  # Ana's "thanks" not read
        assert client.delete(f"/api/blocks/{bob['id']}",
                             headers=auth(ana["token"])).status_code == 204
        bob_ws.send_json({"type": "chat", "phrase": "thanks"})
        assert said(ana_ws) == "bob"  # lifted: read again, still in the same match

"""Tournaments through the API on a migrated SQLite file, the director running in the app
(docs/tournaments.md): the refusals; a duplicate tournament of bot entries run to its
end, whose tables of a round dealt the same decks and whose decks stay hidden while the
round is on; the round's time limit deciding the matches still on; a table lost before
its match began made again at once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from starlette.websockets import WebSocketDisconnect

from app.db.session import Database
from app.db.tournaments import RoundTable, Tournament
from app.main import create_app
from app.protocol import CloseCode
from tests.conftest import app_settings
from tests.test_db_support import run
from tests.waiting import fail

pytest_plugins = ["tests.test_db_support"]  # migrated_sqlite

PATIENCE = 60  # seconds a tournament of bots may take to end
Json = dict[str, Any]


@pytest.fixture
def client(migrated_sqlite: str) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings(database_url=migrated_sqlite))) as test_client:
        yield test_client


class Calls:
    def __init__(self, client: TestClient) -> None:
        self.http = client
        self.count = 0

    def account(self) -> dict[str, str]:
        self.count += 1
        name = f"ana{self.count}x{time.monotonic_ns() % 100000}"
        answer = self.http.post("/api/accounts", json={"username": name,
                                                       "password": "a-long-password"})
        assert answer.status_code == 201, answer.text
        body: Json = answer.json()
        return {"Authorization": f"Bearer {body['token']}", "id": body["id"]}

    def guest(self) -> dict[str, str]:
        body = self.http.post("/api/guests", json={"name": "Guest"}).json()
        return {"Authorization": f"Bearer {body['token']}", "id": body["id"]}

    def create(self, who: dict[str, str], **fields: Any) -> Json:
        answer = self.http.post("/api/tournaments", headers=_auth(who),
                                json={"name": "Cup", "bot_level": "easy"} | fields)
        assert answer.status_code == 201, answer.text
        created: Json = answer.json()
        return created

    def enter(self, who: dict[str, str], tournament: str, status: int = 201,
              **body: Any) -> Json:
        answer = self.http.post(f"/api/tournaments/{tournament}/entries", json=body,
                                headers=_auth(who))
        assert answer.status_code == status, answer.text
        result: Json = answer.json()
        return result

    def get(self, tournament: str) -> Json:
        body: Json = self.http.get(f"/api/tournaments/{tournament}").json()
        return body

    def until(self, tournament: str, done: Any, what: str) -> Json:
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            body = self.get(tournament)
            if done(body):
                return body
            time.sleep(0.2)
        fail(PATIENCE, what)


def _auth(who: dict[str, str]) -> dict[str, str]:
    return {"Authorization": who["Authorization"]}


def test_refusals(client: TestClient) -> None:
    calls = Calls(client)
    guest, director, player = calls.guest(), calls.account(), calls.account()
    answer = client.post("/api/tournaments", json={"name": "x"}, headers=_auth(guest))
    assert answer.json()["detail"]["code"] == "account_required"
    refused: list[tuple[Json, str]] = [
        ({"format": "duplicate", "options": {"reshuffle_each_deal": False}},
         "duplicate_needs_shuffle"),
        ({"starts_at": "2020-01-01T00:00:00Z"}, "bad_start"),
        ({"options": {"nope": 1}}, "bad_options")]
    for body, code in refused:
        answer = client.post("/api/tournaments", json={"name": "x"} | body,
                             headers=_auth(director))
        assert answer.json()["detail"]["code"] == code, answer.text
    t = calls.create(director, max_entries=2)["id"]
    assert client.post(f"/api/tournaments/{t}/start",
                       headers=_auth(director)).json()["detail"]["code"] == "too_few_entries"
    assert calls.enter(player, t, 403, bot="easy")["detail"]["code"] == "not_director"
    calls.enter(player, t)
    assert calls.enter(player, t, 409)["detail"]["code"] == "already_entered"
    assert calls.enter(director, t, 409, partner=player["id"])["detail"]["code"] == (
        "already_entered")
    calls.enter(director, t, bot="easy")
    assert calls.enter(director, t, 409)["detail"]["code"] == "tournament_full"
    assert client.delete(f"/api/tournaments/{t}/entries",
                         headers=_auth(player)).status_code == 204
    assert client.delete(f"/api/tournaments/{t}/entries",
                         headers=_auth(player)).json()["detail"]["code"] == "not_entered"
    assert [len(e["members"]) for e in calls.get(t)["entries"]] == [2]  # the bots' pair
    assert client.post(f"/api/tournaments/{t}/start",
                       headers=_auth(player)).json()["detail"]["code"] == "not_director"
    assert client.get("/api/tournaments/nope").json()["detail"]["code"] == "no_tournament"
    rotating = calls.create(director, teams="rotating")["id"]
    assert calls.enter(player, rotating, 422, partner=director["id"])["detail"]["code"] == (
        "bad_entry")
    listed = client.get("/api/tournaments", params={"status": "upcoming", "limit": 1}).json()
    assert listed["tournaments"][0]["id"] == rotating and listed["next_cursor"] == 1


@pytest.mark.slow
def test_a_duplicate_tournament_of_bots_runs_to_its_end(client: TestClient,
                                                        migrated_sqlite: str) -> None:
    calls = Calls(client)
    director = calls.account()
    t = calls.create(director, format="duplicate", rounds=2, options={"target_score": 40})["id"]
    for level in ("easy", "normal", "easy"):  # three pairs: a fourth is added to fill
        calls.enter(director, t, bot=level)
    assert client.post(f"/api/tournaments/{t}/start", headers=_auth(director)).status_code == 200
    done = calls.until(t, lambda b: b["status"] == "finished", "the tournament to finish")
    assert len(done["entries"]) == 4
    assert sorted(line["entry"] for line in done["standings"]) == [1, 2, 3, 4]
    ranks = [line["rank"] for line in done["standings"]]
    assert ranks[0] == 1 and ranks == sorted(ranks)
    for round_ in (1, 2):
        tables = [x for x in done["tables"] if x["round"] == round_]
        assert len(tables) == 2 and all(x["status"] == "over" for x in tables)
        assert sorted(e for x in tables for e in x["seats"][:2]) == [1, 2, 3, 4]
        records = [client.get(f"/api/matches/{x['id']}/record").json() for x in tables]
        shared = min(len(r["deals"]) for r in records)
        for k in range(shared):  # the same deck and dealer at both tables
            assert len({(r["deals"][k]["deck"], r["deals"][k]["dealer"]) for r in records}) == 1
    firsts = {x["round"]: client.get(f"/api/matches/{x['id']}/record").json()["deals"][0]["deck"]
              for x in done["tables"]}
    assert firsts[1] != firsts[2]  # a new deal for each round

    # Its players alone watch a duplicate table: a spectator's socket is refused.
    table = done["tables"][0]["id"]
    watcher = calls.guest()
    with client.websocket_connect(f"/api/tables/{table}/ws") as ws:
        ws.send_json({"type": "hello", "protocol": 1, "token": watcher["Authorization"][7:]})
        answers = [ws.receive_json() for _ in range(2)]
        assert answers[-1]["type"] == "error" and answers[-1]["code"] == "seated_only", answers
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == CloseCode.CROWDED

    # While its round is on, a duplicate table's decks are no one's to read.
    run(_set(migrated_sqlite, t, status="running", round=1))
    for path in (f"/api/matches/{table}/record", f"/api/matches/{table}/replay"):
        assert client.get(path).json()["detail"]["code"] == "decks_hidden"
    assert client.post(f"/api/matches/{table}/analysis").json()["detail"]["code"] == (
        "decks_hidden")
    run(_set(migrated_sqlite, t, status="running", round=2))  # its round is over
    assert client.get(f"/api/matches/{table}/record").status_code == 200


@pytest.mark.slow
def test_the_time_limit_decides_the_matches_still_on(migrated_sqlite: str) -> None:
    settings = app_settings(database_url=migrated_sqlite, bot_delay=0.3)
    with TestClient(create_app(settings)) as client:
        calls = Calls(client)
        director = calls.account()
        t = calls.create(director, rounds=1, teams="rotating")["id"]
        for _ in range(4):
            calls.enter(director, t, bot="easy")
        client.post(f"/api/tournaments/{t}/start", headers=_auth(director))
        calls.until(t, lambda b: b["tables"] and b["tables"][0]["status"] == "playing",
                    "the round's table to start")
        run(_set(migrated_sqlite, t, round_ends_at=datetime.now(UTC) - timedelta(seconds=1)))
        done = calls.until(t, lambda b: b["status"] == "finished", "the tournament to end")
        table = done["tables"][0]
        assert table["reason"] == "time"
        totals = table["totals"]
        points = {line["entry"]: line["points"] for line in done["standings"]}
        seats = table["seats"]
        expected = (0.5, 0.5) if totals[0] == totals[1] else (
            (1.0, 0.0) if totals[0] > totals[1] else (0.0, 1.0))
        assert [points[seats[s]] for s in range(4)] == [expected[s % 2] for s in range(4)]
        match = client.get(f"/api/matches/{table['id']}").json()
        assert match["end_reason"] == "abandoned"  # its table closed at the limit
        assert [sum(d["score"][team] for d in match["deals"] if d.get("score"))
                for team in (0, 1)] == totals


def test_a_table_lost_before_its_match_began_is_made_again_at_once(
        migrated_sqlite: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A round table noted as made whose match never began, on no node (its maker died
    between the two): made again at the next pass, not after the STALE delay.  STALE is
    an hour here, so that only the first can make it again however slow the machine.
    The bots take 0.05 s a move (some 70 moves a match at the least): with none, the
    real table's match could end before the test loses its table, as a loaded run saw."""
    monkeypatch.setattr("app.competition.director.STALE", 3600.0)
    settings = app_settings(database_url=migrated_sqlite, bot_delay=0.05)
    with TestClient(create_app(settings)) as client:
        calls = Calls(client)
        director = calls.account()
        t = calls.create(director, rounds=1, options={"target_score": 40})["id"]
        for _ in range(2):
            calls.enter(director, t, bot="easy")
        client.post(f"/api/tournaments/{t}/start", headers=_auth(director))
        calls.until(t, lambda b: b["tables"] and b["tables"][0]["id"], "the round's table")
        run(_lose_table(migrated_sqlite, t))
        calls.until(t, lambda b: b["tables"][0]["id"] != "lost", "the lost table made again")
        done = calls.until(t, lambda b: b["status"] == "finished", "the tournament to end")
        assert done["tables"][0]["reason"] == "won"


async def _lose_table(url: str, tournament: str) -> None:
    """The round's table row names a table no node has, made just now (the row still
    open: its match must not have ended first)."""
    db = Database(url)
    try:
        async with db.write() as conn:
            lost = await conn.execute(update(RoundTable).where(
                RoundTable.tournament_id == tournament, RoundTable.ended_at.is_(None))
                .values(table_id="lost", made_at=datetime.now(UTC)))
            assert lost.rowcount == 1, "the round's match ended before its table was lost"
    finally:
        await db.dispose()


async def _set(url: str, tournament: str, **values: Any) -> None:
    db = Database(url)
    try:
        async with db.write() as conn:
            await conn.execute(update(Tournament).where(Tournament.id == tournament)
                               .values(**values))
    finally:
        await db.dispose()



def test_the_start_time_starts_a_tournament_or_ends_an_empty_one(client: TestClient) -> None:
    calls = Calls(client)
    director = calls.account()
    soon = (datetime.now(UTC) + timedelta(seconds=5)).isoformat()  # still to come when made
    t = calls.create(director, starts_at=soon)["id"]
    entered = calls.create(director, starts_at=soon, rounds=1)["id"]
    calls.enter(director, entered, bot="easy")
    ended = calls.until(t, lambda b: b["status"] != "upcoming", "its start time to pass")
    assert ended["status"] == "finished" and ended["tables"] == [] and ended["round"] == 0
    began = calls.until(entered, lambda b: b["round"] == 1, "the other to start by itself")
    assert len(began["tables"]) == 1 and len(began["entries"]) == 2  # a filler joined

"""A tournament's players told on their personal channel, and withdrawals during a round
(docs/tournaments.md, "Live standings", "Withdrawing"), on a migrated SQLite file with the
director running in the app.

Two players enter alone (each with a bot partner) and never come to their table, whose
grace and turns outlast the test: only their withdrawal can move the round on.  Each is
told its table of round 1 and its rank; both withdraw; their seats go to bots, the table
closes with both teams' leavers (both lose the round), and the tournament, every player
gone, ends without a round of bots alone, which its director is told.  The same when they
withdraw between the round's pairing and the making of its table: they sit, then leave."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.competition import store
from app.competition.director import Director
from app.db.tournaments import RoundTable
from app.main import create_app
from tests.conftest import app_settings
from tests.test_app_ws import until
from tests.test_community import channel
from tests.test_tournaments_api import Calls, _auth

pytest_plugins = ["tests.test_db_support"]  # migrated_sqlite

Json = dict[str, Any]


@pytest.fixture
def client(migrated_sqlite: str) -> Iterator[TestClient]:
    settings = app_settings(database_url=migrated_sqlite, reconnect_grace=600,
                            default_turn_seconds=600)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def standings(t: str, done: Any = lambda m: True) -> Any:
    return lambda m: (m["type"] == "notice" and m["kind"] == "standings"
                      and m["tournament"] == t and done(m))


def test_players_are_told_and_a_table_every_player_left_ends_its_round(
        client: TestClient) -> None:
    calls = Calls(client)
    director, ana, bob = calls.account(), calls.account(), calls.account()
    t = calls.create(director, rounds=2, options={"target_score": 1000})["id"]
    entries = {who["id"]: calls.enter(who, t)["entries"][-1]["entry"] for who in (ana, bob)}
    with channel(client, _token(director)) as boss, channel(client, _token(ana)) as ana_ws, \
            channel(client, _token(bob)) as bob_ws:
        assert client.post(f"/api/tournaments/{t}/start",
                           headers=_auth(director)).status_code == 200
        seated = {}
        for who, ws in ((ana, ana_ws), (bob, bob_ws)):
            told = until(ws, standings(t, lambda m: "table" in m), "a table")
            assert (told["round"], told["status"], told["entry"]) == (
                1, "running", entries[who["id"]])
            assert told["rank"] == 1 and told["points"] == 0  # nobody has scored yet
            seated[who["id"]] = told["table"]
        [table] = calls.get(t)["tables"]
        assert set(seated.values()) == {table["id"]}
        for who in (ana, bob):
            assert client.delete(f"/api/tournaments/{t}/entries",
                                 headers=_auth(who)).status_code == 204
        told = until(boss, standings(t, lambda m: m["status"] == "finished"), "the end")
        assert "entry" not in told and told["round"] == 1  # none: left out
    done = calls.get(t)
    [table] = done["tables"]  # no round 2 of bots alone
    assert table["status"] == "over" and table["reason"] == "abandoned"
    assert sorted(table["left"]) == [0, 1]  # each pair's player sat at seat 0 or 1
    assert [line["points"] for line in done["standings"]] == [0, 0]  # both teams left
    match = client.get(f"/api/matches/{table['id']}").json()
    assert match["end_reason"] == "abandoned"


def test_players_who_withdraw_before_their_table_is_made_leave_it(
        migrated_sqlite: str, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()  # the round's table is made once both have withdrawn
    make = Director._make

    async def held_back(self: Director, loaded: store.Loaded, rt: RoundTable) -> None:
        while not gate.is_set():
            await asyncio.sleep(0.05)
        again = await store.load(self.db, loaded.tournament.id)  # as a later pass reads it
        assert again is not None
        await make(self, again, rt)

    monkeypatch.setattr(Director, "_make", held_back)
    settings = app_settings(database_url=migrated_sqlite, reconnect_grace=600,
                            default_turn_seconds=600)
    with TestClient(create_app(settings)) as client:
        calls = Calls(client)
        director, ana, bob = calls.account(), calls.account(), calls.account()
        t = calls.create(director, rounds=2, options={"target_score": 1000})["id"]
        for who in (ana, bob):
            calls.enter(who, t)
        client.post(f"/api/tournaments/{t}/start", headers=_auth(director))
        calls.until(t, lambda b: b["tables"], "the round paired")
        for who in (ana, bob):
            assert client.delete(f"/api/tournaments/{t}/entries",
                                 headers=_auth(who)).status_code == 204
        gate.set()
        done = calls.until(t, lambda b: b["status"] == "finished", "the end")
    [table] = done["tables"]
    assert table["reason"] == "abandoned" and sorted(table["left"]) == [0, 1]
    assert [line["points"] for line in done["standings"]] == [0, 0]


def _token(who: dict[str, str]) -> dict[str, str]:
    return {"token": who["Authorization"][7:], "id": who["id"]}

"""A Swiss tournament with rotating partners run to its end by a real ``python -m app``
on SQLite and on PostgreSQL: bot entries and one player who never comes, whose seat a bot
takes after the grace and who loses each round for it; every entry ranked at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.test_db_support import run
from tests.test_recovery import GUARD, Server, running
from tests.waiting import eventually, within

pytestmark = [pytest.mark.processes, pytest.mark.postgres]

pytest_plugins = ["tests.test_db_support"]  # db_url: migrated SQLite, then PostgreSQL

PATIENCE = 90  # seconds the tournament may take


def test_a_swiss_tournament_runs_to_its_end(db_url: str, tmp_path: Path) -> None:
    server = Server(db_url, tmp_path)
    server.env |= {"RECONNECT_GRACE": "1", "LOG_LEVEL": "warning"}
    run(within(_tournament(server), GUARD + PATIENCE, "the tournament's test"))


async def _tournament(server: Server) -> None:
    async with running(server), httpx2.AsyncClient(base_url=server.http) as http:
        director = await _account(http, "director")
        absent = await _account(http, "absentee")
        made = await http.post("/api/tournaments", headers=director["auth"], json={
            "name": "Swiss", "rounds": 2, "teams": "rotating", "bot_level": "easy",
            "options": {"target_score": 30}})
        assert made.status_code == 201, made.text
        t = made.json()["id"]
        joined = await http.post(f"/api/tournaments/{t}/entries", headers=absent["auth"],
                                 json={})
        assert joined.status_code == 201, joined.text
        for _ in range(6):  # seven entries: the server adds an eighth to fill two tables
            added = await http.post(f"/api/tournaments/{t}/entries", headers=director["auth"],
                                    json={"bot": "easy"})
            assert added.status_code == 201, added.text
        started = await http.post(f"/api/tournaments/{t}/start", headers=director["auth"])
        assert started.status_code == 200, started.text
        final: dict[str, Any] = {}

        async def finished() -> bool:
            final.update((await http.get(f"/api/tournaments/{t}")).json())
            return bool(final["status"] == "finished")

        await eventually(finished, PATIENCE, "the tournament to finish")
        assert len(final["entries"]) == 8
        assert sorted(line["entry"] for line in final["standings"]) == list(range(1, 9))
        for round_ in (1, 2):
            tables = [x for x in final["tables"] if x["round"] == round_]
            assert len(tables) == 2 and all(x["status"] == "over" for x in tables)
            assert sorted(e for x in tables for e in x["seats"]) == list(range(1, 9))
            mine = next(x for x in tables if 1 in x["seats"])
            seat = mine["seats"].index(1)
            assert mine["left"] == [seat], mine  # the absent player's seat went to a bot
            assert mine["reason"] == "abandoned"  # no human left there: the table closed
        line = next(x for x in final["standings"] if x["entry"] == 1)
        assert line["points"] == 0 and line["played"] == 2
        assert all(x["rank"] < line["rank"] for x in final["standings"] if x["points"] > 0)


async def _account(http: httpx2.AsyncClient, name: str) -> dict[str, Any]:
    answer = await http.post("/api/accounts", json={"username": name,
                                                    "password": "a-long-password"})
    assert answer.status_code == 201, answer.text
    body = answer.json()
    return {"id": body["id"], "auth": {"Authorization": f"Bearer {body['token']}"}}


"""Tournaments in a cluster of two nodes (docs/tournaments.md, "A director per
tournament").  A duplicate tournament of bots: one node directs it by its lease; that
node is killed during a round, and the other takes the tournament over (and the killed
node's tables), so that it runs to its end, each round with one table per pair of
entries, the same decks at the tables of a round, every entry ranked; its director's key
has a registered name.  And the round's time limit, decided by the node that directs,
ends a round table the other node holds ("The time limit")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from redis.asyncio import Redis
from sqlalchemy import update

from app.db.session import Database
from app.db.tournaments import Tournament
from tests.cluster_nodes import Cluster, cluster_of
from tests.test_cluster import GUARD, call
from tests.test_shared_keys import check_written
from tests.waiting import eventually, within

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.processes]

ROUNDS = 2


async def directed(cluster: Cluster) -> None:
    a, b = cluster["A"], cluster["B"]
    async with httpx2.AsyncClient(timeout=10) as http:
        director = await call(http, "POST", a, "/api/accounts", expect=201,
                              body={"username": "director", "password": "a-long-password"})
        t = (await call(http, "POST", a, "/api/tournaments", director, expect=201, body={
            "name": "Cluster Cup", "format": "duplicate", "rounds": ROUNDS,
            "bot_level": "easy", "options": {"target_score": 10}}))["id"]  # a deal a match
        for _ in range(4):
            await call(http, "POST", a, f"/api/tournaments/{t}/entries", director,
                       {"bot": "easy"}, expect=201)
        await call(http, "POST", b, f"/api/tournaments/{t}/start", director)
        async with Redis.from_url(cluster.redis_url, decode_responses=True) as redis:
            held: dict[str, Any] = {}

            async def leased() -> bool:
                held["node"] = await redis.get(f"{cluster.prefix}director:{t}")
                return held["node"] is not None

            await eventually(leased, 10, "a node to direct the tournament")
        first = cluster[held["node"]]
        other = b if first is a else a
        state: dict[str, Any] = {}

        async def playing() -> bool:
            state.update(await call(http, "GET", other, f"/api/tournaments/{t}"))
            return any(x["status"] == "playing" for x in state["tables"])

        await eventually(playing, 20, "round 1's tables to play")
        first.kill()

        async def finished() -> bool:
            state.update(await call(http, "GET", other, f"/api/tournaments/{t}"))
            return bool(state["status"] == "finished")

        await eventually(finished, GUARD - 20,
                         lambda: f"the other node to finish the tournament: {state}")
        assert sorted(line["entry"] for line in state["standings"]) == [1, 2, 3, 4]
        for round_ in range(1, ROUNDS + 1):
            tables = [x for x in state["tables"] if x["round"] == round_]
            assert len(tables) == 2 and all(x["status"] == "over" for x in tables), tables
            records = [await call(http, "GET", other, f"/api/matches/{x['id']}/record")
                       for x in tables]
            assert records[0]["deals"][0]["deck"] == records[1]["deals"][0]["deck"]
    await check_written(cluster.redis_url, cluster.prefix)


def test_another_node_takes_a_tournament_over(tmp_path: Path) -> None:
    with cluster_of(tmp_path, "AB", env={"LOG_LEVEL": "warning"}) as cluster:
        cluster.run(within(directed(cluster), GUARD, "the test"))


async def decided_elsewhere(cluster: Cluster) -> None:
    """The tables of a node, X, and the direction moved to the other, Y (as when X lost
    its director's lease but not its tables'): Y decides the match at the time limit, and
    X, which holds the table, ends it."""
    a = cluster["A"]
    async with httpx2.AsyncClient(timeout=10) as http, \
            Redis.from_url(cluster.redis_url, decode_responses=True) as redis:
        director = await call(http, "POST", a, "/api/accounts", expect=201,
                              body={"username": "director", "password": "a-long-password"})
        t = (await call(http, "POST", a, "/api/tournaments", director, expect=201, body={
            "name": "Timed Cup", "rounds": 1, "bot_level": "easy",
            "options": {"target_score": 1500}}))["id"]
        for _ in range(2):
            await call(http, "POST", a, f"/api/tournaments/{t}/entries", director,
                       {"bot": "easy"}, expect=201)
        await call(http, "POST", a, f"/api/tournaments/{t}/start", director)
        state: dict[str, Any] = {}

        async def playing() -> bool:
            state.update(await call(http, "GET", a, f"/api/tournaments/{t}"))
            return any(x["status"] == "playing" for x in state["tables"])

        await eventually(playing, 20, "the round's table to play")
        table = state["tables"][0]["id"]
        x = await redis.get(f"{cluster.prefix}owner:{table}")
        y = "B" if x == "A" else "A"
        await redis.set(f"{cluster.prefix}director:{t}", y)  # the direction moves to Y
        await _limit_passed(cluster.database_url, t)

        async def decided() -> bool:
            state.update(await call(http, "GET", a, f"/api/tournaments/{t}"))
            return bool(state["status"] == "finished")

        await eventually(decided, 20, lambda: f"the round decided: {state}")
        assert state["tables"][0]["reason"] == "time"
        assert "decided at the time limit" in cluster[y].text()
        assert "decided at the time limit" not in cluster[x].text()

        async def ended() -> bool:
            match = await call(http, "GET", a, f"/api/matches/{table}")
            state["match"] = match
            return match["end_reason"] is not None

        await eventually(ended, 10, lambda: f"node {x} to end the table: {state['match']}")
        assert state["match"]["end_reason"] == "abandoned"  # closed, not played on
        assert await redis.get(f"{cluster.prefix}owner:{table}") in (x, None)  # on X


async def _limit_passed(url: str, tournament: str) -> None:
    db = Database(url)
    try:
        async with db.write() as conn:
            await conn.execute(update(Tournament).where(Tournament.id == tournament).values(
                round_ends_at=datetime.now(UTC) - timedelta(seconds=1)))
    finally:
        await db.dispose()


def test_the_time_limit_ends_a_table_another_node_holds(tmp_path: Path) -> None:
    env = {"BOT_DELAY": "0.3"}  # a match of 1500 points lasts minutes
    with cluster_of(tmp_path, "AB", env=env) as cluster:
        cluster.run(within(decided_elsewhere(cluster), GUARD, "the test"))
        assert cluster.errors() == []

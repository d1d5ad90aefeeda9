"""Play now in a cluster of two real nodes (tests/cluster_nodes.py): a quickplay table is
leased by the node that made it and reached through the other; the queue lives in Redis,
so players who asked on either node are seated together, at a table of the node that
made the group, and read its id from any node."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from redis.asyncio import Redis

from tests.cluster_nodes import Cluster, cluster_of
from tests.test_cluster import GUARD, call, check_no_errors, guest
from tests.test_shared_keys import check_written
from tests.waiting import eventually, within

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.processes]


async def play_now(cluster: Cluster) -> None:
    a, b = cluster["A"], cluster["B"]
    async with httpx2.AsyncClient(timeout=10) as http, \
            Redis.from_url(cluster.redis_url, decode_responses=True) as redis:
        ana = await guest(http, a, "Ana")
        made = await call(http, "POST", a, "/api/quickplay", ana, {"level": "easy"},
                          expect=201)
        assert made["status"] == "playing" and made["node"] == "A"
        assert await redis.get(f"{cluster.prefix}owner:{made['id']}") == "A"  # leased
        through_b = await call(http, "GET", b, f"/api/tables/{made['id']}")
        assert through_b["node"] == "A" and through_b["seats"][0]["name"] == "Ana"

        ivo, eve, bob, zoe = [await guest(http, a, n) for n in ("Ivo", "Eve", "Bob", "Zoe")]
        for node, who in ((a, ivo), (b, eve), (a, bob)):
            assert (await call(http, "POST", node, "/api/queue", who, {}))["status"] == "waiting"
        assert (await call(http, "GET", b, "/api/queue", ivo))["players"] == 3
        seated = await call(http, "POST", b, "/api/queue", zoe, {})
        assert seated["status"] == "seated"
        for node, who in ((a, ivo), (b, eve), (a, bob), (a, zoe)):
            assert await call(http, "GET", node, "/api/queue", who) == seated
        table = await call(http, "GET", a, f"/api/tables/{seated['table_id']}")
        assert table["node"] == "B"  # made by B, which popped the group
        assert [s["name"] for s in table["seats"]] == ["Ivo", "Eve", "Bob", "Zoe"]

        # Alone after a second's wait: seated with bots by the node that was asked.
        max_ = await guest(http, b, "Max")
        await call(http, "POST", a, "/api/queue", max_, {"variant": "classic",
                                                         "wait_seconds": 1})
        answers: list[dict[str, str]] = []

        async def seated_alone() -> bool:
            answers.append(await call(http, "GET", b, "/api/queue", max_))
            return answers[-1]["status"] == "seated"

        await eventually(seated_alone, 10, lambda: f"Max seated, at {answers[-1:]}")
        alone = await call(http, "GET", a, f"/api/tables/{answers[-1]['table_id']}")
        assert alone["node"] == "B" and alone["variant"] == "classic"
        assert [s["kind"] for s in alone["seats"]] == ["human", "bot", "bot", "bot"]
        check_no_errors(cluster)
    await check_written(cluster.redis_url, cluster.prefix)


def test_play_now_in_a_cluster(tmp_path: Path) -> None:
    with cluster_of(tmp_path, "AB") as cluster:
        cluster.run(within(play_now(cluster), GUARD, "the test"))

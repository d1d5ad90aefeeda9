"""A node that missed the news of a sign-up while cut off from Redis learns of it when it
subscribes again: the guest's old token, still accepted there while the node was away,
is refused by it soon after (app/accounts/news.py).  Two real nodes; B reaches Redis
through a loopback proxy that the test closes (every connection cut, new ones refused)
and opens again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from redis.asyncio import Redis

from tests.cluster_nodes import Cluster, cluster_of
from tests.test_accounts_cluster import ENV, SECRET, call
from tests.test_recovery_storage_down import Proxy
from tests.waiting import eventually, within

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.processes]

GUARD = 60  # seconds for the test's coroutine
BACK = 10  # seconds for B to subscribe again, and then to refuse the old token


async def missed_sign_up(cluster: Cluster) -> None:
    a, b = cluster["A"], cluster["B"]
    redis_at = urlsplit(cluster.redis_url)
    proxy = Proxy(redis_at.hostname or "127.0.0.1", redis_at.port or 6379)
    await proxy.open()
    b.env["REDIS_URL"] = redis_at._replace(netloc=f"127.0.0.1:{proxy.port}").geturl()
    try:
        await asyncio.to_thread(cluster.start)
        async with httpx2.AsyncClient(timeout=10) as http, \
                Redis.from_url(cluster.redis_url, decode_responses=True) as redis:

            async def listening(count: int) -> bool:
                [(_, subscribers)] = await redis.pubsub_numsub(f"{cluster.prefix}accounts")
                return bool(subscribers == count)

            await eventually(lambda: listening(2), BACK, "both nodes to hear the news")
            guest = await call(http, "POST", a, "/api/guests", body={"name": "Ivo"},
                               status=201)
            await call(http, "GET", b, "/api/me", guest["token"])
            await proxy.close()
            await eventually(lambda: listening(1), BACK, "B to be cut off from the news")
            await call(http, "POST", a, "/api/accounts", guest["token"],
                       {"username": "ivo", "password": SECRET}, status=201)
            await call(http, "GET", a, "/api/me", guest["token"], status=401)
            await call(http, "GET", b, "/api/me", guest["token"])  # B missed it
            await proxy.open()
            await eventually(lambda: listening(2), BACK, "B to subscribe again")

            async def refused_on_b() -> bool:
                answer = await http.get(f"{b.http}/api/me",
                                        headers={"Authorization": f"Bearer {guest['token']}"})
                return answer.status_code == 401

            await eventually(refused_on_b, BACK, "B to refuse the old guest token")
    finally:
        await proxy.close()


def test_a_node_cut_off_from_the_news_catches_up_on_sign_ups(tmp_path: Path) -> None:
    with cluster_of(tmp_path, "AB", env=ENV, start=False) as cluster:
        cluster.run(within(missed_sign_up(cluster), GUARD, "the test"))
        assert cluster.errors() == []

"""The queue's two stores (app/matchmaking/), the same tests for both: in the process,
and in the local Redis (redis://127.0.0.1:6379/0, or BELOTE_TEST_REDIS) under a key
prefix of the test's own, deleted afterwards.  Two RedisQueue instances on two
connections stand for two nodes of a cluster popping at once: no player is ever in two
groups; and two apps sharing the Redis queue seat players who asked on either node
together.  Times are passed in, as the matchmaker passes its clock's."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import ExitStack, asynccontextmanager

import pytest
from fastapi.testclient import TestClient
from redis import Redis as SyncRedis
from redis.asyncio import Redis

from app.container import running
from app.main import create_app
from app.matchmaking import ALIVE, Entry, MemoryQueue, Queue, RedisQueue
from app.shared import Keys, RedisShared
from app.storage import MemoryStorage
from tests.cluster_nodes import REDIS_SERVER
from tests.conftest import Rest, app_settings
from tests.fake_clock import FakeClock

pytestmark = pytest.mark.redis

NOW = 1_800_000_000.0
WAIT = 20.0

def entry(player: str, since: float = NOW, wait: float = WAIT, variant: str = "bulgarian",
          seen: float | None = None) -> Entry:
    return Entry(player_id=player, name=player.title(), address="127.0.0.1", variant=variant,
                 since=since, deadline=since + wait, seen=since if seen is None else seen)


@asynccontextmanager
async def redis_queues(count: int) -> AsyncIterator[list[Queue]]:
    """``count`` RedisQueues on connections of their own, one fresh prefix; its keys are
    deleted at the end."""
    prefix = f"test-queue-{uuid.uuid4().hex[:12]}:"
    clients = [Redis.from_url(REDIS_SERVER, decode_responses=True) for _ in range(count)]
    try:
        yield [RedisQueue(RedisShared(client, Keys(prefix))) for client in clients]
    finally:
        for client in clients:
            await client.aclose()
        delete_keys(prefix)  # on a connection of its own: a failed test may hold theirs


@asynccontextmanager
async def backend(kind: str) -> AsyncIterator[Queue]:
    if kind == "memory":
        yield MemoryQueue()
    else:
        async with redis_queues(1) as [queue]:
            yield queue


def run(kind: str, test: Callable[[Queue], Awaitable[None]]) -> None:
    async def main() -> None:
        async with backend(kind) as queue:
            await asyncio.wait_for(test(queue), 30)

    asyncio.run(main())


BACKENDS = pytest.mark.parametrize("kind", ["memory", "redis"])


def status(held: Entry | None) -> str | None:
    return None if held is None else held.status


def ids(groups: list[list[Entry]]) -> list[list[str]]:
    return [[e.player_id for e in group] for group in groups]


@BACKENDS
def test_four_players_make_a_group_in_their_order(kind: str) -> None:
    async def test(queue: Queue) -> None:
        for i, name in enumerate(["d", "b", "a"]):
            await queue.join(entry(name, NOW + i))
        assert await queue.pop("bulgarian", NOW + 5) == []  # three, nobody's wait is over
        assert await queue.waiting("bulgarian") == 3
        await queue.join(entry("c", NOW + 3))
        await queue.join(entry("x", NOW + 4, variant="classic"))  # another game
        groups = await queue.pop("bulgarian", NOW + 5)
        assert ids(groups) == [["d", "b", "a", "c"]]
        assert {e.status for e in groups[0]} == {"forming"}
        assert await queue.waiting("bulgarian") == 0 and await queue.waiting("classic") == 1
        assert await queue.pop("bulgarian", NOW + 5) == []  # popped once only
        assert status(await queue.touch("a", NOW + 6)) == "forming"

    run(kind, test)


@BACKENDS
def test_after_the_oldest_wait_the_rest_goes_together(kind: str) -> None:
    async def test(queue: Queue) -> None:
        for i in range(6):  # one group of four, two players left
            await queue.join(entry(f"p{i}", NOW + i, wait=30 if i == 5 else WAIT))
        assert ids(await queue.pop("bulgarian", NOW + 10)) == [["p0", "p1", "p2", "p3"]]
        await queue.touch("p4", NOW + 20)
        await queue.touch("p5", NOW + 20)
        assert await queue.pop("bulgarian", NOW + 20) == []  # p4 waits until NOW + 24
        await queue.touch("p4", NOW + 24)
        await queue.touch("p5", NOW + 24)
        # p4's wait is over: p5, whose own is not, goes with p4 rather than wait alone.
        assert ids(await queue.pop("bulgarian", NOW + 24)) == [["p4", "p5"]]

    run(kind, test)


@BACKENDS
def test_a_player_who_stops_asking_is_dropped(kind: str) -> None:
    async def test(queue: Queue) -> None:
        await queue.join(entry("gone", NOW))
        for name in ("a", "b", "c"):
            await queue.join(entry(name, NOW + ALIVE))
        later = NOW + ALIVE + 1  # "gone" was last seen more than ALIVE ago
        assert await queue.pop("bulgarian", later) == []
        assert await queue.touch("gone", later) is None
        await queue.join(entry("d", later))
        assert ids(await queue.pop("bulgarian", later)) == [["a", "b", "c", "d"]]

    run(kind, test)


@BACKENDS
def test_join_again_keeps_the_place_leave_and_settle(kind: str) -> None:
    async def test(queue: Queue) -> None:
        first = await queue.join(entry("a", NOW))
        again = await queue.join(entry("a", NOW + 5))  # a double click
        assert again.since == first.since == NOW and await queue.waiting("bulgarian") == 1
        moved = await queue.join(entry("a", NOW + 6, variant="classic"))
        assert moved.variant == "classic" and await queue.waiting("bulgarian") == 0
        assert await queue.leave("a") is None and await queue.touch("a", NOW + 7) is None
        assert await queue.waiting("classic") == 0
        assert await queue.leave("a") is None  # leaving twice: nothing to do

        for name in "abcd":
            await queue.join(entry(name, NOW + 10))
        [group] = await queue.pop("bulgarian", NOW + 10)
        kept = await queue.leave("a")  # being seated: too late
        assert kept is not None and kept.status == "forming"
        assert (await queue.join(entry("a", NOW + 11))).status == "forming"
        await queue.settle([e.model_copy(update={"status": "seated", "table_id": "T"})
                            for e in group])
        seated = await queue.touch("b", NOW + 12)
        assert seated is not None and (seated.status, seated.table_id) == ("seated", "T")
        assert status(await queue.leave("b")) == "seated"
        rejoined = await queue.join(entry("b", NOW + 13))  # another game after that one
        assert rejoined.status == "waiting" and rejoined.table_id is None

    run(kind, test)


@BACKENDS
def test_concurrent_pops_never_share_a_player(kind: str) -> None:
    async def test(queue: Queue) -> None:
        await two_nodes_pop([queue, queue])

    run(kind, test)


def test_two_redis_nodes_never_seat_a_player_twice() -> None:
    async def main() -> None:
        async with redis_queues(2) as queues:
            await asyncio.wait_for(two_nodes_pop(queues), 60)

    asyncio.run(main())


async def two_nodes_pop(queues: list[Queue]) -> None:
    """102 players join through either node; both nodes pop at once, many times over, as
    players keep polling: every player is in exactly one group, of four but the last."""
    players = [f"player-{i:03d}" for i in range(102)]
    rng = random.Random(7)
    now = NOW
    calls = asyncio.Semaphore(40)  # below a Redis client's pool of 100 connections

    async def join(player: str) -> None:
        async with calls:
            await rng.choice(queues).join(entry(player, now + rng.random(), seen=now))

    async def pops(queue: Queue, at: float) -> list[list[Entry]]:
        found: list[list[Entry]] = []
        for _ in range(10):
            found += await queue.pop("bulgarian", at)
            await asyncio.sleep(0)
        return found

    _, early = await asyncio.gather(
        asyncio.gather(*(join(p) for p in players)),
        asyncio.gather(*(pops(queue, now + 1) for queue in queues for _ in range(3))))
    groups = [group for found in early for group in found]
    late = now + WAIT + 1  # everybody's wait is over: the rest sits too
    for player in players:
        await queues[0].touch(player, late)
    results = await asyncio.gather(*(pops(queue, late) for queue in queues for _ in range(3)))
    groups += [group for found in results for group in found]
    seated = Counter(e.player_id for group in groups for e in group)
    assert sorted(seated) == players and set(seated.values()) == {1}
    assert sorted(len(g) for g in groups)[1:] == [4] * (len(groups) - 1)
    assert await queues[0].waiting("bulgarian") == 0


# ------------------------------------------------------------------ two apps, one Redis


def test_two_nodes_share_the_queue_in_redis() -> None:
    """Two apps (nodes) with the queue in one Redis: players who asked on either are
    seated together, at a table of the node that made the group, and read its id from
    the other node."""
    prefix = f"test-queue-{uuid.uuid4().hex[:12]}:"
    with ExitStack() as stack:
        nodes = []
        for _ in range(2):
            client = stack.enter_context(TestClient(create_app(
                app_settings(bot_delay=1.0), MemoryStorage(), FakeClock())))
            redis = Redis.from_url(REDIS_SERVER, decode_responses=True)
            stack.callback(closing(client, redis))
            running(client.app).matchmaker.queue = RedisQueue(  # type: ignore[arg-type]
                RedisShared(redis, Keys(prefix)))
            nodes.append((client, Rest(client)))
        stack.callback(delete_keys, prefix)
        (a, rest_a), (b, rest_b) = nodes
        ana, ivo, eve, bob = (rest_a.guest(n) for n in ("Ana", "Ivo", "Eve", "Bob"))
        for client, rest, guest in ((a, rest_a, ana), (b, rest_b, ivo), (a, rest_a, eve)):
            joined = client.post("/api/queue", json={}, headers=rest.auth(guest)).json()
            assert joined["status"] == "waiting"
        assert a.get("/api/queue", headers=rest_a.auth(ivo)).json()["players"] == 3
        made = b.post("/api/queue", json={}, headers=rest_b.auth(bob)).json()
        assert made["status"] == "seated"  # node B popped the group: the table is B's
        for guest in (ana, ivo, eve):
            assert a.get("/api/queue", headers=rest_a.auth(guest)).json() == made
        table = b.get(f"/api/tables/{made['table_id']}").json()
        assert [seat["name"] for seat in table["seats"]] == ["Ana", "Ivo", "Eve", "Bob"]
        assert a.get(f"/api/tables/{made['table_id']}").status_code == 404  # not A's


def closing(client: TestClient, redis: Redis) -> Callable[[], None]:
    """Close ``redis`` on the app's loop, where its connections were made."""
    portal = client.portal
    assert portal is not None

    async def close() -> None:
        await redis.aclose()

    return lambda: portal.call(close)


def delete_keys(prefix: str) -> None:
    """Delete every key of a test's prefix."""
    client = SyncRedis.from_url(REDIS_SERVER)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()

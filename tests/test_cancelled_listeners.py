"""A node's Redis listeners end when the shutdown cancels them, even when closing their
pub/sub fails as they unwind.

redis-py closes a pub/sub's connection as the ``async with`` block around it exits, within
the client's connect timeout (1 s: ``TIMEOUT`` in app/shared/redis.py).  If the loop
stalls past that timeout right then (a loaded machine; a SIGSTOP), the close raises
redis's TimeoutError in place of the CancelledError it was unwinding.  A listener that
retries on RedisError took it for an outage and went on listening, and the shutdown that
had cancelled it waited for it for ever: tests/test_cluster.py's
``test_a_node_with_many_tables_goes[term]`` once saw node A's hand-over wait so, its
leases lapse (its loop was cancelled already), its writes fenced, and A never exit.
:class:`StallingRedis` does what redis-py does then, without the stall."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any, cast

import pytest
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.accounts.news import News
from app.bots import BotRunner
from app.cancelled import stop_tasks
from app.cluster import Cluster
from app.db.storage import DatabaseStorage
from app.shared import Keys, RedisShared
from app.storage import MemoryStorage
from app.tables import Lobby
from tests.cluster_nodes import REDIS_SERVER, delete_keys
from tests.conftest import app_settings
from tests.waiting import eventually

STOP = 3.0  # seconds a cancelled listener may take to end (it needs none)


class StallingPubSub:
    """A pub/sub with no messages whose first close while a cancel unwinds raises what
    redis-py's does when the loop stalls past its connect timeout meanwhile."""

    def __init__(self, redis: StallingRedis) -> None:
        self._redis = redis

    async def __aenter__(self) -> StallingPubSub:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, *rest: Any) -> None:
        if kind is not None and issubclass(kind, asyncio.CancelledError) and self._redis.stalls:
            self._redis.stalls -= 1  # once: a second cancel (the test's cleanup) ends it
            raise RedisTimeoutError("Timed out closing connection after 1.0")

    async def subscribe(self, channel: str) -> None:
        self._redis.subscribed += 1

    async def get_message(self, ignore_subscribe_messages: bool = False,
                          timeout: float = 0.0) -> None:
        await asyncio.sleep(timeout)


class StallingRedis:
    def __init__(self) -> None:
        self.stalls = 1
        self.subscribed = 0  # subscriptions made: a listener that goes on makes another

    def pubsub(self) -> StallingPubSub:
        return StallingPubSub(self)


async def ends(closing: asyncio.Future[None], what: str) -> None:
    """``closing`` (a close that cancels a listener and waits for it) is done within STOP.
    Not ``tests.waiting.within``: a close that suppresses CancelledError would take the
    timeout's own cancel for the listener's end and return as if done."""
    done, _ = await asyncio.wait({closing}, timeout=STOP)
    assert done, f"{what} still waits {STOP:g} s after the cancel"
    await closing


async def caught_up() -> bool:
    return True


def test_the_accounts_news_listener_ends_when_its_pubsub_close_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> None:
        shared = RedisShared.connect(REDIS_SERVER, Keys("test:"))
        redis = StallingRedis()
        monkeypatch.setattr(shared.redis, "pubsub", redis.pubsub)
        news = News(lambda _: None, lambda _: None, caught_up, shared)
        news.start()
        try:
            await eventually(lambda: redis.subscribed == 1, 5, "the news listener to subscribe")
            await ends(asyncio.ensure_future(news.close()), "the accounts' close")
            assert redis.subscribed == 1 and redis.stalls == 0
        finally:
            await shared.close()

    asyncio.run(scenario())


@pytest.mark.redis
def test_the_hand_over_ends_when_the_listener_s_pubsub_close_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    prefix = f"test-{uuid.uuid4().hex}:"
    settings = app_settings(redis_url=REDIS_SERVER, redis_prefix=prefix,
                            database_url="postgresql://postgres@127.0.0.1:5432/test")

    async def scenario() -> None:
        storage = MemoryStorage()
        lobby = Lobby(settings.tables, BotRunner(settings.bots), storage)
        shared = RedisShared.connect(REDIS_SERVER, Keys(prefix))
        cluster = Cluster(settings.cluster, lobby, cast(DatabaseStorage, storage), "key", shared)
        redis = StallingRedis()
        monkeypatch.setattr(shared.redis, "pubsub", redis.pubsub)
        cluster._listen()  # the one on pub/sub
        try:
            await eventually(lambda: redis.subscribed == 1, 5,
                             "the hand-over listener to subscribe")
            await ends(asyncio.ensure_future(cluster.hand_over(1)), "the hand-over")
            assert redis.subscribed == 1 and redis.stalls == 0
        finally:
            await cluster.close()
            await shared.close()

    try:
        asyncio.run(scenario())
    finally:
        delete_keys(REDIS_SERVER, prefix)


def test_a_shutdown_goes_on_past_a_task_that_does_not_end(
        caplog: pytest.LogCaptureFixture) -> None:
    """:func:`app.cancelled.stop_tasks` waits for cancelled tasks a bounded time: one that
    swallows its cancel (a defect like the listeners' above) is named, not waited for."""
    async def scenario() -> None:
        release = asyncio.Event()

        async def stubborn() -> None:
            while not release.is_set():
                with contextlib.suppress(asyncio.CancelledError):
                    await release.wait()

        tasks = [asyncio.create_task(stubborn(), name="stubborn"),
                 asyncio.create_task(asyncio.sleep(3600), name="sleeper")]
        await asyncio.sleep(0)
        await ends(asyncio.ensure_future(stop_tasks(tasks, "the test", timeout=0.2)),
                   "the stop")
        assert tasks[1].cancelled() and not tasks[0].done()
        assert "the test: 1 task(s) still running" in caplog.text and "stubborn" in caplog.text
        release.set()
        await tasks[0]

    asyncio.run(scenario())


@pytest.mark.redis
@pytest.mark.parametrize("loop", ["_loop", "_sweeper"])
def test_the_cluster_s_loops_end_when_a_cancel_comes_back_as_a_redis_error(
        loop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A round of a node's loop cancelled inside Redis's clean-up raises redis's
    TimeoutError in place of the cancel (a loaded machine): the loop, which retries on
    Redis errors, still ends at once instead of retrying for ever (its ``pause``)."""
    prefix = f"test-{uuid.uuid4().hex}:"
    settings = app_settings(redis_url=REDIS_SERVER, redis_prefix=prefix,
                            database_url="postgresql://postgres@127.0.0.1:5432/test")

    async def round_cut_short() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            raise RedisTimeoutError("Timeout closing the connection") from None

    async def scenario() -> None:
        storage = MemoryStorage()
        lobby = Lobby(settings.tables, BotRunner(settings.bots), storage)
        shared = RedisShared.connect(REDIS_SERVER, Keys(prefix))
        cluster = Cluster(settings.cluster, lobby, cast(DatabaseStorage, storage), "key", shared)
        monkeypatch.setattr(cluster, "_tick", round_cut_short)
        monkeypatch.setattr(cluster, "_sweep", round_cut_short)
        monkeypatch.setattr(cluster, "_seed", round_cut_short)
        task = asyncio.create_task(getattr(cluster, loop)(), name=loop)
        try:
            await asyncio.sleep(0.05)  # inside its round
            await ends(asyncio.ensure_future(stop_tasks([task], "the test", timeout=0.5)),
                       "the stop")
            assert task.cancelled()
        finally:
            await shared.close()

    try:
        asyncio.run(scenario())
    finally:
        delete_keys(REDIS_SERVER, prefix)

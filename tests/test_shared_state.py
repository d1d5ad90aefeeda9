"""The shared state's contract (app/shared/), the same tests run on both implementations:
in this process (LocalShared), and in the local Redis (RedisShared, under a key prefix
of the test's own, deleted afterwards).  Each test has two views of one shared state,
as two nodes have: the same LocalShared twice, or two RedisShareds on connections of
their own and one prefix.  A behaviour of one that the other lacks fails here."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager

import pytest

from app.limiter import Limit, Limited, Limiter
from app.shared import Keys, Listener, LocalShared, RedisShared, Shared, base, local
from tests.cluster_nodes import REDIS_SERVER, delete_keys
from tests.waiting import eventually

GUARD = 20  # seconds for a test's coroutine
HEAR = 5  # seconds for a message (or a catch-up) to arrive
KINDS = pytest.mark.parametrize("kind", ["local", pytest.param("redis", marks=pytest.mark.redis)])
QUICK_RETRY = 0.1  # seconds between two catch-ups (1 in the server)
PATIENT = 10.0  # seconds for a Redis call (1 in the server)


@asynccontextmanager
async def views(kind: str) -> AsyncIterator[tuple[Shared, Shared]]:
    prefix = f"test-shared-{uuid.uuid4().hex[:12]}:"
    if kind == "local":
        shared = LocalShared(Keys(prefix))
        yield shared, shared
        await shared.close()
        return
    # What is shared is tested, not a stall: 30 limits taken at once all ran out of the
    # server's second in a loaded CI run.
    first, second = (RedisShared.connect(REDIS_SERVER, Keys(prefix), timeout=PATIENT)
                     for _ in range(2))
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()
        delete_keys(REDIS_SERVER, prefix)


def run(kind: str, test: Callable[[Shared, Shared], Awaitable[None]]) -> None:
    async def main() -> None:
        async with views(kind) as (a, b):
            await asyncio.wait_for(test(a, b), GUARD)

    asyncio.run(main())


class Ear:
    """A listener's record: the messages it heard, its catch-ups (each answering what
    ``caught_up`` says at the time)."""

    def __init__(self, caught_up: bool = True) -> None:
        self.heard: list[str] = []
        self.catch_ups = 0
        self.caught_up = caught_up

    async def on_message(self, message: str) -> None:
        if message == "bad":
            raise ValueError("a handler's bug")
        self.heard.append(message)

    async def catch_up(self) -> bool:
        self.catch_ups += 1
        return self.caught_up

    def listen(self, shared: Shared, channel: str) -> Listener:
        return shared.subscribe(channel, self.on_message, self.catch_up, "test")

    async def subscribed(self) -> None:
        """Its first catch-up: it follows the subscription."""
        await eventually(lambda: self.catch_ups >= 1, HEAR, "the listener to subscribe")

    async def hears(self, *messages: str) -> None:
        await eventually(lambda: self.heard[-len(messages):] == list(messages), HEAR,
                         lambda: f"{messages} heard, not {self.heard}")


@KINDS
def test_every_listener_hears_every_message_in_order_from_either_node(kind: str) -> None:
    async def test(a: Shared, b: Shared) -> None:
        await a.publish(a.keys.news, "before")  # nobody listens yet: lost
        ears = [Ear(), Ear()]
        other = Ear()
        async with AsyncExitStack() as stack:
            for ear, view in zip(ears, (a, b), strict=True):
                stack.push_async_callback(ear.listen(view, a.keys.news).close)
            stack.push_async_callback(other.listen(b, b.keys.released).close)
            for ear in (*ears, other):
                await ear.subscribed()
            sent = [f"m{i}" for i in range(20)]
            for i, message in enumerate(sent):
                await (a, b)[i % 2].publish(a.keys.news, message)
            for ear in ears:
                await ear.hears(*sent)
                assert ear.heard == sent  # in order, once each, not "before"
            await b.publish(b.keys.released, "t1")
            await other.hears("t1")
            assert other.heard == ["t1"]  # another channel's listener hears its own alone

    run(kind, test)


@KINDS
def test_a_closed_listener_hears_no_more(kind: str) -> None:
    async def test(a: Shared, b: Shared) -> None:
        gone, stays = Ear(), Ear()
        gone_listener = gone.listen(a, a.keys.news)
        async with AsyncExitStack() as stack:
            stack.push_async_callback(stays.listen(b, b.keys.news).close)
            await gone.subscribed()
            await stays.subscribed()
            await b.publish(b.keys.news, "one")
            await gone.hears("one")
            await gone_listener.close()
            await b.publish(b.keys.news, "two")
            await stays.hears("one", "two")  # "two" was delivered by now, had it listened
            assert gone.heard == ["one"]

    run(kind, test)


@KINDS
def test_a_failing_handler_is_logged_and_the_next_message_heard(
        kind: str, caplog: pytest.LogCaptureFixture) -> None:
    async def test(a: Shared, b: Shared) -> None:
        ear = Ear()
        listener = ear.listen(a, a.keys.news)
        try:
            await ear.subscribed()
            for message in ("bad", "good"):
                await b.publish(b.keys.news, message)
            await ear.hears("good")
        finally:
            await listener.close()
        assert "test: a message was not handled" in caplog.text
        assert "a handler's bug" in caplog.text

    caplog.set_level(logging.ERROR, logger="app.shared")
    run(kind, test)


@KINDS
def test_a_catch_up_is_tried_again_until_it_works_news_heard_meanwhile(
        kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (base, local):
        monkeypatch.setattr(module, "RETRY", QUICK_RETRY)

    async def test(a: Shared, b: Shared) -> None:
        ear = Ear(caught_up=False)  # the database does not answer, say
        listener = ear.listen(a, a.keys.news)
        try:
            await ear.subscribed()
            await b.publish(b.keys.news, "meanwhile")
            await ear.hears("meanwhile")
            await eventually(lambda: ear.catch_ups >= 2, HEAR, "a second catch-up")
            ear.caught_up = True
            await eventually(lambda: ear.catch_ups >= 3, HEAR, "a third catch-up")
            tried = ear.catch_ups
            await asyncio.sleep(5 * QUICK_RETRY)  # none more once one worked
            assert ear.catch_ups == tried
        finally:
            await listener.close()

    run(kind, test)


@KINDS
def test_limits_count_alike_on_every_node(kind: str) -> None:
    """A burst spread over both nodes passes the limit's amount, not each node's; a hit
    given back on one node is one more on the other."""
    limit = Limit.attempts("contract", 5, 3600)

    async def test(a: Shared, b: Shared) -> None:
        limiters = [Limiter(a.limits), Limiter(b.limits)]
        answers = await asyncio.gather(*(limiters[i % 2].take([(limit, "k")])
                                         for i in range(30)), return_exceptions=True)
        assert sum(isinstance(answer, list) for answer in answers) == 5
        assert all(isinstance(answer, list | Limited) for answer in answers), answers
        given = next(answer for answer in answers if isinstance(answer, list))
        await limiters[0].give_back(given)
        await limiters[1].take([(limit, "k")])
        with pytest.raises(Limited):
            await limiters[0].take([(limit, "k")])

    run(kind, test)

"""app/limiter.py on both storages, in memory and in Redis (under a key prefix of the
test's own): a burst is cut at the limit, a hit given back lets one more in, a refused
take counts on none of its limits, and Retry-After is the rest of a fixed window.  The give-back
is a hit of cost -1, which the ``limits`` library does not promise: this is its check."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from redis.asyncio import BlockingConnectionPool, Redis

from app.limiter import Limit, Limited, Limiter
from app.shared import Keys, LocalShared, RedisShared
from tests.cluster_nodes import REDIS_SERVER
from tests.test_db_support import run
from tests.test_matchmaking_queue import delete_keys

WINDOW = 86400  # seconds: no window turns within a test (in memory a sliding one turns
# at each multiple of it since the epoch: midnight, UTC)


@asynccontextmanager
async def limiter_on(storage: str) -> AsyncIterator[Limiter]:
    if storage == "memory":
        yield Limiter(LocalShared(Keys("")).limits)
        return
    prefix = f"test-limiter-{uuid.uuid4().hex[:12]}:"
    # Up to 120 takes at once: a bounded pool (they wait for a connection) with a wait
    # sized for a loaded machine, not 120 sockets opened together on a 5 s timeout, which
    # a loaded CI run once failed.
    pool = BlockingConnectionPool.from_url(REDIS_SERVER, decode_responses=True,
                                           max_connections=16, timeout=30, socket_timeout=30)
    redis = Redis(connection_pool=pool)
    try:
        yield Limiter(RedisShared(redis, Keys(prefix)).limits)
    finally:
        await redis.aclose()
        await pool.aclose()
        delete_keys(prefix)


async def outcomes(limiter: Limiter, wanted: list[tuple[Limit, str]], times: int) -> list[bool]:
    """Whether each of ``times`` takes at once passed."""
    answers = await asyncio.gather(*(limiter.take(wanted) for _ in range(times)),
                                   return_exceptions=True)
    odd = [a for a in answers if not isinstance(a, list | Limited)]
    assert not odd, odd
    return [isinstance(a, list) for a in answers]


@pytest.mark.parametrize("sliding", [False, True], ids=["fixed", "sliding"])
@pytest.mark.parametrize("storage", ["memory", pytest.param("redis", marks=pytest.mark.redis)])
def test_take_give_back_and_all_or_none(storage: str, sliding: bool) -> None:
    limit = (Limit.rate("narrow", f"3 per {WINDOW} seconds") if sliding
             else Limit.attempts("narrow", 3, WINDOW))
    wide = Limit.attempts("wide", 100, WINDOW)

    async def body() -> None:
        async with limiter_on(storage) as limiter:
            assert (await outcomes(limiter, [(limit, "k")], 20)).count(True) == 3
            with pytest.raises(Limited) as refused:
                await limiter.take([(limit, "k")])
            assert (1 if sliding else WINDOW - 5) <= refused.value.retry_after <= WINDOW

            given = await limiter.take([(limit, "other")])
            await limiter.give_back(given)
            assert (await outcomes(limiter, [(limit, "other")], 5)).count(True) == 3

            # Refused by "narrow", so counted on neither: "wide" still has its 100.
            assert not any(await outcomes(limiter, [(wide, "k"), (limit, "k")], 50))
            assert (await outcomes(limiter, [(wide, "k")], 120)).count(True) == 100

            await limiter.clear(limit, "k")
            assert (await outcomes(limiter, [(limit, "k")], 5)).count(True) == 3

    run(body())

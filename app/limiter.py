"""Every counted limit of the server (failed logins, sign-ups, analyses asked for, REST
calls), through the ``limits`` library, on the shared state's storage (app/shared/): in
this process's memory alone, in the cluster's Redis with REDIS_URL so that every node
counts alike.

Each attempt is counted *before* the work it guards, by one atomic hit (a Lua script in
Redis; a step of the event loop that does not yield in memory): never a read, then the
work, then a write, which let a burst of concurrent calls all pass the read before any was
counted.  A call that passes may give its hits back afterwards (a login that succeeded).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass

from limits import RateLimitItem, RateLimitItemPerSecond, parse_many
from limits.aio.storage import Storage
from limits.aio.strategies import (
    FixedWindowRateLimiter,
    RateLimiter,
    SlidingWindowCounterRateLimiter,
)


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``rates`` for each key of one kind (``name``), each rate holding.  Attempts
    (logins, sign-ups) count in a fixed window that starts at a key's first attempt, so
    that Retry-After is the rest of that window; rates (REST calls) in the library's
    sliding window, so that a client cannot send twice the rate across a window's edge."""

    name: str
    rates: tuple[RateLimitItem, ...]
    sliding: bool

    @classmethod
    def attempts(cls, name: str, amount: int, seconds: int) -> Limit:
        return cls(name, (RateLimitItemPerSecond(amount, seconds),), sliding=False)

    @classmethod
    def rate(cls, name: str, notation: str) -> Limit:
        """``notation`` is the library's: ``"10/second;300/minute"``."""
        return cls(name, tuple(parse_many(notation)), sliding=True)


@dataclass(frozen=True, slots=True)
class Hit:
    """One rate of one limit, counted for one key."""

    limit: Limit
    rate: RateLimitItem
    key: str


class Limited(Exception):
    """A limit refused: ``retry_after`` seconds until it takes one more."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(retry_after)
        self.retry_after = retry_after


class Limiter:
    """On ``storage``: the shared state's (``Shared.limits``)."""

    def __init__(self, storage: Storage) -> None:
        self._fixed = FixedWindowRateLimiter(storage)
        self._sliding = SlidingWindowCounterRateLimiter(storage)

    async def take(self, wanted: Iterable[tuple[Limit, str]]) -> list[Hit]:
        """Count one attempt on each limit for its key, all or none: if any refuses, the
        others are given back (a refused attempt counts on none) and Limited says when
        the refusing one takes one more.  A storage that cannot be reached
        raises one of app.shared.UNREACHABLE."""
        hits = [Hit(limit, rate, key) for limit, key in wanted for rate in limit.rates]
        passed = await asyncio.gather(*(self._strategy(hit).hit(hit.rate, *_ids(hit))
                                        for hit in hits))
        if all(passed):
            return hits
        # A fixed window counted its refused hit too; a sliding one did not.
        counted = [hit for hit, ok in zip(hits, passed, strict=True)
                   if ok or not hit.limit.sliding]
        await self.give_back(counted)
        waits = await asyncio.gather(*(self._wait(hit) for hit, ok
                                       in zip(hits, passed, strict=True) if not ok))
        raise Limited(max(waits))

    async def give_back(self, hits: Iterable[Hit]) -> None:
        """Uncount ``hits``: a hit of cost -1 takes one off the window's count (in the
        current window: a sliding one that moved on meanwhile keeps a share of it)."""
        await asyncio.gather(*(self._strategy(hit).hit(hit.rate, *_ids(hit), cost=-1)
                               for hit in hits))

    async def clear(self, limit: Limit, key: str) -> None:
        """Forget every attempt of ``key`` on ``limit``."""
        await asyncio.gather(*(self._strategy(hit).clear(hit.rate, *_ids(hit))
                               for hit in (Hit(limit, rate, key) for rate in limit.rates)))

    def _strategy(self, hit: Hit) -> RateLimiter:
        return self._sliding if hit.limit.sliding else self._fixed

    async def _wait(self, hit: Hit) -> int:
        stats = await self._strategy(hit).get_window_stats(hit.rate, *_ids(hit))
        return max(1, math.ceil(stats.reset_time - time.time()))


def _ids(hit: Hit) -> tuple[str, str]:
    return hit.limit.name, hit.key


"""Counters of attempts in fixed windows (failed logins per username and per address,
sign-ups and analyses asked for per address): in memory for one process, in Redis for a
cluster, so that an attacker gains nothing by spreading attempts over the nodes."""

from __future__ import annotations

import math
import time
from typing import Protocol, cast

from redis.asyncio import Redis

MAX_KEYS = 100_000  # in memory: past this many counters, the lapsed ones are dropped


class Counters(Protocol):
    async def blocked(self, key: str, limit: int) -> int | None:
        """Seconds until ``key`` may try again once it reached ``limit``, else None."""
        ...

    async def add(self, key: str, window: int) -> None:
        """Count one attempt of ``key``; its window starts at its first attempt."""
        ...

    async def clear(self, key: str) -> None: ...


class MemoryCounters:
    def __init__(self) -> None:
        self._counts: dict[str, tuple[int, float]] = {}  # key: (attempts, window's end)

    def _live(self, key: str) -> tuple[int, float]:
        count, end = self._counts.get(key, (0, 0.0))
        return (count, end) if end > time.monotonic() else (0, 0.0)

    async def blocked(self, key: str, limit: int) -> int | None:
        count, end = self._live(key)
        return max(1, math.ceil(end - time.monotonic())) if count >= limit else None

    async def add(self, key: str, window: int) -> None:
        count, end = self._live(key)
        if len(self._counts) >= MAX_KEYS:
            now = time.monotonic()
            self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
        self._counts[key] = (count + 1, end or time.monotonic() + window)

    async def clear(self, key: str) -> None:
        self._counts.pop(key, None)


class RedisCounters:
    """INCR, then EXPIRE NX: the first attempt starts the window, later ones do not
    stretch it."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self._redis, self._prefix = redis, prefix + "attempts:"

    async def blocked(self, key: str, limit: int) -> int | None:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.get(self._prefix + key)
            pipe.pttl(self._prefix + key)
            count, ttl = await pipe.execute()
        if count is None or int(count) < limit:
            return None
        return max(1, math.ceil(cast(int, ttl) / 1000))

    async def add(self, key: str, window: int) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.incr(self._prefix + key)
            pipe.expire(self._prefix + key, window, nx=True)
            await pipe.execute()

    async def clear(self, key: str) -> None:
        await self._redis.delete(self._prefix + key)


def make_counters(redis: Redis | None, prefix: str) -> Counters:
    """A process's counters, or with ``redis`` (a cluster's) the cluster's."""
    return MemoryCounters() if redis is None else RedisCounters(redis, prefix)

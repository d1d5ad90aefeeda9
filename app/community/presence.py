"""Who is online: a player with a personal socket (``GET /api/me/ws``) open on any node.

A server alone counts its sockets (:class:`MemoryPresence`); a cluster keeps a sorted set
in Redis (:class:`RedisPresence`, ``keys.online``), each player scored with the time until
which a node vouches for them (epoch ms).  Each node renews its own players every
:data:`RENEW` seconds for :data:`VOUCH` seconds, so a node that dies lets its players go
online=false within :data:`VOUCH`; a player whose last socket on one node closes is taken
out at once, and put back within :data:`RENEW` by another node that still holds one."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Collection
from typing import Protocol, cast

from ..shared import RedisShared, Shared

RENEW = 10.0  # seconds between two renewals of a node's online players
VOUCH = 3 * RENEW  # seconds a renewal keeps a player online


class Presence(Protocol):
    async def arrive(self, player_id: str) -> bool:
        """A personal socket of the player opened here; True if it was offline before."""
        ...

    async def leave(self, player_id: str, here: int) -> bool:
        """A personal socket of the player closed here, ``here`` of them still open on
        this node; True if the player is offline now (as far as this node knows)."""
        ...

    async def renew(self, player_ids: Collection[str]) -> None:
        """This node still holds sockets of these players."""
        ...

    async def online(self, player_ids: Collection[str]) -> set[str]:
        """Those of ``player_ids`` online now."""
        ...


class MemoryPresence:
    """A server alone: the sockets are all here."""

    def __init__(self) -> None:
        self._open: Counter[str] = Counter()

    async def arrive(self, player_id: str) -> bool:
        self._open[player_id] += 1
        return self._open[player_id] == 1

    async def leave(self, player_id: str, here: int) -> bool:
        self._open[player_id] -= 1
        if self._open[player_id] <= 0:
            del self._open[player_id]
            return True
        return False

    async def renew(self, player_ids: Collection[str]) -> None:
        pass

    async def online(self, player_ids: Collection[str]) -> set[str]:
        return {p for p in player_ids if p in self._open}


class RedisPresence:
    def __init__(self, shared: RedisShared) -> None:
        self._redis, self._key = shared.redis, shared.keys.online

    async def arrive(self, player_id: str) -> bool:
        now = _ms(0)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.zscore(self._key, player_id)
            pipe.zadd(self._key, {player_id: _ms(VOUCH)})
            before, _ = await pipe.execute()
        return before is None or float(before) < now

    async def leave(self, player_id: str, here: int) -> bool:
        if here > 0:
            return False
        await cast(Awaitable[int], self._redis.zrem(self._key, player_id))
        return True

    async def renew(self, player_ids: Collection[str]) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            if player_ids:
                until = _ms(VOUCH)
                pipe.zadd(self._key, dict.fromkeys(player_ids, until))
            pipe.zremrangebyscore(self._key, "-inf", _ms(0))  # those no node vouches for
            await pipe.execute()

    async def online(self, player_ids: Collection[str]) -> set[str]:
        ids = list(player_ids)
        if not ids:
            return set()
        scores = await self._redis.zmscore(self._key, ids)
        now = _ms(0)
        return {p for p, s in zip(ids, scores, strict=True) if s is not None and s >= now}


def _ms(after: float) -> int:
    return int((time.time() + after) * 1000)


def make_presence(shared: Shared) -> Presence:
    return RedisPresence(shared) if isinstance(shared, RedisShared) else MemoryPresence()

"""The live nodes: each keeps a key with its address and load, expiring unless renewed,
so a dead node drops out of the list by itself."""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Any, cast

from ..shared import RedisShared


class Registry:
    def __init__(self, shared: RedisShared, seconds: float) -> None:
        self._redis, self._set, self._key = shared.redis, shared.keys.nodes, shared.keys.node
        self._ms = int(seconds * 1000)

    async def beat(self, node: dict[str, Any]) -> None:
        """Say this node is alive, with its address and load (``node["id"]`` names it)."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.sadd(self._set, node["id"])
            pipe.set(self._key(node["id"]), json.dumps(node), px=self._ms)
            await pipe.execute()

    async def leave(self, node_id: str) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.srem(self._set, node_id)
            pipe.delete(self._key(node_id))
            await pipe.execute()

    async def nodes(self) -> dict[str, dict[str, Any]]:
        """Every live node by id; the ids of dead ones are swept from the set."""
        ids = sorted(await cast(Awaitable[set[str]], self._redis.smembers(self._set)))  # decoded
        if not ids:
            return {}
        found = await self._redis.mget([self._key(i) for i in ids])
        dead = [i for i, text in zip(ids, found, strict=True) if text is None]
        if dead:
            await cast(Awaitable[int], self._redis.srem(self._set, *dead))
        return {i: json.loads(text) for i, text in zip(ids, found, strict=True) if text}

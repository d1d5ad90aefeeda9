"""Who owns each table: a Redis key per table, holding the owner's node id, that expires
unless its owner renews it.  A dead node's keys expire, and another node takes the table
over; a paused one that wakes finds its key taken and lets the table go.  Redis alone
cannot promise one owner (a pause outlives a lease), so the match log refuses the writes
of a former owner by the epoch (app/db/repository.py: ``_fence``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import cast

from ..shared import RedisShared

# Keep ``key`` while it is ``node``'s, or take it while nobody's (Redis lost it): 1; 0
# when another node holds it.
_RENEW = """
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if not held then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Leases:
    """Tables' leases; or, with ``key``, another family of things one node runs at a time
    (a tournament's director: app/competition/director.py)."""

    def __init__(self, shared: RedisShared, node_id: str, seconds: float,
                 key: Callable[[str], str] | None = None) -> None:
        self._redis, self._key = shared.redis, key or shared.keys.lease
        self.node_id = node_id
        self._ms = int(seconds * 1000)
        self._renew = self._redis.register_script(_RENEW)
        self._release = self._redis.register_script(_RELEASE)

    async def acquire(self, table_id: str) -> bool:
        """Take a table nobody holds; False if a node does."""
        return bool(await self._redis.set(self._key(table_id), self.node_id, nx=True,
                                          px=self._ms))

    async def renew(self, table_ids: Iterable[str]) -> list[str]:
        """Renew this node's leases in one round trip; the tables another node holds now."""
        ids = list(table_ids)
        async with self._redis.pipeline(transaction=False) as pipe:
            for table_id in ids:
                await self._renew(keys=[self._key(table_id)], args=[self.node_id, self._ms],
                                  client=pipe)
            kept = await pipe.execute()
        return [table_id for table_id, ok in zip(ids, kept, strict=True) if not ok]

    async def release(self, table_ids: Iterable[str]) -> None:
        """Give up leases of this node's (another node may take the tables at once)."""
        async with self._redis.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                await self._release(keys=[self._key(table_id)], args=[self.node_id],
                                    client=pipe)
            await pipe.execute()

    async def owners(self, table_ids: list[str]) -> list[str | None]:
        """The node holding each table, None for a table nobody holds."""
        if not table_ids:
            return []
        owners = await self._redis.mget([self._key(t) for t in table_ids])
        return cast(list[str | None], owners)  # decoded: the client decodes responses

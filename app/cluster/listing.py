"""The lobby of the whole cluster: each node publishes its open tables (public, waiting)
under a key of its own that expires with the node, and any node merges the live nodes'
lists for ``GET /api/tables``.  Stale by at most a publishing period, like the one-node
lobby's cache (``lobby_cache_seconds``)."""

from __future__ import annotations

import json
import time

from ..shared import RedisShared

Entry = tuple[int, str]  # (created, epoch milliseconds; the table's public JSON)


class Listing:
    def __init__(self, shared: RedisShared, seconds: float, cache_seconds: float) -> None:
        self._redis, self._key = shared.redis, shared.keys.lobby
        self._ms = int(seconds * 1000)
        self._cache_seconds = cache_seconds
        self._cached: tuple[float, list[Entry]] | None = None

    async def publish(self, node_id: str, entries: list[Entry]) -> None:
        await self._redis.set(self._key(node_id), json.dumps(entries), px=self._ms)

    async def withdraw(self, node_id: str) -> None:
        await self._redis.delete(self._key(node_id))

    async def page(self, node_ids: list[str], before: int | None,
                   limit: int) -> tuple[list[bytes], int, int | None]:
        """Open tables of every live node, newest first, created before cursor ``before``
        (epoch milliseconds; None: from the newest), at most ``limit``; with the total
        and the next page's cursor (None after the last page)."""
        entries = await self._entries(node_ids)
        start = 0 if before is None else next(
            (i for i, (created, _) in enumerate(entries) if created < before), len(entries))
        page = entries[start:start + limit]
        more = start + limit < len(entries)
        return ([text.encode() for _, text in page], len(entries),
                page[-1][0] if more and page else None)

    async def _entries(self, node_ids: list[str]) -> list[Entry]:
        """Every open table, newest first; built at most every ``cache_seconds``."""
        now = time.monotonic()
        if self._cached is not None and now - self._cached[0] < self._cache_seconds:
            return self._cached[1]
        texts = await self._redis.mget([self._key(n) for n in node_ids]) if node_ids else []
        entries: list[Entry] = [(created, text) for lists in texts if lists
                                for created, text in json.loads(lists)]
        entries.sort(key=lambda entry: entry[0], reverse=True)
        self._cached = now, entries
        return entries

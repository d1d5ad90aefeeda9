"""The lists of the whole cluster: each node publishes its open tables (public, waiting;
``keys.lobby``) and its public matches in progress (``keys.live``, the Watch list) under
keys of its own that expire with the node, and any node merges the live nodes' lists for
``GET /api/tables``.  Stale by at most a publishing period, like the one-node lobby's
cache (``lobby_cache_seconds``)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..shared import RedisShared

# (created, epoch milliseconds; the table's public JSON[; the ids of its seated players]):
# the lobby's entries have two items, the live list's three (the ids find friends' tables).
Entry = Sequence[Any]
Page = tuple[list[bytes], int, int | None]


def page_of(entries: Sequence[Entry], before: int | None, limit: int) -> Page:
    """Of ``entries`` (newest first), those created before cursor ``before`` (epoch ms;
    None: from the newest), at most ``limit``; with the total and the next page's cursor
    (None after the last page)."""
    start = 0 if before is None else next(
        (i for i, entry in enumerate(entries) if entry[0] < before), len(entries))
    page = entries[start:start + limit]
    more = start + limit < len(entries)
    return ([entry[1].encode() for entry in page], len(entries),
            page[-1][0] if more and page else None)


class Listing:
    def __init__(self, shared: RedisShared, seconds: float, cache_seconds: float,
                 key: Callable[[str], str] | None = None) -> None:
        """``key``: a node's key of this list (``keys.lobby`` unless told)."""
        self._redis, self._key = shared.redis, key or shared.keys.lobby
        self._ms = int(seconds * 1000)
        self._cache_seconds = cache_seconds
        self._cached: tuple[float, list[Entry]] | None = None

    async def publish(self, node_id: str, entries: Sequence[Entry]) -> None:
        await self._redis.set(self._key(node_id), json.dumps(entries), px=self._ms)

    async def withdraw(self, node_id: str) -> None:
        await self._redis.delete(self._key(node_id))

    async def page(self, node_ids: list[str], before: int | None, limit: int) -> Page:
        """The tables of every live node, newest first (:func:`page_of`)."""
        return page_of(await self.entries(node_ids), before, limit)

    async def entries(self, node_ids: list[str]) -> list[Entry]:
        """Every table of the list, newest first; built at most every ``cache_seconds``."""
        now = time.monotonic()
        if self._cached is not None and now - self._cached[0] < self._cache_seconds:
            return self._cached[1]
        texts = await self._redis.mget([self._key(n) for n in node_ids]) if node_ids else []
        entries: list[Entry] = [entry for lists in texts if lists for entry in json.loads(lists)]
        entries.sort(key=lambda entry: entry[0], reverse=True)
        self._cached = now, entries
        return entries

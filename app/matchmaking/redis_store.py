"""The queue of a cluster, in its Redis: each player's entry (JSON) under
``keys.queue_entry``, each line's waiting players in order of arrival in the sorted set
``keys.queue_line`` (app/shared/keys.py).  Every call is one script, so one step for
Redis, and so two nodes never seat one player twice; a Redis that does not answer is
``cluster_unavailable`` (503)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from redis.commands.core import AsyncScript

from ..cluster.node import Unavailable
from ..shared import UNREACHABLE, RedisShared
from .lines import ALIVE, FORMING_TTL, GROUP, LINES, SETTLED_TTL, Entry

# KEYS: the player's entry, then (join) the variant's queue and the count of arrivals
# (a queue's order: the nodes' clocks may differ), then (join, leave) every variant's
# queue.  ARGV: the player's id, (join) the entry, its variant, its time to live in ms.
_JOIN = """
local raw = redis.call('GET', KEYS[1])
if raw then
  local held = cjson.decode(raw)
  local line = held.variant
  if held.rated then line = line .. '+rated' end
  if held.status == 'forming' or (held.status == 'waiting' and line == ARGV[3]) then
    return raw
  end
end
for i = 4, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
return ARGV[2]
"""
_TOUCH = """
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local held = cjson.decode(raw)
if held.status ~= 'waiting' then return raw end
held.seen = tonumber(ARGV[1])
raw = cjson.encode(held)
redis.call('SET', KEYS[1], raw, 'KEEPTTL')
return raw
"""
_LEAVE = """
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local held = cjson.decode(raw)
if held.status == 'forming' or held.status == 'seated' then return raw end
for i = 2, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('DEL', KEYS[1])
return false
"""
# KEYS[1]: the variant's queue (player ids in order of arrival).  ARGV: now, the oldest ``seen``
# still alive, the entries' key prefix (a group's entries are known only once the queue
# is read: one Redis, not Redis Cluster, holds a cluster's keys), how long a popped entry
# may wait for its table (ms), the players at a table.  As :func:`.lines.groups`.
_POP = """
local now, alive = tonumber(ARGV[1]), tonumber(ARGV[2])
local ready = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local key = ARGV[3] .. id
  local raw = redis.call('GET', key)
  local held = raw and cjson.decode(raw)
  if held and held.status == 'waiting' and held.seen >= alive then
    table.insert(ready, {id, key, held})
  else
    redis.call('ZREM', KEYS[1], id)
    if held and held.status == 'waiting' then redis.call('DEL', key) end
  end
end
local groups = {}
local function take(first, last)
  local group = {}
  for i = first, last do
    local id, key, held = ready[i][1], ready[i][2], ready[i][3]
    held.status = 'forming'
    local raw = cjson.encode(held)
    redis.call('SET', key, raw, 'PX', ARGV[4])
    redis.call('ZREM', KEYS[1], id)
    table.insert(group, raw)
  end
  table.insert(groups, group)
end
local n, i = #ready, 1
local size = tonumber(ARGV[5])
while n - i + 1 >= size do take(i, i + size - 1); i = i + size end
if i <= n and ready[i][3].deadline <= now then take(i, n) end
return groups
"""


class RedisQueue:
    def __init__(self, shared: RedisShared) -> None:
        self._redis, self._keys = shared.redis, shared.keys
        self._join = self._redis.register_script(_JOIN)
        self._touch = self._redis.register_script(_TOUCH)
        self._leave = self._redis.register_script(_LEAVE)
        self._pop = self._redis.register_script(_POP)

    def _every_queue(self) -> list[str]:
        return [self._keys.queue_line(name) for name in LINES]

    async def join(self, entry: Entry) -> Entry:
        ttl = _ms(entry.deadline - entry.since + ALIVE + SETTLED_TTL)
        raw = await _call(self._join, [self._keys.queue_entry(entry.player_id),
                                       self._keys.queue_line(entry.line),
                                       self._keys.queue_arrivals, *self._every_queue()],
                          [entry.player_id, entry.model_dump_json(), entry.line, ttl])
        return Entry.model_validate_json(cast(str, raw))

    async def touch(self, player_id: str, now: float) -> Entry | None:
        raw = await _call(self._touch, [self._keys.queue_entry(player_id)], [now])
        return None if raw is None else Entry.model_validate_json(cast(str, raw))

    async def leave(self, player_id: str) -> Entry | None:
        raw = await _call(self._leave, [self._keys.queue_entry(player_id),
                                        *self._every_queue()], [player_id])
        return None if raw is None else Entry.model_validate_json(cast(str, raw))

    async def pop(self, variant: str, now: float) -> list[list[Entry]]:
        groups = await _call(self._pop, [self._keys.queue_line(variant)],
                             [now, now - ALIVE, self._keys.queue_entry(""), _ms(FORMING_TTL),
                              GROUP])
        return [[Entry.model_validate_json(raw) for raw in group]
                for group in cast(list[list[str]], groups)]

    async def settle(self, group: Sequence[Entry]) -> None:
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for entry in group:
                    pipe.set(self._keys.queue_entry(entry.player_id), entry.model_dump_json(),
                             px=_ms(SETTLED_TTL))
                await pipe.execute()
        except UNREACHABLE as exc:
            raise Unavailable(f"Redis: {exc}") from exc

    async def waiting(self, variant: str) -> int:
        try:
            return int(await self._redis.zcard(self._keys.queue_line(variant)))
        except UNREACHABLE as exc:
            raise Unavailable(f"Redis: {exc}") from exc


async def _call(script: AsyncScript, keys: list[str], args: list[object]) -> object:
    try:
        return await script(keys=keys, args=args)  # type: ignore[arg-type]
    except UNREACHABLE as exc:
        raise Unavailable(f"Redis: {exc}") from exc


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))

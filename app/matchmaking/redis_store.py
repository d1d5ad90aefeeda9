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
from .lines import ALIVE, FORMING_TTL, LINES, SETTLED_TTL, Apart, Entry, groups

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
# KEYS[1]: the variant's queue (player ids in order of arrival).  ARGV: the oldest ``seen``
# still alive, the entries' key prefix (a group's entries are known only once the queue
# is read: one Redis, not Redis Cluster, holds a cluster's keys).  The players waiting,
# in order; the others are swept out of the queue.
_READY = """
local alive = tonumber(ARGV[1])
local ready = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local key = ARGV[2] .. id
  local raw = redis.call('GET', key)
  local held = raw and cjson.decode(raw)
  if held and held.status == 'waiting' and held.seen >= alive then
    table.insert(ready, raw)
  else
    redis.call('ZREM', KEYS[1], id)
    if held and held.status == 'waiting' then redis.call('DEL', key) end
  end
end
return ready
"""
# KEYS[1]: the variant's queue.  ARGV: the entries' key prefix, how long a popped entry
# may wait for its table (ms), then each group's players' ids, a group's ended by "".
# Each group whose players all still wait is taken (``forming``); the others are left
# as they are (another node took one of them meanwhile).  The indexes of those taken.
_CLAIM = """
local taken, group, index = {}, {}, 0
for i = 3, #ARGV do
  if ARGV[i] == '' then
    index = index + 1
    local raws, all = {}, true
    for _, id in ipairs(group) do
      local raw = redis.call('GET', ARGV[1] .. id)
      local held = raw and cjson.decode(raw)
      if not held or held.status ~= 'waiting' then all = false; break end
      held.status = 'forming'
      raws[id] = cjson.encode(held)
    end
    if all then
      for id, raw in pairs(raws) do
        redis.call('SET', ARGV[1] .. id, raw, 'PX', ARGV[2])
        redis.call('ZREM', KEYS[1], id)
      end
      table.insert(taken, index)
    end
    group = {}
  else
    table.insert(group, ARGV[i])
  end
end
return taken
"""


class RedisQueue:
    def __init__(self, shared: RedisShared) -> None:
        self._redis, self._keys = shared.redis, shared.keys
        self._join = self._redis.register_script(_JOIN)
        self._touch = self._redis.register_script(_TOUCH)
        self._leave = self._redis.register_script(_LEAVE)
        self._ready = self._redis.register_script(_READY)
        self._claim = self._redis.register_script(_CLAIM)

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

    async def pop(self, variant: str, now: float, apart: Apart = ()) -> list[list[Entry]]:
        """The groups are made here (:func:`~.lines.groups`) from the players waiting,
        then taken in one script: a group of which another node took a player meanwhile
        is left, its players still waiting, for the next pop."""
        line = self._keys.queue_line(variant)
        prefix = self._keys.queue_entry("")
        raws = await _call(self._ready, [line], [now - ALIVE, prefix])
        ready = [Entry.model_validate_json(raw) for raw in cast(list[str], raws)]
        made = groups(ready, now, apart)
        if not made:
            return []
        ids = [v for group in made for v in [*(e.player_id for e in group), ""]]
        taken = await _call(self._claim, [line], [prefix, _ms(FORMING_TTL), *ids])
        return [[e.model_copy(update={"status": "forming"}) for e in made[index - 1]]
                for index in cast(list[int], taken)]

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


    async def waiting_ids(self, variant: str) -> list[str]:
        try:
            return list(await self._redis.zrange(self._keys.queue_line(variant), 0, -1))
        except UNREACHABLE as exc:
            raise Unavailable(f"Redis: {exc}") from exc


async def _call(script: AsyncScript, keys: list[str], args: list[object]) -> object:
    try:
        return await script(keys=keys, args=args)  # type: ignore[arg-type]
    except UNREACHABLE as exc:
        raise Unavailable(f"Redis: {exc}") from exc


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))

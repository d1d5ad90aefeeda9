"""The shared state of a cluster, in its Redis: limits counted there (the ``limits``
library's Redis storage, on this client's connections), news on pub/sub channels.

:attr:`RedisShared.redis` and :attr:`RedisShared.keys` are also what only a cluster
shares, each part with the module that uses it: the leases, the live nodes and the lobby
of every node (app/cluster/), the session cache (app/accounts/sessions.py), the queue's
scripts (app/matchmaking/redis_store.py).  Every call has the client's timeout: a
stalled Redis must not stall tables."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

from limits.aio.storage import RedisStorage, Storage
from redis.asyncio import Redis

from ..cancelled import raise_if_cancelled, stop_tasks
from .base import RETRY, UNREACHABLE, Behind, CatchUp, OnMessage, hand
from .keys import Keys

log = logging.getLogger(__name__)

TIMEOUT = 1.0  # seconds for any Redis call
POLL = TIMEOUT / 2  # seconds a listener waits for a message: within the timeout


class RedisShared:
    def __init__(self, redis: Redis, keys: Keys) -> None:
        """``redis`` decodes responses (``decode_responses=True``)."""
        self.redis, self.keys = redis, keys
        shared: dict[str, Any] = {"connection_pool": redis.connection_pool}  # not a URL's own
        self._limits = RedisStorage("async+redis://", implementation="redispy",
                                    key_prefix=keys.limits, **shared)

    @classmethod
    def connect(cls, url: str, keys: Keys, timeout: float = TIMEOUT) -> RedisShared:
        """On the Redis at ``url``, each call within ``timeout`` seconds (connections are
        made on use).  A test of what is shared, not of a stalled Redis, waits longer: a
        loaded machine's pause outlasts the server's second."""
        return cls(Redis.from_url(url, decode_responses=True, socket_timeout=timeout,
                                  socket_connect_timeout=timeout), keys)

    @property
    def limits(self) -> Storage:
        return self._limits

    async def publish(self, channel: str, message: str) -> None:
        await self.redis.publish(channel, message)

    def subscribe(self, channel: str, on_message: OnMessage, catch_up: CatchUp,
                  what: str) -> _Listener:
        return _Listener(self.redis, channel, on_message, catch_up, what)

    async def close(self) -> None:
        await self.redis.aclose()


class _Listener:
    """A pub/sub subscription, made again after every cut.  Pub/sub keeps nothing for a
    listener that is away: each subscription (redis-py makes one by itself as it
    reconnects, and this loop after a failure) is therefore followed by the catch-up."""

    def __init__(self, redis: Redis, channel: str, on_message: OnMessage, catch_up: CatchUp,
                 what: str) -> None:
        self._redis, self._channel = redis, channel
        self._on_message, self._what = on_message, what
        self._behind = Behind(catch_up)
        self._task = asyncio.create_task(self._listen(), name=f"{what}-listener")

    async def _listen(self) -> None:
        cut = False  # told once per outage
        while True:
            try:
                async with self._redis.pubsub() as pubsub:
                    await pubsub.subscribe(self._channel)
                    while True:  # polled within the socket timeout, which listen() is not
                        await self._behind.settle()
                        message = await pubsub.get_message(timeout=POLL)
                        if message is None:
                            continue
                        if message["type"] == "subscribe":  # the first, or after a cut
                            self._behind.owe()
                            if cut:
                                log.info("%s: heard again", self._what)
                            cut = False
                        elif message["type"] == "message":
                            await hand(self._on_message, cast(str, message["data"]), self._what)
            except UNREACHABLE as exc:
                raise_if_cancelled(exc)  # the pub/sub's close failed as a cancel unwound
                if not cut:
                    log.warning("%s: unheard, Redis: %s", self._what, exc)
                cut = True
                await asyncio.sleep(RETRY)

    async def close(self) -> None:
        await stop_tasks([self._task], self._what)

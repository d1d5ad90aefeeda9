"""What every node of a cluster must hear of at once: a session ended (its sockets close
wherever they are), a guest became an account (its old guest tokens stop working).

Sent on one Redis pub/sub channel, as the cluster's hand-overs are.  Pub/sub keeps
nothing for a listener that is away: a node cut off from Redis misses what is said
meanwhile.  So every subscription, the first and each one after a cut (redis-py makes
those by itself as it reconnects), is followed by ``catch_up``: the accounts read again
from the database, which holds every sign-up before it is told.  An ended session needs
no catching up: the next REST call or hello with it is refused anyway (the database and
the cache's tombstone say so), only a socket already open on the node stays open.
Without Redis the news goes to this process only.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import cast

from redis.asyncio import Redis
from redis.exceptions import RedisError

from ..cancelled import raise_if_cancelled, stop_tasks

log = logging.getLogger(__name__)

POLL = 0.5  # seconds a pub/sub read waits, within the client's socket timeout
RETRY = 1.0  # seconds before subscribing, or catching up, again after a failure
ENDED, ACCOUNT = "ended", "account"


class News:
    """``catch_up`` makes up for the news missed before a subscription: False if it could
    not (the database does not answer), to be tried again."""

    def __init__(self, on_ended: Callable[[str], None], on_account: Callable[[str], None],
                 catch_up: Callable[[], Awaitable[bool]], redis: Redis | None = None,
                 prefix: str = "") -> None:
        self._handlers = {ENDED: on_ended, ACCOUNT: on_account}
        self._redis, self._channel = redis, prefix + "accounts"
        self._catch_up = catch_up
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._redis is not None:
            self._task = asyncio.create_task(self._listen(), name="accounts-news")

    async def close(self) -> None:
        if self._task is not None:
            await stop_tasks([self._task], "accounts' news")

    async def tell(self, kind: str, value: str) -> None:
        """Act on it here at once, then tell the other nodes (if any)."""
        self._handlers[kind](value)
        if self._redis is not None:
            try:
                await self._redis.publish(self._channel, f"{kind} {value}")
            except (RedisError, OSError) as exc:
                log.warning("accounts: news %s not sent, Redis: %s", kind, exc)

    async def _listen(self) -> None:
        assert self._redis is not None
        while True:
            try:
                async with self._redis.pubsub() as pubsub:
                    await pubsub.subscribe(self._channel)
                    behind, retry_at = False, 0.0
                    while True:
                        if behind and time.monotonic() >= retry_at:
                            behind = not await self._catch_up()
                            retry_at = time.monotonic() + RETRY
                        message = await pubsub.get_message(timeout=POLL)
                        if message is None:
                            continue
                        if message["type"] == "subscribe":  # the first, or after a cut
                            behind = True
                        elif message["type"] == "message":
                            kind, _, value = cast(str, message["data"]).partition(" ")
                            if kind in self._handlers:
                                self._handlers[kind](value)
            except (RedisError, OSError) as exc:
                raise_if_cancelled(exc)  # the pub/sub's close failed as a cancel unwound
                log.warning("accounts: news unheard, Redis: %s", exc)
                await asyncio.sleep(RETRY)

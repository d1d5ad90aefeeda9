"""What every node of a cluster must hear of at once: a session ended (its sockets close
wherever they are), a guest became an account (its old guest tokens stop working).

Sent on one Redis pub/sub channel, as the cluster's hand-overs are; a node that missed a
message while cut off from Redis still refuses the ended session at its next REST call
or hello (the database and the cache's tombstone say so), only a socket already open on
it stays open.  Without Redis the news goes to this process only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import cast

from redis.asyncio import Redis
from redis.exceptions import RedisError

from ..cancelled import raise_if_cancelled, stop_tasks

log = logging.getLogger(__name__)

POLL = 0.5  # seconds a pub/sub read waits, within the client's socket timeout
RETRY = 1.0  # seconds before subscribing again after Redis failed
ENDED, ACCOUNT = "ended", "account"


class News:
    def __init__(self, on_ended: Callable[[str], None], on_account: Callable[[str], None],
                 redis: Redis | None = None, prefix: str = "") -> None:
        self._handlers = {ENDED: on_ended, ACCOUNT: on_account}
        self._redis, self._channel = redis, prefix + "accounts"
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
                    while True:
                        message = await pubsub.get_message(ignore_subscribe_messages=True,
                                                           timeout=POLL)
                        if message is not None:
                            kind, _, value = cast(str, message["data"]).partition(" ")
                            if kind in self._handlers:
                                self._handlers[kind](value)
            except (RedisError, OSError) as exc:
                raise_if_cancelled(exc)  # the pub/sub's close failed as a cancel unwound
                log.warning("accounts: news unheard, Redis: %s", exc)
                await asyncio.sleep(RETRY)

"""The shared state of a server running alone: limits counted in this process's memory,
news told to this process's listeners.  Nothing is ever missed, nothing is unreachable:
it behaves as the Redis one does when Redis answers (tests/test_shared_state.py)."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict

from limits.aio.storage import MemoryStorage, Storage

from ..cancelled import stop_tasks
from .base import RETRY, UNREACHABLE, Behind, CatchUp, OnMessage, hand
from .keys import Keys

log = logging.getLogger(__name__)


class LocalShared:
    def __init__(self, keys: Keys) -> None:
        self.keys = keys
        self._limits = MemoryStorage()
        self._listeners: defaultdict[str, set[_Listener]] = defaultdict(set)

    @property
    def limits(self) -> Storage:
        return self._limits

    async def publish(self, channel: str, message: str) -> None:
        for listener in self._listeners[channel]:
            listener.inbox.put_nowait(message)

    def subscribe(self, channel: str, on_message: OnMessage, catch_up: CatchUp,
                  what: str) -> _Listener:
        listener = _Listener(self._listeners[channel], on_message, catch_up, what)
        self._listeners[channel].add(listener)
        return listener

    async def close(self) -> None:
        pass


class _Listener:
    """Subscribed at once, and for good: its one catch-up follows at once."""

    def __init__(self, listeners: set[_Listener], on_message: OnMessage, catch_up: CatchUp,
                 what: str) -> None:
        self.inbox: asyncio.Queue[str] = asyncio.Queue()
        self._listeners, self._on_message, self._what = listeners, on_message, what
        self._behind = Behind(catch_up)
        self._behind.owe()
        self._task = asyncio.create_task(self._listen(), name=f"{what}-listener")

    async def _listen(self) -> None:
        while True:
            await self._behind.settle()
            try:  # no need to wake up but to catch up again
                message = await asyncio.wait_for(self.inbox.get(),
                                                 RETRY if self._behind.owed else None)
            except TimeoutError:
                continue
            try:
                await hand(self._on_message, message, self._what)
            except UNREACHABLE:  # the handler's own: this listener cannot be cut off
                log.exception("%s: a message was not handled", self._what)

    async def close(self) -> None:
        self._listeners.discard(self)
        await stop_tasks([self._task], self._what)

"""What both kinds of shared state offer (:class:`Shared`), and the listening both do
alike: a listener hands each message to its handler in order, and after each
subscription it makes up for what it may have missed, again and again until that
worked."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from limits.aio.storage import Storage
from redis.exceptions import RedisError

from .keys import Keys

log = logging.getLogger(__name__)

# What a call to the shared state raises when it cannot be reached (a cluster's Redis
# down or out of reach): callers that ride an outage out catch these.
UNREACHABLE = (RedisError, OSError)

RETRY = 1.0  # seconds before subscribing, or catching up, again after a failure

OnMessage = Callable[[str], Awaitable[None]]
# Makes up for the messages a listener may have missed before its subscription (from
# where they are kept for good: the database); False if it could not, to be tried again.
CatchUp = Callable[[], Awaitable[bool]]


async def nothing_missed() -> bool:
    """The catch-up of a listener for which a missed message is made up otherwise."""
    return True


class Listener(Protocol):
    async def close(self) -> None:
        """Stop listening (the handler is not called again)."""
        ...


class Shared(Protocol):
    """What the nodes of a cluster share, or a server running alone keeps to itself:
    :class:`~app.shared.local.LocalShared` in this process, or
    :class:`~app.shared.redis.RedisShared` in the cluster's Redis, which also offers what
    only a cluster has (leases, the lobby of every node, the session cache)."""

    keys: Keys

    @property
    def limits(self) -> Storage:
        """Where counted limits count: the ``limits`` library's storage (app/limiter.py)."""
        ...

    async def publish(self, channel: str, message: str) -> None:
        """Tell every listener of ``channel``, this process's too.  Raises one of
        :data:`UNREACHABLE` if it could not be sent."""
        ...

    def subscribe(self, channel: str, on_message: OnMessage, catch_up: CatchUp,
                  what: str) -> Listener:
        """Hand every message published on ``channel`` from now on to ``on_message``, in
        order, one at a time; ``catch_up`` after each subscription (the first, and each
        one after a cut), tried every :data:`RETRY` seconds until it worked.  A handler
        that fails is logged (``what`` names the listener) and the next message handed on."""
        ...

    async def close(self) -> None:
        """After every listener closed."""
        ...


class Behind:
    """A listener's catch-up: owed after each subscription, tried at once, then every
    RETRY seconds until it worked."""

    def __init__(self, catch_up: CatchUp) -> None:
        self._catch_up = catch_up
        self._owed, self._at = False, 0.0

    @property
    def owed(self) -> bool:
        return self._owed

    def owe(self) -> None:
        self._owed, self._at = True, 0.0

    async def settle(self) -> None:
        """Catch up if owed and due; a catch-up that fails in an unforeseen way is logged
        and tried again, never the end of the listener that calls this."""
        if self._owed and time.monotonic() >= self._at:
            try:
                self._owed = not await self._catch_up()
            except UNREACHABLE:
                raise
            except Exception:
                log.exception("shared state: a catch-up failed; trying again")
            self._at = time.monotonic() + RETRY


async def hand(on_message: OnMessage, message: str, what: str) -> None:
    """``on_message(message)``; a handler's failure is logged, not the listener's end.
    One of :data:`UNREACHABLE` propagates: the listener subscribes again."""
    try:
        await on_message(message)
    except UNREACHABLE:
        raise
    except Exception:
        log.exception("%s: a message was not handled", what)

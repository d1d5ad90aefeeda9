"""What every node of a cluster must hear of at once: a session ended (its sockets close
wherever they are), a guest became an account (its old guest tokens stop working).

Told on the shared state's news channel (app/shared/: this process's listeners alone,
or every node's through Redis pub/sub).  Pub/sub keeps nothing for a listener that is
away: a node cut off from Redis misses what is said meanwhile.  So every subscription,
the first and each one after a cut, is followed by ``catch_up``: the accounts read again
from the database, which holds every sign-up before it is told.  An ended session needs
no catching up: the next REST call or hello with it is refused anyway (the database and
the cache's tombstone say so), only a socket already open on the node stays open.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from ..shared import UNREACHABLE, Listener, Shared

log = logging.getLogger(__name__)

ENDED, ACCOUNT = "ended", "account"


class News:
    """``catch_up`` makes up for the news missed before a subscription: False if it could
    not (the database does not answer), to be tried again.  Each node hears its own news
    too, after acting on it: the handlers do nothing the second time."""

    def __init__(self, on_ended: Callable[[str], None], on_account: Callable[[str], None],
                 catch_up: Callable[[], Awaitable[bool]], shared: Shared) -> None:
        self._handlers = {ENDED: on_ended, ACCOUNT: on_account}
        self._shared, self._catch_up = shared, catch_up
        self._listener: Listener | None = None

    def start(self) -> None:
        self._listener = self._shared.subscribe(self._shared.keys.news, self._heard,
                                                self._catch_up, "accounts' news")

    async def close(self) -> None:
        if self._listener is not None:
            await self._listener.close()

    async def tell(self, kind: str, value: str) -> None:
        """Act on it here at once, then tell every node."""
        self._handlers[kind](value)
        try:
            await self._shared.publish(self._shared.keys.news, f"{kind} {value}")
        except UNREACHABLE as exc:
            log.warning("accounts: news %s not sent, Redis: %s", kind, exc)

    async def _heard(self, message: str) -> None:
        kind, _, value = message.partition(" ")
        if kind in self._handlers:
            self._handlers[kind](value)

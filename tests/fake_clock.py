"""A clock that tests move by hand: the tables' turn timers, grace periods and bots'
pauses fire when the test says time has passed, not after real seconds."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

HANDOFF = 10  # seconds the app's loop may take to run the due timers for another thread


@dataclass(order=True)
class FakeTimer:
    when: float
    order: int
    callback: Callable[[], object] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """:class:`app.tables.clock.Clock` on a time of its own, moved by :meth:`advance`.

    The timers' callbacks post to tables, which only the tables' event loop may do; a test
    driving the app through a TestClient (whose loop runs in a thread of its own) calls
    :meth:`advance` all the same: the clock moves on that loop, and the test waits for it."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now
        self._timers: list[FakeTimer] = []
        self._order = itertools.count()
        self._loop: asyncio.AbstractEventLoop | None = None  # the one the timers were set on

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], object]) -> FakeTimer:
        self._loop = asyncio.get_running_loop()
        timer = FakeTimer(self.now + max(0.0, delay), next(self._order), callback)
        heapq.heappush(self._timers, timer)
        return timer

    def advance(self, seconds: float) -> None:
        """Move time on, calling each timer that falls due, in order, at its time, on the
        timers' loop."""
        loop = self._loop
        if loop is None or _running(loop):
            self._advance(seconds)
        else:
            asyncio.run_coroutine_threadsafe(self._advance_on_loop(seconds), loop).result(HANDOFF)

    async def _advance_on_loop(self, seconds: float) -> None:
        self._advance(seconds)

    def _advance(self, seconds: float) -> None:
        until = self.now + seconds
        while self._timers and self._timers[0].when <= until:
            timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                self.now = timer.when
                timer.callback()
        self.now = until


def _running(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether this thread is running ``loop`` now."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:  # no loop running in this thread
        return False

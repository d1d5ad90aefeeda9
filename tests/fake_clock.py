"""A clock that tests move by hand: the tables' turn timers, grace periods and bots'
pauses fire when the test says time has passed, not after real seconds."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(order=True)
class FakeTimer:
    when: float
    order: int
    callback: Callable[[], object] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """:class:`app.tables.clock.Clock` on a time of its own, moved by :meth:`advance`."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now
        self._timers: list[FakeTimer] = []
        self._order = itertools.count()

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], object]) -> FakeTimer:
        timer = FakeTimer(self.now + max(0.0, delay), next(self._order), callback)
        heapq.heappush(self._timers, timer)
        return timer

    def advance(self, seconds: float) -> None:
        """Move time on, calling each timer that falls due, in order, at its time."""
        until = self.now + seconds
        while self._timers and self._timers[0].when <= until:
            timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                self.now = timer.when
                timer.callback()
        self.now = until

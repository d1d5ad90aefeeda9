"""Time as a table sees it: the wall clock and timers, injected so that tests run turn
timers, grace periods and bots' pauses on a clock they move themselves."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def time(self) -> float:
        """Seconds since the epoch: deadlines are sent to clients as wall-clock times."""
        ...

    def call_later(self, delay: float, callback: Callable[[], object]) -> Timer:
        """Call ``callback`` on the event loop ``delay`` seconds from now."""
        ...


class LoopClock:
    """The real clock: ``time.time`` and the running loop's timers."""

    def time(self) -> float:
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], object]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)

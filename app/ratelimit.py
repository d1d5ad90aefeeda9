"""A token bucket: how the server lets a sender burst a little, then only so fast."""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    """``rate`` takes a second on average, bursts up to ``burst``.  ``now`` reads the
    clock in seconds: a socket's bucket runs on the monotonic clock, a table's on the
    table's own (which tests move by hand); a clock that steps back refills nothing."""

    def __init__(self, rate: float, burst: int,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self._now = now
        self.stamp = now()

    def take(self) -> bool:
        now = self._now()
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

"""A cancelled task stays cancelled when a cleanup fails as it unwinds.

redis-py closes a pub/sub's connection as the ``async with`` block around it exits, within
the client's connect timeout.  If the loop stalls past that timeout right then (a loaded
machine), the close raises redis's TimeoutError in place of the CancelledError it was
unwinding.  A loop that retries on RedisError would take it for an outage and go on for
ever, and the shutdown that cancelled it, waiting for it, would never end
(tests/test_cancelled_listeners.py)."""

from __future__ import annotations

import asyncio


def raise_if_cancelled(error: BaseException) -> None:
    """Where a loop catches ``error`` to retry: re-raise it as CancelledError if the running
    task was asked to stop, since the request outlives the exception that replaced it."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError from error

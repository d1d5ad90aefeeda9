"""Cancelled tasks end, and a shutdown does not wait for one that does not.

redis-py closes a pub/sub's connection as the ``async with`` block around it exits, within
the client's connect timeout.  If the loop stalls past that timeout right then (a loaded
machine), the close raises redis's TimeoutError in place of the CancelledError it was
unwinding.  A loop that retries on RedisError would take it for an outage and go on for
ever, and the shutdown that cancelled it, waiting for it, would never end
(tests/test_cancelled_listeners.py).  :func:`raise_if_cancelled` mends the loops,
and every retrying loop sleeps between rounds with :func:`pause`, which ends it if a
cancel was swallowed anyway; :func:`stop_tasks` bounds the wait, should another such loop
be written.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection
from typing import Any

log = logging.getLogger(__name__)

# Seconds cancelled tasks get to end at a shutdown: a pub/sub's close takes up to the
# Redis client's 1 s timeout.
STOP_TIMEOUT = 2.0


def raise_if_cancelled(error: BaseException) -> None:
    """Where a loop catches ``error`` to retry: re-raise it as CancelledError if the running
    task was asked to stop, since the request outlives the exception that replaced it."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError from error


async def pause(seconds: float) -> None:
    """A retrying loop's sleep between rounds.  If the task was asked to stop while a round
    ran, and a handler of the round took the cancel for an error (redis-py's clean-up
    replaced it), the cancel is raised here: the loop ends instead of retrying for ever."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
    await asyncio.sleep(seconds)


async def stop_tasks(tasks: Collection[asyncio.Task[Any]], what: str,
                     timeout: float = STOP_TIMEOUT) -> None:
    """Cancel ``tasks`` and wait for them, ``timeout`` seconds at most: a task still running
    then is a defect, logged, and the shutdown goes on without it.  What the tasks raised
    as they ended is theirs to log; here it is only collected."""
    for task in tasks:
        task.cancel()
    if not tasks:
        return
    done, pending = await asyncio.wait(tasks, timeout=timeout)
    for task in done:
        if not task.cancelled():
            task.exception()  # retrieved: no "never retrieved" warning at exit
    if pending:
        log.error("%s: %d task(s) still running %.0f s after being cancelled: %s", what,
                  len(pending), timeout, ", ".join(sorted(t.get_name() for t in pending)))

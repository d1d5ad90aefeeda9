"""Bounded waits for the tests: every wait gives up after a bound and says what it waited
for, so a hang fails its own test with an assertion instead of blocking the suite.

``eventually`` polls a condition (``eventually_sync`` is its twin for code without a
loop); ``within`` bounds one await, ``received`` each read of a WebSocket client;
``Deadline`` bounds a loop that reads messages.
pytest-timeout's per-test limit (pyproject.toml) is the last resort behind these."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import NoReturn, TypeVar

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosedOK
from websockets.typing import Data

T = TypeVar("T")
POLL = 0.05  # seconds between two looks at a condition
# What was awaited, for the failure message; a function is called only on failure, to
# add what is known by then (a server's log, the tables still frozen).
What = str | Callable[[], str]


class Deadline:
    """``seconds`` from now; :meth:`check` fails once they have passed."""

    def __init__(self, seconds: float, what: What) -> None:
        self.seconds = seconds
        self.what = what
        self.at = time.monotonic() + seconds

    def check(self) -> None:
        if time.monotonic() >= self.at:
            fail(self.seconds, self.what)


def fail(seconds: float, what: What) -> NoReturn:
    text = what if isinstance(what, str) else what()
    raise AssertionError(f"gave up after {seconds:g} s waiting for {text}")


async def eventually(condition: Callable[[], bool | Awaitable[bool]], timeout: float,
                     what: What, poll: float = POLL) -> None:
    """Return once ``condition()`` (awaited if it is a coroutine) holds; fail after
    ``timeout`` seconds.  Exceptions from the condition propagate at once."""
    deadline = Deadline(timeout, what)
    while True:
        held = condition()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        deadline.check()
        await asyncio.sleep(poll)


def eventually_sync(condition: Callable[[], bool], timeout: float, what: What,
                    poll: float = POLL) -> None:
    """:func:`eventually` for code without an event loop."""
    deadline = Deadline(timeout, what)
    while not condition():
        deadline.check()
        time.sleep(poll)


async def within(awaitable: Awaitable[T], timeout: float, what: What) -> T:
    """``await awaitable``, failing after ``timeout`` seconds (a TimeoutError raised by
    the awaitable itself passes through unchanged)."""
    scope = asyncio.timeout(timeout)
    try:
        async with scope:
            return await awaitable
    except TimeoutError:
        if not scope.expired():
            raise
    fail(timeout, what)


async def received(ws: ClientConnection, timeout: float,
                   what: What) -> AsyncIterator[Data]:
    """The socket's frames, as ``async for frame in ws`` gives them (until a normal close),
    failing when none comes for ``timeout`` seconds."""
    while True:
        try:
            frame = await within(ws.recv(), timeout, what)
        except ConnectionClosedOK:
            return
        yield frame


def clear_of_a_window_edge(period: float, needed: float = 10.0) -> None:
    """Sleep, if need be, into the next window of ``period`` seconds (counted from the
    epoch, as the rate limits' windows are), so that the next ``needed`` seconds fall in
    one: at a window's edge a sliding window's count of the last one fades (a limit of
    one an hour lets a second hit through a second after the hour)."""
    left = period - time.time() % period
    if left < needed:
        time.sleep(left)

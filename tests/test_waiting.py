"""The bounded waits of tests/waiting.py: they give up, and say what they waited for."""

from __future__ import annotations

import asyncio

import pytest

from tests.waiting import Deadline, eventually, eventually_sync, within


def test_a_condition_that_never_holds_fails_saying_what_was_awaited() -> None:
    with pytest.raises(AssertionError, match=r"gave up after 0\.05 s waiting for the sky"):
        eventually_sync(lambda: False, 0.05, "the sky", poll=0.01)


def test_eventually_awaits_a_coroutine_condition_until_it_holds() -> None:
    looks: list[int] = []

    async def third_look() -> bool:
        looks.append(len(looks))
        return len(looks) == 3

    asyncio.run(eventually(third_look, 30, "a third look", poll=0))
    assert len(looks) == 3


def test_within_gives_up_but_lets_the_awaited_timeout_through() -> None:
    async def own_timeout() -> None:
        raise TimeoutError("its own")

    async def scenario() -> None:
        never = asyncio.get_running_loop().create_future()
        with pytest.raises(AssertionError, match="waiting for a reply"):
            await within(never, 0.01, "a reply")
        with pytest.raises(TimeoutError, match="its own"):
            await within(own_timeout(), 30, "the coroutine")

    asyncio.run(scenario())


def test_a_message_made_on_failure_says_what_is_known_then() -> None:
    found: list[str] = []
    deadline = Deadline(0, lambda: f"the tables, still frozen: {found}")
    found.append("t1")
    with pytest.raises(AssertionError, match=r"still frozen: \['t1'\]"):
        deadline.check()

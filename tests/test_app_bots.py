"""The bots' process pool under load: searches asked past the pool's size share its time,
so that a crowd of hard tables makes each search shorter rather than every table wait;
and the quick levels' threads, whose answers come back through the loop."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import ai
from ai.hard import DEFAULT_BUDGET_S
from app.bots import MIN_BUDGET_S, BotRunner
from engine import Match, Options
from tests.conftest import app_settings


def test_searches_past_the_pool_size_share_the_budget() -> None:
    async def scenario() -> None:
        bots = BotRunner(app_settings(bot_processes=2).bots)
        await bots.start()
        try:
            match = Match(Options.make("bulgarian"), seed=1)
            seat = match.current_player()
            assert seat is not None
            observation = match.observation(seat)
            assert bots.budget_s() == DEFAULT_BUDGET_S

            async def crowd(size: int, budget: float) -> None:
                searches = [asyncio.create_task(bots.decide("hard", observation, seed))
                            for seed in range(size)]
                await asyncio.sleep(0)  # every one of them has asked the pool
                assert bots.budget_s() == pytest.approx(budget)
                for action in await asyncio.gather(*searches):
                    assert action in observation.legal_actions
                assert bots.budget_s() == DEFAULT_BUDGET_S  # answered: the pool is free

            await crowd(2, DEFAULT_BUDGET_S)  # a process for each
            assert DEFAULT_BUDGET_S * 2 / 3 > MIN_BUDGET_S  # three searches share it
            await crowd(3, DEFAULT_BUDGET_S * 2 / 3)
            await crowd(100, MIN_BUDGET_S)
            normal = [asyncio.create_task(bots.decide("normal", observation, seed))
                      for seed in range(8)]
            await asyncio.sleep(0)
            assert bots.budget_s() == DEFAULT_BUDGET_S  # threads, not the pool
            await asyncio.gather(*normal)
        finally:
            await bots.close()

    asyncio.run(asyncio.wait_for(scenario(), timeout=120))


def test_a_decision_is_answered_on_the_loop_unless_cancelled(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick levels' threads answer through the loop: with the move, with what the bot
    raised, and not at all once the table cancelled the decision."""

    async def scenario() -> None:
        bots = BotRunner(app_settings(bot_threads=1).bots)  # one thread: answers in order
        loop = asyncio.get_running_loop()
        answers: list[tuple[str, object, object]] = []
        done = asyncio.Event()

        def answer(name: str) -> Any:
            def answered(action: object, error: object) -> None:
                assert asyncio.get_running_loop() is loop  # on the loop, not a thread
                answers.append((name, action, error))
                done.set()
            return answered

        try:
            match = Match(Options.make("bulgarian"), seed=1)
            seat = match.current_player()
            assert seat is not None
            observation = match.observation(seat)
            dropped = bots.think("normal", observation, 1, answer("dropped"))
            dropped.cancel()  # before the loop could hear of it, whatever the thread did
            bots.think("normal", observation, 2, answer("kept"))
            await asyncio.wait_for(done.wait(), 30)
            assert [name for name, _, _ in answers] == ["kept"]
            assert answers[0][1] in observation.legal_actions and answers[0][2] is None

            def broken(*_: object) -> None:
                raise ValueError("a broken bot")

            monkeypatch.setattr(ai, "decide", broken)
            done.clear()
            bots.think("normal", observation, 3, answer("broken"))
            await asyncio.wait_for(done.wait(), 30)
            name, action, error = answers[-1]
            assert name == "broken" and action is None and isinstance(error, ValueError)
        finally:
            await bots.close()

    asyncio.run(asyncio.wait_for(scenario(), timeout=60))

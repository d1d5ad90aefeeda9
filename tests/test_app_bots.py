"""The bots' process pool under load: searches asked past the pool's size share its time,
so that a crowd of hard tables makes each search shorter rather than every table wait."""

from __future__ import annotations

import asyncio

import pytest

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

"""The review pool (app/analysis/pool.py): its workers run niced below the server, and a
review past its CPU budget is stopped.  The API tests run reviews un-niced
(tests/conftest.py), so the niceness is checked here; they follow a job's progress."""

from __future__ import annotations

import asyncio
import os

import pytest

from app.analysis.pool import OverBudget, ReviewPool
from tests.test_review import _cut, _one_deal

PART = _cut(_one_deal("bulgarian", 1), 12)  # the auction and the first trick: quick to judge


@pytest.mark.slow
def test_workers_run_niced() -> None:
    async def body() -> None:
        pool = ReviewPool(1, 5, cpu_seconds=300)
        pool.start()
        try:
            result = await pool.review("k", PART, 0, 1, lambda share: None)
            worker_nice = await asyncio.get_running_loop().run_in_executor(
                pool._pool, os.nice, 0)  # the worker asked for its own niceness
        finally:
            await pool.close()
        assert worker_nice == min(19, os.nice(0) + 5)
        assert result["decisions"]

    asyncio.run(body())


def test_a_review_past_its_cpu_budget_is_stopped() -> None:
    async def body() -> None:
        pool = ReviewPool(1, 0, cpu_seconds=1e-6)
        pool.start()
        try:
            with pytest.raises(OverBudget, match="CPU seconds"):
                await pool.review("k", PART, 0, 1, lambda share: None)
        finally:
            await pool.close()

    asyncio.run(body())

"""The analysis job services of a cluster's node, for tests/test_analysis_api.py, in a
module of their own: the node that test kills runs in a process of its own, which imports
only this (half the CPU of importing the test's module, which a loaded machine feels)."""

from __future__ import annotations

import asyncio
from typing import Any

from app.analysis import Analyses
from app.config import Settings
from app.db.session import Database
from app.limiter import Limiter
from app.shared import Keys, LocalShared, make_shared
from tests.services import redis_url


def node(url: str, prefix: str, name: str, **overrides: Any) -> tuple[Analyses, Database]:
    settings = Settings(database_url=url, redis_url=redis_url(), redis_prefix=prefix,
                        node_id=name, analysis_samples=1, analysis_nice=0, **overrides)
    database = Database(url)
    limiter = Limiter(LocalShared(Keys(prefix)).limits)  # the jobs' queue alone in Redis
    return Analyses(settings.analysis, database, limiter, make_shared(settings.cluster)), database


def hold_a_job(url: str, prefix: str, retry_seconds: float) -> None:
    """Node "a", which asks for the job and runs it until the test kills it."""
    async def body() -> None:
        analyses, _ = node(url, prefix, "a", analysis_retry_seconds=retry_seconds)
        await analyses.start()
        await analyses.request("done", None)
        await asyncio.Event().wait()

    asyncio.run(body())

"""A node's cluster loops ride a database outage out quietly: one WARNING line with the
reason when the database stops answering, one INFO line when it answers again, and no
traceback however many times the node tries meanwhile (an outage is expected:
docs/cluster.md).  The database is a stopped one (nothing listens on its port); Redis is
the machine's, under a key prefix of the test's own."""

from __future__ import annotations

import asyncio
import logging
import uuid

import pytest

from app.bots import BotRunner
from app.cluster import Cluster
from app.db.session import Database
from app.db.storage import DatabaseStorage
from app.shared import Keys, RedisShared
from app.tables import Lobby
from tests.cluster_nodes import REDIS_SERVER, delete_keys
from tests.conftest import app_settings
from tests.services import free_port
from tests.waiting import eventually

TRIES = 4  # readings of the log the node makes while the database is down
WAIT = 10  # seconds for them (a sweep every third of a 1 s lease)


@pytest.mark.redis
def test_a_stopped_database_is_one_warning_not_a_traceback_a_sweep(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    prefix = f"test-{uuid.uuid4().hex}:"
    stopped = f"postgresql://postgres@127.0.0.1:{free_port()}/belote"
    settings = app_settings(redis_url=REDIS_SERVER, redis_prefix=prefix, lease_seconds=1,
                            database_url=stopped)

    async def scenario() -> None:
        storage = DatabaseStorage(Database(stopped), fencing=True)
        shared = RedisShared.connect(REDIS_SERVER, Keys(prefix))
        lobby = Lobby(settings.tables, BotRunner(settings.bots), storage)
        cluster = Cluster(settings.cluster, lobby, storage, "key", shared)
        read = storage.repo.unfinished_ids
        tries: list[str] = []

        async def counted() -> list[str]:
            tries.append("read")
            return await read()

        monkeypatch.setattr(storage.repo, "unfinished_ids", counted)
        await cluster.start()
        try:
            await eventually(lambda: len(tries) >= TRIES, WAIT,
                             lambda: f"{TRIES} readings of the log: {tries}")
            assert cluster.available  # Redis answers: the leases are renewed all the while

            async def answered() -> list[str]:
                return []

            monkeypatch.setattr(storage.repo, "unfinished_ids", answered)  # the database is back
            await eventually(lambda: "cluster: database answers" in caplog.text, WAIT,
                             "the node to say the database answers again")
        finally:
            await cluster.close()
            await shared.close()
            await storage.repo.db.dispose()

    caplog.set_level(logging.INFO, logger="app.cluster")
    try:
        asyncio.run(scenario())
    finally:
        delete_keys(REDIS_SERVER, prefix)
    mine = [r for r in caplog.records if r.name.startswith("app.cluster")]
    assert not [r for r in mine if r.levelno >= logging.ERROR or r.exc_info], caplog.text
    warnings = [r.getMessage() for r in mine if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("cluster: database unavailable: ") and \
        "refused" in warnings[0].lower(), warnings[0]

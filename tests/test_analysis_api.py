"""Match analysis in the server (issue #17; docs/analysis.md, "In the server"): the REST
lifecycle on an app with its worker pool, a job the server's stop interrupted taken up at
the next start, and in a cluster (PostgreSQL and saq's queue on the local Redis, under a key
prefix of the test's own) one job taken once by two nodes, taken over when its node is
killed, and queued again when saq's sweep takes it from its live worker and loses it.
Reviews use one sample on a one-deal match: each takes a few seconds of CPU."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from saq import Status
from saq.queue.redis import RedisQueue
from sqlalchemy import delete, update

from app.analysis.jobs import MAX_RUNS
from app.analysis.queues import SaqQueue
from app.config import Settings
from app.db import analyses as rows
from app.db import models
from app.db.migrate import upgrade
from app.db.repository import Repository
from app.main import create_app
from app.shared import Keys
from app.storage import MemoryStorage
from engine import Options
from tests.analysis_nodes import node
from tests.cluster_nodes import REDIS_SERVER, ROOT
from tests.conftest import app_settings, run_server
from tests.test_db_support import opened, play_logged, run
from tests.test_matchmaking_queue import delete_keys
from tests.waiting import eventually, eventually_sync

pytest_plugins = ["tests.test_db_support"]  # the database fixtures

# Seconds a review may take here, at worst: 6 s of CPU alone (the one-deal match, one
# sample), a few usually; a whole run of the suite on a slow day, six workers and others'
# processes on the two cores, left it half done at 120 s.
DONE_WITHIN = 240.0
SWEPT_WITHIN = 30.0  # seconds for a step of saq's upkeep (1 or 2 s, usually)
# ANALYSIS_RETRY_SECONDS of the killed node's test: a loaded machine's node touches its job
# within it (at 1 s, a node's stalled loop let its own live job be swept).
HEARTBEAT = 5
# Seconds a test's fixtures may take at worst: the session's migrations of two databases,
# a few matches stored, on a loaded machine (30 s measured at a load of 30 on 2 cores).
FIXTURES_WITHIN = 60.0
# Seconds from the kill to the job done by node b: a minute for saq's sweep (two heartbeats,
# its 5 s wait for the dead worker, the 1 s retry delay) and b's pool to start, and a review.
TAKEN_OVER_WITHIN = 60.0 + DONE_WITHIN
SHORT = Options.make("bulgarian", target_score=10)  # over after its first scored deal


async def store_matches(url: str) -> None:
    """"done": a finished match, "on": one still on, "secret": a finished private one."""
    async with opened(url) as db:
        repo = Repository(db)
        await play_logged(repo, "done", SHORT, 3)
        await play_logged(repo, "on", SHORT, 3, stop_after=5)
        await play_logged(repo, "secret", SHORT, 4)
        async with db.write() as conn:
            await conn.execute(update(models.Match).where(models.Match.id == "secret")
                               .values(private=True))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'belote.db'}"
    upgrade(url)
    run(store_matches(url))
    return url


def app_client(url: str) -> TestClient:
    settings = app_settings(database_url=url, analysis_samples=1)
    return TestClient(create_app(settings, storage=MemoryStorage()))


def row(url: str, match_id: str) -> rows.AnalysisRow | None:
    async def read() -> rows.AnalysisRow | None:
        async with opened(url) as db:
            return await rows.get(db, match_id)
    return run(read())


def wait_done(client: TestClient, match_id: str, *, one_attempt: bool = True) -> dict[str, Any]:
    """The done job's GET; within one attempt, its progress only grows (a resumed job
    starts again from 0)."""
    seen: list[dict[str, Any]] = []

    def done() -> bool:
        response = client.get(f"/api/matches/{match_id}/analysis")
        assert response.status_code == 200, response.text
        seen.append(response.json())
        return bool(seen[-1]["status"] == "done")

    eventually_sync(done, DONE_WITHIN, lambda: f"the analysis of {match_id}: {seen[-1:]}")
    progress = [s["progress"] for s in seen]
    assert progress[-1] == 1 and (progress == sorted(progress) or not one_attempt)
    return seen[-1]


@pytest.mark.slow
def test_lifecycle(sqlite_url: str) -> None:
    with app_client(sqlite_url) as client:
        path = "/api/matches/done/analysis"
        assert client.get(path).json()["detail"]["code"] == "no_analysis"
        assert client.get(path).status_code == 404
        missing = client.post("/api/matches/nope/analysis")
        assert (missing.status_code, missing.json()["detail"]["code"]) == (404, "match_not_found")
        on = client.post("/api/matches/on/analysis")
        assert (on.status_code, on.json()["detail"]["code"]) == (409, "match_not_over")

        first = client.post(path)
        assert first.status_code == 202, first.text
        assert first.json()["status"] in ("queued", "running") and "result" not in first.json()
        again = client.post(path)  # the same job, whatever it is doing now
        assert again.status_code == 202 and again.json()["status"] in (
            "queued", "running", "done")

        body = wait_done(client, "done")
        review = body["result"]
        assert review["samples"] == 1 and len(review["seats"]) == 4
        assert review["decisions"] and {d["grade"] for d in review["decisions"]} <= {
            "good", "inaccuracy", "mistake", "blunder"}
        assert client.post(path).json() == {"status": "done", "progress": 1.0}

        # A private match's analysis is served as the match is: to whoever has its id.
        assert client.post("/api/matches/secret/analysis").status_code == 202
        assert wait_done(client, "secret")["result"]["decisions"]
    stored = row(sqlite_url, "done")
    assert stored is not None and stored.attempts == 1  # computed once
    assert stored.result == review


@pytest.mark.slow
@pytest.mark.timeout(FIXTURES_WITHIN + DONE_WITHIN)  # two starts and a review, then its wait
def test_restart_resumes_the_jobs_in_hand(sqlite_url: str) -> None:
    # A server without workers stops with its job still queued in the database.
    settings = app_settings(database_url=sqlite_url, analysis_workers=0)
    with TestClient(create_app(settings, storage=MemoryStorage())) as client:
        assert client.post("/api/matches/done/analysis").status_code == 202
    stopped = row(sqlite_url, "done")
    assert stopped is not None and stopped.status == "queued"
    with app_client(sqlite_url) as client:
        wait_done(client, "done", one_attempt=False)
    resumed = row(sqlite_url, "done")
    assert resumed is not None and resumed.attempts == stopped.attempts + 1


def test_a_job_run_as_often_as_allowed_is_given_up_not_run_again(sqlite_url: str) -> None:
    """A job that storage failed MAX_RUNS times (each run counted as it starts) fails when
    it comes back, rather than be reviewed again each time the queue gives it back."""
    settings = app_settings(database_url=sqlite_url, analysis_workers=0)
    with TestClient(create_app(settings, storage=MemoryStorage())) as client:
        assert client.post("/api/matches/done/analysis").status_code == 202

    async def worn() -> None:
        async with opened(sqlite_url) as db, db.write() as conn:
            await conn.execute(update(models.Analysis).where(models.Analysis.match_id == "done")
                               .values(attempts=MAX_RUNS))
    run(worn())
    with app_client(sqlite_url) as client:
        def failed() -> bool:
            return bool(client.get("/api/matches/done/analysis").json()["status"] == "failed")
        eventually_sync(failed, DONE_WITHIN, "the worn job failed")
    given_up = row(sqlite_url, "done")
    assert given_up is not None and given_up.attempts == MAX_RUNS
    assert given_up.error == f"given up after {MAX_RUNS} runs" and given_up.result is None


def test_a_full_queue_refuses_a_new_job_not_an_old_one(sqlite_url: str) -> None:
    # No worker here: the first job waits, and fills a queue of one.
    settings = app_settings(database_url=sqlite_url, analysis_workers=0, analysis_queue_max=1)
    with TestClient(create_app(settings, storage=MemoryStorage())) as client:
        assert client.post("/api/matches/done/analysis").status_code == 202
        full = client.post("/api/matches/secret/analysis")
        assert (full.status_code, full.json()["detail"]["code"]) == (429, "too_many_analyses")
        assert full.headers["Retry-After"] == "60"
        assert row(sqlite_url, "secret") is None  # nothing stored for the refused one
        assert client.post("/api/matches/done/analysis").status_code == 202  # asked again


def test_an_address_asks_for_so_many_new_analyses_a_window(sqlite_url: str) -> None:
    """One visitor cannot fill the queue for everyone: past ANALYSES_PER_ADDRESS new jobs
    in the window its next new one is refused (429, with the window's rest); asking for
    one it already has still answers, and costs nothing."""
    settings = app_settings(database_url=sqlite_url, analysis_workers=0,
                            analyses_per_address=1, analysis_window=600)
    with TestClient(create_app(settings, storage=MemoryStorage())) as client:
        assert client.post("/api/matches/done/analysis").status_code == 202
        assert client.post("/api/matches/done/analysis").status_code == 202  # the same job
        refused = client.post("/api/matches/secret/analysis")
        assert (refused.status_code, refused.json()["detail"]["code"]) == (
            429, "too_many_analyses_for_you")
        assert 590 <= int(refused.headers["Retry-After"]) <= 600
        assert row(sqlite_url, "secret") is None
        assert client.post("/api/matches/done/analysis").status_code == 202


async def store_more(url: str, match_ids: list[str]) -> None:
    async with opened(url) as db:
        for seed, match_id in enumerate(match_ids):
            await play_logged(Repository(db), match_id, SHORT, seed)


def test_a_burst_of_new_analyses_stops_at_the_limit(sqlite_url: str) -> None:
    """Six new analyses asked for at once from one address, two allowed: two are made,
    however the six interleave (each is counted before its job is)."""
    matches = ["done", "secret"] + [f"more{i}" for i in range(4)]
    run(store_more(sqlite_url, matches[2:]))
    settings = app_settings(database_url=sqlite_url, analysis_workers=0,
                            analyses_per_address=2)

    async def burst(base: str) -> None:
        async with httpx2.AsyncClient(timeout=30) as http:
            answers = await asyncio.gather(*(
                http.post(f"{base}/api/matches/{match_id}/analysis") for match_id in matches))
        assert Counter(a.status_code for a in answers) == {202: 2, 429: 4}
        assert {a.json()["detail"]["code"] for a in answers if a.status_code == 429} == {
            "too_many_analyses_for_you"}

    with contextmanager(run_server)(settings) as server:
        run(burst(server.http))
    assert sum(row(sqlite_url, match_id) is not None for match_id in matches) == 2


# In a cluster: the jobs go through saq's Redis queue; two nodes share it and the database.

@pytest.fixture
def cluster_url(migrated_urls: dict[str, str]) -> Iterator[str]:
    url = migrated_urls["postgresql"]
    run(_reset(url))
    run(store_matches(url))
    yield url


async def _reset(url: str) -> None:
    async with opened(url) as db, db.write() as conn:
        for table in (models.Analysis, models.Match, models.Player):
            await conn.execute(delete(table))


@pytest.fixture
def prefix() -> Iterator[str]:
    prefix = f"test-analysis-{uuid.uuid4().hex[:12]}:"
    yield prefix
    delete_keys(prefix)
    delete_keys(f"saq:*{prefix}")  # saq's keys: saq:{queue}:..., saq:job:{queue}:...


async def until_done(url: str, match_id: str, within: float = DONE_WITHIN) -> rows.AnalysisRow:
    async with opened(url) as db:
        async def done() -> bool:
            found = await rows.get(db, match_id)
            return found is not None and found.status == "done"
        await eventually(done, within, f"the analysis of {match_id}")
        found = await rows.get(db, match_id)
        assert found is not None
        return found


@pytest.mark.postgres
@pytest.mark.redis
def test_two_nodes_take_one_job_once(cluster_url: str, prefix: str) -> None:
    async def body() -> None:
        nodes = [node(cluster_url, prefix, name) for name in ("a", "b")]
        try:
            for analyses, _ in nodes:
                await analyses.start()
            (a, _), (b, _) = nodes
            await asyncio.gather(a.request("done", None), b.request("done", None),
                                 a.request("done", None))
            done = await until_done(cluster_url, "done")
            assert done.attempts == 1 and done.result is not None
        finally:
            for analyses, database in nodes:
                await analyses.close()
                await database.dispose()

    run(body())


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.timeout(FIXTURES_WITHIN + DONE_WITHIN + TAKEN_OVER_WITHIN)  # its fixtures, waits
def test_a_dead_nodes_job_is_taken_over(cluster_url: str, prefix: str) -> None:
    code = ("from tests.analysis_nodes import hold_a_job; "
            f"hold_a_job({cluster_url!r}, {prefix!r}, {HEARTBEAT})")
    a = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)

    async def body() -> None:
        b, b_db = node(cluster_url, prefix, "b", analysis_retry_seconds=HEARTBEAT)
        try:
            async def taken() -> bool:
                assert a.poll() is None, "node a ended by itself"
                found = await rows.get(b_db, "done")
                return found is not None and found.status == "running"

            await eventually(taken, DONE_WITHIN, "node a to start and take the job")
            a.kill()  # SIGKILL: no heartbeat any more, nothing handed back
            a.wait()
            await b.start()
            done = await until_done(cluster_url, "done", TAKEN_OVER_WITHIN)
            assert done.attempts == 2 and done.result is not None
        finally:
            await b.close()
            await b_db.dispose()

    try:
        run(body())
    finally:
        a.kill()
        a.wait()


@pytest.mark.redis
def test_a_job_saqs_sweep_takes_from_its_live_worker_is_not_lost(
        prefix: str, caplog: pytest.LogCaptureFixture) -> None:
    """saq's sweep aborts a job it finds in the running list while not marked running (a
    worker has just taken it, and marks it a moment later); the live worker confirms the
    abort by ending the job, which deletes it, so saq never retries it.  The job, still
    pending in the database (here: ``pending``), is queued again and run to its end, and
    the sweep's error about the job gone is no error of saq's upkeep."""
    runs: list[str] = []
    ended = asyncio.Event()

    async def analyse(match_id: str) -> None:
        runs.append("started")
        if len(runs) == 1:
            try:
                await asyncio.Event().wait()  # the first run only ends if it is cancelled
            except asyncio.CancelledError:
                runs.append("cancelled")
                raise
        ended.set()

    async def pending() -> list[str]:
        return [] if ended.is_set() else ["m"]

    async def body() -> None:
        settings = replace(Settings().analysis, redis_url=REDIS_SERVER, node_id="a",
                           analysis_retry_seconds=2)
        name = Keys(prefix).analysis
        queue = SaqQueue(analyse, settings, name, pending)
        saq = RedisQueue.from_url(REDIS_SERVER, name=name)
        try:
            await queue.start()
            await queue.put("m")
            await eventually(lambda: runs == ["started"], SWEPT_WITHIN, "the job to start")
            job = await saq.job("m")
            assert job is not None and job.status == Status.ACTIVE
            await saq.update(job, status=Status.QUEUED)  # as the sweep can find it
            await eventually(ended.is_set, SWEPT_WITHIN, lambda: f"the job to run again: {runs}")
            assert runs == ["started", "cancelled", "started"]
            await eventually(lambda: _gone(saq), SWEPT_WITHIN, "saq to end the job")
        finally:
            await queue.close()
            await saq.disconnect()

    run(body())
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def _gone(saq: RedisQueue) -> bool:
    return await saq.job("m") is None

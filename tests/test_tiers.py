"""The test tiers (tests/tiers.py): a test that reaches PostgreSQL, Redis or a ``python -m
app`` without its marker fails, saying which marker it lacks; ``e2e`` implies
``processes``; and a run whose PostgreSQL and Redis do not answer starts throwaway ones,
which xdist's workers share.  Each case runs pytest in a process of its own on a small
test file, with this project's markers and plugin."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import services
from tests.tiers import selects

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
FAST = "not (postgres or redis or processes or e2e or slow)"
# Seconds for a run that starts its own PostgreSQL (initdb) and Redis and two workers:
# under a minute on an idle machine, past two minutes on a loaded one.
THROWAWAY_RUN = 300


@pytest.fixture
def stand_ins() -> Iterator[tuple[str, str]]:
    """A PostgreSQL and a Redis URL on loopback ports that accept connections (and say
    nothing): enough for the plugin, which then starts no throwaway server."""
    with socket.socket() as postgres, socket.socket() as redis:
        for server in (postgres, redis):
            server.bind(("127.0.0.1", 0))
            server.listen()
        yield (f"postgresql://postgres@127.0.0.1:{postgres.getsockname()[1]}/postgres",
               f"redis://127.0.0.1:{redis.getsockname()[1]}/0")


def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
        services_at: tuple[str, str], *args: str) -> pytest.RunResult:
    """pytest on the test files made in ``pytester``'s folder, with the project's markers
    and the tiers plugin, PostgreSQL and Redis configured at ``services_at``."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv(services.POSTGRES, services_at[0])
    monkeypatch.setenv(services.REDIS, services_at[1])
    return pytester.runpytest_subprocess(
        "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(pytester.path),
        "-p", "tests.tiers", "-p", "no:cacheprovider", *args, str(pytester.path))


def test_reaching_a_service_or_a_server_process_needs_its_marker(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
        stand_ins: tuple[str, str]) -> None:
    port = services.address(stand_ins[0])[1]
    pytester.makepyfile(test_reach=f"""
        import contextlib, socket, subprocess
        import pytest

        def reach():
            socket.create_connection(("127.0.0.1", {port}), timeout=5).close()

        def start():
            with contextlib.suppress(OSError):
                subprocess.run(["/nonexistent/python", "-m", "app"])

        def test_unmarked_reaches_postgres():
            reach()

        @pytest.mark.postgres
        def test_marked_reaches_postgres():
            reach()

        @pytest.fixture
        def in_setup():
            reach()

        def test_unmarked_reaches_it_in_a_fixture(in_setup):
            pass

        def test_unmarked_starts_the_app():
            start()

        @pytest.mark.processes
        def test_marked_starts_the_app():
            start()

        @pytest.mark.e2e
        def test_e2e_starts_the_app():
            start()

        def test_unmarked_reaches_nothing():
            pass
    """)
    result = run(pytester, monkeypatch, stand_ins)
    result.assert_outcomes(passed=4, failed=2, errors=1)
    result.stdout.fnmatch_lines([
        "*ERROR at setup of test_unmarked_reaches_it_in_a_fixture*",
        f"this test reached PostgreSQL at 127.0.0.1:{port} without the `postgres` marker: "
        "add it (docs/testing.md)",
        "*test_unmarked_reaches_postgres*",
        f"this test reached PostgreSQL at 127.0.0.1:{port} without the `postgres` marker: "
        "add it (docs/testing.md)",
        "*test_unmarked_starts_the_app*",
        "this test started `python -m app` without the `processes` marker: add it*",
    ])


def test_e2e_tests_are_processes_tests(pytester: pytest.Pytester,
                                       monkeypatch: pytest.MonkeyPatch,
                                       stand_ins: tuple[str, str]) -> None:
    pytester.makepyfile(test_kinds="""
        import pytest

        @pytest.mark.e2e
        def test_in_the_browser():
            pass

        def test_plain():
            pass
    """)
    result = run(pytester, monkeypatch, stand_ins, "-m", "not processes")
    result.assert_outcomes(passed=1, deselected=1)


def test_a_port_is_handed_out_once_a_run_in_every_process(monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    """free_port's marks (BELOTE_TEST_PORTS): a port handed out, in this process or in
    another sharing the run's folder, is never handed out again."""
    monkeypatch.setenv(services.PORTS, str(tmp_path))
    first = services.free_port()
    assert not services.handed_out(first)
    other = subprocess.run(
        [sys.executable, "-c", "from tests.services import handed_out; "
         f"print(handed_out({first}), handed_out({first + 1}))"],
        env=os.environ | {"PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        check=True, timeout=60).stdout.split()
    assert other == ["False", "True"]
    original, picks = random.randrange, [first, first + 1]
    monkeypatch.setattr(random, "randrange", lambda *span: picks.pop(0) if picks
                        else original(*span))
    port = services.free_port()
    assert not picks and port not in (first, first + 1)


def test_the_fast_tier_needs_no_service() -> None:
    for tier in ("postgres", "redis"):
        assert not selects(FAST, tier)
        assert selects("", tier)
        assert selects("not processes", tier)
    assert selects("redis", "postgres")  # a cluster test needs both
    assert not selects("not postgres", "postgres")
    assert selects("slow", "postgres")  # a slow test may need PostgreSQL too
    assert not selects("slow and not postgres", "postgres")


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.timeout(THROWAWAY_RUN)
def test_a_run_starts_throwaway_services_its_workers_share(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """PostgreSQL and Redis at closed ports: the run starts its own before the workers
    do, every worker uses the same ones, and they are gone when the run ends."""
    seen = tmp_path / "seen"
    seen.mkdir()
    pytester.makepyfile(**{f"test_worker_{n}": f"""
        import asyncio, os, pathlib
        import asyncpg, pytest, redis

        @pytest.mark.postgres
        @pytest.mark.redis
        def test_the_services_answer():
            postgres = os.environ["{services.POSTGRES}"]
            redis_url = os.environ["{services.REDIS}"]

            async def ask():
                connection = await asyncpg.connect(postgres)
                try:
                    return await connection.fetchval("SELECT 1")
                finally:
                    await connection.close()

            assert asyncio.run(ask()) == 1
            with redis.Redis.from_url(redis_url) as client:
                assert client.ping()
            pathlib.Path({str(seen)!r}, "{n}").write_text(postgres + " " + redis_url)
    """ for n in (1, 2)})
    closed = (f"postgresql://postgres@127.0.0.1:{services.free_port()}/postgres",
              f"redis://127.0.0.1:{services.free_port()}/0")
    result = run(pytester, monkeypatch, closed, "-n", "2", "--dist", "loadfile")
    result.assert_outcomes(passed=2)
    used = {path.read_text() for path in seen.iterdir()}
    assert len(used) == 1, used  # one PostgreSQL and one Redis for both workers
    postgres, redis_url = used.pop().split()
    assert (postgres, redis_url) != closed
    assert not services.answers(postgres) and not services.answers(redis_url)

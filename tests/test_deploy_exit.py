"""The server process ending badly: ``python -m app`` killed with SIGKILL leaves no child
behind (the bot pool's workers, multiprocessing's resource tracker), and SIGTERM with the
database stalled still ends its app within ``SHUTDOWN_TIMEOUT`` and a small margin, and
its process exits.

Real processes on loopback; PostgreSQL sits behind a proxy the test can stall."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from app.bots import EXIT_TIMEOUT, BotRunner
from app.db.migrate import upgrade
from tests.conftest import app_settings
from tests.migrated import migrated_database
from tests.test_db_support import PG_SERVER, run
from tests.test_deploy_server import Deployed, new_match
from tests.test_recovery import LAST_RESORT, SERVER_STOP, guarded, play
from tests.waiting import eventually

GUARD = 60  # seconds: a hang fails the test instead of blocking the suite
ORPHAN_WAIT = 10  # seconds the children may take to notice their parent is gone
SHUTDOWN_TIMEOUT = 4  # short, to keep the test short
TABLES = 4  # playing at once when the database stalls
MARGIN = 3  # seconds beyond SHUTDOWN_TIMEOUT for the app's shutdown, by its own log


# A process: its pid and its start time (in clock ticks since boot).  A pid alone may name
# another process later: the kernel hands a freed one out again, and a run of the suite
# starts thousands of processes under a pid_max of 32,768.
Process = tuple[int, int]


def stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of a process, None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text.rsplit(")", 1)[1].split()  # the name may hold spaces
    return fields[0], int(fields[1]), int(fields[19])


def started(pid: int) -> Process | None:
    found = stat(pid)
    return None if found is None else (pid, found[2])


def alive(process: Process) -> bool:
    """Running, not a zombie waiting for a parent (init here may not reap it), and not
    another process under the same pid."""
    pid, start = process
    found = stat(pid)
    return found is not None and found[0] != "Z" and found[2] == start


def children(pid: int) -> list[Process]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (info := stat(int(entry.name))) and info[1] == pid:
            found.append((int(entry.name), info[2]))
    return found


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'belote.db'}"
    upgrade(url)
    yield url


async def killed(database_url: str, log: Path) -> None:
    server = Deployed(database_url, log)
    del server.env["REDIS_URL"]  # one process on SQLite: what matters here are its children
    await server.start()
    assert server.process is not None
    try:
        left = children(server.process.pid)
        lines = [cmdline(pid) for pid, _ in left]
        assert any("spawn_main" in line for line in lines), lines  # the bot pool's worker
        assert any("resource_tracker" in line for line in lines), lines
    finally:
        server.process.kill()
        await server.process.wait()
    try:
        await eventually(lambda: not any(map(alive, left)), ORPHAN_WAIT,
                         f"the killed server's children to exit: {lines}")
    finally:
        for pid, _ in filter(alive, left):  # not left behind for the next test either
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.processes
@pytest.mark.timeout(guarded(1) + LAST_RESORT)
def test_sigkill_leaves_no_child_behind(sqlite_url: str, tmp_path: Path) -> None:
    run(asyncio.wait_for(killed(sqlite_url, tmp_path / "server.log"), guarded(1)))


async def busy_pool() -> None:
    bots = BotRunner(app_settings(bot_processes=1).bots)
    await bots.start()
    pool = bots._pool
    worker = started(await asyncio.wrap_future(pool.submit(os.getpid)))
    assert worker is not None
    search = pool.submit(time.sleep, GUARD)  # a search that would outlast any shutdown
    await eventually(search.running, GUARD, "the worker to take the search (no longer "
                     "cancellable)", poll=0.01)
    await asyncio.wait_for(bots.close(), EXIT_TIMEOUT + MARGIN)
    await eventually(lambda: not alive(worker), MARGIN, "the pool's worker to exit")


def test_closing_the_bots_does_not_wait_for_a_long_search() -> None:
    run(asyncio.wait_for(busy_pool(), GUARD))


class StallingProxy:
    """Forwards a loopback port to the database server until :meth:`stall`; from then on
    it holds every byte, both ways, and keeps the sockets open: a server that hangs."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []
        self._pipes: set[asyncio.Task[object]] = set()
        self._closed = False

    async def open(self) -> None:
        self._server = await asyncio.start_server(self._pipe, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def stall(self) -> None:
        self._flowing.clear()

    async def close(self) -> None:
        assert self._server is not None
        self._server.close()
        self._closed = True
        self._flowing.set()  # the held bytes are dropped, the pipes end
        for writer in self._writers:
            writer.close()
        await asyncio.gather(*self._pipes, return_exceptions=True)

    async def _forwarding(self) -> bool:
        await self._flowing.wait()
        return not self._closed

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._pipes.add(task)
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self._writers += [writer, up_writer]

        async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError):
                while (data := await source.read(65536)) and await self._forwarding():
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(copy(reader, up_writer), copy(up_reader, writer))


async def stalled(pg_url: str, log: Path) -> None:
    url = make_url(pg_url)
    proxy = StallingProxy(url.host or "127.0.0.1", url.port or 5432)
    await proxy.open()
    server = Deployed(url.set(host="127.0.0.1", port=proxy.port).render_as_string(False), log)
    server.env |= {"SHUTDOWN_TIMEOUT": str(SHUTDOWN_TIMEOUT)}
    try:
        await server.start()
        assert server.process is not None
        sockets = [(await new_match(server))[2] for _ in range(TABLES)]
        # Tables writing at once: the pool holds several connections.
        await asyncio.gather(*(play(ws, random.Random(seed), until=20)
                               for seed, ws in enumerate(sockets)))
        proxy.stall()
        server.process.send_signal(signal.SIGTERM)
        began = time.monotonic()
        # The process's exit, after the app's shutdown, takes seconds more on a loaded
        # machine (the interpreter's teardown): its bound is SERVER_STOP; the app's own
        # shutdown is timed by its log's clock.
        try:
            code = await asyncio.wait_for(server.process.wait(), SERVER_STOP)
        except TimeoutError:
            pytest.fail(f"still running {time.monotonic() - began:.1f} s after SIGTERM:\n"
                        + log.read_text()[-3000:])
        assert code == 0, log.read_text()[-3000:]
        took = shutdown_seconds(log)
        assert took < SHUTDOWN_TIMEOUT + MARGIN, (took, log.read_text()[-3000:])
    finally:
        if server.process is not None and server.process.returncode is None:
            server.process.kill()
            await server.process.wait()
        await proxy.close()


def shutdown_seconds(log: Path) -> float:
    """Seconds from uvicorn's "Shutting down" to its "Application shutdown complete." by
    the times of the server's JSON log lines."""
    times = {}
    for line in log.read_text().splitlines():
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            if entry.get("message") in ("Shutting down", "Application shutdown complete."):
                times[entry["message"]] = datetime.fromisoformat(entry["time"])
    return (times["Application shutdown complete."] - times["Shutting down"]).total_seconds()


@pytest.mark.postgres
@pytest.mark.processes
@pytest.mark.timeout(guarded(1) + LAST_RESORT)
def test_sigterm_exits_with_the_database_stalled(tmp_path: Path) -> None:
    # A database of its own: the server restores whatever unfinished matches it finds.
    with migrated_database(PG_SERVER, "belote_exit") as url:
        run(asyncio.wait_for(stalled(url, tmp_path / "server.log"), guarded(1)))

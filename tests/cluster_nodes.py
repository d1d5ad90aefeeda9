"""Several real ``python -m app`` nodes of one cluster for a test (tests/test_cluster.py).

:func:`cluster_of` makes a fresh PostgreSQL database (migrated to head), picks a Redis key
prefix of the test's own (or uses a private ``redis-server`` the test may kill and
restart: tests/services.py's :class:`OwnRedis`), starts the nodes on loopback ports, waits for their
``/readyz``, and at the end kills whatever still runs, deletes the prefix's keys and
drops the database.  Each node writes its log to a file; :meth:`Cluster.run` prints the
tails of every node's log when the test's coroutine fails, so the failure shows them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
import traceback
import uuid
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import redis

from tests.migrated import migrated_database
from tests.services import OwnRedis as OwnRedis  # tests/test_cluster.py's, from here
from tests.services import free_port, postgres_url, redis_url
from tests.waiting import eventually_sync

ROOT = Path(__file__).resolve().parents[1]
PG_SERVER = postgres_url()  # tests/services.py: the run's servers, set before any import
REDIS_SERVER = redis_url()
SECRET = "cluster-test-secret-key-0123456789abcdefghijklmnop"  # shared by every node
# Seconds a node may take to answer /readyz: about 3 s of CPU, but three nodes starting
# at once on a loaded machine took over 60.
NODE_START = 120
NODE_EXIT = 40  # seconds a node may take to exit on SIGTERM
LOG_TAIL = 80  # lines of each node's log shown with a failure
T = TypeVar("T")


class Node:
    """One ``python -m app`` process; its output goes to ``log``."""

    def __init__(self, node_id: str, folder: Path, env: dict[str, str]) -> None:
        self.id = node_id
        self.port = free_port()
        self.http = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"node-{node_id}.log"
        self.env = env | {"NODE_ID": node_id}
        self.cwd = folder  # away from the project's .env and data/
        self.process: subprocess.Popen[bytes] | None = None

    def ws(self, table_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/api/tables/{table_id}/ws"

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(self.port)],
                env=self.env, cwd=self.cwd, stdout=out, stderr=subprocess.STDOUT,
            )

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def ready(self) -> bool:
        """Whether the node answers ``/readyz`` with 200 (False while it starts)."""
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"node {self.id} exited with {self.process.returncode}:\n"
                                 f"{self.tail()}")
        with contextlib.suppress(httpx2.TransportError):
            return httpx2.get(f"{self.http}/readyz", timeout=2).status_code == 200
        return False

    def starting(self) -> str:
        return f"node {self.id} to be ready:\n{self.tail()}"

    def signal(self, signum: signal.Signals) -> None:
        assert self.process is not None
        self.process.send_signal(signum)

    def stopped(self) -> bool:
        """Whether the process is stopped (SIGSTOP has taken effect)."""
        assert self.process is not None
        stat = Path(f"/proc/{self.process.pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] in ("T", "t")

    def kill(self) -> None:
        """SIGKILL, and wait for the process to be gone."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGCONT)  # a stopped process dies only once resumed
        self.process.kill()
        self.process.wait(timeout=NODE_EXIT)

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def tail(self, lines: int = LOG_TAIL) -> str:
        return "\n".join(self.text().splitlines()[-lines:])


class Cluster:
    """The nodes of one test, by id ("A", "B", ...), on one database and key prefix."""

    def __init__(self, folder: Path, database_url: str, redis_url: str, prefix: str,
                 ids: list[str], env: dict[str, str]) -> None:
        self.folder = folder
        self.database_url = database_url
        self.redis_url = redis_url
        self.prefix = prefix
        base = os.environ | {
            "PYTHONPATH": str(ROOT),
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "REDIS_PREFIX": prefix,
            "SECRET_KEY": SECRET,
            "LEASE_SECONDS": "2",
            "BOT_DELAY": "0.05",
            "BOT_PROCESSES": "1",
            "DEFAULT_TURN_SECONDS": "600",  # the human's timer never plays for the test
            "WS_RATE": "10000",  # the test acts as fast as the bots
            "WS_BURST": "10000",
            "REST_RATE_PER_TOKEN": "100000/second",
            "REST_RATE_PER_ADDRESS": "100000/second",
            "LOG_LEVEL": "info",
        } | env
        self.nodes = {node_id: Node(node_id, folder, base) for node_id in ids}
        self.extra: list[Path] = []  # more logs to show with a failure (Redis's, ...)

    def __getitem__(self, node_id: str) -> Node:
        return self.nodes[node_id]

    def start(self, *ids: str) -> None:
        """Start the nodes (every one by default) and wait until each is ready."""
        chosen = [self.nodes[i] for i in ids or self.nodes]
        for node in chosen:
            node.start()
        for node in chosen:
            eventually_sync(node.ready, NODE_START, node.starting, poll=0.1)

    def close(self) -> None:
        for node in self.nodes.values():
            node.kill()

    def errors(self) -> list[str]:
        """The ERROR lines of the nodes' logs, each traceback's exception after its line
        (none is expected)."""
        found = []
        for node in self.nodes.values():
            lines = node.text().splitlines()
            for index, line in enumerate(lines):
                if " ERROR " in line:
                    found.append(f"{node.id}: {line}")
                elif line.startswith("Traceback"):
                    raised = next((later for later in lines[index + 1:]
                                   if later and not later.startswith(" ")), "?")
                    found.append(f"{node.id}:   {raised}")
        return found

    def logs(self) -> str:
        parts = [f"----- node {n.id} (port {n.port}) log, last {LOG_TAIL} lines -----\n"
                 f"{n.tail()}" for n in self.nodes.values()]
        parts += [f"----- {path.name} -----\n{path.read_text(errors='replace')}"
                  for path in self.extra if path.exists()]
        return "\n".join(parts)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run the test's coroutine on a loop of its own; on any failure (a timeout of
        pytest-timeout too) print every node's log first, for the failure report."""
        try:
            return asyncio.run(coro)
        except BaseException:
            print(traceback.format_exc())
            print(self.logs())
            raise


def delete_keys(redis_url: str, prefix: str) -> None:
    """Every key under ``prefix`` (SCAN, then DEL): another test's or site's stay."""
    with redis.Redis.from_url(redis_url, socket_timeout=5) as client:
        keys = list(client.scan_iter(match=f"{prefix}*", count=500))
        for start in range(0, len(keys), 500):
            client.delete(*keys[start:start + 500])


@contextlib.contextmanager
def cluster_of(folder: Path, ids: str = "AB", *, redis_url: str | None = None,
               env: dict[str, str] | None = None, start: bool = True,
               postgres: str = PG_SERVER) -> Iterator[Cluster]:
    """Nodes ``ids`` ("AB": nodes A and B) of a new cluster: a fresh migrated database
    on ``postgres`` (the machine's server by default), a key prefix of its own on
    ``redis_url`` (the machine's Redis by default), each node started and ready (unless
    ``start`` is False).  Everything is killed, deleted and dropped on exit."""
    prefix = f"test-{uuid.uuid4().hex}:"
    url = redis_url or REDIS_SERVER
    with migrated_database(postgres, "belote_cluster") as database_url:
        cluster = Cluster(folder, database_url, url, prefix, list(ids), env or {})
        try:
            if start:
                began = time.monotonic()
                cluster.start()
                print(f"{len(ids)} nodes ready in {time.monotonic() - began:.1f} s")
            yield cluster
        finally:
            cluster.close()
            with contextlib.suppress(redis.RedisError):  # a private Redis may be down
                delete_keys(url, prefix)

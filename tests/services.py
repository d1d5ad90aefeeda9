"""Where the tests find PostgreSQL and Redis: one place, each with an environment override.

``BELOTE_TEST_POSTGRES`` is a server on which the tests create databases of their own and
drop them (default: the local one, user ``postgres``, trust authentication);
``BELOTE_TEST_REDIS`` is a Redis in which every test keeps to a key prefix of its own.
Read them through :func:`postgres_url` and :func:`redis_url`, never at import of this
module: when nothing answers on an address, tests/tiers.py starts a throwaway server for
the run and points the variable at it, before any test module is imported.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import redis

from tests.waiting import eventually_sync

POSTGRES = "BELOTE_TEST_POSTGRES"
REDIS = "BELOTE_TEST_REDIS"
PORTS = "BELOTE_TEST_PORTS"  # the folder of the run's ports handed out (free_port)
DEFAULTS = {
    POSTGRES: "postgresql://postgres@127.0.0.1:5432/postgres",
    REDIS: "redis://127.0.0.1:6379/0",
}
DEFAULT_PORTS = {"postgresql": 5432, "redis": 6379}
REDIS_BINARY = shutil.which("redis-server") or "/usr/bin/redis-server"
REDIS_START = 10  # seconds a redis-server may take to answer


def postgres_url() -> str:
    return os.environ.get(POSTGRES, DEFAULTS[POSTGRES])


def redis_url() -> str:
    return os.environ.get(REDIS, DEFAULTS[REDIS])


def address(url: str) -> tuple[str, int]:
    """The host and port a service URL points at."""
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or DEFAULT_PORTS[parts.scheme]


def answers(url: str, timeout: float = 1.0) -> bool:
    """Whether something accepts a TCP connection at the URL's host and port."""
    try:
        with socket.create_connection(address(url), timeout=timeout):
            return True
    except OSError:
        return False


def free_port() -> int:
    """A loopback port free now, for a server a test starts, below the kernel's ephemeral
    range: any outgoing connection (every test's clients of PostgreSQL and Redis) may be
    given a port of that range between this look and the server's bind ("address already
    in use"), which six workers on a busy machine made happen.  Never handed out twice in a
    run (:func:`handed_out`): a server binds its port once started, tens of seconds later
    on a loaded machine, and two workers that had picked the same port meanwhile made two
    tests share one server."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    while True:
        port = random.randrange(max(1024, low - 12_000), low)
        if not handed_out(port):
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:  # taken: another
                continue
            return port


def handed_out(port: int) -> bool:
    """Mark ``port`` handed out; False if it was already.  The marks are files in the run's
    folder (``BELOTE_TEST_PORTS``, made by tests/tiers.py where xdist's workers start, so
    that they and any run a test starts share it), else this process's own."""
    folder = os.environ.get(PORTS)
    if folder is None:
        if port in _HANDED_OUT:
            return False
        _HANDED_OUT.add(port)
        return True
    try:
        os.close(os.open(Path(folder) / str(port), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


_HANDED_OUT: set[int] = set()


class OwnRedis:
    """A ``redis-server`` on a free loopback port, without persistence, so that a restart
    brings it back empty (as a lost Redis would be): a test's own (tests/test_cluster.py)
    or the run's, when none answers on ``BELOTE_TEST_REDIS``."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.folder = folder
        self.log = folder / "redis.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [REDIS_BINARY, "--port", str(self.port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--dir", str(self.folder)],
                stdout=out, stderr=subprocess.STDOUT,
            )

        def answers() -> bool:
            assert self.process is not None and self.process.poll() is None, \
                f"redis-server exited: {self.log.read_text()}"
            with contextlib.suppress(redis.RedisError), \
                    redis.Redis.from_url(self.url, socket_timeout=1) as client:
                return bool(client.ping())
            return False

        eventually_sync(answers, REDIS_START, f"redis-server on port {self.port} to answer")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

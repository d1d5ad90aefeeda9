"""The test tiers (docs/testing.md): what a test needs beyond Python, as a marker.

- ``postgres``: a PostgreSQL server (``BELOTE_TEST_POSTGRES``, or one of its own);
- ``redis``: a Redis (``BELOTE_TEST_REDIS``, or one of its own);
- ``processes``: ``python -m app`` in processes of its own;
- ``e2e``: Debian's Chromium driving the browser client (tests/e2e), which talks to a
  ``python -m app``: every ``e2e`` test is also a ``processes`` one.

A test without any of them needs nothing: ``make test-fast`` runs those alone, less the
``slow`` ones (a tier of time, chosen by measurement, which nothing here checks).

An audit hook keeps the markers true: during each test's setup and call it watches for
what the tiers stand for (a connection to the configured PostgreSQL or Redis, the start of
a ``python -m app``, a PostgreSQL or Redis server, Playwright's driver) and fails the test
that does it without the marker.  And when nothing answers on the configured PostgreSQL or
Redis, the run starts a throwaway one of its own (if its ``-m`` may select a test that
needs it), so that ``make test`` needs nothing but the installed packages.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable, Generator, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from _pytest.mark.expression import Expression  # pytest is pinned (pyproject.toml)

from tests import services
from tests.own_postgres import own_postgres

TIERS = ("postgres", "redis", "processes", "e2e")
POSTGRES_PROGRAMS = {"initdb", "pg_ctl", "pg_ctlcluster", "postgres"}
HEADER = pytest.StashKey[list[str]]()
THROWAWAY = pytest.StashKey[ExitStack]()


# ---------------------------------------------------------------- the run's services


def selects(markexpr: str, tier: str) -> bool:
    """Whether ``-m markexpr`` may keep a test that needs ``tier``, whatever else it needs."""
    if not markexpr:
        return True
    expression = Expression.compile(markexpr)
    others = [t for t in (*TIERS, "slow") if t != tier]  # what else a test may be marked
    for count in range(len(others) + 1):
        for more in itertools.combinations(others, count):
            needs = {tier, *more}

            def matcher(name: str, /, **kwargs: str | int | bool | None) -> bool:
                return name in needs and not kwargs  # noqa: B023 (used at once)

            if expression.evaluate(matcher):
                return True
    return False


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[str]:
    with own_postgres() as server:
        yield server.url


@contextlib.contextmanager
def throwaway_redis() -> Iterator[str]:
    folder = Path(tempfile.mkdtemp(prefix="belote-redis-"))
    server = services.OwnRedis(folder)
    try:
        server.start()
        yield server.url
    finally:
        server.kill()
        shutil.rmtree(folder, ignore_errors=True)


SERVICES: list[tuple[str, str, str, Callable[[], contextlib.AbstractContextManager[str]]]] = [
    ("PostgreSQL", services.POSTGRES, "postgres", throwaway_postgres),
    ("Redis", services.REDIS, "redis", throwaway_redis),
]


def provide(config: pytest.Config, stack: ExitStack) -> list[str]:
    """Start a throwaway server for each service that does not answer on its variable's
    address and that the run may need, and point the variable at it; says so.  Runs in the
    process that starts xdist's workers, before it does: they inherit the variables."""
    said = []
    for name, variable, tier, throwaway in SERVICES:
        url = os.environ.get(variable, services.DEFAULTS[variable])
        if not selects(config.option.markexpr, tier) or services.answers(url):
            continue
        try:
            own = stack.enter_context(throwaway())
        except Exception as error:  # the tests that need it fail, saying why
            said.append(f"{name}: none at {url}, and no throwaway one: {error!r}")
            continue
        os.environ[variable] = own
        said.append(f"{name}: none at {url}; a throwaway one at {own} for this run")
    return said


# ---------------------------------------------------------------- the markers' guard


class Guard:
    """An audit hook (it cannot be removed: it is idle between tests) that notes what the
    current test reaches and its markers do not allow."""

    def __init__(self) -> None:
        self.ports: dict[tuple[str, int], tuple[str, str]] = {}
        self.allowed: set[str] | None = None  # None: no test phase runs
        self.reached: dict[str, str] = {}  # tier -> what showed it

    def watch(self) -> None:
        """The configured (or throwaway) PostgreSQL and Redis, by resolved address."""
        for name, variable, tier, _ in SERVICES:
            url = os.environ.get(variable, services.DEFAULTS[variable])
            host, port = services.address(url)
            with contextlib.suppress(OSError):
                for *_, found in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
                    self.ports[(str(found[0]), port)] = (tier, f"reached {name} at {host}:{port}")
        sys.addaudithook(self.audit)

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if self.allowed is None:
            return
        if event == "socket.connect":
            address = args[1]
            if isinstance(address, tuple) and len(address) >= 2:
                self.note(*self.ports.get((str(address[0]), address[1]), ("", "")))
        elif event == "subprocess.Popen":
            self.note(*started(args[1]))

    def note(self, tier: str, what: str) -> None:
        if tier and self.allowed is not None and tier not in self.allowed:
            self.reached.setdefault(tier, what)

    @contextlib.contextmanager
    def phase(self, item: pytest.Item) -> Iterator[None]:
        self.allowed = {mark.name for mark in item.iter_markers() if mark.name in TIERS}
        self.reached = {}
        try:
            yield
        finally:  # the marker's absence first, also when the test failed for it
            self.allowed = None
            if self.reached:
                pytest.fail("\n".join(
                    f"this test {what} without the `{tier}` marker: add it "
                    f"(docs/testing.md)" for tier, what in self.reached.items()),
                    pytrace=False)


def started(argv: Any) -> tuple[str, str]:
    """The tier a new process stands for (``""``: none), and how it showed."""
    words = [os.fsdecode(word) for word in
             ([argv] if isinstance(argv, str | bytes | os.PathLike) else argv)]
    names = [Path(word).name for word in words]
    if any(pair == ("-m", "app") for pair in itertools.pairwise(words)):
        return "processes", "started `python -m app`"
    if POSTGRES_PROGRAMS & set(names):
        return "postgres", f"started a PostgreSQL program ({' '.join(words)})"
    if "redis-server" in names:
        return "redis", "started a redis-server"
    if words and "playwright" in words[0]:
        return "e2e", "started Playwright's browser driver"
    return "", ""


GUARD = Guard()


# ---------------------------------------------------------------- hooks


def pytest_configure(config: pytest.Config) -> None:
    declared = {line.split(":")[0].strip() for line in config.getini("markers")}
    if missing := [tier for tier in TIERS if tier not in declared]:
        raise pytest.UsageError(f"pyproject.toml declares no marker {missing}")
    if not hasattr(config, "workerinput"):  # xdist's controller, or a run without xdist
        stack = config.stash[THROWAWAY] = ExitStack()
        if services.PORTS not in os.environ:  # a run started by a test shares its ports
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="belote-ports-"))
            stack.callback(os.environ.pop, services.PORTS, None)
            os.environ[services.PORTS] = folder
        config.stash[HEADER] = provide(config, stack)
    GUARD.watch()


def pytest_unconfigure(config: pytest.Config) -> None:
    if THROWAWAY in config.stash:
        config.stash[THROWAWAY].close()


def pytest_sessionstart(session: pytest.Session) -> None:
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for line in session.config.stash.get(HEADER, []):
        if reporter is not None:
            reporter.write_line(line)


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("e2e"):
            item.add_marker("processes")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    with GUARD.phase(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    with GUARD.phase(item):
        return (yield)

"""The real server and Debian's Chromium, for the browser tests and tools/screenshots.py.

The server is ``python -m app`` in a subprocess, on a SQLite database migrated by the
alembic command first (as ``make run`` does), so the browser meets exactly what a player
would.  Chromium is the system's /usr/bin/chromium driven by Playwright's own driver:
``make test`` installs the Debian package when it is missing; a browser download
(``playwright install``) cannot work on these machines and is never used.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
from playwright.sync_api import Browser, BrowserContext, ViewportSize, sync_playwright

from tests.services import free_port
from tests.waiting import eventually_sync

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
DESKTOP = ViewportSize(width=1280, height=800)
PHONE = ViewportSize(width=390, height=844)
SERVER_START = 60.0  # seconds the server may take to answer /healthz before we give up
MIGRATE = 60.0  # seconds the migration of a fresh database may take
SERVER_SETTINGS = {
    "SECRET_KEY": "e2e-secret-key-0123456789abcdef-0123456789",
    "BOT_DELAY": "0",  # bots answer at once: a deal takes seconds
    "BOT_PROCESSES": "1",
    "DEFAULT_TURN_SECONDS": "600",  # a turn timer never plays for a slow test
    "LOG_LEVEL": "warning",
    "MAX_TABLES_PER_ADDRESS": "10000",  # every browser of the tests is at 127.0.0.1
    "MAX_SOCKETS_PER_ADDRESS": "10000",
    "ANALYSES_PER_ADDRESS": "10000",
    # Reviews at the tables' priority: a niced review starves on a loaded machine (a CI
    # run's stood at 61 % after two minutes); tests/test_analysis_pool.py checks the nice.
    "ANALYSIS_NICE": "0",
    "REST_RATE_PER_TOKEN": "100000/second",  # the tests' own calls set tables up at once
    "REST_RATE_PER_ADDRESS": "100000/second",
}


class MissingBrowser(RuntimeError):
    """Debian's Chromium is not installed: the browser tests cannot run."""


@dataclass
class Server:
    """A running ``python -m app``: its base URL and the file its output goes to."""

    http: str
    log: Path
    process: subprocess.Popen[bytes]

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def server_environment(workdir: Path, **settings: str) -> dict[str, str]:
    """The environment of the server and of its migration: a database in ``workdir``."""
    return os.environ | SERVER_SETTINGS | {
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": f"sqlite:///{workdir / 'belote.db'}",
    } | settings


@contextlib.contextmanager
def serve(workdir: Path, **settings: str) -> Iterator[Server]:
    """Migrate a fresh database in ``workdir``, then run the server on a free port there
    (away from the project's .env) until the block ends.  ``settings`` are extra
    environment variables (app/config.py names, e.g. ``BOT_DELAY="0.3"``)."""
    env = server_environment(workdir, **settings)
    subprocess.run(
        [sys.executable, "-m", "alembic", "-c", str(ROOT / "alembic.ini"), "upgrade", "head"],
        env=env, cwd=workdir, check=True, capture_output=True, timeout=MIGRATE,
    )
    port = free_port()
    log = workdir / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
            env=env, cwd=workdir, stdout=out, stderr=subprocess.STDOUT,
        )
    server = Server(f"http://127.0.0.1:{port}", log, process)
    try:
        wait_until_up(server)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_until_up(server: Server) -> None:
    """Poll /healthz until the server answers; fail with its output if it exits or hangs."""

    def up() -> bool:
        if server.process.poll() is not None:
            raise RuntimeError(f"the server exited at start:\n{server.output()}")
        with contextlib.suppress(httpx2.TransportError):
            return httpx2.get(f"{server.http}/healthz", timeout=2).status_code == 200
        return False

    eventually_sync(up, SERVER_START, lambda: f"the server to answer:\n{server.output()}")


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, headless, through Playwright's sync API.

    The sync API leaves its event loop marked as running in this thread until it stops,
    so ``asyncio.run`` fails meanwhile: callers keep it open only around browser work
    (the e2e fixtures scope it to their package)."""
    if not CHROMIUM.exists():
        raise MissingBrowser(
            f"{CHROMIUM} is missing: `make test` installs Debian's chromium package "
            "(apt-get install chromium); `playwright install` cannot work here"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


# The animations' pace a test's visitor has chosen, until the test chooses another
# (app/static/js/pace.js): "fast" holds each finished trick 0.45 s, not the normal pace's
# 1 s, which made a deal played in the browser 4.4 s longer.
TEST_PACE = "fast"
SET_PACE = """pace => {
  try {
    if (localStorage.getItem("belote.animationPace") === null)
      localStorage.setItem("belote.animationPace", pace);
  } catch (e) {}  // a page with no storage of its own (about:blank)
}"""


def new_context(browser: Browser, server: Server, viewport: ViewportSize = DESKTOP,
                reduced_motion: bool = True, pace: str | None = TEST_PACE) -> BrowserContext:
    """A new visitor (nothing in localStorage but the animations' ``pace``, if any)
    speaking English, on ``server``; reduced motion turns the client's animations off."""
    context = browser.new_context(
        base_url=server.http, viewport=viewport, locale="en-US",
        reduced_motion="reduce" if reduced_motion else "no-preference",
    )
    if pace is not None:
        context.add_init_script(f"({SET_PACE})({json.dumps(pace)})")
    return context

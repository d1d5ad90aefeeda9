"""Fixtures of the browser tests: one real server and one Chromium for the package, a
fresh browser context (no guest, no language kept) per page a test opens.

Both live at package scope: Playwright's sync API marks its event loop as running in
this thread while it is started, which would break ``asyncio.run`` in the rest of the
suite; the package's teardown stops it before the other test files run."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import httpx2
import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.e2e.harness import (
    DESKTOP,
    TEST_PACE,
    MissingBrowser,
    Server,
    chromium,
    new_context,
    serve,
)

TIMEOUT_MS = 20_000  # a guard against a hang on a loaded machine, not a speed check

OpenPage = Callable[..., Page]


FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.when == "call":
        item.stash[FAILED] = report.failed
    return report


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The package's server; its reviews take one sample (test_analysis.py waits for one:
    seconds, not a minute), which no other test sees."""
    with serve(tmp_path_factory.mktemp("e2e-server"), ANALYSIS_SAMPLES="1") as running:
        yield running


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    try:
        with chromium() as launched:
            expect.set_options(timeout=TIMEOUT_MS)
            yield launched
    except MissingBrowser as missing:
        pytest.fail(str(missing))


@pytest.fixture(scope="package")
def rest(server: Server) -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=server.http, timeout=TIMEOUT_MS / 1000) as client:
        yield client


@pytest.fixture
def open_page(browser: Browser, server: Server, request: pytest.FixtureRequest,
              tmp_path: Path) -> Iterator[OpenPage]:
    """Opens a page in a context of its own (another visitor); on a failure, each page's
    screenshot and the server's log are left in the test's tmp_path."""
    contexts = []

    def open_(viewport: ViewportSize = DESKTOP, reduced_motion: bool = True,
              pace: str | None = TEST_PACE) -> Page:
        context = new_context(browser, server, viewport, reduced_motion, pace)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    yield open_
    if request.node.stash.get(FAILED, False):
        for number, context in enumerate(contexts):
            for page in context.pages:
                page.screenshot(path=tmp_path / f"page-{number}.png", full_page=True)
        (tmp_path / "server.log").write_text(server.output())
        print(f"screenshots and server log in {tmp_path}")
    for context in contexts:
        context.close()


@pytest.fixture
def page(open_page: OpenPage) -> Page:
    return open_page()

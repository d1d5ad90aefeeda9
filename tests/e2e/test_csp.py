"""The site's pages under its Content-Security-Policy (app/headers.py), in Chromium: the
lobby, a Play now table where a card is played, the Rules over it, a finished match's
page and its replay, the rules and leaderboard pages, and /docs with Swagger UI's files
stood in for (no internet here): not one violation, as the browser reports them (the
``securitypolicyviolation`` event and the console).  A style attribute set on purpose at
the end is reported: the listeners hear what they must."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from app.api.routes.docs import SWAGGER_UI
from app.headers import POLICY
from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.harness import Server, new_context
from tests.e2e.ui import act, my_card, play_until, sign_in, start_with_bots

pytestmark = pytest.mark.e2e

REPORTED = """() => { window.cspReports = 0;
  document.addEventListener("securitypolicyviolation", (e) => {
    window.cspReports += 1;
    window.cspViolation({directive: e.violatedDirective, blocked: e.blockedURI,
                         sample: e.sample, source: e.sourceFile, line: e.lineNumber});
  }); }"""
# Stand-ins for Swagger UI's files: the page's inline script calls SwaggerUIBundle.
SWAGGER_STANDIN = """window.SwaggerUIBundle = (config) => {
  document.body.dataset.swagger = config.url; };
SwaggerUIBundle.presets = {apis: {}}; SwaggerUIBundle.SwaggerUIStandalonePreset = {};"""


class Violations:
    """What Chromium reported in a context's pages: each violation event, and each
    console message about the policy."""

    def __init__(self, context: BrowserContext) -> None:
        self.events: list[dict[str, Any]] = []
        self.console: list[str] = []
        context.expose_binding("cspViolation", lambda _source, event: self.events.append(event))
        context.add_init_script(f"({REPORTED})()")
        context.on("page", self.watch)

    def watch(self, page: Page) -> None:
        page.on("console", lambda message: self.console.append(message.text)
                if "Content Security Policy" in message.text else None)

    def none(self) -> None:
        assert self.events == [] and self.console == []


@pytest.fixture
def visitor(browser: Browser, server: Server) -> Iterator[tuple[Page, Violations]]:
    context = new_context(browser, server)
    context.set_default_timeout(TIMEOUT_MS)
    violations = Violations(context)
    try:
        yield context.new_page(), violations
    finally:
        context.close()


def test_every_page_works_under_the_policy(visitor: tuple[Page, Violations]) -> None:
    page, violations = visitor
    served = page.goto("/")
    assert served is not None and served.headers["content-security-policy"] == POLICY
    sign_in(page, "Ana")
    expect(page.locator(".hero-card").first).to_be_visible()  # set with a style, by script

    page.locator("[data-testid=quick-level]").select_option("easy")
    page.locator("[data-testid=play-now]").click()
    state = play_until(page, my_card())
    act(page, state)  # a card played, from a hand laid out by style (--i, --n)
    page.locator("[data-testid=open-rules]").click()
    dialog = page.locator("#rules-dialog")
    expect(dialog).to_have_attribute("open", "")
    dialog.locator("[data-testid=back-to-table]").click()
    expect(dialog).not_to_have_attribute("open", "")

    page.goto("/#/")
    table_id = start_with_bots(page, target_score="1")
    play_until(page, lambda state: state.status == "over")
    page.locator("[data-testid=nav-history]").click()
    page.locator(f"[data-testid=match-row][data-match-id='{table_id}']").click()
    expect(page.locator("#score-chart")).to_be_visible()
    page.locator("[data-testid=open-replay]").click()
    expect(page.locator("#replay [data-card]").first).to_be_visible()
    for route, shown in [("/#/rules", "#rules h1"), ("/#/leaderboard", "#app table, #app p")]:
        page.goto(route)
        expect(page.locator(shown).first).to_be_visible()
    violations.none()

    page.evaluate("() => document.body.setAttribute('style', 'color: red')")
    page.wait_for_function("() => window.cspReports === 1")  # reported as a task, later
    page.evaluate("() => 0")  # the binding's call has reached this side by now
    assert [event["directive"] for event in violations.events] == ["style-src-attr"]


def test_the_api_docs_run_their_own_inline_script_only(visitor: tuple[Page, Violations]
                                                       ) -> None:
    page, violations = visitor

    def stand_in(route: Route) -> None:
        if route.request.url.endswith(".js"):
            route.fulfill(body=SWAGGER_STANDIN, content_type="text/javascript")
        else:
            route.fulfill(body="#swagger-ui { color: black }", content_type="text/css")

    page.route(f"{SWAGGER_UI}/**", stand_in)
    page.goto("/docs")
    expect(page.locator("body")).to_have_attribute("data-swagger", "/openapi.json")
    violations.none()

"""Play now from the lobby, at desktop and phone sizes: one click to a started table
against bots of the level picked, the variant remembered; and "Find players", which
waits with a running counter, can be cancelled, and opens the table once four players
asked.  These tests have a server of their own, whose bots pause a little (BOT_DELAY):
with none, bots playing for a player still on the way would race through deals before
the page is there (the package's server lets bots answer at once)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from playwright.sync_api import Browser, Page, Route, ViewportSize, expect
from websockets.sync.client import connect

from app.api.routes.play import MAX_WAIT
from tests.e2e.conftest import FAILED, TIMEOUT_MS
from tests.e2e.harness import DESKTOP, PHONE, Server, new_context, serve
from tests.e2e.test_lobby import NO_OVERFLOW
from tests.e2e.ui import sign_in, table_state

pytestmark = pytest.mark.e2e

SIZES = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # A queue's table starts only when its players are there: never by the clock, mid-test.
    with serve(tmp_path_factory.mktemp("play-now"), BOT_DELAY="0.4",
               QUEUE_START_WAIT="600") as running:
        yield running


@pytest.fixture(scope="module")
def api(own_server: Server) -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=own_server.http, timeout=TIMEOUT_MS / 1000) as client:
        yield client


@pytest.fixture
def visitor(own_server: Server, tmp_path: Path,
            request: pytest.FixtureRequest) -> Iterator[list[Page]]:
    """The pages a test opens (:func:`opened`), closed at the end; on a failure, their
    screenshots and the server's log are left in the test's tmp_path."""
    pages: list[Page] = []
    yield pages
    if request.node.stash.get(FAILED, False):
        for number, page in enumerate(pages):
            page.screenshot(path=tmp_path / f"page-{number}.png", full_page=True)
        (tmp_path / "server.log").write_text(own_server.output())
        print(f"screenshots and server log in {tmp_path}")
    for page in pages:
        page.context.close()


def opened(pages: list[Page], browser: Browser, server: Server,
           viewport: ViewportSize = DESKTOP) -> Page:
    """A page of a visitor of its own, whose joins of the queue wait for people the most allowed:
    the client asks for none, and the server's 20 s could run out mid-test on a loaded
    machine (bots would then fill the seats of a test that waits for people)."""
    context = new_context(browser, server, viewport)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.route("**/api/queue", patient)
    pages.append(page)
    return page


def patient(route: Route) -> None:
    if route.request.method != "POST":
        route.continue_()
        return
    body = route.request.post_data_json or {}
    route.continue_(post_data=json.dumps(body | {"wait_seconds": MAX_WAIT}))


def token(page: Page) -> dict[str, str]:
    guest = page.evaluate("() => JSON.parse(localStorage.getItem('belote.guest'))")
    return {"Authorization": f"Bearer {guest['token']}"}


@SIZES
def test_play_now_opens_a_started_table_against_bots(
        browser: Browser, own_server: Server, api: httpx2.Client, visitor: list[Page],
        viewport: ViewportSize) -> None:
    page = opened(visitor, browser, own_server, viewport)
    sign_in(page, "Ana")
    card = page.locator("#play-now")
    play = card.locator("[data-testid=play-now]")
    expect(play).to_be_in_viewport()  # under the name, above the rest of the lobby
    assert page.evaluate(NO_OVERFLOW)
    expect(card.locator("[data-testid=quick-level]")).to_have_value("normal")
    card.locator("[data-testid=quick-variant]").select_option("classic")
    card.locator("[data-testid=quick-level]").select_option("easy")
    play.click()

    page.wait_for_url(re.compile(r"#/t/[^/]+$"))
    table_id = page.url.rsplit("/", 1)[1]
    table = page.locator("#table")
    expect(table).to_have_attribute("data-status", "playing")
    expect(table).to_have_attribute("data-my-seat", "0")
    page.wait_for_function("() => document.querySelectorAll('#hand [data-card]').length >= 5")
    assert len(table_state(page).hand) in (5, 8)
    assert page.evaluate(NO_OVERFLOW)
    served = api.get(f"/api/tables/{table_id}").json()
    assert served["variant"] == "classic" and served["seats"][0]["name"] == "Ana"
    assert [(s["kind"], s["level"]) for s in served["seats"][1:]] == [("bot", "easy")] * 3

    # Back in the lobby the variant is the one played last; the level is normal again.
    page.goto("/#/")
    expect(card.locator("[data-testid=quick-variant]")).to_have_value("classic")
    expect(card.locator("[data-testid=quick-level]")).to_have_value("normal")


@SIZES
def test_find_players_waits_counts_and_cancels(
        browser: Browser, own_server: Server, api: httpx2.Client, visitor: list[Page],
        viewport: ViewportSize) -> None:
    page = opened(visitor, browser, own_server, viewport)
    sign_in(page, "Eve")
    card = page.locator("#play-now")
    card.locator("[data-testid=find-players]").click()
    wait = card.locator("[data-testid=queue-wait]")
    expect(wait).to_be_visible()
    expect(card.locator("[data-testid=play-now]")).to_be_hidden()
    expect(card.locator("[data-testid=queue-players]")).to_have_text("1 of 4 players")
    expect(wait).to_contain_text("Bots take the empty seats in")
    timer = card.locator("[data-testid=queue-timer]")
    expect(timer).to_have_text(re.compile(r"^0:0[1-9]$"))  # it runs
    assert page.evaluate(NO_OVERFLOW)
    assert api.get("/api/queue", headers=token(page)).json()["status"] == "waiting"

    page.locator("#lang").select_option("fr")  # the lobby is drawn again: the wait stays
    expect(card.locator("[data-testid=queue-players]")).to_have_text("Joueurs : 1 sur 4")
    page.locator("#lang").select_option("en")

    card.locator("[data-testid=queue-cancel]").click()
    expect(wait).to_be_hidden()
    expect(card.locator("[data-testid=find-players]")).to_be_enabled()
    refused = api.get("/api/queue", headers=token(page))
    assert refused.status_code == 404 and refused.json()["detail"]["code"] == "not_queued"


def test_find_players_opens_the_table_of_four(
        browser: Browser, own_server: Server, api: httpx2.Client, visitor: list[Page]) -> None:
    ana, ivo = opened(visitor, browser, own_server), opened(visitor, browser, own_server, PHONE)
    sign_in(ana, "Ana")
    sign_in(ivo, "Ivo")
    for page in (ana, ivo):
        page.locator("[data-testid=find-players]").click()
        expect(page.locator("[data-testid=queue-wait]")).to_be_visible()
    expect(ana.locator("[data-testid=queue-players]")).to_have_text("2 of 4 players")
    ivo.reload()  # a reload keeps the place, and shows the wait again
    expect(ivo.locator("[data-testid=queue-wait]")).to_be_visible()

    others = [api.post("/api/guests", json={"name": name}).json() for name in ("Eve", "Bob")]
    answers = [api.post("/api/queue", json={},
                        headers={"Authorization": f"Bearer {guest['token']}"}).json()
               for guest in others]
    assert answers[-1]["status"] == "seated"
    table_id = answers[-1]["table_id"]
    for seat, page in enumerate((ana, ivo)):
        page.wait_for_url(re.compile(f"#/t/{table_id}$"))
        expect(page.locator("#table")).to_have_attribute("data-my-seat", str(seat))
    seats = api.get(f"/api/tables/{table_id}").json()["seats"]
    assert [s["name"] for s in seats] == ["Ana", "Ivo", "Eve", "Bob"]
    for page in (ana, ivo):  # nobody has to press Start: it starts by itself
        expect(page.locator(".setup h2")).to_have_text("Players found")
        expect(page.locator(".setup")).to_contain_text("The match starts as soon as everyone")
    expect(ivo.locator("[data-testid=creator-starts]")).to_have_count(0)
    # The match starts once Eve and Bob, who asked over REST, are at the table too.
    url = own_server.http.replace("http", "ws", 1) + f"/api/tables/{table_id}/ws"
    with connect(url) as eve, connect(url) as bob:
        for guest, socket in zip(others, (eve, bob), strict=True):
            socket.send(json.dumps({"type": "hello", "protocol": 1, "token": guest["token"]}))
        for page in (ana, ivo):
            expect(page.locator("#table")).to_have_attribute("data-status", "playing")

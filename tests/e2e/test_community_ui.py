"""The community in the browser (issue #32), at desktop and phone sizes: two accounts who
are friends see each other on the Friends page; one invites the other from its table and
the invitee's notice, with Join, seats it there; a started public match is on the Watch
page, the friend's first; a player's menu at the table and on the profile shows the
player's reputation and offers Add friend, Mute, Block and Report.  A friend's partner
prompt, kept while the page was closed, is declined; one told at once is accepted and
seats the two as a team; the partner's plate shows its reputation (1366x768, 390x844).

Its own server, whose bots think long: the matches stay in progress while they are looked
at."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.harness import DESKTOP, PHONE, Server, new_context, serve
from tests.waiting import eventually_sync

pytestmark = pytest.mark.e2e

LANDSCAPE = ViewportSize(width=844, height=390)
SIZES = {"desktop": DESKTOP, "phone": PHONE, "landscape": LANDSCAPE}
PROMPT_SIZES = {"desktop": ViewportSize(width=1366, height=768), "phone": PHONE}
PASSWORD = "correct horse battery staple"
Account = dict[str, Any]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve(tmp_path_factory.mktemp("e2e-community"), BOT_DELAY="60",
               SIGNUPS_PER_ADDRESS="1000", ARGON2_MEMORY_KIB="1024",
               ARGON2_TIME_COST="1", INVITATIONS_PER_PLAYER="1000/minute") as running:
        yield running


@pytest.fixture(scope="module")
def rest(server: Server) -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=server.http, timeout=TIMEOUT_MS / 1000) as client:
        yield client


def account(rest: httpx2.Client, username: str) -> Account:
    made = rest.post("/api/accounts", json={"username": username, "password": PASSWORD})
    assert made.status_code == 201, made.text
    found: Account = made.json()
    return found


def call(rest: httpx2.Client, method: str, path: str, who: Account, body: Any = None) -> Any:
    response = rest.request(method, path, json=body,
                            headers={"Authorization": f"Bearer {who['token']}"})
    assert response.status_code < 300, response.text
    return response.json() if response.content else None


def opened(browser: Browser, server: Server, who: Account, size: ViewportSize,
           path: str, lang: str = "en") -> Page:
    """A page of ``who`` (its session kept as the client keeps it) at ``path``, in
    ``lang`` (the header's choice, kept as the client keeps it)."""
    context = new_context(browser, server, size)
    context.set_default_timeout(TIMEOUT_MS)
    stored = json.dumps({**who, "account": True})
    context.add_init_script(f"localStorage.setItem('belote.guest', {json.dumps(stored)});"
                            f"localStorage.setItem('belote.lang', {json.dumps(lang)});")
    page = context.new_page()
    page.goto(path)
    return page


def started_table(rest: httpx2.Client, who: Account) -> str:
    table = call(rest, "POST", "/api/tables", who, {"name": "live"})
    call(rest, "PUT", f"/api/tables/{table['id']}/seats/0", who)
    for seat in (1, 2, 3):
        call(rest, "PUT", f"/api/tables/{table['id']}/seats/{seat}/bot", who, {"level": "easy"})
    call(rest, "POST", f"/api/tables/{table['id']}/start", who)
    table_id: str = table["id"]
    return table_id


@pytest.mark.parametrize("size", SIZES)
def test_friends_an_invitation_joined_and_the_watch_page(
        browser: Browser, server: Server, rest: httpx2.Client, size: str,
        tmp_path: Path) -> None:
    ana, bob = account(rest, f"ana-{size}"), account(rest, f"bob-{size}")
    call(rest, "POST", "/api/friends", ana, {"player": bob["id"]})
    call(rest, "POST", "/api/friends", bob, {"player": ana["id"]})
    page = opened(browser, server, bob, SIZES[size], "/#/friends")
    try:
        friend = page.locator("[data-testid=friend]")
        expect(friend).to_have_count(1)
        expect(friend).to_contain_text(f"ana-{size}")
        expect(page.locator("[data-testid=find-with-partner]")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]

        waiting = call(rest, "POST", "/api/tables", ana, {"name": "come"})
        call(rest, "PUT", f"/api/tables/{waiting['id']}/seats/0", ana)
        call(rest, "POST", f"/api/tables/{waiting['id']}/invitations", ana, {"player": bob["id"]})
        notice = page.locator("[data-testid=notice-invitation]")
        expect(notice).to_contain_text(f"ana-{size}")
        notice.locator("[data-testid=notice-yes]").click()  # Join
        expect(page.locator("#table")).to_have_attribute("data-table-id", waiting["id"])
        seats = call(rest, "GET", f"/api/tables/{waiting['id']}", bob)["seats"]
        assert [held.get("player") for held in seats[:2]] == [ana["id"], bob["id"]]

        # At the table: Ana's menu, with her reputation.
        page.locator("[data-seat-slot='0'] [data-testid=player-menu-toggle]").click()
        menu = page.locator("[data-testid=player-menu]")
        expect(menu.locator("[data-testid=reputation]")).to_have_attribute("data-reputation", "100")
        for item in ("menu-friend", "menu-mute", "menu-block", "menu-report"):
            expect(menu.locator(f"[data-testid={item}]")).to_be_visible()
        page.keyboard.press("Escape")

        others = started_table(rest, account(rest, f"eve-{size}"))
        friends = started_table(rest, ana)
        page.goto("/#/watch")
        rows = page.locator("[data-testid=live-table]")
        expect(rows.first).to_have_attribute("data-table", friends)  # the friend's first
        expect(page.locator(f"[data-testid=live-table][data-table='{others}']")).to_be_visible()
        page.screenshot(path=tmp_path / f"watch-{size}.png")

        page.goto(f"/#/players/{ana['id']}")
        expect(page.locator(".profile-tools [data-testid=reputation]")).to_be_visible()
        page.locator(".profile-tools [data-testid=player-menu-toggle]").click()
        page.locator("[data-testid=menu-report]").click()
        dialog = page.locator("[data-testid=report-dialog]")
        dialog.locator("[data-testid=report-reason]").select_option("abuse")
        dialog.locator("[data-testid=report-send]").click()
        expect(dialog).to_have_count(0)
    finally:
        page.context.close()


@pytest.mark.parametrize("size", PROMPT_SIZES)
def test_a_partner_prompt_kept_declined_then_accepted_and_reputation_on_the_plates(
        browser: Browser, server: Server, rest: httpx2.Client, size: str,
        tmp_path: Path) -> None:
    ana, bob = account(rest, f"anna-{size}"), account(rest, f"boris-{size}")
    call(rest, "POST", "/api/friends", ana, {"player": bob["id"]})
    call(rest, "POST", "/api/friends", bob, {"player": ana["id"]})
    # Told while Bob has no page open: kept, shown when he comes, declined and dismissed.
    call(rest, "POST", "/api/queue", ana, {"partner": bob["id"], "variant": "classic"})
    call(rest, "DELETE", "/api/queue", ana)
    page = opened(browser, server, bob, PROMPT_SIZES[size], "/#/")
    try:
        prompt = page.locator("[data-testid=notice-queue_partner]")
        expect(prompt).to_contain_text(f"anna-{size}")
        assert page.evaluate("document.documentElement.scrollWidth") <= PROMPT_SIZES[size]["width"]
        page.screenshot(path=tmp_path / f"partner-prompt-{size}.png")
        prompt.locator("[data-testid=notice-no]").click()  # Decline
        expect(prompt).to_have_count(0)
        # Ana's friend request, kept too, was answered since: dismissed unseen.
        expect(page.locator("[data-testid=notice-friend_request]")).to_have_count(0)
        eventually_sync(lambda: call(rest, "GET", "/api/me/notices", bob)["notices"] == [],
                        TIMEOUT_MS / 1000, "the declined prompt dismissed")

        # Bob's page open: told at once; Accept queues him as Ana's partner, one team.
        call(rest, "POST", "/api/queue", ana, {"partner": bob["id"], "wait_seconds": 0})
        expect(prompt).to_contain_text(f"anna-{size}")
        if size == "phone":
            low = {"value": 40, "finished": 2, "left": 3}
            page.route(f"**/api/players/{ana['id']}", lambda route: route.fulfill(
                json={**route.fetch().json(), "reputation": low}))
        prompt.locator("[data-testid=notice-yes]").click()
        table = page.locator("#table")
        expect(table).to_have_attribute("data-table-id", re.compile(".+"))
        table_id = table.get_attribute("data-table-id")
        seats = call(rest, "GET", f"/api/tables/{table_id}", bob)["seats"]
        assert [held.get("player") for held in seats[::2]] in (
            [ana["id"], bob["id"]], [bob["id"], ana["id"]])

        # Ana's plate shows her reputation, small, and the table still fits the screen. A
        # phone's narrow plates show only one worth a look: hers is read as 40 there.
        ana_seat = [held.get("player") for held in seats].index(ana["id"])
        mark = page.locator(f"[data-plate='{ana_seat}'] .plate-rep")
        shown = "100" if size == "desktop" else "40"
        expect(mark).to_have_attribute("data-reputation", shown)
        expect(mark).to_be_visible()
        expect(mark).to_have_text(f"{shown}%")
        page.screenshot(path=tmp_path / f"plate-reputation-{size}.png")
        box = mark.bounding_box()
        assert box is not None and box["height"] <= 20 and box["width"] <= 60
        assert page.evaluate("document.documentElement.scrollWidth") <= PROMPT_SIZES[size]["width"]
    finally:
        page.context.close()


@pytest.mark.parametrize("size", PROMPT_SIZES)
def test_an_invitation_declined_is_said_to_the_inviter(
        browser: Browser, server: Server, rest: httpx2.Client, size: str,
        tmp_path: Path) -> None:
    """Decline on the invitee's notice: the inviter, waiting at the table, reads who
    declined in a word, and the invitee's notice is gone."""
    ana, bob = account(rest, f"ana-no-{size}"), account(rest, f"bob-no-{size}")
    waiting = call(rest, "POST", "/api/tables", ana, {"name": "come"})
    call(rest, "PUT", f"/api/tables/{waiting['id']}/seats/0", ana)
    inviter = opened(browser, server, ana, PROMPT_SIZES[size], f"/#/t/{waiting['id']}")
    invitee = opened(browser, server, bob, PROMPT_SIZES[size], "/#/friends")
    try:
        expect(inviter.locator("#table")).to_have_attribute("data-table-id", waiting["id"])
        expect(invitee.locator("[data-testid=friends-page]")).to_be_visible()
        call(rest, "POST", f"/api/tables/{waiting['id']}/invitations", ana, {"player": bob["id"]})
        notice = invitee.locator("[data-testid=notice-invitation]")
        expect(notice).to_contain_text(f"ana-no-{size}")
        notice.locator("[data-testid=notice-no]").click()  # Decline
        expect(notice).to_have_count(0)
        said = inviter.locator("#toasts .toast.info", has_text=f"bob-no-{size}")
        expect(said).to_contain_text("declined your invitation")
        inviter.screenshot(path=tmp_path / f"invitation-declined-{size}.png")
        width = inviter.evaluate("document.documentElement.scrollWidth")
        assert width <= PROMPT_SIZES[size]["width"]
    finally:
        invitee.context.close()
        inviter.context.close()


LANGUAGES = ("en", "bg", "fr", "de", "es", "el", "ko")  # app/static/js/i18n.js


def test_the_friends_page_and_an_invitation_speak_every_language_on_a_phone(
        browser: Browser, server: Server, rest: httpx2.Client, tmp_path: Path) -> None:
    """In each language, upright and sideways: the Friends page (a friend, a request) and
    an invitation's notice are in that language, in full, and nothing scrolls sideways."""
    dan, eva, fay = (account(rest, name) for name in ("dan-langs", "eva-langs", "fay-langs"))
    call(rest, "POST", "/api/friends", dan, {"player": eva["id"]})
    call(rest, "POST", "/api/friends", eva, {"player": dan["id"]})
    call(rest, "POST", "/api/friends", fay, {"player": dan["id"]})  # a request to Dan
    table = call(rest, "POST", "/api/tables", eva, {"name": "langs"})
    call(rest, "PUT", f"/api/tables/{table['id']}/seats/0", eva)
    words = ("[data-testid=friends-page] h1", "[data-testid=find-with-partner]",
             "[data-testid=accept]", "[data-testid=notice-yes]", "[data-testid=notice-no]")
    english: dict[str, str] = {}
    for lang in LANGUAGES:
        for size in (PHONE, LANDSCAPE):
            page = opened(browser, server, dan, size, "/#/friends", lang)
            try:
                expect(page.locator("html")).to_have_attribute("lang", lang)
                expect(page.locator("[data-testid=friend]")).to_contain_text("eva-langs")
                expect(page.locator("[data-testid=incoming]")).to_contain_text("fay-langs")
                call(rest, "POST", f"/api/tables/{table['id']}/invitations", eva,
                     {"player": dan["id"]})
                notice = page.locator("[data-testid=notice-invitation]")
                expect(notice).to_contain_text("eva-langs")
                for selector in words:
                    shown = page.locator(selector).first
                    expect(shown).to_be_visible()
                    text = shown.inner_text().strip()
                    assert text and "." not in text.split()[0], (lang, selector, text)  # no key
                    if lang == "en":
                        english[selector] = text
                    else:
                        assert text != english[selector], (lang, selector, text)
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= size["width"], (lang, size, width)
                page.screenshot(path=tmp_path / f"friends-{lang}-{size['width']}.png")
                notice.locator("[data-testid=notice-no]").click()
                expect(notice).to_have_count(0)
            finally:
                page.context.close()

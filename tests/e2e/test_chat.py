"""The table's chat in the browser: two players and a spectator, each reading a quick
phrase in their own language and markup as plain text; a muted player, and a chat turned
off, both remembered after a reload; on a phone the chat is a sheet that opens and closes
and, closed, leaves every part of the table within reach."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import PHONE
from tests.e2e.ui import (
    VISIBLE_POINT,
    add_bot,
    create_table,
    sign_in,
    start,
    take_seat,
    wait_for_something_to_do,
)

pytestmark = pytest.mark.e2e

LANDSCAPE = ViewportSize(width=844, height=390)


def speak(page: Page, lang: str) -> None:
    """The page in ``lang`` from now on (the language the header's selector keeps)."""
    page.evaluate("lang => localStorage.setItem('belote.lang', lang)", lang)
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", lang)


def open_chat(page: Page) -> None:
    page.locator("[data-testid=chat-toggle]").click()
    expect(page.locator("[data-testid=chat-panel]")).to_be_visible()


def lines(page: Page) -> list[str]:
    return page.locator("[data-testid=chat-log] .chat-text").all_inner_texts()


def test_phrases_in_each_language_text_as_text_mute_and_chat_off(open_page: OpenPage) -> None:
    ana, ivo, eve = open_page(), open_page(), open_page()
    sign_in(ana, "Ana")
    table_id = create_table(ana)
    sign_in(ivo, "Ivo", path=f"/#/t/{table_id}")
    take_seat(ivo, 1)
    speak(ivo, "bg")
    sign_in(eve, "Eve", path=f"/#/t/{table_id}")  # she watches: no seat
    speak(eve, "fr")
    for page in (ana, ivo, eve):
        expect(page.locator("#table")).to_have_attribute("data-table-id", table_id)

    open_chat(ana)
    ana.locator("[data-phrase=good_luck]").click()
    expect(ana.locator("[data-testid=chat-log] .chat-text")).to_have_text(["Good luck!"])
    ivo_badge, eve_badge = (page.locator("[data-testid=chat-unread]") for page in (ivo, eve))
    expect(ivo_badge).to_have_text("1")
    expect(eve_badge).to_have_text("1")
    open_chat(ivo)
    expect(ivo.locator("[data-testid=chat-log] .chat-text")).to_have_text(["Успех!"])
    expect(ivo_badge).to_be_hidden()
    ivo.locator("[data-testid=chat-input]").fill("<b>хубава</b> игра <img src=x onerror=alert(1)>")
    ivo.locator("[data-testid=chat-input]").press("Enter")
    expect(ivo.locator("[data-testid=chat-input]")).to_have_value("")  # accepted, cleared
    markup = "<b>хубава</b> игра <img src=x onerror=alert(1)>"
    expect(ana.locator("[data-testid=chat-log] .chat-text")).to_have_text(["Good luck!", markup])
    assert ana.locator("#table b, #table img").count() == 0

    # Eve reads both, in French, but has no phrases nor a text box: spectators only read.
    expect(eve_badge).to_have_text("2")
    open_chat(eve)
    expect(eve.locator("[data-testid=chat-log] .chat-text")).to_have_text(
        ["Bonne chance !", markup])
    expect(eve.locator("[data-phrase], [data-testid=chat-input]")).to_have_count(0)

    # Ana mutes Ivo from his message: his lines and balloons go, and it lasts a reload.
    ana.locator(".chat-line[data-seat='1'] [data-testid=chat-mute]").click()
    expect(ana.locator("[data-testid=chat-log] .chat-text")).to_have_text(["Good luck!"])
    ana.reload()
    open_chat(ana)
    expect(ana.locator("[data-testid=chat-log] .chat-text")).to_have_text(["Good luck!"])
    ivo.locator("[data-phrase=thanks]").click()
    expect(ivo.locator("[data-testid=chat-log] .chat-text")).to_have_count(3)
    expect(eve.locator("[data-testid=chat-log] .chat-text")).to_have_count(3)
    expect(ana.locator("[data-testid=chat-log] .chat-text")).to_have_text(["Good luck!"])
    expect(ana.locator(".chat-bubble")).to_have_count(0)
    ana.locator("[data-testid=chat-unmute]").click()
    expect(ana.locator("[data-testid=chat-log] .chat-text")).to_have_text(
        ["Good luck!", markup, "Thanks!"])

    # Eve turns the chat off: no messages, no count, no balloons, also after a reload.
    eve.locator("[data-testid=chat-off]").check()
    expect(eve.locator("[data-testid=chat-is-off]")).to_be_visible()
    expect(eve.locator("[data-testid=chat-log]")).to_have_count(0)
    eve.reload()
    expect(eve.locator("#table")).to_have_attribute("data-table-id", table_id)
    ana.locator("[data-phrase=well_played]").click()
    expect(ivo.locator("[data-testid=chat-log] .chat-text")).to_have_count(4)
    expect(eve.locator(".chat-bubble")).to_have_count(0)
    expect(eve.locator("[data-testid=chat-unread]")).to_be_hidden()
    open_chat(eve)
    expect(eve.locator("[data-testid=chat-off]")).to_be_checked()
    expect(eve.locator("[data-testid=chat-log]")).to_have_count(0)
    eve.locator("[data-testid=chat-off]").uncheck()  # on again: it missed nothing
    expect(eve.locator("[data-testid=chat-log] .chat-text")).to_have_text(
        ["Bonne chance !", markup, "Merci !", "Bien joué !"])


@pytest.mark.parametrize("viewport", [PHONE, LANDSCAPE], ids=["portrait", "landscape"])
def test_on_a_phone_the_chat_opens_and_closes_and_hides_nothing(
        open_page: OpenPage, viewport: ViewportSize) -> None:
    ana = open_page(viewport)
    sign_in(ana, "Ana")
    create_table(ana)
    for seat in (1, 2, 3):
        add_bot(ana, seat)
    start(ana)
    wait_for_something_to_do(ana)
    panel = ana.locator("[data-testid=chat-panel]")
    expect(panel).to_be_hidden()  # closed until asked for
    open_chat(ana)
    ana.locator("[data-phrase=hello]").click()
    expect(ana.locator("[data-testid=chat-log] .chat-text")).to_have_text(["Hello!"])
    ana.locator("[data-testid=chat-close]").click()
    expect(panel).to_be_hidden()
    open_chat(ana)
    ana.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    # Closed, the chat covers nothing: each card, call, plate and button can be clicked.
    parts = ana.locator("#hand [data-card], #actions button, #trick [data-card], .plate, "
                        ".topbar button")
    assert parts.count() > 8
    covered = [parts.nth(i).evaluate("e => e.outerHTML.slice(0, 80)")
               for i in range(parts.count()) if parts.nth(i).evaluate(VISIBLE_POINT) is None]
    assert not covered

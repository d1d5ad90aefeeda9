"""Misclicks and game speed (issue #35): with "Tap twice to play" (on by default for a
finger) a card's first tap lifts it and a bid's first tap marks it, the second sends it;
a table's bots play at the pace its creator chose; the animations' speed is a setting."""

from __future__ import annotations

import re

import httpx2
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import PHONE, Server
from tests.e2e.ui import (
    Frames,
    TableState,
    click_visible,
    create_table,
    fill_bots,
    play_until,
    sign_in,
    start,
    table_state,
    wait_past,
)

pytestmark = pytest.mark.e2e

TWO_TAPS = "localStorage.setItem('belote.twoTap', '1')"


def test_a_first_tap_arms_a_bid_and_a_card_the_second_sends_it(open_page: OpenPage) -> None:
    page = open_page(PHONE)
    page.add_init_script(TWO_TAPS)
    frames = Frames.record(page)

    def plain(state: TableState) -> list[str]:  # a belot card's second tap asks first
        offered = frames.last_state()["view"]["legal_actions"]
        return [card for card in state.legal if f"{card}+belot" not in offered]

    sign_in(page, "Ana")
    create_table(page)
    fill_bots(page)
    start(page)
    state = play_until(page, lambda s: s.my_turn and s.phase == "auction")
    bid = page.locator("#actions button[data-action=pass]")
    bid.click()
    expect(bid).to_have_class(re.compile(r"\barmed\b"))
    expect(bid).to_contain_text("Tap again")
    page.wait_for_timeout(300)  # nothing goes out on the first tap
    assert table_state(page).version == state.version
    bid.click()
    wait_past(page, state.version)

    page.evaluate("() => localStorage.setItem('belote.twoTap', '0')")  # play_until taps once
    state = play_until(page, lambda s: s.my_turn and s.phase == "play" and bool(plain(s)))
    page.evaluate(f"() => {TWO_TAPS}")
    chosen = plain(state)[0]
    card = page.locator(f"#hand [data-card='{chosen}']")
    click_visible(page, card)
    expect(card).to_have_attribute("aria-pressed", "true")
    page.wait_for_timeout(300)
    assert table_state(page).version == state.version
    assert chosen in table_state(page).hand
    click_visible(page, card)
    wait_past(page, state.version)
    assert chosen not in table_state(page).hand


def test_a_finger_taps_twice_by_default_a_mouse_once(browser: Browser, server: Server) -> None:
    for touch, expected in ((True, True), (False, False)):
        context = browser.new_context(base_url=server.http, viewport=PHONE, has_touch=touch,
                                      locale="en-US")
        try:
            page = context.new_page()
            page.goto("/")
            page.locator("[data-testid=settings-toggle]").click()
            box = page.locator("[data-testid=two-tap]")
            if expected:
                expect(box).to_be_checked()
            else:
                expect(box).not_to_be_checked()
        finally:
            context.close()


def test_the_creator_chooses_the_bots_pace(page: Page, rest: httpx2.Client) -> None:
    sign_in(page, "Ana")
    page.locator("#create-table [data-testid=bot-pace]").select_option("slow")
    table_id = create_table(page)
    assert rest.get(f"/api/tables/{table_id}").json()["bot_pace"] == "slow"


def test_the_animation_speed_is_kept_and_given_to_the_page(page: Page) -> None:
    sign_in(page, "Ana")
    page.locator("[data-testid=settings-toggle]").click()
    page.locator("[data-testid=animation-pace]").select_option("slow")
    page.reload()
    expect(page.locator("[data-testid=animation-pace]")).to_have_value("slow")
    pace = page.evaluate(
        "() => getComputedStyle(document.documentElement).getPropertyValue('--pace')")
    assert pace.strip() == "1.8"

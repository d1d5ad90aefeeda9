"""What must not get in the player's way: the deal summary over the next deal, a double
click, a language switch over typed values, a refused token."""

from __future__ import annotations

import httpx2
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.ui import (
    TABLE_STATE,
    act,
    create_table,
    sign_in,
    start_with_bots,
    table_state,
    wait_for_something_to_do,
    wait_past,
)

pytestmark = pytest.mark.e2e

MY_CALL = f"""() => {{
  const state = ({TABLE_STATE})();
  return !!state && state.my_turn && state.phase === 'auction';
}}"""
MAX_STEPS = 400


def test_the_deal_summary_leaves_the_next_deal_playable_by_keyboard(page: Page) -> None:
    sign_in(page, "Ana")
    start_with_bots(page)
    for _ in range(MAX_STEPS):  # play the first deal, leaving its summary open
        state = wait_for_something_to_do(page)
        if state.summary:
            break
        act(page, state)
    else:
        raise AssertionError("no deal summary")
    page.wait_for_function(MY_CALL)  # the next deal's auction reaches Ana, summary open
    sheet = page.locator("#score-sheet")
    expect(sheet).to_have_attribute("open", "")
    assert not sheet.evaluate("dialog => dialog.matches(':modal')")
    state = table_state(page)
    assert "pass" in state.actions
    page.keyboard.press("p")  # the pass shortcut works with the summary on screen
    wait_past(page, state.version)


def test_a_double_click_creates_one_table_and_fills_the_seats_once(page: Page,
                                                                    rest: httpx2.Client) -> None:
    sign_in(page, "Ana")
    form = page.locator("#create-table")
    form.locator("input[name=name]").fill("Double click")
    form.locator("[data-testid=create]").dblclick()
    table = page.locator("#table")
    expect(table).to_have_attribute("data-my-seat", "0")
    listed = rest.get("/api/tables", params={"limit": 100}).json()["tables"]
    named = [t for t in listed if t["name"] == "Double click"]
    assert len(named) == 1, named
    page.locator("[data-testid=fill-bots]").dblclick()
    expect(page.locator("[data-testid=start]")).to_be_enabled()
    page.locator("[data-testid=start]").dblclick()
    expect(table).to_have_attribute("data-status", "playing")
    expect(page.locator("#toasts .toast")).to_have_count(0)  # no seat_taken, no not_waiting


def test_a_language_switch_keeps_what_was_typed_in_the_lobby(page: Page) -> None:
    sign_in(page, "Ana")
    form = page.locator("#create-table")
    form.locator("select[name=variant]").select_option("classic")
    form.locator("input[name=name]").fill("Typed before the switch")
    form.locator("input[name=turn_seconds]").fill("45")
    create = form.locator("[data-testid=create]")
    english = create.inner_text()
    page.locator("#lang").select_option("fr")
    expect(create).not_to_have_text(english)
    expect(form.locator("select[name=variant]")).to_have_value("classic")
    expect(form.locator("input[name=name]")).to_have_value("Typed before the switch")
    expect(form.locator("input[name=turn_seconds]")).to_have_value("45")


def test_a_refused_token_asks_for_a_name_again_without_a_banner(page: Page) -> None:
    sign_in(page, "Ana")
    create_table(page)
    page.evaluate("""() => {
      const guest = JSON.parse(localStorage.getItem('belote.guest'));
      localStorage.setItem('belote.guest', JSON.stringify({...guest, token: 'not-a-token'}));
    }""")
    page.reload()  # the socket refuses the token (4003)
    expect(page.locator("#guest-name")).to_be_visible()
    expect(page.locator("#conn-banner")).to_be_hidden()
    expect(page.locator("[data-testid=account-toggle]")).to_be_hidden()  # the header names nobody
    expect(page.locator("[data-testid=nav-login]")).to_be_visible()
    assert page.evaluate("localStorage.getItem('belote.guest')") is None

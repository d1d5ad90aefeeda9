"""Small things a player notices at the table (issue #16, defect 9): the score sheet
says its title once and is never an empty grid, the bot level picked for the empty
seats stays picked and is labelled, a closed dialog does not keep the old language,
a spectator sees how many cards the bottom seat holds, a plate's declaration and belot
are readable; and the deal summary says when a valat raised the target (defect 5)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.ui import (
    READABLE,
    contrast,
    create_table,
    deal_over,
    play_until,
    sign_in,
    start_with_bots,
    table_state,
)

RAISED = 187  # the target the rewritten frame announces

pytestmark = pytest.mark.e2e


def test_the_score_sheet_before_the_first_deal_says_so_under_one_title(page: Page) -> None:
    sign_in(page, "Ana")
    create_table(page)
    page.locator("[data-testid=open-scores]").click()
    sheet = page.locator("#score-sheet")
    expect(sheet).to_be_visible()
    expect(sheet.locator("h2, h3")).to_have_text(["Score sheet"])
    expect(sheet.locator("[data-testid=sheet-empty]")).to_have_text(
        "No deal has ended yet: each deal's score appears here as it ends.")
    expect(sheet.locator("table")).to_have_count(0)


def test_the_fill_level_is_labelled_and_kept_after_filling(page: Page) -> None:
    sign_in(page, "Ana")
    create_table(page)
    level = page.get_by_label("Bot level").and_(page.locator("[data-testid=fill-level]"))
    expect(page.locator("label:has([data-testid=fill-level])")).to_contain_text("Bot level")
    level.select_option("hard")
    page.locator("[data-testid=fill-bots]").click()
    for seat in (1, 2, 3):
        expect(page.locator(f"[data-plate='{seat}'] .bot-badge")).to_have_text("hard")
    expect(page.locator("[data-testid=fill-bots]")).to_be_disabled()  # the panel was redrawn
    expect(page.locator("[data-testid=fill-level]")).to_have_value("hard")


def test_a_closed_dialog_keeps_no_word_of_the_old_language(page: Page) -> None:
    sign_in(page, "Ana")
    create_table(page)
    close = page.locator("#score-sheet [data-testid=close]")
    page.locator("[data-testid=open-scores]").click()
    expect(close).to_have_attribute("aria-label", "Close")
    close.click()
    page.locator("#lang").select_option("fr")
    expect(page.locator("[data-testid=open-scores]")).to_have_text("Feuille de marque")
    expect(page.locator("[aria-label='Close']")).to_have_count(0)
    page.locator("[data-testid=open-scores]").click()
    expect(close).to_have_attribute("aria-label", "Fermer")


# The pills a plate shows (a declaration, a belot), drawn as table-view.js draws them.
PILLS = """() => {
  const chips = document.createElement('div');
  chips.className = 'chips';
  chips.innerHTML = '<span class="chip declared">Tierce</span>'
    + '<span class="chip belot">Belot</span>';
  document.querySelector('.plate').append(chips);
}"""


def test_a_plate_s_declaration_and_belot_are_readable(page: Page) -> None:
    """A declaration's pill once took the score sheet's page's white chip, its text left
    the plate's cream: unreadable (another page's class of the same name)."""
    sign_in(page, "Ana")
    create_table(page)
    page.evaluate(PILLS)
    pills = page.locator(".plate .chips .chip")
    expect(pills).to_have_count(2)
    ratios = [contrast(pills.nth(i)) for i in range(2)]
    assert all(ratio >= READABLE for ratio in ratios), ratios


def test_a_spectator_sees_the_bottom_seats_card_count(page: Page, open_page: OpenPage) -> None:
    sign_in(page, "Ana")
    table_id = start_with_bots(page)
    spectator = open_page()
    sign_in(spectator, "Ivo", f"/#/t/{table_id}")
    expect(spectator.locator("#match-score.watching")).to_be_visible()
    bottom = spectator.locator(".backs.pos-bottom")
    expect(bottom).to_be_visible()
    expect(bottom).to_have_attribute("data-hand-seat", "0")
    count = bottom.get_attribute("data-count")
    assert count and int(count) > 0
    expect(bottom.locator(".count")).to_be_visible()
    expect(bottom.locator(".count")).to_have_text(count)


def valat_on_the_wire(page: Page) -> None:
    """The table's socket through Playwright, the frame that ends the first played deal
    rewritten as a valat by the bidders that raised the target to RAISED: a live valat
    cannot be dealt on purpose, and the page needs only the server's word for it."""
    done: list[int] = []

    def route(page_side: WebSocketRoute) -> None:
        server_side = page_side.connect_to_server()

        def to_page(message: str | bytes) -> None:
            frame = json.loads(message)
            event = frame.get("event") if frame.get("type") == "event" else None
            results = (event or {}).get("deal_results")
            if results and not done and results[-1]["outcome"] != "redeal":
                team = results[-1]["bidder"] % 2
                results[-1]["valat"] = frame["view"]["results"][-1]["valat"] = team
                frame["view"]["target"] = RAISED
                done.append(team)
                message = json.dumps(frame)
            page_side.send(message)

        server_side.on_message(to_page)

    page.route_web_socket(re.compile(r"/api/tables/[^/]+/ws$"), route)


def test_the_summary_says_when_a_valat_raised_the_target(page: Page) -> None:
    valat_on_the_wire(page)
    sign_in(page, "Ana")
    start_with_bots(page)
    first = table_state(page).deal
    for _ in range(10):  # past deals everyone passed (no summary), to the first played one
        state = play_until(page, deal_over(first))
        if state.summary:
            break
        first = state.deal
    else:
        raise AssertionError("ten deals in a row thrown in")
    line = page.locator("#deal-summary [data-testid=valat]")
    expect(line).to_contain_text("Valat! Every trick to")
    expect(line).to_contain_text(f"A match cannot be won on a valat: it now goes to {RAISED}.")
    expect(page.locator("#score-sheet .dialog-foot .btn.primary")).to_have_text("Back to the game")

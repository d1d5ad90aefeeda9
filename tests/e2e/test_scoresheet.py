"""The score keeper on a phone (issue #35): a sheet for four names, deals entered with
the thumb and scored by the server, a summary no real deal gives refused with the
engine's reason and the entry kept, the last deal taken back, the winner shown, and the
sheet listed in the player's history."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import PHONE
from tests.e2e.ui import sign_in

pytestmark = pytest.mark.e2e

NAMES = ("Ana", "Boris", "Vera", "Georgi")


def new_sheet(page: Page) -> None:
    page.goto("/#/scores")
    for seat, name in enumerate(NAMES):
        page.locator(f"[data-testid=sheet-name-{seat}]").fill(name)
    page.locator("[data-testid=sheet-create]").click()
    expect(page.locator("[data-testid=sheet-deal] h2")).to_have_text("Deal 1")


def all_trumps_doubled(page: Page) -> None:
    """RECORD.md's example: Boris & Georgi's doubled all trumps, 174 points, a quarte and
    four jacks, one belot: 106 to 0."""
    page.locator("[data-testid=sheet-contract] [data-value=AT]").click()
    page.locator("[data-testid=sheet-bidder] [data-value='1']").click()
    page.locator("[data-testid=sheet-multiplier] [data-value='2']").click()
    page.locator("[data-testid=sheet-points]").fill("174")
    expect(page.locator("[data-testid=sheet-rest]")).to_have_text("Ana & Vera: 84")
    for combo in ("quarte", "carre-J"):
        page.locator("[data-testid=sheet-add-declaration-1]").select_option(combo)
    page.locator("[data-testid=sheet-belot-more-1]").click()
    page.locator("[data-testid=sheet-score]").click()


def test_a_match_with_real_cards_is_kept_deal_by_deal_on_a_phone(open_page: OpenPage) -> None:
    page = open_page(PHONE)
    sign_in(page, "Ana")
    new_sheet(page)
    all_trumps_doubled(page)
    expect(page.locator("[data-testid=sheet-total-1]")).to_have_text("106")
    expect(page.locator("[data-testid=sheet-total-0]")).to_have_text("0")
    expect(page.locator("[data-testid=sheet-deal-row]")).to_have_count(1)
    # Four jacks for one team, four nines for the other: only one team scores carrés.
    page.locator("[data-testid=sheet-contract] [data-value=H]").click()
    page.locator("[data-testid=sheet-points]").fill("100")
    page.locator("[data-testid=sheet-add-declaration-0]").select_option("carre-J")
    page.locator("[data-testid=sheet-add-declaration-1]").select_option("carre-9")
    page.locator("[data-testid=sheet-score]").click()
    expect(page.locator("[data-testid=sheet-refused]")).to_contain_text(
        "only one team scores each kind of declaration")
    expect(page.locator("[data-testid=sheet-points]")).to_have_value("100")
    page.locator("[data-testid=sheet-undo]").click()
    expect(page.locator("[data-testid=sheet-deal-row]")).to_have_count(0)
    expect(page.locator("[data-testid=sheet-points]")).to_have_value("")  # the form drawn anew
    expect(page.locator("[data-testid=sheet-total-1]")).to_have_text("0")
    for _ in range(2):
        all_trumps_doubled(page)
    expect(page.locator("[data-testid=sheet-winner]")).to_have_text("Boris & Georgi won")
    expect(page.locator("[data-testid=sheet-deal]")).to_have_count(0)
    page.goto("/#/history")
    expect(page.locator("[data-testid=history-sheets] [data-testid=sheet-row]")).to_contain_text(
        "0 : 212")


def test_the_score_keeper_asks_a_newcomer_for_a_name_first(page: Page) -> None:
    page.goto("/#/scores")
    expect(page.locator(".join-prompt")).to_contain_text("Choose a name to keep score sheets.")
    page.locator("#guest-name").fill("Ana")
    page.locator("[data-testid=save-name]").click()
    expect(page.locator("[data-testid=sheet-new]")).to_be_visible()
    expect(page.locator("[data-testid=sheet-name-0]")).to_have_value("Ana")

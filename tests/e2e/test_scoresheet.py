"""The score keeper on a phone (issue #35): a sheet for four names, deals entered with
the thumb and scored by the server, a summary no real deal gives refused with the
engine's reason and the entry kept, the last deal taken back, the winner shown, and the
sheet listed in the player's history."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import PHONE
from tests.e2e.ui import sign_in

pytestmark = pytest.mark.e2e

NAMES = ("Ana", "Boris", "Vera", "Georgi")
LANDSCAPE = ViewportSize(width=844, height=390)


def new_sheet(page: Page, variant: str | None = None) -> None:
    page.goto("/#/scores")
    if variant is not None:
        page.locator("[data-testid=sheet-new] select[name=variant]").select_option(variant)
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
    for row, value in (("contract", "AT"), ("bidder", "1"), ("multiplier", "2")):  # taken
        expect(page.locator(f"[data-testid=sheet-{row}] [data-value='{value}']")
               ).to_have_attribute("aria-checked", "true")
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
    for rows in (1, 2):  # each deal entered on the form drawn anew after the one before
        all_trumps_doubled(page)
        expect(page.locator("[data-testid=sheet-deal-row]")).to_have_count(rows)
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


def test_a_coinche_deal_is_entered_as_its_summary_on_a_phone_held_sideways(
        open_page: OpenPage) -> None:
    """Coinche's own entries: COINCHE.md §10.4's coinched 100 in spades with a belote
    (540 to 0 with the default rules), then the other team's capot bid and made, whose
    252 card points the form sets from the sheet (500)."""
    page = open_page(LANDSCAPE)
    sign_in(page, "Ana")
    new_sheet(page, "coinche")
    expect(page.locator("[data-testid=sheet-contract] [data-value]")).to_have_count(4)  # no SA, TA
    page.locator("[data-testid=sheet-value] [data-value='100']").click()
    page.locator("[data-testid=sheet-contract] [data-value=S]").click()
    page.locator("[data-testid=sheet-level] [data-value='1']").click()
    page.locator("[data-testid=sheet-points]").fill("95")
    expect(page.locator("[data-testid=sheet-rest]")).to_have_text("Boris & Georgi: 67")
    page.locator("[data-testid=sheet-belot-more-0]").click()
    page.locator("[data-testid=sheet-score]").click()
    expect(page.locator("[data-testid=sheet-total-0]")).to_have_text("540")
    page.locator("[data-testid=sheet-value] [data-value=capot]").click()
    page.locator("[data-testid=sheet-contract] [data-value=H]").click()
    page.locator("[data-testid=sheet-bidder] [data-value='1']").click()
    page.locator("[data-testid=sheet-valat] [data-value='1']").click()
    expect(page.locator("[data-testid=sheet-points]")).to_have_value("252")
    page.locator("[data-testid=sheet-score]").click()
    expect(page.locator("[data-testid=sheet-total-1]")).to_have_text("500")
    expect(page.locator("[data-testid=sheet-deal-row]")).to_have_count(2)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

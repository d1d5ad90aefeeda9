"""Presence at the table as a player sees it: the cover bot after missed turns is told,
with a way back ("I'm back", the protocol's `resume`); the waiting room's bot controls
are the table creator's alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import DESKTOP, PHONE, Server, serve
from tests.e2e.test_newcomer import OVERLAP
from tests.e2e.ui import Frames, create_table, fill_bots, sign_in, start, take_seat

pytestmark = pytest.mark.e2e

SIZES = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Bots at a person's pace: the cover bot and its three fellows would otherwise play
    the whole match in a blink, and a busy machine's page lag far behind the flood."""
    with serve(tmp_path_factory.mktemp("presence"), BOT_DELAY="0.3") as running:
        yield running
MY_SEAT_AUTOPLAY = """() => {
  const table = document.querySelector('#table');
  return !!table && table.dataset.status === 'playing'
    && !!document.querySelector('[data-testid=autoplay]');
}"""


IN_WINDOW = """selector => {
  const el = document.querySelector(selector);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  if (r.left < 0 || r.top < 0) return false;
  if (r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5) return false;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !!hit && (hit === el || el.contains(hit));
}"""


def inside_window(page: Page, selector: str) -> None:
    """``selector`` is wholly on screen and nothing covers its middle (checked in one
    look: the table redraws as the bots play)."""
    page.wait_for_function(IN_WINDOW, arg=selector, timeout=5_000)


def away(page: Page, table: str) -> Frames:
    """Ana starts a table against bots and does nothing: two 5 s turns time out and a bot
    takes the seat.  The frames the page sends, recorded."""
    frames = Frames.record(page)
    sign_in(page, "Ana")
    create_table(page, table, turn_seconds="5")
    fill_bots(page, "easy")
    start(page)
    page.wait_for_function(MY_SEAT_AUTOPLAY, timeout=60_000)
    return frames


@SIZES
def test_the_cover_bot_is_told_and_i_am_back_gives_the_seat_back(
        open_page: OpenPage, viewport: ViewportSize, tmp_path: Path) -> None:
    page = open_page(viewport)
    frames = away(page, "Away")
    banner = page.locator("[data-testid=autoplay]")
    expect(banner).to_contain_text("You missed your turns: a bot is playing for you")
    resume = banner.locator("[data-testid=resume]")
    expect(resume).to_have_text("I'm back")
    expect(page.locator(".plate.pos-bottom .away")).to_have_text("bot playing")
    inside_window(page, "[data-testid=autoplay]")
    # Above the hand, not over its top (issue #35), wherever the layout puts the hand.
    assert not page.evaluate(OVERLAP, ["[data-testid=autoplay]", "#hand .hand-card"])
    page.screenshot(path=tmp_path / f"autoplay-{viewport['width']}.png")
    resume.click()
    expect(banner).to_have_count(0)  # the seat's autoplay is false again
    assert any(f.get("type") == "resume" for f in frames.sent)
    expect(page.locator(".plate.pos-bottom .away")).to_have_count(0)


@SIZES
def test_a_key_on_the_page_also_brings_the_player_back(
        open_page: OpenPage, viewport: ViewportSize) -> None:
    page = open_page(viewport)
    frames = away(page, "Away again")
    page.keyboard.press("Shift")
    expect(page.locator("[data-testid=autoplay]")).to_have_count(0)
    assert any(f.get("type") == "resume" for f in frames.sent)


@SIZES
def test_only_the_creator_sees_the_bot_controls(
        open_page: OpenPage, viewport: ViewportSize, tmp_path: Path) -> None:
    ana = open_page(viewport)
    sign_in(ana, "Ana")
    table_id = create_table(ana, "Mine")
    expect(ana.locator("[data-testid=add-bot]")).to_have_count(3)
    expect(ana.locator("[data-testid=fill-bots]")).to_be_visible()

    ivo = open_page(viewport)
    sign_in(ivo, "Ivo", f"/#/t/{table_id}")
    table = ivo.locator("#table")
    expect(table).to_have_attribute("data-status", "waiting")
    expect(ivo.locator("[data-testid=sit]")).to_have_count(3)  # a visitor, not seated
    expect(ivo.locator("[data-testid=add-bot]")).to_have_count(0)
    expect(ivo.locator("[data-testid=fill-bots]")).to_have_count(0)
    expect(ivo.locator("select[data-testid=fill-level]")).to_have_count(0)
    expect(ivo.locator("[data-testid=creator-starts]")).to_be_visible()
    ivo.screenshot(path=tmp_path / f"visitor-{viewport['width']}.png")

    take_seat(ivo, 1)  # seated, still not the creator
    expect(ivo.locator("[data-testid=add-bot]")).to_have_count(0)
    expect(ivo.locator("[data-testid=remove-bot]")).to_have_count(0)
    expect(ivo.locator("[data-testid=fill-bots]")).to_have_count(0)
    expect(ivo.locator("[data-testid=start]")).to_have_count(0)

    fill_bots(ana)  # the creator's bots: Ivo sees them, with no control over them
    expect(ivo.locator("li.slot.bot")).to_have_count(2)
    expect(ivo.locator("[data-testid=remove-bot]")).to_have_count(0)
    expect(ana.locator("[data-testid=remove-bot]")).to_have_count(2)

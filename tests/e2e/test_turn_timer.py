"""The turn timer said where the player looks (issue #16, defect 3): while it is their
turn, the seconds left and a bar by their own hand, clear of the cards and falling; when
the time runs out, the server's choice named in words above the hand; and the other
players see that seat's plate marked.  A short turn (5 s, the least a table takes) that
nobody plays."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, ViewportSize, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.e2e.conftest import OpenPage
from tests.e2e.ui import (
    Frames,
    act,
    add_bot,
    close_summary,
    create_table,
    fill_bots,
    sign_in,
    start,
    table_state,
    take_seat,
)

pytestmark = pytest.mark.e2e

VIEWPORTS = pytest.mark.parametrize("viewport", [
    ViewportSize(width=1366, height=768), ViewportSize(width=390, height=844),
    ViewportSize(width=844, height=390)], ids=["desktop", "portrait", "landscape"])
SUITS = {"C": "♣ Clubs", "D": "♦ Diamonds", "H": "♥ Hearts", "S": "♠ Spades"}
CALLS = {"pass": "passed", "double": "doubled", "redouble": "redoubled",
         "NT": "bid No trumps", "AT": "bid All trumps"}

# The element is wholly in the window and overlaps none of the hand's cards.
CLEAR_OF_CARDS = """selector => {
  const el = document.querySelector(selector);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  if (r.left < 0 || r.top < 0) return false;
  if (r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5) return false;
  return [...document.querySelectorAll('#hand .hand-card')].every(card => {
    const c = card.getBoundingClientRect();
    return c.right <= r.left || c.left >= r.right || c.bottom <= r.top || c.top >= r.bottom;
  });
}"""
SECONDS_SHOWN = """() => Number(document
  .querySelector('[data-testid=turn-clock] .turn-clock-seconds')
  ?.textContent.match(/\\d+/)?.[0] ?? NaN)"""
# Each figure the clock shows, as it is drawn (window.secondsShown): read from here, the
# first could be its last second, after which "0 s" is seldom drawn before the timer plays.
WATCH_SECONDS = f"""() => {{
  const seen = window.secondsShown = [];
  new MutationObserver(() => {{
    const shown = ({SECONDS_SHOWN})();
    if (!Number.isNaN(shown) && shown !== seen.at(-1)) seen.push(shown);
  }}).observe(document.body, {{ subtree: true, childList: true, characterData: true }});
}}"""


def said(action: str) -> str:
    """What the notice says the server did, for an auction's call."""
    what = CALLS.get(action) or f"bid {SUITS[action]}"
    return f"Time ran out: the server {what} for you."


def told(notice: Locator, frames: Frames, seat: int) -> None:
    """The notice names what the timer chose for ``seat``: an action of one of the
    server's timeout events so far (the newest, unless another came since)."""
    expect(notice).to_be_visible()
    text = notice.locator(".timeout-text").inner_text().strip()
    chosen = [f["event"]["action"] for f in frames.received if f.get("type") == "event"
              and f["event"].get("by") == "timeout" and f["event"].get("seat") == seat]
    assert chosen, f"a notice with no timeout event for seat {seat}: {text!r}"
    assert text in {said(action) for action in chosen}, (text, chosen)


def seconds_fall(page: Page, clock: Locator) -> None:
    """The clock counts down: some figure it showed is below the one it showed before."""
    expect(clock).to_contain_text(re.compile(r"\d+ s"))
    page.wait_for_function(
        "() => window.secondsShown.some((shown, i) => shown < window.secondsShown[i - 1])")


@VIEWPORTS
def test_the_time_left_shows_by_the_hand_then_what_the_server_chose(
        open_page: OpenPage, viewport: ViewportSize) -> None:
    page = open_page(viewport)
    frames = Frames.record(page)
    sign_in(page, "Ana")
    create_table(page, "Timer", turn_seconds="5")
    fill_bots(page, "easy")
    page.evaluate(WATCH_SECONDS)
    start(page)

    clock = page.locator("[data-testid=turn-clock]")
    expect(clock).to_be_visible()
    expect(clock).to_contain_text("Your turn")
    page.wait_for_function(CLEAR_OF_CARDS, arg="[data-testid=turn-clock]")
    seconds_fall(page, clock)
    expect(clock).to_have_class(re.compile(r"\burgent\b"))  # a 5 s turn: all of it is the last 5 s

    notice = page.locator("[data-testid=timeout-notice]")
    told(notice, frames, 0)
    page.wait_for_function(CLEAR_OF_CARDS, arg="[data-testid=timeout-notice]")
    dismiss(page, notice)
    expect(notice).to_have_count(0)


def dismiss(page: Page, notice: Locator) -> None:
    """Close the notice, or answer the turn whose panel holds it (the answer clears it).
    With 5-second turns the game goes on meanwhile: a deal's summary may come over it, or
    the timer play again and the notice be drawn anew, so each way is tried until it is
    gone (a bounded number of times)."""
    close = notice.locator(".timeout-close")
    for _ in range(10):
        if not notice.count():
            return
        state = table_state(page)
        if state.summary:
            close_summary(page)
        elif close.is_visible():
            try:
                close.click(timeout=3000)  # read, and closed
            except PlaywrightTimeoutError:
                continue  # drawn anew or covered meanwhile: look again
        elif state.my_turn:
            act(page, state)
        else:
            page.wait_for_timeout(200)


def test_the_others_see_the_timer_play_on_that_seat_plate(open_page: OpenPage) -> None:
    ana, ivo = open_page(), open_page()
    ivo_frames = Frames.record(ivo)
    sign_in(ana, "Ana")
    table_id = create_table(ana, "Slow Ivo", turn_seconds="5")
    sign_in(ivo, "Ivo", path=f"/#/t/{table_id}")
    take_seat(ivo, 1)
    for seat in (2, 3):
        add_bot(ana, seat)
    start(ana)

    mark = ana.locator(".plate[data-plate='1'] [data-testid=timed-out]")
    expect(mark).to_have_text("time ran out")
    told(ivo.locator("[data-testid=timeout-notice]"), ivo_frames, 1)
    expect(ivo.locator(".plate[data-plate='1'] [data-testid=timed-out]")).to_have_count(0)
    expect(mark).to_have_count(0)  # a moment only

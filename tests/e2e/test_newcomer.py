"""What a newcomer tripped over (issue #35, defects), each where it could fail: a deal's
summary on a phone held sideways leaves the score in sight and its own header whole; the
timer's notice leaves the auction's log; on an upright phone no call's bubble covers a
seat's cards and the right seat's dealer chip leaves its count; the table's subtitle
reads; the house rules that differ show at the table; the timer never says more than the
turn; Play now greyed says why; a profile is no section of the navigation; a finished
match page asks the server for no analysis nobody asked for; the language menu shows
"Ελληνικά" whole; a plate's pills keep their height beside the dealer chip."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Request, ViewportSize, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import PHONE
from tests.e2e.ui import (
    TABLE_STATE,
    close_summary,
    create_table,
    fill_bots,
    play_until,
    sign_in,
    start,
    start_with_bots,
    table_state,
    wait_past,
)

pytestmark = pytest.mark.e2e

LANDSCAPE = ViewportSize(width=740, height=360)
# Whether two elements' boxes meet (the selectors' first visible ones); false if one is absent.
OVERLAP = """([a, b]) => {
  const box = (s) => [...document.querySelectorAll(s)].map((e) => e.getBoundingClientRect())
    .find((r) => r.width && r.height);
  const [p, q] = [box(a), box(b)];
  if (!p || !q) return false;
  return p.left < q.right - 1 && q.left < p.right - 1
    && p.top < q.bottom - 1 && q.top < p.bottom - 1;
}"""
# The timer's notice standing alone (not in a panel): its box and whether it overlaps the
# auction's log, or null while there is none.
NOTICE_ALONE = f"""() => {{
  const alone = "[data-testid=timeout-notice]:not(.in-panel)";
  const r = document.querySelector(alone)?.getBoundingClientRect();
  if (!r || !r.width) return null;
  return {{x: r.x, y: r.y, width: r.width, height: r.height,
          overlaps: ({OVERLAP})([alone, "#auction-log"])}};
}}"""
# WCAG's contrast ratio of an element's text against a colour given as "r,g,b".
CONTRAST = """([selector, background]) => {
  const lum = (rgb) => {
    const [r, g, b] = rgb.map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const color = getComputedStyle(document.querySelector(selector)).color;
  const text = color.match(/\\d+/g).slice(0, 3).map(Number);
  const [hi, lo] = [lum(text), lum(background.split(",").map(Number))].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}"""
FELT = "29,107,69"  # --felt, the table's green where the subtitle stands


def test_a_sideways_phones_deal_summary_leaves_the_score_in_sight(open_page: OpenPage) -> None:
    page = open_page(LANDSCAPE)
    sign_in(page, "Ana")
    start_with_bots(page)
    play_until(page, lambda state: state.summary)
    expect(page.locator("#score-sheet.floating")).to_be_visible()
    assert not page.evaluate(OVERLAP, ["#score-sheet", "#match-score"])
    expect(page.locator("#match-score .us")).to_be_visible()
    head = page.locator("#score-sheet .breakdown thead")
    if head.count():  # the figures' header is not cut on the right ("Us Ther")
        assert head.evaluate("e => e.getBoundingClientRect().right <= "
                             "e.closest('dialog').getBoundingClientRect().right + 1")


def test_the_timers_notice_leaves_the_auctions_log(open_page: OpenPage) -> None:
    page = open_page(ViewportSize(width=844, height=390))
    sign_in(page, "Ana")
    create_table(page, turn_seconds="5")
    fill_bots(page)
    start(page)
    # A turn of the player's ran out: the notice stands alone until the player is asked
    # again, when the panel of that turn takes it (turn-timer.js).  Its box is read while
    # alone, in the same instant as the overlap: on a loaded machine the next turn could
    # come between two reads.
    box = page.wait_for_function(NOTICE_ALONE, timeout=30_000).json_value()
    # Not in the bottom right corner, where the auction's log stands (150 px wide).
    assert box["y"] + box["height"] < 390 - 120 or box["x"] + box["width"] < 844 - 160, box
    assert not box["overlaps"], box


def test_an_upright_phone_hides_no_seats_cards(open_page: OpenPage) -> None:
    """A deal's summary open while the next auction runs, each call's bubble under its
    plate: none over a seat's cards; and the right seat's dealer chip off its count."""
    page = open_page(PHONE)
    sign_in(page, "Ana")
    start_with_bots(page)
    play_until(page, lambda state: state.summary)
    for _ in range(3):  # until a bot has called before the player's turn (it may open)
        page.wait_for_function(f"() => ({TABLE_STATE})().my_turn")
        if page.locator(".plate .bubble").count():
            break
        state = table_state(page)
        page.locator("#actions button[data-action=pass]").click()
        wait_past(page, state.version)
    expect(page.locator("#score-sheet.floating")).to_be_visible()
    expect(page.locator(".plate .bubble").first).to_be_visible()
    for seat in ("top", "left", "right"):
        bubble = [f".plate.pos-{seat} .bubble", f".backs.pos-{seat}"]
        assert not page.evaluate(OVERLAP, bubble), seat
    chip = [".plate.pos-right .dealer-chip", ".backs.pos-right .count"]
    assert not page.evaluate(OVERLAP, chip)


def test_the_table_says_its_house_rules_and_reads_on_the_felt(page: Page) -> None:
    sign_in(page, "Ana")
    create_table(page, table_direction="clockwise")
    fill_bots(page)
    start(page)
    rules = page.locator("#match-score [data-testid=house-rules]")
    expect(rules).to_contain_text(re.compile("Clockwise", re.I))
    expect(rules).not_to_contain_text("Points to win")  # the target is the line above
    assert page.evaluate(CONTRAST, [".table-title .muted", FELT]) >= 4.5
    assert page.evaluate(CONTRAST, [".table-title", FELT]) >= 4.5
    # A plate's level pill keeps its height beside the dealer's chip.
    heights = page.evaluate("() => [...document.querySelectorAll('.plate-tags > .bot-badge')]"
                            ".map((e) => e.getBoundingClientRect().height)")
    assert heights and max(heights) < 20, heights


def test_a_standard_table_shows_no_house_rules_line(page: Page) -> None:
    sign_in(page, "Ana")
    create_table(page)
    fill_bots(page)
    start(page)
    expect(page.locator("#match-score [data-testid=house-rules]")).to_be_hidden()


def test_the_timer_never_says_more_than_the_turn(page: Page) -> None:
    """A clock estimate a little off put the deadline past the turn's length: "31 s"."""
    sign_in(page, "Ana")
    said = page.evaluate("""async () => {
      const { updateTurnClock } = await import('/js/turn-timer.js');
      const clock = document.createElement('div');
      clock.innerHTML = '<span class="turn-clock-seconds"></span>'
        + '<span class="turn-clock-fill"></span>';
      clock.dataset.deadline = Date.now() + 30_900;
      clock.dataset.total = 30_000;
      updateTurnClock(clock);
      return clock.querySelector('.turn-clock-seconds').textContent;
    }""")
    assert said == "30 s"


def test_play_now_greyed_says_why(page: Page) -> None:
    page.goto("/")
    expect(page.locator("[data-testid=play-now]")).to_be_disabled()
    expect(page.locator("[data-testid=quick-needs-name]")).to_be_visible()
    page.locator("#guest-name").fill("Ana")
    page.locator("[data-testid=save-name]").click()
    expect(page.locator("[data-testid=play-now]")).to_be_enabled()
    expect(page.locator("[data-testid=quick-needs-name]")).to_have_count(0)


def test_a_profile_is_no_section_of_the_navigation(page: Page) -> None:
    sign_in(page, "Ana")
    me = page.evaluate("() => JSON.parse(localStorage.getItem('belote.guest')).id")
    page.goto(f"/#/players/{me}")
    expect(page.locator("[data-testid=nav-leaderboard]")).not_to_have_class(re.compile(r"\bactive\b"))
    expect(page.locator("header nav a.active")).to_have_count(0)


def test_a_match_page_asks_for_no_analysis_nobody_asked_for(page: Page) -> None:
    sign_in(page, "Ana")
    table_id = start_with_bots(page, target_score="1")
    play_until(page, lambda state: state.status == "over")
    asked: list[str] = []

    def seen(request: Request) -> None:
        if "/api/" in request.url and request.url.endswith("/analysis"):
            asked.append(f"{request.method} {request.url}")

    page.on("request", seen)
    page.goto(f"/#/match/{table_id}")
    expect(page.locator("[data-testid=analyse]")).to_be_visible()
    page.wait_for_timeout(500)
    assert asked == []


def test_the_phone_language_menu_shows_greek_whole(open_page: OpenPage) -> None:
    page = open_page(PHONE)
    page.goto("/")
    page.locator("#lang").select_option("el")
    expect(page.locator("[data-testid=nav-history]")).not_to_have_text("History")
    room = page.locator("#lang").evaluate("""(select) => {
      const style = getComputedStyle(select);
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const text = ctx.measureText(select.selectedOptions[0].textContent).width;
      return select.clientWidth - text;
    }""")
    assert room >= 24, room  # the text and the arrow


def test_close_summary_is_still_reachable(open_page: OpenPage) -> None:
    """The summary moved nothing out of reach: it closes at 740x360."""
    page = open_page(LANDSCAPE)
    sign_in(page, "Ana")
    start_with_bots(page)
    play_until(page, lambda state: state.summary)
    close_summary(page)

"""The end of a deal: its last trick is held and goes to its winner like every other
trick, before the next deal replaces it; the deal's summary then opens beside the table
without hiding a plate, the trick, the hand or the player's calls."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import DESKTOP, PHONE
from tests.e2e.ui import (
    TABLE_STATE,
    act,
    deal_over,
    play_until,
    sign_in,
    start_with_bots,
    table_state,
)

pytestmark = pytest.mark.e2e

# Ana sits at seat 0; a Bulgarian table goes counterclockwise (labels.js).
POSITIONS = {0: "bottom", 1: "right", 2: "top", 3: "left"}
SLACK = 1.5  # one held trick against another: a timer's own jitter

# Every full trick the page shows (four cards: a finished trick held on the table), as
# it goes: its deal, its cards in play order, the card lit as the winner, the sweep, when
# it appeared, swept and left, and the deal on screen once it left; and when the deal
# summary first opened.  Also how long the page had stalled by then (a beat's timer
# fired late: a loaded machine's), so that a trick's time on screen less the stalls in
# it is the time the client held it.
RECORD_TRICKS = """(() => {
  const log = { tricks: [], summaryAt: null, stalled: 0 };
  window.__dealEnd = log;
  const BEAT = 50;
  let beat = performance.now();
  const stalled = (now) => log.stalled + Math.max(0, now - beat - BEAT);
  setInterval(() => {
    const now = performance.now();
    log.stalled = stalled(now);
    beat = now;
  }, BEAT);
  let current = null;
  const look = () => {
    const table = document.querySelector('#table');
    const trick = document.querySelector('#trick');
    const now = performance.now();
    const cards = trick ? [...trick.querySelectorAll('.trick-card')] : [];
    const key = table && cards.length === 4
      ? `${table.dataset.deal}:${cards.map(c => c.dataset.card).join(',')}` : null;
    if (current && current.key !== key) {
      current.end = now;
      current.stalledEnd = stalled(now);
      current.endDeal = table ? table.dataset.deal : null;
      current = null;
    }
    if (key && !current) {
      current = { key, deal: table.dataset.deal, cards: cards.map(c => c.dataset.card),
                  winning: null, sweep: null, start: now, sweepAt: null, end: null, endDeal: null,
                  stalledStart: stalled(now), stalledEnd: null };
      log.tricks.push(current);
    }
    if (current) {
      const lit = trick.querySelector('.trick-card.winning');
      if (lit) current.winning = Number(lit.dataset.seat);
      const sweep = [...trick.classList].find(c => c.startsWith('sweep-'));
      if (sweep && !current.sweep) { current.sweep = sweep; current.sweepAt = now; }
    }
    if (log.summaryAt === null && document.querySelector('#score-sheet[open] #deal-summary')) {
      log.summaryAt = now;
    }
  };
  new MutationObserver(look).observe(document,
    { subtree: true, childList: true, attributes: true });
})()"""


def held_for(trick: dict[str, Any]) -> float:
    """How long the client held a trick on screen: its time there less the page's stalls."""
    return float(trick["end"] - trick["start"] - (trick["stalledEnd"] - trick["stalledStart"]))


def last_trick_shown(page: Page, rest: httpx2.Client, table_id: str, deal: int
                     ) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """The deal's last trick as the server's replay has it, as the page showed it, and
    every trick of the deal the page showed."""
    last = rest.get(f"/api/matches/{table_id}/replay").json()["deals"][deal]["tricks"][-1]
    log: dict[str, Any] = page.evaluate("() => window.__dealEnd")
    held = [t for t in log["tricks"] if t["deal"] == str(deal)]
    shown = [t for t in held if t["cards"] == last["cards"]]
    assert len(shown) == 1, (last, held)
    return last, shown[0], held


@pytest.mark.parametrize("animations", [True, False], ids=["animated", "reduced-motion"])
def test_the_last_trick_of_a_deal_goes_to_its_winner(open_page: OpenPage, rest: httpx2.Client,
                                                       animations: bool) -> None:
    # The normal pace: the fast one's tricks (0.45 s) leave a loaded machine's timers too
    # little room against the deal's end (one held 1.1 s against 0.6-0.7 s in a CI run).
    page = open_page(reduced_motion=not animations, pace="normal")
    page.add_init_script(RECORD_TRICKS)
    sign_in(page, "Ana")
    table_id = start_with_bots(page, target_score="1000")  # the match goes on after a deal
    first = table_state(page).deal
    play_until(page, deal_over(first))
    expect(page.locator("#deal-summary")).to_be_visible()

    last, trick, held = last_trick_shown(page, rest, table_id, int(first))
    log: dict[str, Any] = page.evaluate("() => window.__dealEnd")
    assert trick["winning"] == last["winner"], trick  # the winner's card is lit
    if animations:
        assert trick["sweep"] == f"sweep-{POSITIONS[last['winner']]}", trick
        assert trick["start"] < trick["sweepAt"] < trick["end"], trick
    else:
        assert trick["sweep"] is None, trick  # no slide under reduced motion
    # Still the old deal on screen while it is held; the next one replaces it.
    assert trick["endDeal"] == str(int(first) + 1), trick
    assert log["summaryAt"] is not None and log["summaryAt"] >= trick["end"], log
    # It holds the next deal's turn no longer than the deal's other tricks.
    others = [held_for(t) for t in held if t is not trick and t["end"] is not None]
    assert others, held
    assert held_for(trick) <= max(others) * SLACK, (trick, others)
    # Before the new deal's first trick, "last trick" shows that one, with its winner.
    page.get_by_test_id("last-trick").click()
    dialog = page.locator("#last-trick")
    expect(dialog).to_be_visible()
    shown = dialog.locator(".trick-card")
    assert [card.get_attribute("data-card") for card in shown.all()] == last["cards"]
    assert dialog.locator(".trick-card.winning").get_attribute("data-seat") == str(
        last["winner"])


# Whether each of the match's end's buttons lies whole inside its dialog and the window.
MATCH_OVER_BUTTONS = """() => {
  const dialog = document.querySelector('#match-over').getBoundingClientRect();
  return [...document.querySelectorAll('#match-over .row.center .btn')].map((b) => {
    const r = b.getBoundingClientRect();
    return [b.textContent, dialog.top <= r.top && r.bottom <= dialog.bottom
                           && r.bottom <= innerHeight];
  });
}"""
FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
PHONES = {"844x390": ViewportSize(width=844, height=390),
          "740x360": ViewportSize(width=740, height=360),
          "390x844": ViewportSize(width=390, height=844),
          "360x740": ViewportSize(width=360, height=740)}


def test_the_last_trick_of_the_match_goes_to_its_winner(open_page: OpenPage,
                                                         rest: httpx2.Client) -> None:
    """And then the match's end keeps its buttons in sight on a phone, held either way, with
    a guest's offer to keep the history above them (sideways, they were cut by its foot)."""
    page = open_page(reduced_motion=False)
    page.add_init_script(RECORD_TRICKS)
    sign_in(page, "Ana")
    table_id = start_with_bots(page, target_score="1")  # over after a deal or two
    play_until(page, lambda state: state.status == "over")
    expect(page.locator("#match-over")).to_be_visible()

    deals = rest.get(f"/api/matches/{table_id}").json()["deals"]
    last, trick, _ = last_trick_shown(page, rest, table_id, len(deals) - 1)
    assert trick["winning"] == last["winner"], trick
    assert trick["sweep"] == f"sweep-{POSITIONS[last['winner']]}", trick
    assert trick["end"] is not None and trick["sweepAt"] < trick["end"], trick

    expect(page.locator("#match-over .keep-offer")).to_be_visible()
    for label, size in PHONES.items():
        page.set_viewport_size(size)
        page.evaluate(FRAMES)
        buttons = page.evaluate(MATCH_OVER_BUTTONS)
        assert len(buttons) == 3 and all(whole for _, whole in buttons), (label, buttons)


# Boxes of what the summary must leave in sight, by a name for the failure message.
COVERABLE = """() => {
  const boxes = {};
  const add = (name, el) => {
    if (!el || !el.checkVisibility()) return;
    const r = el.getBoundingClientRect();
    if (r.width && r.height) boxes[name] = [r.left, r.top, r.right, r.bottom];
  };
  document.querySelectorAll('.plate').forEach(e => {
    add(`plate ${e.dataset.plate}`, e);
    add(`call of ${e.dataset.plate}`, e.querySelector('.bubble'));
    add(`chips of ${e.dataset.plate}`, e.querySelector('.chips'));
  });
  document.querySelectorAll('.backs').forEach(e => add(`backs ${e.dataset.handSeat}`, e));
  document.querySelectorAll('#trick .trick-card, #hand .hand-card').forEach(
    e => add(`card ${e.dataset.card}`, e));
  add('trick', document.querySelector('#trick'));
  add('hand', document.querySelector('#hand'));
  add('actions', document.querySelector('#actions.panel'));
  return boxes;
}"""
SUMMARY_BOX = """() => {
  const r = document.querySelector('#score-sheet').getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom];
}"""
MY_TURN = f"""() => {{
  const state = ({TABLE_STATE})();
  return !!state && state.my_turn;
}}"""
MAX_STEPS = 400


def overlapping(page: Page) -> dict[str, list[float]]:
    left, top, right, bottom = page.evaluate(SUMMARY_BOX)
    return {name: box for name, box in page.evaluate(COVERABLE).items()
            if box[0] < right and left < box[2] and box[1] < bottom and top < box[3]}


@pytest.mark.parametrize("viewport", [DESKTOP, ViewportSize(width=1920, height=1080), PHONE],
                         ids=["1280x800", "1920x1080", "390x844"])
def test_the_deal_summary_hides_no_plate_trick_or_hand(open_page: OpenPage,
                                                       viewport: ViewportSize) -> None:
    page = open_page(viewport=viewport)
    sign_in(page, "Ana")
    start_with_bots(page, target_score="1000")
    first = table_state(page).deal
    play_until(page, deal_over(first))
    sheet = page.locator("#score-sheet")
    expect(sheet.locator("#deal-summary")).to_be_visible()
    assert not sheet.evaluate("dialog => dialog.matches(':modal')")
    box = sheet.bounding_box()
    assert box is not None and box["height"] >= 80, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], box
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], box

    # The next deal goes on under the open summary: the auction, then cards on the table.
    seen = set()
    for _ in range(MAX_STEPS):
        page.wait_for_function(MY_TURN)
        state = table_state(page)
        assert state.summary, "the summary closed by itself"
        assert not overlapping(page), (state.phase, overlapping(page))
        seen.add(state.phase)
        if state.phase == "play" and state.trick:
            break
        act(page, state)  # a real click beside the summary
    else:
        raise AssertionError(f"no card on the table: {table_state(page)}")
    assert seen == {"auction", "play"}, seen


# Whether the auction's log of calls was ever on the page with no call in it, and
# whether it was there with calls (so that the watch itself is known to work).
WATCH_AUCTION_LOG = """(() => {
  const seen = { empty: false, calls: false };
  window.__auctionLog = seen;
  new MutationObserver(() => {
    const log = document.querySelector('#auction-log');
    if (!log) return;
    if (log.querySelector('li')) seen.calls = true; else seen.empty = true;
  }).observe(document, { subtree: true, childList: true, attributes: true });
})()"""


def test_no_empty_auction_log_before_the_first_call(open_page: OpenPage) -> None:
    # On a phone the log is a dark strip over the felt: empty, it was a bar of nothing.
    page = open_page(viewport=PHONE)
    page.add_init_script(WATCH_AUCTION_LOG)
    sign_in(page, "Ana")
    start_with_bots(page, target_score="1000")
    play_until(page, lambda state: state.phase == "play")
    assert page.evaluate("() => window.__auctionLog") == {"empty": False, "calls": True}

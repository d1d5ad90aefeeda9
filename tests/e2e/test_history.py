"""After a finished match (a target of 1 point ends it after a deal or two): the player's
history lists it, its page shows the deals and the chart, the replay steps through it."""

from __future__ import annotations

import httpx2
import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.ui import play_until, sign_in, start_with_bots

pytestmark = pytest.mark.e2e

MAX_STEPS = 20
REPLAY_HANDS = """() => [0, 1, 2, 3].flatMap(seat => [...document.querySelectorAll(
  `[data-replay-seat='${seat}'] [data-card]`)].map(e => e.dataset.card))"""
REPLAY_TRICK = """() => [...document.querySelectorAll('#replay-trick [data-card]')]
  .map(e => e.dataset.card)"""


# Whether an element is what a tap at its centre would reach.
ON_TOP = """(el) => {
  const r = el.getBoundingClientRect();
  return el.contains(document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2));
}"""


def test_a_finished_match_is_listed_and_replays_trick_by_trick(page: Page,
                                                                rest: httpx2.Client) -> None:
    sign_in(page, "Ana")
    table_id = start_with_bots(page, target_score="1")
    play_until(page, lambda state: state.status == "over")
    expect(page.locator("#match-over")).to_be_visible()
    expect(page.locator("[data-testid=rematch]")).to_be_visible()
    match = rest.get(f"/api/matches/{table_id}").json()
    assert match["finished_at"] is not None

    page.locator("[data-testid=nav-history]").click()
    page.locator(f"[data-testid=match-row][data-match-id='{table_id}']").click()
    expect(page.locator("#match")).to_be_visible()
    expect(page.locator("#score-chart")).to_be_visible()
    expect(page.locator("#match tr[data-deal]")).to_have_count(len(match["deals"]))

    page.locator("[data-testid=open-replay]").click()
    expect(page.locator("#replay")).to_be_visible()
    for seat in range(4):
        expect(page.locator(f"[data-replay-seat='{seat}'] [data-card]")).not_to_have_count(0)
    dealt = page.evaluate(REPLAY_HANDS)
    position = page.locator("[data-testid=replay-position]")
    start_position = position.inner_text()
    for _ in range(MAX_STEPS):  # to the first card on the table
        if page.evaluate(REPLAY_TRICK):
            break
        page.locator("[data-testid=replay-next]").click()
    played = page.evaluate(REPLAY_TRICK)
    assert played and set(played) <= set(dealt)
    assert not set(played) & set(page.evaluate(REPLAY_HANDS))
    expect(position).not_to_have_text(start_position)
    page.keyboard.press("ArrowLeft")  # back one step: what it played returns to the hands
    expect(position).to_have_text(start_position)
    returned = set(played) - set(page.evaluate(REPLAY_TRICK))
    assert returned and returned <= set(page.evaluate(REPLAY_HANDS))

    # Held sideways, a phone's screen is lower than the board: with the trick scrolled into
    # sight, the steps are still there to tap (they stay under the header).
    for size in (ViewportSize(width=844, height=390), ViewportSize(width=740, height=360)):
        page.set_viewport_size(size)
        page.locator(".replay-trick").scroll_into_view_if_needed()
        for testid in ("replay-prev", "replay-next"):
            assert page.locator(f"[data-testid={testid}]").evaluate(ON_TOP), (size, testid)

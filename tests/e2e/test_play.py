"""Playing at a table against bots with the mouse and the keyboard: a whole deal to the
score sheet, a dimmed card that does nothing, the arrow keys and Enter."""

from __future__ import annotations

import re
from itertools import pairwise

import httpx2
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.ui import (
    CARD,
    Frames,
    TableState,
    act,
    click_visible,
    deal_over,
    play_until,
    sign_in,
    start_with_bots,
    table_state,
    wait_past,
)

pytestmark = pytest.mark.e2e

# The card under the keyboard's focus ring.
FOCUSED = """() => document.querySelector('#hand [data-card].focused, #hand [data-card]:focus')
  ?.dataset.card ?? null"""


def numbers(text: str) -> list[int]:
    return [int(number) for number in re.findall(r"-?\d+", text)]


def test_a_whole_deal_by_clicking_ends_on_the_server_s_score(open_page: OpenPage,
                                                              rest: httpx2.Client) -> None:
    page = open_page(reduced_motion=False)  # with the animations a newcomer gets
    frames = Frames.record(page)
    sign_in(page, "Ana")
    table_id = start_with_bots(page)
    first = table_state(page).deal
    turns: list[TableState] = []

    def offers_what_the_server_allows(state: TableState) -> None:
        allowed = frames.last_state()["view"]["legal_actions"]
        plain = {action.removesuffix("+belot") for action in allowed}
        assert set(state.legal) == {action for action in plain if CARD.match(action)}
        assert set(state.actions) == {action for action in plain if not CARD.match(action)}
        turns.append(state)

    play_until(page, deal_over(first), each_turn=offers_what_the_server_allows)
    assert {"auction", "play"} <= {turn.phase for turn in turns}

    deal = rest.get(f"/api/matches/{table_id}").json()["deals"][int(first)]
    table = rest.get(f"/api/tables/{table_id}").json()
    assert deal["outcome"] in ("made", "failed", "hanging"), deal  # the human always bids
    sheet = page.locator("#score-sheet")
    if not sheet.evaluate("dialog => dialog.open"):
        page.locator("[data-testid=open-scores]").click()
    row = sheet.locator(f"tr[data-deal='{first}']")
    expect(row).to_be_visible()
    cells = [cell.strip() for cell in row.locator("td").all_inner_texts()]
    us, them = (str(points) for points in deal["score"])  # Ana's team is team 0
    assert (us, them) in pairwise(cells), (cells, deal)
    reported = frames.last_state()["view"]["results"][int(first)]
    assert reported["score"] == deal["score"]
    score = numbers(page.locator("#match-score").inner_text())
    assert {*table["totals"], 151} <= set(score), (score, table["totals"])  # us, them, target
    assert not [frame for frame in frames.received if frame["type"] == "error"]


def test_a_dimmed_card_sends_nothing(page: Page) -> None:
    frames = Frames.record(page)
    sign_in(page, "Ana")
    start_with_bots(page)

    def must_follow(state: TableState) -> bool:
        return state.my_turn and state.phase == "play" and bool(state.disabled) \
            and bool(state.legal) and not state.actions

    state = play_until(page, must_follow)
    illegal = page.locator(f"#hand [data-card='{state.disabled[0]}']")
    expect(illegal).to_have_attribute("aria-disabled", "true")
    sent = len(frames.sent)
    click_visible(page, illegal)
    after = table_state(page)
    assert (after.version, after.hand) == (state.version, state.hand)
    # Then a legal card: the first (and only) action sent since is that one.
    act(page, after, after.legal[0])
    assert [action.removesuffix("+belot") for action in frames.actions_sent(sent)] \
        == [after.legal[0]]
    expect(page.locator("#toasts .toast")).to_have_count(0)


def test_arrow_keys_and_enter_play_a_card(page: Page) -> None:
    frames = Frames.record(page)
    sign_in(page, "Ana")
    start_with_bots(page)

    def leading(state: TableState) -> bool:  # every card legal, no belot question to ask
        plain = not any(action.endswith("+belot")
                        for action in frames.last_state()["view"]["legal_actions"])
        return state.my_turn and state.phase == "play" and not state.actions \
            and len(state.hand) >= 2 and state.legal == state.hand and plain

    state = play_until(page, leading)
    sent = len(frames.sent)
    page.keyboard.press("ArrowRight")
    first = page.evaluate(FOCUSED)
    page.keyboard.press("ArrowRight")
    second = page.evaluate(FOCUSED)
    assert first in state.hand and second in state.hand and first != second
    page.keyboard.press("Enter")
    wait_past(page, state.version)
    assert frames.actions_sent(sent) == [second]
    assert second not in table_state(page).hand

"""Two people at one table, each in a browser of their own: a reload or a lost connection
mid-trick comes back to the same seat, hand and trick; neither ever sees a card of the
other's hand."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import PHONE
from tests.e2e.ui import (
    Frames,
    Line,
    TableState,
    act,
    add_bot,
    cards_in,
    create_table,
    mid_trick,
    play_together,
    sign_in,
    start,
    table_state,
    take_seat,
)

pytestmark = pytest.mark.e2e

# Every card any attribute of the page names (data-card, data-action, labels...).
ATTRIBUTES = """() => [...document.querySelectorAll('*')]
  .flatMap(e => [...e.attributes].map(a => a.value))"""


def seat_two_guests(ana: Page, ivo: Page, second_seat: int) -> None:
    """Ana creates a table (seat 0); Ivo opens its link and sits at ``second_seat``; easy
    bots fill the rest and Ana starts."""
    sign_in(ana, "Ana")
    table_id = create_table(ana)
    sign_in(ivo, "Ivo", path=f"/#/t/{table_id}")
    take_seat(ivo, second_seat)
    for seat in {1, 2, 3} - {second_seat}:
        add_bot(ana, seat)
    start(ana)


def test_a_reload_or_a_lost_connection_resumes_the_same_seat_hand_and_trick(
        open_page: OpenPage) -> None:
    ana, ivo = open_page(), open_page()
    seat_two_guests(ana, ivo, second_seat=1)
    # Ivo, next after Ana, keeps the table waiting: nothing moves while Ana is away.
    play_together([ana, ivo], mid_trick("1"))
    before = table_state(ana)
    frames = Frames.record(ana)
    line = Line(ana)
    ana.reload()
    table = ana.locator("#table")
    expect(table).to_have_attribute("data-version", str(before.version))
    expect(table).to_have_attribute("data-my-seat", before.my_seat)
    expect(ana.locator("#hand [data-card]")).to_have_count(len(before.hand))
    banner = ana.locator("#conn-banner")
    expect(banner).to_be_hidden()
    assert table_state(ana) == before
    assert frames.sockets == 1 and frames.sent[0]["type"] == "hello"

    line.cut()  # the connection drops: a notice until the client is back
    expect(banner).to_be_visible()
    line.mend()
    expect(banner).to_be_hidden()
    assert table_state(ana) == before
    assert table_state(ivo).version == before.version
    # The new socket is live: Ivo's card reaches Ana.
    act(ivo, table_state(ivo))
    expect(table).not_to_have_attribute("data-version", str(before.version))


def assert_hidden(viewer: Page, frames: Frames, other_hand: list[str]) -> None:
    """No frame ``viewer`` received and nothing in its page names a card of the other
    hand, while both do name every card of the viewer's own (so the search works)."""
    own = set(table_state(viewer).hand)
    assert other_hand and own
    received = set().union(*(cards_in(frame) for frame in frames.received))
    shown = cards_in(viewer.evaluate(ATTRIBUTES))
    assert own <= received and own <= shown
    assert not received & set(other_hand), sorted(received & set(other_hand))
    assert not shown & set(other_hand), sorted(shown & set(other_hand))


def test_each_player_sees_only_their_own_hand(open_page: OpenPage) -> None:
    ana, eva = open_page(), open_page()
    frames = {ana: Frames.record(ana), eva: Frames.record(eva)}
    seat_two_guests(ana, eva, second_seat=2)  # partners: even a partner's cards stay hidden

    def check() -> None:
        hands = {page: table_state(page).hand for page in (ana, eva)}
        for page in (ana, eva):
            assert sorted(frames[page].last_state()["view"]["hand"]) == sorted(hands[page])
        assert_hidden(ana, frames[ana], hands[eva])
        assert_hidden(eva, frames[eva], hands[ana])

    def dealt(state: TableState) -> bool:
        return bool(state.hand)

    def three_tricks_on(state: TableState) -> bool:
        return state.phase == "play" and len(state.hand) <= 5 and state.deal == "0"

    play_together([ana, eva], dealt)
    expect(eva.locator("#hand [data-card]")).not_to_have_count(0)
    check()  # the auction: five cards each
    play_together([ana, eva], three_tricks_on)
    assert table_state(eva).deal == "0"  # still the first deal: nothing revealed yet
    check()


def test_only_the_creator_is_offered_bots_and_the_start(open_page: OpenPage) -> None:
    """A guest who opens the link and sits is told who starts; the controls are Ana's."""
    ana, ivo = open_page(), open_page(viewport=PHONE)
    sign_in(ana, "Ana")
    table_id = create_table(ana)
    sign_in(ivo, "Ivo", path=f"/#/t/{table_id}")
    take_seat(ivo, 2)
    expect(ivo.locator("[data-testid=creator-starts]")).to_be_visible()
    for control in ("start", "add-bot", "fill-bots", "remove-bot"):
        expect(ivo.locator(f"[data-testid={control}]")).to_have_count(0)
    expect(ana.locator("[data-testid=start]")).to_be_visible()
    expect(ana.locator("[data-testid=creator-starts]")).to_have_count(0)
    for seat in (1, 3):
        add_bot(ana, seat)
    start(ana)
    expect(ivo.locator("#table")).to_have_attribute("data-status", "playing")

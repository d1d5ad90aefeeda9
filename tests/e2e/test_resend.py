"""A card in flight while a cluster moves the table: the socket drops, and the first
reconnect is closed at once with 1013 (TRY_AGAIN), so the client resends the card twice.
The card is played once, its answer reaches the page, no error shows, and the next card
plays too.  (The client once added a field to its second resend; the server refuses
unknown fields with an `error` that has no id, so the card stayed pending and every later
click did nothing until a reload.)"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import pytest
from playwright.sync_api import Page, ViewportSize, WebSocketRoute, expect

from tests.e2e.conftest import TIMEOUT_MS, OpenPage
from tests.e2e.harness import DESKTOP, PHONE
from tests.e2e.ui import (
    TableState,
    act,
    click_visible,
    my_card,
    play_until,
    sign_in,
    start_with_bots,
    table_state,
    wait_past,
)
from tests.waiting import Deadline

pytestmark = pytest.mark.e2e

T = TypeVar("T")
TRY_AGAIN = 1013  # a cluster cannot reach the table's node this moment
ACTION_FIELDS = {"type", "id", "version", "action"}  # all an action frame may carry
TABLE_SOCKET = re.compile(r"/api/tables/[^/]+/ws$")
# Where the first drop happens: before the server sees the card, or after it played it
# and before its ack reaches the page.  Either way, the first resend is dropped too.
FirstCut = Literal["action", "ack"]


@dataclass
class Mover:
    """The page's table sockets routed through Playwright to the real server, every frame
    passed on and noted, as a cluster moving the table would look to the client: once
    armed, the socket carrying the next action (or, for ``first_cut="ack"``, its ack) is
    closed with 1013 and the frame dropped, then the socket carrying the resent action
    likewise; after these two cuts every frame flows.

    Only the page's side is closed: the server's stays open until the page's next socket
    replaces it, so the table never sees the player gone (a bot covering the seat would
    play the card at once, as this server's bots do not pause)."""

    first_cut: FirstCut
    cuts_left: int = 0
    sockets: int = 0
    to_server: list[dict[str, Any]] = field(default_factory=list)  # passed on, in order
    to_page: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)

    def lay(self, page: Page) -> None:
        page.route_web_socket(TABLE_SOCKET, self._route)

    def arm(self) -> None:
        self.cuts_left = 2

    def _route(self, page_side: WebSocketRoute) -> None:
        server_side = page_side.connect_to_server()
        self.sockets += 1
        cut = False

        def drop(frame: dict[str, Any]) -> None:
            nonlocal cut
            cut = True
            self.cuts_left -= 1
            self.dropped.append(frame)
            page_side.close(code=TRY_AGAIN, reason="the table is moving")

        def from_page(payload: str | bytes) -> None:
            frame = _parse(payload)
            if cut:
                return
            if frame.get("type") == "action" and self.cuts_left and (
                    self.first_cut == "action" or self.cuts_left < 2):
                drop(frame)
                return
            self.to_server.append(frame)
            server_side.send(payload)

        def from_server(payload: str | bytes) -> None:
            frame = _parse(payload)
            if cut:
                return
            if frame.get("type") == "ack" and self.cuts_left == 2 and self.first_cut == "ack":
                drop(frame)
                return
            self.to_page.append(frame)
            page_side.send(payload)

        def closed_by(other: WebSocketRoute) -> Callable[[int | None, str | None], None]:
            def forward(code: int | None, reason: str | None) -> None:
                if not cut:
                    other.close(code=code, reason=reason)
            return forward

        page_side.on_message(from_page)
        server_side.on_message(from_server)
        page_side.on_close(closed_by(server_side))
        server_side.on_close(closed_by(page_side))

    def answers(self, since: int = 0) -> list[dict[str, Any]]:
        """Acks and errors the page was given (an error may carry no id)."""
        return [f for f in self.to_page[since:] if f.get("type") in ("ack", "error")]

    def last_view(self) -> dict[str, Any]:
        states = [f for f in self.to_page if f.get("type") in ("snapshot", "event")]
        assert states, "no state message received"
        view: dict[str, Any] = states[-1]["view"]
        return view


def _parse(payload: str | bytes) -> dict[str, Any]:
    message = json.loads(payload)
    assert isinstance(message, dict), payload
    return message


def waited(page: Page, what: str, found: Callable[[], T | None]) -> T:
    """``found()`` once it is not None, the page's events handled meanwhile."""
    deadline = Deadline(TIMEOUT_MS / 1000, what)
    while (value := found()) is None:
        deadline.check()
        page.wait_for_timeout(50)
    return value


def plain_card(mover: Mover, state: TableState) -> str:
    """A legal card the server offers without belot (a belot card asks first)."""
    offered = mover.last_view()["legal_actions"]
    plain = [card for card in state.legal if f"{card}+belot" not in offered]
    assert plain, (state, offered)
    return plain[0]


@pytest.mark.parametrize("first_cut", ["action", "ack"],
                         ids=["lost-on-the-way", "answer-lost"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_card_resent_over_two_reconnects_is_played_once_and_the_next_card_plays(
        open_page: OpenPage, viewport: ViewportSize, first_cut: FirstCut) -> None:
    page = open_page(viewport=viewport)
    mover = Mover(first_cut)
    mover.lay(page)
    sign_in(page, "Ana")
    start_with_bots(page)

    def my_card_with_another_left(state: TableState) -> bool:
        return my_card()(state) and len(state.hand) > 1  # the next card is in this deal

    state = play_until(page, my_card_with_another_left)
    card = plain_card(mover, state)
    mover.arm()
    sent_before, heard_before = len(mover.to_server), len(mover.to_page)
    click_visible(page, page.locator(f"#hand [data-card='{card}']"))

    # Two cuts, each dropping a frame of the card's; the third socket carries the card.
    waited(page, "the socket cut twice", lambda: True if mover.cuts_left == 0 else None)
    action_id = mover.dropped[-1]["id"]
    answer = waited(page, f"an answer to {action_id} after the cuts",
                    lambda: next(iter(mover.answers(heard_before)), None))
    assert (answer["type"], answer.get("id")) == ("ack", action_id), answer
    assert mover.sockets >= 3

    sent = [f for f in mover.to_server[sent_before:] if f.get("type") == "action"]
    every_send = sent + [f for f in mover.dropped if f.get("type") == "action"]
    for frame in every_send:  # the first send and both resends alike
        assert set(frame) == ACTION_FIELDS, frame
        assert (frame["id"], frame["version"], frame["action"]) \
            == (action_id, state.version, card), frame
    if first_cut == "action":  # the server heard it once, on the third socket
        assert len(sent) == 1 and len(mover.dropped) == 2, (sent, mover.dropped)
    else:  # heard on the first and third sockets; the second answer repeats the first
        dropped_ack = mover.dropped[0]
        assert dropped_ack["type"] == "ack" and dropped_ack["id"] == action_id
        assert answer["version"] == dropped_ack["version"]
        assert len(sent) == 2, sent

    # Played once: one event for it, the card gone from the hand, nothing else of Ana's.
    mine = [(e["action"], e["by"]) for e in (f["event"] for f in mover.to_page[heard_before:]
                                            if f.get("type") == "event")
            if e.get("kind") == "action" and e.get("seat") == 0]
    assert mine == [(card, "player")], mine
    wait_past(page, state.version)
    after = table_state(page)
    assert sorted(after.hand) == sorted(set(state.hand) - {card}), (state.hand, after.hand)

    # Nothing is left pending: the next card plays, and is answered.
    nxt = play_until(page, my_card())
    heard = len(mover.to_page)
    act(page, nxt, plain_card(mover, nxt))
    acks = waited(page, "the next card's ack", lambda: [
        f for f in mover.answers(heard) if f["type"] == "ack"] or None)
    assert acks[0]["version"] == nxt.version + 1, acks
    assert not [f for f in mover.to_page if f.get("type") == "error"], mover.to_page
    expect(page.locator("#toasts .toast")).to_have_count(0)  # no "not understood"

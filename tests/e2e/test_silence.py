"""A socket that stays open and carries nothing (a paused node or proxy on the way) is
given up by the client, which connects again and plays on: it pings every few seconds,
and a ping left unanswered is silence (app/static/js/socket.js, docs/protocol.md
"ping / pong").  Without that, the browser waited as long as the pause lasted, while the
turn timer and then a bot played the seat."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.ui import act, sign_in, start_with_bots, wait_for_something_to_do

pytestmark = pytest.mark.e2e

TABLE_SOCKET = re.compile(r"/api/tables/[^/]+/ws$")
# Each status the connection banner is shown with, as it happens (window.bannerShown).
WATCH_BANNER = """() => {
  const banner = document.getElementById("conn-banner");
  window.bannerShown = [];
  new MutationObserver(() => {
    if (!banner.hidden) window.bannerShown.push(banner.dataset.status);
  }).observe(banner, { attributes: true, attributeFilter: ["hidden", "data-status"] });
}"""


class Stall:
    """The page's table sockets routed through Playwright to the real server, every frame
    passed on both ways, closes too, until :meth:`freeze`: from then on the sockets open
    then carry nothing either way and never close, neither side knowing, as through a
    paused node.  Sockets opened later flow."""

    def __init__(self, page: Page) -> None:
        self.sockets = 0
        self.frozen = 0  # sockets opened before the freeze: these carry nothing
        self.passed_after_freeze = 0  # frames a frozen socket would have carried
        page.route_web_socket(TABLE_SOCKET, self._route)

    def freeze(self) -> None:
        self.frozen = self.sockets

    def _route(self, page_side: WebSocketRoute) -> None:
        server_side = page_side.connect_to_server()
        self.sockets += 1
        number = self.sockets

        def stuck() -> bool:
            if number <= self.frozen:
                self.passed_after_freeze += 1
                return True
            return False

        def to_server(message: str | bytes) -> None:
            if not stuck():
                server_side.send(message)

        def to_page(message: str | bytes) -> None:
            if not stuck():
                page_side.send(message)

        def close(other: WebSocketRoute, code: int | None, reason: str | None) -> None:
            if not stuck():
                other.close(code=code, reason=reason)

        page_side.on_message(to_server)
        server_side.on_message(to_page)
        page_side.on_close(lambda code, reason: close(server_side, code, reason))
        server_side.on_close(lambda code, reason: close(page_side, code, reason))


def test_a_silent_socket_is_given_up_and_play_goes_on(page: Page) -> None:
    stall = Stall(page)
    sign_in(page, "Ana")
    start_with_bots(page)
    state = wait_for_something_to_do(page)
    assert stall.sockets == 1
    page.evaluate(WATCH_BANNER)
    stall.freeze()
    # The client saw the silence and said it was away: the banner stands about half a
    # second, the retry's wait, which a poll from here can miss on a loaded machine.
    page.wait_for_function("() => window.bannerShown.length > 0")
    assert page.evaluate("window.bannerShown")[0] == "offline"
    expect(page.locator("#conn-banner")).to_be_hidden()  # back on a new socket
    assert stall.sockets == 2 and stall.passed_after_freeze > 0, \
        (stall.sockets, stall.passed_after_freeze)  # a ping, at least, went unanswered
    act(page, state)  # the turn it held is played, through the new socket

"""Driving the browser client like a player, through the stable selectors of the client
contract (a lobby, a table, a hand of cards): shared by the e2e tests and
tools/screenshots.py.  Every wait is on the page's own state (``#table`` data
attributes), never on the clock."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Locator, Page, WebSocket, WebSocketRoute, expect

BIDS = ("C", "D", "H", "S", "NT", "AT")
CARD = re.compile(r"^[789TJQKA][CDHS]$")
MAX_STEPS = 400  # actions of one driven match segment: far more than a deal needs

# One look at the table: what #table's attributes say and what the page offers.
TABLE_STATE = """() => {
  const table = document.querySelector('#table');
  if (!table) return null;
  const shown = (el) => !!el && el.checkVisibility();
  const cards = (selector) => [...document.querySelectorAll(selector)].map(e => e.dataset.card);
  const d = table.dataset;
  const legal = cards('#hand .legal[data-card]');
  const actions = [...document.querySelectorAll('#actions button[data-action]')]
    .filter(shown).map(e => e.dataset.action);
  return {
    status: d.status || '', phase: d.phase || '', turn: d.turn || '',
    my_seat: d.mySeat || '', version: Number(d.version), deal: d.deal || '',
    hand: cards('#hand [data-card]'), legal, actions,
    trick: [...document.querySelectorAll('#trick [data-card]')]
      .map(e => [e.dataset.seat, e.dataset.card]),
    summary: shown(document.querySelector('#deal-summary'))
      || !!document.querySelector('#score-sheet')?.open,
    my_turn: d.status === 'playing' && d.turn !== '' && d.turn === d.mySeat
      && (legal.length > 0 || actions.length > 0),
  };
}"""

# True once there is something for the test to do: its turn, a deal summary, or the end.
SOMETHING_TO_DO = f"""() => {{
  const state = ({TABLE_STATE})();
  return !!state && (state.status === 'over' || state.summary || state.my_turn);
}}"""

# WCAG's contrast ratio between an element's text and its own background; 0 when that
# background is not opaque (what shows through it is not measured here).
CONTRAST = """(el) => {
  const channels = (colour) => colour.match(/[\\d.]+/g).map(Number);
  const luminance = (colour) => {
    const [r, g, b] = channels(colour).slice(0, 3).map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const style = getComputedStyle(el);
  if ((channels(style.backgroundColor)[3] ?? 1) < 1) return 0;
  const [light, dark] = [luminance(style.color), luminance(style.backgroundColor)]
    .sort((a, b) => b - a);
  return (light + 0.05) / (dark + 0.05);
}"""
READABLE = 4.5  # WCAG AA for body text


def contrast(element: Locator) -> float:
    ratio: float = element.evaluate(CONTRAST)
    return ratio


# A point where ``el`` is the topmost element (cards of a fan overlap one another).
VISIBLE_POINT = """(el) => {
  const r = el.getBoundingClientRect();
  for (const fy of [0.5, 0.3, 0.7, 0.15]) {
    for (const fx of [0.5, 0.3, 0.15, 0.07, 0.7, 0.85]) {
      const x = r.left + r.width * fx, y = r.top + r.height * fy;
      const hit = document.elementFromPoint(x, y);
      if (hit && (hit === el || el.contains(hit))) return {x, y};
    }
  }
  return null;
}"""


@dataclass(frozen=True)
class TableState:
    """The table as the page shows it (see TABLE_STATE)."""

    status: str
    phase: str
    turn: str
    my_seat: str
    version: int
    deal: str
    hand: list[str]
    legal: list[str]
    actions: list[str]
    trick: list[list[str]]
    summary: bool
    my_turn: bool

    @property
    def disabled(self) -> list[str]:
        return [card for card in self.hand if card not in self.legal]


def table_state(page: Page) -> TableState:
    state = page.evaluate(TABLE_STATE)
    assert state is not None, "no #table on the page"
    return TableState(**state)


@dataclass
class Frames:
    """Every frame a page's table sockets send and receive, parsed, in order (not the
    player's own channel of notices, ``/api/me/ws``, open on every page)."""

    sent: list[dict[str, Any]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    sockets: int = 0

    @classmethod
    def record(cls, page: Page) -> Frames:
        frames = cls()
        page.on("websocket", frames._opened)
        return frames

    def _opened(self, socket: WebSocket) -> None:
        if "/api/tables/" not in socket.url:
            return
        self.sockets += 1
        socket.on("framesent", lambda payload: self.sent.append(_parse(payload)))
        socket.on("framereceived", lambda payload: self.received.append(_parse(payload)))

    def actions_sent(self, since: int = 0) -> list[str]:
        return [frame["action"] for frame in self.sent[since:] if frame.get("type") == "action"]

    def last_state(self) -> dict[str, Any]:
        """The newest snapshot or event the server sent."""
        states = [f for f in self.received if f.get("type") in ("snapshot", "event")]
        assert states, "no state message received"
        return states[-1]


class Line:
    """The page's table sockets routed through Playwright, so a test can cut the
    connection (as a network drop would) and mend it.  Only sockets opened after it is
    laid go through it."""

    def __init__(self, page: Page) -> None:
        self.up = True
        self.open: list[WebSocketRoute] = []
        page.route_web_socket(re.compile(r"/api/tables/[^/]+/ws$"), self._route)

    def _route(self, socket: WebSocketRoute) -> None:
        if self.up:
            socket.connect_to_server()
            self.open.append(socket)
        else:
            socket.close(code=1006)  # refused while cut: the client keeps retrying

    def cut(self) -> None:
        self.up = False
        for socket in self.open:
            socket.close(code=1006)
        self.open.clear()

    def mend(self) -> None:
        self.up = True


def _parse(payload: str | bytes) -> dict[str, Any]:
    message = json.loads(payload)
    assert isinstance(message, dict), payload
    return message


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a JSON value or string (``TH``, ``KH+belot``,
    ``announce QS KS AS``...)."""
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value))
    if isinstance(value, str):
        return {token for token in re.split(r"[\s+]", value) if CARD.match(token)}
    return set()


# ----------------------------------------------------------------------------- lobby


def sign_in(page: Page, name: str, path: str = "/") -> None:
    """Open ``path`` as a new visitor and pick a guest name (kept in ``belote.guest``)."""
    page.goto(path)
    page.locator("#guest-name").fill(name)
    page.locator("[data-testid=save-name]").click()
    page.wait_for_function(
        "name => JSON.parse(localStorage.getItem('belote.guest') || 'null')?.name === name",
        arg=name,
    )
    if path == "/":
        expect(page.locator("[data-testid=whoami]")).to_have_text(name)


def create_table(page: Page, name: str = "e2e", variant: str = "bulgarian",
                 turn_seconds: str = "600", **options: str) -> str:
    """Fill the lobby's create form (house rules by RULES §9 flag name) and submit; the
    creator lands on the table at seat 0.  Returns the table's id.  The longest turn by
    default: no timer plays for a slow test."""
    form = page.locator("#create-table")
    form.locator("select[name=variant]").select_option(variant)
    form.locator("input[name=name]").fill(name)
    form.locator("input[name=turn_seconds]").fill(turn_seconds)
    for flag, value in options.items():
        control = form.locator(f"[name=opt-{flag}]")
        control.wait_for(state="attached")
        folded = form.locator(f"details:not([open]):has([name=opt-{flag}]) > summary")
        if folded.count():
            folded.click()  # house rules may sit in a folded section
        set_control(control, value)
    form.locator("[data-testid=create]").click()
    page.wait_for_url(re.compile(r"#/t/[^/]+$"))
    table_id = page.url.rsplit("/", 1)[1]
    table = page.locator("#table")
    expect(table).to_have_attribute("data-table-id", table_id)
    expect(table).to_have_attribute("data-my-seat", "0")
    return table_id


def set_control(control: Locator, value: str) -> None:
    kind = control.evaluate("e => e.tagName === 'SELECT' ? 'select' : e.type")
    if kind == "select":
        control.select_option(value)
    elif kind == "checkbox":
        control.set_checked(value == "true")
    else:
        control.fill(value)


def take_seat(page: Page, seat: int) -> None:
    page.locator(f"[data-seat-slot='{seat}'] [data-testid=sit]").click()
    expect(page.locator("#table")).to_have_attribute("data-my-seat", str(seat))


def add_bot(page: Page, seat: int, level: str = "easy") -> None:
    slot = page.locator(f"[data-seat-slot='{seat}']")
    slot.locator("select[data-testid=bot-level]").select_option(level)
    slot.locator("[data-testid=add-bot]").click()
    expect(slot.locator("[data-testid=add-bot]")).to_have_count(0)  # the seat is taken


def fill_bots(page: Page, level: str = "easy") -> None:
    page.locator("select[data-testid=fill-level]").select_option(level)
    page.locator("[data-testid=fill-bots]").click()


def start_with_bots(page: Page, level: str = "easy", name: str = "e2e",
                    **create: str) -> str:
    """A table created from the lobby (see :func:`create_table`), bots of ``level`` in
    the three other seats, started.  Returns the table's id."""
    table_id = create_table(page, name, **create)
    fill_bots(page, level)
    start(page)
    return table_id


def start(page: Page) -> None:
    button = page.locator("[data-testid=start]")
    expect(button).to_be_enabled()
    button.click()
    expect(page.locator("#table")).to_have_attribute("data-status", "playing")


# ----------------------------------------------------------------------------- play


def wait_for_something_to_do(page: Page) -> TableState:
    page.wait_for_function(SOMETHING_TO_DO)
    return table_state(page)


def click_visible(page: Page, target: Locator) -> None:
    """A real mouse click on a part of ``target`` that nothing covers."""
    target.scroll_into_view_if_needed()
    point = target.evaluate(VISIBLE_POINT)
    assert point is not None, "the element is covered everywhere"
    page.mouse.click(point["x"], point["y"])


def choose(state: TableState) -> str:
    """A legal action by a fixed policy: announce belot and combinations when offered,
    open or raise the bidding with the lowest bid (so every deal gets a contract), never
    double, else the first legal card."""
    for action in state.actions:
        if action.endswith("+belot") or action.startswith("announce"):
            return action
    if state.phase == "auction":
        bids = [action for action in state.actions if action in BIDS]
        return bids[0] if bids else "pass"
    assert state.legal, f"nothing to play: {state}"
    return state.legal[0]


def act(page: Page, state: TableState, action: str | None = None) -> None:
    """Do ``action`` (default: :func:`choose`) by clicking, and wait until the table's
    version moves past ``state``'s."""
    action = action or choose(state)
    if CARD.match(action):
        click_visible(page, page.locator(f"#hand [data-card='{action}']"))
        page.wait_for_function(
            """([version, card]) => {
                 const v = Number(document.querySelector('#table').dataset.version);
                 return v > version || !!document.querySelector(
                   `#actions button[data-action='${card}+belot']`);
               }""",
            arg=[state.version, action],
        )
        belot = page.locator(f"#actions button[data-action='{action}+belot']")
        if belot.count():
            belot.click()
    else:
        page.locator("#actions").locator(f"button[data-action='{action}']").click()
    wait_past(page, state.version)


def wait_past(page: Page, version: int) -> None:
    page.wait_for_function(
        "v => Number(document.querySelector('#table').dataset.version) > v", arg=version
    )


def close_summary(page: Page) -> None:
    page.locator("#score-sheet [data-testid=close]:visible, "
                 "#deal-summary [data-testid=close]:visible").first.click()
    expect(page.locator("#score-sheet")).not_to_have_attribute("open", "")


def play_until(page: Page, done: Callable[[TableState], bool],
               each_turn: Callable[[TableState], None] | None = None) -> TableState:
    """Act at each of the page's turns (closing deal summaries) until ``done`` holds for
    the table, which it is checked against before every action and at the end;
    ``each_turn`` looks at every turn before the action."""
    for _ in range(MAX_STEPS):
        state = wait_for_something_to_do(page)
        if done(state):
            return state
        if state.summary:
            close_summary(page)
        elif state.status == "over":
            raise AssertionError(f"the match ended before the goal: {state}")
        elif state.my_turn:
            if each_turn:
                each_turn(state)
            act(page, state)
    raise AssertionError(f"no goal after {MAX_STEPS} steps: {table_state(page)}")


def play_together(pages: Iterable[Page], done: Callable[[TableState], bool]) -> None:
    """Two or more players at one table: whoever's turn it is acts, until ``done`` holds
    for the first page's view of the table.  Polls the pages' own state."""
    pages = list(pages)
    for _ in range(MAX_STEPS * 20):
        if done(table_state(pages[0])):
            return
        for page in pages:
            state = table_state(page)
            if state.summary:
                close_summary(page)
            elif state.my_turn:
                act(page, state)
                break
        else:
            pages[0].wait_for_timeout(50)  # between bots' moves; the loop is bounded
    raise AssertionError(f"no goal: {table_state(pages[0])}")


def deal_over(first_deal: str) -> Callable[[TableState], bool]:
    return lambda state: state.deal != first_deal or state.status == "over"


def mid_trick(seat: str) -> Callable[[TableState], bool]:
    """``seat`` is to play a card with cards already in the trick (four cards on the
    table are a finished trick the page still shows)."""
    return lambda state: state.phase == "play" and state.turn == seat \
        and 0 < len(state.trick) < 4


def my_call(state: TableState) -> bool:
    """The page's player is to speak in the auction."""
    return state.my_turn and state.phase == "auction"


def my_card(on_table: int = 0) -> Callable[[TableState], bool]:
    """The page's player is to play a card (nothing else offered), with at least
    ``on_table`` cards already in the trick."""
    return lambda state: state.my_turn and state.phase == "play" and not state.actions \
        and on_table <= len(state.trick) < 4

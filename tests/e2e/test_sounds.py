"""The table's sounds (issue #16): a switch in the header, off at first where the browser
does not say audio may start unprompted (Chromium does not), remembered after a reload;
with it on, the table's events sound: the player's turn, a card, a trick taken, the deal
over, time almost up; with it off, nothing at all.

What sounds is seen from outside the client: an init script wraps the page's Web Audio
(`AudioContext.prototype.createOscillator`) and logs each oscillator's wave and first
frequency as the client starts it; each sound is known by its first note, as
js/sounds.js writes them (TURN, CARD... below)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.ui import (
    act,
    close_summary,
    create_table,
    deal_over,
    fill_bots,
    play_until,
    sign_in,
    start,
    table_state,
)

pytestmark = pytest.mark.e2e

TURN, CARD, TRICK, DEAL, HURRY = ("sine", 660), ("triangle", 190), ("triangle", 587), \
    ("sine", 523), ("square", 1046)

# Every oscillator the page starts, as [wave, first frequency]; and the contexts made.
LISTEN = """(() => {
  window.heard = [];
  window.contexts = [];
  const Original = window.AudioContext;
  window.AudioContext = class extends Original {
    constructor(...args) { super(...args); window.contexts.push(this); }
  };
  const create = Original.prototype.createOscillator;
  Original.prototype.createOscillator = function () {
    const osc = create.call(this);
    let first = null;
    const set = osc.frequency.setValueAtTime.bind(osc.frequency);
    osc.frequency.setValueAtTime = (value, when) => {
      if (first === null) first = value;
      return set(value, when);
    };
    const begin = osc.start.bind(osc);
    osc.start = (...when) => { window.heard.push([osc.type, first]); return begin(...when); };
    return osc;
  };
})();"""
HEARD = "() => window.heard"


def heard(page: Page) -> list[tuple[str, float]]:
    return [(wave, round(freq)) for wave, freq in page.evaluate(HEARD)]


def wait_to_hear(page: Page, note: tuple[str, int], after: int = 0) -> None:
    """Until ``note`` is among what the page played since the ``after``-th oscillator."""
    page.wait_for_function(
        "([wave, freq, after]) => window.heard.slice(after)"
        ".some(([w, f]) => w === wave && Math.round(f) === freq)",
        arg=[*note, after])


def switch(page: Page) -> Any:
    return page.locator("[data-testid=sounds]")


def open_settings(page: Page) -> None:
    """Open the header's settings menu, where the switches fold."""
    toggle = page.locator("[data-testid=settings-toggle]")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


def turn_on(page: Page) -> None:
    """Tick the switch."""
    open_settings(page)
    switch(page).check()


def test_the_switch_is_off_at_first_and_remembered(open_page: OpenPage) -> None:
    page = open_page()
    page.add_init_script(LISTEN)
    sign_in(page, "Ana")
    expect(switch(page)).not_to_be_checked()
    turn_on(page)
    page.reload()
    expect(switch(page)).to_be_checked()
    assert page.evaluate("() => localStorage.getItem('belote.sounds')") == "1"
    open_settings(page)
    switch(page).uncheck()
    page.reload()
    expect(switch(page)).not_to_be_checked()


def test_off_the_table_is_silent(open_page: OpenPage) -> None:
    page = open_page()
    page.add_init_script(LISTEN)
    sign_in(page, "Ana")
    create_table(page, "Quiet")
    fill_bots(page)
    start(page)
    first = play_until(page, lambda state: state.my_turn and state.phase == "play")
    act(page, first)  # a card of mine, then the bots' cards
    assert heard(page) == []
    assert page.evaluate("() => window.contexts.length") == 0  # not even an AudioContext


def test_the_table_sounds_its_events(open_page: OpenPage) -> None:
    page = open_page()
    page.add_init_script(LISTEN)
    sign_in(page, "Ana")
    create_table(page, "Loud", turn_seconds="8")
    turn_on(page)
    page.wait_for_function("() => window.contexts.some(c => c.state === 'running')")
    fill_bots(page)
    start(page)

    wait_to_hear(page, TURN)  # the first call is the player's or comes round to them
    page.locator("[data-testid=turn-clock]").wait_for()
    wait_to_hear(page, HURRY)  # the player waits: 5 s are left (then the server calls)

    state = play_until(page, lambda s: s.my_turn and s.phase == "play")
    before = len(page.evaluate(HEARD))
    act(page, state)
    wait_to_hear(page, CARD, before)
    wait_to_hear(page, TRICK, before)  # four cards later
    play_until(page, deal_over(state.deal))
    wait_to_hear(page, DEAL, before)

    if table_state(page).summary:
        close_summary(page)
    open_settings(page)
    switch(page).uncheck()
    quiet = len(page.evaluate(HEARD))
    state = play_until(page, lambda s: s.my_turn)
    act(page, state)
    assert len(page.evaluate(HEARD)) == quiet

"""What the history pages tell of a match beyond its scores: bots told apart by the seat
they held (from the viewer's side, or by the compass for an onlooker), a valat that
raised the target (the chart's step, the deals table's mark, the words), and the card
that took a trick drawn on top in the replay.

The match is stored as a table would log it (tests/valat_match.py), in the test server's
own database, with the page's guest in seat 0."""

from __future__ import annotations

import asyncio
import re
import threading
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from ai import Level
from app.matchlog import Seat
from app.vocabulary import SeatKind
from tests.e2e.conftest import OpenPage
from tests.e2e.harness import Server
from tests.e2e.ui import sign_in
from tests.valat_match import store_valat_match

pytestmark = pytest.mark.e2e

# The target path's vertical positions, in drawing order ("M50,120H200V90H640").
TARGET_YS = """() => {
  const d = document.querySelector('#score-chart .chart-target').getAttribute('d');
  return [...d.matchAll(/[MV](?:[\\d.]+,)?([\\d.]+)/g)].map(m => Number(m[1]));
}"""
# The score chart drawn by chart.js from ``totals`` and ``targets`` at ``width`` x ``height``
# (the match page's sizes): whether a team's line passes through the target's label.
LABEL_CROSSED = """async ([totals, targets, width, height]) => {
  const { scoreChart } = await import('/js/chart.js');
  const target = `Target ${targets[targets.length - 1]}`;
  const chart = scoreChart({ totals, targets, width, height, id: 'drawn-chart', labels: {
    title: 'Score', desc: '', x: 'Deal', y: 'Points', teams: ['Us', 'Them'], target } });
  document.body.append(chart);
  const box = chart.querySelector('.chart-target-label').getBBox();
  const crossed = [...chart.querySelectorAll('.chart-team polyline')].some((line) => {
    for (let d = 0; d <= line.getTotalLength(); d += 1) {
      const p = line.getPointAtLength(d);
      if (p.x >= box.x && p.x <= box.x + box.width && p.y >= box.y && p.y <= box.y + box.height) {
        return true;
      }
    }
    return false;
  });
  chart.remove();
  return crossed;
}"""
# For the trick on show: is the card that took it above every other card of the trick?
WINNER_ON_TOP = """() => {
  const cards = [...document.querySelectorAll('#replay-trick .trick-card')];
  const winner = cards.find(c => c.classList.contains('winner'));
  const z = (c) => Number(getComputedStyle(c).zIndex);
  return !!winner && cards.every(c => c === winner || z(c) < z(winner));
}"""


def stored_match(server: Server, page: Page, match_id: str) -> None:
    """The valat match with the page's guest in seat 0, her partner a normal bot, the
    opponents a hard bot (seat 1) and an easy one (seat 3)."""
    guest: dict[str, Any] = page.evaluate("() => JSON.parse(localStorage.getItem('belote.guest'))")
    seats = [Seat(SeatKind.HUMAN, guest["name"], guest["id"]),
             Seat(SeatKind.BOT, "Bot", level=Level.HARD),
             Seat(SeatKind.BOT, "Bot", level=Level.NORMAL),
             Seat(SeatKind.BOT, "Bot", level=Level.EASY)]
    url = f"sqlite:///{server.log.parent / 'belote.db'}"  # harness.serve's database
    failure: list[BaseException] = []

    def store() -> None:  # Playwright's loop holds this thread: the store runs in another
        try:
            asyncio.run(store_valat_match(url, match_id, seats))
        except BaseException as exc:  # handed to the test's thread
            failure.append(exc)

    worker = threading.Thread(target=store)
    worker.start()
    worker.join()
    if failure:
        raise failure[0]


def test_the_match_list_says_who_played_with_and_against_the_player(
        page: Page, server: Server) -> None:
    sign_in(page, "Ana")
    stored_match(server, page, "valat-list")
    page.goto("/#/history")
    row = page.locator("[data-testid=match-row][data-match-id='valat-list']")
    expect(row.locator(".row-seats li.me")).to_have_text("with a bot partner (normal)")
    expect(row.locator(".row-seats li:not(.me)")).to_have_text("vs 2 bots (hard, easy)")


def test_a_valat_that_raised_the_target_shows_on_the_match_page(
        page: Page, server: Server) -> None:
    sign_in(page, "Ana")
    stored_match(server, page, "valat-page")
    page.goto("/#/match/valat-page")
    teams = page.locator(".match-team li")
    expect(teams).to_have_text(["Ana", "Bot (normal), your partner",
                                "Bot (hard), on your right", "Bot (easy), on your left"])
    expect(page.locator(".legend-target")).to_have_text("Target 30 → 36")
    expect(page.locator(".chart-target-label")).to_have_text("Target 36")
    ys = page.evaluate(TARGET_YS)
    assert ys[0] > ys[-1], f"the target line does not rise: {ys}"  # SVG y grows downwards
    assert len(set(ys)) == 2, f"one step, from 30 to 36: {ys}"
    valat_row = page.locator("#match tr[data-deal='0']")
    expect(valat_row).to_have_class(re.compile(r"\bvalat-deal\b"))
    expect(valat_row.locator(".valat-mark")).to_have_text("Valat")
    expect(valat_row.locator(".target-after")).to_have_text("Target 36")
    expect(page.locator("#match tr[data-deal] .valat-mark")).to_have_count(1)
    expect(page.locator("[data-testid=valat-notes]")).to_contain_text("rose from 30 to 36")
    expect(valat_row.locator("td.col-2")).to_have_text("Bot (normal), your partner")


@pytest.mark.parametrize(("totals", "targets", "width", "height"), [
    ([[14, 6]], [10, 10], 340, 240),  # a phone: just over the target, at the end
    ([[14, 6]], [10, 10], 640, 300),
    ([[14, 6]], [1, 1], 340, 240),  # far over a low target: the lines cross it at the start
    ([[40, 20], [90, 60], [160, 95]], [151, 151, 151, 151], 640, 300),
    ([[26, 0], [30, 16]], [30, 36, 36], 340, 240),  # a valat raised it
], ids=["phone", "desktop", "low-target", "three-deals", "raised"])
def test_no_team_line_crosses_the_target_s_label(page: Page, totals: list[list[int]],
                                                  targets: list[int], width: int,
                                                  height: int) -> None:
    page.goto("/")
    assert not page.evaluate(LABEL_CROSSED, [totals, targets, width, height])


def test_an_onlooker_tells_the_bots_apart_by_the_compass(page: Page, server: Server,
                                                          open_page: OpenPage) -> None:
    sign_in(page, "Ana")
    stored_match(server, page, "valat-onlooker")
    onlooker = open_page()
    onlooker.goto("/#/match/valat-onlooker")
    expect(onlooker.locator(".match-team li")).to_have_text(
        ["Ana", "Bot (normal), North", "Bot (hard), East", "Bot (easy), West"])


def test_the_replay_names_each_bot_by_its_seat_and_lifts_the_winning_card(
        page: Page, server: Server) -> None:
    sign_in(page, "Ana")
    stored_match(server, page, "valat-replay")
    page.goto("/#/replay/valat-replay")
    where = {seat: page.locator(f"[data-replay-seat='{seat}'] .plate-where") for seat in range(4)}
    expect(where[2]).to_have_text("your partner")
    expect(where[1]).to_have_text("on your right")
    expect(where[3]).to_have_text("on your left")
    expect(where[0]).to_have_count(0)  # Ana by her name alone
    expect(page.locator("[data-replay-seat='2']")).to_have_class(re.compile(r"\bpos-top\b"))
    expect(page.locator("[data-replay-seat='0']")).to_have_class(re.compile(r"\bpos-bottom\b"))
    position = page.locator("[data-testid=replay-position]")
    for trick in range(1, 9):  # every trick of the valat deal
        page.locator("[data-testid=replay-next]").click()
        expect(position).to_have_text(f"Deal 1 · Trick {trick}/8")
        assert page.evaluate(WINNER_ON_TOP), f"trick {trick}: the winning card is under another"
    expect(page.locator(".replay-valat")).to_contain_text("the target is now 36")

"""Coinche in the browser (issue #31): a table created with a preset, whose form shows the
flags it sets; the auction as a grid offering exactly the server's legal calls; the bid
and its multiplier shown at the table; a whole deal played to the score sheet, which says
made or failed and the scale the table scores by."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2
import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import PHONE, ROOT
from tests.e2e.test_rules_help import LANGUAGES, shape
from tests.e2e.ui import (
    CARD,
    Frames,
    TableState,
    act,
    add_bot,
    close_summary,
    create_table,
    fill_bots,
    sign_in,
    start,
    table_state,
    take_seat,
    wait_for_something_to_do,
)

pytestmark = pytest.mark.e2e

POINT_BID = re.compile(r"^(\d+|capot|generale)(C|D|H|S|SA|TA)$")
MAX_TURNS = 200  # far more than one deal of the page's player
LANDSCAPE = ViewportSize(width=844, height=390)
EVERY_BID = {"allow_sa": "true", "allow_ta": "true", "generale": "true"}


def coinche_table(page: Page, **options: str) -> str:
    """A Coinche table from the lobby, easy bots in the other seats, started."""
    table_id = create_table(page, "Coinche", variant="coinche", **options)
    fill_bots(page)
    start(page)
    return table_id


def grid_calls(page: Page) -> list[str]:
    calls: list[str] = page.locator("[data-testid=coinche-auction] button[data-action]") \
        .evaluate_all("buttons => buttons.map(b => b.dataset.action)")
    return calls


def play_first_deal(page: Page, frames: Frames, bid: str) -> list[TableState]:
    """Bid ``bid`` at the page's first call if it may (else the lowest bid it may, or pass),
    then pass; play the first legal card; until the first deal is over.  At each call the
    grid must offer exactly the server's legal calls.  The page's turns, in order."""
    first, turns = table_state(page).deal, list[TableState]()
    for _ in range(MAX_TURNS):
        state = wait_for_something_to_do(page)
        if state.deal != first or state.status == "over" or state.summary:
            return turns
        if not state.my_turn:
            continue
        turns.append(state)
        if state.phase == "auction":
            legal = frames.last_state()["view"]["legal_actions"]
            assert sorted(grid_calls(page)) == sorted(legal)
            bids = [call for call in legal if POINT_BID.match(call)]
            mine = [t for t in turns[:-1] if t.phase == "auction"]
            action = (bid if bid in bids else bids[0]) if bids and not mine else "pass"
            act(page, state, action)
        else:
            act(page, state, next(card for card in state.legal if CARD.match(card)))
    raise AssertionError(f"the deal did not end: {table_state(page)}")


def test_a_coinche_table_takes_a_preset_and_shows_the_flags_it_sets(page: Page,
                                                                   rest: httpx2.Client) -> None:
    sign_in(page, "Ana")
    form = page.locator("#create-table")
    form.locator("select[name=variant]").select_option("coinche")
    form.locator("details.house-rules > summary").click()
    preset = form.locator("select[name=opt-preset]")
    note = form.locator("[data-testid=preset-note]")
    expect(note).to_have_text("The standard rules, nothing changed.")
    preset.select_option("ffb_contree")
    expect(note).to_contain_text("Points to win: 2000")
    expect(note).to_contain_text("Belote of a failed contract: goes to the defence")
    expect(form.locator("[name=opt-target_score]")).to_have_value("2000")
    expect(form.locator("[name=opt-belote_on_failure]")).to_have_value("to_winner")
    table_id = create_table(page, "Contrée", variant="coinche", target_score="1500",
                            coinche_timing="any_time")
    options = rest.get(f"/api/tables/{table_id}").json()["options"]
    assert options["preset"] == "ffb_contree" and options["target_score"] == 1500
    assert options["coinche_timing"] == "any_time"
    assert options["belote_on_failure"] == "to_winner"  # the preset's, kept


def test_the_auction_by_grid_and_a_deal_to_the_score_sheet(open_page: OpenPage,
                                                           rest: httpx2.Client) -> None:
    page = open_page()
    frames = Frames.record(page)
    sign_in(page, "Ana")
    table_id = coinche_table(page)
    turns = play_first_deal(page, frames, "80H")
    assert {"auction", "play"} <= {turn.phase for turn in turns}

    deal = rest.get(f"/api/matches/{table_id}").json()["deals"][0]
    assert deal["outcome"] in ("made", "failed") and POINT_BID.match(deal["contract"])
    assert deal["value"] == int(re.sub(r"\D", "", deal["contract"]) or 0) or \
        deal["value"] in (250, 500)
    sheet = page.locator("#score-sheet")
    if not sheet.evaluate("dialog => dialog.open"):
        page.locator("[data-testid=open-scores]").click()
    row = sheet.locator("tr[data-deal='0']")
    side = "We" if deal["bidder"] % 2 == 0 else "They"  # Ana's team is team 0
    expect(row).to_contain_text(f"{side} made it" if deal["outcome"] == "made"
                                else f"{side} failed")
    expect(sheet.locator("[data-testid=score-scale]")).to_contain_text(
        "Scoring: points made + bid")
    close_summary(page)
    expect(page.locator("#contract")).to_be_visible()


@pytest.mark.parametrize("viewport", [PHONE, LANDSCAPE], ids=["upright", "sideways"])
def test_the_bid_and_its_coinche_stay_in_sight_on_a_phone(open_page: OpenPage,
                                                          viewport: ViewportSize) -> None:
    """The widest grid (sans-atout, tout-atout and générale enabled: eleven values, six
    strains) on a phone held either way: in sight, every cell inside the screen."""
    page = open_page(viewport)
    frames = Frames.record(page)
    sign_in(page, "Ana")
    coinche_table(page, **EVERY_BID)
    for _ in range(MAX_TURNS):
        state = wait_for_something_to_do(page)
        if state.my_turn and state.phase == "auction":
            break
        if state.summary:
            close_summary(page)
    legal = frames.last_state()["view"]["legal_actions"]
    bids = [call for call in legal if POINT_BID.match(call)]
    grid = page.locator(".coinche-grid")
    if bids:
        expect(grid).to_be_in_viewport()
        assert sorted(grid_calls(page)) == sorted(legal)
        named = {(m[1], m[2]) for m in map(POINT_BID.match, bids) if m}
        assert {"SA", "TA"} <= {strain for _, strain in named} and ("generale", "TA") in named
        outside = grid.locator("button[data-action]").evaluate_all(
            "cells => cells.filter(c => { const r = c.getBoundingClientRect();"
            " return r.left < 0 || r.top < 0 || r.right > innerWidth"
            " || r.bottom > innerHeight; }).map(c => c.dataset.action)")
        assert outside == []
        act(page, state, bids[0])
        expect(page.locator("#contract")).to_have_attribute("data-contract", bids[0])
        expect(page.locator("#contract")).to_be_in_viewport()
    assert page.evaluate("() => document.documentElement.scrollWidth"
                         " <= document.documentElement.clientWidth")


def rules_text(lang: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (ROOT / "app" / "static" / "rules" / f"{lang}.json").read_text(encoding="utf-8"))
    return loaded


def test_every_language_explains_coinche_section_by_section_as_english_does() -> None:
    english = rules_text("en")["coinche"]["sections"]
    for lang in LANGUAGES:
        own = rules_text(lang)["coinche"]["sections"]
        assert [s["id"] for s in own] == [s["id"] for s in english], lang
        for section, model in zip(own, english, strict=True):
            assert [shape(b) for b in section["blocks"]] == \
                [shape(b) for b in model["blocks"]], (lang, section["id"])


@pytest.mark.parametrize("lang", ["fr", "ko"])
def test_the_rules_page_shows_coinche_in_the_players_language(page: Page, lang: str) -> None:
    page.goto("/#/rules")
    page.locator("#lang").select_option(lang)
    # The page drawn again in that language first: a click before may land where the
    # longer names have moved the links (a CI run's stayed on the first variant).
    first = rules_text(lang)["bulgarian"]["title"]
    expect(page.locator("#rules[data-variant=bulgarian] h1")).to_have_text(first)
    page.locator("[data-testid=rules-variant][data-variant=coinche]").click()
    text = rules_text(lang)["coinche"]
    rules = page.locator("#rules[data-variant=coinche]")
    expect(rules.locator("h1")).to_have_text(text["title"])
    for section in text["sections"]:
        expect(rules.locator(f"[data-section={section['id']}] h2")).to_have_text(section["title"])


def test_a_coinche_match_is_kept_and_replayed(page: Page, rest: httpx2.Client) -> None:
    frames = Frames.record(page)
    sign_in(page, "Ana")
    table_id = coinche_table(page, target_score="1")  # over after its first scored deal
    play_first_deal(page, frames, "90S")
    expect(page.locator("#table")).to_have_attribute("data-status", "over")
    deal = rest.get(f"/api/matches/{table_id}/replay").json()["deals"][0]
    assert POINT_BID.match(deal["result"]["contract"]) and deal["result"]["value"]

    page.goto(f"/#/replay/{table_id}")
    bid = page.locator(".replay-contract .contract-label")
    expect(bid).to_contain_text(re.compile(r"\d+ [♣♦♥♠]|Capot|Générale|trumps"))
    page.goto(f"/#/match/{table_id}")
    expect(page.locator("[data-testid=analyse]")).to_be_visible()  # analysed: test_app_coinche


def test_a_coinche_out_of_turn_from_the_page_of_a_seat_not_to_move(open_page: OpenPage) -> None:
    """Ana (seat 0), Ivo (1) and Eva (3) at a table that coinches at any time, a bot in
    seat 2: once Ana's bid stands and Ivo is to speak, Eva's page offers the coinche, says
    whose turn it is, and her click coinches Ana's bid; the turn passes to Ana."""
    ana, ivo, eva = open_page(), open_page(), open_page()
    sign_in(ana, "Ana")
    table_id = create_table(ana, "À la volée", variant="coinche", coinche_timing="any_time")
    for page, name, seat in ((ivo, "Ivo", 1), (eva, "Eva", 3)):
        sign_in(page, name, path=f"/#/t/{table_id}")
        take_seat(page, seat)
    add_bot(ana, 2)
    start(ana)
    pages = {0: ana, 1: ivo, 3: eva}
    for _ in range(MAX_TURNS):
        state = table_state(ana)
        if state.phase == "auction" and state.turn == "1" and ana.locator(
                "#contract[data-contract]").count():
            break  # Ana's bid stands (no other seat bids here) and Ivo is to speak
        mover = pages.get(int(state.turn)) if state.turn else None
        if mover is None or not table_state(mover).my_turn:
            ana.wait_for_timeout(50)  # a bot's move, or a frame on its way; bounded
            continue
        mine = table_state(mover)
        bids = [a for a in mine.actions if POINT_BID.match(a)]
        act(mover, mine, bids[0] if mover is ana and bids else "pass")
    else:
        raise AssertionError(f"Ana's bid never stood with Ivo to speak: {table_state(ana)}")
    bid = ana.locator("#contract").get_attribute("data-contract")
    panel = eva.locator("#actions")
    expect(panel.locator("button[data-action]")).to_have_count(1)
    expect(panel).to_contain_text("Ivo is bidding — you may coinche now")
    before = table_state(eva)
    act(eva, before, "coinche")
    expect(ana.locator("#contract")).to_contain_text("coinched ×2")
    expect(ana.locator("#table")).to_have_attribute("data-turn", "0")
    assert ana.locator("#contract").get_attribute("data-contract") == bid
    expect(ana.locator("#actions button[data-action=surcoinche]")).to_be_visible()

"""Tournaments and the league in the browser (docs/tournaments.md): a director makes a
tournament with the form (its schedule previewed), joins it as a pair with another
player, adds a bot entry, starts it, sees every entry in the live standings, is told on
the personal channel that their table is ready and goes to it, then withdraws (with the
partner) and sees the tournament end; the pages fit a phone, and the league page shows
the caller's division; in each of the seven languages the pages speak it and fit a phone
held either way."""

from __future__ import annotations

import json
import re
import uuid

import httpx2
import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import PHONE
from tests.e2e.test_rules_help import LANGUAGES, NO_OVERFLOW, strings

pytestmark = pytest.mark.e2e


def _account(rest: httpx2.Client) -> dict[str, str]:
    name = f"cup{uuid.uuid4().hex[:8]}"
    made = rest.post("/api/accounts", json={"username": name, "password": "a-long-password"})
    assert made.status_code == 201, made.text
    body: dict[str, str] = made.json()
    return body | {"name": name}


def _signed_in(page: Page, me: dict[str, str]) -> Page:
    stored = {"id": me["id"], "name": me["name"], "token": me["token"], "account": True}
    page.add_init_script(f"localStorage.setItem('belote.guest', {json.dumps(json.dumps(stored))});")
    return page


def test_a_director_runs_a_tournament_from_the_pages(page: Page, rest: httpx2.Client) -> None:
    _signed_in(page, _account(rest))
    page.goto("/#/tournaments")
    form = page.locator("[data-testid=tournament-form]")
    page.locator("[data-testid=new-name]").fill("Browser Cup")
    page.locator("[data-testid=new-format]").select_option("duplicate")
    page.locator("input[name=rounds]").fill("4")
    expect(page.locator("[data-testid=schedule-preview]")).to_contain_text("4 rounds")
    form.locator("[data-testid=create-tournament]").click()
    expect(page.locator("[data-testid=tournament] h1")).to_have_text("Browser Cup")
    partner = _account(rest)
    page.locator("[data-testid=partner-id]").fill(partner["id"])
    page.locator("[data-testid=join-pair]").click()
    expect(page.locator("[data-testid=withdraw]")).to_be_visible()
    expect(page.locator(".tournament-entries")).to_contain_text(partner["name"])
    page.locator("[data-testid=add-bot]").click()
    expect(page.locator("[data-testid=standings] tbody tr")).to_have_count(2)
    page.locator("[data-testid=start-tournament]").click()
    # The page is read again when the personal channel says the round's tables are made.
    expect(page.locator("[data-testid=tournament-status]")).to_contain_text("Round 1 of 4")
    expect(page.locator("[data-testid=round-table]")).to_have_count(1)
    expect(page.locator("[data-testid=next-table]")).to_be_visible()
    card = page.locator("[data-testid=notice-standings]")
    expect(card).to_contain_text("Browser Cup: your table of round 1 is ready.")
    card.locator("[data-testid=notice-yes]").click()
    expect(page).to_have_url(re.compile(r"#/t/"))
    expect(page.locator("#table")).to_be_visible()

    # Withdrawn during the round: a bot takes the seat, and with no player left the
    # tournament ends after it, which its director is told.
    page.go_back()
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("[data-testid=withdraw]").click()
    # The toast first: it goes after 4.5 s, and the page fetches the status after it.
    expect(page.locator("#toasts")).to_contain_text("Browser Cup is over.")
    expect(page.locator("[data-testid=tournament-status]")).to_contain_text("Finished")


def test_the_pages_fit_a_phone(open_page: OpenPage, rest: httpx2.Client) -> None:
    page = _signed_in(open_page(PHONE), _account(rest))
    for hash_ in ("#/tournaments", "#/league"):
        page.goto(f"/{hash_}")
        expect(page.locator("h1")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    expect(page.locator("[data-testid=league-division]")).to_contain_text("Division 3 of 5")


def test_the_seasons_countdown_runs(page: Page, rest: httpx2.Client) -> None:
    _signed_in(page, _account(rest))
    page.clock.install()
    page.goto("/#/league")
    countdown = page.locator("[data-testid=league-countdown]")
    expect(countdown).to_have_text(re.compile(r"\(in [4-7] days\)"))  # 7-day seasons
    before = int(re.sub(r"\D", "", countdown.inner_text()))
    page.clock.run_for(2 * 24 * 3600 * 1000)  # two days later, the page not read again
    expect(countdown).to_have_text(f"(in {before - 2} days)")
    expect(page.locator("[data-testid=nav-tournaments]")).to_be_visible()


def test_the_pages_speak_each_language_and_fit_a_phone(open_page: OpenPage,
                                                      rest: httpx2.Client) -> None:
    me = _account(rest)
    auth = {"Authorization": f"Bearer {me['token']}"}
    made = rest.post("/api/tournaments", headers=auth, json={
        "name": "Coupe", "format": "duplicate", "rounds": 3, "options": {"target_score": 1500}})
    assert made.status_code == 201, made.text
    t = made.json()["id"]
    for body in ({}, {"bot": "easy"}, {"bot": "easy"}):
        assert rest.post(f"/api/tournaments/{t}/entries", headers=auth, json=body).is_success
    assert rest.post(f"/api/tournaments/{t}/start", headers=auth).is_success
    page = _signed_in(open_page(PHONE), me)
    page.goto(f"/#/tournaments/{t}")
    for lang in LANGUAGES:
        words = strings(lang, "competition")
        page.locator("#lang").select_option(lang)
        for size in (PHONE, ViewportSize(width=PHONE["height"], height=PHONE["width"])):
            page.set_viewport_size(size)
            page.goto(f"/#/tournaments/{t}")
            expect(page.locator("#tournament h2").first).to_have_text(words["tournament.standings"])
            expect(page.locator("[data-testid=round-table]")).to_have_count(2)
            assert page.evaluate(NO_OVERFLOW), (lang, size)
            page.goto("/#/tournaments")
            expect(page.locator("h1")).to_have_text(words["tournament.title"])
            assert page.evaluate(NO_OVERFLOW), (lang, size)
            page.goto("/#/league")
            expect(page.locator("[data-testid=league-division]")).to_contain_text(
                words["league.division"].format(division=3, divisions=5))  # a newcomer's
            assert page.evaluate(NO_OVERFLOW), (lang, size)

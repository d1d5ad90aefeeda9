"""Accounts and ratings in the browser (#15): sign up, log out, log in (a wrong password
said in words), a session ended elsewhere, a guest keeping their history by signing up, a
rated match against bots to its end with each player's rating change, the leaderboard and
a profile page."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from typing import Any

import httpx2
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.harness import Server
from tests.e2e.ui import play_until, sign_in, start_with_bots

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse"
STORED = "() => JSON.parse(localStorage.getItem('belote.guest') || 'null')"


def stored(page: Page) -> dict[str, Any] | None:
    value: dict[str, Any] | None = page.evaluate(STORED)
    return value


def enter(page: Page, mode: str, username: str, password: str = PASSWORD) -> None:
    """Fill the log-in or sign-up form (the page is on it) and send it."""
    form = page.locator(f"[data-testid={mode}-form]")
    form.locator("[data-testid=username-input]").fill(username)
    form.locator("[data-testid=password-input]").fill(password)
    form.locator("[data-testid=account-submit]").click()


def signed_in_as(page: Page, name: str) -> None:
    """Wait until the header names the account (a password takes a moment to check)."""
    toggle = page.locator("[data-testid=account-toggle]")
    expect(toggle).to_be_visible()
    expect(toggle).to_contain_text(name)


def sign_up(page: Page, username: str) -> None:
    """A new visitor's account, made from the lobby's "Create an account"."""
    page.goto("/")
    page.locator("[data-testid=card-signup]").click()
    enter(page, "signup", username)
    signed_in_as(page, username)


def test_sign_up_log_out_log_in_and_a_session_ended_elsewhere(page: Page,
                                                              rest: httpx2.Client) -> None:
    page.goto("/")
    expect(page.locator("[data-testid=rated]")).to_be_disabled()  # rated play needs an account
    sign_up(page, "Dora")
    account = stored(page)
    assert account and account["account"] and account["token"].startswith("sess_")
    expect(page.locator("[data-testid=whoami]")).to_have_text("Dora")
    expect(page.locator("[data-testid=rated]")).to_be_enabled()

    page.locator("[data-testid=account-toggle]").click()
    page.locator("[data-testid=menu-logout]").click()
    expect(page.locator("[data-testid=nav-login]")).to_be_visible()
    assert stored(page) is None

    page.locator("[data-testid=nav-login]").click()
    enter(page, "login", "dora", "not the password")  # usernames ignore case
    expect(page.locator("[data-testid=account-error]")).to_have_text("Wrong username or password.")
    page.locator("[data-testid=password-reveal]").click()  # the typed password, shown
    expect(page.locator("[data-testid=password-input]")).to_have_attribute("type", "text")
    enter(page, "login", "dora")
    signed_in_as(page, "Dora")
    again = stored(page)
    assert again and again["id"] == account["id"] and again["token"] != account["token"]

    # Logged out elsewhere while at a table: its socket closes for good (4002), and the
    # page says so and asks to log in.
    page.locator("[data-testid=play-now]").click()
    expect(page.locator("#table")).to_have_attribute("data-my-seat", "0")
    ended = rest.delete("/api/sessions", headers={"Authorization": f"Bearer {again['token']}"})
    assert ended.status_code == 204
    expect(page.locator(".toast[data-code=session_ended]")).to_be_visible()  # it goes
    expect(page.locator("[data-testid=login-form]")).to_be_visible()
    assert stored(page) is None


def test_a_guest_keeps_their_history_by_signing_up(page: Page) -> None:
    sign_in(page, "Vera")
    table_id = start_with_bots(page, target_score="1")
    play_until(page, lambda state: state.status == "over")
    guest = stored(page)
    assert guest and not guest.get("account")
    expect(page.locator("[data-testid=keep-offer]")).to_be_visible()  # offered at the match's end

    page.locator("[data-testid=account-toggle]").click()
    page.locator("[data-testid=menu-signup]").click()
    expect(page.locator("[data-testid=username-input]")).to_have_value("Vera")
    enter(page, "signup", "Vera")
    expect(page.locator("#table")).to_have_attribute("data-table-id", table_id)  # back where it was
    account = stored(page)
    assert account and account["account"] and account["id"] == guest["id"]
    page.locator("[data-testid=nav-history]").click()
    expect(page.locator(f"[data-testid=match-row][data-match-id='{table_id}']")).to_be_visible()


def test_a_rated_match_changes_ratings_shown_on_the_leaderboard_and_profile(
        page: Page, server: Server) -> None:
    sign_up(page, "Rhea")
    page.locator("[data-testid=rated]").check()
    expect(page.locator("#create-table input[name=private]")).to_be_disabled()
    table_id = start_with_bots(page, target_score="1")
    expect(page.locator("[data-plate] .plate-rating")).to_have_count(4)  # Rhea and the bots
    play_until(page, lambda state: state.status == "over")
    changes = page.locator("[data-testid=rating-changes] li")
    expect(changes).to_have_count(1)  # bots never change
    expect(changes.locator(".rating-change")).to_have_text(re.compile(r"^(\+\d+|−\d+|±0)$"))
    expect(page.locator("[data-plate] .rating-change")).to_have_count(1)
    # A provisional rating shows its estimate with a mark, as lichess does, not the
    # conservative value (about 1500 - 1000 for a newcomer), and says why on hover.
    mine = changes.locator(".rating.provisional")
    expect(mine).to_have_text(re.compile(r"^1[3-6]\d\d\?$"))
    expect(mine).to_have_attribute("title", re.compile(r"^Provisional rating 1[3-6]\d\d ± \d+; "
                                                       r"rated matches: 1\. "))
    me = stored(page)
    assert me

    # One rated match is provisional: the board is made of the players past that stage,
    # so Rhea is moved past it in the database the server reads.
    with closing(sqlite3.connect(server.log.parent / "belote.db")) as db, db:
        db.execute("UPDATE ratings SET matches = 60, sigma = 2.0, mu = 30.0, value = 1460,"
                   " ranked = 1 WHERE player_id = ?", (me["id"],))
    page.locator("[data-testid=nav-leaderboard]").click()
    row = page.locator(f"[data-testid=leaderboard] tr[data-player='{me['id']}']")
    expect(row).to_contain_text("1700")  # mu 30: the rating shown, ± 240 (3 sigmas)
    expect(row).to_contain_text("± 240")
    expect(row.locator("strong")).to_have_attribute("title", re.compile(r"ranks by .*: 1460\.$"))
    row.locator("a.profile-link").click()
    expect(page.locator("[data-testid=profile-name]")).to_have_text("Rhea")
    card = page.locator("[data-testid=rating-card][data-variant=bulgarian]")
    expect(card).to_contain_text("Rank #1")
    expect(page.locator("#rating-chart-bulgarian circle")).to_have_count(1)
    expect(page.locator("[data-testid=bots-table] tr[data-level=easy]").first).to_contain_text(
        re.compile(r"of 1 won"))  # with an easy bot as partner, and against two
    expect(page.locator(f"[data-testid=match-row][data-match-id='{table_id}']")).to_be_visible()

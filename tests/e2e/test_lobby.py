"""The lobby and the page around the table: a shared link, the open tables, the language
switch, a phone-sized screen."""

from __future__ import annotations

import json
import re

import httpx2
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import PHONE, ROOT
from tests.e2e.ui import (
    act,
    create_table,
    my_call,
    my_card,
    play_until,
    sign_in,
    start_with_bots,
    take_seat,
)

pytestmark = pytest.mark.e2e

I18N = ROOT / "app" / "static" / "i18n"
NO_OVERFLOW = """() => document.documentElement.scrollWidth
  <= document.documentElement.clientWidth"""


def translations(lang: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for namespace in ("core", "history"):
        merged |= json.loads((I18N / lang / f"{namespace}.json").read_text())
    return merged


def test_a_shared_link_shows_the_table_and_seats_a_visitor(open_page: OpenPage,
                                                            rest: httpx2.Client) -> None:
    ana, visitor = open_page(), open_page()
    sign_in(ana, "Ana")
    table_id = create_table(ana, name="Link table")
    sign_in(visitor, "Ivo", path=f"/#/t/{table_id}")  # a new visitor is asked a name
    expect(visitor.locator("#table")).to_have_attribute("data-table-id", table_id)
    expect(visitor.locator("[data-seat-slot='0']")).to_contain_text("Ana")
    take_seat(visitor, 3)
    assert rest.get(f"/api/tables/{table_id}").json()["seats"][3]["name"] == "Ivo"
    expect(ana.locator("[data-seat-slot='3']")).to_contain_text("Ivo")  # live at Ana's


def test_the_lobby_lists_an_open_table_with_a_join_link(open_page: OpenPage) -> None:
    ana, ivo = open_page(), open_page()
    sign_in(ana, "Ana")
    table_id = create_table(ana, name="Listed table")
    sign_in(ivo, "Ivo")
    row = ivo.locator(f"[data-testid=table-row][data-table-id='{table_id}']")
    expect(row).to_contain_text("Listed table")
    row.locator("a, button").first.click()
    ivo.wait_for_url(re.compile(f"#/t/{table_id}$"))
    expect(ivo.locator("#table")).to_have_attribute("data-table-id", table_id)


def test_the_language_switch_translates_and_persists(page: Page) -> None:
    sign_in(page, "Ana")
    create = page.locator("#create-table [data-testid=create]")
    english = create.inner_text()
    assert english in translations("en").values()
    page.locator("#lang").select_option("bg")
    expect(create).not_to_have_text(english)
    bulgarian = create.inner_text()
    assert bulgarian in translations("bg").values()
    assert re.search("[а-яА-Я]", page.locator("body").inner_text())
    page.reload()
    expect(page.locator("#lang")).to_have_value("bg")
    expect(create).to_have_text(bulgarian)
    visible = page.locator("body").inner_text()
    assert not [key for key in translations("en") if key in visible]  # no raw key shown


def test_a_phone_screen_plays_without_sideways_scrolling(open_page: OpenPage) -> None:
    page = open_page(viewport=PHONE)
    sign_in(page, "Ana")
    assert page.evaluate(NO_OVERFLOW)
    start_with_bots(page)

    state = play_until(page, my_call)
    assert page.evaluate(NO_OVERFLOW)
    for button in page.locator("#actions button[data-action]").all():
        box = button.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    act(page, state)

    state = play_until(page, my_card())
    assert page.evaluate(NO_OVERFLOW)
    expect(page.locator("#hand")).to_be_in_viewport()
    act(page, state)  # a real click on a legal card of the phone's hand
    assert page.evaluate(NO_OVERFLOW)

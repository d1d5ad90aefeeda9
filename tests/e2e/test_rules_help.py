"""The rules help and a table's house rules: the rules page in each language with every
section of each variant; the table's Rules button opens its variant
over the table, which is there as it was when the player comes back; a house rule the
creator changed is shown in the lobby row, the waiting room, the table and the match
page."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import OpenPage
from tests.e2e.harness import PHONE, ROOT
from tests.e2e.ui import (
    act,
    create_table,
    my_call,
    play_until,
    sign_in,
    start,
    start_with_bots,
    table_state,
)
from tests.waiting import eventually_sync

pytestmark = pytest.mark.e2e

STATIC = ROOT / "app" / "static"
LANGUAGES = ("en", "bg", "fr", "de", "es", "el", "ko")
SECTIONS = ("deal", "contracts", "cards", "play", "declarations", "belot", "scoring", "valat",
            "match")
NO_OVERFLOW = """() => document.documentElement.scrollWidth
  <= document.documentElement.clientWidth"""


def rules_text(lang: str) -> dict[str, Any]:
    path = STATIC / "rules" / f"{lang}.json"
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def strings(lang: str, namespace: str) -> dict[str, str]:
    path = STATIC / "i18n" / lang / f"{namespace}.json"
    loaded: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def shape(block: dict[str, Any]) -> tuple[str, int, tuple[int, ...]]:
    """What a translation must keep of a block: its kind, items, and table columns."""
    kind, body = next(iter(block.items()))
    if kind == "table":
        return kind, len(body), tuple(len(row) for row in body)
    return kind, len(body) if kind == "ul" else 1, ()


def test_every_language_has_every_section_of_each_variant_as_english_has() -> None:
    english = rules_text("en")
    for lang in LANGUAGES:
        text = rules_text(lang)
        for variant in ("bulgarian", "classic"):
            ids = [section["id"] for section in text[variant]["sections"]]
            assert ids == list(SECTIONS), (lang, variant)
            for own, model in zip(text[variant]["sections"], english[variant]["sections"],
                                  strict=True):
                assert [shape(b) for b in own["blocks"]] == \
                    [shape(b) for b in model["blocks"]], (lang, variant, own["id"])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_rules_page_shows_every_section_in_the_players_language(page: Page,
                                                                    lang: str) -> None:
    page.goto("/#/rules")
    page.locator("#lang").select_option(lang)
    expect(page.locator("html")).to_have_attribute("lang", lang)  # drawn again before a click
    text = rules_text(lang)
    for variant in ("bulgarian", "classic"):
        page.locator(f"[data-testid=rules-variant][data-variant={variant}]").click()
        rules = page.locator(f"#rules[data-variant={variant}]")
        expect(rules.locator("h1")).to_have_text(text[variant]["title"])
        for section in text[variant]["sections"]:
            shown = rules.locator(f"[data-section={section['id']}]")
            expect(shown.locator("h2")).to_have_text(section["title"])
            expect(shown.locator("li, p, td").first).to_be_visible()
    nav = page.locator("[data-testid=nav-rules]")
    expect(nav).to_have_text(strings(lang, "help")["help.rules"])


def test_the_rules_page_fits_a_phone(page: Page) -> None:
    page.goto("/#/rules/bulgarian")
    page.locator("#lang").select_option("bg")
    expect(page.locator("html")).to_have_attribute("lang", "bg")
    page.set_viewport_size(PHONE)
    scoring = page.locator("#rules [data-section=scoring]")
    expect(scoring.locator("table")).to_be_visible()
    assert page.evaluate(NO_OVERFLOW), "the rules page scrolls sideways on a phone"


def test_the_tables_rules_open_its_variant_over_the_game_which_goes_on(page: Page) -> None:
    sign_in(page, "Ana")
    table_id = start_with_bots(page, variant="classic", litige="takers_fail")
    before = play_until(page, my_call)
    page.locator("[data-testid=open-rules]").click()
    dialog = page.locator("#rules-dialog")
    expect(dialog).to_have_attribute("open", "")
    classic = rules_text("en")["classic"]
    for section in classic["sections"]:
        expect(dialog.locator(f"[data-section={section['id']}] h3")).to_have_text(section["title"])
    expect(dialog.locator("[data-testid=table-house-rules] li.changed")).to_have_count(1)
    expect(dialog.locator("li.changed[data-flag=litige]")).to_contain_text(
        strings("en", "core")["flag.litige.takers_fail"])
    link = dialog.locator("[data-testid=rules-page-link]")
    expect(link).to_have_attribute("target", "_blank")
    with page.context.expect_page() as opened:
        link.click()
    tab = opened.value
    expect(tab.locator("#rules")).to_have_attribute("data-variant", "classic")
    tab.close()

    dialog.locator("[data-testid=back-to-table]").click()
    expect(dialog).not_to_have_attribute("open", "")
    assert page.url.endswith(f"#/t/{table_id}")
    after = table_state(page)
    assert (after.status, after.deal, after.hand, after.version) == \
        (before.status, before.deal, before.hand, before.version)
    act(page, after)  # the game goes on from where it was


def test_a_house_rule_shows_in_the_lobby_the_waiting_room_the_table_and_the_match(
        open_page: OpenPage, rest: httpx2.Client) -> None:
    ana, ivo = open_page(), open_page()
    sign_in(ana, "Ana")
    table_id = create_table(ana, name="Long runs", long_run="quint_plus_tierce_for_8")
    words = strings("en", "core")
    rule = re.compile(re.escape(words["flag.long_run"]) + r".*"
                      + re.escape(words["flag.long_run.quint_plus_tierce_for_8"]))
    only_changed = "[data-testid=house-rules] [data-flag]"

    expect(ana.locator(f".setup {only_changed}")).to_have_text(rule)  # the waiting room
    sign_in(ivo, "Ivo")
    row = ivo.locator(f"[data-testid=table-row][data-table-id='{table_id}']")
    expect(row.locator(only_changed)).to_have_text(rule)  # the lobby row, and only it
    ana.locator("[data-testid=fill-bots]").click()
    start(ana)

    ana.locator("[data-testid=open-rules]").click()  # the table
    dialog = ana.locator("#rules-dialog")
    expect(dialog.locator("[data-testid=table-house-rules] li.changed")).to_have_text(
        re.compile(re.escape(words["flag.long_run"])))
    expect(dialog.locator("[data-testid=table-house-rules] li.changed")).to_have_count(1)
    dialog.locator("[data-testid=close]").click()

    eventually_sync(lambda: rest.get(f"/api/matches/{table_id}").status_code == 200, 20,
                    "the started match in the history")
    ana.goto(f"/#/match/{table_id}")  # the match page
    expect(ana.locator(f"#match {only_changed}")).to_have_text(rule)

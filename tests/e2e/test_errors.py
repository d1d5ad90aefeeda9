"""Errors as a player sees them (issue 13): a refused name says why, in the page's
language, rather than a generic refusal."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.harness import ROOT

pytestmark = pytest.mark.e2e


def error_text(lang: str, code: str) -> str:
    core = json.loads((ROOT / "app" / "static" / "i18n" / lang / "core.json").read_text())
    text: str = core[f"error.{code}"]
    return text


def test_a_name_kept_for_bots_says_why(page: Page) -> None:
    page.goto("/")
    page.locator("#guest-name").fill("Bot 2")
    page.locator("[data-testid=save-name]").click()
    toasts = page.locator("#toasts .toast[data-code=name_reserved]")
    expect(toasts.last).to_have_text(error_text("en", "name_reserved"))
    page.locator("#lang").select_option("bg")
    expect(page.locator("html")).to_have_attribute("lang", "bg")  # its strings are loaded
    expect(page.locator("#guest-name")).to_have_value("Bot 2")  # kept across the switch
    page.locator("[data-testid=save-name]").click()
    expect(toasts.last).to_have_text(error_text("bg", "name_reserved"))
    assert page.evaluate("localStorage.getItem('belote.guest')") is None  # no guest made


def test_an_invisible_name_says_why(page: Page) -> None:
    page.goto("/")
    page.locator("#guest-name").fill("\u200b\u3164\u200b")  # nothing a player would see
    page.locator("[data-testid=save-name]").click()
    expect(page.locator("#toasts .toast[data-code=name_invisible]")).to_have_text(
        error_text("en", "name_invisible"))

"""The lobby's list of open tables a page at a time (GET /api/tables is paged).

The server's pages are stood in for here (sixty tables, from one real table's JSON), so
the shared server of the browser tests keeps its own lobby as it is."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx2
import pytest
from playwright.sync_api import Page, Route, expect

pytestmark = pytest.mark.e2e

PAGE = 50  # what the client asks for


def fake_pages(template: dict[str, Any]) -> dict[str | None, dict[str, Any]]:
    """Two pages by cursor: 50 tables then 10, as the server would page 60."""
    tables = [template | {"id": f"fake{i:03d}", "name": f"Fake {i}"} for i in range(60)]
    return {None: {"tables": tables[:PAGE], "total": 60, "next_cursor": 9},
            "9": {"tables": tables[PAGE:], "total": 60, "next_cursor": None}}


def test_the_lobby_shows_a_page_and_turns_pages(page: Page, rest: httpx2.Client) -> None:
    guest = rest.post("/api/guests", json={"name": "Pager"}).json()
    created = rest.post("/api/tables", json={"name": "template"},
                        headers={"Authorization": f"Bearer {guest['token']}"}).json()
    pages = fake_pages(created)
    asked: list[dict[str, list[str]]] = []

    def answer(route: Route) -> None:
        query = parse_qs(urlparse(route.request.url).query)
        asked.append(query)
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps(pages[query.get("cursor", [None])[0]]))

    page.route(re.compile(r"/api/tables\?"), answer)
    page.goto("/")
    rows = page.locator("[data-testid=table-row]")
    expect(rows).to_have_count(PAGE)
    expect(rows.first).to_contain_text("Fake 0")
    expect(page.locator("[data-testid=table-count]")).to_contain_text("60")
    expect(page.locator("[data-testid=previous-page]")).to_be_disabled()
    page.locator("[data-testid=next-page]").click()
    expect(rows).to_have_count(10)
    expect(rows.first).to_contain_text("Fake 50")
    expect(page.locator("[data-testid=next-page]")).to_be_disabled()
    page.locator("[data-testid=previous-page]").click()
    expect(rows).to_have_count(PAGE)
    expect(rows.first).to_contain_text("Fake 0")
    assert all(query["limit"] == [str(PAGE)] for query in asked)

"""Problems from one's own mistakes in the client (issue #35): a player whose analysed
match holds mistakes finds them on #/problems, opens one on an upright phone, taps a
card and reads the answer with its reason.  The match and its review (one sample) are
stored in the server's database before the page opens (tests/test_problems.py)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.harness import PHONE, new_context, serve
from tests.e2e.ui import sign_in
from tests.test_db_support import run
from tests.test_problems import InProcess, analysed

# The review made in this process (tests/test_problems.py's InProcess): 8 s of CPU alone,
# 140 s of a run whose load stood at 16.
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(300)]


def test_a_player_solves_a_problem_from_a_mistake(browser: Browser, tmp_path: Path) -> None:
    with serve(tmp_path) as server:
        context = new_context(browser, server, PHONE)
        try:
            page = context.new_page()
            sign_in(page, "Ana")
            me = page.evaluate("JSON.parse(localStorage.getItem('belote.guest'))")
            with ThreadPoolExecutor(1) as thread:  # Playwright's loop holds this thread
                thread.submit(run, analysed(f"sqlite:///{tmp_path / 'belote.db'}", "m-e2e",
                                            False, me["id"], InProcess())).result()
            page.goto("/#/problems")
            rows = page.locator("[data-testid=problems-mine] [data-testid=problem-row]")
            expect(rows.filter(has_text="Find the best card")).to_have_count(1)
            expect(page.locator("[data-testid=problems-public] [data-testid=problem-row]")
                   ).not_to_have_count(0)  # the bots' mistakes, for everyone
            rows.filter(has_text="Find the best card").click()
            expect(page.locator("[data-testid=problem-hand]")).to_be_visible()
            page.locator(".problem-pick").first.click()
            answer = page.locator("[data-testid=problem-answer]")
            expect(answer).to_be_visible()
            expect(answer.locator("table.problem-reasons tbody tr.best")).to_have_count(1)
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.goto("/#/problems")
            expect(rows.filter(has_text="Find the best card").locator(".problem-mark")
                   ).to_be_visible()  # tried: its mark
        finally:
            context.close()

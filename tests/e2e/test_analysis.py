"""Match analysis in the client (#17): after a short match against bots, the match page's
"Analyse" button asks for the review; its panel shows the per-player summary, the key
moments and how decisions are graded (the thresholds in match points, the margin), and
the replay shows the evaluation beside the decisions, each loss with its ± (and, while
the match was still on, offered no analysis).  The package's server reviews with one
sample (ANALYSIS_SAMPLES, tests/e2e/conftest.py), so that a review takes seconds; the
test of the address's limit has a server of its own, with that limit at one."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from app.db.repository import Repository
from engine import Options
from tests.e2e.harness import new_context, serve
from tests.e2e.ui import READABLE, contrast, play_until, sign_in, start_with_bots
from tests.test_db_support import opened, play_logged, run

# A match played and reviewed, or a server of its own: more than the usual guard.
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

REVIEW_MS = 120_000  # a guard for the review on a loaded machine, not a speed check
ONE_DEAL = Options.make("bulgarian", target_score=10)  # over after its first scored deal


async def stored(url: str, match_ids: list[str]) -> None:
    """Finished matches of random play, logged in the server's database as a table would."""
    async with opened(url) as db:
        for seed, match_id in enumerate(match_ids):
            await play_logged(Repository(db), match_id, ONE_DEAL, seed)


def test_a_finished_match_is_analysed(page: Page) -> None:
    # The package's server, which reviews with one sample (tests/e2e/conftest.py).
    sign_in(page, "Ana")
    table_id = start_with_bots(page, target_score="1")
    play_until(page, lambda state: state.status == "over")

    page.goto(f"/#/match/{table_id}")
    # The result on the page's dark head: its colour alone (dark green) could not be read.
    assert contrast(page.locator(".match-meta .standing")) >= READABLE
    panel = page.locator("[data-testid=analysis]")
    expect(panel).to_have_attribute("data-status", "none")
    page.locator("[data-testid=analyse]").click()
    expect(panel).to_have_attribute("data-status", "done", timeout=REVIEW_MS)
    summary = page.locator("[data-testid=analysis-summary] tbody tr")
    expect(summary).to_have_count(4)
    expect(summary.first).to_contain_text("Ana")
    thresholds = page.locator("[data-testid=analysis-thresholds]")
    expect(thresholds).to_contain_text("How decisions are graded")
    # The legend names each grade with the mark a phone's summary shows alone.
    expect(thresholds.locator("thead th")).to_have_text(
        ["Decision", "Inaccuracy ?!", "Mistake ?", "Blunder ??"])
    # bulgarian scores in tens: a card's 10, 30 and 80 card points are 1, 3, 8
    expect(thresholds.locator("tbody tr").first.locator("td")).to_have_text(
        ["from 1", "from 3", "from 8"])
    expect(thresholds).to_contain_text("±")
    moments = page.locator("[data-testid=analysis-moments] a")
    evaluation = page.locator("[data-testid=analysis-evaluation]")
    if moments.count():  # a jump lands on the replay's frame that shows the decision
        step = moments.first.get_attribute("data-step")
        moments.first.click()
        expect(evaluation.locator(f"li[data-step='{step}']").first).to_be_visible()

    page.goto(f"/#/replay/{table_id}")
    # The auction's frame, drawn anew (the first call is a decision): the losses counted
    # below are this frame's, not those of the frame the jump above left on the page.
    expect(evaluation.locator("li[data-step='0'] [data-grade]").first).to_be_visible()
    losses = page.locator(".analysis-loss")
    for i in range(losses.count()):  # every loss shown carries its margin
        expect(losses.nth(i)).to_contain_text("±")


def test_the_replay_of_a_match_still_on_offers_no_analysis(page: Page) -> None:
    # The package's server: nothing is analysed here, no setting of its own is needed.
    sign_in(page, "Ana")
    table_id = start_with_bots(page)
    play_until(page, lambda state: state.summary)  # a deal over, the match on
    replay = page.context.new_page()
    replay.goto(f"/#/replay/{table_id}")
    expect(replay.locator("[data-testid=replay-position]")).to_be_visible()
    expect(replay.locator("[data-testid=analysis]")).to_have_count(0)


def test_a_visitor_past_their_analyses_is_told_when_to_come_back(browser: Browser,
                                                                tmp_path: Path) -> None:
    """ANALYSES_PER_ADDRESS new analyses an address: the next new one is refused, and the
    panel says so in words, with the wait, and offers to ask again (no worker here: the
    first job only waits).  The two finished matches are stored as a table logs them, not
    played here (the test above plays one)."""
    with serve(tmp_path, ANALYSES_PER_ADDRESS="1", ANALYSIS_WORKERS="0") as server:
        context = new_context(browser, server)
        try:
            page = context.new_page()
            sign_in(page, "Ana")
            matches = ["m-first", "m-second"]
            with ThreadPoolExecutor(1) as thread:  # Playwright's loop holds this thread
                thread.submit(run, stored(f"sqlite:///{tmp_path / 'belote.db'}", matches)
                              ).result()
            panel = page.locator("[data-testid=analysis]")
            page.goto(f"/#/match/{matches[0]}")
            page.locator("[data-testid=analyse]").click()
            expect(panel).to_have_attribute("data-status", "queued")
            page.goto(f"/#/match/{matches[1]}")
            page.locator("[data-testid=analyse]").click()
            expect(panel.locator("[role=alert]")).to_have_text(
                "You asked for many analyses lately: try again in 60 min.")
            expect(page.locator("[data-testid=analyse]")).to_be_enabled()
        finally:
            context.close()

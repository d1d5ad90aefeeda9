"""Screenshots of the browser client for the README, in docs/screenshots/.

Run ``make screenshots`` (or ``python -m tools.screenshots [--out DIR]``).  It starts the
server as the browser tests do (tests/e2e/harness.py: ``python -m app`` on a fresh SQLite
database, bots without delay), has a guest play against bots in Debian's Chromium
(/usr/bin/chromium, as ``make test`` installs it) and saves, at 1280x800:
lobby.png (two other tables open), auction.png (the guest's call), trick.png (the
guest's card with others on the table), score-sheet.png (the summary after the first
deal); and phone-trick.png at 390x844.  Animations are off (reduced motion) so no card
is caught mid-slide.  Deals are random: each run shows other cards.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import httpx2
from playwright.sync_api import Page

from tests.conftest import Rest
from tests.e2e.harness import DESKTOP, PHONE, ROOT, Server, chromium, new_context, serve
from tests.e2e.ui import (
    deal_over,
    my_call,
    my_card,
    play_until,
    sign_in,
    start_with_bots,
    table_state,
)

OPEN_TABLES = (("Maria", "Evening belot", "bulgarian"), ("Jean", "Belote du midi", "classic"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.screenshots", description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    out: Path = parser.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as workdir, serve(Path(workdir)) as server:
        open_tables(server)
        with chromium() as browser:
            desktop(new_context(browser, server, DESKTOP, pace=None).new_page(), out)
            phone(new_context(browser, server, PHONE, pace=None).new_page(), out)
    for name in ("lobby", "auction", "trick", "score-sheet", "phone-trick"):
        print(out / f"{name}.png")


def open_tables(server: Server) -> None:
    """Tables of other guests waiting for players, for the lobby's list."""
    with httpx2.Client(base_url=server.http) as http:
        rest = Rest(http)
        for owner, name, variant in OPEN_TABLES:
            guest = rest.guest(owner)
            rest.table(guest, [guest, "normal"], name=name, variant=variant)


def desktop(page: Page, out: Path) -> None:
    sign_in(page, "Ana")
    page.locator("[data-testid=table-row]").nth(len(OPEN_TABLES) - 1).wait_for()
    page.screenshot(path=out / "lobby.png")
    start_with_bots(page, "normal", name="Friday game", turn_seconds="30")
    first = table_state(page).deal
    play_until(page, my_call)
    page.screenshot(path=out / "auction.png")
    play_until(page, my_card(2))
    page.screenshot(path=out / "trick.png")
    play_until(page, deal_over(first))
    page.wait_for_function("() => document.querySelector('#score-sheet')?.open")
    page.screenshot(path=out / "score-sheet.png")


def phone(page: Page, out: Path) -> None:
    sign_in(page, "Ana")
    start_with_bots(page, "normal", name="On the bus", turn_seconds="30")
    play_until(page, my_card(1))
    page.screenshot(path=out / "phone-trick.png")


if __name__ == "__main__":
    main()

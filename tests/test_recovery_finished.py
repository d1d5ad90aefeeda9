"""A finished table's result stays visible ``finished_table_ttl`` after it ends, also across
a restart: the restarted server shows it (won or forfeited) until its time is up.  The
tables' timers run on fake clocks: no test here waits for a turn or a result's time."""

from __future__ import annotations

import asyncio
import time

from ai import Level
from app.bots import BotRunner
from app.db.session import Database
from app.db.storage import DatabaseStorage
from app.models import TablePublic
from app.tables import (
    AddBot,
    Attach,
    Client,
    Lobby,
    PlayAction,
    SitDown,
    StartMatch,
    TableConfig,
    TableError,
)
from engine import Options
from tests.actors import ANA, PATIENCE, first_message, next_message, solo_table
from tests.conftest import app_settings
from tests.fake_clock import FakeClock
from tests.test_db_support import run
from tests.waiting import eventually

pytest_plugins = ["tests.test_db_support"]

GUARD = 60  # seconds: a hang fails the test instead of blocking the suite
TURN = 60.0  # seconds, on the fake clock


async def finished_tables(lobby: Lobby, clock: FakeClock) -> list[TablePublic]:
    """One match won (to a target of 1) and one forfeited by a timed-out turn."""
    won, client = await solo_table(lobby, "won", Options.make("bulgarian", target_score=1))
    while won.status != "over":
        state = await next_message(client)
        if state.get("turn") == 0 and state["view"]["legal_actions"]:
            version = state["version"]
            await won.submit(PlayAction(client, f"a{version}", version,
                                        state["view"]["legal_actions"][0]))
    forfeited = lobby.create(ANA, TableConfig("forfeit", Options.make("bulgarian"), TURN, False,
                                              True))
    await forfeited.submit(SitDown(ANA, 1))
    for seat in (0, 2, 3):
        await forfeited.submit(AddBot(ANA, seat, Level.EASY))
    there = Client(ANA, 10_000)
    await forfeited.submit(Attach(there))  # there, but the timer runs out
    await forfeited.submit(StartMatch(ANA))
    await first_message(there, lambda m: m.get("turn") == 1 and bool(m["view"]["legal_actions"]),
                        "Ana's turn (seat 1)")
    clock.advance(TURN)
    await eventually(lambda: forfeited.status == "over", PATIENCE,
                     "the timer to forfeit the match")
    return [won.info(), forfeited.info()]


def test_finished_tables_are_shown_after_a_restart(db_url: str) -> None:
    async def scenario() -> None:
        settings = app_settings(reconnect_grace=600)
        db = Database(db_url)
        bots = BotRunner(settings.bots)
        await bots.start()
        try:
            clock = FakeClock()
            before = Lobby(settings.tables, bots, DatabaseStorage(db), clock)
            shown = await finished_tables(before, clock)
            assert shown[1].forfeit is not None and shown[1].forfeit.seat == 1
            await before.stop()

            # The results' times were stamped by the storage on the real clock.
            later = FakeClock(time.time())
            after = Lobby(settings.tables, bots, DatabaseStorage(db), later)
            await after.restore()
            for info in shown:
                again = after.get(info.id).info()
                assert again.status == "over"
                assert (again.version, again.totals, again.winner, again.forfeit) == (
                    info.version, info.totals, info.winner, info.forfeit)
            later.advance(settings.finished_table_ttl)
            await eventually(lambda: not after.tables, PATIENCE, "the results' time to end")
            await after.stop()

            # Shown for no time at all: every result is past its time.
            expired = Lobby(app_settings(finished_table_ttl=0).tables, bots, DatabaseStorage(db))
            await expired.restore()  # past their time: not shown again
            for info in shown:
                try:
                    expired.get(info.id)
                except TableError as exc:
                    assert exc.code == "no_table"
                else:
                    raise AssertionError(f"{info.id} is shown past its time")
            await expired.stop()
        finally:
            await bots.close()
            await db.dispose()

    run(asyncio.wait_for(scenario(), GUARD))

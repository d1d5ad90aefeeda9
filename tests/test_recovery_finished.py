"""A finished table's result stays visible ``finished_table_ttl`` after it ends, also across
a restart: the restarted server shows it (won or forfeited) until its time is up."""

from __future__ import annotations

import asyncio

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
from tests.actors import ANA, PATIENCE, next_message, solo_table
from tests.conftest import app_settings
from tests.test_db_support import run
from tests.waiting import eventually

pytest_plugins = ["tests.test_db_support"]

GUARD = 60  # seconds: a hang fails the test instead of blocking the suite


async def finished_tables(lobby: Lobby) -> list[TablePublic]:
    """One match won (to a target of 1) and one forfeited by a timed-out turn."""
    won, client = await solo_table(lobby, "won", Options.make("bulgarian", target_score=1))
    while won.status != "over":
        state = await next_message(client)
        if state.get("turn") == 0 and state["view"]["legal_actions"]:
            version = state["version"]
            await won.submit(PlayAction(client, f"a{version}", version,
                                        state["view"]["legal_actions"][0]))
    forfeited = lobby.create(ANA, TableConfig("forfeit", Options.make("bulgarian"), 0.1, False,
                                              True))
    await forfeited.submit(SitDown(ANA, 1))
    for seat in (0, 2, 3):
        await forfeited.submit(AddBot(ANA, seat, "easy"))
    await forfeited.submit(Attach(Client(ANA, 10_000)))  # there, but the timer runs out
    await forfeited.submit(StartMatch(ANA))
    await eventually(lambda: forfeited.status == "over", PATIENCE,
                     "the timer to forfeit the match")
    return [won.info(), forfeited.info()]


def test_finished_tables_are_shown_after_a_restart(db_url: str) -> None:
    async def scenario() -> None:
        settings = app_settings(reconnect_grace=600)
        db = Database(db_url)
        bots = BotRunner(settings)
        await bots.start()
        try:
            before = Lobby(settings, bots, DatabaseStorage(db))
            shown = await finished_tables(before)
            assert shown[1].forfeit is not None and shown[1].forfeit.seat == 1
            await before.stop()

            after = Lobby(settings, bots, DatabaseStorage(db))
            await after.restore()
            for info in shown:
                again = after.get(info.id).info()
                assert again.status == "over"
                assert (again.version, again.totals, again.winner, again.forfeit) == (
                    info.version, info.totals, info.winner, info.forfeit)
            await after.stop()

            expired = Lobby(app_settings(finished_table_ttl=0.2), bots, DatabaseStorage(db))
            await asyncio.sleep(0.3)
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

"""A human who leaves during a match stays gone after a restart: the seat change is logged
(``Storage.leave_seat``) and :meth:`Lobby.restore` gives the seat to a bot, at the same
version, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

from ai import Level
from app.auth import Player
from app.bots import BotRunner
from app.db.session import Database
from app.db.storage import DatabaseStorage
from app.tables import (
    AddBot,
    Attach,
    Client,
    LeaveSeat,
    Lobby,
    SitDown,
    StartMatch,
    Table,
    TableConfig,
)
from engine import Options
from tests.actors import my_turn
from tests.conftest import app_settings
from tests.test_db_support import run

pytest_plugins = ["tests.test_db_support"]  # db_url: migrated SQLite, then PostgreSQL

ANA, IVO = Player("p-ana", "Ana"), Player("p-ivo", "Ivo")


def seats(table: Table) -> list[tuple[str, str | None, str | None]]:
    """Who holds each seat (not whether they are connected: nobody is, after a restart)."""
    return [(seat.kind, seat.name, seat.level) for seat in table.info().seats]


async def scenario(db_url: str) -> None:
    settings = app_settings()
    bots = BotRunner(settings.bots)
    await bots.start()
    db = Database(db_url)
    try:
        lobby = Lobby(settings.tables, bots, DatabaseStorage(db))
        table = lobby.create(ANA, TableConfig("seats", Options.make("classic"), 600, True, False))
        await table.submit(SitDown(ANA, 0))
        await table.submit(SitDown(IVO, 2))  # never connects: a bot covers his turns
        for seat in (1, 3):
            await table.submit(AddBot(ANA, seat, Level.EASY))
        client = Client(ANA, 10_000)
        await table.submit(Attach(client))
        await table.submit(StartMatch(ANA))
        await my_turn(client)  # the table waits for Ana now
        await table.submit(LeaveSeat(IVO, 2))
        assert table.match is not None
        before = (table.version, seats(table), table.match.observation(0).to_dict())
        await lobby.stop()

        restarted = Lobby(settings.tables, bots, DatabaseStorage(db))
        await restarted.restore()
        again = restarted.get(table.id)
        assert again.match is not None
        after = (again.version, seats(again), again.match.observation(0).to_dict())
        assert after == before
        assert [seat.kind for seat in again.seats] == ["human", "bot", "bot", "bot"]
        assert again.seats[2].level == settings.cover_level
        assert again.turns.deadline is not None  # Ana's turn waits for her, on a fresh timer
        await restarted.stop()
    finally:
        await db.dispose()
        await bots.close()


def test_a_seat_left_during_the_match_stays_a_bot_after_a_restart(db_url: str) -> None:
    run(asyncio.wait_for(scenario(db_url), 60))

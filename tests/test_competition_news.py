"""Who is told what on the personal channel as a tournament moves on (app/competition/
news.py): each player of an entry still in, and the director, once per change of the
rows (a table made, a table ended, the end), with their own rank and table; one who
cannot be told holds nobody else up."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from redis.exceptions import ConnectionError as RedisDown

from app.competition.models import Status
from app.competition.news import News
from app.competition.store import Loaded
from app.db.tournaments import Entry, RoundTable, Tournament
from app.events import Notice

AT = datetime(2026, 12, 6, tzinfo=UTC)


def loaded(tables: list[RoundTable]) -> Loaded:
    t = Tournament(id="T", name="Cup", format="swiss", status="running", round=1, rounds=2,
                   director="boss")
    entries = [Entry(entry=1, members=[{"player_id": "ana", "name": "ana"},
                                       {"level": "easy", "name": "Bot (easy)"}], withdrawn=False),
               Entry(entry=2, members=[{"player_id": "bob", "name": "bob"},
                                       {"player_id": "cy", "name": "cy"}], withdrawn=False),
               Entry(entry=3, members=[{"player_id": "dan", "name": "dan"}] * 2, withdrawn=True)]
    return Loaded(t, entries, tables)


def table(table_id: str | None, ended: bool = False) -> RoundTable:
    return RoundTable(round=1, idx=0, seats=[1, 2, 1, 2], table_id=table_id,
                      ended_at=AT if ended else None, total0=151, total1=10,
                      winner=0 if ended else None, left=[], scores=[])


def test_each_player_still_in_and_the_director_told_once_per_change() -> None:
    told: list[tuple[str, Any]] = []

    async def tell(player: str, notice: Notice) -> None:
        told.append((player, notice))

    async def passes() -> None:
        news = News(tell)
        for step in (table(None), table("X"), table("X"), table("X", ended=True)):
            await news.read(loaded([step]))
        await news.read(loaded([table("X", ended=True)]), Status.FINISHED)

    asyncio.run(passes())
    assert [who for who, _ in told] == ["ana", "bob", "cy", "boss"] * 4  # not dan; no repeat
    made, ended, over = told[4:8], told[8:12], told[12:]
    assert {who: n.table for who, n in made} == {"ana": "X", "bob": "X", "cy": "X", "boss": None}
    assert {who: (n.rank, n.points, n.table) for who, n in ended} == {
        "ana": (1, 1.0, None), "bob": (3, 0.0, None), "cy": (3, 0.0, None),  # dan 2nd
        "boss": (None, None, None)}
    assert {n.status for _, n in over} == {"finished"} and over[0][1].entry == 1


def test_a_notice_that_cannot_be_told_holds_nobody_up() -> None:
    told: list[str] = []

    async def tell(player: str, notice: Notice) -> None:
        if player == "ana":
            raise RedisDown("Redis is away")
        told.append(player)

    asyncio.run(News(tell).read(loaded([table("X")])))
    assert told == ["bob", "cy", "boss"]

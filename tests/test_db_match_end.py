"""The end of a match and its subscribers (app/db/match_end.py, docs/storage.md "The end of
a match") on SQLite and PostgreSQL: each subscriber hears each match once, with its seats
and result, whoever writes the end and however often (a retry, writers racing, a
takeover, a restart); in the transaction that writes it, so that one that raises leaves
the match on and keeps nothing of the others' writes, until the end is written again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from app.db import models
from app.db.match_end import MatchEnded, MatchEndSubscriber
from app.db.session import Database
from app.db.storage import MATCH_END, DatabaseStorage
from app.matchlog import MatchEnd, MatchMeta, TableMeta
from app.models import Forfeit
from app.storage import Fenced
from app.vocabulary import EndReason

from .test_db_storage import META_SEATS, OPTIONS, Table
from .test_db_support import opened, run

pytest_plugins = ["tests.test_db_support"]  # the database fixtures

RATED = TableMeta(name="t", turn_seconds=30, private=False, timeout_forfeits=True, rated=True)
WRITERS = 4  # storages on engines of their own, as nodes or processes would be


class RatedTable(Table):
    """The storage tests' table, rated: the ratings write at its end as well as tallies."""

    def meta(self) -> MatchMeta:
        return super().meta().model_copy(update={"table": RATED})


class Heard:
    """A subscriber that notes each end it hears, after refusing the first ``refusals``."""

    def __init__(self, refusals: int = 0) -> None:
        self.ends: list[MatchEnded] = []
        self.refusals = refusals

    async def __call__(self, conn: AsyncConnection, ended: MatchEnded) -> None:
        if self.refusals:
            self.refusals -= 1
            raise RuntimeError("this subscriber refuses the end")
        self.ends.append(ended)


class StopsBeforeTheEnd(DatabaseStorage):
    """A node that stops right before it would write a match's end (its last action is
    logged): the end is written by whoever comes next."""

    async def finish_match(self, table_id: str, end: MatchEnd) -> None:
        pass


def subscribed(*extra: MatchEndSubscriber) -> tuple[MatchEndSubscriber, ...]:
    return (*MATCH_END, *extra)


async def counted(db: Database) -> dict[str, tuple[Any, ...]]:
    """What the server's subscribers wrote, by player: matches tallied, rated-table wins."""
    t, r = models.PlayerTally, models.PlayerRating
    async with db.read() as session:
        tallies = {p: n for p, n in await session.execute(select(t.player_id, t.matches))}
        wins = {p: n for p, n in await session.execute(select(r.player_id, r.table_wins))}
    return {player: (tallies.get(player), wins.get(player))
            for player in sorted({*tallies, *wins})}


async def finished(db: Database, match_id: str) -> bool:
    async with db.read() as session:
        return await session.scalar(
            select(models.Match.finished_at).where(models.Match.id == match_id)) is not None


def test_each_end_is_heard_once_with_its_seats_and_result(db_url: str) -> None:
    async def scenario() -> None:
        heard = Heard()
        async with opened(db_url) as db, opened(db_url) as other_node:
            storage = DatabaseStorage(db, subscribers=subscribed(heard))
            won, forfeit, on = (RatedTable(storage, f"t{i}", seed=i) for i in range(3))
            for table in (won, forfeit, on):
                await table.start()
            await forfeit.play(20)
            await storage.leave_seat(forfeit.id, 2, forfeit.version)
            forfeited = MatchEnd(EndReason.FORFEIT, forfeit.match.totals, 1,
                                 Forfeit(seat=2, winner=1))
            await storage.finish_match(forfeit.id, forfeited)
            await on.play(20)
            await won.play(10_000)
            assert won.match.is_over and not on.match.is_over
            assert [e.match_id for e in heard.ends] == [forfeit.id, won.id]
            ends = {won.id: MatchEnd(EndReason.WON, won.match.totals, won.match.winner),
                    forfeit.id: forfeited}
            for ended in heard.ends:
                log = await storage.repo.load(ended.match_id)
                assert log is not None and log.match.finished_at is not None
                assert ended.end == ends[ended.match_id]
                assert list(ended.seats) == META_SEATS
                assert (ended.variant, ended.rated, ended.private) == (OPTIONS.variant, True,
                                                                       False)
                stored_at = log.match.finished_at.replace(tzinfo=None)
                assert ended.finished_at.replace(tzinfo=None) == stored_at
            assert list(heard.ends[0].left) == [2] and list(heard.ends[1].left) == []
            # The same ends again: a retry of a write whose answer was lost, and another
            # node's writes, all at once.  Nobody hears them, nothing is counted twice.
            again = DatabaseStorage(other_node, subscribers=subscribed(heard))
            await asyncio.gather(*(s.finish_match(match_id, end) for match_id, end in ends.items()
                                   for s in (storage, again)))
            assert len(heard.ends) == 2
            ana_won = int(won.match.winner == 0)  # with Ivo: the forfeit they lost
            assert await counted(db) == {"p-ana": (2, ana_won), "p-ivo": (2, ana_won)}

    run(scenario())


def test_writers_racing_to_end_a_match_are_heard_once(db_url: str) -> None:
    async def scenario() -> None:
        heard = Heard()
        async with opened(db_url) as db:
            table = RatedTable(StopsBeforeTheEnd(db), "t", seed=2)
            await table.start()
            await table.play(10_000)
            assert table.match.is_over and not await finished(db, table.id)
            end = MatchEnd(EndReason.WON, table.match.totals, table.match.winner)
            nodes = [Database(db_url) for _ in range(WRITERS)]
            try:
                await asyncio.gather(*(DatabaseStorage(node, subscribers=subscribed(heard))
                                       .finish_match(table.id, end) for node in nodes))
            finally:
                for node in nodes:
                    await node.dispose()
            assert [(e.match_id, e.end) for e in heard.ends] == [(table.id, end)]
            assert [tallied for tallied, _ in (await counted(db)).values()] == [1, 1]

    run(scenario())


def test_a_takeover_or_a_restart_that_writes_the_end_is_heard_once(db_url: str) -> None:
    """The node that logged a match's last action stops before its end: the node that
    takes the match over writes it (its claim redoes what a stop cut off), and the first
    node's late write is fenced; without a cluster, the restart writes it instead."""

    async def scenario() -> None:
        heard = Heard()
        async with opened(db_url) as first, opened(db_url) as second:
            stopping = StopsBeforeTheEnd(first, fencing=True, subscribers=subscribed(heard))
            taken, restarted = (RatedTable(stopping, f"t{i}", seed=i) for i in (3, 4))
            for table in (taken, restarted):
                await table.start()
                await table.play(10_000)
                assert table.match.is_over
            assert heard.ends == []
            taking = DatabaseStorage(second, fencing=True, subscribers=subscribed(heard))
            assert await taking.claim(taken.id) is None  # won: nothing left to play
            end = MatchEnd(EndReason.WON, taken.match.totals, taken.match.winner)
            with pytest.raises(Fenced):
                await DatabaseStorage.finish_match(stopping, taken.id, end)
            assert [(e.match_id, e.end) for e in heard.ends] == [(taken.id, end)]
            restart = DatabaseStorage(second, subscribers=subscribed(heard))
            for _ in range(2):  # a second restart finds nothing left to end
                assert [m.table_id for m in await restart.load_unfinished()] == []
            assert [e.match_id for e in heard.ends] == [taken.id, restarted.id]
            assert heard.ends[1].end == MatchEnd(EndReason.WON, restarted.match.totals,
                                                 restarted.match.winner)
            assert [tallied for tallied, _ in (await counted(first)).values()] == [2, 2]

    run(scenario())


def test_a_subscriber_that_raises_leaves_the_match_on_and_keeps_nothing(db_url: str) -> None:
    """Ratings and tallies wrote before the refusing subscriber raised: the whole end is
    rolled back with it, and written (once) when the table's retry succeeds."""

    async def scenario() -> None:
        refusing = Heard(refusals=2)
        async with opened(db_url) as db:
            storage = DatabaseStorage(db, subscribers=subscribed(refusing))
            table = RatedTable(storage, "t", seed=5)
            await table.start()
            with pytest.raises(RuntimeError, match="refuses the end"):
                await table.play(10_000)
            assert table.match.is_over
            end = MatchEnd(EndReason.WON, table.match.totals, table.match.winner)
            with pytest.raises(RuntimeError, match="refuses the end"):
                await storage.finish_match(table.id, end)  # the table's retry, refused too
            assert not await finished(db, table.id)
            assert await counted(db) == {}
            assert await storage.repo.unfinished_ids() == [table.id]  # a restart's to end
            await storage.finish_match(table.id, end)  # the next retry succeeds
            assert await finished(db, table.id)
            assert [e.match_id for e in refusing.ends] == [table.id]
            won = int(table.match.winner == 0)
            assert await counted(db) == {"p-ana": (1, won), "p-ivo": (1, won)}

    run(scenario())

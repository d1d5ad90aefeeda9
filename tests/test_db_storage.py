"""``app.db.storage.DatabaseStorage``: the table server's storage interface on both
databases, behaving like ``MemoryStorage`` and surviving a restart."""

from __future__ import annotations

import logging
import random

import pytest
from sqlalchemy import text

from ai import Level
from app.db.session import Database
from app.db.storage import DatabaseStorage
from app.matchlog import LoggedAction, MatchEnd, MatchMeta, Owner, Seat, TableMeta
from app.models import Forfeit
from app.storage import MemoryStorage, Storage, StoredMatch
from app.vocabulary import EndReason, SeatKind
from engine import Match, Options, write_record

from .test_db_support import run

pytest_plugins = ["tests.test_db_support"]  # the database fixtures

OPTIONS = Options.make("bulgarian")
META_SEATS = [
    Seat(SeatKind.HUMAN, "Ana", "p-ana"),
    Seat(SeatKind.BOT, "Bot", level=Level.HARD),
    Seat(SeatKind.HUMAN, "Ivo", "p-ivo"),
    Seat(SeatKind.BOT, "Bot", level=Level.EASY),
]


class Table:
    """What ``app.tables`` tells its storage, without the sockets."""

    def __init__(self, storage: Storage, table_id: str, seed: int) -> None:
        self.storage, self.id, self.seed = storage, table_id, seed
        self.match = Match(OPTIONS, seed=seed)
        self.version = 1
        self.rng = random.Random(seed)

    def meta(self) -> MatchMeta:
        return MatchMeta(
            variant=OPTIONS.variant, options=OPTIONS.changed(), seed=self.seed,
            seats=META_SEATS, version=self.version,
            table=TableMeta(name="t", turn_seconds=30, private=False, timeout_forfeits=False),
            owner=Owner(id="p-ana", name="Ana"))

    async def start(self) -> None:
        await self.storage.create_match(self.id, self.meta())
        deal = self.match.deals[0]
        await self.storage.start_deal(self.id, 0, deal.dealer, deal.deck)

    async def act(self, *, report_deals: bool = True) -> None:
        finished, dealt = len(self.match.results), len(self.match.deals)
        seat = self.match.current_player()
        deal = self.match.deal
        assert seat is not None and deal is not None
        action = self.rng.choice(self.match.legal_actions())
        place = dealt - 1, len(deal.history)
        self.match.apply_action(action, seat)
        self.version += 1
        actor = "player" if META_SEATS[seat].kind == SeatKind.HUMAN else "bot"
        await self.storage.append_action(self.id, *place, LoggedAction(seat, action, actor,
                                                                        self.version))
        if report_deals:
            for index in range(finished, len(self.match.results)):
                await self.storage.finish_deal(self.id, index, self.match.results[index])
            for index in range(dealt, len(self.match.deals)):
                new = self.match.deals[index]
                await self.storage.start_deal(self.id, index, new.dealer, new.deck)
        if self.match.is_over:
            await self.storage.finish_match(
                self.id, MatchEnd(EndReason.WON, self.match.totals, self.match.winner))

    async def play(self, actions: int) -> None:
        for _ in range(actions):
            if self.match.is_over:
                break
            await self.act()


def summary(stored: StoredMatch) -> tuple[object, ...]:
    """What a restored table is built from, comparable across storages."""
    return (stored.table_id, stored.meta, write_record(stored.match), stored.match.results,
            stored.version, stored.finished_at)


def test_behaves_like_memory_storage(db_url: str) -> None:
    async def scenario() -> None:
        db = Database(db_url)
        try:
            stored = []
            for storage in (MemoryStorage(), DatabaseStorage(db)):
                tables = [Table(storage, f"t{i}", seed=i) for i in range(3)]
                for table in tables:
                    await table.start()
                for n, table in enumerate(tables):
                    await table.play(30 + 30 * n)
                await tables[2].play(10_000)  # to the end: no longer unfinished
                assert [t.match.is_over for t in tables] == [False, False, True]
                assert tables[1].match.results  # some deals finished
                stored.append(await storage.load_unfinished())
            memory, database = stored
            assert [m.table_id for m in database] == ["t0", "t1"]
            assert [summary(m) for m in database] == [summary(m) for m in memory]
        finally:
            await db.dispose()

    run(scenario())


def test_tables_resume_after_a_restart(db_url: str) -> None:
    """A crash right after the action that ends deal 0 (its result and the next deal never
    logged): the new process recovers the table, repairs the log, and plays on to the end."""

    async def scenario() -> None:
        db = Database(db_url)
        try:
            table = Table(DatabaseStorage(db), "t", seed=5)
            await table.start()
            while not table.match.results:
                await table.act(report_deals=False)
            expected_record = write_record(table.match)

            restarted = DatabaseStorage(db)
            [stored] = await restarted.load_unfinished()
            assert write_record(stored.match) == expected_record
            assert stored.match.results == table.match.results
            assert stored.version == table.version
            log = await restarted.repo.load("t")  # the cut writes, redone
            assert log is not None and len(log.deals) == 2 and log.deals[0].outcome is not None

            table.storage, table.match = restarted, stored.match
            await table.play(10_000)
            assert table.match.is_over and await restarted.load_unfinished() == []
            log = await restarted.repo.load("t")
            assert log is not None and log.match.end_reason == "won"
            record = log.record()
            assert record["deals"] == write_record(table.match)["deals"]
            assert record["seats"][0] == {"name": "Ana", "kind": "human"}
        finally:
            await db.dispose()

    run(scenario())


@pytest.mark.parametrize(("reason", "winner", "forfeit"),
                         [(EndReason.ABANDONED, None, None),
                          (EndReason.FORFEIT, 0, Forfeit(seat=1, winner=0))])
def test_matches_end_by_forfeit_or_abandon(
    db_url: str, reason: EndReason, winner: int | None, forfeit: Forfeit | None
) -> None:
    async def scenario() -> None:
        db = Database(db_url)
        try:
            storage = DatabaseStorage(db)
            table = Table(storage, "t", seed=1)
            await table.start()
            await table.play(20)
            end = MatchEnd(reason, table.match.totals, winner, forfeit)
            await storage.finish_match(table.id, end)
            await storage.finish_match(table.id, end)  # a retry changes nothing
            log = await storage.repo.load("t")
            assert log is not None
            assert (log.match.end_reason, log.match.winner) == (reason, winner)
            assert log.match.meta.get("forfeit") == (forfeit and forfeit.model_dump())
            assert await storage.load_unfinished() == []
        finally:
            await db.dispose()

    run(scenario())


def test_a_log_that_no_longer_replays_is_reported_and_the_others_come_back(
        db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """A damaged match stays in the database as it is; every other table is restored."""

    async def scenario() -> None:
        db = Database(db_url)
        try:
            storage = DatabaseStorage(db)
            tables = [Table(storage, f"t{i}", seed=i) for i in range(2)]
            for table in tables:
                await table.start()
                await table.play(12)
            async with db.write() as conn:  # t0's first call becomes a bid out of turn
                await conn.execute(text(
                    "UPDATE actions SET seat = (seat + 1) % 4 "
                    "WHERE match_id = 't0' AND deal_idx = 0 AND seq = 0"))
            with caplog.at_level(logging.ERROR, logger="app.db.storage"):
                restored = await DatabaseStorage(db).load_unfinished()
            assert [m.table_id for m in restored] == ["t1"]
            assert "match t0 not restored" in caplog.text
            assert await DatabaseStorage(db).repo.load("t0") is not None  # kept
        finally:
            await db.dispose()

    run(scenario())

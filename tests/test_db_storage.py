"""``app.db.storage.DatabaseStorage``: the table server's storage interface on both
databases, behaving like ``MemoryStorage`` and surviving a restart."""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest
from sqlalchemy import text

from app.db.session import Database, StorageError
from app.db.storage import DatabaseStorage
from app.storage import LoggedAction, MemoryStorage, Storage
from engine import Match, Options, write_record

from .test_db_support import run

pytest_plugins = ["tests.test_db_support"]  # the database fixtures

OPTIONS = Options.make("bulgarian")
META_SEATS = [
    {"name": "Ana", "kind": "human", "player_id": "p-ana"},
    {"name": "Bot", "kind": "bot", "level": "hard"},
    {"name": "Ivo", "kind": "human", "player_id": "p-ivo"},
    {"name": "Bot", "kind": "bot", "level": "easy"},
]


class Table:
    """What ``app.tables`` does with its storage, without the sockets."""

    def __init__(self, storage: Storage, table_id: str, seed: int) -> None:
        self.storage, self.id, self.seed = storage, table_id, seed
        self.match = Match(OPTIONS, seed=seed)
        self.version = 1
        self.rng = random.Random(seed)

    def meta(self) -> dict[str, Any]:
        return {"variant": OPTIONS.variant, "options": OPTIONS.changed(), "seed": self.seed,
                "seats": META_SEATS, "version": self.version}

    async def act(self, *, report_results: bool = True) -> None:
        finished = len(self.match.results)
        seat = self.match.current_player()
        assert seat is not None
        action = self.rng.choice(self.match.legal_actions())
        self.match.apply_action(action, seat)
        self.version += 1
        await self.storage.append_action(self.id, LoggedAction(self.version, seat, action, "bot"))
        if report_results:
            for index, result in enumerate(self.match.results[finished:], finished):
                await self.storage.finish_deal(self.id, index, result.to_dict())
        if self.match.is_over:
            await self.storage.finish_match(self.id, write_record(self.match, id=self.id))

    async def play(self, actions: int) -> None:
        for _ in range(actions):
            if self.match.is_over:
                break
            await self.act()


def test_behaves_like_memory_storage(db_url: str) -> None:
    async def scenario() -> None:
        db = Database(db_url)
        try:
            stored = []
            for storage in (MemoryStorage(), DatabaseStorage(db)):
                tables = [Table(storage, f"t{i}", seed=i) for i in range(3)]
                for table in tables:
                    await storage.create_match(table.id, table.meta())
                for n, table in enumerate(tables):
                    await table.play(30 + 30 * n)
                await tables[2].play(10_000)  # to the end: no longer unfinished
                assert [t.match.is_over for t in tables] == [False, False, True]
                assert tables[1].match.results  # some deals finished
                stored.append(await storage.load_unfinished())
            memory, database = stored
            assert [m.table_id for m in database] == ["t0", "t1"]
            assert database == memory
        finally:
            await db.dispose()

    run(scenario())


def test_tables_resume_after_a_restart(db_url: str) -> None:
    """A crash right after the action that ends deal 0 (its result never reported): the
    new process recovers the table, repairs the log, and plays on to the end."""

    async def scenario() -> None:
        db = Database(db_url)
        try:
            table = Table(DatabaseStorage(db), "t", seed=5)
            await table.storage.create_match(table.id, table.meta())
            while not table.match.results:
                await table.act(report_results=False)
            expected_record = write_record(table.match)

            restarted = DatabaseStorage(db)
            [stored] = await restarted.load_unfinished()
            resumed = Match(OPTIONS, seed=stored.meta["seed"])
            for entry in stored.actions:
                resumed.apply_action(entry.action, entry.seat)
            assert write_record(resumed) == expected_record
            assert stored.deal_results == [r.to_dict() for r in table.match.results]
            assert stored.actions[-1].version == table.version

            table.storage, table.match = restarted, resumed
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


@pytest.mark.parametrize(("extra", "reason", "winner"),
                         [({"abandoned": "no players left"}, "abandoned", None),
                          ({"forfeit": {"seat": 1, "winner": 0}}, "forfeit", 0)])
def test_matches_end_by_forfeit_or_abandon(
    db_url: str, extra: dict[str, Any], reason: str, winner: int | None
) -> None:
    async def scenario() -> None:
        db = Database(db_url)
        try:
            storage = DatabaseStorage(db)
            table = Table(storage, "t", seed=1)
            await storage.create_match(table.id, table.meta())
            await table.play(20)
            await storage.finish_match(table.id, write_record(table.match) | extra)
            log = await storage.repo.load("t")
            assert log is not None
            assert (log.match.end_reason, log.match.winner) == (reason, winner)
            assert await storage.load_unfinished() == []
            with pytest.raises(StorageError):  # the table is closed for the log
                await table.play(1)
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
                await storage.create_match(table.id, table.meta())
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
